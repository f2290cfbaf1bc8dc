// REPS, Recycled Entropy Packet Spraying ([REPS] sec. 3, Algorithms 1 and 2, Table 1, App. A).
//
// A sender caches the EVs of ACKs that came back without an ECN mark in a circular buffer of
// `buffer_size` elements (cachedEV + validity bit) and reuses the oldest valid one for its next data
// packet; with no valid EV it explores a random EV. A failure (a timeout that is not explained by
// congestion, App. A) puts the connection into freezing mode: no random exploration, the buffer's
// elements are reused round-robin even when invalid, until `freezing_timeout` has passed (checked
// when an ACK arrives, Alg. 1 l. 15); on exit the connection explores again.
//
// Interpretation of Alg. 2 l. 15-18 (the pseudocode leaves the EV unset when the explore counter is
// non-zero and the decremented counter is not a multiple of the buffer size): such a packet takes
// the regular path of l. 19-23. A new connection has an empty buffer, so it sprays random EVs for
// its first BDP (sec. 3.1: "operates similarly to OPS"); after leaving freezing mode every
// buffer_size-th packet of the next BDP is a random probe and the others recycle EVs
// (sec. 3.2: "we occasionally use random EVs").
#pragma once
#include <cstdint>
#include <vector>

#include "lb/lb_params.h"
#include "lb/policy.h"

namespace lbsim::lb {

class RepsPolicy final : public EntropyPolicy {
 public:
  RepsPolicy(PolicyContext ctx, const RepsParams& params);

  std::uint32_t next_ev(SimTime now) override;
  void on_feedback(std::uint32_t ev, Feedback kind, SimTime now) override;
  void on_rtt(SimTime rtt, SimTime now) override;
  std::size_t state_bits() const override;
  void prefetch() const override;

  // Alg. 1 ONFAILUREDETECTION (public so tests can drive the state machine).
  void on_failure_detection(SimTime now);

  // Inspection (tests, reports).
  struct Element {
    std::uint32_t ev = 0;
    std::uint32_t valid = 0;  // validity bit; in Reuse mode the remaining uses
    bool written = false;     // ever filled (the buffer's isEmpty(), not a hardware field)
  };
  const std::vector<Element>& buffer() const { return buf_; }
  std::uint32_t head() const { return head_; }
  std::uint32_t valid_evs() const { return valid_; }
  std::uint32_t explore_counter() const { return explore_; }
  bool freezing() const { return freezing_; }
  SimTime exit_freezing_at() const { return exit_freezing_; }
  std::uint64_t freeze_entries() const { return freeze_entries_; }
  SimTime first_freeze_time() const { return first_freeze_; }
  std::uint64_t failures_detected() const { return failures_; }
  // Bits of one EV field (Table 1: 16 for a 2^16 EV space).
  static std::uint32_t ev_field_bits(std::uint32_t ev_space);

 private:
  void cache(std::uint32_t ev, SimTime now);
  std::uint32_t get_next_ev();
  std::uint32_t random_ev() { return static_cast<std::uint32_t>(ctx_.rng.below(ctx_.ev_space)); }
  bool buffer_empty() const { return written_ == 0; }
  bool is_failure(SimTime now) const;

  // Field order: what a send reads (next_ev, get_next_ev) in the object's first two cache lines, then
  // what an ACK adds (on_rtt), then the context (its RNG draws the exploring EVs) and the counters
  // only the summary reads (prefetch() asks for them all).
  std::uint32_t head_ = 0, valid_ = 0, explore_ = 0, written_ = 0;
  std::uint32_t reuse_uses_ = 1;    // uses granted to a cached EV
  std::uint32_t reuse_cursor_ = 0;  // Reuse mode: next element to serve
  bool freezing_ = false;
  std::vector<Element> buf_;
  RepsParams p_;
  SimTime last_send_ = -1;
  SimTime exit_freezing_ = 0;
  // Max-RTT heuristic (App. A): maxima of the current and the previous window of one RTO.
  SimTime rtt_max_cur_ = 0, rtt_max_prev_ = 0, rtt_window_start_ = 0;
  SimTime rtt_min_ = 0;  // smallest RTT sample: the connection's unloaded RTT
  PolicyContext ctx_;
  std::uint64_t freeze_entries_ = 0, failures_ = 0;
  SimTime first_freeze_ = -1;
};

}  // namespace lbsim::lb
