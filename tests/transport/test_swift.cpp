// Swift (src/transport/swift.h) against its rules ([Swift] sec. 3, Algorithm 1) and, in whole
// simulations, against what a delay-targeting AIMD window must do from first principles:
//  - a lone flow never sees its RTT reach the target (nothing queues), so it only grows and runs at
//    line rate;
//  - 16 flows into one host: the windows converge to equal shares (Jain's index of the last half's
//    per-flow rates >= 0.99), the receiver's link stays busy, and the bottleneck queue holds the
//    delay near the target (the band below);
//  - REPS under Swift with ECN marking off: REPS hears no marks, so every ACKed EV is recycled as
//    good, and every flow completes.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <sstream>

#include "../sim/helpers.h"
#include "sim/simulation.h"
#include "transport/registry.h"
#include "transport/swift.h"

using namespace lbsim;
using namespace lbsim::transport;

namespace {
constexpr Bytes kMtu = 1000;

CcParams params(double init_packets) {
  CcParams p;
  p.name = "swift";
  p.mtu = kMtu;
  p.init_cwnd = static_cast<Bytes>(init_packets * kMtu);
  p.max_cwnd = 1000 * kMtu;
  p.base_rtt = us(10);
  return p;  // p.swift: the defaults
}
}  // namespace

// Target = base + hops x h + fs(cwnd); fs(fs_min_cwnd) = fs_range x base, fs(fs_max_cwnd) = 0.
TEST(Swift, TargetScalesWithHopsAndWindow) {
  const SimTime base = us(10);
  Swift at_max(params(100));  // fs_max_cwnd = 100 packets: no flow scaling
  EXPECT_EQ(at_max.target(0), base);
  EXPECT_EQ(at_max.target(3), base + 3 * us(1));
  CcParams p = params(0.1);
  p.swift.min_cwnd = 0.01;
  Swift at_min(p);  // fs_min_cwnd = 0.1: the whole range, 5 base targets
  EXPECT_NEAR(at_min.window_packets(), 0.1, 1e-12);
  EXPECT_NEAR(static_cast<double>(at_min.target(0)), static_cast<double>(base + 5 * base), 2.0);
  // In between: alpha / sqrt(w) + beta, alpha = 50 us / (1/sqrt(0.1) - 1/sqrt(100)), beta = -alpha / 10.
  Swift mid(params(4));
  const double alpha = 50e6 / (1 / std::sqrt(0.1) - 0.1);
  EXPECT_NEAR(static_cast<double>(mid.target(2)), 10e6 + 2e6 + alpha / 2 - alpha / 10, 2.0);
}

// Below target: + ai / cwnd per packet acknowledged (one packet per RTT over a window of ACKs).
// Above: one cut per RTT by max(1 - beta (d - t) / d, 1 - max_mdf).
TEST(Swift, AdditiveIncreaseAndBoundedDecreaseOncePerRtt) {
  Swift cc(params(100));
  SimTime t = us(100);
  for (int i = 0; i < 100; ++i) cc.on_ack(kMtu, 0, t += ns(100), us(9));  // below the 10 us target
  EXPECT_NEAR(cc.window_packets(), 101.0, 0.01);
  const double w0 = cc.window_packets();
  const double tgt = static_cast<double>(cc.target(0));
  // RTT 25 us > target: cut by beta (d - t) / d, capped at max_mdf = 0.5.
  cc.on_ack(kMtu, 0, t += ns(100), us(25));
  const double f = std::max(1 - 0.8 * (25e6 - tgt) / 25e6, 0.5);
  EXPECT_NEAR(cc.window_packets(), w0 * f, 1e-9);
  EXPECT_EQ(cc.decreases(), 1u);
  // Within the same RTT (25 us): no second cut; ECN marks change nothing.
  const double w1 = cc.window_packets();
  cc.on_ack(kMtu, kMtu, t += us(5), us(40));
  EXPECT_DOUBLE_EQ(cc.window_packets(), w1);
  // A sample of 1000 us far above target, one such RTT after the cut: bounded by max_mdf.
  cc.on_ack(kMtu, 0, t += us(1000), us(1000));
  EXPECT_NEAR(cc.window_packets(), w1 * 0.5, 1e-9);
  EXPECT_EQ(cc.decreases(), 2u);
}

