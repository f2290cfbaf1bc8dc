// Flowcut switching ([Flowcut] sec. II): the draining detector and the NIC-only state machine step by
// step (sec. II-B, II-D), pause-timeout recovery (sec. IV-A), the full-switch ACK walk (sec. II-C),
// the in-order guarantee over seeds, variants and network conditions (sec. II-A), the in-order
// transport (sec. III-C2), MPRDMA's reordering cap, the Eq. 1 memory model (sec. III-A2) and the
// Flowlet timeout search (sec. III-C2).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "../sim/helpers.h"
#include "analysis/flowcut_memory.h"
#include "analysis/flowlet_search.h"
#include "lb/baselines.h"
#include "lb/flowcut.h"
#include "net/network.h"
#include "routing/flowcut.h"
#include "routing/registry.h"
#include "routing/tables.h"
#include "sim/derived.h"

using namespace lbsim;

namespace {

lb::PolicyContext context(std::size_t hosts = 4) {
  lb::PolicyContext c;
  c.src = 0;
  c.dst = 1;
  c.ev_space = 1u << 16;
  c.bdp_packets = 16;
  c.hosts = hosts;
  c.base_rtt = us(4);
  c.rto = us(70);
  c.rng = Rng(5, hash_name("lb"), 1);
  return c;
}

lb::AckDetail ack(SimTime now, SimTime rtt, int hops, Bytes inflight, SimTime tx_per_hop = ns(100)) {
  lb::AckDetail a;
  a.now = now;
  a.rtt = rtt;
  a.hops = hops;
  a.bytes = 4160;
  a.tx_per_hop = tx_per_hop;
  a.inflight = inflight;
  return a;
}

}  // namespace

// --- the detector of sec. II-B --------------------------------------------------------------------

TEST(FlowcutDetector, NormalisedRttEwmaAgainstTheHopMinimum) {
  lb::FlowcutParams p;
  p.alpha = 0.5;
  p.rtt_ratio = 4;
  lb::MinRttTable rmin;
  auto s = lb::DrainState::initial(p.reference, us(4));
  EXPECT_DOUBLE_EQ(s.ewma, 1.0);
  // 3 hops, p*h*t = 1 us: r_min(3) = 10 - 1 = 9 us, norm = 10 / (9 + 1) = 1, ewma = 1.
  EXPECT_FALSE(lb::flowcut_sample(p, rmin, s, us(10), 3, us(1)));
  EXPECT_EQ(rmin.get(3), us(9));
  EXPECT_DOUBLE_EQ(s.ewma, 1.0);
  // 50 us: norm = 5, ewma = 0.5 * 5 + 0.5 * 1 = 3 (below 4), change = 0.5 * (5 - 1) = 2.
  EXPECT_FALSE(lb::flowcut_sample(p, rmin, s, us(50), 3, us(1)));
  EXPECT_DOUBLE_EQ(s.ewma, 3.0);
  EXPECT_DOUBLE_EQ(s.change, 2.0);
  // 70 us: norm = 7, ewma = 0.5 * 7 + 0.5 * 3 = 5 > 4: drain.
  EXPECT_TRUE(lb::flowcut_sample(p, rmin, s, us(70), 3, us(1)));
  EXPECT_DOUBLE_EQ(s.ewma, 5.0);
  // The minimum is per hop count: a 5-hop sample has its own (20 - 2 = 18 us), norm = 1.
  auto t = lb::DrainState::initial(p.reference, us(4));
  EXPECT_FALSE(lb::flowcut_sample(p, rmin, t, us(20), 5, us(2)));
  EXPECT_EQ(rmin.get(5), us(18));
  EXPECT_EQ(rmin.get(3), us(9));
  // A smaller sample lowers the minimum; the normalised RTT never drops below 1.
  EXPECT_FALSE(lb::flowcut_sample(p, rmin, t, us(8), 3, us(1)));
  EXPECT_EQ(rmin.get(3), us(7));
  EXPECT_DOUBLE_EQ(t.ewma, 1.0);
}

