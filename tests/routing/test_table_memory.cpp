// Routing state that grows with the network, not with the square of its hosts (issue 17;
// docs/scale.md): the compact per-switch-pair tables (routing/tables.h) against a byte budget
// counted from first principles, their content against the min-hop rule recomputed from all-pairs
// distances, and the path model's path against the BFS tree path it replaced.
#include <gtest/gtest.h>

#include <cmath>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/rng.h"

#include "routing/bounded_paths.h"
#include "routing/minimal.h"
#include "routing/path_model.h"
#include "routing/source_guided.h"
#include "routing/tables.h"
#include "topo/dragonfly.h"
#include "topo/fat_tree.h"
#include "topo/graph.h"
#include "topo/slim_fly.h"

using namespace lbsim;

namespace {

topo::Topology slim_fly(int q, int p) {
  topo::SlimFlyParams sp;
  sp.q = q;
  sp.p = p;
  return topo::build_slim_fly(sp);
}

topo::Topology fat_tree(int hosts, int tiers, int radix) {
  topo::FatTreeParams ft;
  ft.hosts = hosts;
  ft.tiers = tiers;
  ft.radix = radix;
  return topo::build_fat_tree(ft);
}

// The min-hop rule of MinimalTables, recomputed the old way (a dense all-pairs distance matrix).
void expect_min_hop_tables(const topo::Topology& t) {
  const routing::MinimalTables tables(t);
  const auto n = t.num_switches();
  const auto dist = topo::all_pairs_distances(t.switch_adjacency());
  for (std::int32_t s = 0; s < n; ++s)
    for (std::int32_t d = 0; d < n; ++d) {
      const auto h = dist[static_cast<std::size_t>(s) * static_cast<std::size_t>(n) + static_cast<std::size_t>(d)];
      const std::int32_t sn = t.switch_node(s), dn = t.switch_node(d);
      ASSERT_EQ(tables.distance(sn, dn), h) << s << " -> " << d;
      std::vector<std::int16_t> want;
      if (s != d && h > 0)
        for (std::size_t p = 0; p < t.ports[sn].size(); ++p) {
          const auto peer = t.ports[sn][p].peer;
          if (!t.is_host(peer) && dist[static_cast<std::size_t>(t.switch_index(peer)) * static_cast<std::size_t>(n) +
                                       static_cast<std::size_t>(d)] == h - 1)
            want.push_back(static_cast<std::int16_t>(p));
        }
      const auto got = tables.candidates(sn, dn);
      ASSERT_EQ(std::vector<std::int16_t>(got.begin(), got.end()), want) << s << " -> " << d;
    }
}

// The path the old PathModel took: walk the BFS tree of the source switch back from the destination.
std::vector<std::int32_t> bfs_tree_path(const topo::Topology& t, std::int32_t a, std::int32_t b) {
  topo::Bfs bfs(t.num_switches());
  const std::int32_t sa = t.host_switch(a), sb = t.host_switch(b);
  topo::switch_bfs(t, t.switch_index(sa), bfs, [](const topo::Link&) { return true; });
  std::vector<std::int32_t> rev{t.ports[b][0].link};
  for (std::int32_t n = sb; n != sa;) {
    const std::int32_t l = bfs.parent()[static_cast<std::size_t>(t.switch_index(n))];
    rev.push_back(l);
    n = t.links[l].a == n ? t.links[l].b : t.links[l].a;
  }
  rev.push_back(t.ports[a][0].link);
  return {rev.rbegin(), rev.rend()};
}

void expect_bfs_paths(const topo::Topology& t) {
  const routing::MinimalTables tables(t);
  const routing::PathModel pm(tables, 0);
  // One host per switch (every switch pair with hosts), both directions.
  std::vector<std::int32_t> rep;
  for (std::int32_t s = 0; s < t.num_switches(); ++s)
    if (const auto hs = t.hosts_of(t.switch_node(s)); !hs.empty()) rep.push_back(hs.back());
  for (const auto a : rep)
    for (const auto b : rep)
      if (a != b) {
        ASSERT_EQ(pm.path_links(a, b), bfs_tree_path(t, a, b)) << a << " -> " << b;
      }
}

// A copy of `t` without the links `drop` says to drop, and with `relink` applied to the others
// (rates and latencies): node ids and the routing rule stay.
template <typename Drop, typename Relink>
topo::Topology copy_topology(const topo::Topology& t, Drop drop, Relink relink) {
  topo::Topology u;
  u.kind = t.kind;
  u.minimal_one_global_hop = t.minimal_one_global_hop;
  for (std::int32_t n = 0; n < t.size(); ++n)
    if (t.is_host(n))
      u.add_host(t.nodes[n].label);
    else
      u.add_switch(t.nodes[n].label, t.nodes[n].group, t.nodes[n].tier);
  for (std::size_t i = 0; i < t.links.size(); ++i) {
    topo::Link l = t.links[i];
    if (drop(l)) continue;
    relink(l);
    u.connect(l.a, l.b, l.rate, l.latency, l.kind);
  }
  return u;
}

// The base-RTT search the way derive() did it before farthest_pair(): every ordered pair walked.
routing::PathModel::Farthest every_pair(const routing::PathModel& pm, const std::vector<std::int32_t>& hosts,
                                        Bytes data, Bytes ack) {
  routing::PathModel::Farthest f;
  for (std::size_t i = 0; i < hosts.size(); ++i)
    for (std::size_t j = 0; j < hosts.size(); ++j)
      if (i != j) {
        const SimTime rtt = pm.one_way(hosts[i], hosts[j], data) + pm.one_way(hosts[j], hosts[i], ack);
        if (rtt > f.rtt) f = {rtt, hosts[i], hosts[j]};
      }
  return f;
}

void expect_farthest_pair(const topo::Topology& t, SimTime switch_latency) {
  const routing::MinimalTables tables(t);
  const routing::PathModel pm(tables, switch_latency);
  std::vector<std::int32_t> rep, all;
  for (std::int32_t s = 0; s < t.num_switches(); ++s)
    if (const auto hs = t.hosts_of(t.switch_node(s)); !hs.empty()) rep.push_back(hs.front());
  for (std::int32_t h = 0; h < t.num_hosts; ++h) all.push_back(h);
  for (const auto* hosts : {&rep, &all}) {
    const auto want = every_pair(pm, *hosts, 4160, 64);
    const auto got = pm.farthest_pair(*hosts, 4160, 64);
    EXPECT_EQ(got.rtt, want.rtt);
    EXPECT_EQ(got.a, want.a);
    EXPECT_EQ(got.b, want.b);
  }
}

// MinimalRoutes' rule from its definition, with dense all-pairs tables: r0 = hops over non-global
// links, r1 = the fewest hops with at most one global link (r0, or r0 to a global link's end + 1 +
// r0 from its other end); a local port continues with r1, a global one with r0. The routes computed
// from the groups (routing::GroupRoutes), which the routers take instead of the table when
// MinimalRoutes keeps them, must give the same for every pair; `computed` says whether they are kept.
void expect_group_minimal_routes(const topo::Topology& t, bool computed) {
  const routing::MinimalRoutes routes(t);
  ASSERT_EQ(routes.arithmetic() != nullptr, computed);
  routing::GroupRoutes::Route r;
  const auto n = static_cast<std::size_t>(t.num_switches());
  constexpr std::int32_t inf = 1 << 20;
  std::vector<std::int32_t> r0(n * n, inf), r1;
  topo::Bfs bfs(static_cast<std::int32_t>(n));
  for (std::size_t s = 0; s < n; ++s) {
    topo::switch_bfs(t, static_cast<std::int32_t>(s), bfs,
                     [](const topo::Link& l) { return l.kind != topo::LinkKind::Global; });
    for (std::size_t d = 0; d < n; ++d)
      if (bfs.dist()[d] >= 0) r0[s * n + d] = bfs.dist()[d];
  }
  r1 = r0;
  for (const auto& l : t.links)
    if (l.kind == topo::LinkKind::Global)
      for (const auto& [x, y] : {std::pair{l.a, l.b}, std::pair{l.b, l.a}}) {
        const auto xi = static_cast<std::size_t>(t.switch_index(x)), yi = static_cast<std::size_t>(t.switch_index(y));
        for (std::size_t s = 0; s < n; ++s)
          for (std::size_t d = 0; d < n; ++d)
            r1[s * n + d] = std::min(r1[s * n + d], r0[s * n + xi] + 1 + r0[yi * n + d]);
      }
  for (std::size_t s = 0; s < n; ++s)
    for (std::size_t d = 0; d < n; ++d) {
      const auto sn = t.switch_node(static_cast<std::int32_t>(s)), dn = t.switch_node(static_cast<std::int32_t>(d));
      const std::int32_t h = r1[s * n + d];
      ASSERT_EQ(routes.distance(sn, dn), h < inf ? h : -1) << s << " -> " << d;
      std::vector<std::int16_t> want;
      if (s != d && h < inf)
        for (std::size_t p = 0; p < t.ports[sn].size(); ++p) {
          const auto& port = t.ports[sn][p];
          if (t.is_host(port.peer)) continue;
          const auto v = static_cast<std::size_t>(t.switch_index(port.peer));
          const bool global = t.links[port.link].kind == topo::LinkKind::Global;
          if ((global ? r0 : r1)[v * n + d] + 1 == h) want.push_back(static_cast<std::int16_t>(p));
        }
      const auto got = routes.candidates(sn, dn);
      ASSERT_EQ(std::vector<std::int16_t>(got.begin(), got.end()), want) << s << " -> " << d;
      if (computed) {
        ASSERT_TRUE(routes.arithmetic()->route(s, d, r));
        ASSERT_EQ(r.dist, h < inf ? h : -1) << s << " -> " << d;
        ASSERT_EQ(std::vector<std::int16_t>(r.ports, r.ports + r.count), want) << s << " -> " << d;
      }
    }
}

}  // namespace

