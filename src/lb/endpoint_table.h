// Spritz endpoint tables ([Spritz] sec. III-C, III-f, IV Eq. 1) and the tuning of the Spritz
// family of load balancers. The lb layer never sees switches: source-guided routing
// (routing/source_guided.h, a routing::PairPathSource) turns its paths into these EV entry lists, one
// per (source switch, destination switch) pair in use, built once per run and shared by every
// connection between those switches (static compression by destination switch, sec. III-f); its
// policies get their pair's through PolicyContext::pair_paths.
#pragma once
#include <cstdint>
#include <vector>

#include "core/time.h"
#include "lb/pair_paths.h"

namespace lbsim::lb {

// [Spritz] sec. III-C: 16 bits of EV (EV1, EV2) + 8 bits of metadata per EV entry.
inline constexpr int kEvEntryBits = 24;

// Metadata byte (sec. III-C "latency, disjointness, or statistics"): bit 0 = non-minimal category,
// bits 1-4 = switch-to-switch hops.
inline constexpr std::uint8_t kMetaNonMinimal = 1;
inline std::uint8_t ev_meta(bool non_minimal, int hops) {
  return static_cast<std::uint8_t>((non_minimal ? kMetaNonMinimal : 0) | ((hops & 0xF) << 1));
}

struct EvEntry {
  std::uint16_t ev = 0;   // EV1 << 8 | EV2
  std::uint8_t meta = 0;  // see ev_meta
  SimTime latency = 0;    // Table I latency of the path
  bool minimal() const { return !(meta & kMetaNonMinimal); }
};

// How w_scale scales Eq. 1 (lb.spritz_w_scale_rule): Stretch = lbsim's reading, the excess over the
// longest path's 1.0 times w_scale; Multiply = the authors' code, every weight but the longest path's
// 1.0 times w_scale (w_scale 0: every weight 1.0). See eq1_weight.
enum class WeightScale : std::uint8_t { Stretch, Multiply };

// The EV entry list `paths` of sec. IV step 1: sorted by latency (index 0 = shortest path).
// Memory per path (kBytesPerEntry): the EV (2 B), the metadata (1 B), the number of its latency
// among the list's distinct latencies (2 B: a network's paths take few distinct latencies, e.g. one
// per hop count where links are alike), its weight's prefix sum (8 B) and its place in the EV order
// (2 B); the weight itself is recomputed from the latency (weight()), not stored. One list per
// switch pair in use, shared by the connections between those switches.
class EvEntryList final : public PairPaths {
 public:
  static constexpr std::size_t kBytesPerEntry = 2 + 1 + 2 + 8 + 2;

  EvEntryList() = default;
  // Sorts nothing: `entries` must already be in latency order (std::invalid_argument otherwise),
  // with distinct EVs (so at most 65,536 of them). Computes the prefix sums of the Eq. 1 weights
  // with w_scale.
  EvEntryList(const std::vector<EvEntry>& entries, double w_scale, WeightScale rule = WeightScale::Stretch);
  std::size_t size() const { return ev_.size(); }
  EvEntry operator[](std::size_t i) const { return EvEntry{ev_[i], meta_[i], latency(i)}; }
  std::uint16_t ev(std::size_t i) const { return ev_[i]; }
  SimTime latency(std::size_t i) const { return latencies_[lat_[i]]; }
  // Distinct latencies of the list's paths, in increasing order.
  const std::vector<SimTime>& latencies() const { return latencies_; }
  // Eq. 1 weight of entry i, scaled by w_scale (eq1_weight).
  double weight(std::size_t i) const;
  // Index of the entry with this EV, -1 if none (binary search, no allocation).
  std::int32_t index_of(std::uint32_t ev) const;
  // Prefix sums of the weights (for weighted sampling without per-connection copies).
  const std::vector<double>& cumulative() const { return cum_; }
  std::size_t bits() const { return ev_.size() * kEvEntryBits; }
  // Bytes this list holds (its vectors' capacities).
  std::size_t bytes() const;

