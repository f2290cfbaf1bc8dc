// The NIC scheduler (Transport::pull_data, docs/architecture.md "NIC scheduler") and per-flow memory
// (docs/scale-flows.md): the ready list picks the same packets in the same order as visiting every active
// flow, the round robin is the one transport.h describes, and what a finished flow holds returns to
// the per-entry record.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include "../net/star.h"
#include "../sim/helpers.h"
#include "lb/policy.h"
#include "net/network.h"
#include "sim/simulation.h"
#include "topo/topology.h"
#include "transport/transport.h"
#include "workload/flow_spec.h"

using namespace lbsim;

namespace {

// SlotBits against std::set under random inserts and erases, across its three levels (slots up to
// 300,000 > 64^3 = 262,144 make a fourth level).
TEST(SlotBits, NextMatchesAnOrderedSet) {
  transport::SlotBits bits;
  std::set<std::uint32_t> ref;
  std::mt19937 rng(5);
  for (int round = 0; round < 20000; ++round) {
    const std::uint32_t range = round < 10000 ? 5000 : 300000;
    const std::uint32_t i = rng() % range;
    if (rng() % 3 == 0) {
      bits.clear(i);
      ref.erase(i);
    } else {
      bits.set(i);
      ref.insert(i);
    }
    const std::uint32_t q = rng() % (range + 70);
    const auto it = ref.lower_bound(q);
    ASSERT_EQ(bits.next(q), it == ref.end() ? transport::SlotBits::kNone : *it) << "round " << round << " query " << q;
    ASSERT_EQ(bits.test(i), ref.count(i) == 1);
  }
  // Walking the set visits every member in order.
  std::vector<std::uint32_t> walk;
  for (auto s = bits.next(0); s != transport::SlotBits::kNone; s = bits.next(s + 1)) walk.push_back(s);
  EXPECT_EQ(walk, std::vector<std::uint32_t>(ref.begin(), ref.end()));
  bits.reset();
  EXPECT_EQ(bits.next(0), transport::SlotBits::kNone);
}

// Records the data packets in the order the switch receives them (= the order the NIC sent them:
// one link, FIFO).
struct Recorder : test::ToDst {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> sent;  // (flow, psn)
  using ToDst::ToDst;
  std::int32_t route(std::int32_t at, net::Packet& p) override {
    if (p.type == net::PacketType::Data && p.src == 0) sent.emplace_back(p.flow, p.psn);
    return ToDst::route(at, p);
  }
};

// `flows` messages of `packets` full packets from host 0 to host 1, all starting at 0, each with a
// fixed window of `window` packets (cc "none").
struct ManyFlows {
  topo::Topology t = test::star(2);
  Recorder router{t};
  workload::Workload wl;
  std::unique_ptr<net::Network> net;
  std::unique_ptr<transport::Transport> tr;