TEST(RoutingTables, MinHopRuleOnFatTreeDragonflySlimFly) {
  expect_min_hop_tables(fat_tree(1024, 3, 16));
  expect_min_hop_tables(topo::build_dragonfly(topo::DragonflyParams{}));
  expect_min_hop_tables(slim_fly(9, 7));
}

TEST(RoutingTables, PathModelTakesTheBfsTreePath) {
  // The Dragonfly has equal-hop shortest paths with different link kinds (l-g-l vs g-l-g), so the
  // choice among them changes the base RTT and the ideal FCT: it must stay the BFS tree's.
  expect_bfs_paths(topo::build_dragonfly(topo::DragonflyParams{}));
  expect_bfs_paths(slim_fly(5, 3));
  expect_bfs_paths(fat_tree(128, 3, 8));
}

// The base RTT's farthest pair (PathModel::farthest_pair: trees per destination and a bound) is the
// one the loop over every ordered pair finds, value and pair (the first in order among ties, whose
// path also sets the RTO), on uniform networks (many ties) and on ones with random per-link rates and
// latencies (where the bound is loose and the longest trip's pair is not the farthest in hops).
TEST(RoutingTables, FarthestPairAsEveryPairLoop) {
  topo::DragonflyParams df;
  df.p = 2;
  df.a = 4;
  df.h = 2;
  df.g = 5;  // two global links per pair of groups
  const std::vector<topo::Topology> uniform = {fat_tree(128, 3, 8), topo::build_dragonfly(df),
                                               topo::build_dragonfly(topo::DragonflyParams{}), slim_fly(5, 3)};
  Rng rng(7, 1);
  for (const auto& t : uniform) {
    SCOPED_TRACE(t.kind);
    expect_farthest_pair(t, 0);
    expect_farthest_pair(t, ns(300));
    for (int k = 0; k < 3; ++k)
      expect_farthest_pair(copy_topology(
                               t, [](const topo::Link&) { return false; },
                               [&](topo::Link& l) {
                                 l.latency = ns(1 + static_cast<std::int64_t>(rng.next() % 400));
                                 l.rate = gbps(100 * (1 + static_cast<std::int64_t>(rng.next() % 4)));
                               }),
                           ns(100));
  }
  // Two switches with hosts and no link between them: the error of path_links for the first pair.
  topo::Topology split;
  for (int h = 0; h < 4; ++h) split.add_host("h" + std::to_string(h));
  const auto s0 = split.add_switch("s0"), s1 = split.add_switch("s1");
  for (int h = 0; h < 4; ++h) split.connect(h, h < 2 ? s0 : s1, gbps(100), ns(10), topo::LinkKind::HostLink);
  const routing::MinimalTables tables(split);
  const routing::PathModel pm(tables, 0);
  try {
    pm.farthest_pair(std::vector<std::int32_t>{0, 2}, 4160, 64);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), "host 0 cannot reach host 2");
  }
}

