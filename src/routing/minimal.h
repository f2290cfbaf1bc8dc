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
// of Table I). MinimalRoutes restricts a topology whose generator sets
// Topology::minimal_one_global_hop (the Dragonfly) to paths with at most one global hop and takes
// the shortest of those (several only when several global links join the two groups, e.g. the
// Flowcut system with 16 links per group pair). Every other topology (Slim Fly: diameter 2, the
// minimal routes of [SlimFly] sec. 2 / [Spritz] sec. III-b; fat trees: up/down) keeps
// the min-hop sets, so `minimal` there is identical to `ecmp` (same hash and salts).
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "net/network.h"
#include "routing/tables.h"

namespace lbsim::routing {

// candidates(node, dst_sw): the output ports of switch `node` on a minimal route to destination
// switch `dst_sw`; distance(): the switch-to-switch hops of that route (-1 unreachable).
class MinimalRoutes : public SwitchPairPorts {
 public:
  explicit MinimalRoutes(const topo::Topology& t);

  // True when minimal routes cross at most one global link (Topology::minimal_one_global_hop).
  bool group_minimal() const { return group_minimal_; }

 private:
  bool group_minimal_ = false;
};

// The minimal routes of `tables`' topology. Only the Dragonfly's differ from the min-hop tables
// (Topology::minimal_one_global_hop: l-g-l); there they are built into `own`. Elsewhere they are the
// min-hop sets, so the tables themselves are returned and nothing more is built (a second 2-byte
// index per switch pair and its build, one search per destination switch; docs/scale.md).
const SwitchPairPorts& minimal_routes(const MinimalTables& tables, std::unique_ptr<MinimalRoutes>& own);

// Minimal routing: hash (src, dst, flow, EV, switch salt) over the minimal-route candidates, like
// EcmpRouter (same salt stream, so the two agree wherever the candidate sets agree).
class MinimalRouter final : public net::Router {
 public:
  MinimalRouter(const MinimalTables& tables, std::uint64_t seed);
  std::int32_t route(std::int32_t node, net::Packet& p) override;
  const SwitchPairPorts& routes() const { return routes_; }

 private:
  const MinimalTables& tables_;
  const topo::Topology& topo_;
  std::unique_ptr<MinimalRoutes> own_routes_;  // the Dragonfly's l-g-l routes (minimal_routes())
  const SwitchPairPorts& routes_;
  std::vector<std::uint64_t> salt_;
  std::vector<std::int32_t> host_sw_;  // switch of every host
};

// The salts EcmpRouter draws (stream "ecmp-salt"), one per node.
std::vector<std::uint64_t> ecmp_salts(std::size_t nodes, std::uint64_t seed);

}  // namespace lbsim::routing
