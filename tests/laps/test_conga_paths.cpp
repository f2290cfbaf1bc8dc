// CONGA on the LAPS Rail (routing/conga_paths.h, docs/laps.md "CONGA on Rail and the Dragonfly"):
// packets driven switch by switch at chosen simulated times on Rail 64 (8 clusters x 8 GPUs, 100 Gb/s),
// and whole runs. Host h = gpu<c>.<g> with h = 8 c + g; its ToR is its NIC switch.
#include <fmt/core.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/error.h"
#include "net/network.h"
#include "routing/conga_paths.h"
#include "routing/registry.h"
#include "sim/simulation.h"
#include "../sim/helpers.h"
#include "topo/registry.h"

using namespace lbsim;

namespace {

config::Config rail64() {
  config::Config c;
  c.set("topology.kind", "rail");
  c.set("topology.rail_nodes", 8);
  c.set("topology.rail_gpus", 8);
  c.set("topology.link_rate_gbps", 100.0);
  c.set("run.progress", "off");
  c.set("routing.algorithm", "conga");
  return c;
}

// A network whose clock is driven by scripted events: at(t, f) runs f at simulated time t.
struct Bench : net::EventHandler {
  config::Config cfg;
  topo::Topology topo;
  std::unique_ptr<net::Network> net;
  std::unique_ptr<routing::MinimalTables> tables;
  std::unique_ptr<net::Router> router;
  routing::CongaPathsRouter* cg = nullptr;
  std::vector<std::function<void()>> calls;
  explicit Bench(config::Config c) : cfg(std::move(c)) {
    topo = topo::build_topology(cfg);
    net = std::make_unique<net::Network>(topo, net::NetConfig{}, 1);
    tables = std::make_unique<routing::MinimalTables>(topo);
    net->on(net::kEvQueueSample, this);
    router = routing::make_router(routing::RoutingContext{cfg, *tables, *net, 1, us(8)});
    cg = dynamic_cast<routing::CongaPathsRouter*>(router.get());
  }
  void at(SimTime t, std::function<void()> f) {
    calls.push_back(std::move(f));
    net->events().push(t, net::kEvQueueSample, static_cast<std::uint32_t>(calls.size() - 1));
  }
  void on_event(const Event& e) override { calls[e.obj](); }
  void run() { net->run(kTimeNever); }
  static net::Packet packet(std::int32_t src, std::int32_t dst, std::uint32_t flow, std::uint32_t size,
                            net::PacketType type = net::PacketType::Data) {
    net::Packet p;
    p.type = type;
    p.src = src;
    p.dst = dst;
    p.flow = flow;
    p.size = size;
    return p;
  }
  struct Hop {
    std::int32_t node, port;
  };
  // Routes p switch by switch from its source ToR to its destination host; the switch ports it left.
  std::vector<Hop> walk(net::Packet& p) {
    std::vector<Hop> hops;
    std::int32_t node = topo.host_switch(p.src);
    for (int i = 0; i < 16; ++i) {
      const std::int32_t port = router->route(node, p);
      const std::int32_t peer = topo.ports[node][port].peer;
      if (topo.is_host(peer)) return hops;
      hops.push_back({node, port});
      node = peer;
    }
    ADD_FAILURE() << "packet of flow " << p.flow << " did not reach its host";
    return hops;
  }
};

}  // namespace

// CE ([CONGA] sec. 3.2) is the largest quantised DRE metric over every switch port the packet leaves,
// not only the ToR's. A 5 MB packet gpu2.1 -> gpu1.1 loads the ports of its path to metric 3
// (5 MB / (12.5 GB/s x 1 ms) x 8 = 3.2); then 1 KB packets gpu0.1 -> gpu1.1 (each a new flow, so a
// new flowlet at an idle ToR: a random path) record at gpu1.1's ToR the max over their own path's
// ports, which is 3 whenever they share a port with the first packet's path and 0 otherwise.
TEST(CongaPaths, CeIsTheLargestMetricAlongTheSourceRoute) {
  Bench b(rail64());
  ASSERT_NE(b.cg, nullptr);
  const std::int32_t a = b.topo.host_switch(1), dst = b.topo.host_switch(9);
  ASSERT_EQ(b.cg->paths(a, dst).size(), 8u);
  int above_first = 0, zero = 0, checked = 0;
  std::map<std::int32_t, int> paths_seen;
  b.at(us(1), [&] {
    net::Packet big = Bench::packet(17, 9, 1, 5'000'000);
    const auto hops = b.walk(big);
    for (const auto& h : hops) EXPECT_EQ(b.cg->metric(h.node, h.port, us(1)), 3);
  });
  for (int k = 0; k < 40; ++k)
    b.at(us(2) + k * us(1), [&, k] {
      const SimTime now = us(2) + k * us(1);
      net::Packet p = Bench::packet(1, 9, 100 + static_cast<std::uint32_t>(k), 1000);
      const auto hops = b.walk(p);
      const auto tag = static_cast<std::size_t>(p.route_aux & 0xFF);
      ++paths_seen[static_cast<std::int32_t>(tag)];
      const auto& path = b.cg->paths(a, dst)[tag];
      ASSERT_EQ(hops.size() + 1, path.nodes.size());
      int mx = 0;
      for (std::size_t i = 0; i < hops.size(); ++i) {
        EXPECT_EQ(hops[i].node, path.nodes[i]);  // the packet followed its source route
        mx = std::max(mx, b.cg->metric(hops[i].node, hops[i].port, now));
      }
      EXPECT_EQ(b.cg->from_leaf(dst, a, tag), mx) << "path " << tag;
      above_first += mx > b.cg->metric(hops[0].node, hops[0].port, now);
      zero += mx == 0;
      ++checked;
    });
  b.run();
  EXPECT_EQ(checked, 40);
  EXPECT_GT(above_first, 0);  // the max came from a port behind the source ToR
  EXPECT_GT(zero, 0);         // and paths disjoint from the loaded one saw 0
  EXPECT_GE(paths_seen.size(), 5u);
}

