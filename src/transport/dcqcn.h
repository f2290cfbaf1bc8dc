// DCQCN (Zhu et al., SIGCOMM'15): rate-based congestion control of RoCEv2, in the timer-driven form
// of the Mellanox NIC model that the LAPS artifact's ns-3 code runs (transport.cc = "dcqcn";
// docs/baselines.md "DCQCN"). The window stays at its initial value (transport.max_cwnd_bdp: the
// artifact's window is the largest shortest-path BDP); the transport paces the flow's packets at
// rate(now) (one packet per size x 8 / rate after the previous one's start).
//
// Notification point (receiver): a CNP is the ECN echo of an ACK (the artifact's receiver sets the
// CNP bit on the ACK of a CE-marked packet, one ACK per packet). transport.dcqcn_cnp_interval_us > 0
// applies DCQCN's NP rule of at most one CNP per interval per flow (sec. 3.2: 50 us), counted where
// the CNPs arrive (the sender), which is the receiver's rule shifted by the ACK's one-way delay.
//
// Reaction point (sender), [DCQCN] sec. 3.1 / Fig. 4-6 with the NIC model's timers:
//   first CNP:      alpha = 1; target rate RT = current rate RC (x rate_on_first_cnp); the alpha
//                   timer (every alpha_interval) and the decrease check (every decrease_interval,
//                   first one decrease_interval + 1 ns after this CNP) start.
//   alpha timer:    alpha = (1 - g) alpha + g if a CNP arrived since the last tick, else (1 - g) alpha.
//   decrease check: if a CNP arrived since the last check: RT = RC (only when clamp_target or the
//                   increase stage is > 0), RC = max(min_rate, RC (1 - alpha / 2)), stage = 0, and the
//                   rate-increase timer restarts (first tick rp_timer later, then every rp_timer).
//   increase tick:  stage < F: fast recovery RC = (RC + RT) / 2;
//                   stage = F: additive increase RT += rate_ai (capped at line rate), RC = (RC + RT) / 2;
//                   stage > F: hyper increase RT += rate_hai (capped), RC = (RC + RT) / 2; then stage++.
// The paper's byte counter (B = 10 MB) is not modelled: the NIC model the artifact runs has none.
//
// Timers are evaluated lazily: every call with a time first runs, in time order, the timer ticks
// that fell due up to that time (alpha ticks before a decrease check at the same time; an increase
// tick before a decrease check at the same time, the order in which the NIC model schedules them),
// so a flow costs nothing per tick while it sends nothing.
#pragma once
#include "transport/cc.h"

namespace lbsim::transport {

class Dcqcn final : public CongestionControl {
 public:
  explicit Dcqcn(const CcParams& p);
  BitsPerSec rate(SimTime now) override;
  void set_line_rate(BitsPerSec r) override;
  // A CNP arrives at `now` (an ECN-echoing ACK; the tests call it directly).
  void cnp(SimTime now);
  // State after running the timers due up to `now` (tests, reports).
  double current_rate(SimTime now) {
    advance(now);
    return rc_;
  }
  double target_rate(SimTime now) {
    advance(now);
    return rt_;
  }
  double alpha(SimTime now) {
    advance(now);
    return alpha_;
  }
  std::uint32_t stage(SimTime now) {
    advance(now);
    return stage_;
  }
  std::uint64_t cnps() const { return cnps_; }
  std::uint64_t decreases() const { return decreases_; }

 protected:
  void ack_unmarked(Bytes) override {}
  void ack_marked(Bytes, Bytes) override { cnp(now_); }
  void loss(double) override {}  // go-back-N / retransmission only; the rate reacts to CNPs alone

 private:
  void advance(SimTime now);
  void alpha_ticks(SimTime upto);
  void decrease(SimTime t);
  void increase();
  const DcqcnParams d_;
  double line_ = 0, rc_ = 0, rt_ = 0, alpha_ = 1.0;
  bool started_ = false;  // first CNP seen: the timers run
  bool alpha_cnp_ = false, dec_cnp_ = false;
  SimTime alpha_next_ = kTimeNever, dec_next_ = kTimeNever, rp_next_ = kTimeNever;
  SimTime last_cnp_ = -1;
  std::uint32_t stage_ = 0;
  std::uint64_t cnps_ = 0, decreases_ = 0;
};

}  // namespace lbsim::transport
