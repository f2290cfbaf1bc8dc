// Switch routing plug-ins on the Table II networks ([Spritz] sec. II-A, III, V-A; issue 4):
// minimal routes, the bounded path sets behind valiant / ugal_l / ecmp_paths, Valiant sampling and
// the UGAL decision rule, without running traffic (tests/routing/test_scenarios.cpp does that).
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "core/error.h"
#include "net/network.h"
#include "routing/bounded_paths.h"
#include "routing/minimal.h"
#include "routing/ecmp.h"
#include "routing/registry.h"
#include "routing/tables.h"
#include "routing/ugal.h"
#include "routing/valiant.h"
#include "topo/dragonfly.h"
#include "topo/fat_tree.h"
#include "topo/slim_fly.h"

using namespace lbsim;

namespace {

const topo::Topology& table2_dragonfly() {  // p=4, a=8, h=4, g=33 ([Spritz] Table II)
  static const topo::Topology t = topo::build_dragonfly(topo::DragonflyParams{});
  return t;
}
const topo::Topology& table2_slim_fly() {  // q=9, p=7
  static const topo::Topology t = [] {
    topo::SlimFlyParams p;
    p.q = 9;
    p.p = 7;
    return topo::build_slim_fly(p);
  }();
  return t;
}

bool is_global(const topo::Topology& t, std::int32_t node, std::int32_t port) {
  return t.links[t.ports[node][port].link].kind == topo::LinkKind::Global;
}

// Walks a packet from src_sw through `r` until it reaches dst_sw; returns the (node, port) hops.
std::vector<topo::Hop> walk(net::Router& r, const topo::Topology& t, std::int32_t src_host, std::int32_t dst_host,
                            std::uint32_t flow = 0, std::uint32_t ev = 0,
                            net::PacketType type = net::PacketType::Data) {
  net::Packet p;
  p.type = type;
  p.src = src_host;
  p.dst = dst_host;
  p.flow = flow;
  p.ev = ev;
  std::vector<topo::Hop> hops;
  std::int32_t node = t.host_switch(src_host);
  const std::int32_t dst_sw = t.host_switch(dst_host);
  for (int guard = 0; guard < 16; ++guard) {
    ++p.hops;
    const std::int32_t port = r.route(node, p);
    EXPECT_GE(port, 0);
    if (port < 0) break;
    if (node == dst_sw) {
      EXPECT_EQ(t.ports[node][port].peer, dst_host);
      return hops;
    }
    hops.push_back({node, port});
    p.in_port = static_cast<std::uint16_t>(t.ports[node][port].peer_port);  // as the network sets it
    node = t.ports[node][port].peer;
  }
  ADD_FAILURE() << "no delivery";
  return hops;
}

// walk() for a packet of the given type (ACK / NACK routing options).
std::vector<topo::Hop> walk_typed(net::Router& r, const topo::Topology& t, std::int32_t src_host, std::int32_t dst_host,
                                  std::uint32_t flow, net::PacketType type) {
  return walk(r, t, src_host, dst_host, flow, 0, type);
}
}  // namespace

