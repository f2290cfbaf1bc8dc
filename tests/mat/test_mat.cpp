// Maximum achievable throughput ([SlimFly] sec. 6.4): exact values on small cases,
// derived by hand in the comments (capacity 1 per link and direction).
#include <gtest/gtest.h>

#include <cmath>

#include "../layered/test_graphs.h"
#include "analysis/mat.h"
#include "core/error.h"
#include "topo/fat_tree.h"

namespace lbsim::analysis {
using namespace routing;  // the layered-routing types and functions (routing/layered.h)
namespace {

TrafficMatrix explicit_tm(int n, std::vector<Demand> d) {
  TrafficMatrix tm;
  tm.switches = n;
  tm.demands = std::move(d);
  return tm;
}

RoutingLayers minimal_layer(const Adjacency& g) {
  LayerOptions o;
  o.layers = 1;
  return build_layers(g, o);
}

// 5-ring, one endpoint per switch, uniform: each switch sends 1/4 to each of the other four (two at
// 1 hop, two at 2 hops, unique shortest paths). Per direction a source loads the clockwise links
// with 1/4*1 + 1/4*2 = 3/4 link-units; by symmetry each clockwise link carries 5*3/4/5 = 3/4*theta,
// so theta = 4/3 with minimal routing. No routing does better: total demand-hops
// 5 * (1/4)(1+1+2+2) = 7.5 per unit of theta against 10 units of capacity: theta <= 4/3.
TEST(Mat, RingUniformIsFourThirds) {
  auto g = normalize_graph(testgraphs::ring(5));
  auto tm = make_traffic(g, std::vector<int>(5, 1), TrafficPattern::Uniform, 0, 1);
  ASSERT_EQ(tm.demands.size(), 20u);
  auto e = mat_edge_lp(g, tm);
  ASSERT_TRUE(e.optimal) << e.status;
  EXPECT_NEAR(e.theta, 4.0 / 3.0, 1e-7);
  auto p = mat_routing_lp(minimal_layer(g), 1, tm);
  ASSERT_TRUE(p.optimal);
  EXPECT_NEAR(p.theta, 4.0 / 3.0, 1e-7);
}

// K_n, uniform with one endpoint per switch: each pair has demand 1/(n-1) and a direct link, so
// theta = n-1 over direct links; every unit needs >= 1 hop and n*(n-1) link units exist against n
// units of demand: theta <= n-1. K4: 3.
TEST(Mat, CompleteGraphUniform) {
  auto g = normalize_graph(testgraphs::complete(4));
  auto tm = make_traffic(g, std::vector<int>(4, 1), TrafficPattern::Uniform, 0, 1);
  EXPECT_NEAR(mat_edge_lp(g, tm).theta, 3.0, 1e-7);
  EXPECT_NEAR(mat_routing_lp(minimal_layer(g), 1, tm).theta, 3.0, 1e-7);
}

// K_n, cyclic shift s -> s+1 with demand 1. Minimal routing uses only the direct link: theta = 1.
// Unrestricted: a commodity sends a <= 1 directly and theta - a over 2-hop paths, using at least
// 2*theta - 1 link units; n commodities share n(n-1) units: theta <= n/2. Achieved by sending 1
// directly and 1/2 through each of the n-2 other switches (link s->w then carries 1/2 of s's flow
// and 1/2 of (w-1)'s flow relayed by s). K4: 2, K5: 2.5.
TEST(Mat, CompleteGraphShiftPermutation) {
  for (int n : {4, 5}) {
    auto g = normalize_graph(testgraphs::complete(n));
    std::vector<Demand> d;
    for (int s = 0; s < n; ++s) d.push_back({s, (s + 1) % n, 1.0});
    auto tm = explicit_tm(n, d);
    EXPECT_NEAR(mat_edge_lp(g, tm).theta, n / 2.0, 1e-7) << n;
    EXPECT_NEAR(mat_routing_lp(minimal_layer(g), 1, tm).theta, 1.0, 1e-7) << n;
  }
}

// Full-bisection 2-level fat tree as a complete bipartite graph: 3 leaves with 2 endpoints each,
// 2 spines (no endpoints). Permutation: endpoint i of leaf j -> endpoint i of leaf j+1, so leaf j
// sends 2 units to leaf j+1. Unrestricted: each leaf sends 2*theta over its 2 uplinks and receives
// 2*theta over its 2 downlinks: theta <= 1, achieved by splitting over both spines: MAT = 1.
// Layer 0 alone is destination-based with one spine per (leaf, leaf): the single uplink carries
// 2*theta: theta = 1/2. (Extra layers do not help here: a bipartite graph has no 3-hop leaf-to-leaf
// path, so every layer falls back to a minimal route, App. B.1.4.)
TEST(Mat, FatTreePermutationIsOne) {
  auto g = normalize_graph(testgraphs::bipartite(3, 2));
  std::vector<Demand> d{{0, 1, 2.0}, {1, 2, 2.0}, {2, 0, 2.0}};
  auto tm = explicit_tm(5, d);
  auto e = mat_edge_lp(g, tm);
  EXPECT_NEAR(e.theta, 1.0, 1e-7);
  EXPECT_GE(e.solve_seconds, 0.0);
  EXPECT_NEAR(mat_routing_lp(minimal_layer(g), 1, tm).theta, 0.5, 1e-7);
  // The endpoint-level generator gives the same demands for a shift permutation pattern only by
  // chance; check instead that a random permutation never beats the bound of 1.
  auto rp = make_traffic(g, {2, 2, 2, 0, 0}, TrafficPattern::Permutation, 0, 3);
  EXPECT_LE(mat_edge_lp(g, rp).theta, 1.0 + 1e-7);
}

// The project's own 3-tier full-bisection fat tree (k = 4: 16 hosts, 8 ToRs with 2 hosts and 2
// uplinks each). A random permutation: unrestricted MAT is exactly 1 when some ToR sends all its
// hosts' traffic off-ToR (2 units over 2 uplinks: theta <= 1), and theta = 1 is reachable because a
// non-blocking Clos routes every permutation by spreading each flow evenly over all cores.
TEST(Mat, ThreeTierFatTreePermutationIsOne) {
  topo::FatTreeParams fp;
  fp.hosts = 16;
  fp.tiers = 3;
  fp.radix = 4;
  auto t = topo::build_fat_tree(fp);
  auto g = normalize_graph(t.switch_adjacency());
  std::vector<int> ep(static_cast<std::size_t>(t.num_switches()), 0);
  for (int h = 0; h < t.num_hosts; ++h) ++ep[static_cast<std::size_t>(t.switch_index(t.host_switch(h)))];
  int saturated_cases = 0;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    auto tm = make_traffic(g, ep, TrafficPattern::Permutation, 0, seed);
    std::vector<double> out(g.size(), 0);
    for (const auto& d : tm.demands) out[static_cast<std::size_t>(d.src)] += d.amount;
    bool saturated_tor = false;
    for (std::size_t s = 0; s < g.size(); ++s) saturated_tor |= ep[s] == 2 && out[s] == 2.0;
    auto r = mat_edge_lp(g, tm);
    ASSERT_TRUE(r.optimal);
    EXPECT_GE(r.theta, 1.0 - 1e-7) << "seed " << seed;
    if (saturated_tor) {
      ++saturated_cases;
      EXPECT_NEAR(r.theta, 1.0, 1e-7) << "seed " << seed;
    }
  }
  EXPECT_GT(saturated_cases, 0);  // the exact-value check above actually ran
}

TEST(Mat, LayeredPathsBeatMinimalOnPetersenAndStayBelowEdgeBound) {
  auto g = normalize_graph(testgraphs::petersen());
  LayerOptions o;
  o.layers = 8;
  auto r = build_layers(g, o);
  auto tm = make_traffic(g, std::vector<int>(10, 2), TrafficPattern::Adversarial, 0.3, 5);
  auto edge = mat_edge_lp(g, tm);
  auto one = mat_routing_lp(r, 1, tm);
  auto eight = mat_routing_lp(r, 8, tm);
  ASSERT_TRUE(edge.optimal && one.optimal && eight.optimal);
  // More allowed paths can only help; no routing beats unrestricted flow.
  EXPECT_GE(eight.theta, one.theta - 1e-9);
  EXPECT_LE(eight.theta, edge.theta + 1e-7);
  EXPECT_GT(eight.theta, one.theta * 1.05);
}

TEST(Mat, PatternGenerators) {
  auto g = normalize_graph(testgraphs::petersen());
  std::vector<int> ep(10, 3);
  // Permutation: every endpoint sends 1 and receives 1, so per switch out/in <= 3.
  auto perm = make_traffic(g, ep, TrafficPattern::Permutation, 0, 9);
  std::vector<double> out(10, 0), in(10, 0);
  for (const auto& d : perm.demands)
    out[static_cast<std::size_t>(d.src)] += d.amount, in[static_cast<std::size_t>(d.dst)] += d.amount;
  for (int s = 0; s < 10; ++s) {
    EXPECT_LE(out[static_cast<std::size_t>(s)], 3.0 + 1e-12);
    EXPECT_LE(in[static_cast<std::size_t>(s)], 3.0 + 1e-12);
  }
  // Uniform: D(s,d) = 3*3/29 for every ordered pair.
  auto uni = make_traffic(g, ep, TrafficPattern::Uniform, 0, 9);
  ASSERT_EQ(uni.demands.size(), 90u);
  for (const auto& d : uni.demands) EXPECT_NEAR(d.amount, 9.0 / 29.0, 1e-12);
  // Adversarial: only pairs at distance 2; every switch injects at most 3 (1 per endpoint).
  auto adv = make_traffic(g, ep, TrafficPattern::Adversarial, 0.2, 9);
  auto dist = all_pairs_distances(g);
  std::vector<double> adv_out(10, 0);
  for (const auto& d : adv.demands) {
    EXPECT_GE(dist[static_cast<std::size_t>(d.src * 10 + d.dst)], 2);
    adv_out[static_cast<std::size_t>(d.src)] += d.amount;
  }
  for (double o : adv_out) EXPECT_LE(o, 3.0 + 1e-9);
  EXPECT_FALSE(adv.demands.empty());
  // Deterministic for a seed.
  auto adv2 = make_traffic(g, ep, TrafficPattern::Adversarial, 0.2, 9);
  ASSERT_EQ(adv.demands.size(), adv2.demands.size());
  for (std::size_t i = 0; i < adv.demands.size(); ++i) EXPECT_EQ(adv.demands[i].amount, adv2.demands[i].amount);
  EXPECT_THROW(make_traffic(g, ep, TrafficPattern::Adversarial, 0.0, 9), UserError);
  EXPECT_THROW(parse_traffic_pattern("tornado"), UserError);
}

TEST(Mat, NoNetworkDemandIsInfinite) {
  auto g = normalize_graph(testgraphs::ring(4));
  auto r = mat_edge_lp(g, explicit_tm(4, {}));
  EXPECT_TRUE(std::isinf(r.theta));
}

}  // namespace
}  // namespace lbsim::analysis
