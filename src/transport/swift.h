// Swift (Kumar et al., SIGCOMM'20): delay-based window congestion control (transport.cc = "swift";
// docs/baselines.md "Swift"). The congestion signal is the ACK's RTT sample against a target delay;
// ECN marks are ignored. Windows are counted in packets (CcParams::mtu bytes each) and may fall below
// one packet, when the flow is paced instead.
//
// Target delay ([Swift] sec. 3.1, topology-based and flow-based scaling, sec. 3.5):
//   target = base_target + hops x per_hop + fs(cwnd)
//   fs(cwnd) = clamp(alpha / sqrt(cwnd) + beta_fs, 0, fs_range),
//   alpha = fs_range / (1 / sqrt(fs_min_cwnd) - 1 / sqrt(fs_max_cwnd)), beta_fs = -alpha / sqrt(fs_max_cwnd)
// so a flow at fs_min_cwnd packets gets fs_range more target and one at fs_max_cwnd or more gets none
// (smaller windows tolerate more queueing: the fair share is reached from both sides). `hops` is the
// number of switches the acknowledged data packet crossed (its echo on the ACK, net::Packet::echo_hops).
//
// Per ACK of `n` packets with RTT sample `delay` ([Swift] Algorithm 1):
//   delay < target:  additive increase, ai packets per RTT: cwnd += ai x n / cwnd (cwnd >= 1),
//                    cwnd += ai x n (cwnd < 1)
//   delay >= target: multiplicative decrease, at most once per RTT (now - last decrease >= the RTT
//                    sample): cwnd *= max(1 - beta (delay - target) / delay, 1 - max_mdf)
// A NACK (a trimmed packet: Swift's fast-recovery loss) cuts cwnd *= 1 - max_mdf, at most once per RTT;
// a retransmission timeout does too, and retx_reset consecutive timeouts (no ACK between) set
// cwnd = min_cwnd. cwnd stays within [min_cwnd, max_cwnd].
//
// Pacing ([Swift] sec. 3.3, "pacing when cwnd < 1"): below one packet the transport's window admits one
// packet and the NIC spaces the packets rtt / cwnd apart (rate() = mtu x 8 x cwnd / rtt); at one packet
// or more rate() is the line rate, which paces nothing (a packet's successor cannot start before its
// serialisation ends anyway).
//
// Host (endpoint) delay is not modelled by the simulator, so Swift's endpoint window (sec. 3.2) would
// always stay at its maximum: only the fabric window is kept (docs/baselines.md "Swift").
#pragma once
#include "transport/cc.h"

namespace lbsim::transport {

class Swift final : public CongestionControl {
 public:
  explicit Swift(const CcParams& p);
  BitsPerSec rate(SimTime now) override;
  void set_line_rate(BitsPerSec r) override { line_ = r; }
  // The window in packets (may be below 1) and the target delay for `hops` switches at that window.
  double window_packets() const { return w_; }
  SimTime target(std::uint32_t hops) const;
  std::uint64_t decreases() const { return decreases_; }

 protected:
  void ack_unmarked(Bytes acked) override { on_delay(acked); }
  void ack_marked(Bytes acked, Bytes) override { on_delay(acked); }  // ECN is not Swift's signal
  void loss(double) override;
  void timeout(double) override;

 private:
  void on_delay(Bytes acked);
  bool can_decrease() const { return last_decrease_ < 0 || now_ - last_decrease_ >= rtt_now(); }
  // The window x factor if no decrease happened within the last RTT ([Swift] Algorithm 1), else unchanged.
  void decrease_once(double factor);
  SimTime rtt_now() const { return last_rtt_ > 0 ? last_rtt_ : p_.base_rtt; }
  void set(double w);  // w_ within its bounds, and the byte window the transport reads
  const SwiftParams s_;
  const SimTime base_target_;
  const double max_w_;
  double fs_alpha_ = 0, fs_beta_ = 0;
  double w_ = 1.0;  // packets
  SimTime last_rtt_ = -1, last_decrease_ = -1, last_timeout_ = -1;
  std::uint32_t retx_ = 0;  // consecutive timeouts
  BitsPerSec line_ = 0;
  std::uint64_t decreases_ = 0;
};

}  // namespace lbsim::transport
