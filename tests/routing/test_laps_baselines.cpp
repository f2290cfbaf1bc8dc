// The switch baselines of the LAPS evaluation (docs/baselines.md): LetFlow (routing/flowlet.h) and
// CONGA (routing/conga.h), driven packet by packet at chosen simulated times on a leaf-spine
// (2-tier fat tree, 8 leaves x 4 hosts, 4 spines, 100 Gb/s), and CONGA in whole simulations.
#include <fmt/core.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <vector>

#include "core/error.h"
#include "net/network.h"
#include "routing/conga.h"
#include "routing/flowlet.h"
#include "routing/registry.h"
#include "sim/simulation.h"
#include "../sim/helpers.h"
#include "topo/registry.h"

using namespace lbsim;

namespace {

config::Config leaf_spine() { return test::leaf_spine(); }

// A network whose clock is driven by scripted events: call(t, f) runs f at simulated time t.
struct Bench : net::EventHandler {
  config::Config cfg;
  topo::Topology topo;
  std::unique_ptr<net::Network> net;
  std::unique_ptr<routing::MinimalTables> tables;
  std::vector<std::function<void()>> calls;
  explicit Bench(config::Config c) : cfg(std::move(c)) {
    topo = topo::build_topology(cfg);
    net = std::make_unique<net::Network>(topo, net::NetConfig{}, 1);
    tables = std::make_unique<routing::MinimalTables>(topo);
    net->on(net::kEvQueueSample, this);
  }
  void at(SimTime t, std::function<void()> f) {
    calls.push_back(std::move(f));
    net->events().push(t, net::kEvQueueSample, static_cast<std::uint32_t>(calls.size() - 1));
  }
  void on_event(const Event& e) override { calls[e.obj](); }
  void run() { net->run(kTimeNever); }
  std::unique_ptr<net::Router> router(const std::string& name) {
    cfg.set("routing.algorithm", name);
    return routing::make_router(routing::RoutingContext{cfg, *tables, *net, 1, us(8)});
  }
  net::Packet data(std::int32_t src, std::int32_t dst, std::uint32_t flow, std::uint32_t size = 1048) {
    net::Packet p;
    p.type = net::PacketType::Data;
    p.src = src;
    p.dst = dst;
    p.flow = flow;
    p.size = size;
    return p;
  }
};

}  // namespace

// LetFlow: within a flowlet (gaps <= 10 us) every packet takes the flowlet's port; after a gap
// > 10 us the port is drawn uniformly from the 4 uplinks (so it changes 3 times in 4 on average).
TEST(LetFlow, PortChangesOnlyAfterAGapAndUniformly) {
  Bench b(leaf_spine());
  auto r = b.router("letflow");
  const std::int32_t leaf = b.topo.host_switch(0);
  Rng rng(5, 1);
  SimTime t = 0;
  std::vector<std::pair<bool, std::int32_t>> seen;  // (new flowlet expected, port)
  const int kFlowlets = 2000;
  for (int f = 0; f < kFlowlets; ++f) {
    // A gap above the timeout (10 us + 1 ps .. 60 us), then 1-5 packets 0-10 us apart (10 us included).
    t += us(10) + 1 + static_cast<SimTime>(rng.below(static_cast<std::uint64_t>(us(50))));
    const int n = 1 + static_cast<int>(rng.below(5));
    for (int k = 0; k < n; ++k) {
      if (k) t += k == 1 ? us(10) : static_cast<SimTime>(rng.below(static_cast<std::uint64_t>(us(10))));
      const bool first = k == 0;
      b.at(t, [&, first] {
        net::Packet p = b.data(0, 31, 7);
        seen.emplace_back(first, r->route(leaf, p));
      });
    }
  }
  b.run();
  std::map<std::int32_t, int> picks;
  int changes = 0;
  for (std::size_t i = 0; i < seen.size(); ++i) {
    if (!seen[i].first) {
      EXPECT_EQ(seen[i].second, seen[i - 1].second) << "packet " << i << " changed port inside a flowlet";
      continue;
    }
    ++picks[seen[i].second];
    if (i > 0 && seen[i].second != seen[i - 1].second) ++changes;
  }
  EXPECT_EQ(static_cast<const routing::FlowletRouter&>(*r).flowlets(), static_cast<std::uint64_t>(kFlowlets));
  ASSERT_EQ(picks.size(), 4u);  // the 4 uplinks, nothing else
  for (const auto& [port, n] : picks) {
    // Binomial(2000, 1/4): sd 19.4; 5 sd.
    EXPECT_NEAR(n, kFlowlets / 4, 97) << "port " << port;
  }
  EXPECT_NEAR(changes, kFlowlets * 3 / 4, 100);
}

