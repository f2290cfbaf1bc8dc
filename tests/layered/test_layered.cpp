// Layered routing ([SlimFly] sec. 4, Algorithm 1, App. B.1) and baselines.
#include <gtest/gtest.h>

#include <set>

#include "routing/layered.h"
#include "analysis/pathstats.h"
#include "core/error.h"
#include "test_graphs.h"

namespace lbsim::analysis {
using namespace routing;  // the layered-routing types and functions (routing/layered.h)
namespace {

using testgraphs::petersen;
using testgraphs::ring;

LayerOptions opts(LayerScheme s, int layers, std::uint64_t seed = 7, double p = 0.6) {
  LayerOptions o;
  o.scheme = s;
  o.layers = layers;
  o.seed = seed;
  o.keep_fraction = p;
  return o;
}

TEST(Layered, EveryLayerIsLoopFreeAndReachesEveryPair) {
  for (auto scheme : {LayerScheme::Layered, LayerScheme::Rues, LayerScheme::FatPaths})
    for (const auto& g : {petersen(), ring(7), testgraphs::complete(5), testgraphs::bipartite(3, 3)}) {
      auto r = build_layers(g, opts(scheme, 6));
      ASSERT_EQ(r.num_layers(), 6);
      EXPECT_EQ(validate_layers(r), "") << layer_scheme_name(scheme);
    }
}

TEST(Layered, LayerZeroIsMinimal) {
  for (auto scheme : {LayerScheme::Layered, LayerScheme::Rues, LayerScheme::FatPaths}) {
    auto r = build_layers(ring(8), opts(scheme, 3));
    for (int s = 0; s < 8; ++s)
      for (int d = 0; d < 8; ++d) {
        // Ring distance min(|s-d|, 8-|s-d|), from first principles.
        int k = std::abs(s - d);
        EXPECT_EQ(r.hops(0, s, d), std::min(k, 8 - k));
      }
  }
}

// On a diameter-2 graph every almost-minimal route of the layered scheme is exactly 3 hops
// (App. B.1.1), and every other route is minimal (fallback, App. B.1.4).
TEST(Layered, NonMinimalRoutesAreExactlyThreeHopsOnPetersen) {
  auto g = petersen();
  auto r = build_layers(g, opts(LayerScheme::Layered, 8));
  int non_minimal = 0;
  for (int l = 0; l < r.num_layers(); ++l)
    for (int s = 0; s < 10; ++s)
      for (int d = 0; d < 10; ++d) {
        if (s == d) continue;
        int h = r.hops(l, s, d);
        if (h != r.distance(s, d)) {
          EXPECT_EQ(h, 3) << "layer " << l << " " << s << "->" << d;
          ++non_minimal;
        }
      }
  // Layers 1.. must actually contain almost-minimal routes.
  EXPECT_GT(non_minimal, 0);
  for (int l = 1; l < r.num_layers(); ++l)
    EXPECT_GT(r.build_stats[static_cast<std::size_t>(l)].almost_minimal_found, 0);
}

TEST(Layered, DeterministicForSeed) {
  for (auto scheme : {LayerScheme::Layered, LayerScheme::Rues, LayerScheme::FatPaths}) {
    auto a = build_layers(petersen(), opts(scheme, 5, 11));
    auto b = build_layers(petersen(), opts(scheme, 5, 11));
    auto c = build_layers(petersen(), opts(scheme, 5, 12));
    EXPECT_EQ(format_forwarding_tables(a, ""), format_forwarding_tables(b, ""));
    EXPECT_NE(format_forwarding_tables(a, ""), format_forwarding_tables(c, ""));
  }
}

// Prefix property: layer l depends only on layers < l, so 3 layers equal the first 3 of 6.
TEST(Layered, FewerLayersArePrefix) {
  auto a = build_layers(petersen(), opts(LayerScheme::Layered, 3));
  auto b = build_layers(petersen(), opts(LayerScheme::Layered, 6));
  for (int l = 0; l < 3; ++l)
    for (int s = 0; s < 10; ++s)
      for (int d = 0; d < 10; ++d) EXPECT_EQ(a.next_hop(l, s, d), b.next_hop(l, s, d));
}

// Fig. 7 / sec. 6.2: the weights W (App. B.1.3) balance routes over links, so the layered scheme's
// paths-per-link distribution is tighter than RUES's. On the edge-transitive Petersen graph the
// layered scheme keeps every directed link within 15 % of the mean.
TEST(Layered, WeightsBalancePathsPerLink) {
  auto lay = compute_path_stats(build_layers(petersen(), opts(LayerScheme::Layered, 8)));
  auto rues = compute_path_stats(build_layers(petersen(), opts(LayerScheme::Rues, 8)));
  EXPECT_LT(lay.stddev_paths_per_link, rues.stddev_paths_per_link);
  EXPECT_LE(static_cast<double>(lay.max_paths_per_link), 1.15 * lay.mean_paths_per_link);
  EXPECT_GE(static_cast<double>(lay.min_paths_per_link), 0.85 * lay.mean_paths_per_link);
}

TEST(Layered, ForwardingTablePortsMatchNeighbours) {
  auto r = build_layers(petersen(), opts(LayerScheme::Layered, 2));
  for (int l = 0; l < 2; ++l)
    for (int s = 0; s < 10; ++s)
      for (int d = 0; d < 10; ++d) {
        if (s == d) {
          EXPECT_EQ(r.next_port(l, s, d), -1);
          continue;
        }
        int port = r.next_port(l, s, d);
        ASSERT_GE(port, 0);
        EXPECT_EQ(r.adjacency()[static_cast<std::size_t>(s)][static_cast<std::size_t>(port)], r.next_hop(l, s, d));
      }
}

TEST(Layered, TooManyTableEntriesIsAUserError) {
  // 20 000 switches x 20 000 destinations x 2 layers do not fit: refused before allocating.
  EXPECT_THROW(build_layers(ring(20000), opts(LayerScheme::Layered, 2)), UserError);
}

TEST(Layered, BadInputsAreUserErrors) {
  EXPECT_THROW(build_layers(ring(5), opts(LayerScheme::Layered, 0)), UserError);
  EXPECT_THROW(build_layers(ring(5), opts(LayerScheme::Rues, 2, 1, 0.0)), UserError);
  std::vector<std::vector<int>> disconnected{{1}, {0}, {3}, {2}};
  EXPECT_THROW(build_layers(disconnected, opts(LayerScheme::Layered, 2)), UserError);
  EXPECT_THROW(parse_layer_scheme("ecmp"), UserError);
}

}  // namespace
}  // namespace lbsim::analysis