TEST(FlowcutDetector, ChangeThresholdDrainsOnARisingRtt) {
  lb::FlowcutParams p;
  p.alpha = 0.5;
  p.rtt_ratio = 4;
  p.change_threshold = 1.5;
  lb::MinRttTable rmin;
  auto s = lb::DrainState::initial(p.reference, us(4));
  EXPECT_FALSE(lb::flowcut_sample(p, rmin, s, us(10), 3, us(1)));
  // Same samples as above: the change EWMA is 2 > 1.5 while the RTT EWMA (3) is below the ratio.
  EXPECT_TRUE(lb::flowcut_sample(p, rmin, s, us(50), 3, us(1)));
  EXPECT_DOUBLE_EQ(s.ewma, 3.0);
}

TEST(FlowcutDetector, FlowMinIsTheAuthorsRawRttRule) {
  lb::FlowcutParams p;
  p.alpha = 0.5;
  p.rtt_ratio = 4;
  p.reference = lb::FlowcutReference::FlowMin;
  lb::MinRttTable rmin;
  auto s = lb::DrainState::initial(p.reference, us(4));
  EXPECT_DOUBLE_EQ(s.ewma, static_cast<double>(us(4)));
  EXPECT_FALSE(lb::flowcut_sample(p, rmin, s, us(20), 3, 0));  // ewma 12 us < 4 * 4 us
  EXPECT_TRUE(lb::flowcut_sample(p, rmin, s, us(30), 3, 0));   // ewma 21 us > 16 us
}

// --- the NIC-only state machine (sec. II-D) -------------------------------------------------------

TEST(FlowcutNic, DrainHoldsUntilEverythingIsAckedThenANewFlowcutOnANewEv) {
  lb::FlowcutParams p;
  p.alpha = 0.5;
  p.rtt_ratio = 2;
  auto shared = std::make_shared<lb::FlowcutNicShared>(4);
  lb::FlowcutNicPolicy f(context(), p, us(70), shared);
  EXPECT_EQ(f.caps(), lb::kCapHold | lb::kCapAckDetail);
  // First packet: a flowcut opens (one table entry at host 0).
  lb::SendView v;
  EXPECT_EQ(f.hold(us(1), v), lb::kSendNow);
  EXPECT_EQ(f.flowcuts(), 1u);
  EXPECT_EQ(shared->usage[0].entries, 1u);
  const auto ev0 = f.next_ev(us(1));
  // More packets in flight: same flowcut, same EV.
  v.inflight = 8320;
  EXPECT_EQ(f.hold(us(2), v), lb::kSendNow);
  EXPECT_EQ(f.flowcuts(), 1u);
  EXPECT_EQ(f.next_ev(us(2)), ev0);
  // Uncongested ACKs (RTT = the minimum): no drain.
  f.on_ack_detail(ack(us(5), us(4), 3, 8320));
  f.on_ack_detail(ack(us(6), us(4), 3, 4160));
  EXPECT_FALSE(f.draining());
  // RTT x 5 twice: ewma 1 -> 3 (> 2): drain.
  f.on_ack_detail(ack(us(20), us(20), 3, 4160));
  EXPECT_TRUE(f.draining());
  EXPECT_EQ(f.drains(), 1u);
  // While draining with bytes in flight the flow is held until the pause timeout at the latest.
  v.inflight = 4160;
  EXPECT_EQ(f.hold(us(21), v), us(20) + us(70));
  EXPECT_EQ(f.flowcuts(), 1u);
  // The last ACK: nothing in flight, the drain is over and the entry is gone...
  f.on_ack_detail(ack(us(25), us(20), 3, 0));
  EXPECT_FALSE(f.draining());
  EXPECT_EQ(f.drain_time(), us(5));
  EXPECT_EQ(shared->usage[0].entries, 0u);
  EXPECT_EQ(f.next_ev(us(25)), ev0);
  // ...and the next send starts a new flowcut on a new random EV (congestion oblivious).
  v.inflight = 0;
  EXPECT_EQ(f.hold(us(26), v), lb::kSendNow);
  EXPECT_EQ(f.flowcuts(), 2u);
  EXPECT_NE(f.next_ev(us(26)), ev0);
  EXPECT_EQ(shared->usage[0].entries, 1u);
  EXPECT_EQ(shared->usage[0].peak, 1u);
  // A flow whose ACKs bring it to zero in flight without a drain closes its flowcut at once.
  f.on_ack_detail(ack(us(30), us(4), 3, 0));
  EXPECT_EQ(shared->usage[0].entries, 0u);
}