// CONGA's DRE: X grows by each packet's bytes and decays by (1 - alpha) at every multiple of
// T_dre = 200 us; the metric is floor(X / (C tau) x 2^3) with C tau = 12.5 GB/s x 1 ms = 12.5 MB.
TEST(Conga, DreFollowsTheFormulaStepByStep) {
  Bench b(leaf_spine());
  auto r = b.router("conga");
  auto& cg = static_cast<routing::CongaRouter&>(*r);
  const std::int32_t leaf = b.topo.host_switch(0);
  std::int32_t port = -1;
  std::vector<std::pair<double, int>> got;
  const auto probe = [&](SimTime t) {
    b.at(t, [&, t] { got.emplace_back(cg.dre_bytes(leaf, port, t), cg.metric(leaf, port, t)); });
  };
  b.at(0, [&] {
    net::Packet p = b.data(0, 31, 1, 1'000'000);
    port = r->route(leaf, p);
  });
  probe(us(5));
  b.at(us(10), [&] {
    net::Packet p = b.data(0, 31, 1, 1'000'000);
    EXPECT_EQ(r->route(leaf, p), port);  // same flowlet (gap 10 us <= timeout)
  });
  probe(us(199));
  probe(us(200));
  probe(us(650));
  b.run();
  ASSERT_EQ(got.size(), 4u);
  const double ct = 100e9 / 8 * 1e-3;  // bytes
  const auto q = [&](double x) { return std::min(7, static_cast<int>(std::floor(x / ct * 8))); };
  const double x1 = 1e6, x2 = 2e6, x3 = 2e6 * 0.8, x4 = 2e6 * std::pow(0.8, 3);
  EXPECT_DOUBLE_EQ(got[0].first, x1);
  EXPECT_EQ(got[0].second, q(x1));
  EXPECT_EQ(got[0].second, 0);
  EXPECT_DOUBLE_EQ(got[1].first, x2);
  EXPECT_EQ(got[1].second, 1);  // 2 MB / 12.5 MB x 8 = 1.28
  EXPECT_DOUBLE_EQ(got[2].first, x3);
  EXPECT_EQ(got[2].second, q(x3));
  EXPECT_NEAR(got[3].first, x4, 1e-6);
  EXPECT_EQ(got[3].second, q(x4));
}

// One packet leaf A -> spine -> leaf B records its CE in B's Congestion-From-Leaf table; the next
// packet B -> A (an ACK) carries that entry back into A's Congestion-To-Leaf table. A new flowlet
// then avoids the uplink whose path is congested, and a flow stays on its uplink when nothing is
// strictly better.
TEST(Conga, FeedbackReachesTheSourceLeafAndSteersFlowlets) {
  Bench b(leaf_spine());
  auto r = b.router("conga");
  auto& cg = static_cast<routing::CongaRouter&>(*r);
  const std::int32_t a = b.topo.host_switch(0), bl = b.topo.host_switch(31);
  const auto walk = [&](net::Packet& p, std::int32_t from) {
    std::int32_t node = from, port = -1, first = -1;
    for (int hop = 0; hop < 4; ++hop) {
      port = r->route(node, p);
      if (first < 0) first = port;
      const std::int32_t peer = b.topo.ports[node][port].peer;
      if (b.topo.is_host(peer)) break;
      node = peer;
    }
    return first;
  };
  std::int32_t up = -1;
  b.at(us(1), [&] {
    // 5 MB through one uplink: metric floor(5 / 12.5 x 8) = 3 on the leaf uplink and the spine downlink.
    net::Packet p = b.data(0, 31, 1, 5'000'000);
    up = walk(p, a);
  });
  b.at(us(2), [&] {
    std::size_t u = 0;
    while (cg.uplinks(a)[u] != up) ++u;
    EXPECT_EQ(cg.from_leaf(bl, a, static_cast<std::int32_t>(u)), 3);
    EXPECT_EQ(cg.to_leaf(a, bl, static_cast<std::int32_t>(u)), 0);
    net::Packet ack = b.data(31, 0, 1, 64);
    ack.type = net::PacketType::Ack;
    walk(ack, bl);
    EXPECT_EQ(cg.to_leaf(a, bl, static_cast<std::int32_t>(u)), 3);
  });
  // New flowlets of other flows from leaf A: never the congested uplink (local metric 3 there, 0 elsewhere).
  for (int k = 0; k < 50; ++k)
    b.at(us(3) + k * us(20), [&, k] {
      net::Packet p = b.data(1, 30, 100 + static_cast<std::uint32_t>(k), 1000);
      EXPECT_NE(r->route(a, p), up);
    });
  b.run();
}

