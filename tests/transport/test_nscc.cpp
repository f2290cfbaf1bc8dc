// UEC NSCC (src/transport/nscc.h, UEC 1.0 sec. 3.6.13): its rules one ACK at a time against values
// worked out here, then a 16-to-1 incast from first principles: the flows converge to equal shares
// of the receiver's link (Jain's index of the second half's per-flow rates >= 0.99), the link stays
// busy, and the bottleneck queue's time-average delay stays near target_qdelay; a lone flow reaches
// line rate.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <sstream>

#include "../sim/helpers.h"
#include "core/error.h"
#include "sim/simulation.h"
#include "transport/nscc.h"
#include "transport/registry.h"

using namespace lbsim;
using namespace lbsim::transport;

namespace {
// The reference network of the specification's gains: 100 Gb/s, 12 us base RTT, so a = b / 0.75 = 1
// with the trimming target 0.75 x 12 = 9 us.
constexpr Bytes kMtu = 4160;
CcParams params() {
  CcParams p;
  p.name = "nscc";
  p.mtu = kMtu;
  p.base_rtt = us(12);
  p.max_cwnd = 225'000;  // 1.5 x 150,000 B
  p.init_cwnd = 150'000;
  p.nscc.pacing = false;
  p.nscc.quick_adapt = false;
  return p;
}
}  // namespace

TEST(Nscc, DefaultsAndScaling) {
  Nscc cc(params());
  cc.set_line_rate(gbps(100));
  EXPECT_EQ(cc.target_qdelay(), us(9));  // trimming: 0.75 x base RTT
  // a = 1: fi' = 5 MTU, eta' = 0.15 MTU; b = 0.75: alpha' = 4 MTU x 0.75 / 9 us.
  EXPECT_DOUBLE_EQ(cc.fi_scaled(), 5.0 * kMtu);
  EXPECT_DOUBLE_EQ(cc.eta_scaled(), 0.15 * kMtu);
  EXPECT_DOUBLE_EQ(cc.alpha_scaled(), 4.0 * kMtu * 0.75 / 9e6);
  // At 400 Gb/s the BDP is 4 x the reference: a = 4.
  Nscc fast(params());
  fast.set_line_rate(gbps(400));
  EXPECT_DOUBLE_EQ(fast.fi_scaled(), 20.0 * kMtu);
  CcParams nt = params();
  nt.nscc.trimming = false;
  EXPECT_EQ(Nscc(nt).target_qdelay(), us(12));  // without trimming: the base RTT
}

// The four cases, one ACK each, adjustments applied at once (adjust_bytes = 0).
TEST(Nscc, FourCases) {
  CcParams p = params();
  p.nscc.adjust_bytes = 0;
  p.nscc.eta = 0;
  p.nscc.fast_increase_delay = 0;
  const double w0 = 150'000;
  SimTime t = us(100);
  // 1. No ECN, delay 12 us >= 9 us: fair increase, cwnd += fi' x acked / cwnd.
  {
    Nscc cc(p);
    cc.set_line_rate(gbps(100));
    cc.on_ack(kMtu, 0, t, us(24));
    EXPECT_NEAR(cc.cwnd(), w0 + 5.0 * kMtu * kMtu / w0, 1e-6);
    EXPECT_EQ(cc.counts().fair, 1u);
  }
  // 2. No ECN, delay 3 us < 9 us: proportional increase, alpha' x acked x (9 - 3 us) / cwnd.
  {
    Nscc cc(p);
    cc.set_line_rate(gbps(100));
    cc.on_ack(kMtu, 0, t, us(15));
    const double alpha = 4.0 * kMtu * 0.75 / 9e6;
    EXPECT_NEAR(cc.cwnd(), w0 + alpha * kMtu * 6e6 / w0, 1e-6);
    EXPECT_EQ(cc.counts().proportional, 1u);
  }
  // 3. ECN, delay 3 us < target: no change.
  {
    Nscc cc(p);
    cc.set_line_rate(gbps(100));
    cc.on_ack(kMtu, kMtu, t, us(15));
    EXPECT_DOUBLE_EQ(cc.cwnd(), w0);
    EXPECT_EQ(cc.counts().noop, 1u);
  }
  // 4. ECN, delay >= target: multiplicative decrease by gamma (avg - target) / avg, once per base RTT.
  //    delay_alpha = 1 makes the average the sample: avg = 18 us, cut = 0.8 x 9 / 18 = 0.4.
  {
    CcParams q = p;
    q.nscc.delay_alpha = 1.0;
    Nscc cc(q);
    cc.set_line_rate(gbps(100));
    cc.on_ack(kMtu, kMtu, t, us(30));
    EXPECT_NEAR(cc.cwnd(), w0 * 0.6, 1e-6);
    cc.on_ack(kMtu, kMtu, t + us(5), us(30));  // within a base RTT: no second cut
    EXPECT_NEAR(cc.cwnd(), w0 * 0.6, 1e-6);
    cc.on_ack(kMtu, kMtu, t + us(13), us(60));  // avg 48 us: cut 0.8 x 39 / 48 = 0.65 > max_md_jump 0.5
    EXPECT_NEAR(cc.cwnd(), w0 * 0.6 * 0.5, 1e-6);
    EXPECT_EQ(cc.counts().decreases, 2u);
  }
}

