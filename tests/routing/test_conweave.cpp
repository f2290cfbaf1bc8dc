// ConWeave (routing/conweave.h, docs/baselines.md "ConWeave"): data packets injected at the source
// ToR of a leaf-spine (2-tier fat tree, 8 leaves x 4 hosts, 4 spines, 100 Gb/s) one per microsecond,
// a planted extra latency on the uplink of the flow's path, and what the receiving host sees.
#include <cstdlib>

#include <fmt/core.h>
#include <gtest/gtest.h>

#include <vector>

#include <nlohmann/json.hpp>

#include "net/network.h"
#include "routing/conweave.h"
#include "routing/registry.h"
#include "../sim/helpers.h"
#include "topo/registry.h"

using namespace lbsim;
using namespace lbsim::test;

namespace {

config::Config conweave_leaf_spine() {
  config::Config c = test::leaf_spine();
  c.set("routing.algorithm", "conweave");
  return c;
}

struct Arrival {
  std::uint32_t psn;
  std::int32_t path;  // route_aux: the candidate path the packet took
  SimTime at;
};

// One flow, host 0 (leaf 0) -> host 31 (leaf 7); a packet every microsecond; the receiving host
// records (psn, path, time). At `slow_at` the uplink of the flow's path at leaf 0 gets `extra` latency.
struct Walk : net::EventHandler, net::HostHandler {
  config::Config cfg;
  topo::Topology topo;
  std::unique_ptr<net::Network> net;
  std::unique_ptr<routing::MinimalTables> tables;
  std::unique_ptr<net::Router> router;
  routing::ConWeaveRouter* cw = nullptr;
  std::vector<Arrival> got;
  std::int32_t slow_path = -1;
  std::int32_t a = -1, b = -1;

  explicit Walk(config::Config c) : cfg(std::move(c)) {
    topo = topo::build_topology(cfg);
    net::NetConfig nc;
    nc.queue.data_limit = 1 << 20;
    nc.queue.ctrl_limit = 1 << 16;
    net = std::make_unique<net::Network>(topo, nc, 1);
    tables = std::make_unique<routing::MinimalTables>(topo);
    router = routing::make_router(routing::RoutingContext{cfg, *tables, *net, 1, us(8)});
    cw = dynamic_cast<routing::ConWeaveRouter*>(router.get());
    net->set_router(router.get());
    net->set_host_handler(this);
    net->on(net::kEvQueueSample, this);
    a = topo.host_switch(0);
    b = topo.host_switch(31);
  }
  void on_packet(std::uint32_t i) override {
    const auto& p = net->pkt(i);
    got.push_back({p.psn, p.route_aux, net->now()});
    net->packets().release(i);
  }
  std::uint32_t pull_data(std::int32_t) override { return net::kNil; }
  // kEvQueueSample obj: 0 = plant the slow path.
  SimTime extra = 0;
  void on_event(const Event&) override {
    slow_path = cw->flow_path(7);
    const auto& path = cw->candidates().paths(a, b)[static_cast<std::size_t>(slow_path)];
    auto& port = net->port(net->port_id(a, path.out_ports[0]));
    port.set_latency(port.latency + extra);
  }
  void run(int packets, SimTime slow_at, SimTime add) {
    extra = add;
    for (int k = 0; k < packets; ++k) {
      const std::uint32_t i = net->packets().alloc();
      auto& p = net->pkt(i);
      p.type = net::PacketType::Data;
      p.src = 0;
      p.dst = 31;
      p.flow = 7;
      p.psn = static_cast<std::uint32_t>(k);
      p.size = 1048;
      p.node = a;
      p.in_port = static_cast<std::uint16_t>(tables->host_port(0));
      net->events().push(us(1) * k, net::kEvArrive, i);
    }
    if (add > 0) net->events().push(slow_at, net::kEvQueueSample, 0);
    net->run(kTimeNever);
  }
  bool in_order() const {
    for (std::size_t i = 1; i < got.size(); ++i)
      if (got[i].psn <= got[i - 1].psn) return false;
    return true;
  }
};

}  // namespace