TEST(Conga, RefusesTopologiesThatAreNotLeafSpine) {
  config::Config c = leaf_spine();
  c.set("topology.tiers", 3);
  c.set("topology.hosts", 128);
  Bench b(c);
  try {
    (void)b.router("conga");
    FAIL() << "no error";
  } catch (const UserError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("2-tier leaf-spine"), std::string::npos) << m;
    EXPECT_NE(m.find("routing.algorithm = \"conga\""), std::string::npos) << m;
  }
  // A Slim Fly is neither a leaf-spine nor a Rail / Dragonfly with LAPS candidate paths (those run
  // CONGA over their candidate paths: tests/laps/test_conga_paths.cpp).
  config::Config d;
  d.set("topology.kind", "slim_fly");
  Bench bd(d);
  EXPECT_THROW((void)bd.router("conga"), UserError);
}

// A whole run: leaf 0's uplink to spine 0 runs at 10 Gb/s instead of 100. Hosts 0-3 send 200 flows of
// 100 KB (one every 2 us) to hosts on other leaves. LetFlow's random choice puts about a quarter of
// the flowlets on the slow uplink; CONGA sees its DRE (utilisation against its 10 Gb/s) and the
// spine's feedback, and sends far less there, and the flows finish sooner on average.
TEST(Conga, MovesTrafficAwayFromADegradedUplink) {
  const std::string dir = test::temp_dir("conga-degraded");
  std::string flows = "src,dst,bytes,start_us\n";
  for (int i = 0; i < 200; ++i) flows += fmt::format("{},{},100000,{}\n", i % 4, 4 + (i * 7) % 28, 2 * i);
  const auto csv = test::write_file(dir + "/flows.csv", flows);
  const auto fail = test::write_file(dir + "/failures.txt", "0 degrade tor0-spine0 rate_gbps=10\n");
  struct Out {
    double share, mean_fct;
  };
  const auto run = [&](const std::string& routing) {
    config::Config c = leaf_spine();
    c.set("workload.kind", "flows_csv");
    c.set("workload.file", csv);
    c.set("failures.file", fail);
    c.set("routing.algorithm", routing);
    c.set("transport.preset", "laps_dcqcn");
    c.set("network.flow_control", "pfc");
    c.set("network.mtu", 1000);
    c.set("network.header_bytes", 48);
    sim::Simulation s(c);
    EXPECT_EQ(s.run(), 0);
    EXPECT_TRUE(lbsim::test::conserved(s));
    // Data bytes leaf 0 sent on each uplink.
    const std::int32_t leaf = s.topology().host_switch(0);
    double slow = 0, all = 0;
    for (std::int32_t k = 0; k < static_cast<std::int32_t>(s.topology().ports[leaf].size()); ++k) {
      const std::int32_t peer = s.topology().ports[leaf][k].peer;
      if (s.topology().is_host(peer)) continue;
      const auto& pt = s.network().port(s.network().port_id(leaf, k));
      all += static_cast<double>(pt.stats.tx_bytes);
      if (s.topology().nodes[peer].label == "spine0") slow += static_cast<double>(pt.stats.tx_bytes);
    }
    double fct = 0;
    const auto res = s.flow_results();
    for (const auto& f : res) fct += to_us(f.fct());
    return Out{slow / all, fct / static_cast<double>(res.size())};
  };
  const Out lf = run("letflow"), cg = run("conga");
  EXPECT_GT(lf.share, 0.15);
  EXPECT_LT(cg.share, lf.share / 2);
  EXPECT_LT(cg.mean_fct, lf.mean_fct);
}