// QuickAdapt: after a NACK, once a period of base_rtt + target_qdelay (21 us) has been measured, the
// window becomes the bytes delivered over it when they are below max_cwnd / 8.
TEST(Nscc, QuickAdaptSetsTheWindowToTheDeliveredBytes) {
  CcParams p = params();
  p.nscc.quick_adapt = true;
  Nscc cc(p);
  cc.set_line_rate(gbps(100));
  cc.on_ack(kMtu, 0, us(1), us(13));  // opens the first period (1 us to 22 us)
  for (int i = 0; i < 3; ++i) cc.on_ack(kMtu, 0, us(10 + i), us(13));
  cc.on_nack(us(23), kMtu, 10 * kMtu);  // 3 MTUs delivered in the period < 225,000 / 8
  EXPECT_EQ(cc.counts().quick_adapts, 1u);
  EXPECT_DOUBLE_EQ(cc.cwnd(), 3.0 * kMtu);
  // Its stale feedback: ECN-marked ACKs of the 10 MTUs then in flight change nothing.
  cc.on_ack(kMtu, kMtu, us(24), us(40));
  EXPECT_DOUBLE_EQ(cc.cwnd(), 3.0 * kMtu);
  EXPECT_EQ(cc.counts().decreases, 0u);
}

// ---- In a simulation -----------------------------------------------------------------------------
namespace {
// The leaf-spine (32 hosts, 4 per leaf, 100 Gb/s) with NSCC; flows from hosts of other leaves.
config::Config nscc_net() {
  config::Config c = test::leaf_spine();
  c.set("workload.kind", "flows_csv");
  c.set("transport.cc", "nscc");
  c.set("run.seed", 1);
  return c;
}

struct Half {
  std::map<std::uint32_t, double> acked;  // flow id -> packets acknowledged (all full-size)
  double port_tx = 0;                     // bytes sent by the receiver's ToR port
};

// Runs until `end_us`: the acknowledged bytes per flow and the receiver's ToR port bytes.
Half run_until(config::Config c, double end_us, const std::string& out = "") {
  c.set("run.end_us", end_us);
  sim::Simulation s(c);
  s.run();
  Half h;
  for (const auto& f : s.transport().flows()) h.acked[f.id] = f.live ? static_cast<double>(f.live->acked) : 0;
  auto& net = s.network();
  for (std::uint32_t i = 0; i < net.num_ports(); ++i)
    if (!net.port(i).is_nic && net.port(i).peer == 0) h.port_tx = static_cast<double>(net.port(i).stats.tx_bytes);
  if (!out.empty()) s.write_outputs(out);
  return h;
}
}  // namespace

TEST(NsccSim, IncastConvergesToFairSharesNearTheTargetDelay) {
  const std::string dir = test::temp_dir("nscc-incast");
  std::string flows = "src,dst,bytes,start_us\n";
  for (int i = 0; i < 16; ++i) flows += std::to_string(4 + i) + ",0,100000000,0\n";
  config::Config c = nscc_net();
  c.set("workload.file", test::write_file(dir + "/flows.csv", flows));
  // 1 KB packets: a fair share is then a window of about 12 packets (BDP + queue over 16 flows), so
  // whole-packet rounding of the windows does not dominate the shares.
  c.set("network.mtu", 1024);
  c.set("output.queue_sample_us", 0.25);
  c.set("output.queue_ports", "all");
  // A cut at the target is small (gamma x (avg - target) / avg: a few % per base RTT), so the shares
  // converge over hundreds of base RTTs: 3 ms run, the second half measured.
  const double T = 3000;
  const Half a = run_until(c, T / 2), b = run_until(c, T, dir + "/out");
  std::vector<double> rates;
  for (const auto& [id, bytes] : b.acked) rates.push_back(bytes - a.acked.at(id));
  ASSERT_EQ(rates.size(), 16u);
  const double j = test::jain(rates);
  const double util = (b.port_tx - a.port_tx) * 8 / (100e9 * T / 2 * 1e-6);
  // Time-average of the receiver's ToR queue over the second half (queues.csv, every 0.25 us).
  sim::Simulation probe(c);
  const double target_us = 0.75 * to_us(probe.derived().base_rtt);
  const std::vector<double> q = test::queue_samples(dir + "/out/queues.csv", 0, T / 2);
  ASSERT_GT(q.size(), 0u);
  double sum = 0;
  for (double b : q) sum += b;
  const double qdelay_us = sum / static_cast<double>(q.size()) * 8 / 100e9 * 1e6;
  std::printf("jain %.4f utilisation %.4f queue delay %.3f us target %.3f us\n", j, util, qdelay_us, target_us);
  EXPECT_GE(j, 0.99);
  EXPECT_GT(util, 0.97);
  EXPECT_LE(util, 1.001);  // a packet in transmission at the boundary counts in full
  // The queue is held near the target: every ACK above it either decreases the window (marked) or
  // grows it by the fair increase only; below it the proportional increase fills the queue.
  EXPECT_GT(qdelay_us, 0.75 * target_us);
  EXPECT_LT(qdelay_us, 1.25 * target_us);
}

TEST(NsccSim, LoneFlowReachesLineRate) {
  const std::string dir = test::temp_dir("nscc-lone");
  config::Config c = nscc_net();
  c.set("workload.file", test::write_file(dir + "/flows.csv", "src,dst,bytes,start_us\n4,0,100000000,0\n"));
  const Half a = run_until(c, 200), b = run_until(c, 400);
  const double util = (b.port_tx - a.port_tx) * 8 / (100e9 * 200e-6);
  std::printf("lone flow utilisation %.4f\n", util);
  EXPECT_GT(util, 0.99);
}

// NSCC has its own QuickAdapt and fast increase: the SMaRTT options are refused, not ignored.
TEST(NsccSim, SmarttOptionsAreRefused) {
  const std::string dir = test::temp_dir("nscc-refused");
  config::Config c = nscc_net();
  c.set("workload.file", test::write_file(dir + "/flows.csv", "src,dst,bytes,start_us\n4,0,100000,0\n"));
  c.set("transport.quick_adapt", true);
  EXPECT_THROW(sim::Simulation{c}, UserError);
}
