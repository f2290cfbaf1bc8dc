// Path statistics ([SlimFly] sec. 6.1-6.3).
#include <gtest/gtest.h>

#include "analysis/pathstats.h"
#include "test_graphs.h"

namespace lbsim::analysis {
using namespace routing;  // the layered-routing types and functions (routing/layered.h)
namespace {

TEST(PathStats, MaxDisjointPathsByHand) {
  // Two paths 0-1-3 and 0-2-3 share nothing; 0-1-2-3 shares 0-1 with the first and 2-3 with the
  // second: the best set is {0-1-3, 0-2-3} = 2.
  EXPECT_EQ(max_disjoint_paths({{0, 1, 3}, {0, 2, 3}, {0, 1, 2, 3}}), 2);
  // Duplicates count once; one path alone gives 1.
  EXPECT_EQ(max_disjoint_paths({{0, 1}, {0, 1}}), 1);
  // A link used in opposite directions is shared: 0-1-2-3 and 0-2-1-3 share {1,2}.
  EXPECT_EQ(max_disjoint_paths({{0, 1, 2, 3}, {0, 2, 1, 3}}), 1);
  EXPECT_EQ(max_disjoint_paths({{0, 3}, {0, 1, 3}, {0, 2, 3}, {0, 4, 3}}), 4);
}

// One layer on a 5-ring: every route is minimal. Ordered pairs: 10 at distance 1, 10 at distance
// 2; average length (10*1 + 10*2)/20 = 1.5. Each direction of each link is crossed by 1 route of
// length 1 and 2 routes of length 2 (the two that start at it or end after it): 3 per directed
// link, 10 directed links, total hop count 30 = 10*1 + 10*2.
TEST(PathStats, RingOneLayerByHand) {
  LayerOptions o;
  o.layers = 1;
  auto r = build_layers(testgraphs::ring(5), o);
  auto s = compute_path_stats(r);
  EXPECT_EQ(s.pairs, 20);
  EXPECT_DOUBLE_EQ(s.mean_of_avg_length, 1.5);
  EXPECT_EQ(s.max_length, 2);
  EXPECT_EQ(s.max_length_hist.at(1), 10);
  EXPECT_EQ(s.max_length_hist.at(2), 10);
  ASSERT_EQ(s.paths_per_link.size(), 10u);
  for (long c : s.paths_per_link) EXPECT_EQ(c, 3);
  EXPECT_EQ(s.disjoint_hist.at(1), 20);
  EXPECT_DOUBLE_EQ(s.share_at_least_3_disjoint, 0.0);
}

// Complete graph K5, RUES with p=1: every layer keeps all links, so all layers are minimal
// (1 hop) and no pair ever has more than 1 disjoint path.
TEST(PathStats, RuesWithAllLinksIsMinimal) {
  LayerOptions o;
  o.layers = 4;
  o.scheme = LayerScheme::Rues;
  o.keep_fraction = 1.0;
  auto s = compute_path_stats(build_layers(testgraphs::complete(5), o));
  EXPECT_DOUBLE_EQ(s.mean_of_avg_length, 1.0);
  EXPECT_EQ(s.disjoint_hist.at(1), 20);
}

// Layered scheme on K5: layer 0 direct links, further layers 3-hop paths. The layered scheme gives
// many pairs 3 disjoint paths, where a single layer gives 1.
TEST(PathStats, LayeredAddsDisjointPaths) {
  LayerOptions o;
  o.layers = 8;
  auto r = build_layers(testgraphs::petersen(), o);
  auto one = compute_path_stats(r, 1);
  auto all = compute_path_stats(r, 8);
  EXPECT_DOUBLE_EQ(one.share_at_least_3_disjoint, 0.0);
  EXPECT_GT(all.share_at_least_3_disjoint, 0.5);
  EXPECT_EQ(all.non_minimal_not_3, 0);
  EXPECT_LE(all.max_length, 3);
}

}  // namespace
}  // namespace lbsim::analysis