TEST(FlowcutNic, PauseTimeoutResumesOnTheOldEvWhenAnAckIsLost) {
  lb::FlowcutParams p;
  p.alpha = 1.0;  // the newest sample alone decides
  p.rtt_ratio = 2;
  auto shared = std::make_shared<lb::FlowcutNicShared>(4);
  lb::FlowcutNicPolicy f(context(), p, us(70), shared);
  lb::SendView v;
  v.inflight = 0;
  ASSERT_EQ(f.hold(0, v), lb::kSendNow);
  const auto ev0 = f.next_ev(0);
  f.on_ack_detail(ack(us(4), us(4), 3, 4160));
  f.on_ack_detail(ack(us(30), us(30), 3, 4160));
  ASSERT_TRUE(f.draining());
  // The ACK of the last 4160 bytes is lost: the transport keeps them in flight.
  v.inflight = 4160;
  EXPECT_EQ(f.hold(us(31), v), us(100));
  EXPECT_EQ(f.hold(us(99), v), us(100));
  // At the timeout the flow resumes on its old path (sec. IV-A).
  EXPECT_EQ(f.hold(us(100), v), lb::kSendNow);
  EXPECT_FALSE(f.draining());
  EXPECT_EQ(f.drain_timeouts(), 1u);
  EXPECT_EQ(f.flowcuts(), 1u);
  EXPECT_EQ(f.next_ev(us(100)), ev0);
}

// --- MPRDMA's reordering cap --------------------------------------------------------------------

TEST(Mprdma, DeltaCapsThePsnDistanceAndNeverHoldsRetransmissions) {
  lb::MprdmaPolicy off(context());
  EXPECT_EQ(off.caps(), 0);  // no cap: the transport never calls hold()
  lb::MprdmaPolicy m(context(), 4);
  EXPECT_EQ(m.caps(), lb::kCapHold);
  lb::SendView v;
  v.snd_una = 10;
  v.psn = 13;
  EXPECT_EQ(m.hold(0, v), lb::kSendNow);
  v.psn = 14;
  EXPECT_EQ(m.hold(0, v), kTimeNever);  // until the next ACK
  v.retransmit = true;
  EXPECT_EQ(m.hold(0, v), lb::kSendNow);
}

// --- Eq. 1 and Fig. 4/5 (sec. III-A2) -------------------------------------------------------------

