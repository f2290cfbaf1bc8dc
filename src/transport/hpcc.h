// HPCC (Li et al., SIGCOMM'19): window congestion control driven by in-band network telemetry
// (transport.cc = "hpcc"; docs/hpcc.md). Every switch a data packet leaves through stamps its egress
// port's queue length, transmitted bytes, time and line rate (net/int_stack.h); the receiver echoes
// the records in the ACK, and the sender computes from them how close the most loaded link of the
// path is to full, and scales its window to hold that link at eta of its capacity.
//
// Per ACK ([HPCC] sec. 3, Algorithm 1), with L the previous ACK's records and T the base RTT:
//   MeasureInflight: for each hop i of the ACK whose port matches hop i of L,
//                      txRate = (ack.txBytes - L.txBytes) / (ack.ts - L.ts)
//                      u'     = min(ack.qlen, L.qlen) / (ack.B x T) + txRate / ack.B
//                    u = the largest u', tau = that hop's ts difference, capped at T;
//                    U = (1 - tau/T) U + (tau/T) u
//   ComputeWind:     U >= eta or incStage >= maxStage: W = Wc / (U / eta) + W_AI
//                    (when updating Wc: incStage = 0, Wc = W)
//                    else W = Wc + W_AI (when updating Wc: incStage += 1, Wc = W)
//   Wc is updated once per RTT: the paper's rule is an ACK beyond lastUpdateSeq, which is then set to
//   snd_nxt, i.e. the ACK of a packet sent after the last update; here the ACK of a packet sent at or
//   after the last update (by its echoed send time: a retransmission counts too, and a hole left by a
//   trimmed packet does not hold the update back as a cumulative sequence number would). Every other
//   ACK computes W from the unchanged Wc. The NIC paces at W / T.
// The first ACK only stores its records (and sets the update time), as the authors' ns-3 code does.
//
// Deviations (docs/hpcc.md "Known deviations"): a hop whose port differs from the previous ACK's
// hop at the same index (sprayed packets take other paths) gives no sample this ACK; loss (a NACK, a
// timeout) leaves the window alone (HPCC assumes a lossless network); the window may fall below one
// packet, when the transport's window admits one packet and the pacing rate W / T spaces them.
#pragma once
#include "net/int_stack.h"
#include "transport/cc.h"

namespace lbsim::transport {

class Hpcc final : public CongestionControl {
 public:
  explicit Hpcc(const CcParams& p);
  BitsPerSec rate(SimTime now) override;
  void set_line_rate(BitsPerSec r) override;
  void on_int(const net::IntStack& s, SimTime sent, SimTime now) override;
  double window_bytes() const { return w_; }
  double reference_window() const { return wc_; }
  double utilisation() const { return u_; }
  double wai() const { return wai_; }
  std::uint64_t updates() const { return updates_; }  // Wc updates (once per RTT)

 protected:
  void ack_unmarked(Bytes) override { set(w_); }
  void ack_marked(Bytes, Bytes) override { set(w_); }  // ECN is not HPCC's signal
  void loss(double) override { set(w_); }              // lossless by design: no loss reaction
  void timeout(double) override { set(w_); }

 private:
  // MeasureInflight: true when some hop gave a sample (U updated).
  bool measure(const net::IntStack& s);
  void compute_wind(bool update_wc);
  void set(double w);  // w_ within [min, max_cwnd], the byte window the transport reads
  const HpccParams h_;
  const double t_;  // T in ps
  double w_ = 0, wc_ = 0, u_ = 1.0, wai_ = 0;
  std::uint32_t inc_stage_ = 0;
  SimTime last_update_ = 0;  // time of the last Wc update (the paper's lastUpdateSeq = snd_nxt then)
  bool have_prev_ = false;
  net::IntStack prev_;
  BitsPerSec line_ = 0;
  std::uint64_t updates_ = 0;
};

}  // namespace lbsim::transport
