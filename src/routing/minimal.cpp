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

MinimalRoutes::MinimalRoutes(const topo::Topology& t) : SwitchPairPorts(t), group_minimal_(t.minimal_one_global_hop) {
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
      adj[s].push_back(
          {t.switch_index(ports[p].peer), static_cast<std::int16_t>(p), is_global(t.links[ports[p].link])});
    }
  }
  // Per destination d: r0[u] = hops from u to d over non-global links only, r1[u] = hops over paths
  // with at most one global hop (Dragonfly); without the group rule no link is global and
  // r1 == r0 == the min-hop distance. Destinations in blocks of kBuildBlock (tables.h): no temporary
  // per switch pair.
  constexpr std::size_t kB = kBuildBlock;
  static_assert(kB <= 32, "one bit per destination of a block in a 32-bit word");
  std::vector<std::int32_t> r0t(nsw_ * kB), r1t(nsw_ * kB);  // [u * kB + k]: r0, r1 of the block's destination k
  const topo::SwitchRows local = topo::switch_rows(t, [&](const topo::Link& l) { return !is_global(l); });
  const topo::SwitchRows global = topo::switch_rows(t, [&](const topo::Link& l) { return is_global(l); });
  // One bit-parallel breadth-first search per block (as topo::BlockBfs, with the two distances):
  // per switch a word of the block's destinations first reached at the current level, for r0 and r1.
  // Links are bidirectional, so u is at r0 = L when a local neighbour is at r0 = L - 1, and at
  // r1 = L when it is at r0 = L, or a global neighbour is at r0 = L - 1 (the global hop spends the
  // budget: the rest is local), or a local neighbour is at r1 = L - 1.
  std::vector<std::uint32_t> seen0(nsw_), seen1(nsw_), front0(nsw_), front1(nsw_), next0(nsw_), next1(nsw_);
  auto search = [&](std::size_t d0, std::size_t nb) {
    const std::uint32_t all = nb == 32 ? ~0u : (1u << nb) - 1;
    for (std::size_t u = 0; u < nsw_; ++u) {
      seen0[u] = seen1[u] = front0[u] = front1[u] = 0;
      std::fill(&r0t[u * kB], &r0t[u * kB] + nb, kInf);
      std::fill(&r1t[u * kB], &r1t[u * kB] + nb, kInf);
    }
    for (std::size_t k = 0; k < nb; ++k) {
      seen0[d0 + k] = seen1[d0 + k] = front0[d0 + k] = front1[d0 + k] = 1u << k;
      r0t[(d0 + k) * kB + k] = r1t[(d0 + k) * kB + k] = 0;
    }
    for (std::int32_t level = 1;; ++level) {
      bool any = false;
      for (std::size_t u = 0; u < nsw_; ++u) {
        std::uint32_t w0 = 0, w1 = 0;
        if (seen0[u] != all) w0 = local.gather(u, front0) & ~seen0[u];
        if (seen1[u] != all) w1 = (w0 | global.gather(u, front0) | local.gather(u, front1)) & ~seen1[u];
        next0[u] = w0;
        next1[u] = w1;
      }
      for (std::size_t u = 0; u < nsw_; ++u) {
        if ((next0[u] | next1[u]) == 0) continue;
        any = true;
        seen0[u] |= next0[u];
        seen1[u] |= next1[u];
        for (std::uint32_t w = next0[u]; w != 0; w &= w - 1)
          r0t[u * kB + static_cast<std::size_t>(__builtin_ctz(w))] = level;
        for (std::uint32_t w = next1[u]; w != 0; w &= w - 1)
          r1t[u * kB + static_cast<std::size_t>(__builtin_ctz(w))] = level;
      }
      if (!any) break;
      front0.swap(next0);
      front1.swap(next1);
    }
  };
  // A local hop keeps the one-global budget (r1); a global hop spends it, so the rest of the
  // route must be local (r0): the packet is then in the destination group.
  auto row = [&](std::size_t u, std::size_t d0, std::size_t nb, std::int32_t* dist,
                 std::vector<std::vector<std::int16_t>>& out) {
    const std::int32_t* ru = &r1t[u * kB];
    for (std::size_t k = 0; k < nb; ++k) dist[k] = ru[k] < kInf ? ru[k] : -1;
    alignas(16) std::int32_t want[kB];  // the neighbour's r0 (global port) or r1 (local) on a route
    for (std::size_t k = 0; k < kB; ++k) want[k] = k < nb && u != d0 + k && ru[k] < kInf ? ru[k] - 1 : kNoMatch;
    for (const auto& e : adj[u])
      for (std::uint32_t m = equal_mask(want, &(e.global ? r0t : r1t)[static_cast<std::size_t>(e.v) * kB]); m != 0;
           m &= m - 1)
        out[static_cast<std::size_t>(__builtin_ctz(m))].push_back(e.port);
  };
  // The same routes from the groups, kept when every pair's entry agrees (GroupRoutes).
  if (group_minimal_) arithmetic_ = GroupRoutes::build(t);
  bool same = arithmetic_ != nullptr;
  GroupRoutes::Route r;
  auto checked_row = [&](std::size_t u, std::size_t d0, std::size_t nb, std::int32_t* dist,
                         std::vector<std::vector<std::int16_t>>& out) {
    row(u, d0, nb, dist, out);
    for (std::size_t k = 0; same && k < nb; ++k)
      same = arithmetic_->route(u, d0 + k, r) && r.dist == dist[k] && r.count == out[k].size() &&
             std::equal(out[k].begin(), out[k].end(), r.ports);
  };
  build(search, checked_row);
  if (!same) arithmetic_.reset();
}

