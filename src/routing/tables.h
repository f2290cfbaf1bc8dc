// Minimal (min-hop) next-hop tables, the base of every switch routing plug-in.
// For each switch s and destination switch d: the output ports of s that lie on a shortest path to
// d (its ECMP group). In a fat tree these are exactly the up-ports on the way up and the single
// down-port on the way down, so up/down ECMP routing falls out of the shortest-path rule.
#pragma once
#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "core/rng.h"
#include "topo/topology.h"

namespace lbsim::routing {

// Output ports per ordered (switch, destination switch) pair, with the pair's hop distance.
// Layout (memory linear in the pairs at 2 bytes each, docs/scale.md): most destinations of a switch
// share one candidate set (in a fat tree all up-ports on the way up), so every switch keeps a short
// list of distinct (distance, ports) sets and every pair only a 16-bit index into its switch's list.
// A router's per-packet lookup is the pair's index, the set record and the ports: three loads, the
// last two in a per-switch list of a few hundred bytes that stays cached.
class SwitchPairPorts {
 public:
  // Candidate output ports at switch node `node` towards destination switch node `dst_sw` (empty
  // when node == dst_sw, where the host port is used, or when dst_sw is unreachable), in increasing
  // port order.
  std::span<const std::int16_t> candidates(std::int32_t node, std::int32_t dst_sw) const {
    const Set& s = set(node, dst_sw);
    return {ports_.data() + s.offset, static_cast<std::size_t>(s.count)};
  }
  // Hint: ask the cache for the pair's index entry and its switch's first set record (routers'
  // prefetch_route).
  void prefetch(std::int32_t node, std::int32_t dst_sw) const {
    const auto s = static_cast<std::size_t>(topo_.switch_index(node));
    __builtin_prefetch(&pair_[s * nsw_ + static_cast<std::size_t>(topo_.switch_index(dst_sw))]);
    __builtin_prefetch(&sets_[set_first_[s]]);
  }
  // Switch-to-switch hops between two switch nodes under the table's rule (-1 unreachable).
  std::int32_t distance(std::int32_t node, std::int32_t dst_sw) const { return set(node, dst_sw).dist; }
  const topo::Topology& topology() const { return topo_; }
  // Bytes held (the containers' capacities): what docs/scale.md and sim/memory.cpp account for.
  std::size_t bytes() const;
  // Distinct (distance, ports) sets over all switches.
  std::size_t distinct_sets() const { return sets_.size(); }

 protected:
  explicit SwitchPairPorts(const topo::Topology& t);

  // Building, one destination switch at a time (so that no temporary per pair is needed): begin(),
  // then set_pair(s, d, hops, ports) once for every ordered pair of switch indices (any order;
  // `ports` in increasing port order, empty for s == d or unreachable, hops -1 when unreachable),
  // then finish().
  void begin();
  void set_pair(std::size_t s, std::size_t d, std::int32_t hops, std::span<const std::int16_t> ports);
  void finish();
  // How the builders order set_pair(): destinations in blocks of kBuildBlock (one search each, its
  // distances kept transposed, [switch * kBuildBlock + k]), then every source switch s with the
  // block's destinations in increasing order. One switch's dedup state and its run of the pair
  // index then stay in cache across the block (per pair, the other order touched a different
  // switch's state each time: three cache misses). Per switch the destinations still come in
  // increasing order, so the sets and their numbering are those of a destination-by-destination
  // build.
  static constexpr std::size_t kBuildBlock = 32;
  // The whole build in that order: begin(), then per block search(d, k) for each of its
  // destinations (d the switch index, k its column in the block), then per source switch s
  // row(s, d0, nb, dist, out), which gives the hops dist[k] (-1 unreachable) and the candidate ports
  // out[k] (empty on entry) towards each destination d0 + k of the block; then finish().
  template <class Search, class Row>
  void build(Search&& search, Row&& row) {
    begin();
    std::vector<std::int32_t> dist(kBuildBlock);
    std::vector<std::vector<std::int16_t>> out(kBuildBlock);
    for (std::size_t d0 = 0; d0 < nsw_; d0 += kBuildBlock) {
      const std::size_t nb = std::min(kBuildBlock, nsw_ - d0);
      for (std::size_t k = 0; k < nb; ++k) search(d0 + k, k);
      for (std::size_t s = 0; s < nsw_; ++s) {
        for (std::size_t k = 0; k < nb; ++k) out[k].clear();
        row(s, d0, nb, dist.data(), out);
        for (std::size_t k = 0; k < nb; ++k) set_pair(s, d0 + k, dist[k], out[k]);
      }
    }
    finish();
  }

  const std::size_t nsw_;  // switches

 private:
  struct Set {
    std::uint32_t offset;  // first port in ports_
    std::uint16_t count;   // ports
    std::int16_t dist;     // hops (-1 unreachable)
  };
  const Set& set(std::int32_t node, std::int32_t dst_sw) const {
    const auto s = static_cast<std::size_t>(topo_.switch_index(node));
    return sets_[set_first_[s] + pair_[s * nsw_ + static_cast<std::size_t>(topo_.switch_index(dst_sw))]];
  }
  const topo::Topology& topo_;
  std::vector<std::uint16_t> pair_;       // [s * nsw + d]: index into switch s's sets
  std::vector<std::uint32_t> set_first_;  // per switch: its first set in sets_
  std::vector<Set> sets_;
  std::vector<std::int16_t> ports_;
  // Per-switch deduplication while building (emptied by finish()).
  struct Builder {
    std::vector<Set> sets;             // offsets into `ports`
    std::vector<std::uint64_t> hash;   // per set
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
inline std::uint64_t ecmp_hash(std::int32_t src, std::int32_t dst, std::uint32_t flow,
                               std::uint32_t ev, std::uint64_t salt) {
  const std::uint64_t pair = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(src)) << 32) |
                             static_cast<std::uint32_t>(dst);
  std::uint64_t h = splitmix64(salt ^ pair);
  return splitmix64(h ^ (static_cast<std::uint64_t>(flow) << 24) ^ ev);
}

}  // namespace lbsim::routing