// The min-hop sets of MinimalTables are not the Dragonfly minimal route: in the Table II Dragonfly
// some switches reach a switch of another group in 2 global hops through a third group (g-g) where
// l-g-l needs 3 hops, and 3-hop ties mix l-g-l with g-l-g / g-g-l. MinimalRoutes keeps at most one
// global hop: with one global link per group pair the route between two groups is unique, and its
// length is 1 (same group), or 1 + [source lacks the global link] + [the link lands elsewhere].
TEST(MinimalRoutes, DragonflyIsLocalGlobalLocal) {
  const auto& t = table2_dragonfly();
  routing::MinimalTables mt(t);
  routing::MinimalRoutes mr(t);
  ASSERT_TRUE(mr.group_minimal());
  std::int64_t minhop_multi_global = 0;
  for (std::int32_t s = 0; s < t.num_switches(); ++s)
    for (std::int32_t d = 0; d < t.num_switches(); ++d) {
      if (s == d) continue;
      const auto u = t.switch_node(s), v = t.switch_node(d);
      const auto c = mr.candidates(u, v);
      ASSERT_EQ(c.size(), 1u) << t.nodes[u].label << "->" << t.nodes[v].label;
      // Follow the route: at most one global hop, length = distance().
      std::int32_t n = u, globals = 0, len = 0;
      while (n != v) {
        const auto port = mr.candidates(n, v)[0];
        globals += is_global(t, n, port);
        n = t.ports[n][port].peer;
        ++len;
      }
      EXPECT_LE(globals, 1);
      EXPECT_EQ(len, mr.distance(u, v));
      const bool same_group = t.nodes[u].group == t.nodes[v].group;
      if (same_group) {
        EXPECT_EQ(len, 1);
        EXPECT_EQ(globals, 0);
      } else {
        // Expected length from the layout: does u own the link to v's group, does it land on v?
        std::int32_t owner_peer = -1;  // far end of the (unique) global link between the groups
        bool u_owns = false;
        for (std::int32_t k = 0; k < 8; ++k) {
          const auto w = t.switch_node(t.nodes[u].group * 8 + k);
          for (std::size_t p = 0; p < t.ports[w].size(); ++p)
            if (is_global(t, w, static_cast<std::int32_t>(p)) &&
                t.nodes[t.ports[w][p].peer].group == t.nodes[v].group) {
              owner_peer = t.ports[w][p].peer;
              u_owns = w == u;
            }
        }
        EXPECT_EQ(len, 1 + (u_owns ? 0 : 1) + (owner_peer == v ? 0 : 1));
      }
      // Min-hop: does any shortest next hop leave for a third group?
      for (auto port : mt.candidates(u, v))
        if (is_global(t, u, port) && t.nodes[t.ports[u][port].peer].group != t.nodes[v].group) ++minhop_multi_global;
    }
  EXPECT_GT(minhop_multi_global, 0) << "min-hop ECMP would equal the l-g-l route; `minimal` would be redundant";
}

// Slim Fly and fat-tree (any non-Dragonfly) minimal routes are the min-hop sets: `minimal` ==
// `ecmp` there, which is why the routers use the min-hop tables themselves (next test).
void expect_min_hop_routes(const topo::Topology& t) {
  routing::MinimalTables mt(t);
  routing::MinimalRoutes mr(t);
  EXPECT_FALSE(mr.group_minimal());
  for (std::int32_t s = 0; s < t.num_switches(); ++s)
    for (std::int32_t d = 0; d < t.num_switches(); ++d) {
      const auto u = t.switch_node(s), v = t.switch_node(d);
      const auto a = mt.candidates(u, v), b = mr.candidates(u, v);
      ASSERT_EQ(std::vector<std::int16_t>(a.begin(), a.end()), std::vector<std::int16_t>(b.begin(), b.end()));
      ASSERT_EQ(mt.distance(u, v), mr.distance(u, v));
    }
}

topo::Topology three_tier_fat_tree() {  // k = 8: 128 hosts, 80 switches, up/down paths of 2 and 4 hops
  topo::FatTreeParams ft;
  ft.hosts = 128;
  ft.tiers = 3;
  ft.radix = 8;
  return topo::build_fat_tree(ft);
}

TEST(MinimalRoutes, SlimFlyAndFatTreeEqualMinHop) {
  const auto& sf = table2_slim_fly();
  expect_min_hop_routes(sf);
  EXPECT_EQ(routing::MinimalRoutes(sf).distance(sf.switch_node(0), sf.switch_node(161)) <= 2, true);  // MMS diameter 2
  expect_min_hop_routes(three_tier_fat_tree());
}

