// Dragonfly generator: sizes, port layout, global-link arrangements, map files ([Spritz] Table II,
// [Flowcut] sec. III-B, [LAPS] sec. 4.1).
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "core/error.h"
#include "topo/dragonfly.h"

using namespace lbsim;
using namespace lbsim::topo;

namespace {

// Count of global links between every unordered pair of groups.
std::map<std::pair<int, int>, int> pair_counts(const Topology& t) {
  std::map<std::pair<int, int>, int> out;
  for (const auto& l : t.links)
    if (l.kind == LinkKind::Global) {
      int ga = t.nodes[l.a].group, gb = t.nodes[l.b].group;
      out[{std::min(ga, gb), std::max(ga, gb)}]++;
    }
  return out;
}

// Groups reached by the global ports of switch `s` of group `grp`, in port order.
std::vector<int> global_peers(const Topology& t, int a, int grp, int s) {
  std::vector<int> out;
  int node = t.switch_node(grp * a + s);
  for (const auto& p : t.ports[node])
    if (t.links[p.link].kind == LinkKind::Global) out.push_back(t.nodes[p.peer].group);
  return out;
}

void expect_user_error(const std::function<void()>& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "expected UserError containing '" << needle << "'";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

}  // namespace

TEST(Dragonfly, TableIISizes) {
  DragonflyParams prm;  // [Spritz] Table II: p = 4, a = 8, h = 4 -> 1056 endpoints, 264 switches
  Topology t = build_dragonfly(prm);
  EXPECT_EQ(t.kind, "dragonfly");
  EXPECT_EQ(t.num_hosts, 1056);
  EXPECT_EQ(t.num_switches(), 264);
  int host = 0, local = 0, global = 0;
  for (const auto& l : t.links) {
    host += l.kind == LinkKind::HostLink;
    local += l.kind == LinkKind::Local;
    global += l.kind == LinkKind::Global;
  }
  EXPECT_EQ(host, 1056);
  EXPECT_EQ(local, 33 * 8 * 7 / 2);
  EXPECT_EQ(global, 33 * 32 / 2);
  // Exactly one global link per group pair (canonical g = a*h + 1).
  auto pc = pair_counts(t);
  EXPECT_EQ(pc.size(), 33u * 32 / 2);
  for (const auto& [pair, n] : pc) EXPECT_EQ(n, 1) << pair.first << "-" << pair.second;
  auto st = graph_stats(t);
  EXPECT_EQ(st.diameter, 3);
  EXPECT_EQ(st.host_diameter, 5);
  EXPECT_EQ(st.min_degree, 7 + 4);
  EXPECT_EQ(st.max_degree, 7 + 4);
}

TEST(Dragonfly, PortLayoutAndLabels) {
  DragonflyParams prm;
  Topology t = build_dragonfly(prm);
  const int a = 8, p = 4, h = 4;
  for (int s = 0; s < t.num_switches(); ++s) {
    int node = t.switch_node(s);
    ASSERT_EQ(t.ports[node].size(), static_cast<std::size_t>(p + a - 1 + h));
    EXPECT_EQ(t.nodes[node].group, s / a);
    for (int k = 0; k < p; ++k) {
      int hst = t.ports[node][k].peer;
      EXPECT_EQ(hst, s * p + k);
      EXPECT_EQ(t.host_switch(hst), node);
      EXPECT_EQ(t.ports[hst][0].peer_port, k);
    }
    // Local ports in increasing peer index, skipping itself.
    int expect_peer = 0;
    for (int k = p; k < p + a - 1; ++k) {
      if (expect_peer == s % a) ++expect_peer;
      EXPECT_EQ(t.ports[node][k].peer, t.switch_node((s / a) * a + expect_peer));
      EXPECT_EQ(t.links[t.ports[node][k].link].kind, LinkKind::Local);
      ++expect_peer;
    }
    for (int k = p + a - 1; k < p + a - 1 + h; ++k) EXPECT_EQ(t.links[t.ports[node][k].link].kind, LinkKind::Global);
  }
  EXPECT_EQ(t.nodes[t.switch_node(3 * 8 + 5)].label, "g3s5");
  EXPECT_EQ(t.nodes[(3 * 8 + 5) * 4 + 2].label, "g3s5h2");
  EXPECT_EQ(t.links[t.ports[t.switch_node(0)][0].link].latency, ns(25));
  EXPECT_EQ(t.links[t.ports[t.switch_node(0)][p + a - 1].link].latency, ns(500));
  EXPECT_EQ(t.links[t.ports[t.switch_node(0)][p + a - 1].link].rate, gbps(400));
}

TEST(Dragonfly, ConsecutiveArrangement) {
  DragonflyParams prm;  // Kim et al.: slot k of group i -> group k (k < i) or k+1
  Topology t = build_dragonfly(prm);
  EXPECT_EQ(global_peers(t, 8, 0, 0), (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(global_peers(t, 8, 5, 1), (std::vector<int>{4, 6, 7, 8}));
  EXPECT_EQ(global_peers(t, 8, 32, 7), (std::vector<int>{28, 29, 30, 31}));
}

TEST(Dragonfly, PalmtreeArrangement) {
  DragonflyParams prm;
  prm.arrangement = "palmtree";  // slot o of group i -> group (i - o - 1) mod g
  Topology t = build_dragonfly(prm);
  // Switch 0 of group 0 holds slots 0..3 -> groups 32, 31, 30, 29; ports are ordered by peer group.
  EXPECT_EQ(global_peers(t, 8, 0, 0), (std::vector<int>{29, 30, 31, 32}));
  EXPECT_EQ(global_peers(t, 8, 5, 1), (std::vector<int>{0, 30, 31, 32}));
  for (const auto& [pair, n] : pair_counts(t)) EXPECT_EQ(n, 1);
  EXPECT_EQ(graph_stats(t).diameter, 3);
  // Palm-tree symmetry: the group-i switch reaching group j is a-1-(the group-j switch reaching i)
  // when the slot of one end is o, the other is g-2-o: switch o/h vs (g-2-o)/h = a-1-o/h.
  for (const auto& l : t.links) {
    if (l.kind == LinkKind::Global) {
      EXPECT_EQ(t.switch_index(l.a) % 8 + t.switch_index(l.b) % 8, 7);
    }
  }
}

TEST(Dragonfly, FlowcutFourGroups) {
  // [Flowcut] sec. III-B: 4 groups of 256 servers, 16 servers per switch, 16 links between
  // every two groups -> a = 16, p = 16, h = 48 / 16 = 3 global ports per switch.
  DragonflyParams prm;
  prm.p = 16;
  prm.a = 16;
  prm.h = 3;
  prm.g = 4;
  Topology t = build_dragonfly(prm);
  EXPECT_EQ(t.num_hosts, 1024);
  EXPECT_EQ(t.num_switches(), 64);
  auto pc = pair_counts(t);
  EXPECT_EQ(pc.size(), 6u);
  for (const auto& [pair, n] : pc) EXPECT_EQ(n, 16);
  // Round-robin slots: every switch has one global link to each of the three other groups...
  for (int grp = 0; grp < 4; ++grp)
    for (int s = 0; s < 16; ++s) {
      auto peers = global_peers(t, 16, grp, s);
      std::set<int> expect;
      for (int o = 0; o < 4; ++o)
        if (o != grp) expect.insert(o);
      EXPECT_EQ(std::set<int>(peers.begin(), peers.end()), expect);
    }
  // ...so any switch reaches any other group directly: switch diameter 2, not 3.
  auto st = graph_stats(t);
  EXPECT_EQ(st.diameter, 2);
  EXPECT_EQ(st.max_degree, 15 + 3);
}

TEST(Dragonfly, LapsNineGroups) {
  // [LAPS] sec. 4.1: nine groups, 36 switches, 144 servers -> a = 4, p = 4, h = 2 (g = 9 canonical).
  DragonflyParams prm;
  prm.p = 4;
  prm.a = 4;
  prm.h = 2;
  Topology t = build_dragonfly(prm);
  EXPECT_EQ(t.num_switches(), 36);
  EXPECT_EQ(t.num_hosts, 144);
  EXPECT_EQ(graph_stats(t).diameter, 3);
}

TEST(Dragonfly, Params) {
  DragonflyParams prm;
  Topology t = build_dragonfly(prm);
  std::map<std::string, std::string> m(t.params.begin(), t.params.end());
  EXPECT_EQ(m["p"], "4");
  EXPECT_EQ(m["a"], "8");
  EXPECT_EQ(m["h"], "4");
  EXPECT_EQ(m["g"], "33");
  EXPECT_EQ(m["arrangement"], "consecutive");
  EXPECT_EQ(m["global_links"], "528");
  EXPECT_EQ(m["global_links_per_group_pair"], "1");
  EXPECT_EQ(m["unused_global_ports"], "0");
}

TEST(Dragonfly, ParameterErrors) {
  DragonflyParams prm;
  prm.g = 6;  // 32 ports over 5 groups
  expect_user_error([&] { build_dragonfly(prm); }, "cannot be distributed evenly over g-1 = 5");
  prm.g = 34;
  expect_user_error([&] { build_dragonfly(prm); }, "cannot reach the other g-1 = 33 groups");
  prm.g = -1;
  prm.arrangement = "zigzag";
  expect_user_error([&] { build_dragonfly(prm); }, "unknown global link arrangement 'zigzag'");
  prm.arrangement = "consecutive";
  prm.a = 0;
  expect_user_error([&] { build_dragonfly(prm); }, "a (switches per group)");
  prm.a = 8;
  prm.p = 0;
  expect_user_error([&] { build_dragonfly(prm); }, "p (hosts per switch)");
  // Fewer groups that divide a*h are fine: g = 5 -> 8 links per pair.
  prm.p = 1;
  prm.g = 5;
  Topology t = build_dragonfly(prm);
  for (const auto& [pair, n] : pair_counts(t)) EXPECT_EQ(n, 8);
}

TEST(Dragonfly, SingleGroup) {
  DragonflyParams prm;
  prm.g = 1;
  Topology t = build_dragonfly(prm);
  EXPECT_EQ(t.num_switches(), 8);
  EXPECT_EQ(graph_stats(t).diameter, 1);
}

namespace {
DragonflyParams small_map_params() {
  DragonflyParams prm;  // 3 groups of 2 switches, 1 global port each: 6 ports, 3 links
  prm.p = 1;
  prm.a = 2;
  prm.h = 1;
  prm.g = 3;
  return prm;
}
std::vector<GlobalLinkSpec> parse(const std::string& text, const DragonflyParams& prm) {
  std::istringstream in(text);
  return parse_global_map(in, "test.map", prm);
}
}  // namespace

TEST(DragonflyMap, LoadsFile) {
  auto prm = small_map_params();
  std::string path = std::string(LBSIM_BINARY_DIR) + "/test_dragonfly_map.txt";
  {
    std::ofstream f(path);
    f << "# ring of groups\n0 1 1 0   # g0s1 - g1s0\n\n1 1 2 0\n2 1 0 0\n";
  }
  prm.global_map_file = path;
  Topology t = build_dragonfly(prm);
  std::remove(path.c_str());
  auto pc = pair_counts(t);
  EXPECT_EQ(pc.size(), 3u);
  // File order gives link order; check the endpoints of the first one.
  const Link* first = nullptr;
  for (const auto& l : t.links)
    if (l.kind == LinkKind::Global) {
      first = &l;
      break;
    }
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(t.nodes[first->a].label, "g0s1");
  EXPECT_EQ(t.nodes[first->b].label, "g1s0");
  EXPECT_EQ(graph_stats(t).diameter, 3);
}

TEST(DragonflyMap, Errors) {
  auto prm = small_map_params();
  expect_user_error([&] { parse("0 1 1\n", prm); }, "test.map:1: expected 4 fields");
  expect_user_error([&] { parse("# c\n0 1 x 0\n", prm); }, "test.map:2: field 3 'x' is not an integer");
  expect_user_error([&] { parse("0 1 3 0\n", prm); }, "test.map:1: group 3 out of range [0, 3)");
  expect_user_error([&] { parse("\n\n0 2 1 0\n", prm); }, "test.map:3: switch 2 out of range [0, 2)");
  expect_user_error([&] { parse("1 0 1 1\n", prm); }, "test.map:1: a global link must join two different groups");
  EXPECT_EQ(parse("0 1 1 0\n1 1 2 0 # x\n", prm).size(), 2u);
  EXPECT_EQ(parse("0 1 1 0\n1 1 2 0 # x\n", prm)[1].line, 2);

  std::string path = std::string(LBSIM_BINARY_DIR) + "/test_dragonfly_map_bad.txt";
  auto build_with = [&](const std::string& text) {
    {
      std::ofstream f(path);
      f << text;
    }
    auto p2 = prm;
    p2.global_map_file = path;
    build_dragonfly(p2);
  };
  expect_user_error([&] { build_with("0 1 1 0\n0 1 2 0\n1 1 2 1\n"); },
                    ":2: switch 1 of group 0 has more than h = 1 global links");
  expect_user_error([&] { build_with("0 1 1 0\n"); }, "groups 0 and 2 are not joined");
  std::remove(path.c_str());
  auto p3 = prm;
  p3.global_map_file = path + ".missing";
  expect_user_error([&] { build_dragonfly(p3); }, "cannot open global link map");
}
