// Bounded simple path enumeration: Table I of [Spritz] (sec. III-C), path counts, rules.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include <gtest/gtest.h>

#include "core/error.h"
#include "topo/dragonfly.h"
#include "topo/paths.h"
#include "topo/slim_fly.h"

using namespace lbsim;
using namespace lbsim::topo;

namespace {

using Type = std::tuple<int, int, SimTime>;  // (local, global, latency ps)

// Every (local, global, latency) occurring between any two distinct switches.
std::set<Type> all_types(const PathEnumerator& pe) {
  const Topology& t = pe.topology();
  std::set<Type> out;
  for (int s = 0; s < t.num_switches(); ++s)
    for (int d = 0; d < t.num_switches(); ++d) {
      if (s == d) continue;
      pe.for_each_path(t.switch_node(s), t.switch_node(d), [&](const PathView& v) {
        out.insert({v.local, v.global, v.latency});
      });
    }
  return out;
}

// A path is a walk over existing ports, simple, from s to d, and matches its class counters.
void check_path(const Topology& t, const Path& p, int s, int d) {
  std::set<int> seen{s};
  int at = s, local = 0, global = 0;
  for (const auto& h : p.hops) {
    ASSERT_EQ(h.node, at);
    const auto& port = t.ports[h.node][h.port];
    ASSERT_FALSE(t.is_host(port.peer));
    (t.links[port.link].kind == LinkKind::Global ? global : local)++;
    at = port.peer;
    EXPECT_TRUE(seen.insert(at).second) << "not simple";
  }
  EXPECT_EQ(at, d);
  EXPECT_EQ(p.local, local);
  EXPECT_EQ(p.global, global);
}

}  // namespace