// MinimalRoutes (Dragonfly: at most one global hop) against its definition, on Dragonflies whose
// groups are complete and on ones with local links removed (paths inside a group then take several
// hops, before and after the global one).
TEST(RoutingTables, MinimalRoutesOneGlobalHopRule) {
  topo::DragonflyParams df;
  df.p = 1;
  df.a = 6;
  df.h = 2;
  df.g = 5;  // three global links per pair of groups
  const auto t = topo::build_dragonfly(df);
  ASSERT_TRUE(t.minimal_one_global_hop);
  // Complete groups: every route is l-g-l with at most one local hop on either side, so the groups
  // give them (with three global links per pair of groups, up to three candidates each).
  expect_group_minimal_routes(t, true);
  expect_group_minimal_routes(topo::build_dragonfly(topo::DragonflyParams{}), true);
  // Each group a ring (links between switches 1 apart kept) plus a few chords.
  auto local_pos = [&](std::int32_t node) { return t.switch_index(node) % df.a; };
  const auto ring = copy_topology(
      t,
      [&](const topo::Link& l) {
        if (l.kind != topo::LinkKind::Local) return false;
        const int gap = std::abs(local_pos(l.a) - local_pos(l.b));
        return gap != 1 && gap != df.a - 1 && !(gap == 3 && t.nodes[l.a].group % 2 == 0);
      },
      [](topo::Link&) {});
  // Switches of a group two local hops apart: not what the groups' one-hop rule gives, so the
  // routers keep the table.
  expect_group_minimal_routes(ring, false);
}