  ManyFlows(std::uint32_t flows, std::uint32_t packets, std::uint32_t window) {
    for (std::uint32_t i = 0; i < flows; ++i) {
      workload::FlowSpec f;
      f.src = 0;
      f.dst = 1;
      f.bytes = static_cast<Bytes>(packets) * 4096;
      wl.flows.push_back(f);
    }
    net::NetConfig nc;
    nc.queue.data_limit = 1 << 30;
    nc.queue.ctrl_limit = 1 << 30;
    net = std::make_unique<net::Network>(t, nc, 1);
    transport::TransportParams tp;
    tp.rto = us(100000);
    tp.cc.name = "none";
    tp.cc.init_cwnd = tp.cc.max_cwnd = static_cast<Bytes>(window) * (4096 + 64);
    tp.cc.base_rtt = us(1);
    tr = std::make_unique<transport::Transport>(*net, wl, tp, [](const workload::FlowSpec&, std::uint32_t id) {
      return std::make_unique<lb::FixedEvPolicy>(id);
    });
    net->set_router(&router);
    net->set_host_handler(tr.get());
    tr->start();
  }
};

// Round robin over the host's flows (transport.h): with every window open, one packet of each flow
// in turn, in the order the flows started (their workload order here). The first packet leaves
// while flow 0 is the only flow (the others start at the same time, after it): the round robin then
// starts over from flow 0.
TEST(NicScheduler, RoundRobinOverAThousandFlows) {
  ManyFlows m(1000, 3, 1000);
  m.net->run(kTimeNever);
  ASSERT_EQ(m.tr->completed(), 1000u);
  std::vector<std::pair<std::uint32_t, std::uint32_t>> expected{{0, 0}};
  std::vector<std::uint32_t> next(1000, 0);
  next[0] = 1;
  while (expected.size() < 3000)
    for (std::uint32_t f = 0; f < 1000; ++f)
      if (next[f] < 3) expected.emplace_back(f, next[f]++);
  ASSERT_EQ(m.router.sent.size(), 3000u);
  for (std::size_t k = 0; k < expected.size(); ++k) {
    ASSERT_EQ(m.router.sent[k].first, expected[k].first) << "packet " << k;
    ASSERT_EQ(m.router.sent[k].second, expected[k].second) << "packet " << k;
  }
}

// A window of one packet: the first round sends PSN 0 of every flow; each ACK then reopens one
// window and the NIC, idle, sends that flow's next packet, so the second round follows the ACKs,
// which come back in send order: flow order again. Every flow's packets go out in PSN order.
TEST(NicScheduler, WindowLimitedFlowsFollowTheirAcks) {
  ManyFlows m(200, 4, 1);
  m.net->run(kTimeNever);
  ASSERT_EQ(m.tr->completed(), 200u);
  ASSERT_EQ(m.router.sent.size(), 800u);
  std::map<std::uint32_t, std::uint32_t> next;
  for (std::size_t k = 0; k < m.router.sent.size(); ++k) {
    const auto [flow, psn] = m.router.sent[k];
    if (k < 400) {
      EXPECT_EQ(flow, k % 200) << "packet " << k;
    }
    EXPECT_EQ(psn, next[flow]++) << "packet " << k;
  }
  // What is left once every flow is over: the per-entry records only (docs/architecture.md).
  m.net->run(kTimeNever);
  const auto mem = m.tr->memory();
  EXPECT_EQ(mem.entries, 200u);
  EXPECT_EQ(mem.live, 0u);
  EXPECT_GE(mem.peak_live, 200u);
  EXPECT_EQ(mem.policies, 0u);
  EXPECT_EQ(mem.ccs, 0u);
  EXPECT_EQ(mem.vector_bytes, 0u);
  for (const auto& f : m.tr->flows()) EXPECT_FALSE(f.live);
}

// 1,000 flows from one host of a 128-host fat tree to every other host, windows of 2 packets (most of
// the host's flows wait for ACKs), under the ready list and under the scan that visits every active
// flow: the same flows.csv, byte for byte. Also with holds (flowcut_nic drains, MP-RDMA's reordering
// cap) and a paced rate-based CC (DCQCN), the cases where the scan visits flows that cannot send.
std::string flows_csv(const std::string& name, const std::string& scheduler, const std::string& lb,
                      const std::string& cc) {
  auto c = test::small_fat_tree();
  const std::string dir = test::temp_dir("sched-" + name + "-" + scheduler);
  std::string csv = "src,dst,bytes,start_us\n";
  for (int i = 0; i < 1000; ++i) csv += fmt::format("0,{},{},{}\n", 1 + i % 127, 65536 + 4096 * (i % 7), (i % 5) * 0.5);
  // Background from other hosts into the same receivers: queues build, ECN marks and trims happen.
  for (int i = 0; i < 200; ++i) csv += fmt::format("{},{},262144,0\n", 1 + i % 127, 1 + (i % 127 + 1 + i % 7) % 127);
  c.set("workload.kind", "flows_csv");
  c.set("workload.file", test::write_file(dir + "/flows_in.csv", csv));
  c.set("transport.cwnd_packets", 2);
  c.set("transport.nic_scheduler", scheduler);
  c.set("lb.algorithm", lb);
  if (lb == "mprdma") c.set("lb.mprdma_delta", 2);
  if (!cc.empty()) c.set("transport.cc", cc);
  sim::Simulation s(c);
  EXPECT_EQ(s.run(), 0) << name;
  EXPECT_TRUE(lbsim::test::conserved(s));
  s.write_outputs(dir + "/out");
  return test::read_file(dir + "/out/flows.csv");
}

TEST(NicScheduler, ReadyListSendsLikeTheScan) {
  const std::vector<std::array<std::string, 3>> cases = {
      {"ops", "ops", ""}, {"flowcut", "flowcut_nic", ""}, {"mprdma", "mprdma", ""}, {"dcqcn", "ops", "dcqcn"}};
  for (const auto& k : cases) {
    const std::string ready = flows_csv(k[0], "ready", k[1], k[2]);
    const std::string scan = flows_csv(k[0], "scan", k[1], k[2]);
    EXPECT_GT(std::count(ready.begin(), ready.end(), '\n'), 1200) << k[0];
    EXPECT_TRUE(ready == scan) << k[0] << ": flows.csv differs between the ready list and the scan";
  }
}

// A Poisson trace: the transfers whose state exists at once (FlowLive) never exceed the transfers in
// progress at some moment, counted from flows.csv (start <= t < the later of the receiver's and
// the sender's completion), and once the run is over none is left; load balancers without a summary
// block (OPS) are gone with their flows.
TEST(FlowMemory, TraceHoldsStateOnlyForTransfersInProgress) {
  auto c = test::small_fat_tree();
  c.set("workload.kind", "cdf_trace");
  c.set("workload.cdf", "websearch");
  c.set("workload.load", 0.3);
  c.set("workload.duration_us", 400);
  c.set("lb.algorithm", "ops");
  sim::Simulation s(c);
  ASSERT_EQ(s.run(), 0);
  EXPECT_TRUE(lbsim::test::conserved(s));
  s.network().run(kTimeNever);  // the last senders' final ACKs
  const auto& tr = s.transport();
  const auto rows = s.flow_results();
  ASSERT_GT(rows.size(), 400u);
  std::vector<std::pair<SimTime, int>> ev;
  for (const auto& r : rows) {
    ASSERT_GE(r.sender_done, r.finish);
    ev.emplace_back(r.start, +1);
    ev.emplace_back(r.sender_done, -1);  // released at the later of the two
  }
  std::sort(ev.begin(), ev.end());  // at equal times a release (-1) comes before a start
  int cur = 0, peak = 0;
  for (const auto& e : ev) peak = std::max(peak, cur += e.second);
  const auto m = tr.memory();
  EXPECT_EQ(m.entries, rows.size());
  EXPECT_LE(m.peak_live, static_cast<std::size_t>(peak));
  EXPECT_LT(m.peak_live, rows.size() / 4);  // a small share of the trace at this load
  EXPECT_EQ(m.live, 0u);
  EXPECT_EQ(m.policies, 0u);
  EXPECT_EQ(m.ccs, 0u);
  EXPECT_EQ(m.vector_bytes, 0u);
}

}  // namespace