// `minimal` and the non-minimal routers keep minimal routes of their own only on the Dragonfly; on
// every other topology they read the min-hop tables (no second index per switch pair) and route
// exactly as before: the same candidates as routes built apart.
TEST(MinimalRoutes, RoutersShareTheMinHopTablesOffTheDragonfly) {
  const auto ft = three_tier_fat_tree();
  for (const topo::Topology* t : {&table2_slim_fly(), &ft, &table2_dragonfly()}) {
    const bool dragonfly = t->minimal_one_global_hop;
    routing::MinimalTables mt(*t);
    const routing::MinimalRoutes apart(*t);
    routing::MinimalRouter minimal(mt, 1);
    routing::ValiantRouter valiant(mt, 1, routing::ValiantMode::Path);
    for (const routing::SwitchPairPorts* r : {&minimal.routes(), &valiant.routes()}) {
      EXPECT_EQ(r == &mt, !dragonfly);
      for (std::int32_t s = 0; s < t->num_switches(); ++s)
        for (std::int32_t d = 0; d < t->num_switches(); ++d) {
          const auto u = t->switch_node(s), v = t->switch_node(d);
          const auto a = r->candidates(u, v), b = apart.candidates(u, v);
          ASSERT_EQ(std::vector<std::int16_t>(a.begin(), a.end()), std::vector<std::int16_t>(b.begin(), b.end()));
          ASSERT_EQ(r->distance(u, v), apart.distance(u, v));
        }
    }
  }
}

// Path sets per pair: Table II Dragonfly, 32 paths between groups (1 minimal + 31 through the other
// groups) and 7 inside a group (the direct link + 6 detours), docs/topologies.md.
// The i-th non-minimal path of a pair: the pair record names its few minimal paths and the others
// follow from them (no index per path), or, with more than kInlineMins minimal paths, an index
// lists them. Both against the category of every path: on the Table II Dragonfly (one minimal path
// per pair) and on a Dragonfly with six global links per pair of groups, whose pairs between
// groups have more minimal paths (one global hop, local detours around it) than a record names.
TEST(BoundedPathSet, NonMinimalPathsInOrder) {
  topo::DragonflyParams df;
  df.p = 1;
  df.a = 6;
  df.h = 2;
  df.g = 3;  // six global links per pair of groups
  const auto multi = topo::build_dragonfly(df);
  std::size_t inline_pairs = 0, indexed_pairs = 0;
  for (const topo::Topology* t : {&table2_dragonfly(), &multi}) {
    routing::MinimalRoutes mr(*t);
    routing::BoundedPathSet ps(*t, mr);
    for (std::int32_t s = 0; s < t->num_switches(); s += 3)
      for (std::int32_t d = 0; d < t->num_switches(); ++d) {
        if (s == d) continue;
        const auto pr = ps.pair(t->switch_node(s), t->switch_node(d));
        std::vector<std::uint32_t> want;
        for (std::uint32_t i = 0; i < pr.count; ++i)
          if (!ps.minimal(pr.first + i)) want.push_back(i);
        ASSERT_EQ(pr.nonmin_count, want.size());
        ASSERT_EQ(pr.mins, pr.count - want.size());
        for (std::uint32_t i = 0; i < pr.nonmin_count; ++i)
          ASSERT_EQ(ps.nonminimal(pr, i), want[i]) << s << " -> " << d << " #" << i;
        (pr.mins <= routing::BoundedPathSet::kInlineMins ? inline_pairs : indexed_pairs) += 1;
      }
  }
  EXPECT_GT(inline_pairs, 0u);
  EXPECT_GT(indexed_pairs, 0u);
}

