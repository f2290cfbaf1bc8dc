#include "routing/minimal.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "core/rng.h"
#include "routing/registry.h"
#include "topo/graph.h"

namespace lbsim::routing {

namespace {
constexpr std::int32_t kInf = std::numeric_limits<std::int32_t>::max() / 4;
}

MinimalRoutes::MinimalRoutes(const topo::Topology& t)
    : SwitchPairPorts(t), group_minimal_(t.minimal_one_global_hop) {
  const auto n = static_cast<std::int32_t>(nsw_);
  // Switch-level adjacency split by link class: (neighbour switch index, port at u, is global).
  struct Adj {
    std::int32_t v;
    std::int16_t port;
    bool global;
  };
  auto is_global = [&](const topo::Link& l) { return group_minimal_ && l.kind == topo::LinkKind::Global; };
  std::vector<std::vector<Adj>> adj(nsw_);
  for (std::int32_t s = 0; s < n; ++s) {
    const std::int32_t node = t.switch_node(s);
    const auto& ports = t.ports[node];
    for (std::size_t p = 0; p < ports.size(); ++p) {
      if (t.is_host(ports[p].peer)) continue;
      adj[s].push_back({t.switch_index(ports[p].peer), static_cast<std::int16_t>(p), is_global(t.links[ports[p].link])});
    }
  }
  // Per destination d: r0[u] = hops from u to d over non-global links only, r1[u] = hops over paths
  // with at most one global hop (Dragonfly); without the group rule no link is global and
  // r1 == r0 == the min-hop distance. Destinations in blocks of kBuildBlock (tables.h): no temporary
  // per switch pair.
  constexpr std::size_t kB = kBuildBlock;
  std::vector<std::int32_t> r0(nsw_), r1(nsw_);
  std::vector<std::int32_t> r0t(nsw_ * kB), r1t(nsw_ * kB);  // [u * kB + k]: r0, r1 of the block's destination k
  std::vector<std::vector<std::int32_t>> bucket;  // switches by r1
  topo::Bfs bfs(n);
  auto search = [&](std::size_t dd, std::size_t k) {
    const auto d = static_cast<std::int32_t>(dd);
    topo::switch_bfs(t, d, bfs, [&](const topo::Link& l) { return !is_global(l); });
    const auto hops = bfs.dist();
    for (std::int32_t u = 0; u < n; ++u) r0[u] = hops[static_cast<std::size_t>(u)] < 0 ? kInf : hops[static_cast<std::size_t>(u)];
    for (std::int32_t u = 0; u < n; ++u) {
      r1[u] = r0[u];
      for (const auto& e : adj[u])
        if (e.global && r0[e.v] < kInf) r1[u] = std::min(r1[u], r0[e.v] + 1);
    }
    // Then over non-global links: the shortest distances from those starting values, one bucket
    // per distance in increasing order (a breadth-first search with many sources at different
    // depths; links are bidirectional, so u's local neighbours are the switches u is one hop from).
    for (auto& b : bucket) b.clear();
    for (std::int32_t u = 0; u < n; ++u)
      if (r1[u] < kInf) {
        if (static_cast<std::size_t>(r1[u]) >= bucket.size()) bucket.resize(static_cast<std::size_t>(r1[u]) + 1);
        bucket[static_cast<std::size_t>(r1[u])].push_back(u);
      }
    for (std::size_t b = 0; b < bucket.size(); ++b)
      for (std::size_t i = 0; i < bucket[b].size(); ++i) {
        const std::int32_t v = bucket[b][i];
        if (r1[v] != static_cast<std::int32_t>(b)) continue;  // lowered after it was queued
        for (const auto& e : adj[v])
          if (!e.global && r1[e.v] > r1[v] + 1) {
            r1[e.v] = r1[v] + 1;
            if (b + 1 >= bucket.size()) bucket.resize(b + 2);
            bucket[b + 1].push_back(e.v);
          }
      }
    for (std::size_t u = 0; u < nsw_; ++u) {
      r0t[u * kB + k] = r0[u];
      r1t[u * kB + k] = r1[u];
    }
  };
  // A local hop keeps the one-global budget (r1); a global hop spends it, so the rest of the
  // route must be local (r0): the packet is then in the destination group.
  auto row = [&](std::size_t u, std::size_t d0, std::size_t nb, std::int32_t* dist, std::vector<std::vector<std::int16_t>>& out) {
    const std::int32_t* ru = &r1t[u * kB];
    for (std::size_t k = 0; k < nb; ++k) dist[k] = ru[k] < kInf ? ru[k] : -1;
    for (const auto& e : adj[u]) {
      const std::int32_t* rv = &(e.global ? r0t : r1t)[static_cast<std::size_t>(e.v) * kB];
      for (std::size_t k = 0; k < nb; ++k)
        if (u != d0 + k && ru[k] < kInf && rv[k] + 1 == ru[k]) out[k].push_back(e.port);
    }
  };
  build(search, row);
}

std::vector<std::uint64_t> ecmp_salts(std::size_t nodes, std::uint64_t seed) {
  std::vector<std::uint64_t> salt(nodes);
  Rng rng(seed, hash_name("ecmp-salt"));
  for (auto& s : salt) s = rng.next();
  return salt;
}

const SwitchPairPorts& minimal_routes(const MinimalTables& tables, std::unique_ptr<MinimalRoutes>& own) {
  if (!tables.topology().minimal_one_global_hop) return tables;
  own = std::make_unique<MinimalRoutes>(tables.topology());
  return *own;
}

MinimalRouter::MinimalRouter(const MinimalTables& tables, std::uint64_t seed)
    : tables_(tables), topo_(tables.topology()), routes_(minimal_routes(tables, own_routes_)),
      salt_(ecmp_salts(static_cast<std::size_t>(tables.topology().size()), seed)) {
  host_sw_.resize(static_cast<std::size_t>(topo_.num_hosts));
  for (std::int32_t h = 0; h < topo_.num_hosts; ++h) host_sw_[static_cast<std::size_t>(h)] = topo_.host_switch(h);
}

std::int32_t MinimalRouter::route(std::int32_t node, net::Packet& p) {
  const std::int32_t dst_sw = host_sw_[static_cast<std::size_t>(p.dst)];
  if (node == dst_sw) return tables_.host_port(p.dst);
  const auto c = routes_.candidates(node, dst_sw);
  if (c.size() == 1) return c[0];
  if (c.empty()) return -1;
  return c[ecmp_hash(p.src, p.dst, p.flow, p.ev, salt_[node]) % c.size()];
}

namespace {
const RegisterRouting kMinimal{{{"minimal", "Minimal routing: Dragonfly local-global-local routes, shortest paths elsewhere ([Spritz] sec. II-A; routing/minimal.h).", {}, {}},
    [](const RoutingContext& c) { return std::make_unique<MinimalRouter>(c.tables, c.seed); }}};
}  // namespace

}  // namespace lbsim::routing