// A 16,384-host 3-tier fat tree (k = 64: 16 pods of 32 ToRs and 32 aggregation switches, 1,024
// cores; 2,048 switches, 4,194,304 ordered switch pairs).
TEST(RoutingTables, FatTree16kWithinByteBudget) {
  const auto t = fat_tree(16384, 3, 64);
  ASSERT_EQ(t.num_switches(), 2048);
  const routing::MinimalTables tables(t);
  const double nsw = 2048, pairs = nsw * nsw, k = 64;
  // Budget from first principles. Per switch and run of 32 destination switches: a 32-bit run id
  // (1/8 B per ordered pair); the distinct runs of 32 16-bit set indices (64 B each): a switch's runs
  // that do not hold its own pod's switches are those of every switch of its tier and pod position
  // (numbered alike), so at most one run per switch is its own: at most nsw runs. Per switch: its
  // first-set offset (4 B) and its distinct (distance, ports) sets, 8 B each plus 2 B per port. In
  // a fat tree the candidates towards a destination are either all up-ports (k/2 of them, at most
  // one set per distance 1..4) or one port; a single port is identified by (port, distance) with
  // k ports and distances 1..4, but a down-port leads to one subtree, so it appears with at most
  // 4 distances and an up-port alone only towards the cores above it (one distance). Bound:
  // 4 all-up sets + 4k single-port sets + the empty set (self) per switch.
  const double sets_per_switch = 4 + 4 * k + 1;
  const double set_bytes = sets_per_switch * 8 + (4 * (k / 2) + 4 * k) * 2;
  const double host_ports = 16384 * 2;
  const double budget = pairs / 8 + nsw * 64 + nsw * (4 + set_bytes) + host_ports;  // = 0.5 + 0.125 + 5.6 MiB + 32 KiB
  EXPECT_LE(static_cast<double>(tables.distinct_runs()), nsw);
  EXPECT_LE(static_cast<double>(tables.bytes()), budget);
  // The whole tables take less than a third of what one 16-bit index per pair (the layout until
  // 2026-11-30) took alone (8 MiB).
  EXPECT_LT(3 * static_cast<double>(tables.bytes()), pairs * 2) << tables.bytes() << " B";
  // The old layout (int32 distance + uint32 offset per pair, and every pair's ports in one array:
  // the same ports, counted here from the new tables) does not fit the budget.
  double old_ports = 0;
  for (std::int32_t s = 0; s < t.num_switches(); ++s)
    for (std::int32_t d = 0; d < t.num_switches(); ++d)
      old_ports += static_cast<double>(tables.candidates(t.switch_node(s), t.switch_node(d)).size());
  const double old_layout = pairs * (4 + 4) + old_ports * 2;
  EXPECT_GT(old_layout, 10 * budget) << "old layout " << old_layout << " B, budget " << budget << " B, new "
                                     << tables.bytes() << " B";
  // Every pair still has its candidates: a ToR reaches a ToR of another pod over all k/2 up-ports.
  const auto tor0 = t.host_switch(0), far_tor = t.host_switch(16383);
  EXPECT_EQ(tables.distance(tor0, far_tor), 4);
  EXPECT_EQ(tables.candidates(tor0, far_tor).size(), 32u);
}