// Below one packet: AI adds ai per packet acknowledged, the window the transport reads stays one
// packet, and the NIC paces one packet per rtt / cwnd.
TEST(Swift, PacedBelowOnePacket) {
  CcParams p = params(0.25);
  Swift cc(p);
  cc.set_line_rate(gbps(100));
  EXPECT_TRUE(cc.paced());
  EXPECT_DOUBLE_EQ(cc.cwnd(), static_cast<double>(kMtu));
  // No RTT sample yet: the base RTT. 0.25 packets per 10 us = 1000 x 8 x 0.25 / 10 us = 200 Mb/s.
  EXPECT_EQ(cc.rate(0), 200'000'000);
  cc.on_ack(kMtu, 0, us(50), us(20));  // RTT below target (fs adds much at 0.25 packets)
  EXPECT_NEAR(cc.window_packets(), 1.25, 1e-12);
  EXPECT_EQ(cc.rate(us(50)), gbps(100));  // one packet or more: line rate, i.e. not paced
}

// NACK: a cut of max_mdf once per RTT; retx_reset RTO events in a row: min_cwnd; an RTO walk that
// declares several packets lost counts once.
TEST(Swift, LossAndTimeouts) {
  Swift cc(params(64));
  cc.on_nack(us(1), kMtu, 0);
  EXPECT_NEAR(cc.window_packets(), 32, 1e-9);
  cc.on_nack(us(2), kMtu, 0);  // same RTT (base 10 us, no sample yet)
  EXPECT_NEAR(cc.window_packets(), 32, 1e-9);
  for (int k = 1; k <= 4; ++k) {
    for (int i = 0; i < 3; ++i) cc.on_timeout(us(100 * k), kMtu, 0);  // three packets, one RTO event
    EXPECT_NEAR(cc.window_packets(), 32 * std::pow(0.5, k), 1e-9) << k;
  }
  cc.on_timeout(us(500), kMtu, 0);  // the fifth event in a row
  EXPECT_NEAR(cc.window_packets(), 0.001, 1e-12);
}

namespace {
// 32-host leaf-spine (8 leaves of 4 hosts, 100 Gb/s). Flows of `bytes` from `srcs` into host 0, run
// to `end_us`.
struct IncastRun {
  std::map<std::int32_t, std::uint64_t> rcv;  // src -> packets received by the end
  std::vector<double> queue_us;               // bottleneck queue (switch -> host 0), in us of line rate
  SimTime base_rtt = 0;
  Bytes packet_bytes = 0;
  int rc = 0;
  std::uint64_t trims = 0;
};

config::Config incast_config(const std::string& dir, const std::vector<int>& srcs, Bytes bytes, double end_us) {
  config::Config c = test::leaf_spine();
  std::ostringstream flows;
  flows << "src,dst,bytes,start_us\n";
  // Staggered starts (one every 50 us): the late flows must take their share from the early ones.
  for (std::size_t i = 0; i < srcs.size(); ++i) flows << srcs[i] << ",0," << bytes << "," << 50 * i << "\n";
  c.set("workload.kind", "flows_csv");
  c.set("workload.file", test::write_file(dir + "/flows.csv", flows.str()));
  c.set("transport.cc", "swift");
  c.set("network.mtu", 4096);
  c.set("network.queue_bdp", 8.0);  // room for the target's queue (several BDPs at small windows)
  c.set("run.end_us", end_us);
  return c;
}

IncastRun run_incast(const std::string& name, const std::vector<int>& srcs, Bytes bytes, double end_us,
                     double sample_us = 0) {
  const std::string dir = test::temp_dir(name);
  config::Config c = incast_config(dir, srcs, bytes, end_us);
  if (sample_us > 0) {
    c.set("output.queue_sample_us", sample_us);
    c.set("output.queue_ports", "all");
  }
  sim::Simulation s(c);
  IncastRun r;
  r.rc = s.run();
  EXPECT_TRUE(test::conserved(s));
  r.base_rtt = s.derived().base_rtt;
  r.packet_bytes = s.derived().packet_bytes;
  s.transport().for_each_report([&](const FlowReport& f) {
    r.rcv[f.src] = f.rcv_count;
    r.trims += f.n.nacks;
  });
  if (sample_us > 0) {
    s.write_outputs(dir + "/out");
    // The port into host 0 (its leaf's port whose peer is host 0): peer id 0.
    for (double b : test::queue_samples(dir + "/out/queues.csv", 0, end_us / 2))  // the last half
      r.queue_us.push_back(b * 8 / 100e9 * 1e6);
  }
  return r;
}
}  // namespace

// A lone flow never queues (its NIC is the slowest link), so its RTT stays at the base RTT, below the
// target: the window only grows and the transfer runs at line rate (FCT within 5% of the ideal).
TEST(SwiftSim, LoneFlowReachesLineRate) {
  const std::string dir = test::temp_dir("swift-lone");
  config::Config c = incast_config(dir, {20}, 20'000'000, 0);
  sim::Simulation s(c);
  ASSERT_EQ(s.run(), 0);
  EXPECT_TRUE(test::conserved(s));
  const auto r = s.flow_results().at(0);
  EXPECT_LT(static_cast<double>(r.fct()), 1.05 * static_cast<double>(r.ideal));
  EXPECT_EQ(r.nacks, 0u);
}

