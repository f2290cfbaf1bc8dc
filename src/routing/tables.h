// Minimal (min-hop) next-hop tables, the base of every switch routing plug-in.
// For each switch s and destination switch d: the output ports of s that lie on a shortest path to
// d (its ECMP group). In a fat tree these are exactly the up-ports on the way up and the single
// down-port on the way down, so up/down ECMP routing falls out of the shortest-path rule.
#pragma once
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "core/rng.h"
#include "topo/topology.h"

namespace lbsim::routing {

// Output ports per ordered (switch, destination switch) pair, with the pair's hop distance: one
// offset per pair into one port array, so that a router's per-packet lookup is two loads without
// pointer chasing. The subclasses differ only in which ports they list (their rule of "minimal").
class SwitchPairPorts {
 public:
  // Candidate output ports at switch node `node` towards destination switch node `dst_sw` (empty
  // when node == dst_sw, where the host port is used, or when dst_sw is unreachable).
  std::span<const std::int16_t> candidates(std::int32_t node, std::int32_t dst_sw) const {
    const std::size_t i = index(node, dst_sw);
    return {ports_.data() + offset_[i], static_cast<std::size_t>(offset_[i + 1] - offset_[i])};
  }
  // Switch-to-switch hops between two switch nodes under the table's rule (-1 unreachable).
  std::int32_t distance(std::int32_t node, std::int32_t dst_sw) const { return dist_[index(node, dst_sw)]; }
  const topo::Topology& topology() const { return topo_; }

 protected:
  explicit SwitchPairPorts(const topo::Topology& t)
      : nsw_(static_cast<std::size_t>(t.num_switches())), topo_(t) {}

  // Fills the table: `dist` holds the hops by switch index, row-major ([s * nsw + d], -1
  // unreachable); `add_ports(s, d, out)` appends the ports of switch index s towards switch index d
  // to `out` and is called once per pair in row-major order (it may read switch_hops()).
  template <class AddPorts>
  void fill(std::vector<std::int32_t> dist, AddPorts&& add_ports) {
    dist_ = std::move(dist);
    offset_.assign(nsw_ * nsw_ + 1, 0);
    for (std::size_t s = 0; s < nsw_; ++s)
      for (std::size_t d = 0; d < nsw_; ++d) {
        offset_[s * nsw_ + d] = static_cast<std::uint32_t>(ports_.size());
        add_ports(s, d, ports_);
      }
    offset_[nsw_ * nsw_] = static_cast<std::uint32_t>(ports_.size());
  }
  std::int32_t switch_hops(std::size_t s, std::size_t d) const { return dist_[s * nsw_ + d]; }

  const std::size_t nsw_;  // switches

 private:
  std::size_t index(std::int32_t node, std::int32_t dst_sw) const {
    return static_cast<std::size_t>(topo_.switch_index(node)) * nsw_ + static_cast<std::size_t>(topo_.switch_index(dst_sw));
  }
  const topo::Topology& topo_;
  std::vector<std::int32_t> dist_;
  std::vector<std::uint32_t> offset_;
  std::vector<std::int16_t> ports_;
};

// The min-hop tables of the file comment (distances and candidates over every switch-switch link).
class MinimalTables : public SwitchPairPorts {
 public:
  explicit MinimalTables(const topo::Topology& t);

  // The switch port a host hangs off (at its switch).
  std::int16_t host_port(std::int32_t host) const { return host_port_[host]; }

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
