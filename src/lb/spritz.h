// Spritz load balancers over an EV entry list ([Spritz] sec. IV, V-A): OPS (u)/(w),
// Spritz-Scout and Spritz-Spray (Algorithms 1-3) in uniform (u) and weighted (w) variants, and Flicr
// (sender-side flowcell granularity for direct networks, sec. V-A). All need the source-guided
// routing (routing.algorithm = "source_guided"), which makes each EV of the list one known path.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "core/config.h"
#include "lb/endpoint_table.h"
#include "lb/policy.h"

namespace lbsim::lb {

// lb.spritz_reading = "code": every key of the authors' code's reading that the config does not set
// itself takes that reading's value (docs/spritz.md "Paper and code"; the values are listed in the
// key's doc). Runs before the config checks, like transport.preset.
void apply_spritz_reading(config::Config& c);

enum class Weighting : std::uint8_t { Uniform, Weighted };

// Oblivious packet spraying over the EV entry list: a fresh entry per packet, uniformly (OPS (u))
// or with the Eq. 1 weights (OPS (w)); no state beyond the shared list.
class OpsEntryPolicy final : public EntropyPolicy {
 public:
  OpsEntryPolicy(PolicyContext ctx, Weighting w);
  std::uint32_t next_ev(SimTime now) override;

 private:
  PolicyContext ctx_;
  const EvEntryList& paths_;
  Weighting weighting_;
};

// buffer_paths: a ring of capacity buffer_size (Spray pushes at the back, pops at the front; Scout
// keeps it sorted by latency, i.e. by index, front = shortest). One per connection, or one per
// (source, destination) host pair shared by its connections (lb.spritz_buffer_scope = "pair", the
// authors' code; sec. IV: "This buffer can be cached to maintain good paths between identical
// connections"), which then also share the paths blocked for good by timeouts.
struct SpritzBuffer {
  std::vector<std::uint32_t> buf;
  std::size_t head = 0, count = 0;
  std::vector<std::uint32_t> blocked;  // lb.spritz_timeout = "permanent": timed-out paths, in order
};

// Spritz-Scout (Alg. 1 + 2) and Spritz-Spray (Alg. 1 + 3).
class SpritzPolicy final : public EntropyPolicy {
 public:
  enum class Kind : std::uint8_t { Scout, Spray };
  // `shared`: the pair's buffer (lb.spritz_buffer_scope = "pair"), null for one of its own.
  SpritzPolicy(PolicyContext ctx, const SpritzParams& params, Kind kind, Weighting w,
               std::shared_ptr<SpritzBuffer> shared = nullptr);
  std::uint32_t next_ev(SimTime now) override;
  void on_feedback(std::uint32_t ev, Feedback kind, SimTime now) override;
  void on_rtt(SimTime rtt, SimTime) override { last_rtt_ = rtt; }
  std::size_t state_bits() const override;

  // Introspection for tests (indices into the EV entry list).
  std::vector<std::uint32_t> buffer() const;
  double weight(std::size_t i) const { return i == 0 ? w0_ : (zeroed_[i >> 6] >> (i & 63) & 1) ? 0.0 : base_weight(i); }
  std::uint32_t ecn_count(std::size_t i) const { return ecn_counts_.empty() ? 0 : ecn_counts_[i]; }
  // lb.spritz_scout_ecn_count = "shared": the connection's one counter.
  std::uint32_t shared_ecn_count() const { return shared_ecn_; }
  // lb.spritz_bias = "small_flows" and the flow is below small_flow_bytes: w = (min_bias_factor, 1, ..., 1).
  bool small_flow_biased() const { return flat_; }
  // True while the connection samples from prefix sums of its own (some weight differs from the
  // shared list's): for tests of the memory it holds.
  bool own_weights() const { return !cum_.empty(); }
  std::uint32_t packet_count() const { return packet_count_; }
  bool min_biased() const { return biased_; }

 private:
  std::uint32_t sample();  // gen(w): a path index, returned as its EV
  void set_weight(std::size_t i, double w);
  void maybe_restore(SimTime now);  // the global timer of sec. IV-A
  void ecn_window(bool marked, SimTime now);
  void remove_from_buffer(std::uint32_t i, SimTime now);
  bool in_buffer(std::uint32_t i) const;
  void reset_ecn(std::uint32_t i) {
    if (ecn_counts_.empty()) {
      shared_ecn_ = 0;
    } else {
      ecn_counts_[i] = 0;
    }
  }
  void block(std::uint32_t i, SimTime now);  // a timeout: w[i] <- 0 (Alg. 2 l. 21, Alg. 3 l. 8)
  void apply_blocked();                      // lb.spritz_timeout = "permanent": w <- 0 for r_->blocked
  std::size_t buf_at(std::size_t k) const { return r_->buf[(r_->head + k) % r_->buf.size()]; }

