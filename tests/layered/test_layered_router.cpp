// The `layered` routing plug-in forwards every packet along exactly the route its layer's table
// gives ([SlimFly] sec. 4-5), with the layer taken from the EV.
#include <gtest/gtest.h>

#include "routing/layered_router.h"
#include "topo/slim_fly.h"

using namespace lbsim;

TEST(LayeredRouter, PacketsFollowTheirLayersRoute) {
  topo::SlimFlyParams sp;
  sp.q = 5;
  sp.p = 1;
  const auto t = topo::build_slim_fly(sp);
  routing::LayerOptions opt;
  opt.layers = 4;
  opt.seed = 3;
  auto layers = routing::build_layers(routing::normalize_graph(t.switch_adjacency()), opt);
  const auto expected = layers;  // copy for the reference routes
  routing::LayeredRouter router(t, std::move(layers));
  int non_minimal = 0;
  for (int src = 0; src < t.num_hosts; src += 3)
    for (int dst = 0; dst < t.num_hosts; ++dst) {
      if (src == dst) continue;
      for (std::uint32_t ev = 0; ev < 8; ++ev) {
        net::Packet p;
        p.src = src;
        p.dst = dst;
        p.ev = ev;
        const int l = static_cast<int>(ev % 4);
        const int s = t.switch_index(t.host_switch(src)), d = t.switch_index(t.host_switch(dst));
        const auto want = expected.path(l, s, d);  // switch indices s .. d
        std::int32_t node = t.host_switch(src);
        std::vector<int> got{t.switch_index(node)};
        for (int hop = 0; hop < 8 && node != t.host_switch(dst); ++hop) {
          const auto port = router.route(node, p);
          ASSERT_GE(port, 0);
          node = t.ports[node][port].peer;
          ASSERT_FALSE(t.is_host(node));
          got.push_back(t.switch_index(node));
        }
        ASSERT_EQ(got, want) << "layer " << l << " " << s << "->" << d;
        EXPECT_EQ(t.ports[node][router.route(node, p)].peer, dst);  // last hop: the host port
        if (l > 0 && want.size() - 1 > static_cast<std::size_t>(expected.distance(s, d))) ++non_minimal;
      }
    }
  EXPECT_GT(non_minimal, 0);  // the upper layers really do use almost-minimal routes
}

#include "../sim/helpers.h"

// Multipath layers relieve the links the adversarial pattern overloads under minimal routing
// ([SlimFly] sec. 6.4, Fig. 9): with 4 layers and packets cycled over them, the
// pattern finishes much sooner than with layer 0 (minimal paths) alone.
TEST(LayeredRouter, MoreLayersBeatMinimalOnTheAdversarialPattern) {
  config::Config c;
  c.set("topology.kind", "slim_fly");
  c.set("topology.q", 5);
  c.set("topology.host_latency_ns", 25);
  c.set("workload.kind", "adversarial");
  c.set("workload.size", 256 << 10);
  c.set("routing.algorithm", "layered");
  c.set("lb.algorithm", "rr");
  c.set("run.progress", "off");
  c.set("routing.layers", 1);
  sim::Simulation one(c);
  ASSERT_EQ(one.run(), 0);
  c.set("routing.layers", 4);
  sim::Simulation four(c);
  ASSERT_EQ(four.run(), 0);
  const double t1 = one.summary()["fct_us"]["max"].get<double>();
  const double t4 = four.summary()["fct_us"]["max"].get<double>();
  EXPECT_LT(t4, 0.75 * t1) << "1 layer " << t1 << " us, 4 layers " << t4 << " us";
  EXPECT_TRUE(lbsim::test::conserved(one));
  EXPECT_TRUE(lbsim::test::conserved(four));
}