TEST(BoundedPathSet, DragonflyCountsAndCategories) {
  const auto& t = table2_dragonfly();
  routing::MinimalRoutes mr(t);
  routing::BoundedPathSet ps(t, mr);
  const auto s = t.switch_node(3), same = t.switch_node(5), other = t.switch_node(7 * 8 + 5);
  const auto a = ps.pair(s, other);  // copies: a later first use may move the records
  EXPECT_EQ(a.count, 32u);
  EXPECT_EQ(a.nonmin_count, 31u);
  const auto b = ps.pair(s, same);
  EXPECT_EQ(b.count, 7u);
  EXPECT_EQ(b.nonmin_count, 6u);
  // Sorted by port sequence, each path starts at s and ends at the destination; kept as ports alone,
  // the set is the enumerator's, and a path is minimal (Table I) exactly when it has one global hop.
  std::set<std::vector<std::int32_t>> enumerated, kept;
  ps.enumerator().for_each_path(s, other, [&](const topo::PathView& v) {
    std::vector<std::int32_t> ports;
    for (std::int32_t k = 0; k < v.length; ++k) ports.push_back(v.hops[k].port);
    enumerated.insert(ports);
  });
  std::vector<std::int32_t> prev;
  for (std::uint32_t i = 0; i < a.count; ++i) {
    const auto h = ps.hops(a.first + i, s);
    ASSERT_EQ(static_cast<std::int32_t>(h.size()), ps.length(a.first + i));
    EXPECT_EQ(h[0].node, s);
    EXPECT_EQ(t.ports[h.back().node][h.back().port].peer, other);
    std::vector<std::int32_t> ports;
    int globals = 0;
    for (const auto& hop : h) {
      EXPECT_EQ(hop.port, ps.port(a.first + i, static_cast<std::int32_t>(ports.size())));
      ports.push_back(hop.port);
      globals += is_global(t, hop.node, hop.port);
    }
    EXPECT_EQ(ps.minimal(a.first + i), globals == 1);
    if (i > 0) {
      EXPECT_TRUE(std::lexicographical_compare(prev.begin(), prev.end(), ports.begin(), ports.end()));
    }
    prev = ports;
    kept.insert(ports);
  }
  EXPECT_EQ(kept, enumerated);
}

// Valiant per_hop: at the source the next hop is uniform over the distinct first hops of the Valiant
// paths: its a-1 = 7 local ports and its h = 4 global ports, so 1/11 each ([Spritz] V-A: the source
// switch's own global links are likelier than its neighbours' 1/(11*4)). Valiant path: uniform over
// the 32 paths, 1/32 each. 22,000 / 32,000 draws: expected 2000 / 1000 per bin, +-15% is > 5 sigma.
TEST(ValiantRouter, PerHopAndPathSampling) {
  const auto& t = table2_dragonfly();
  routing::MinimalTables mt(t);
  const std::int32_t src_host = 3 * 4, dst_host = (7 * 8 + 5) * 4;  // g0s3 -> g7s5
  {
    routing::ValiantRouter r(mt, 7, routing::ValiantMode::PerHop);
    std::map<std::int32_t, int> first;
    const int n = 22000;
    for (int i = 0; i < n; ++i) {
      const auto hops = walk(r, t, src_host, dst_host);
      ASSERT_FALSE(hops.empty());
      ++first[hops[0].port];
      int local = 0, global = 0;
      for (const auto& h : hops) (is_global(t, h.node, h.port) ? global : local)++;
      EXPECT_LE(local, 3);
      EXPECT_LE(global, 2);
    }
    EXPECT_EQ(first.size(), 11u);
    for (auto [port, cnt] : first) EXPECT_NEAR(cnt, n / 11.0, 0.15 * n / 11.0) << "port " << port;
  }
  {
    routing::ValiantRouter r(mt, 7, routing::ValiantMode::Path);
    std::map<std::vector<std::int32_t>, int> paths;
    const int n = 32000;
    for (int i = 0; i < n; ++i) {
      std::vector<std::int32_t> key;
      for (const auto& h : walk(r, t, src_host, dst_host)) key.push_back(h.port);
      ++paths[key];
    }
    EXPECT_EQ(paths.size(), 32u);
    for (const auto& [k, cnt] : paths) EXPECT_NEAR(cnt, n / 32.0, 0.15 * n / 32.0);
  }
}