 private:
  std::vector<std::uint16_t> ev_;     // EV1 << 8 | EV2 per entry
  std::vector<std::uint8_t> meta_;    // ev_meta per entry
  std::vector<std::uint16_t> lat_;    // per entry: index into latencies_
  std::vector<SimTime> latencies_;    // distinct latencies, increasing
  std::vector<std::uint16_t> by_ev_;  // entry indices in (ev, index) order
  std::vector<double> cum_;
  SimTime longest_ = 0;
  double w_scale_ = 1.0;
  WeightScale rule_ = WeightScale::Stretch;
};

// Eq. 1, w_i = lat_longest / lat_i, scaled by w_scale. sec. V-A: "These weights are further scaled
// for evaluation by a factor of 3 to increase the selection probability of shorter paths. Longest
// paths have always weight 1.0." Multiplying every weight by 3 would not change any probability and
// would give the longest path 3.0, so we read the scaling as stretching each weight's excess over
// the longest path: w_i = 1 + w_scale * (lat_longest / lat_i - 1). w_scale = 1 is Eq. 1 itself, the
// longest path keeps 1.0, and the 1.86 of the paper's example becomes 3.59 with w_scale = 3.
// WeightScale::Multiply is the authors' code's reading (htsim uec_mp.cpp, UecMpSource::load_paths):
// w_i = w_scale x lat_longest / lat_i for every path but the longest ones, which keep 1.0 (5.59 in the
// example), and w_scale = 0 makes every weight 1.0.
double eq1_weight(SimTime latency, SimTime longest, double w_scale, WeightScale rule = WeightScale::Stretch);

// Index in [0, cum.size()) drawn with probability proportional to the weights whose prefix sums
// are `cum` (cum.back() > 0); u in [0, 1).
std::size_t sample_cumulative(const std::vector<double>& cum, double u);

// Tuning of OPS (w), Spritz-Scout, Spritz-Spray and Flicr ([lb] keys, [Spritz] Table II, IV).
struct SpritzParams {
  std::uint32_t buffer_size = 8;         // buffer_paths positions (sec. IV step 1)
  std::uint32_t explore_threshold = 44;  // Table II: 44 packets (~0.5 BDP)
  std::uint32_t ecn_threshold = 8;       // Table II: 8 packets (~0.1 BDP)
  double min_bias_factor = 100;          // Alg. 2 l. 24: w[0] <- min_bias_factor
  double ecn_bias_rate = 0.9;            // Alg. 2 l. 23: "ecn_rate > 90%"
  SimTime restore_interval = 0;          // global timer restoring timed-out weights; 0 = 10 x RTO
  // Our extension, off by default (Alg. 2 as written): Scout ignores unmarked ACKs of a path for
  // this many base RTTs after removing it, so the ACKs of packets already in flight on it do not
  // put it straight back (docs/spritz.md).
  double reinsert_holdoff_rtts = 0;
  // Alg. 2 l. 4 "Insert EV into buffer_paths based on latency": false = the path's Table I latency
  // (the EV entry list's order; default), true = the RTT its latest ACK measured (a congested path's
  // queueing delay then ranks it behind a longer free path). lb.spritz_scout_order.
  bool scout_order_measured = false;
  double flicr_ecn_fraction = 0.5;  // Flicr: repath when this fraction of a base RTT's ACKs is marked

  // The authors' public code's reading (lb.spritz_reading = "code"; docs/spritz.md "Paper and code"),
  // each off by default (Algorithms 1-3 as written):
  // Scout reacts to marked ACKs, NACKs and timeouts only for paths in its buffer (lb.spritz_scout_feedback).
  bool scout_buffered_only = false;
  // Scout counts ECN marks in one counter per connection, not one per path (lb.spritz_scout_ecn_count).
  bool scout_shared_ecn = false;
  // Scout's packet_count advances only on packets sent from the buffer (lb.spritz_scout_explore).
  bool scout_explore_from_buffer = false;
  // A timed-out path's weight stays 0 for the rest of the flow; no global timer (lb.spritz_timeout).
  bool permanent_timeout = false;
  // lb.spritz_bias: w[0] <- min_bias_factor while the ECN rate of a base RTT exceeds ecn_bias_rate
  // (Alg. 2 l. 23-24), or for the whole flow when it is smaller than small_flow_bytes (the other weights
  // then 1), or never.
  enum class Bias : std::uint8_t { EcnRate, SmallFlows, None } bias = Bias::EcnRate;
  Bytes small_flow_bytes = 512 * 1024;
  // One buffer_paths (and blocked set) per (source, destination) host pair, shared by its connections
  // (lb.spritz_buffer_scope = "pair"); else one per connection.
  bool pair_buffer = false;
};

}  // namespace lbsim::lb