TEST(Paths, HopLatencyFromFirstPrinciples) {
  // 4160 B at 400 Gb/s = 4160 * 8 / 400e9 s = 83.2 ns, plus 25 ns (local) or 500 ns (global).
  Topology t = build_dragonfly(DragonflyParams{});
  PathEnumerator pe(t);
  Link local, global;
  local.rate = global.rate = gbps(400);
  local.latency = ns(25);
  global.latency = ns(500);
  EXPECT_EQ(pe.hop_latency(local), 108'200);
  EXPECT_EQ(pe.hop_latency(global), 583'200);
}

TEST(Paths, TableIDragonfly) {
  Topology t = build_dragonfly(DragonflyParams{});  // [Spritz] Table II parameters
  PathEnumerator pe(t);
  EXPECT_EQ(pe.rule(), PathRule::Dragonfly);
  // [Spritz] Table I, Dragonfly column (ns -> ps).
  std::set<Type> expect = {
      {1, 0, 108'200},   {2, 0, 216'400},   {0, 1, 583'200},   {1, 1, 691'400},   {2, 1, 799'600},
      {0, 2, 1'166'400}, {1, 2, 1'274'600}, {2, 2, 1'382'800}, {3, 2, 1'491'000},
  };
  EXPECT_EQ(all_types(pe), expect);
}

TEST(Paths, TableISlimFly) {
  SlimFlyParams sp;
  sp.q = 9;  // [Spritz] Table II: q = 9, p = 7 -> 162 switches, 1134 endpoints
  Topology t = build_slim_fly(sp);
  ASSERT_EQ(t.num_switches(), 162);
  ASSERT_EQ(t.num_hosts, 1134);
  PathEnumerator pe(t);
  EXPECT_EQ(pe.rule(), PathRule::Valiant);
  EXPECT_EQ(pe.max_hops(), 4);
  // [Spritz] Table I, Slim Fly column.
  std::set<Type> expect = {
      {1, 0, 108'200},   {2, 0, 216'400},   {0, 1, 583'200},   {1, 1, 691'400},   {0, 2, 1'166'400},
      {3, 0, 324'600},   {4, 0, 432'800},   {2, 1, 799'600},   {3, 1, 907'800},   {1, 2, 1'274'600},
      {2, 2, 1'382'800}, {0, 3, 1'749'600}, {1, 3, 1'857'800}, {0, 4, 2'332'800},
  };
  EXPECT_EQ(all_types(pe), expect);
}

TEST(Paths, DragonflyPairCounts) {
  Topology t = build_dragonfly(DragonflyParams{});  // a = 8, h = 4, g = 33, one link per group pair
  PathEnumerator pe(t);
  const int a = 8;
  auto sw = [&](int grp, int s) { return t.switch_node(grp * a + s); };
  // Same group: the direct link + one detour through each of the other a-2 switches.
  EXPECT_EQ(pe.count(sw(0, 0), sw(0, 1)), 1 + (a - 2));
  // Different groups: 1 minimal path (one global link) + one per intermediate group (g-2).
  EXPECT_EQ(pe.count(sw(0, 3), sw(7, 5)), 1 + 31);
  EXPECT_EQ(pe.count(sw(4, 4), sw(4, 4)), 1);
  auto ps = pe.paths(sw(0, 3), sw(7, 5));
  ASSERT_EQ(ps.size(), 32u);
  int minimal = 0;
  for (const auto& p : ps) {
    check_path(t, p, sw(0, 3), sw(7, 5));
    minimal += p.global == 1;
    EXPECT_LE(p.local, 3);
    EXPECT_LE(p.global, 2);
  }
  EXPECT_EQ(minimal, 1);
  for (std::size_t i = 1; i < ps.size(); ++i) EXPECT_LE(ps[i - 1].latency, ps[i].latency);
  // g0s0 holds slot 0 -> group 1, and group 1's slot for group 0 is on its switch 0 (consecutive
  // arrangement): the best path is the single global hop leaving port p + a - 1 = 11.
  auto direct = pe.paths(sw(0, 0), sw(1, 0));
  ASSERT_FALSE(direct.empty());
  EXPECT_EQ(direct[0].hops, (std::vector<Hop>{{sw(0, 0), 11}}));
  EXPECT_EQ(direct[0].latency, 583'200);
  // counts_from agrees with count for every destination.
  auto c = pe.counts_from(sw(2, 6));
  for (int d = 0; d < t.num_switches(); ++d) ASSERT_EQ(c[d], pe.count(sw(2, 6), t.switch_node(d)));
}

TEST(Paths, DragonflyMinimalPathsBetweenGroups) {
  // [Flowcut] sec. III-B system: 16 global links between every two groups. Every switch pair of
  // two groups has 16 minimal paths (one per global link, at most one local hop on either side) and
  // 16 * 16 non-minimal paths through each of the 2 other groups.
  DragonflyParams prm;
  prm.p = 16;
  prm.a = 16;
  prm.h = 3;
  prm.g = 4;
  Topology t = build_dragonfly(prm);
  PathEnumerator pe(t);
  std::int64_t minimal_between_groups = 0;
  for (int s = 0; s < 16; ++s)
    for (int d = 16; d < 32; ++d)
      pe.for_each_path(t.switch_node(s), t.switch_node(d),
                       [&](const PathView& v) { minimal_between_groups += v.global == 1; });
  EXPECT_EQ(minimal_between_groups, 16 * 16 * 16);
  EXPECT_EQ(pe.count(t.switch_node(0), t.switch_node(20)), 16 + 2 * 16 * 16);
  EXPECT_EQ(pe.count(t.switch_node(0), t.switch_node(5)), 1 + 14);
}

TEST(Paths, LapsCandidatePaths) {
  // [LAPS] sec. 4.1: 9 groups, 36 switches: "three and eight candidate paths for intra-group and
  // inter-group communication".
  DragonflyParams prm;
  prm.a = 4;
  prm.h = 2;
  Topology t = build_dragonfly(prm);
  PathEnumerator pe(t);
  for (int s = 0; s < t.num_switches(); ++s)
    for (int d = 0; d < t.num_switches(); ++d) {
      if (s == d) continue;
      const bool same = s / 4 == d / 4;
      ASSERT_EQ(pe.count(t.switch_node(s), t.switch_node(d)), same ? 3 : 8) << s << " " << d;
    }
}

namespace {
// Brute force: every simple switch path s -> d of at most max_hops hops (switch nodes), in the order
// of a depth-first search over ports in port order, that satisfies the rule: "simple" all of them,
// "valiant" those that some node on them splits into a shortest path s -> x and a shortest path
// x -> d (tries every split explicitly). dist: switch_distances(t), by switch index.
std::vector<std::vector<Hop>> brute_paths(const Topology& t, const std::vector<std::vector<int>>& dist, int s, int d,
                                          int max_hops, bool valiant) {
  const auto di = [&](int a, int b) { return dist[t.switch_index(a)][t.switch_index(b)]; };
  std::vector<std::vector<Hop>> out;
  std::vector<Hop> path;
  std::vector<int> nodes{s};
  auto rec = [&](auto&& self, int u) -> void {
    if (u == d) {
      const int n = static_cast<int>(path.size());
      bool ok = !valiant;
      for (int j = 0; j <= n && !ok; ++j) ok = di(s, nodes[j]) == j && di(nodes[j], d) == n - j;
      if (ok) out.push_back(path);
      return;
    }
    if (static_cast<int>(path.size()) == max_hops) return;
    const auto& ports = t.ports[u];
    for (int pi = 0; pi < static_cast<int>(ports.size()); ++pi) {
      const int v = ports[pi].peer;
      if (t.is_host(v) || std::find(nodes.begin(), nodes.end(), v) != nodes.end()) continue;
      path.push_back(Hop{u, pi});
      nodes.push_back(v);
      self(self, v);
      path.pop_back();
      nodes.pop_back();
    }
  };
  rec(rec, s);
  return out;
}
}  // namespace

TEST(Paths, SlimFlyValiantMatchesBruteForce) {
  SlimFlyParams sp;
  sp.q = 9;
  Topology t = build_slim_fly(sp);
  PathEnumerator pe(t);
  auto dist = switch_distances(t);
  for (int s : {0, 57, 161}) {
    auto c = pe.counts_from(t.switch_node(s));
    for (int d = 0; d < t.num_switches(); d += 7) {
      if (d == s) continue;
      const auto bf =
          static_cast<std::int64_t>(brute_paths(t, dist, t.switch_node(s), t.switch_node(d), 4, true).size());
      ASSERT_EQ(pe.count(t.switch_node(s), t.switch_node(d)), bf) << s << "->" << d;
      ASSERT_EQ(c[d], bf);
    }
  }
  auto ps = pe.paths(t.switch_node(0), t.switch_node(100));
  for (const auto& p : ps) {
    check_path(t, p, t.switch_node(0), t.switch_node(100));
    EXPECT_LE(p.hops.size(), 4u);
  }
}

TEST(Paths, HoffmanSingletonCounts) {
  // q = 5 gives the Hoffman-Singleton graph (Moore graph: degree 7, diameter 2, girth 5, adjacent
  // switches share no neighbour, non-adjacent ones exactly one). By hand:
  //   adjacent s,d:     1 direct; no 2- or 3-hop path (they would close a 3- or 4-cycle); 4 hops
  //                     s-a-x-b-d for each a in N(s)-d, b in N(d)-s (a, b non-adjacent, x their
  //                     unique common neighbour): 6 * 6 = 36                      -> 37
  //   non-adjacent s,d: 1 two-hop via the common neighbour c; 3 hops s-a-b-d: for each of the 6
  //                     a in N(s)-c, b = the unique common neighbour of a and d  -> 6; the rest are
  //                     4-hop (30, from the brute force), also 37 in total.
  SlimFlyParams sp;
  sp.q = 5;
  Topology t = build_slim_fly(sp);
  PathEnumerator pe(t);
  auto dist = switch_distances(t);
  auto c = pe.counts_from(t.switch_node(0));
  for (int d = 1; d < t.num_switches(); ++d) {
    EXPECT_EQ(c[d], 37);
    EXPECT_EQ(brute_paths(t, dist, t.switch_node(0), t.switch_node(d), 4, true).size(), 37u);
    std::map<std::size_t, int> by_len;
    for (const auto& p : pe.paths(t.switch_node(0), t.switch_node(d))) by_len[p.hops.size()]++;
    if (dist[0][d] == 1) {
      EXPECT_EQ(by_len, (std::map<std::size_t, int>{{1, 1}, {4, 36}}));
    } else {
      EXPECT_EQ(by_len, (std::map<std::size_t, int>{{2, 1}, {3, 6}, {4, 30}}));
    }
  }
}

TEST(Paths, SlimFlyFig3Scale) {
  // q = 29: 1682 switches, p = 22 -> 37004 endpoints, the largest Slim Fly under 40k endpoints of
  // [Spritz] Fig. 3. Our independent brute force (a Python script over the same MMS graph) gives
  // from switch (0,0,0): 1765 paths to 841 switches, 1771 to 812, 1777 to 14, 1807 to 14 (the paper
  // quotes 1771 as the maximum; see docs/topologies.md).
  SlimFlyParams sp;
  sp.q = 29;
  Topology t = build_slim_fly(sp);
  PathEnumerator pe(t);
  auto c = pe.counts_from(t.switch_node(0));
  std::map<std::int64_t, int> hist;
  for (int d = 1; d < t.num_switches(); ++d) hist[c[d]]++;
  EXPECT_EQ(hist, (std::map<std::int64_t, int>{{1765, 841}, {1771, 812}, {1777, 14}, {1807, 14}}));
  EXPECT_EQ(endpoint_table_bytes(1682, 1771), 8'936'466);  // 8.52 MiB, Fig. 3 "8.5 MiB"
}

TEST(Paths, GenericSimpleRule) {
  // Square 0-1-2-3-0 with the chord 0-2 (no hosts needed). Diameter 1+... = 2 (1-3 via 0 or 2).
  Topology t;
  t.kind = "custom";
  for (int i = 0; i < 4; ++i) t.add_switch("s" + std::to_string(i));
  for (auto [a, b] : {std::pair{0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 2}})
    t.connect(a, b, gbps(100), ns(10), LinkKind::Local);
  PathEnumerator pe(t);
  EXPECT_EQ(pe.rule(), PathRule::Simple);
  EXPECT_EQ(pe.max_hops(), 2);
  // 0 -> 2: direct, via 1, via 3.  1 -> 3: via 0, via 2 (3 hops 1-0-2-3 exceeds the bound).
  EXPECT_EQ(pe.count(0, 2), 3);
  EXPECT_EQ(pe.count(1, 3), 2);
  PathOptions opt;
  opt.max_hops = 3;
  PathEnumerator pe3(t, opt);
  EXPECT_EQ(pe3.count(1, 3), 4);  // + 1-0-2-3 and 1-2-0-3
  EXPECT_EQ(pe3.counts_from(1)[3], 4);
  // Latency at 100 Gb/s: 10 ns + 4160*8/100e9 s = 10 + 332.8 ns per hop.
  auto ps = pe.paths(0, 2);
  EXPECT_EQ(ps[0].latency, 342'800);
  EXPECT_EQ(ps[1].latency, 2 * 342'800);
  opt.rate = gbps(400);
  opt.max_hops = -1;
  EXPECT_EQ(PathEnumerator(t, opt).paths(0, 2)[0].latency, 10'000 + 83'200);
}

TEST(Paths, EndpointTable) {
  Topology t = build_dragonfly(DragonflyParams{});
  PathEnumerator pe(t);
  auto table = endpoint_table(pe, t.switch_node(9));
  ASSERT_EQ(table.size(), 264u);
  std::int64_t entries = 0;
  for (int d = 0; d < 264; ++d) {
    EXPECT_EQ(static_cast<std::int64_t>(table[d].size()), pe.count(t.switch_node(9), t.switch_node(d)));
    for (std::size_t i = 1; i < table[d].size(); ++i) EXPECT_LE(table[d][i - 1].latency, table[d][i].latency);
    entries += static_cast<std::int64_t>(table[d].size());
  }
  // 1 (own switch) + 7 same-group destinations x 7 paths + 256 other-group destinations x 32 paths.
  EXPECT_EQ(entries, 1 + 7 * 7 + 256 * 32);
  EXPECT_EQ(endpoint_table_bytes(264, 32), 264 * 32 * 3);
}

TEST(Paths, Errors) {
  Topology t = build_dragonfly(DragonflyParams{});
  PathOptions opt;
  opt.rule = "bogus";
  EXPECT_THROW(PathEnumerator(t, opt), UserError);
  PathEnumerator pe(t);
  EXPECT_THROW(pe.count(0, t.switch_node(0)), UserError);  // node 0 is a host
  EXPECT_THROW(pe.paths(t.switch_node(0), t.size()), UserError);
}

TEST(Paths, SummarizeTypes) {
  Topology t = build_dragonfly(DragonflyParams{});
  PathEnumerator pe(t);
  auto s = summarize_path_types(pe.paths(t.switch_node(0), t.switch_node(8 * 7 + 5)));
  std::int64_t total = 0;
  for (const auto& r : s) {
    total += r.count;
    EXPECT_EQ(r.latency, r.local * 108'200 + r.global * 583'200);
  }
  EXPECT_EQ(total, 32);
  for (std::size_t i = 1; i < s.size(); ++i) EXPECT_LE(s[i - 1].latency, s[i].latency);
}

TEST(Paths, EveryPairOfTheTableIINetworks) {
  // Table II Dragonfly (33 groups of 8 switches): 32 bounded paths between switches of different
  // groups, 7 inside a group (the direct link + one detour through each of the other 6 switches),
  // and the empty path for s == d (docs/topologies.md derives the 32 and the 7).
  Topology df = build_dragonfly(DragonflyParams{});
  PathEnumerator pe_df(df);
  std::int64_t n = 0;
  for (int s = 0; s < df.num_switches(); ++s)
    for (int d = 0; d < df.num_switches(); ++d)
      n += static_cast<std::int64_t>(pe_df.paths(df.switch_node(s), df.switch_node(d)).size());
  EXPECT_EQ(n, 264LL * 256 * 32 + 264LL * 7 * 7 + 264);
  // Table II Slim Fly (q = 9): diameter 2, so every ordered pair has at least one path, and each
  // path has at most 4 hops (Table I).
  SlimFlyParams sp;
  sp.q = 9;
  Topology sf = build_slim_fly(sp);
  PathEnumerator pe_sf(sf);
  for (int s = 0; s < sf.num_switches(); s += 7)
    for (int d = 0; d < sf.num_switches(); ++d) {
      if (s == d) continue;
      const auto ps = pe_sf.paths(sf.switch_node(s), sf.switch_node(d));
      ASSERT_FALSE(ps.empty());
      for (const auto& p : ps) ASSERT_LE(p.hops.size(), 4u);
    }
}

namespace {

void expect_brute_order(const Topology& t, const PathOptions& opt, bool valiant) {
  const PathEnumerator pe(t, opt);
  const auto dist = switch_distances(t);
  for (int s = 0; s < t.num_switches(); ++s)
    for (int d = 0; d < t.num_switches(); ++d) {
      if (s == d) continue;
      const int a = t.switch_node(s), b = t.switch_node(d);
      std::vector<std::vector<Hop>> got;
      pe.for_each_path(a, b, [&](const PathView& v) { got.emplace_back(v.hops, v.hops + v.length); });
      const auto want = brute_paths(t, dist, a, b, pe.max_hops(), valiant);
      ASSERT_EQ(got.size(), want.size()) << opt.rule << " max_hops " << pe.max_hops() << " " << s << "->" << d;
      for (std::size_t i = 0; i < got.size(); ++i)
        for (std::size_t h = 0; h < got[i].size(); ++h) {
          ASSERT_EQ(got[i][h].node, want[i][h].node) << s << "->" << d << " path " << i;
          ASSERT_EQ(got[i][h].port, want[i][h].port) << s << "->" << d << " path " << i;
        }
      EXPECT_EQ(pe.count(a, b), static_cast<std::int64_t>(want.size()));
    }
}

// A ring of 8 with one chord (diameter 4, so a minimal remainder can be several hops long) and
// parallel links (0-1 doubled, 3-4 tripled: the last hop's several-ports branch).
Topology ring_with_chord() {
  Topology t;
  t.kind = "custom";
  for (int i = 0; i < 8; ++i) t.add_switch("s" + std::to_string(i));
  for (auto [a, b] :
       {std::pair{0, 1}, {1, 0}, {1, 2}, {2, 3}, {3, 4}, {4, 3}, {4, 3}, {4, 5}, {5, 6}, {6, 7}, {7, 0}, {2, 6}})
    t.connect(a, b, gbps(100), ns(10), LinkKind::Local);
  return t;
}

}  // namespace

TEST(Paths, DepthFirstSearchAsEverySimplePathFiltered) {
  // The pruned search (distance bounds, only the ports to d on the last hop) gives the same paths in
  // the same order as trying every simple path and keeping those the rule allows, on the ring with a
  // chord and parallel links.
  const Topology t = ring_with_chord();
  for (const char* rule : {"simple", "valiant"})
    for (int max_hops : {-1, 2, 3, 4, 5, 7}) {
      PathOptions opt;
      opt.rule = rule;
      opt.max_hops = max_hops;
      expect_brute_order(t, opt, std::string(rule) == "valiant");
    }
  // A Slim Fly (no parallel links; diameter 2, Valiant paths up to 4 hops).
  SlimFlyParams sp;
  sp.q = 5;
  expect_brute_order(build_slim_fly(sp), PathOptions{}, true);
}

TEST(Paths, PrunedSearchVisitsEveryPrefixOnce) {
  // for_each_path(..., prune = n) may skip paths whose first n hops it has already visited, and must
  // still visit every distinct prefix of n hops (what SourceGuidedTables reads: the first two hops).
  // Ring of 8 with a chord and parallel links, every rule and bound; then a Slim Fly (q = 5).
  const Topology ring = ring_with_chord();
  SlimFlyParams sp;
  sp.q = 5;
  const Topology sf = build_slim_fly(sp);
  using Prefix = std::vector<std::pair<int, int>>;
  using Counts = std::array<std::int64_t, 4>;  // visits per prune depth (index 1..3)
  auto check = [](const Topology& t, const PathOptions& opt, Counts& all, Counts& pruned) {
    const PathEnumerator pe(t, opt);
    for (int s = 0; s < t.num_switches(); ++s)
      for (int d = 0; d < t.num_switches(); ++d) {
        if (s == d) continue;
        for (int n : {1, 2, 3}) {
          std::set<Prefix> want, got;
          auto into = [&](std::set<Prefix>& out, std::int64_t& count) {
            return [&, n](const PathView& v) {
              Prefix p;
              for (int i = 0; i < std::min<int>(v.length, n); ++i) p.emplace_back(v.hops[i].node, v.hops[i].port);
              out.insert(p);
              ++count;
            };
          };
          std::int64_t a = 0, b = 0;
          pe.for_each_path(t.switch_node(s), t.switch_node(d), into(want, a), false);
          pe.for_each_path(t.switch_node(s), t.switch_node(d), into(got, b), false, n);
          ASSERT_EQ(got, want) << s << "->" << d << " prune " << n;
          ASSERT_LE(b, a);
          all[n] += a;
          pruned[n] += b;
        }
      }
  };
  Counts all{}, pruned{};
  for (const char* rule : {"simple", "valiant"})
    for (int max_hops : {-1, 2, 3, 4, 5, 7}) {
      PathOptions opt;
      opt.rule = rule;
      opt.max_hops = max_hops;
      check(ring, opt, all, pruned);
    }
  Counts sf_all{}, sf_pruned{};
  check(sf, PathOptions{}, sf_all, sf_pruned);
  // The pruning does skip paths where a prefix has several completions (the ring). In a Slim Fly
  // almost every two-hop prefix has one, so what the pruning saves there is the search for more.
  for (int n : {1, 2, 3}) EXPECT_LT(pruned[n], all[n]) << "ring, prune " << n;
  EXPECT_LT(sf_pruned[1], sf_all[1]);
}