// routing.valiant_acks = "minimal": ACKs and NACKs leave the receiver's switch on the minimal route
// (g7s5 -> g0s3: local, global, local = 3 hops, one global) in every mode, while data keeps its
// Valiant paths (per hop: the minimal path is 1 of 32 and needs 3 consecutive lucky draws, so most of
// 2,000 walks take 2 global hops). With "valiant", ACKs are misrouted like data.
TEST(ValiantRouter, MinimalAcksOption) {
  const auto& t = table2_dragonfly();
  routing::MinimalTables mt(t);
  const std::int32_t data_src = 3 * 4, data_dst = (7 * 8 + 5) * 4;  // g0s3 -> g7s5
  for (const auto mode : {routing::ValiantMode::PerHop, routing::ValiantMode::Path, routing::ValiantMode::PerFlow}) {
    for (const bool minimal_acks : {true, false}) {
      routing::ValiantRouter r(mt, 11, mode, minimal_acks);
      int ack_two_globals = 0, data_two_globals = 0;
      const int n = 2000;
      for (int i = 0; i < n; ++i) {
        for (const auto type : {net::PacketType::Ack, net::PacketType::Nack, net::PacketType::Data}) {
          const bool data = type == net::PacketType::Data;
          const auto hops = data ? walk(r, t, data_src, data_dst, static_cast<std::uint32_t>(i))
                                 : walk_typed(r, t, data_dst, data_src, static_cast<std::uint32_t>(i), type);
          int global = 0;
          for (const auto& h : hops) global += is_global(t, h.node, h.port);
          if (data) {
            data_two_globals += global == 2;
          } else {
            ack_two_globals += global == 2;
            if (minimal_acks) {
              EXPECT_EQ(hops.size(), 3u);
              EXPECT_EQ(global, 1);
            }
          }
        }
      }
      EXPECT_GT(data_two_globals, n / 2) << static_cast<int>(mode);
      if (minimal_acks) {
        EXPECT_EQ(ack_two_globals, 0);
      } else {
        EXPECT_GT(ack_two_globals, n);  // of 2n ACK + NACK walks
      }
    }
  }
}

// routing.valiant_mode = "per_flow": every packet of a flow (same src, dst, flow, EV) takes one
// Valiant path; over 400 flows the hash reaches (nearly) all 32 paths of the pair (each path is
// missed with probability (31/32)^400 < 3e-6) and no path carries more than 3x its share of 12.5.
TEST(ValiantRouter, PerFlowKeepsOnePathPerFlow) {
  const auto& t = table2_dragonfly();
  routing::MinimalTables mt(t);
  routing::ValiantRouter r(mt, 5, routing::ValiantMode::PerFlow);
  const std::int32_t src_host = 3 * 4, dst_host = (7 * 8 + 5) * 4;
  std::map<std::vector<std::int32_t>, int> flows_per_path;
  for (std::uint32_t flow = 0; flow < 400; ++flow) {
    std::vector<std::int32_t> first;
    for (int k = 0; k < 20; ++k) {
      std::vector<std::int32_t> key;
      for (const auto& h : walk(r, t, src_host, dst_host, flow)) key.push_back(h.port);
      if (k == 0) first = key;
      EXPECT_EQ(key, first) << "flow " << flow << " packet " << k;
    }
    ++flows_per_path[first];
  }
  EXPECT_EQ(flows_per_path.size(), 32u);
  for (const auto& [k, cnt] : flows_per_path) EXPECT_LE(cnt, 38);
}

