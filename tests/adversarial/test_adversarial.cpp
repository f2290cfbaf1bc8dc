// Adversarial traffic patterns ([Spritz] sec. V-B a) over Dragonfly and Slim Fly topologies.
#include <algorithm>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "core/error.h"
#include "topo/dragonfly.h"
#include "topo/paths.h"
#include "topo/slim_fly.h"
#include "workload/adversarial.h"

using namespace lbsim;
using namespace lbsim::topo;
using namespace lbsim::workload;

namespace {

// Every host sends exactly once and receives exactly once, never to itself.
void expect_permutation(const Topology& t, const Workload& w) {
  ASSERT_EQ(w.flows.size(), static_cast<std::size_t>(t.num_hosts));
  std::vector<int> sent(t.num_hosts, 0), recv(t.num_hosts, 0);
  for (const auto& f : w.flows) {
    ASSERT_GE(f.src, 0);
    ASSERT_LT(f.src, t.num_hosts);
    ASSERT_GE(f.dst, 0);
    ASSERT_LT(f.dst, t.num_hosts);
    EXPECT_NE(f.src, f.dst);
    ++sent[f.src];
    ++recv[f.dst];
  }
  for (int h = 0; h < t.num_hosts; ++h) {
    EXPECT_EQ(sent[h], 1);
    EXPECT_EQ(recv[h], 1);
  }
}

// Flows per directed link when every flow spreads evenly over its minimal paths (minimal routing
// with ECMP), in units of 1/scale flow to stay exact: returns link -> load * scale.
// "Minimal" = group-minimal for the Dragonfly rule (at most one global hop, Table I), shortest
// switch paths otherwise.
std::map<std::pair<int, int>, std::int64_t> minimal_link_load(const Topology& t, const Workload& w,
                                                              std::int64_t scale) {
  PathEnumerator pe(t);
  auto dist = switch_distances(t);
  std::map<std::pair<int, int>, std::int64_t> load;
  for (const auto& f : w.flows) {
    const int s = t.host_switch(f.src), d = t.host_switch(f.dst);
    std::vector<Path> minimal;
    for (auto& p : pe.paths(s, d)) {
      const bool is_min = pe.rule() == PathRule::Dragonfly
                              ? p.global <= 1 && (p.global == 1 || p.hops.size() <= 1)
                              : static_cast<int>(p.hops.size()) == dist[t.switch_index(s)][t.switch_index(d)];
      if (is_min) minimal.push_back(p);
    }
    EXPECT_FALSE(minimal.empty());
    EXPECT_EQ(scale % static_cast<std::int64_t>(minimal.size()), 0);
    for (const auto& p : minimal)
      for (const auto& h : p.hops) load[{h.node, h.port}] += scale / static_cast<std::int64_t>(minimal.size());
  }
  return load;
}

}  // namespace

TEST(Adversarial, DragonflyGroupShiftTableII) {
  Topology t = build_dragonfly(DragonflyParams{});  // g = 33, one global link per group pair
  auto w = make_dragonfly_group_shift(t, AdversarialParams{}, 7);
  expect_permutation(t, w);
  for (const auto& f : w.flows) {
    const int gs = t.nodes[t.host_switch(f.src)].group, gd = t.nodes[t.host_switch(f.dst)].group;
    EXPECT_EQ(gd, (gs + 1) % 33);
  }
  // Minimal routing: the a*p = 32 hosts of a group all cross the single global link to the next group.
  auto load = minimal_link_load(t, w, 1);
  std::int64_t max_global = 0;
  int loaded_global = 0;
  for (const auto& [lp, n] : load) {
    const auto& port = t.ports[lp.first][lp.second];
    if (t.links[port.link].kind != LinkKind::Global) continue;
    max_global = std::max(max_global, n);
    ++loaded_global;
  }
  EXPECT_EQ(max_global, 8 * 4);
  EXPECT_EQ(loaded_global, 33);  // one per group, all at 32 flows
  for (const auto& [lp, n] : load) {
    if (t.links[t.ports[lp.first][lp.second].link].kind == LinkKind::Global) {
      EXPECT_EQ(n, 32);
    }
  }
}