// Feedback ([CONGA] sec. 3.2): the destination ToR's Congestion-From-Leaf entry goes back on the next
// packet the other way (an ACK here) into the source ToR's Congestion-To-Leaf. A flowlet keeps its
// path while its gaps stay within the 10 us timeout, even once the path is the most congested; after
// a longer gap the new flowlet leaves it.
TEST(CongaPaths, FeedbackReachesTheSourceToRAndFlowletsKeepTheirPath) {
  Bench b(rail64());
  const std::int32_t a = b.topo.host_switch(1), dst = b.topo.host_switch(9);
  std::size_t tag = 99;
  b.at(us(1), [&] {
    net::Packet p = Bench::packet(1, 9, 7, 5'000'000);
    b.walk(p);
    tag = static_cast<std::size_t>(p.route_aux & 0xFF);
    EXPECT_EQ(b.cg->flow_path(a, 7), static_cast<std::int32_t>(tag));
    EXPECT_EQ(b.cg->from_leaf(dst, a, tag), 3);
    EXPECT_EQ(b.cg->to_leaf(a, dst, tag), 0);  // not fed back yet
  });
  b.at(us(3), [&] {
    net::Packet ack = Bench::packet(9, 1, 7, 64, net::PacketType::Ack);
    b.walk(ack);
    EXPECT_EQ(b.cg->to_leaf(a, dst, tag), 3);
    for (std::size_t i = 0; i < 8; ++i) {
      if (i == tag) continue;
      EXPECT_EQ(b.cg->to_leaf(a, dst, i), 0) << i;
    }
    EXPECT_EQ(b.cg->feedback(), 2u);  // the data packet carried one entry too (a zero about the reverse paths)
  });
  // Same flow every 8 us: one flowlet, the path stays although every other path now costs less.
  for (int k = 1; k <= 20; ++k)
    b.at(us(1) + k * us(8), [&] {
      net::Packet p = Bench::packet(1, 9, 7, 1000);
      b.walk(p);
      EXPECT_EQ(static_cast<std::size_t>(p.route_aux & 0xFF), tag);
    });
  // A 30 us gap: a new flowlet, away from the congested path.
  b.at(us(1) + 20 * us(8) + us(30), [&] {
    EXPECT_EQ(b.cg->moves(), 0u);
    net::Packet p = Bench::packet(1, 9, 7, 1000);
    b.walk(p);
    EXPECT_NE(static_cast<std::size_t>(p.route_aux & 0xFF), tag);
    EXPECT_EQ(b.cg->moves(), 1u);
  });
  b.run();
  EXPECT_EQ(b.cg->flowlets(), 2u);
}

// Topologies CONGA cannot tag are refused with an error naming the key and what it needs.
TEST(CongaPaths, RefusesWhatItCannotRun) {
  {
    config::Config c = rail64();
    c.set("routing.source_paths", "yen");  // not the Rail rule: the leaf-spine design, and Rail is not one
    try {
      Bench b(c);
      FAIL() << "no error";
    } catch (const UserError& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("routing.algorithm = \"conga\""), std::string::npos) << m;
      EXPECT_NE(m.find("Rail or a Dragonfly"), std::string::npos) << m;
    }
  }
  {
    config::Config c;
    c.set("topology.kind", "fat_tree");
    c.set("topology.hosts", 128);
    c.set("topology.tiers", 3);
    c.set("topology.radix", 8);
    c.set("routing.algorithm", "conga");
    c.set("routing.source_paths", "rail");
    try {
      Bench b(c);
      FAIL() << "no error";
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find("needs topology.kind = \"rail\""), std::string::npos) << e.what();
    }
  }
  config::Config c = rail64();
  topo::Topology t = topo::build_topology(c);
  net::Network net(t, net::NetConfig{}, 1);
  routing::MinimalTables tables(t);
  EXPECT_THROW(routing::CongaPathsRouter(tables, net, routing::PathRule::Yen, 8, 0, 1048, routing::CongaParams{}, 1),
               UserError);
}

