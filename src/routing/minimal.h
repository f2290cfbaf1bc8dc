// Topology-aware minimal routes and the `minimal` routing plug-in ([Spritz] sec. II-A "Minimal
// routing always selects the next hop only along a minimal path").
//
// Why this is not simply MinimalTables (min-hop): in a Dragonfly the minimal route of Kim et al.
// (ISCA 2008; [Spritz] sec. II-A, III-a) is local-global-local: at most one global hop, so the
// packet goes to a switch of its group that has a global link to the destination group, crosses it
// and finishes inside the destination group. A plain hop-count BFS also finds global-global paths
// through a third group: in the Table II Dragonfly (one global link per group pair, switch diameter
// 3) a switch whose global link lands in group X, which in turn links straight to the destination
// switch, reaches it in 2 hops (g-g) while the l-g-l route needs 3; and l-g-l, g-l-g and g-g-l tie
// at 3 hops. Min-hop ECMP therefore misroutes through intermediate groups (the non-minimal paths
// of Table I). MinimalRoutes restricts a Dragonfly to paths with at most one global hop and takes
// the shortest of those (several only when several global links join the two groups, e.g. the
// Flowcut system with 16 links per group pair). Every other topology (Slim Fly: diameter 2, the
// minimal routes of [SlimFly] sec. 2 / [Spritz] sec. III-b; fat trees: up/down) keeps
// the min-hop sets, so `minimal` there is identical to `ecmp` (same hash and salts).
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "net/network.h"
#include "routing/tables.h"

namespace lbsim::routing {

class MinimalRoutes {
 public:
  explicit MinimalRoutes(const topo::Topology& t);

  // Output ports of switch `node` on a minimal route to destination switch `dst_sw` (empty when
  // node == dst_sw or unreachable).
  std::span<const std::int16_t> candidates(std::int32_t node, std::int32_t dst_sw) const {
    const std::size_t i = index(node, dst_sw);
    return {ports_.data() + offset_[i], static_cast<std::size_t>(offset_[i + 1] - offset_[i])};
  }
  // Switch-to-switch hops of the minimal route (-1 unreachable).
  std::int32_t distance(std::int32_t node, std::int32_t dst_sw) const { return dist_[index(node, dst_sw)]; }
  // True when the Dragonfly l-g-l rule is in force (Topology::kind == "dragonfly").
  bool group_minimal() const { return group_minimal_; }
  const topo::Topology& topology() const { return topo_; }

 private:
  std::size_t index(std::int32_t node, std::int32_t dst_sw) const {
    return static_cast<std::size_t>(topo_.switch_index(node)) * nsw_ + topo_.switch_index(dst_sw);
  }
  const topo::Topology& topo_;
  bool group_minimal_ = false;
  std::size_t nsw_ = 0;
  std::vector<std::int32_t> dist_;
  std::vector<std::uint32_t> offset_;
  std::vector<std::int16_t> ports_;
};

// Minimal routing: hash (src, dst, flow, EV, switch salt) over the minimal-route candidates, like
// EcmpRouter (same salt stream, so the two agree wherever the candidate sets agree).
class MinimalRouter final : public net::Router {
 public:
  MinimalRouter(const MinimalTables& tables, std::uint64_t seed);
  std::int32_t route(std::int32_t node, net::Packet& p) override;
  const MinimalRoutes& routes() const { return routes_; }

 private:
  const MinimalTables& tables_;
  const topo::Topology& topo_;
  MinimalRoutes routes_;
  std::vector<std::uint64_t> salt_;
  std::vector<std::int32_t> host_sw_;  // switch of every host
};

// The salts EcmpRouter draws (stream "ecmp-salt"), one per node.
std::vector<std::uint64_t> ecmp_salts(std::size_t nodes, std::uint64_t seed);

}  // namespace lbsim::routing