std::unique_ptr<GroupRoutes> GroupRoutes::build(const topo::Topology& t) {
  auto g = std::make_unique<GroupRoutes>();
  const auto n = static_cast<std::size_t>(t.num_switches());
  g->group_.resize(n);
  g->rank_.resize(n);
  std::vector<std::uint32_t> size;  // switches per group so far
  for (std::size_t s = 0; s < n; ++s) {
    const std::int32_t grp = t.nodes[static_cast<std::size_t>(t.switch_node(static_cast<std::int32_t>(s)))].group;
    if (grp < 0) return nullptr;
    const auto gi = static_cast<std::size_t>(grp);
    if (gi >= size.size()) size.resize(gi + 1, 0);
    if (size[gi] > std::numeric_limits<std::uint16_t>::max()) return nullptr;
    g->group_[s] = static_cast<std::uint32_t>(gi);
    g->rank_[s] = static_cast<std::uint16_t>(size[gi]++);
  }
  g->groups_ = size.size();
  g->cols_ = *std::max_element(size.begin(), size.end());
  // One offset per ordered pair of groups: kept only while that is no more than the table's run ids
  // (1/8 B per switch pair) would be, for groups of 4 or more switches.
  if (g->groups_ * g->groups_ > 16 * n + 65536) return nullptr;
  g->local_.assign(n * g->cols_, -1);
  std::vector<std::uint32_t> count(g->groups_ * g->groups_ + 1, 0);
  for (std::size_t s = 0; s < n; ++s) {
    const auto& ports = t.ports[static_cast<std::size_t>(t.switch_node(static_cast<std::int32_t>(s)))];
    for (std::size_t p = 0; p < ports.size(); ++p) {
      if (t.is_host(ports[p].peer)) continue;
      const auto v = static_cast<std::size_t>(t.switch_index(ports[p].peer));
      if (t.links[static_cast<std::size_t>(ports[p].link)].kind == topo::LinkKind::Global) {
        ++count[g->group_[s] * g->groups_ + g->group_[v] + 1];
      } else {
        if (g->group_[v] != g->group_[s]) return nullptr;  // a local link between groups
        auto& slot = g->local_[s * g->cols_ + g->rank_[v]];
        if (slot >= 0) return nullptr;  // parallel local links
        slot = static_cast<std::int16_t>(p);
      }
    }
  }
  for (std::size_t i = 1; i < count.size(); ++i) count[i] += count[i - 1];
  g->link_off_ = count;
  g->links_.resize(count.back());
  for (std::size_t s = 0; s < n; ++s) {  // by source switch and port: the order of the table's scan
    const auto& ports = t.ports[static_cast<std::size_t>(t.switch_node(static_cast<std::int32_t>(s)))];
    for (std::size_t p = 0; p < ports.size(); ++p) {
      if (t.is_host(ports[p].peer) || t.links[static_cast<std::size_t>(ports[p].link)].kind != topo::LinkKind::Global)
        continue;
      const auto v = static_cast<std::size_t>(t.switch_index(ports[p].peer));
      g->links_[count[g->group_[s] * g->groups_ + g->group_[v]]++] = {
          static_cast<std::uint32_t>(s), static_cast<std::uint32_t>(v), static_cast<std::int16_t>(p)};
    }
  }
  return g;
}

std::size_t GroupRoutes::bytes() const {
  return group_.capacity() * sizeof(std::uint32_t) + rank_.capacity() * sizeof(std::uint16_t) +
         local_.capacity() * sizeof(std::int16_t) + link_off_.capacity() * sizeof(std::uint32_t) +
         links_.capacity() * sizeof(Global);
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

double own_minimal_bytes(const config::MemorySizes& s) { return s.minimal_one_global_hop ? s.pair_tables : 0; }

MinimalRouter::MinimalRouter(const MinimalTables& tables, std::uint64_t seed)
    : tables_(tables),
      topo_(tables.topology()),
      routes_(minimal_routes(tables, own_routes_)),
      groups_(own_routes_ ? own_routes_->arithmetic() : nullptr),
      salt_(ecmp_salts(static_cast<std::size_t>(tables.topology().size()), seed)) {
  host_sw_.resize(static_cast<std::size_t>(topo_.num_hosts));
  for (std::int32_t h = 0; h < topo_.num_hosts; ++h) host_sw_[static_cast<std::size_t>(h)] = topo_.host_switch(h);
}

std::int32_t MinimalRouter::route(std::int32_t node, net::Packet& p) {
  const std::int32_t dst_sw = host_sw_[static_cast<std::size_t>(p.dst)];
  if (node == dst_sw) return tables_.host_port(p.dst);
  return minimal_next_hop(routes_, groups_, node, dst_sw, p, salt_[node]);
}

namespace {
const RegisterRouting kMinimal{
    {{"minimal",
      "Minimal routing: Dragonfly local-global-local routes, shortest paths elsewhere ([Spritz] sec. II-A; "
      "routing/minimal.h).",
      {},
      {}},
     [](const RoutingContext& c) { return std::make_unique<MinimalRouter>(c.tables, c.seed); },
     {},
     {},
     [](const config::Config&, const config::MemorySizes& s) { return config::MemoryShare{own_minimal_bytes(s)}; }}};
}  // namespace

}  // namespace lbsim::routing
