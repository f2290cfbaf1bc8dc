// Minimal (min-hop) next-hop tables, the base of every switch routing plug-in.
// For each switch s and destination switch d: the output ports of s that lie on a shortest path to
// d (its ECMP group). In a fat tree these are exactly the up-ports on the way up and the single
// down-port on the way down, so up/down ECMP routing falls out of the shortest-path rule.
#pragma once
#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "core/rng.h"
#include "topo/topology.h"

namespace lbsim::routing {

// Output ports per ordered (switch, destination switch) pair, with the pair's hop distance.
// Layout (docs/scale.md "Layout", "Runs of 32 destinations"): most destinations of a switch share
// one candidate set (in a fat tree all up-ports on the way up), so every switch keeps a short list of
// distinct (distance, ports) sets, and a pair's entry is a 16-bit index into its switch's list. The
// entries of a switch for 32 consecutive destination switches (a run, one cache line) repeat across
// runs and switches where the topology is regular (a fat tree's pods, a Dragonfly's groups), so the
// distinct runs are kept once and every (switch, run of destinations) holds a 32-bit run id: 1/8 B
// per pair plus the distinct runs (at most 2 B per pair, when no two runs are alike: Slim Fly).
// A router's per-packet lookup is the run id, the index in the run, the set record and the ports:
// four loads, the run ids in an array 16x smaller than one index per pair and the shared runs, set
// records and ports in lists that stay cached.
class SwitchPairPorts {
 public:
  static constexpr std::size_t kRunBits = 5;
  static constexpr std::size_t kRun = std::size_t{1} << kRunBits;  // destinations per run
  // Candidate output ports at switch node `node` towards destination switch node `dst_sw` (empty
  // when node == dst_sw, where the host port is used, or when dst_sw is unreachable), in increasing
  // port order.
  std::span<const std::int16_t> candidates(std::int32_t node, std::int32_t dst_sw) const {
    const Set& s = set(node, dst_sw);
    return {ports_.data() + s.offset, static_cast<std::size_t>(s.count)};
  }
  // Switch-to-switch hops between two switch nodes under the table's rule (-1 unreachable).
  std::int32_t distance(std::int32_t node, std::int32_t dst_sw) const { return set(node, dst_sw).dist; }
  const topo::Topology& topology() const { return topo_; }
  // Bytes held (the containers' capacities): what docs/scale.md and sim/memory.cpp account for.
  std::size_t bytes() const;
  // Distinct (distance, ports) sets over all switches.
  std::size_t distinct_sets() const { return sets_.size(); }
  // Distinct runs of 32 destinations' set indices, over all switches.
  std::size_t distinct_runs() const { return runs_.size() / kRun; }
  // Towards the destination switches of one run, d0 .. d0 + nb - 1 (switch indices, d0 a multiple
  // of kRun, nb <= kRun): switch index s's distance dist[k] and first (lowest) candidate port
  // first[k] (-1 when there is none: s itself or unreachable). One run id, one run and the switch's
  // own set records: a whole block of destinations for what one pair's lookup costs.
  void run_first_ports(std::size_t s, std::size_t d0, std::size_t nb, std::int16_t* first, std::int16_t* dist) const {
    const std::uint16_t* run = &runs_[std::size_t{run_of_[s * nruns_ + (d0 >> kRunBits)]} << kRunBits];
    const Set* sets = &sets_[set_first_[s]];
    for (std::size_t k = 0; k < nb; ++k) {
      const Set& x = sets[run[k]];
      dist[k] = x.dist;
      first[k] = x.count != 0 ? ports_[x.offset] : std::int16_t{-1};
    }
  }
  // Hint: ask the cache for the run id of the pair (routers' prefetch_route).
  void prefetch(std::int32_t node, std::int32_t dst_sw) const {
    const auto s = static_cast<std::size_t>(topo_.switch_index(node));
    __builtin_prefetch(&run_of_[s * nruns_ + (static_cast<std::size_t>(topo_.switch_index(dst_sw)) >> kRunBits)]);
  }

 protected:
  explicit SwitchPairPorts(const topo::Topology& t);