TEST(FlowcutMemory, EqualsHandComputedEq1) {
  analysis::FlowcutMemoryInput in;  // 1024 hosts, 200 Gb/s, 5 us, 2 KiB, 64 ports
  // B*l/M = 25e9 B/s * 5e-6 s / 2048 B = 61.03515625 packets per host.
  in.flows_per_host = 1;  // 61.0 >= 1: every flow is active, F = H * f
  EXPECT_DOUBLE_EQ(analysis::active_flows(in), 1024.0);
  EXPECT_DOUBLE_EQ(analysis::full_switch_bytes(in), 1024.0 * 11);
  EXPECT_DOUBLE_EQ(analysis::nic_bytes(in), 10.0);
  in.flows_per_host = 10;  // 6.1 >= 1
  EXPECT_DOUBLE_EQ(analysis::active_flows(in), 10240.0);
  in.flows_per_host = 1e4;  // 0.0061 < 1: F = H * B * l / M
  EXPECT_DOUBLE_EQ(analysis::active_flows(in), 62500.0);
  EXPECT_DOUBLE_EQ(analysis::full_switch_bytes(in), 687500.0);
  EXPECT_DOUBLE_EQ(analysis::ingress_switch_bytes(in), 64 * 61.03515625 * 10);
  EXPECT_DOUBLE_EQ(analysis::nic_bytes(in), 610.3515625);
  EXPECT_DOUBLE_EQ(analysis::flowlet_bytes(in), 1024.0 * 1e4 * 5);
  EXPECT_DOUBLE_EQ(analysis::flowcell_bytes(in), 1024.0 * 1e4 * 2);
  // Sec. III-A2: at 50 us the full switch stays below 7 MiB: 625000 flows x 11 B = 6.56 MiB.
  in.latency_us = 50;
  EXPECT_DOUBLE_EQ(analysis::active_flows(in), 625000.0);
  EXPECT_LT(analysis::full_switch_bytes(in) / (1024.0 * 1024.0), 7.0);
  EXPECT_GT(analysis::full_switch_bytes(in) / (1024.0 * 1024.0), 6.5);
  // The report prints those numbers (Fig. 4(a), 50 us, f = 10^4: 6.5565 MiB).
  const auto r = analysis::flowcut_memory_report("4a", 2048, 64, false);
  EXPECT_NE(r.find("6.5565"), std::string::npos) << r;
  EXPECT_THROW(analysis::flowcut_memory_report("4d", 2048, 64, false), UserError);
}

// --- the Flowlet timeout search (sec. III-C2) -----------------------------------------------------

TEST(FlowletSearch, FindsTheShortestTimeoutBelowEachBound) {
  // A monotone model: ooo% = 40 / t (t in us): < 20% from t > 2, < 5% from 8, < 2% from 20.
  int runs = 0;
  const auto r = analysis::search_flowlet_timeouts(
      [&](double t) {
        ++runs;
        return 40.0 / t;
      },
      0.25, 64, 12);
  ASSERT_EQ(r.picks.size(), 3u);
  EXPECT_EQ(r.picks[0].name, "Best");
  EXPECT_NEAR(r.picks[0].timeout_us, 2.0, 0.01);
  EXPECT_NEAR(r.picks[1].timeout_us, 8.0, 0.04);
  EXPECT_NEAR(r.picks[2].timeout_us, 20.0, 0.1);
  EXPECT_LT(r.picks[2].ooo_pct, 2.0);
  EXPECT_EQ(static_cast<std::size_t>(runs), r.evaluated.size());  // cached, one run per timeout
  // A bound not reached even at the longest timeout has no pick.
  const auto none = analysis::search_flowlet_timeouts([](double) { return 50.0; }, 1, 10, 3);
  EXPECT_LT(none.picks[0].timeout_us, 0);
}

// --- the full-switch ACK walk (sec. II-C) ---------------------------------------------------------

