// NSCC, the Ultra Ethernet transport's sender-based, network-signal congestion control (UEC 1.0
// sec. 3.6.13; transport.cc = "nscc"; docs/nscc.md). A window in bytes driven by two signals per ACK:
// its ECN echo and its queueing delay, delay = RTT sample - base RTT (the base RTT is the configured
// one, lowered by any smaller sample), against the target queueing delay target_qdelay:
//
//   no ECN, delay <  target   proportional increase: inc += alpha' x acked x (target - delay), unless
//                             fast increase is on (below)
//   no ECN, delay >= target   fair increase:         inc += fi' x acked
//   ECN,    delay >= target   multiplicative decrease, at most once per base RTT:
//                             cwnd *= max(1 - gamma (avg_delay - target) / avg_delay, 1 - max_md_jump)
//                             when the average delay is above target
//   ECN,    delay <  target   no change (the queue is short: the mark is transient)
//
// The increases accumulate in inc (bytes^2) and are applied once adjust_bytes have been acknowledged
// or a base RTT has passed: cwnd += inc / cwnd (so fi' per RTT whatever the window), plus eta' once
// per adjust_period. avg_delay is the EWMA (gain delay_alpha) of the per-ACK delays.
// Fast increase: while the delay stays below fast_increase_delay for a whole window of acknowledged
// bytes, the window grows by fi_scale' x acked per ACK (doubling-like), until a delay above it.
// QuickAdapt (once per base RTT + target_qdelay): after a NACK or timeout, or an ACK whose delay is
// above qa_threshold x target, if the bytes acknowledged during the last period are below
// max_cwnd / 2^qa_gate, the window becomes those bytes; the ECN-marked feedback of the bytes then in
// flight is ignored. NACK / timeout otherwise: cwnd -= transport.nack_decrease / timeout_decrease MTUs.
// Scaling (the specification's parameter scaling): with the reference network's BDP (100 Gb/s x
// 12 us), a = flow BDP / reference BDP and b = target_qdelay / 12 us; alpha' = alpha x MTU x a x b /
// target_qdelay, fi' = fi x MTU x a, eta' = eta x MTU x a, fi_scale' = fi_scale x a.
// Pacing (NsccParams::pacing): the NIC spaces the flow's packets at cwnd / base RTT (at most the line
// rate), so a window's worth leaves over one base RTT instead of in a burst.
#pragma once
#include "transport/cc.h"

namespace lbsim::transport {

class Nscc final : public CongestionControl {
 public:
  explicit Nscc(const CcParams& p);
  BitsPerSec rate(SimTime now) override;
  void set_line_rate(BitsPerSec r) override;

  // State and the number of times each rule acted (tests, reports).
  SimTime target_qdelay() const { return target_; }
  SimTime base_rtt() const { return base_rtt_; }
  double avg_delay() const { return avg_delay_; }
  struct Counts {
    std::uint64_t proportional = 0, fair = 0, fast = 0, decreases = 0, noop = 0, quick_adapts = 0;
  };
  const Counts& counts() const { return n_; }
  // The scaled gains (bytes): alpha' per byte and ps, fi', eta', fi_scale'.
  double alpha_scaled() const { return alpha_; }
  double fi_scaled() const { return fi_; }
  double eta_scaled() const { return eta_; }

 protected:
  void ack_unmarked(Bytes acked) override { ack(acked, false); }
  void ack_marked(Bytes acked, Bytes) override { ack(acked, true); }
  void loss(double mtus) override;

 private:
  void ack(Bytes acked, bool ecn);
  bool quick_adapt(bool loss, bool ecn, double delay, Bytes inflight);
  void fair_increase(Bytes acked);
  void proportional_increase(Bytes acked, double delay);
  bool fast_increase(Bytes acked, double delay);
  void multiplicative_decrease();
  void adjust();
  const NsccParams q_;
  SimTime target_ = 0, base_rtt_ = 0, adjust_period_ = 0;
  double line_ = 0;
  double alpha_ = 0, fi_ = 0, eta_ = 0, fi_scale_ = 0;  // scaled to the flow (set_line_rate)
  double avg_delay_ = 0;
  double inc_ = 0;      // accumulated increase, bytes^2 (applied as inc / cwnd)
  Bytes received_ = 0;  // acknowledged since the last adjustment
  SimTime last_adjust_ = 0, last_dec_ = -1;
  Bytes fi_count_ = 0;                 // fast increase: bytes acked with delay below the threshold
  bool increasing_ = false;            // fast increase active
  Bytes achieved_ = 0;                 // QuickAdapt: bytes acknowledged in the current period
  SimTime qa_end_ = 0;                 // end of the current QuickAdapt period (0: none yet)
  bool trigger_qa_ = false;            // a loss since the last period's check
  Bytes to_ignore_ = 0, ignored_ = 0;  // ECN feedback of the bytes in flight at a QuickAdapt
  Counts n_;
};

}  // namespace lbsim::transport
