#include "routing/minimal.h"

#include <limits>

#include "core/rng.h"
#include "routing/registry.h"

namespace lbsim::routing {

namespace {
constexpr std::int32_t kInf = std::numeric_limits<std::int32_t>::max() / 4;
}

MinimalRoutes::MinimalRoutes(const topo::Topology& t) : topo_(t) {
  group_minimal_ = t.kind == "dragonfly";
  nsw_ = static_cast<std::size_t>(t.num_switches());
  const auto n = static_cast<std::int32_t>(nsw_);
  // Switch-level adjacency split by link class: (neighbour switch index, port at u, is global).
  struct Adj {
    std::int32_t v;
    std::int16_t port;
    bool global;
  };
  std::vector<std::vector<Adj>> adj(nsw_);
  for (std::int32_t s = 0; s < n; ++s) {
    const std::int32_t node = t.switch_node(s);
    const auto& ports = t.ports[node];
    for (std::size_t p = 0; p < ports.size(); ++p) {
      if (t.is_host(ports[p].peer)) continue;
      const bool global = group_minimal_ && t.links[ports[p].link].kind == topo::LinkKind::Global;
      adj[s].push_back({t.switch_index(ports[p].peer), static_cast<std::int16_t>(p), global});
    }
  }
  dist_.assign(nsw_ * nsw_, -1);
  offset_.assign(nsw_ * nsw_ + 1, 0);
  // Per destination d: d0[u] = hops to d over non-global links only, d1[u] = hops over paths with at
  // most one global hop (Dragonfly); without the group rule no link is global and d1 == d0 == BFS.
  std::vector<std::int32_t> d0(nsw_), d1(nsw_), queue;
  std::vector<std::vector<std::int16_t>> cand(nsw_ * nsw_);  // [u * nsw + d], construction only
  for (std::int32_t d = 0; d < n; ++d) {
    std::fill(d0.begin(), d0.end(), kInf);
    d0[d] = 0;
    queue.assign(1, d);
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const std::int32_t u = queue[head];
      for (const auto& e : adj[u])
        if (!e.global && d0[e.v] == kInf) {
          d0[e.v] = d0[u] + 1;
          queue.push_back(e.v);
        }
    }
    for (std::int32_t u = 0; u < n; ++u) {
      d1[u] = d0[u];
      for (const auto& e : adj[u])
        if (e.global && d0[e.v] < kInf) d1[u] = std::min(d1[u], d0[e.v] + 1);
    }
    // Relax over non-global links until stable (the local graphs have tiny diameters).
    for (bool changed = true; changed;) {
      changed = false;
      for (std::int32_t u = 0; u < n; ++u)
        for (const auto& e : adj[u])
          if (!e.global && d1[e.v] < kInf && d1[e.v] + 1 < d1[u]) {
            d1[u] = d1[e.v] + 1;
            changed = true;
          }
    }
    for (std::int32_t u = 0; u < n; ++u) {
      const std::size_t i = static_cast<std::size_t>(u) * nsw_ + d;
      dist_[i] = d1[u] < kInf ? d1[u] : -1;
      if (u == d || d1[u] >= kInf) continue;
      // A local hop keeps the one-global budget (d1); a global hop spends it, so the rest of the
      // route must be local (d0): the packet is then in the destination group.
      for (const auto& e : adj[u])
        if ((e.global ? d0[e.v] : d1[e.v]) + 1 == d1[u]) cand[i].push_back(e.port);
    }
  }
  for (std::size_t i = 0; i < nsw_ * nsw_; ++i) {
    offset_[i] = static_cast<std::uint32_t>(ports_.size());
    ports_.insert(ports_.end(), cand[i].begin(), cand[i].end());
  }
  offset_[nsw_ * nsw_] = static_cast<std::uint32_t>(ports_.size());
}

std::vector<std::uint64_t> ecmp_salts(std::size_t nodes, std::uint64_t seed) {
  std::vector<std::uint64_t> salt(nodes);
  Rng rng(seed, hash_name("ecmp-salt"));
  for (auto& s : salt) s = rng.next();
  return salt;
}

MinimalRouter::MinimalRouter(const MinimalTables& tables, std::uint64_t seed)
    : tables_(tables), topo_(tables.topology()), routes_(tables.topology()),
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
