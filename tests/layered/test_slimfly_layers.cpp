// Layered routing on the Slim Fly of the deployment paper (q = 5, Hoffman-Singleton graph,
// [SlimFly] sec. 3.2) and on q = 7.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "analysis/deadlock.h"
#include "core/error.h"
#include "routing/layered.h"
#include "analysis/pathstats.h"
#include "topo/slim_fly.h"

namespace lbsim::analysis {
using namespace routing;  // the layered-routing types and functions (routing/layered.h)
namespace {

TEST(SlimFlyLayers, Q5LayeredPathsAreMinimalOrThreeHops) {
  auto g = topo::build_mms_graph(5);
  LayerOptions o;
  o.layers = 8;
  o.seed = 3;
  auto r = build_layers(g.adj, o);
  ASSERT_EQ(validate_layers(r), "");
  // Layer 0 is minimal: diameter 2, so every layer-0 route has 1 or 2 hops and equals the distance.
  for (int s = 0; s < 50; ++s)
    for (int d = 0; d < 50; ++d) {
      if (s == d) continue;
      ASSERT_EQ(r.hops(0, s, d), r.distance(s, d));
    }
  auto st = compute_path_stats(r);
  // Hoffman-Singleton has girth 5: no 2-hop detour exists for adjacent switches, so every
  // non-minimal route is one of find_path's exact 3-hop paths (App. B.1.1).
  EXPECT_EQ(st.non_minimal_not_3, 0);
  EXPECT_EQ(st.max_length, 3);
  // Fig. 8 / sec. 6.5: ~88.5 % of pairs with >= 3 disjoint paths at 8 layers in the paper. Adjacent
  // pairs (7*50 = 350 of 2450 = 14.3 %) cannot get a 3-hop path in a girth-5 graph, which caps the
  // share at 85.7 % for exact-3-hop paths; we require at least 80 %.
  EXPECT_GT(st.share_at_least_3_disjoint, 0.80);
  EXPECT_EQ(st.disjoint_hist.at(1), 350);
}

// --detours shortest: an adjacent pair of the girth-5 Hoffman-Singleton graph has no 2- or 3-hop
// alternative (that would close a triangle or a 4-cycle), so its almost-minimal paths take 4 hops,
// the shortest detour that exists (5-cycles). Fig. 8 / sec. 6.5 of [SlimFly]: ~60 % of the pairs
// with >= 3 disjoint paths at 4 layers, ~100 % at 16; exact 3-hop paths cap the share at 85.7 %.
// Routes of the non-minimal layers of a q = 5 layering by length: 3 hops, and 4 hops for adjacent
// / other pairs; `longest` is the longest route seen.
struct Q5RouteLengths {
  long three = 0, adjacent_four = 0, other_four = 0;
  int longest = 0;
};
Q5RouteLengths q5_route_lengths(const RoutingLayers& r) {
  Q5RouteLengths c;
  for (int l = 1; l < r.num_layers(); ++l)
    for (int s = 0; s < 50; ++s)
      for (int d = 0; d < 50; ++d) {
        if (s == d) continue;
        const int h = r.hops(l, s, d);
        c.longest = std::max(c.longest, h);
        if (h == 3) ++c.three;
        if (h == 4) ++(r.distance(s, d) == 1 ? c.adjacent_four : c.other_four);
      }
  return c;
}

TEST(SlimFlyLayers, Q5ShortestDetoursGiveAdjacentPairsFourHopPaths) {
  auto g = topo::build_mms_graph(5);
  LayerOptions o;
  o.layers = 16;
  o.detours = Detours::Shortest;
  auto r = build_layers(g.adj, o);
  ASSERT_EQ(validate_layers(r), "");
  const auto len = q5_route_lengths(r);
  EXPECT_LE(len.longest, 4);
  // Only adjacent pairs get 4 hops: a 2-hop pair's almost-minimal path has 3.
  EXPECT_GT(len.adjacent_four, 0);
  EXPECT_EQ(len.other_four, 0);
  const auto at4 = compute_path_stats(r, 4), at16 = compute_path_stats(r, 16);
  EXPECT_GT(at4.share_at_least_3_disjoint, 0.58);
  EXPECT_LT(at4.share_at_least_3_disjoint, 0.65);
  EXPECT_GT(at16.share_at_least_3_disjoint, 0.995);  // every adjacent pair now has 3 disjoint paths
  EXPECT_EQ(at16.max_length, 4);
  // The 4-hop routes rule out the three-lane scheme (sec. 5.2 needs <= 3 hops); DFSSSP lanes work.
  const auto routes = collect_routes(r);
  EXPECT_THROW(assign_three_lane(r.adjacency(), routes, 3), UserError);
  EXPECT_TRUE(assign_dfsssp(r.adjacency(), routes, 15).per_lane_acyclic);
  // exact3 (the default) keeps every adjacent pair on its single link: 350 of 2450 ordered pairs.
  o.detours = Detours::Exact3;
  const auto e16 = compute_path_stats(build_layers(g.adj, o), 16);
  EXPECT_EQ(e16.disjoint_hist.at(1), 350);
  EXPECT_LE(e16.share_at_least_3_disjoint, 2100.0 / 2450.0);
  EXPECT_EQ(parse_detours("shortest"), Detours::Shortest);
  EXPECT_EQ(parse_detours("range"), Detours::Range);
  EXPECT_THROW(parse_detours("longest"), UserError);
}

// Detours::Range (App. B.1.1: "a range of valid lengths"): 3- and 4-hop candidates in one set, the
// lightest taken. Adjacent pairs get their 4-hop detours as with Shortest; the fallback stays within
// 4 hops (guard), and no pair's route exceeds 4 hops.
TEST(SlimFlyLayers, Q5RangeDetoursMixThreeAndFourHopPaths) {
  auto g = topo::build_mms_graph(5);
  LayerOptions o;
  o.layers = 8;
  o.detours = Detours::Range;
  auto r = build_layers(g.adj, o);
  ASSERT_EQ(validate_layers(r), "");
  const auto len = q5_route_lengths(r);
  EXPECT_LE(len.longest, 4);
  EXPECT_GT(len.adjacent_four, 0);
  EXPECT_GT(len.three, 0);
  // Adjacent pairs reach 3 disjoint paths too, so the share passes exact3's cap of 2100 / 2450.
  EXPECT_GT(compute_path_stats(r, 8).share_at_least_3_disjoint, 2100.0 / 2450.0);
}

// The layers are exactly those of the builder before the short-route guard kept its counts up to
// date incrementally (main at b9063bb): FNV-1a of forwarding.txt's text (note line empty), values
// computed from that version's `lbsim layers --tables` output.
std::uint64_t fnv1a(const std::string& t) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : t) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

TEST(SlimFlyLayers, RoutesUnchangedBySpeedups) {
  struct Case {
    int q, layers;
    std::uint64_t seed, hash;
    std::size_t size;
  };
  for (const Case& c : {Case{5, 8, 3, 0xbc96d5337dbf73deULL, 57778}, Case{7, 8, 1, 0x40d9c96970688f58ULL, 226048}}) {
    SCOPED_TRACE(testing::Message() << "q=" << c.q);
    LayerOptions o;
    o.layers = c.layers;
    o.seed = c.seed;
    const std::string text = format_forwarding_tables(build_layers(topo::build_mms_graph(c.q).adj, o), "");
    EXPECT_EQ(text.size(), c.size);
    EXPECT_EQ(fnv1a(text), c.hash);
  }
}

TEST(SlimFlyLayers, Q5ThreeLaneSchemeNeedsThreeLanes) {
  auto g = topo::build_mms_graph(5);
  LayerOptions o;
  o.layers = 8;
  auto r = build_layers(g.adj, o);
  auto routes = collect_routes(r);
  auto a = assign_three_lane(r.adjacency(), routes, 3);
  EXPECT_TRUE(a.per_lane_acyclic);
  EXPECT_LE(a.colors_used, 8);  // DSATUR uses at most max degree + 1 = 8 colours
  // DFSSSP with the same routes also finds an acyclic assignment within 15 lanes.
  auto d = assign_dfsssp(r.adjacency(), routes, 15);
  EXPECT_TRUE(d.per_lane_acyclic);
  EXPECT_GE(d.vls_needed, 2);  // the routes on one lane are cyclic
  EXPECT_FALSE(cdg_acyclic(r.adjacency(), routes));
}

// q = 7 has short cycles, so a destination-based layer can block the minimal fallback of
// App. B.1.4 (plain Algorithm 1 then yields some 4-hop routes). With the short-route guard every
// route has at most 3 hops, so the 3-lane scheme of sec. 5.2 applies.
TEST(SlimFlyLayers, Q7GuardKeepsRoutesWithinThreeHops) {
  auto g = topo::build_mms_graph(7);
  LayerOptions o;
  o.layers = 8;
  auto r = build_layers(g.adj, o);
  ASSERT_EQ(validate_layers(r), "");
  auto st = compute_path_stats(r);
  EXPECT_GT(st.share_at_least_3_disjoint, 0.9);
  EXPECT_EQ(st.max_length, 3);
  for (const auto& b : r.build_stats) EXPECT_EQ(b.fallback_non_minimal, 0);
  auto a = assign_three_lane(r.adjacency(), collect_routes(r), 3);
  EXPECT_TRUE(a.per_lane_acyclic);
  // Without the guard the layers are still valid forwarding functions.
  o.guard_short_routes = false;
  auto plain = build_layers(g.adj, o);
  EXPECT_EQ(validate_layers(plain), "");
}

}  // namespace
}  // namespace lbsim::analysis