  // Building, one block of destination switches at a time (so that no temporary per pair is
  // needed): begin(), then for every source switch s and block, intern_set(s, hops, ports) for each
  // destination of the block in increasing order (`ports` in increasing port order, empty for s == d
  // or unreachable, hops -1 when unreachable), the indices it returns making the run of (s, block)
  // (intern_run), then finish(). build() does all of that.
  void begin();
  std::uint16_t intern_set(std::size_t s, std::int32_t hops, std::span<const std::int16_t> ports);
  void intern_run(std::size_t s, std::size_t block, const std::uint16_t* run);
  void finish();
  // How the builders order intern_set(): destinations in blocks of kBuildBlock (one bit-parallel
  // search for the block, topo::BlockBfs, its distances kept transposed, [switch * kBuildBlock + k]),
  // then every source switch s with the block's destinations in increasing order, which make one
  // run. One switch's dedup state then
  // stays in cache across the block (per pair, the other order touched a different switch's state
  // each time: three cache misses). Per switch the destinations still come in increasing order, so
  // the sets and their numbering are those of a destination-by-destination build.
  static constexpr std::size_t kBuildBlock = kRun;
  // The whole build in that order: begin(), then per block search(d0, nb) for its destinations
  // d0 .. d0 + nb - 1 (switch indices; destination d0 + k in column k), then per source switch s
  // row(s, d0, nb, dist, out), which gives the hops dist[k] (-1 unreachable) and the candidate ports
  // out[k] (empty on entry) towards each destination d0 + k of the block; then finish().
  template <class Search, class Row>
  void build(Search&& search, Row&& row) {
    begin();
    std::vector<std::int32_t> dist(kBuildBlock);
    std::vector<std::vector<std::int16_t>> out(kBuildBlock);
    for (std::size_t d0 = 0; d0 < nsw_; d0 += kBuildBlock) {
      const std::size_t nb = std::min(kBuildBlock, nsw_ - d0);
      search(d0, nb);
      for (std::size_t s = 0; s < nsw_; ++s) {
        for (std::size_t k = 0; k < nb; ++k) out[k].clear();
        row(s, d0, nb, dist.data(), out);
        std::uint16_t run[kRun] = {};  // past the last switch (a short last block): 0, never read
        for (std::size_t k = 0; k < nb; ++k) run[k] = intern_set(s, dist[k], out[k]);
        intern_run(s, d0 / kRun, run);
      }
    }
    finish();
  }

  // Bit k set when a[k] == b[k], k < kRun: the builders' test of 32 destinations at once (a port is
  // a candidate towards destination k when its peer's distance equals the wanted one), with SSE2
  // compares of four at a time where the compiler has them.
  static std::uint32_t equal_mask(const std::int32_t* a, const std::int32_t* b) {
    std::uint32_t m = 0;
#if defined(__SSE2__)
    for (std::size_t i = 0; i < kRun; i += 4) {
      const __m128i e = _mm_cmpeq_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + i)),
                                        _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + i)));
      m |= static_cast<std::uint32_t>(_mm_movemask_ps(_mm_castsi128_ps(e))) << i;
    }
#else
    for (std::size_t k = 0; k < kRun; ++k) m |= static_cast<std::uint32_t>(a[k] == b[k]) << k;
#endif
    return m;
  }
  // A wanted distance no real one equals (equal_mask's columns that are no candidate).
  static constexpr std::int32_t kNoMatch = std::numeric_limits<std::int32_t>::min();

  const std::size_t nsw_;  // switches

 private:
  struct Set {
    std::uint32_t offset;  // first port in ports_
    std::uint16_t count;   // ports
    std::int16_t dist;     // hops (-1 unreachable)
  };
  const Set& set(std::int32_t node, std::int32_t dst_sw) const {
    const auto s = static_cast<std::size_t>(topo_.switch_index(node));
    const auto d = static_cast<std::size_t>(topo_.switch_index(dst_sw));
    const std::size_t run = run_of_[s * nruns_ + (d >> kRunBits)];
    return sets_[set_first_[s] + runs_[(run << kRunBits) | (d & (kRun - 1))]];
  }
  const topo::Topology& topo_;
  const std::size_t nruns_;               // runs per switch: ceil(nsw / kRun)
  std::vector<std::uint32_t> run_of_;     // [s * nruns + d / kRun]: the run of switch s's set indices
                                          // towards destinations d / kRun * kRun ... + kRun - 1
  std::vector<std::uint16_t> runs_;       // the distinct runs, kRun indices each
  std::vector<std::uint64_t> run_hash_;   // building: per run
  std::vector<std::uint32_t> run_slots_;  // building: open addressing by hash, run + 1 (0 empty), at most half full
  std::vector<std::uint32_t> set_first_;  // per switch: its first set in sets_
  std::vector<Set> sets_;
  std::vector<std::int16_t> ports_;
  // Per-switch deduplication while building (emptied by finish()).
  struct Builder {
    std::vector<Set> sets;            // offsets into `ports`
    std::vector<std::uint64_t> hash;  // per set
    std::vector<std::int16_t> ports;
    std::vector<std::uint32_t> slots;  // open addressing by hash: set + 1 (0 empty), at most half full
    std::uint16_t last = 0;            // the set of the previous pair (consecutive pairs often share it)
  };
  std::vector<Builder> build_;
};

// The min-hop tables of the file comment (distances and candidates over every switch-switch link).
class MinimalTables : public SwitchPairPorts {
 public:
  explicit MinimalTables(const topo::Topology& t);

  // The switch port a host hangs off (at its switch).
  std::int16_t host_port(std::int32_t host) const { return host_port_[host]; }
  // The pair tables plus the host ports.
  std::size_t bytes() const;

 private:
  std::vector<std::int16_t> host_port_;
};

// The ECMP hash of a packet at a switch: (src, dst, flow, EV) mixed with a per-switch salt so that
// consecutive tiers do not make correlated choices (hash polarization).
inline std::uint64_t ecmp_hash(std::int32_t src, std::int32_t dst, std::uint32_t flow, std::uint32_t ev,
                               std::uint64_t salt) {
  const std::uint64_t pair =
      (static_cast<std::uint64_t>(static_cast<std::uint32_t>(src)) << 32) | static_cast<std::uint32_t>(dst);
  std::uint64_t h = splitmix64(salt ^ pair);
  return splitmix64(h ^ (static_cast<std::uint64_t>(flow) << 24) ^ ev);
}

}  // namespace lbsim::routing