namespace {

struct Walked {
  std::vector<std::int32_t> nodes;  // switches in order
};

// Moves a packet from its first switch through `r` to its destination host, setting in_port and hops
// as the network does; returns the switches visited.
Walked walk(net::Router& r, const topo::Topology& t, net::Packet& p, std::int32_t first_switch, std::uint16_t in_port) {
  Walked w;
  std::int32_t node = first_switch;
  p.in_port = in_port;
  for (int guard = 0; guard < 16; ++guard) {
    ++p.hops;
    w.nodes.push_back(node);
    const std::int32_t port = r.route(node, p);
    EXPECT_GE(port, 0);
    if (port < 0) break;
    const auto& tp = t.ports[static_cast<std::size_t>(node)][static_cast<std::size_t>(port)];
    if (tp.peer == p.dst) break;
    p.in_port = static_cast<std::uint16_t>(tp.peer_port);
    node = tp.peer;
  }
  return w;
}

config::Config three_tier(const std::string& routing) {
  config::Config c;
  c.set("topology.hosts", 16);
  c.set("topology.radix", 4);
  c.set("topology.tiers", 3);
  c.set("routing.algorithm", routing);
  c.set("run.progress", "off");
  return c;
}

// Walks data packets of many flows and their ACKs through a Flowcut router; returns the number of
// ACKs whose path is exactly the reverse of their data packet's.
int reversed_acks(routing::FlowcutMode mode, int& total) {
  auto c = three_tier(mode == routing::FlowcutMode::Full ? "flowcut_full" : "flowcut_ingress");
  config::check(c);
  sim::Simulation s(c);  // builds the topology and the network
  auto& net = s.network();
  const auto& t = s.topology();
  routing::MinimalTables tables(t);
  auto router = routing::make_router(routing::RoutingContext{c, tables, net, 1, us(10)});
  int reversed = 0;
  total = 0;
  for (std::uint32_t flow = 0; flow < 64; ++flow) {
    const auto src = static_cast<std::int32_t>(flow % 16);
    const auto dst = static_cast<std::int32_t>((flow * 7 + 5) % 16);
    if (src == dst || t.host_switch(src) == t.host_switch(dst)) continue;
    net::Packet d;
    d.type = net::PacketType::Data;
    d.flow = flow;
    d.src = src;
    d.dst = dst;
    d.ev = flow * 977;
    d.size = 4160;
    d.payload = 4096;
    const auto& hp = t.ports[static_cast<std::size_t>(src)][0];
    const Walked data = walk(*router, t, d, hp.peer, static_cast<std::uint16_t>(hp.peer_port));
    net::Packet a;
    a.type = net::PacketType::Ack;
    a.flow = flow;
    a.src = dst;
    a.dst = src;
    a.ev = d.ev;
    a.size = 64;
    a.payload = 4160;
    a.echo_hops = static_cast<std::uint8_t>(d.hops);
    const auto& dp = t.ports[static_cast<std::size_t>(dst)][0];
    const Walked back = walk(*router, t, a, dp.peer, static_cast<std::uint16_t>(dp.peer_port));
    std::vector<std::int32_t> rev(data.nodes.rbegin(), data.nodes.rend());
    ++total;
    if (back.nodes == rev) ++reversed;
    // The ACK subtracted the data packet's bytes everywhere: no entry is left.
    const auto& fr = static_cast<const routing::FlowcutRouter&>(*router);
    for (const auto n : data.nodes) EXPECT_EQ(fr.entry(n, flow), nullptr) << "flow " << flow << " switch " << n;
  }
  return reversed;
}

}  // namespace

TEST(FlowcutFull, AcksRetraceTheDataPathExactly) {
  int total = 0;
  const int reversed = reversed_acks(routing::FlowcutMode::Full, total);
  ASSERT_GT(total, 20);
  EXPECT_EQ(reversed, total);
}

TEST(FlowcutIngress, AcksTakeAnyPath) {
  // The contrast that makes the walk test meaningful: without the stored input ports some ACKs
  // take another path back (ECMP hashing of the ACK).
  int total = 0;
  const int reversed = reversed_acks(routing::FlowcutMode::Ingress, total);
  ASSERT_GT(total, 20);
  EXPECT_LT(reversed, total);
}

// --- no out-of-order packet ever reaches a Flowcut receiver (sec. II-A) --------------------------