// A path is kept as its ports alone (and a packet that follows one carries them), so a router that
// follows one tells whether the packet is still on it from the link it arrived on. When something
// else (a failure-masking wrapper) sends it out of another port at the first hop, the next switch
// finds it off its path and routes it minimally from there; taking the ports it is given, it
// follows one of the pair's bounded paths to the end. Both forms of a followed path: its ports packed
// in the packet (15-port switches: 4 bits x 5 hops) and, when they do not fit 32 bits (67-port
// switches: 7 bits x 5 hops), its index.
void off_path_continues_minimally(const topo::Topology& t, std::int32_t src_host, std::int32_t dst_host, bool packed) {
  routing::MinimalTables mt(t);
  const auto src_sw = t.host_switch(src_host), dst_sw = t.host_switch(dst_host);
  ASSERT_NE(t.nodes[src_sw].group, t.nodes[dst_sw].group);
  int followed = 0, detoured = 0;
  for (std::uint32_t flow = 0; flow < 200; ++flow) {
    for (const bool detour : {false, true}) {
      routing::ValiantRouter r(mt, 3 + flow, routing::ValiantMode::Path);
      ASSERT_EQ(r.paths().packable(), packed);
      std::set<std::vector<std::int32_t>> bounded;
      const auto pr = r.paths().pair(src_sw, dst_sw);
      for (std::uint32_t i = 0; i < pr.count; ++i) {
        std::vector<std::int32_t> ports;
        for (std::int32_t k = 0; k < r.paths().length(pr.first + i); ++k)
          ports.push_back(r.paths().port(pr.first + i, k));
        bounded.insert(ports);
      }
      net::Packet p;
      p.src = src_host;
      p.dst = dst_host;
      p.flow = flow;
      const std::int32_t given = r.route(src_sw, p);
      ASSERT_EQ(p.route_state, routing::kRouteFixed | 1);
      std::int32_t out = given;
      if (detour) {  // another local port, to another switch of the group than the path's next one
        for (std::int32_t k = 0; k < static_cast<std::int32_t>(t.ports[src_sw].size()); ++k) {
          const auto v = t.ports[src_sw][k].peer;
          if (!t.is_host(v) && !is_global(t, src_sw, k) && v != t.ports[src_sw][given].peer) {
            out = k;
            break;
          }
        }
        ASSERT_NE(out, given);
      }
      const std::int32_t first = t.ports[src_sw][out].peer;
      std::vector<std::int32_t> taken{out};
      for (std::int32_t node = src_sw;;) {
        p.in_port = static_cast<std::uint16_t>(t.ports[node][out].peer_port);
        node = t.ports[node][out].peer;
        out = r.route(node, p);
        ASSERT_GE(out, 0);
        if (node == dst_sw) break;
        if (detour) {
          EXPECT_EQ(p.route_state, routing::kRouteMinimal);
          const auto c = r.routes().candidates(node, dst_sw);
          EXPECT_NE(std::find(c.begin(), c.end(), out), c.end());
        } else {
          EXPECT_EQ(p.route_state & routing::kRouteFixed, routing::kRouteFixed);
        }
        taken.push_back(out);
        ASSERT_LE(taken.size(), 8u);
      }
      if (detour) {
        EXPECT_EQ(static_cast<std::int32_t>(taken.size()),
                  1 + r.routes().distance(first, dst_sw));  // the detour, then minimal
        ++detoured;
      } else {
        EXPECT_EQ(bounded.count(taken), 1u);
        ++followed;
      }
    }
  }
  EXPECT_EQ(followed, 200);
  EXPECT_EQ(detoured, 200);
}

TEST(ValiantRouter, OffPathPacketContinuesMinimally) {
  off_path_continues_minimally(table2_dragonfly(), 3 * 4, (7 * 8 + 5) * 4, true);  // g0s3 -> g7s5
  topo::DragonflyParams wide;
  wide.p = 2, wide.a = 64, wide.h = 2, wide.g = 3;  // 2 + 63 + 2 ports; 64 links per group pair
  const auto t = topo::build_dragonfly(wide);
  off_path_continues_minimally(t, 3 * 2, (2 * 64 + 5) * 2, false);  // g0s3 -> g2s5
}

// Slim Fly Valiant: every path walked is one of the bounded paths (<= 4 hops) and path mode reaches
// all of them.
TEST(ValiantRouter, SlimFlyPathsAreBounded) {
  const auto& t = table2_slim_fly();
  routing::MinimalTables mt(t);
  routing::ValiantRouter r(mt, 3, routing::ValiantMode::Path);
  const std::int32_t src_host = 0, dst_host = 7 * 100;
  const auto pr = r.paths().pair(t.host_switch(src_host), t.host_switch(dst_host));
  std::set<std::vector<std::int32_t>> seen;
  for (int i = 0; i < 40 * static_cast<int>(pr.count); ++i) {
    const auto hops = walk(r, t, src_host, dst_host);
    EXPECT_LE(hops.size(), 4u);
    std::vector<std::int32_t> key;
    for (const auto& h : hops) key.push_back(h.port);
    seen.insert(key);
  }
  EXPECT_EQ(seen.size(), pr.count);
}