// Steady case: no congestion, every RTT_REPLY is in time, so the flow never leaves its first path,
// nothing is held, and the receiver sees the packets in order; one epoch per reply (about one per
// RTT: a reply takes ~2 x 2 hops and the packets come every microsecond).
TEST(ConWeave, SteadyFlowStaysOnItsPathInOrder) {
  Walk w(conweave_leaf_spine());
  ASSERT_NE(w.cw, nullptr);
  w.run(200, 0, 0);
  ASSERT_EQ(w.got.size(), 200u);
  EXPECT_TRUE(w.in_order());
  const auto& st = w.cw->stats();
  EXPECT_EQ(st.tails, 0u);
  EXPECT_EQ(st.held, 0u);
  EXPECT_EQ(st.flows, 1u);
  for (const auto& g : w.got) EXPECT_EQ(g.path, w.got[0].path);
  // Every epoch ends with a timely reply (the last one's comes after the last packet).
  EXPECT_EQ(st.timely_replies, st.epochs);
  EXPECT_GT(st.epochs, 20u);
  EXPECT_LT(st.epochs, 200u);
}

// theta_reply = the path's base RTT + 4 us. A path slowed by 3 us still answers in time: no
// reroute. Slowed by 5 us, the first RTT_REQUEST sent over it misses its deadline: exactly one TAIL,
// the flow moves to another path and stays there (the other paths answer in time).
TEST(ConWeave, ReroutesExactlyWhenTheReplyMissesThetaReply) {
  {
    Walk w(conweave_leaf_spine());
    w.run(300, us(50), us(3));
    EXPECT_EQ(w.cw->stats().tails, 0u);
    EXPECT_EQ(w.cw->stats().reroutes, 0u);
    EXPECT_EQ(w.cw->flow_path(7), w.slow_path);
    EXPECT_TRUE(w.in_order());
  }
  {
    Walk w(conweave_leaf_spine());
    w.run(300, us(50), us(5));
    EXPECT_EQ(w.cw->stats().tails, 1u);
    EXPECT_EQ(w.cw->stats().reroutes, 1u);
    EXPECT_NE(w.cw->flow_path(7), w.slow_path);
    // The TAIL is the first packet that reached the source ToR after the deadline of the first
    // RTT_REQUEST that crossed the slow uplink: 4 us + the 1 us extra later than a timely reply, so
    // within ~2 x (RTT + 5 us) of the slowdown.
    std::uint32_t tail = 0;
    for (const auto& g : w.got)
      if (g.path == w.slow_path) tail = std::max(tail, g.psn);
    EXPECT_GT(tail, 50u);
    EXPECT_LT(tail, 50u + 30u);
  }
}

// The reorder queue: after the reroute, packets on the new (fast) path reach the destination ToR
// before the slow path's TAIL; the ToR holds them and releases them right behind the TAIL, so the
// receiving host sees every new-path packet after the TAIL and all packets in PSN order.
TEST(ConWeave, DestinationHoldsReroutedPacketsUntilTheTail) {
  Walk w(conweave_leaf_spine());
  w.run(300, us(50), us(20));
  ASSERT_EQ(w.got.size(), 300u);
  const auto& st = w.cw->stats();
  ASSERT_EQ(st.reroutes, 1u);
  EXPECT_GT(st.held, 5u);  // 20 us of slack at one packet per microsecond
  EXPECT_EQ(st.flush_tail, 1u);
  EXPECT_EQ(st.flush_timeout, 0u);
  EXPECT_EQ(w.cw->held_now(), 0u);
  std::uint32_t tail = 0;
  SimTime tail_at = 0;
  for (const auto& g : w.got)
    if (g.path == w.slow_path && g.psn >= tail) {
      tail = g.psn;
      tail_at = g.at;
    }
  for (const auto& g : w.got)
    if (g.psn > tail) {
      EXPECT_NE(g.path, w.slow_path);
      EXPECT_GE(g.at, tail_at) << "new-path packet " << g.psn << " reached the host before the TAIL " << tail;
    }
  EXPECT_TRUE(w.in_order());
}