// MinimalRoutes (Dragonfly one-global-hop rule) uses the same compact layout: linear-size budget.
TEST(RoutingTables, MinimalRoutesDeduplicateSets) {
  const auto t = topo::build_dragonfly(topo::DragonflyParams{});  // 264 switches, degree 7 + 4 global
  const routing::MinimalRoutes routes(t);
  const double nsw = t.num_switches();
  // At most one set per destination, and far fewer distinct ones per switch: l-g-l routing gives
  // per switch one set per (global or local port, distance <= 3) at most.
  EXPECT_LE(static_cast<double>(routes.distinct_sets()), nsw * 11 * 3 + nsw);
  // The runs of 32 destinations (tables.h): a 4-byte id per (switch, run) and at worst every run
  // distinct (64 B each).
  const double runs = nsw * std::ceil(nsw / 32);
  EXPECT_LE(static_cast<double>(routes.bytes()), runs * (4 + 64) + nsw * (4 + (11 * 3 + 1) * (8 + 2 * 2)));
  EXPECT_LE(static_cast<double>(routes.distinct_runs()), runs);
}

// Source-guided ECMP tables are built per switch pair on first use, not for all pairs up front.
TEST(RoutingTables, SourceGuidedTablesBuiltPerPairInUse) {
  const auto t = slim_fly(5, 3);  // 50 switches, diameter 2
  const routing::MinimalTables min(t);
  const routing::SourceGuidedTables sg(min, /*coarse=*/true);
  EXPECT_EQ(sg.built_pairs(), 0u);
  const std::int32_t a = t.switch_node(0), b = t.switch_node(7);
  const auto paths = sg.entries(a, b);
  EXPECT_FALSE(paths.empty());
  EXPECT_EQ(sg.built_pairs(), 1u);  // only (a, b): the walk's ECMP 2 lookups are in the same pair
  // Every entry's walk ends at b and its EV replays the same hops (the tables did not change).
  for (const auto& p : paths) {
    EXPECT_EQ(sg.walk(a, b, p.ev), p.hops);
    EXPECT_EQ(t.ports[p.hops.back().node][p.hops.back().port].peer, b);
  }
  EXPECT_EQ(sg.entries(a, b).size(), paths.size());
  EXPECT_EQ(sg.built_pairs(), 1u);
  // Per switch pair only the default port (2 B); the one pair built adds its index entries (16 of 16
  // B: the smallest table) and its ECMP tables, fine and per category (a record of 8 B per table, a
  // first hop of 2 B, its second hops of 2 B and offset of 4 B; at most one (h1, h2) per path),
  // vectors grown by doubling. The 32-bit slot per pair and table it replaced took 12 B per pair.
  const std::size_t nsw = static_cast<std::size_t>(t.num_switches());
  EXPECT_LE(sg.table_bytes(), nsw * nsw * 2 + 16 * 16 + 2 * 3 * (8 + 4 + paths.size() * (2 + 2 + 4)));
}