TEST(Adversarial, DragonflyGroupShiftFlowcut) {
  // 16 global links per group pair: minimal routing spreads a group's 256 flows over 16 links.
  DragonflyParams prm;
  prm.p = 16;
  prm.a = 16;
  prm.h = 3;
  prm.g = 4;
  Topology t = build_dragonfly(prm);
  auto w = make_dragonfly_group_shift(t, AdversarialParams{}, 1, 2);
  expect_permutation(t, w);
  for (const auto& f : w.flows)
    EXPECT_EQ(t.nodes[t.host_switch(f.dst)].group, (t.nodes[t.host_switch(f.src)].group + 2) % 4);
  const std::int64_t scale = 16;
  auto load = minimal_link_load(t, w, scale);
  int global_links = 0;
  for (const auto& [lp, n] : load) {
    if (t.links[t.ports[lp.first][lp.second].link].kind == LinkKind::Global) {
      EXPECT_EQ(n, 16 * scale);  // 256 flows / 16 links
      ++global_links;
    }
  }
  EXPECT_EQ(global_links, 4 * 16);
}

TEST(Adversarial, SlimFlyPairsAtDistanceTwoAndSharedLinks) {
  for (int q : {5, 7, 9}) {
    SlimFlyParams sp;
    sp.q = q;
    Topology t = build_slim_fly(sp);
    const int p = static_cast<int>(t.num_hosts / t.num_switches());
    auto w = make_slim_fly_adversarial(t, AdversarialParams{}, 3);
    expect_permutation(t, w);
    auto dist = switch_distances(t);
    // Every switch sends all its hosts' flows to one switch at distance 2.
    std::map<int, std::set<int>> targets;
    for (const auto& f : w.flows) {
      const int s = t.switch_index(t.host_switch(f.src)), d = t.switch_index(t.host_switch(f.dst));
      EXPECT_EQ(dist[s][d], 2) << "q=" << q;
      targets[s].insert(d);
    }
    for (const auto& [s, ds] : targets) EXPECT_EQ(ds.size(), 1u);
    // Unique minimal paths, so each loaded link carries exactly 2p flows: p from the switch before
    // it on the cycle (second hop) and p from its own tail switch (first hop).
    auto load = minimal_link_load(t, w, 1);
    EXPECT_EQ(load.size(), static_cast<std::size_t>(t.num_switches())) << "q=" << q;
    for (const auto& [lp, n] : load) EXPECT_EQ(n, 2 * p) << "q=" << q;
  }
}

TEST(Adversarial, SlimFlyCycle) {
  SlimFlyParams sp;
  sp.q = 9;
  Topology t = build_slim_fly(sp);
  auto plan = slim_fly_adversarial_plan(t, 11);
  ASSERT_TRUE(plan.closed);
  const auto& c = plan.cycle;
  ASSERT_EQ(c.size(), 162u);
  EXPECT_EQ(std::set<int>(c.begin(), c.end()).size(), 162u);
  auto dist = switch_distances(t);
  for (std::size_t i = 0; i < c.size(); ++i) {
    EXPECT_EQ(dist[c[i]][c[(i + 1) % c.size()]], 1);
    EXPECT_EQ(dist[c[i]][c[(i + 2) % c.size()]], 2);
    EXPECT_EQ(plan.target[c[i]], c[(i + 2) % c.size()]);
  }
  EXPECT_EQ(c, slim_fly_adversarial_plan(t, 11).cycle);  // deterministic
}