namespace {
// Whole runs on Rail 64 with NVLink at 800 Gb/s (so that the rails are the scale-out bottleneck):
// 4 GPUs of cluster 0 each send 80 flows of 50 KB, one every 8 us, to a GPU of cluster 1 (pairs
// gpu0.s -> gpu1.(s+4), s = 0..3; 50 Gb/s per sender). Returns the new flowlets per rail
// (summary.json conga flowlets_per_path: path i of these pairs goes through rail i).
std::vector<double> rail_flowlets(bool degrade, nlohmann::json* summary = nullptr) {
  const std::string dir = test::temp_dir(degrade ? "conga-rail-slow" : "conga-rail");
  std::string flows = "src,dst,bytes,start_us\n";
  for (int i = 0; i < 320; ++i) flows += fmt::format("{},{},50000,{}\n", i % 4, 8 + 4 + i % 4, 2 * i);
  config::Config c = rail64();
  c.set("topology.nvlink_rate_gbps", 800.0);
  c.set("workload.kind", "flows_csv");
  c.set("workload.file", test::write_file(dir + "/flows.csv", flows));
  if (degrade) c.set("failures.file", test::write_file(dir + "/failures.txt", "0 degrade rail3-nic1.3 rate_gbps=10\n"));
  c.set("transport.preset", "laps_dcqcn");
  c.set("network.mtu", 1000);
  c.set("network.header_bytes", 48);
  c.set("routing.conga_candidates", 4);
  sim::Simulation s(c);
  EXPECT_EQ(s.run(), 0);
  EXPECT_TRUE(lbsim::test::conserved(s));
  // Path i of every pair used here crosses rail switch i.
  routing::MinimalTables tables(s.topology());
  routing::CandidatePaths cp(tables, routing::PathRule::Rail, 8, 0, 1048);
  for (int p = 0; p < 4; ++p) {
    const auto& list = cp.paths(s.topology().host_switch(p), s.topology().host_switch(12 + p));
    EXPECT_EQ(list.size(), 8u);
    for (std::size_t i = 0; i < list.size(); ++i) {
      const bool via = std::any_of(list[i].nodes.begin(), list[i].nodes.end(), [&](std::int32_t n) {
        return s.topology().nodes[n].label == fmt::format("rail{}", i);
      });
      EXPECT_TRUE(via) << "pair " << p << " path " << i;
    }
  }
  const nlohmann::json sum = s.summary();
  if (summary) *summary = sum;
  std::vector<double> n(8, 0);
  const auto& per = sum["conga"]["flowlets_per_path"];
  for (std::size_t i = 0; i < per.size() && i < 8; ++i) n[i] = per[i].get<double>();
  return n;
}
}  // namespace

// 320 flows, one flowlet each with equal rails (every flow sends without a gap). With equal rails CONGA's
// flowlets use all 8 rails (at least a quarter of the uniform 40 each); with rail 3's far link
// (rail3 - nic1.3) at 10 Gb/s, a link the source ToR cannot see, the feedback steers new flowlets
// away from rail 3 (under a third of its share with equal rails): a pair keeps sending there only
// until one of its packets has crossed the slow link and an ACK has brought the CE back.
TEST(CongaPaths, NewFlowletsAvoidASlowRail) {
  nlohmann::json sum;
  const auto even = rail_flowlets(false, &sum);
  ASSERT_TRUE(sum.contains("conga")) << sum.dump();
  EXPECT_EQ(sum["conga"]["path_rule"], "rail");
  EXPECT_EQ(sum["conga"]["flowlets"], 320);
  EXPECT_GT(sum["conga"]["feedback"].get<double>(), 0);
  for (int r = 0; r < 8; ++r) EXPECT_GE(even[r], 10) << "rail " << r;
  const auto slow = rail_flowlets(true);
  EXPECT_LT(slow[3], even[3] / 3) << "rail 3: " << slow[3] << " flowlets against " << even[3];
  double rest = 0;
  for (int r = 0; r < 8; ++r) rest += r == 3 ? 0 : slow[r];
  EXPECT_GE(rest + slow[3], 320);  // flows slowed down may start more than one flowlet
}
