// The switch graph of `lbsim layers` / `lbsim mat` (analysis/switch_graph.h): any topology of a
// config read by the one reader (config/reader.h), reduced to its switch adjacency.
#include <gtest/gtest.h>

#include <string>

#include "analysis/switch_graph.h"
#include "config/reader.h"
#include "core/error.h"
#include "topo/registry.h"
#include "topo/slim_fly.h"

namespace lbsim::analysis {
namespace {

config::Config parse(const std::string& text) {
  config::Config c;
  config::load_text(c, text, "cfg.toml");
  return c;
}

std::string error_of(const std::string& text) {
  try {
    switch_graph(parse(text));
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(SwitchGraph, SlimFlyIsTheMmsGraph) {
  auto g = switch_graph(parse("[topology]\nkind = \"slim_fly\"\nq = 5\np = 4\n"));
  EXPECT_EQ(g.adj.size(), 50u);
  EXPECT_EQ(g.endpoints_per_switch, 4);
  EXPECT_EQ(g.description, "slim_fly q=5: 50 switches, k'=7, p=4");
  // Same switch order and adjacency as the MMS graph the analyses used before they took the
  // topology plug-in's graph (layers, tables and LFTs stay identical).
  for (int q : {5, 7, 9}) {
    auto c = parse("[topology]\nkind = \"slim_fly\"\n");
    c.set("topology.q", q);
    EXPECT_EQ(switch_graph(c).adj, routing::normalize_graph(topo::build_mms_graph(q).adj)) << q;
  }
  // Default p = ceil(k'/2) = ceil(7/2) = 4 (sec. 3.2); q = 7: ceil(11/2) = 6.
  EXPECT_EQ(switch_graph(parse("[topology]\nkind = \"slim_fly\"\nq = 5\n")).endpoints_per_switch, 4);
  EXPECT_EQ(switch_graph(parse("[topology]\nkind = \"slim_fly\"\nq = 7\n")).endpoints_per_switch, 6);
}

TEST(SwitchGraph, ErrorsNameFileLineAndKey) {
  EXPECT_EQ(error_of("[topology]\nkind = \"slim_fly\"\nq = 5\nqq = 3\n"),
            "cfg.toml:4: unknown key 'topology.qq' (did you mean 'topology.q'?)");
  std::string e = error_of("[topology]\nq = 5\n[routing]\nx = 1\n");
  EXPECT_NE(e.find("cfg.toml:4: unknown key 'routing.x'"), std::string::npos) << e;
  e = error_of("[topology]\nq = \"five\"\n");
  EXPECT_NE(e.find("cfg.toml:2"), std::string::npos) << e;
  EXPECT_NE(e.find("integer"), std::string::npos) << e;
  e = error_of("[topology]\nkind = \"torus\"\n");
  EXPECT_NE(e.find("cfg.toml:2"), std::string::npos) << e;
  EXPECT_NE(e.find("torus"), std::string::npos) << e;
  EXPECT_NE(error_of("[topology\n").find("cfg.toml:1"), std::string::npos);
  // q = 6 is no prime power: the message names the key and where its value came from.
  e = error_of("[topology]\nkind = \"slim_fly\"\nq = 6\n");
  EXPECT_EQ(e.rfind("cfg.toml:3: topology.q: ", 0), 0u) << e;
  EXPECT_NE(e.find("not a prime power"), std::string::npos) << e;
}

// A Slim Fly file of `lbsim cabling` / `lbsim scale` is also a layers/mat config: their keys are
// declared keys of the same table.
TEST(SwitchGraph, AcceptsToolkitKeys) {
  auto c = parse("[topology]\nkind = \"slim_fly\"\nq = 7\n[cabling]\nswitch_ports = 36\n[cost]\nprices = \"p.csv\"\n");
  EXPECT_EQ(switch_graph(c).endpoints_per_switch, 6);  // ceil(11/2)
}

// The adjacency `lbsim layers` built for ring / complete before they were topology plug-ins:
// i ~ j iff j = i +- 1 (mod n), resp. i != j; then normalized.
routing::Adjacency old_small_graph(const std::string& kind, int n) {
  routing::Adjacency adj(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j && (kind == "complete" || (j == (i + 1) % n || i == (j + 1) % n)))
        adj[static_cast<std::size_t>(i)].push_back(j);
  return routing::normalize_graph(adj);
}

TEST(SwitchGraph, RingAndCompleteAreTopologies) {
  for (const std::string kind : {"ring", "complete"})
    for (int n : {2, 3, 4, 6, 9}) {
      auto c = parse("[topology]\nkind = \"" + kind + "\"\n");
      c.set("topology.n", n);
      EXPECT_EQ(switch_graph(c).adj, old_small_graph(kind, n)) << kind << " " << n;
    }
  auto g = switch_graph(parse("[topology]\nkind = \"ring\"\nn = 6\np = 1\n"));
  ASSERT_EQ(g.adj.size(), 6u);
  for (const auto& a : g.adj) EXPECT_EQ(a.size(), 2u);
  EXPECT_EQ(g.description, "ring n=6: 6 switches, k'=2, p=1");
  auto k = switch_graph(parse("[topology]\nkind = \"complete\"\nn = 5\n"));
  for (const auto& a : k.adj) EXPECT_EQ(a.size(), 4u);
  EXPECT_EQ(k.endpoints_per_switch, 2);  // ceil(4/2)
  EXPECT_EQ(k.description, "complete n=5: 5 switches, k'=4, p=2");
  // As topologies they have hosts and links for `lbsim run`: p hosts per switch, the shared link
  // rate and latencies.
  auto cfg = parse("[topology]\nkind = \"ring\"\nn = 5\np = 2\nlink_rate_gbps = 100\nlocal_latency_ns = 40\n");
  const auto t = topo::build_topology(cfg);
  EXPECT_EQ(t.num_hosts, 10);
  EXPECT_EQ(t.num_switches(), 5);
  EXPECT_EQ(t.links.size(), 10u + 5u);
  for (const auto& l : t.links) {
    EXPECT_EQ(l.rate, topo::rate_gbps(100));
    if (l.kind == topo::LinkKind::Local) {
      EXPECT_EQ(l.latency, ns(40));
    }
  }
  EXPECT_EQ(t.host_switch(3), t.switch_node(1));
}

// Any topology: the switch graph of a Dragonfly collapses parallel global links.
TEST(SwitchGraph, AnyTopology) {
  auto g = switch_graph(parse("[topology]\nkind = \"dragonfly\"\np = 2\na = 4\nh = 2\n"));
  EXPECT_EQ(g.adj.size(), 36u);
  EXPECT_EQ(g.endpoints_per_switch, 2);
  EXPECT_EQ(g.description, "dragonfly a=4 h=2 g=9: 36 switches, k'=5, p=2");
  auto f = switch_graph(parse("[topology]\nkind = \"fat_tree\"\nhosts = 16\nradix = 8\n"));
  EXPECT_EQ(f.endpoints_per_switch, 4);
}

}  // namespace
}  // namespace lbsim::analysis
