// Minimal (min-hop) next-hop tables, the base of every switch routing plug-in.
// For each switch s and destination switch d: the output ports of s that lie on a shortest path to
// d (its ECMP group). In a fat tree these are exactly the up-ports on the way up and the single
// down-port on the way down, so up/down ECMP routing falls out of the shortest-path rule.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "core/rng.h"
#include "topo/topology.h"

namespace lbsim::routing {

class MinimalTables {
 public:
  explicit MinimalTables(const topo::Topology& t);

  // Candidate output ports at switch node `node` towards destination switch node `dst_sw`
  // (empty when node == dst_sw: the host port is used then).
  std::span<const std::int16_t> candidates(std::int32_t node, std::int32_t dst_sw) const {
    const std::size_t i = index(node, dst_sw);
    return {ports_.data() + offset_[i], static_cast<std::size_t>(offset_[i + 1] - offset_[i])};
  }
  // Hop distance between two switch nodes.
  std::int32_t distance(std::int32_t a, std::int32_t b) const {
    return dist_[static_cast<std::size_t>(topo_.switch_index(a)) * nsw_ + topo_.switch_index(b)];
  }
  // The switch port a host hangs off (at its switch).
  std::int16_t host_port(std::int32_t host) const { return host_port_[host]; }
  const topo::Topology& topology() const { return topo_; }

 private:
  std::size_t index(std::int32_t node, std::int32_t dst_sw) const {
    return static_cast<std::size_t>(topo_.switch_index(node)) * nsw_ + topo_.switch_index(dst_sw);
  }
  const topo::Topology& topo_;
  std::size_t nsw_ = 0;
  std::vector<std::int32_t> dist_;
  std::vector<std::uint32_t> offset_;
  std::vector<std::int16_t> ports_;
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