// 16 senders on leaves 1-4 (three switches to host 0 each: one target for all) into host 0.
TEST(SwiftSim, IncastConvergesToFairSharesNearTheTarget) {
  std::vector<int> srcs;
  for (int h = 4; h < 20; ++h) srcs.push_back(h);
  constexpr double kEnd = 4000;  // us
  const IncastRun half = run_incast("swift-incast-a", srcs, 1'000'000'000, kEnd / 2);
  const IncastRun full = run_incast("swift-incast-b", srcs, 1'000'000'000, kEnd, 1.0);
  ASSERT_EQ(full.rc, 3);  // nothing finishes: the flows are far longer than the run
  std::vector<double> rates;
  double total = 0;
  for (int src : srcs) {
    const double pk = static_cast<double>(full.rcv.at(src) - half.rcv.at(src));
    rates.push_back(pk);
    total += pk;
  }
  const double j = test::jain(rates);
  EXPECT_GE(j, 0.99);
  // The receiver's link busy: the wire bytes of the last half over its capacity.
  const double util = total * static_cast<double>(full.packet_bytes) * 8 / (100e9 * kEnd / 2 * 1e-6);
  EXPECT_GT(util, 0.95);
  // Queueing delay: each flow's window W = (BDP + Q) / 16 in packets settles where the RTT meets the
  // target, i.e. the queue Q (in time) = target(3 hops, W) - the path's unloaded RTT. The path is the
  // longest, so its unloaded RTT is the base target: Q = 3 x 1 us + fs(W). Band: the mean sampled
  // queue within +-30% of that Q, computed at the mean window the samples imply.
  double q = 0;
  for (double v : full.queue_us) q += v;
  ASSERT_FALSE(full.queue_us.empty());
  q /= static_cast<double>(full.queue_us.size());
  const double bdp_pk =
      static_cast<double>(bytes_in(full.base_rtt, gbps(100))) / static_cast<double>(full.packet_bytes);
  const double q_pk = q * 1e-6 * 100e9 / 8 / static_cast<double>(full.packet_bytes);
  const double w = (bdp_pk + q_pk) / 16;
  CcParams p = params(w);
  p.mtu = full.packet_bytes;
  p.init_cwnd = static_cast<Bytes>(w * static_cast<double>(full.packet_bytes));
  p.base_rtt = full.base_rtt;
  const Swift model(p);
  const double q_target = to_us(model.target(3) - full.base_rtt);
  EXPECT_GT(q, 0.7 * q_target);
  EXPECT_LT(q, 1.3 * q_target);
  RecordProperty("jain", std::to_string(j));
  RecordProperty("util", std::to_string(util));
  RecordProperty("queue_us", std::to_string(q));
  RecordProperty("target_queue_us", std::to_string(q_target));
  std::printf("jain %.5f util %.4f queue %.2f us target queue %.2f us (w %.2f pk, bdp %.1f pk) trims %llu\n", j, util,
              q, q_target, w, bdp_pk, static_cast<unsigned long long>(full.trims));
}

// REPS reads ECN marks ([REPS] Alg. 1 l. 6-8: a marked ACK's EV is not recycled). Under Swift the
// switches may mark nothing (network.ecn = false): then no ACK is marked, every ACKed EV is recycled
// and only trims (NACKs) and timeouts keep an EV out. A permutation over the 2-tier fat tree still
// completes, with every packet accounted for; with marking on, the same run does see marked ACKs
// (REPS's signal exists only then; Swift ignores it either way).
TEST(SwiftSim, RepsWithoutEcnMarksCompletes) {
  const auto run = [](bool ecn) {
    config::Config c = test::leaf_spine();
    c.set("workload.kind", "permutation");
    c.set("workload.size", std::int64_t{1 << 20});
    c.set("lb.algorithm", "reps");
    c.set("transport.cc", "swift");
    c.set("network.ecn", ecn);
    c.set("network.queue_bdp", 8.0);
    c.set("network.kmin", 0.01);  // marks from 8% of a BDP on: well inside Swift's target queue
    c.set("network.kmax", 0.1);
    sim::Simulation s(c);
    EXPECT_EQ(s.run(), 0);
    EXPECT_TRUE(test::conserved(s));
    std::uint64_t marked = 0, flows = 0;
    for (const auto& f : s.flow_results()) {
      EXPECT_TRUE(f.finished);
      marked += f.ecn_acks;
      ++flows;
    }
    EXPECT_EQ(flows, 32u);
    return marked;
  };
  EXPECT_EQ(run(false), 0u);
  EXPECT_GT(run(true), 0u);
}