  PolicyContext ctx_;
  const EvEntryList& paths_;
  SpritzParams p_;
  Kind kind_;
  // A path's original weight: Eq. 1 from the shared entry list (weighted), else 1.0; not copied per
  // connection (Slim Fly q = 29: ~1,800 paths per connection).
  // With the small-flow bias (flat_) every path but the shortest weighs 1.0, as in the authors' code.
  double base_weight(std::size_t i) const { return weighted_ && !flat_ ? paths_.weight(i) : 1.0; }
  bool weighted_;
  bool flat_ = false;  // lb.spritz_bias = "small_flows" applies to this flow: w[0] = min_bias_factor
  // The current weights w[] of Alg. 2-3 without a vector of them: they change only by the w[0] bias
  // (Alg. 2 l. 23-24, Alg. 3 l. 10-11), by a timeout setting a weight to 0 and by the restore timer
  // setting it back, so w[0] is kept (w0_), the other paths are base_weight(i) or 0 (a bit each in
  // zeroed_; bit 0 unused), and only while some weight differs from the base ones does the connection
  // hold prefix sums of its own (cum_, 8 B per path); otherwise it samples from the shared list's.
  // Slim Fly q = 29: ~1,800 paths per connection (18 B per path and connection before).
  double w0_ = 1.0;
  double base0_ = 1.0;  // base_weight(0), computed once (min_bias_factor for a small-flow-biased flow)
  // The weights are the shared list's (no prefix sums of the connection's own): a small-flow-biased
  // flow never is, its weights (min_bias_factor, 1, ..., 1) being no list's.
  bool at_base() const { return !flat_ && w0_ == base0_ && n_zeroed_ == 0; }
  std::vector<std::uint64_t> zeroed_;
  std::size_t n_zeroed_ = 0;  // bits set in zeroed_
  std::vector<double> cum_;   // empty while every weight is its base one
  bool cum_dirty_ = false;
  std::vector<std::uint16_t> ecn_counts_;  // Scout only (Alg. 2 l. 7-13), one per path
  std::uint32_t shared_ecn_ = 0;           // Scout with lb.spritz_scout_ecn_count = "shared"
  std::vector<SimTime> removed_at_;        // Scout: last removal per path (reinsert_holdoff_rtts > 0)
  // Scout with scout_order_measured: the RTT of each path's latest ACK (the buffer's sort key), and
  // the RTT of the ACK being handled (on_rtt comes just before its on_feedback).
  std::vector<SimTime> measured_;
  SimTime last_rtt_ = -1;
  // Scout's sort key of path i: its index (the list is sorted by Table I latency) or its measured RTT.
  bool ranks_before(std::size_t a, std::size_t b) const {
    return measured_.empty() ? a < b : (measured_[a] != measured_[b] ? measured_[a] < measured_[b] : a < b);
  }
  std::shared_ptr<SpritzBuffer> r_;
  std::uint32_t packet_count_ = 0;
  SimTime restore_at_ = kTimeNever;
  SimTime window_start_ = 0;
  std::uint32_t win_acks_ = 0, win_ecn_ = 0;
  bool biased_ = false;
};

// Flicr (sec. V-A baseline): keeps one path (flowcell) and moves to a freshly sampled one on a NACK
// or timeout for that path, or when more than flicr_ecn_fraction of the ACKs of one base RTT carried
// ECN marks.
class FlicrPolicy final : public EntropyPolicy {
 public:
  FlicrPolicy(PolicyContext ctx, const SpritzParams& params, Weighting w);
  std::uint32_t next_ev(SimTime now) override;
  void on_feedback(std::uint32_t ev, Feedback kind, SimTime now) override;
  std::size_t state_bits() const override { return 16 + 2 * 16; }
  std::uint32_t current() const { return paths_[cur_].ev; }
  std::uint32_t repaths() const { return repaths_; }

 private:
  void repath();
  PolicyContext ctx_;
  const EvEntryList& paths_;
  SpritzParams p_;
  Weighting weighting_;
  std::size_t cur_ = 0;
  SimTime window_start_ = 0;
  std::uint32_t win_acks_ = 0, win_ecn_ = 0, repaths_ = 0;
};

}  // namespace lbsim::lb
