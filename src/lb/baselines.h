// The baseline sender-side load balancers of the REPS evaluation ([REPS] sec. 4.1). Each is a
// small model of the published scheme reduced to what an EV-choosing NIC can do; the modelling
// choices are stated per class (docs/reps.md "Baselines").
#pragma once
#include <cstdint>
#include <vector>

#include "lb/lb_params.h"
#include "lb/policy.h"

namespace lbsim::lb {

// PLB (Protective Load Balancing): the connection keeps one EV; per round of one base RTT it counts
// the fraction of ECN-marked ACKs; after `plb_rounds` consecutive rounds at or above
// `plb_threshold` it repaths (new random EV), and it repaths at once on a retransmission timeout.
// [REPS] sec. 4.1 runs PLB with aggressive FlowBender-like settings: one congested round suffices.
// With `plb_idle_rounds` > 0 (PLB sec. 3 as in Linux's tcp_plb: 3 idle / 12 forced rounds, 50%), a
// round that ends with at least that many consecutive congested rounds and nothing in flight (the
// ACK that closes it left no bytes outstanding) also repaths, so that the repath reorders nothing;
// `plb_rounds` is then the forced repath.
class PlbPolicy final : public EntropyPolicy {
 public:
  PlbPolicy(PolicyContext ctx, const BaselineParams& p);
  std::uint32_t next_ev(SimTime) override { return ev_; }
  void on_feedback(std::uint32_t ev, Feedback kind, SimTime now) override;
  void on_ack_detail(const AckDetail& a) override { inflight_ = a.inflight; }
  std::size_t state_bits() const override { return 16 + 2 * 16 + 8 + 32; }
  std::uint64_t repaths() const { return repaths_; }

 private:
  void repath();
  PolicyContext ctx_;
  double threshold_;
  std::uint32_t rounds_needed_, idle_rounds_;
  Bytes inflight_ = 0;  // after the latest ACK (plb_idle_rounds only)
  std::uint32_t ev_;
  SimTime round_start_ = -1;
  std::uint32_t acks_ = 0, marked_ = 0, congested_rounds_ = 0;
  std::uint64_t repaths_ = 0;
};

// Flowlet switching: a new random EV whenever the connection was idle for longer than the flowlet
// timeout (default half the base RTT, [REPS] sec. 4.1), else the current EV.
class FlowletPolicy final : public EntropyPolicy {
 public:
  FlowletPolicy(PolicyContext ctx, const BaselineParams& p);
  std::uint32_t next_ev(SimTime now) override;
  std::size_t state_bits() const override { return 16 + 32; }
  std::uint64_t flowlets() const { return flowlets_; }

 private:
  PolicyContext ctx_;
  SimTime timeout_;
  std::uint32_t ev_ = 0;
  SimTime last_ = -1;
  std::uint64_t flowlets_ = 0;
};

// MPRDMA-style: every data packet reuses the EV of the last ACK that came back without an ECN mark
// (the ACK clock picks the path, MPRDMA's virtual paths); an ECN mark, NACK or timeout on that EV
// drops it, and until the next good ACK the sender sprays random EVs.
// Reordering cap (lb.mprdma_delta = delta > 0, MP-RDMA's out-of-order-aware path selection, used as a
// baseline in [Flowcut] sec. III-C): a new packet is sent only while its PSN is less than delta above
// the lowest unacknowledged PSN, so the receiver never sees a packet more than delta ahead of the one
// it expects; otherwise the flow is held until its next ACK (retransmissions are never held: they
// fill the hole). delta = 0 (the default) is no cap and no hold call.
class MprdmaPolicy final : public EntropyPolicy {
 public:
  explicit MprdmaPolicy(PolicyContext ctx, std::uint32_t delta = 0) : ctx_(std::move(ctx)), delta_(delta) {
    if (delta_ > 0) caps_ = kCapHold;
  }
  std::uint32_t next_ev(SimTime) override {
    return have_ ? ev_ : static_cast<std::uint32_t>(ctx_.rng.below(ctx_.ev_space));
  }
  void on_feedback(std::uint32_t ev, Feedback kind, SimTime now) override;
  SimTime hold(SimTime, const SendView& v) override {
    return !v.retransmit && v.psn - v.snd_una >= delta_ ? kTimeNever : kSendNow;
  }
  std::size_t state_bits() const override { return 16 + 1; }

 private:
  PolicyContext ctx_;
  std::uint32_t ev_ = 0;
  std::uint32_t delta_ = 0;
  bool have_ = false;
};

// MPTCP-like: the message is split into `mptcp_subflows` subflows, each with its own random EV
// fixed for the connection's lifetime (like one QP per subflow, [REPS] sec. 4.1). Modelling:
// packets are striped round-robin over the subflows and share the connection's congestion window;
// a subflow whose packet timed out is skipped for one RTO (its own window would have collapsed),
// so the other subflows carry its share meanwhile.
class MptcpPolicy final : public EntropyPolicy {
 public:
  MptcpPolicy(PolicyContext ctx, const BaselineParams& p);
  std::uint32_t next_ev(SimTime now) override;
  void on_feedback(std::uint32_t ev, Feedback kind, SimTime now) override;
  std::size_t state_bits() const override { return evs_.size() * (16 + 32); }
  const std::vector<std::uint32_t>& subflow_evs() const { return evs_; }

 private:
  PolicyContext ctx_;
  std::vector<std::uint32_t> evs_;
  std::vector<SimTime> stalled_until_;
  std::uint32_t next_ = 0;
};

// Bitmap (per-EV statistics, like STrack): the connection keeps a penalty counter for each of
// `bitmap_evs` EVs (a random window of the EV space); ECN, NACK and timeout add their penalties to
// the EV concerned. A send draws random EVs and skips penalized ones, taking one unit off the
// penalty of each EV it skips, so a penalty of k keeps an EV out for about k draws that hit it.
class BitmapPolicy final : public EntropyPolicy {
 public:
  BitmapPolicy(PolicyContext ctx, const BaselineParams& p);
  std::uint32_t next_ev(SimTime now) override;
  void on_feedback(std::uint32_t ev, Feedback kind, SimTime now) override;
  std::size_t state_bits() const override { return pen_.size() * 8; }
  std::uint32_t penalty(std::uint32_t ev) const;

 private:
  PolicyContext ctx_;
  BaselineParams p_;
  std::uint32_t base_;
  std::vector<std::uint8_t> pen_;
};

}  // namespace lbsim::lb
