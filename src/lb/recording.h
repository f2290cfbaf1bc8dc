// A load-balancer decorator that counts, per EV, what one connection sent and what came back
// (output.path_usage_tag, docs/outputs.md path_usage.csv). It forwards every call unchanged to the
// wrapped policy and draws no random numbers, so a recorded run is identical to an unrecorded one.
#pragma once
#include <cstdint>
#include <map>
#include <memory>

#include "lb/policy.h"

namespace lbsim::lb {

struct EvUsage {
  std::uint64_t sent = 0, acks = 0, ecn_acks = 0, nacks = 0, timeouts = 0;
  SimTime first_sent = kTimeNever, last_sent = 0;
};

class RecordingPolicy final : public EntropyPolicy {
 public:
  // Not kCapPrefetch: the inner policy's lines are one pointer further than the hints reach.
  explicit RecordingPolicy(std::unique_ptr<EntropyPolicy> inner) : inner_(std::move(inner)) {
    caps_ = inner_->caps() & ~kCapPrefetch;
  }
  std::uint32_t next_ev(SimTime now) override {
    const std::uint32_t ev = inner_->next_ev(now);
    EvUsage& u = usage_[ev];
    ++u.sent;
    if (u.first_sent == kTimeNever) u.first_sent = now;
    u.last_sent = now;
    return ev;
  }
  void on_feedback(std::uint32_t ev, Feedback kind, SimTime now) override {
    EvUsage& u = usage_[ev];
    switch (kind) {
      case Feedback::Ack:
        ++u.acks;
        break;
      case Feedback::AckEcn:
        ++u.ecn_acks;
        break;
      case Feedback::Nack:
        ++u.nacks;
        break;
      case Feedback::Timeout:
        ++u.timeouts;
        break;
    }
    inner_->on_feedback(ev, kind, now);
  }
  void on_rtt(SimTime rtt, SimTime now) override { inner_->on_rtt(rtt, now); }
  SimTime hold(SimTime now, const SendView& v) override { return inner_->hold(now, v); }
  void on_ack_detail(const AckDetail& a) override { inner_->on_ack_detail(a); }
  void on_sent(std::uint32_t psn, std::uint32_t ev, SimTime now, Bytes bytes) override {
    inner_->on_sent(psn, ev, now, bytes);
  }
  bool take_probe(std::uint32_t& ev, SimTime now) override { return inner_->take_probe(ev, now); }
  void take_lost(std::vector<std::pair<std::uint32_t, SimTime>>& out) override { inner_->take_lost(out); }
  std::size_t state_bits() const override { return inner_->state_bits(); }
  const EntropyPolicy& inner() const override { return inner_->inner(); }
  const std::map<std::uint32_t, EvUsage>& usage() const { return usage_; }

 private:
  std::unique_ptr<EntropyPolicy> inner_;
  std::map<std::uint32_t, EvUsage> usage_;  // by EV, so the CSV comes out in EV order
};

}  // namespace lbsim::lb