// The non-minimal routers' bounded paths (routing/bounded_paths.h) hold nothing for a switch pair no
// packet has started from: before any use no byte at all (the dense per-pair record took 20 B per
// ordered switch pair, 1.4 MB on this 264-switch Dragonfly), after a few pairs only those pairs'
// index entries, records and paths. A pair's paths do not depend on when it was first used.
TEST(RoutingTables, BoundedPathsHeldPerPairInUse) {
  const auto t = topo::build_dragonfly(topo::DragonflyParams{});  // 33 groups of 8 switches
  const routing::MinimalRoutes routes(t);
  routing::BoundedPathSet fwd(t, routes), rev(t, routes);
  EXPECT_EQ(fwd.bytes(), 0u);
  std::vector<std::pair<std::int32_t, std::int32_t>> used;
  for (std::int32_t i = 0; i < 10; ++i) used.emplace_back(t.switch_node(i), t.switch_node(263 - 5 * i));
  used.emplace_back(t.switch_node(3), t.switch_node(5));  // inside a group
  std::size_t paths = 0;
  for (const auto& [a, b] : used) paths += fwd.pair(a, b).count;
  EXPECT_EQ(fwd.built_pairs(), used.size());
  EXPECT_EQ(paths, 10u * 32 + 7);  // 32 paths between groups, 7 inside (docs/topologies.md)
  // Per pair in use: an index entry (16 B, the index at most half full: at most 4x the pairs in use,
  // at least 16 entries) and a 16-byte record (a vector grown by doubling: at most twice that); per
  // path a length byte, a 2-byte non-minimal index and its output ports, one byte each (these
  // switches have 15 ports) for the 5 hops a Dragonfly bounded path may have (3 local + 2 global),
  // in arrays of 4,096-element chunks (core::ChunkedArray: at most one chunk partly filled each).
  const auto chunked = [](std::size_t n, std::size_t elem) { return (n + 4095) / 4096 * 4096 * elem + 64; };
  const std::size_t budget = std::max<std::size_t>(16, 4 * used.size()) * 16 + 2 * used.size() * 16 +
                             chunked(paths, 1) + chunked(paths, 2) + chunked(paths * 5, 1);
  EXPECT_LE(fwd.bytes(), budget);
  EXPECT_LT(10 * budget, static_cast<std::size_t>(t.num_switches()) * t.num_switches() * 20);  // the dense record's
  // The same pairs first used in the opposite order hold the same paths.
  for (auto it = used.rbegin(); it != used.rend(); ++it) rev.pair(it->first, it->second);
  for (const auto& [a, b] : used) {
    const auto x = fwd.pair(a, b), y = rev.pair(a, b);
    ASSERT_EQ(x.count, y.count);
    ASSERT_EQ(x.nonmin_count, y.nonmin_count);
    for (std::uint32_t i = 0; i < x.count; ++i) {
      ASSERT_EQ(fwd.length(x.first + i), rev.length(y.first + i));
      ASSERT_EQ(fwd.minimal(x.first + i), rev.minimal(y.first + i));
      for (std::int32_t k = 0; k < fwd.length(x.first + i); ++k)
        ASSERT_EQ(fwd.port(x.first + i, k), rev.port(y.first + i, k));
    }
  }
  EXPECT_EQ(fwd.built_pairs(), used.size());  // looked up again: nothing enumerated twice
}