// UGAL-L rule ([Spritz] V-A): minimal iff q_min h_min <= q_val h_val. Idle: always minimal. With
// bytes waiting on the minimal port and none elsewhere: Valiant. g0s3 -> g7s5 has a 3-hop minimal
// route and 4-5 hop Valiant paths.
TEST(UgalRouter, LocalRule) {
  const auto& t = table2_dragonfly();
  routing::MinimalTables mt(t);
  net::Network net(t, net::NetConfig{}, 1);
  routing::UgalRouter r(mt, net, 5, routing::UgalMode::Local);
  const std::int32_t src_host = 3 * 4, dst_host = (7 * 8 + 5) * 4;
  const auto src_sw = t.host_switch(src_host), dst_sw = t.host_switch(dst_host);
  ASSERT_EQ(r.routes().distance(src_sw, dst_sw), 3);
  for (int i = 0; i < 200; ++i) EXPECT_EQ(walk(r, t, src_host, dst_host).size(), 3u);
  EXPECT_EQ(r.minimal_decisions(), 200u);
  EXPECT_EQ(r.valiant_decisions(), 0u);
  const auto min_port = r.routes().candidates(src_sw, dst_sw)[0];
  net.port(net.port_id(src_sw, min_port)).data.bytes = 10 * 4160;
  int nonmin = 0;
  for (int i = 0; i < 200; ++i) nonmin += walk(r, t, src_host, dst_host).size() > 3;
  // A Valiant candidate whose first hop is the same (loaded) port loses to minimal (h_min < h_val);
  // every other candidate sees q_val = 0 and wins.
  EXPECT_GT(nonmin, 150);
  EXPECT_EQ(r.valiant_decisions(), static_cast<std::uint64_t>(nonmin));
}

// UGAL-G sees queues beyond the source switch: with bytes waiting only at the second hop of the
// minimal route, UGAL-L (blind to it) stays minimal while UGAL-G leaves for a Valiant path unless
// the drawn path shares that port.
TEST(UgalRouter, GlobalSeesDownstreamQueues) {
  const auto& t = table2_dragonfly();
  routing::MinimalTables mt(t);
  net::Network net(t, net::NetConfig{}, 1);
  routing::UgalRouter local(mt, net, 5, routing::UgalMode::Local);
  routing::UgalRouter global(mt, net, 5, routing::UgalMode::Global);
  const std::int32_t src_host = 3 * 4, dst_host = (7 * 8 + 5) * 4;  // 3-hop l-g-l route
  const auto src_sw = t.host_switch(src_host), dst_sw = t.host_switch(dst_host);
  const auto p0 = local.routes().candidates(src_sw, dst_sw)[0];
  const auto hop2 = t.ports[src_sw][p0].peer;
  const auto p1 = local.routes().candidates(hop2, dst_sw)[0];
  ASSERT_TRUE(is_global(t, hop2, p1));
  net.port(net.port_id(hop2, p1)).data.bytes = 20 * 4160;
  int local_nonmin = 0, global_nonmin = 0;
  for (int i = 0; i < 200; ++i) {
    local_nonmin += walk(local, t, src_host, dst_host).size() > 3;
    global_nonmin += walk(global, t, src_host, dst_host).size() > 3;
  }
  EXPECT_EQ(local_nonmin, 0);
  EXPECT_GT(global_nonmin, 150);
}