namespace {

struct Variant {
  const char* name;
  const char* lb;
  const char* routing;
};
constexpr Variant kVariants[] = {
    {"nic", "flowcut_nic", "ecmp"}, {"ingress", "ecmp", "flowcut_ingress"}, {"full", "ecmp", "flowcut_full"}};

// A 3-tier, 2:1 oversubscribed fat tree (32 hosts, 2 pods) with a permutation of 256 KiB messages: the
// oversubscription makes the core congested, so flows drain and change paths.
config::Config congested(const Variant& v, std::uint64_t seed) {
  config::Config c;
  c.set("topology.hosts", 32);
  c.set("topology.radix", 8);
  c.set("topology.tiers", 3);
  c.set("topology.hosts_per_tor", 4);
  c.set("topology.oversubscription", 2);
  c.set("workload.kind", "permutation");
  c.set("workload.size", 256 << 10);
  c.set("lb.algorithm", v.lb);
  c.set("routing.algorithm", v.routing);
  c.set("transport.delivery", "in_order");
  c.set("flowcut.rtt_ratio", 1.5);  // drain often: many path changes to get wrong
  c.set("network.queue_bdp", 8.0);  // no trimming: every packet arrives once
  c.set("run.seed", static_cast<std::int64_t>(seed));
  c.set("run.progress", "off");
  c.set("run.end_us", 50000.0);
  return c;
}

struct Outcome {
  std::uint64_t ooo = 0, overtaken = 0, completed = 0, transfers = 0, drains = 0, trimmed = 0;
};

Outcome run(config::Config c) {
  config::check(c);
  sim::Simulation s(c);
  s.run();
  const auto j = s.summary();
  Outcome o;
  o.completed = j["completed"].get<std::uint64_t>();
  o.transfers = j["workload"]["transfers"].get<std::uint64_t>();
  for (const auto& f : s.transport().flows()) {
    o.ooo += f.n.ooo;
    o.overtaken += f.n.overtaken;
    o.trimmed += f.n.trimmed_rx;
  }
  if (j.contains("flowcut")) o.drains = j["flowcut"]["drains"].get<std::uint64_t>();
  if (j.contains("flowcut_nic")) o.drains = j["flowcut_nic"]["drains"].get<std::uint64_t>();
  EXPECT_TRUE(test::conserved(s));
  return o;
}

}  // namespace

TEST(FlowcutInOrder, NoOutOfOrderPacketUnderCongestionOverSeedsAndVariants) {
  for (const auto& v : kVariants) {
    std::uint64_t drains = 0;
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
      const auto o = run(congested(v, seed));
      EXPECT_EQ(o.completed, o.transfers) << v.name << " seed " << seed;
      EXPECT_EQ(o.trimmed, 0u) << v.name << " seed " << seed;
      EXPECT_EQ(o.ooo, 0u) << v.name << " seed " << seed;
      drains += o.drains;
    }
    EXPECT_GT(drains, 0u) << v.name << ": the scenario never drained a flow, the test proves nothing";
  }
}

TEST(FlowcutInOrder, SprayingTheSameScenarioIsOutOfOrder) {
  // The same scenario with per-packet spraying reorders: the property above is not vacuous.
  auto c = congested(kVariants[0], 1);
  c.set("lb.algorithm", "ops");
  const auto o = run(c);
  EXPECT_GT(o.ooo, 0u);
  EXPECT_GT(o.overtaken, 0u);
}

TEST(FlowcutInOrder, NoOutOfOrderPacketOnDegradedLinks) {
  for (const auto& v : kVariants) {
    for (std::uint64_t seed = 1; seed <= 2; ++seed) {
      auto c = congested(v, seed);
      c.set("failures.random_fraction", 0.25);
      c.set("failures.random_links", "switch_links");
      c.set("failures.random_kind", "degrade");
      c.set("failures.random_rate_gbps", 20.0);
      const auto o = run(c);
      EXPECT_EQ(o.completed, o.transfers) << v.name << " seed " << seed;
      EXPECT_EQ(o.ooo, 0u) << v.name << " seed " << seed;
    }
  }
}