TEST(ConWeave, BadKeysAreClearErrors) {
  const auto dir = temp_dir("conweave-keys");
  const std::string base =
      "[topology]\nkind = \"fat_tree\"\nhosts = 32\ntiers = 2\nradix = 8\n[routing]\nalgorithm = \"conweave\"\n";
  {
    const auto f = write_file(dir + "/a.toml", base + "conweave_first_path = \"fastest\"\n");
    const auto r = run_lbsim("run " + f);
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_NE(r.out.find("routing.conweave_first_path"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("a.toml"), std::string::npos) << r.out;
  }
  {
    const auto f = write_file(dir + "/b.toml", base + "conweave_path_busy_us = -1\n");
    const auto r = run_lbsim("run " + f);
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_NE(r.out.find("routing.conweave_path_busy_us"), std::string::npos) << r.out;
  }
  {
    const auto f = write_file(dir + "/c.toml", base + "source_paths = \"rail\"\n");
    const auto r = run_lbsim("run " + f);
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_NE(r.out.find("needs topology.kind = \"rail\""), std::string::npos) << r.out;
  }
}

// A whole run of examples/laps-baselines/conweave.toml (leaf-spine, STR at 80 % load, DCQCN,
// go-back-N), shortened: every flow completes, ConWeave reroutes and holds packets, and the
// receivers see no packet out of order (every reorder queue released behind its TAIL).
TEST(ConWeave, WholeRunReroutesWithoutReorderingAtTheHosts) {
  const auto dir = temp_dir("conweave-run");
  const auto r =
      run_lbsim("run " + std::string(LBSIM_SOURCE_DIR) + "/examples/laps-baselines/conweave.toml --quiet --out " + dir +
                " --set workload.duration_us=200 --set output.ports_csv=false");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(read_file(dir + "/summary.json"));
  EXPECT_EQ(j["completed"], j["workload"]["transfers"]);
  EXPECT_EQ(j["routing"], "conweave");
  EXPECT_EQ(j["congestion_control"], "dcqcn");
  const auto& c = j["conweave"];
  EXPECT_GT(c["reroutes"].get<int>(), 0);
  EXPECT_GT(c["held_packets"].get<int>(), 0);
  EXPECT_EQ(c["released_by_timeout"].get<int>(), 0);
  EXPECT_EQ(j["ooo_packets"].get<int>(), 0);
  // The reproduce entries run ConWeave beside the other baselines. The entry reads its base config
  // from the source tree: named explicitly, since a build folder outside it (the sanitizer build in
  // build/sanitize) does not sit one level below the sources.
  ::setenv("LBSIM_SOURCE_DIR", LBSIM_SOURCE_DIR, 1);
  const auto p = run_lbsim("reproduce laps-fig7 --quick --print");
  EXPECT_NE(p.out.find(R"("routing.algorithm" = "conweave")"), std::string::npos) << p.out;
}

// Under PFC the packets a destination ToR holds in its reorder queues sit in that switch's buffer:
// they count in the ingress buffer they arrived in, so the ToR pauses the upstream while it holds
// them. The parameter-server AllReduce on Rail 64 (63 senders of 256 KiB into GPU 0, as laps-table1
// with ConWeave) fills GPU 0's NIC switch through its NVLink port while ConWeave holds rerouted
// packets there. Before held packets were counted, the upstream was never paused for them and their
// release overran the buffer (the run stopped on the lossless invariant, exit 70).
TEST(ConWeave, HeldPacketsCountInThePfcIngressBuffer) {
  const auto dir = temp_dir("conweave-pfc");
  const auto r =
      run_lbsim("run " + std::string(LBSIM_SOURCE_DIR) + "/examples/laps/rail_64.toml --quiet --out " + dir +
                " --set 'workload.kind=\"ps_allreduce\"' --set 'workload.size=\"256KiB\"'"
                " --set 'routing.algorithm=\"conweave\"' --set 'lb.algorithm=\"ecmp\"' --set 'transport.cc=\"dcqcn\"'"
                " --set 'transport.delivery=\"in_order\"' --set 'transport.in_order_recovery=\"go_back_n\"'"
                " --set transport.init_cwnd_bdp=1.0 --set transport.max_cwnd_bdp=1.0"
                " --set 'network.flow_control=\"pfc\"' --set output.ports_csv=false");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(read_file(dir + "/summary.json"));
  EXPECT_EQ(j["completed"], j["workload"]["transfers"]);
  EXPECT_GT(j["conweave"]["held_packets"].get<int>(), 0);  // the reorder queues were used
  const auto& fc = j["flow_control"];
  EXPECT_EQ(fc["mode"], "pfc");
  EXPECT_GT(fc["pause_frames"].get<int>(), 0);
  // Every ingress stayed within Xoff + the headroom for the bytes in flight when it paused.
  EXPECT_LE(fc["max_ingress_bytes"].get<long>(), fc["xoff_bytes"].get<long>() + fc["headroom_bytes_max"].get<long>());
}
