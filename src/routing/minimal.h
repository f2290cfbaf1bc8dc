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
#include <limits>
#include <memory>
#include <span>
#include <vector>

#include "core/registry.h"
#include "net/network.h"
#include "routing/tables.h"

namespace lbsim::routing {

// The Dragonfly's local-global-local routes computed from its groups instead of looked up per
// switch pair (issue 17: "computed arithmetically where the topology allows"; docs/scale.md
// "Dragonfly routes from the groups"). From switch u to switch d of another group: over each global
// link (x, y) joining their groups, u -> x (one local hop, none when u = x), x -> y, y -> d (one
// local hop, none when y = d); the links of fewest hops give the candidates, u's global port where
// u = x, else its local port to x. Inside a group: the local port to d. What it needs is small and
// stays cached: each switch's group and rank in it, the local port per (switch, rank of a switch of
// its group), and the global links per ordered pair of groups (about 1.7 MB at 83,232 hosts, where
// a table lookup is four dependent loads in ~30 MB). MinimalRoutes builds it only when it gives
// every pair's table entry, the same distance and the same ports in the same order (checked while
// the table is built), so routing by it is routing by the table.
class GroupRoutes {
 public:
  static constexpr std::size_t kMaxPorts = 16;
  struct Route {
    std::int32_t dist = -1;  // hops (-1 unreachable, 0 for u = d)
    std::uint32_t count = 0;
    std::int16_t ports[kMaxPorts];  // increasing
  };
  // nullptr when the topology has no groups of this shape (a switch without a group, parallel local
  // links, a group larger than 65,536 switches).
  static std::unique_ptr<GroupRoutes> build(const topo::Topology& t);
  // The route between switch indices su and sd. False when it has more than kMaxPorts candidates.
  bool route(std::size_t su, std::size_t sd, Route& r) const {
    r.count = 0;
    if (su == sd) {
      r.dist = 0;
      return true;
    }
    const std::uint32_t gu = group_[su], gd = group_[sd];
    if (gu == gd) {
      const std::int16_t p = local(su, sd);
      r.dist = p < 0 ? -1 : 1;
      if (p >= 0) r.ports[r.count++] = p;
      return true;
    }
    std::int32_t best = std::numeric_limits<std::int32_t>::max();
    const std::size_t gp = static_cast<std::size_t>(gu) * groups_ + gd;
    for (std::uint32_t i = link_off_[gp]; i < link_off_[gp + 1]; ++i) {
      const Global& l = links_[i];
      const std::int16_t port = l.x == su ? l.port : local(su, l.x);
      if (port < 0 || (l.y != sd && local(l.y, sd) < 0)) continue;
      const std::int32_t hops = (l.x != su) + 1 + (l.y != sd);
      if (hops > best) continue;
      if (hops < best) {
        best = hops;
        r.count = 0;
      }
      std::uint32_t j = 0;  // insert in increasing order, once
      while (j < r.count && r.ports[j] < port) ++j;
      if (j < r.count && r.ports[j] == port) continue;
      if (r.count == kMaxPorts) return false;
      for (std::uint32_t m = r.count; m > j; --m) r.ports[m] = r.ports[m - 1];
      r.ports[j] = port;
      ++r.count;
    }
    r.dist = r.count == 0 ? -1 : best;
    return true;
  }
  std::size_t bytes() const;

 private:
  struct Global {
    std::uint32_t x, y;  // switch indices: x in the source group, y in the destination group
    std::int16_t port;   // x's port
  };
  std::int16_t local(std::size_t su, std::size_t sv) const { return local_[su * cols_ + rank_[sv]]; }
  std::size_t groups_ = 0, cols_ = 0;
  std::vector<std::uint32_t> group_;     // per switch index
  std::vector<std::uint16_t> rank_;      // per switch index: its place in its group
  std::vector<std::int16_t> local_;      // [su * cols_ + rank of sv]: su's port to sv of its group (-1 none)
  std::vector<std::uint32_t> link_off_;  // [gu * groups_ + gd] .. + 1: into links_
  std::vector<Global> links_;
};

// candidates(node, dst_sw): the output ports of switch `node` on a minimal route to destination
// switch `dst_sw`; distance(): the switch-to-switch hops of that route (-1 unreachable).
class MinimalRoutes : public SwitchPairPorts {
 public:
  explicit MinimalRoutes(const topo::Topology& t);

  // True when minimal routes cross at most one global link (Topology::minimal_one_global_hop).
  bool group_minimal() const { return group_minimal_; }
  // The same routes computed from the groups, when they give every pair's entry (else nullptr).
  const GroupRoutes* arithmetic() const { return arithmetic_.get(); }

 private:
  bool group_minimal_ = false;
  std::unique_ptr<GroupRoutes> arithmetic_;
};

// The minimal routes of `tables`' topology. Only the Dragonfly's differ from the min-hop tables
// (Topology::minimal_one_global_hop: l-g-l); there they are built into `own`. Elsewhere they are the
// min-hop sets, so the tables themselves are returned and nothing more is built (a second 2-byte
// index per switch pair and its build, one search per destination switch; docs/scale.md).
const SwitchPairPorts& minimal_routes(const MinimalTables& tables, std::unique_ptr<MinimalRoutes>& own);
// The memory guard (sim/memory.h): what minimal_routes() builds of its own, the Dragonfly's l-g-l
// routes in the min-hop tables' layout (elsewhere nothing: the min-hop tables are used).
double own_minimal_bytes(const config::MemorySizes& s);

// A packet's minimal next hop from switch node `node` towards switch node `dst_sw`: EcmpRouter's
// hash over the minimal-route candidates, computed from the groups when `groups` is set (the same
// candidates: GroupRoutes), else looked up in `routes`; -1 when there is none. `dist`, when given,
// receives the route's distance.
inline std::int32_t minimal_next_hop(const SwitchPairPorts& routes, const GroupRoutes* groups, std::int32_t node,
                                     std::int32_t dst_sw, const net::Packet& p, std::uint64_t salt,
                                     std::int32_t* dist = nullptr) {
  std::span<const std::int16_t> c;
  GroupRoutes::Route r;
  if (groups) {
    const auto& t = routes.topology();
    groups->route(static_cast<std::size_t>(t.switch_index(node)), static_cast<std::size_t>(t.switch_index(dst_sw)), r);
    c = {r.ports, r.count};
    if (dist) *dist = r.dist;
  } else {
    c = routes.candidates(node, dst_sw);
    if (dist) *dist = routes.distance(node, dst_sw);
  }
  if (c.size() == 1) return c[0];
  if (c.empty()) return -1;
  return c[ecmp_hash(p.src, p.dst, p.flow, p.ev, salt) % c.size()];
}

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
  const GroupRoutes* groups_;  // routes_ computed from the Dragonfly's groups, when they agree (else null)
  std::vector<std::uint64_t> salt_;
  std::vector<std::int32_t> host_sw_;  // switch of every host
};

// The salts EcmpRouter draws (stream "ecmp-salt"), one per node.
std::vector<std::uint64_t> ecmp_salts(std::size_t nodes, std::uint64_t seed);

}  // namespace lbsim::routing