TEST(FlowcutInOrder, RandomLossReordersNothingInTheNetwork) {
  // Lossy mode with random loss: a lost packet's successors arrive before its retransmission, which
  // the receiver counts as out of order; what Flowcut guarantees is that the network never lets a
  // packet overtake one sent before it (`overtaken`), and that every flow finishes (pause timeouts
  // resume flows whose ACKs were lost, sec. IV-A).
  for (const auto& v : kVariants) {
    std::uint64_t ooo = 0;
    for (std::uint64_t seed = 1; seed <= 2; ++seed) {
      auto c = congested(v, seed);
      c.set("failures.random_fraction", 0.5);
      c.set("failures.random_links", "all");
      c.set("failures.random_kind", "loss");
      c.set("failures.random_loss", 0.01);
      c.set("transport.pause_timeout_us", 30.0);
      const auto o = run(c);
      EXPECT_EQ(o.completed, o.transfers) << v.name << " seed " << seed;
      EXPECT_EQ(o.overtaken, 0u) << v.name << " seed " << seed;
      ooo += o.ooo;
    }
    EXPECT_GT(ooo, 0u) << v.name << ": no loss happened, the test proves nothing";
  }
}

// Sec. IV-A: an ACK lost after the ingress switch paused a flow leaves the switch's in-flight count
// above zero, so no XON comes; the source resumes after its pause timeout.
TEST(FlowcutIngress, PauseTimeoutResumesFlowsWhoseAcksWereLost) {
  std::uint64_t timeouts = 0, xoff = 0;
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    auto c = congested(kVariants[1], seed);
    c.set("failures.random_fraction", 1.0);
    c.set("failures.random_links", "all");
    c.set("failures.random_kind", "loss");
    c.set("failures.random_loss", 0.02);
    c.set("transport.pause_timeout_us", 20.0);
    config::check(c);
    sim::Simulation s(c);
    EXPECT_EQ(s.run(), 0) << "seed " << seed;
    EXPECT_TRUE(lbsim::test::conserved(s));
    const auto j = s.summary();
    timeouts += j["transport"]["pause_timeouts"].get<std::uint64_t>();
    xoff += j["flowcut"]["xoff_sent"].get<std::uint64_t>();
    EXPECT_EQ(j["unfinished"].get<std::uint64_t>(), 0u);
  }
  EXPECT_GT(xoff, 0u);
  EXPECT_GT(timeouts, 0u);
}

// --- the in-order transport (sec. III-C2) --------------------------------------------------------

TEST(InOrderTransport, GoBackNResendsAndBufferCountsTheReorderBuffer) {
  config::Config c;
  c.set("topology.hosts", 16);
  c.set("topology.radix", 8);
  c.set("workload.kind", "permutation");
  c.set("workload.size", 128 << 10);
  c.set("lb.algorithm", "ops");
  c.set("run.progress", "off");
  c.set("transport.delivery", "in_order");
  c.set("transport.in_order_recovery", "buffer");
  const auto b = run(c);
  EXPECT_GT(b.ooo, 0u);
  EXPECT_EQ(b.completed, b.transfers);
  {
    config::check(c);
    sim::Simulation s(c);
    s.run();
    const auto j = s.summary();
    EXPECT_GT(j["transport"]["reorder_buffer_max_packets"].get<std::uint32_t>(), 0u);
    EXPECT_GT(j["transport"]["max_reorder"].get<std::uint32_t>(), 0u);
    EXPECT_EQ(j["transport"]["go_back_n_rewinds"].get<std::uint64_t>(), 0u);
  }
  c.set("transport.in_order_recovery", "go_back_n");
  config::check(c);
  sim::Simulation s(c);
  EXPECT_EQ(s.run(), 0);
  const auto j = s.summary();
  EXPECT_GT(j["transport"]["go_back_n_rewinds"].get<std::uint64_t>(), 0u);
  EXPECT_GT(j["retransmits"].get<std::uint64_t>(), 0u);
  EXPECT_TRUE(test::conserved(s));
  // Every flow's bytes arrived once in order: the receiver holds every PSN.
  for (const auto& f : s.transport().flows()) EXPECT_EQ(f.rcv_count, f.npkts);
}