// routing.ugal_decide = per_hop (docs/spritz.md "UGAL-L readings"): with bytes waiting only on the
// global port of the minimal route's second switch (the Table III situation: the source switch's own
// port is idle), UGAL-L deciding at the source stays minimal for every packet, while per_hop compares
// again at that switch and leaves there (the first hop stays the minimal one), then follows the drawn
// bounded path to the end (it may pass the source switch again: a path from hop2 may start with the
// local link back), so a route is at most 1 + 5 hops. Idle, per_hop stays minimal too.
TEST(UgalRouter, PerHopDecidesAgainDownstream) {
  const auto& t = table2_dragonfly();
  routing::MinimalTables mt(t);
  net::Network net(t, net::NetConfig{}, 1);
  routing::UgalRouter source(mt, net, 5, routing::UgalMode::Local, routing::UgalDecide::Source);
  routing::UgalRouter per_hop(mt, net, 5, routing::UgalMode::Local, routing::UgalDecide::PerHop);
  const std::int32_t src_host = 3 * 4, dst_host = (7 * 8 + 5) * 4;  // 3-hop l-g-l route
  const auto src_sw = t.host_switch(src_host), dst_sw = t.host_switch(dst_host);
  const auto p0 = source.routes().candidates(src_sw, dst_sw)[0];
  const auto hop2 = t.ports[src_sw][p0].peer;
  const auto p1 = source.routes().candidates(hop2, dst_sw)[0];
  ASSERT_TRUE(is_global(t, hop2, p1));
  for (int i = 0; i < 100; ++i) EXPECT_EQ(walk(per_hop, t, src_host, dst_host).size(), 3u);
  EXPECT_EQ(per_hop.valiant_decisions(), 0u);
  EXPECT_EQ(per_hop.data_valiant_downstream(), 0u);
  net.port(net.port_id(hop2, p1)).data.bytes = 20 * 4160;
  int source_nonmin = 0, per_hop_nonmin = 0;
  for (int i = 0; i < 200; ++i) {
    source_nonmin += walk(source, t, src_host, dst_host).size() > 3;
    const auto hops = walk(per_hop, t, src_host, dst_host);
    if (hops.size() > 3) {
      ++per_hop_nonmin;
      EXPECT_EQ(hops[0].node, src_sw);
      EXPECT_EQ(hops[0].port, p0);
      EXPECT_NE(hops[1].port, p1);
      std::set<std::int32_t> seen;
      for (std::size_t i = 1; i < hops.size(); ++i)
        EXPECT_TRUE(seen.insert(hops[i].node).second) << "not one simple path from hop2";
      EXPECT_LE(hops.size(), 6u);  // 1 minimal hop + a bounded path of at most 5 hops
    }
  }
  EXPECT_EQ(source_nonmin, 0);
  EXPECT_EQ(source.valiant_decisions(), 0u);
  // Every Valiant candidate from hop2 whose first port is not p1 sees an empty queue and wins.
  EXPECT_GT(per_hop_nonmin, 150);
  EXPECT_EQ(per_hop.data_valiant_downstream(), static_cast<std::uint64_t>(per_hop_nonmin));
  EXPECT_EQ(per_hop.data_valiant_decisions(), static_cast<std::uint64_t>(per_hop_nonmin));
}

// Unknown routing modes are user errors, named with the valid values.
TEST(Registry, BadModesAreUserErrors) {
  config::Config c;
  EXPECT_THROW(c.set("routing.valiant_mode", "random"), UserError);
  EXPECT_THROW(c.set("routing.ugal", "both"), UserError);
  EXPECT_THROW(c.set("routing.ugal_decide", "everywhere"), UserError);
  EXPECT_THROW(c.set("routing.algorithm", "fastest"), UserError);
}

// ecmp_paths: a fixed (flow, EV) keeps one path; varying the EV covers the pair's whole path set.
TEST(EcmpPathsRouter, HashPicksBoundedPaths) {
  const auto& t = table2_dragonfly();
  routing::MinimalTables mt(t);
  config::Config c;
  c.set("routing.algorithm", "ecmp_paths");
  net::Network net(t, net::NetConfig{}, 1);
  auto r = routing::make_router(routing::RoutingContext{c, mt, net, 1});
  const std::int32_t src_host = 3 * 4, dst_host = (7 * 8 + 5) * 4;
  auto key = [&](std::uint32_t ev) {
    std::vector<std::int32_t> k;
    for (const auto& h : walk(*r, t, src_host, dst_host, 1, ev)) k.push_back(h.port);
    return k;
  };
  EXPECT_EQ(key(42), key(42));
  std::set<std::vector<std::int32_t>> seen;
  for (std::uint32_t ev = 0; ev < 2000; ++ev) seen.insert(key(ev));
  EXPECT_EQ(seen.size(), 32u);
}