TEST(Adversarial, SlimFlyOpenPathFallback) {
  // q = 17 (578 switches): the Hamiltonian search does not close a cycle; the longest path found
  // carries the shared-link structure and the switches left over get targets at distance 2.
  SlimFlyParams sp;
  sp.q = 17;
  Topology t = build_slim_fly(sp);
  const int p = static_cast<int>(t.num_hosts / t.num_switches());
  auto plan = slim_fly_adversarial_plan(t, 2);
  auto dist = switch_distances(t);
  std::vector<int> received(t.num_switches(), 0);
  for (int s = 0; s < t.num_switches(); ++s) {
    ASSERT_GE(plan.target[s], 0);
    EXPECT_EQ(dist[s][plan.target[s]], 2);
    ++received[plan.target[s]];
  }
  for (int r : received) EXPECT_EQ(r, 1);
  const int L = static_cast<int>(plan.cycle.size());
  EXPECT_GT(L, t.num_switches() * 9 / 10);
  auto w = make_slim_fly_adversarial(t, AdversarialParams{}, 2);
  expect_permutation(t, w);
  auto load = minimal_link_load(t, w, 840);  // lcm(1..8): leftover pairs may have several minimal paths
  int at_least_2p = 0;
  for (const auto& [lp, n] : load) at_least_2p += n >= 840 * 2 * p;
  EXPECT_GE(at_least_2p, L - 3);
}

TEST(Adversarial, PermutationOutsideGroup) {
  Topology df = build_dragonfly(DragonflyParams{});
  auto w = make_permutation_outside_group(df, AdversarialParams{}, 5);
  expect_permutation(df, w);
  for (const auto& f : w.flows) EXPECT_NE(host_group(df, f.src), host_group(df, f.dst));
  // Deterministic per seed, different across seeds.
  auto w2 = make_permutation_outside_group(df, AdversarialParams{}, 5);
  auto w3 = make_permutation_outside_group(df, AdversarialParams{}, 6);
  int same = 0, differ = 0;
  for (std::size_t i = 0; i < w.flows.size(); ++i) {
    same += w.flows[i].dst == w2.flows[i].dst;
    differ += w.flows[i].dst != w3.flows[i].dst;
  }
  EXPECT_EQ(same, df.num_hosts);
  EXPECT_GT(differ, df.num_hosts / 2);

  // Slim Fly: group = rack (q racks of 2q switches).
  SlimFlyParams sp;
  sp.q = 9;
  Topology sf = build_slim_fly(sp);
  auto ws = make_permutation_outside_group(sf, AdversarialParams{}, 5);
  expect_permutation(sf, ws);
  for (const auto& f : ws.flows) EXPECT_NE(host_group(sf, f.src), host_group(sf, f.dst));
}

TEST(Adversarial, PermutationOutsideGroupBoundaries) {
  // Two groups of exactly half the hosts: every flow must cross to the other group.
  DragonflyParams prm;
  prm.p = 3;
  prm.a = 4;
  prm.h = 1;
  prm.g = 2;
  Topology two = build_dragonfly(prm);
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    auto w = make_permutation_outside_group(two, AdversarialParams{}, seed);
    expect_permutation(two, w);
    for (const auto& f : w.flows) EXPECT_NE(host_group(two, f.src), host_group(two, f.dst));
  }
  // One group only: receivers cannot leave it, but it is still a permutation without self-sends.
  prm.g = 1;
  Topology one = build_dragonfly(prm);
  auto w = make_permutation_outside_group(one, AdversarialParams{}, 1);
  expect_permutation(one, w);
}

TEST(Adversarial, Errors) {
  Topology df = build_dragonfly(DragonflyParams{});
  SlimFlyParams sp;
  Topology sf = build_slim_fly(sp);
  EXPECT_THROW(make_slim_fly_adversarial(df, AdversarialParams{}, 1), UserError);
  EXPECT_THROW(make_dragonfly_group_shift(sf, AdversarialParams{}, 1), UserError);
  EXPECT_THROW(make_dragonfly_group_shift(df, AdversarialParams{}, 1, 33), UserError);
  AdversarialParams bad;
  bad.bytes = -1;
  EXPECT_THROW(make_permutation_outside_group(df, bad, 1), UserError);
  AdversarialParams tagged;
  tagged.tag = "adversarial";
  tagged.bytes = 4096;
  auto w = make_dragonfly_group_shift(df, tagged, 1);
  EXPECT_EQ(w.tags.at(w.flows[0].tag), "adversarial");
  EXPECT_EQ(w.flows[0].bytes, 4096);
}