TEST(InOrderTransport, MprdmaDeltaBoundsTheReorderDistance) {
  config::Config c;
  c.set("topology.hosts", 16);
  c.set("topology.radix", 8);
  c.set("workload.kind", "permutation");
  c.set("workload.size", 256 << 10);
  c.set("lb.algorithm", "mprdma");
  c.set("lb.mprdma_delta", 8);
  c.set("run.progress", "off");
  c.set("network.queue_bdp", 8.0);
  config::check(c);
  sim::Simulation s(c);
  EXPECT_EQ(s.run(), 0);
  EXPECT_TRUE(lbsim::test::conserved(s));
  for (const auto& f : s.transport().flows()) EXPECT_LT(f.n.max_reorder, 8u);
  // Without the cap the same scenario reorders further (the bound above is the cap's doing).
  c.set("lb.mprdma_delta", 0);
  sim::Simulation u(c);
  EXPECT_EQ(u.run(), 0);
  EXPECT_TRUE(lbsim::test::conserved(u));
  std::uint32_t worst = 0;
  for (const auto& f : u.transport().flows()) worst = std::max(worst, f.n.max_reorder);
  EXPECT_GE(worst, 8u);
}

// Dragonfly: a new flowcut takes UGAL-L's choice at the source switch (flowcut.select = auto) and
// keeps its path (the Valiant intermediate in the entry) for the whole flowcut; UGAL-L per packet
// on the same scenario reorders.
TEST(FlowcutInOrder, DragonflyUgalPerFlowcutKeepsOrder) {
  const auto dragonfly = [](const std::string& routing, std::uint64_t seed) {
    config::Config c;
    c.set("topology.kind", "dragonfly");
    c.set("topology.p", 2);
    c.set("topology.a", 4);
    c.set("topology.h", 2);
    c.set("workload.kind", "permutation");
    c.set("workload.size", 512 << 10);
    c.set("lb.algorithm", "ecmp");
    c.set("routing.algorithm", routing);
    c.set("transport.delivery", "in_order");
    c.set("flowcut.rtt_ratio", 1.5);
    c.set("network.queue_bdp", 8.0);
    c.set("run.seed", static_cast<std::int64_t>(seed));
    c.set("run.progress", "off");
    return c;
  };
  for (std::uint64_t seed = 1; seed <= 2; ++seed) {
    for (const char* r : {"flowcut_full", "flowcut_ingress"}) {
      const auto o = run(dragonfly(r, seed));
      EXPECT_EQ(o.completed, o.transfers) << r << " seed " << seed;
      EXPECT_EQ(o.ooo, 0u) << r << " seed " << seed;
    }
    EXPECT_GT(run(dragonfly("ugal_l", seed)).ooo, 0u) << "seed " << seed;
  }
}

// flowcut.pause = "pfc": a drain pauses the source NIC's whole data class instead of one flow. With
// many flows per host (all-to-all) that stops flows that were not drained, so the run differs from
// FGFC; both keep every flow in order and finish (pauses end by XON or the pause timeout).
TEST(FlowcutInOrder, PfcClassPauseKeepsOrderAndDiffersFromFgfc) {
  const auto alltoall = [](const char* pause) {
    auto c = congested(kVariants[2], 1);
    c.set("workload.kind", "alltoall");
    c.set("workload.size", 128 << 10);
    c.set("flowcut.pause", pause);
    return c;
  };
  std::map<std::string, double> mean;
  for (const char* pause : {"fgfc", "pfc"}) {
    auto c = alltoall(pause);
    config::check(c);
    sim::Simulation s(c);
    EXPECT_EQ(s.run(), 0) << pause;
    EXPECT_TRUE(lbsim::test::conserved(s));
    const auto j = s.summary();
    EXPECT_EQ(j["ooo_packets"].get<std::uint64_t>(), 0u) << pause;
    EXPECT_GT(j["transport"]["pauses"].get<std::uint64_t>(), 0u) << pause;
    mean[pause] = j["fct_us"]["mean"].get<double>();
  }
  EXPECT_NE(mean["fgfc"], mean["pfc"]);
}
