// DCQCN (src/transport/dcqcn.h) against its equations ([DCQCN] sec. 3.1, the NIC model the LAPS
// artifact runs), for a scripted sequence of CNPs and timer ticks. The expected values are worked
// out here from the rules, step by step:
//   first CNP at t0: alpha = 1, alpha ticks at t0 + k x 1 us, decrease checks at t0 + 4 us + 1 ns + k x 4 us
//   alpha tick:      alpha = (1 - g) alpha (+ g if a CNP arrived since the previous tick)
//   decrease check:  (a CNP since the previous check) RT = RC if stage > 0, RC = max(min, RC (1 - alpha/2)),
//                    stage 0, increase ticks at +300 us, +600 us, ...
//   increase tick:   stage < F = 1: RC = (RC + RT) / 2; stage = F: RT += 5 Mb/s; stage > F: RT += 50 Mb/s;
//                    then RC = (RC + RT) / 2 (RT capped at the line rate) and stage + 1.
#include <gtest/gtest.h>

#include <cmath>

#include "sim/simulation.h"
#include "../sim/helpers.h"
#include "transport/dcqcn.h"
#include "transport/registry.h"

using namespace lbsim;
using namespace lbsim::transport;

namespace {
constexpr double L = 100e9;  // line rate
constexpr double g = 1.0 / 256;

CcParams params() {
  CcParams p;
  p.name = "dcqcn";
  p.mtu = 1048;
  p.init_cwnd = p.max_cwnd = 100 * 1048;
  p.base_rtt = us(8);
  return p;  // p.dcqcn: the defaults are the artifact's values
}

SimTime at(double us_, int ns_ = 0) { return from_us(us_) + ns(ns_); }
}  // namespace

TEST(Dcqcn, DefaultsAreTheArtifactValues) {
  const DcqcnParams d;
  EXPECT_DOUBLE_EQ(d.g, 1.0 / 256);
  EXPECT_DOUBLE_EQ(d.rate_ai, 5e6);
  EXPECT_DOUBLE_EQ(d.rate_hai, 50e6);
  EXPECT_DOUBLE_EQ(d.min_rate, 100e6);
  EXPECT_EQ(d.decrease_interval, us(4));
  EXPECT_EQ(d.rp_timer, us(300));
  EXPECT_EQ(d.alpha_interval, us(1));
  EXPECT_EQ(d.fast_recovery, 1u);
}

TEST(Dcqcn, RateFollowsTheEquationsStepByStep) {
  Dcqcn cc(params());
  cc.set_line_rate(gbps(100));
  EXPECT_TRUE(cc.paced());
  EXPECT_EQ(cc.rate(0), gbps(100));      // starts at line rate
  EXPECT_EQ(cc.rate(us(9)), gbps(100));  // no CNP, no timers

  // 1. First CNP at 10 us: alpha = 1; nothing decreases before the first check at 14 us + 1 ns.
  cc.cnp(us(10));
  EXPECT_DOUBLE_EQ(cc.current_rate(at(14)), L);
  // Ticks at 11..14 us found no CNP (the first one's flag is cleared): alpha = (1 - g)^4.
  const double a1 = std::pow(1 - g, 4);
  EXPECT_NEAR(cc.alpha(at(14)), a1, 1e-12);
  // 2. Check at 14 us + 1 ns: RC = L (1 - a1 / 2); stage 0, so RT stays L.
  const double rc1 = L * (1 - a1 / 2);
  EXPECT_NEAR(cc.current_rate(at(14, 1)), rc1, 1e-3);
  EXPECT_DOUBLE_EQ(cc.target_rate(at(14, 1)), L);
  EXPECT_EQ(cc.stage(at(14, 1)), 0u);
  EXPECT_EQ(cc.decreases(), 1u);
  // No CNP: the checks at 18, 22, ... us change nothing.
  EXPECT_NEAR(cc.current_rate(at(300)), rc1, 1e-3);
  // 3. Increase tick at 314 us + 1 ns: fast recovery (stage 0 < F = 1).
  const double rc2 = (rc1 + L) / 2;
  EXPECT_NEAR(cc.current_rate(at(314, 1)), rc2, 1e-3);
  EXPECT_EQ(cc.stage(at(314, 1)), 1u);
  // 4. 614 us + 1 ns: additive increase (stage 1 = F): RT = min(L, L + 5 Mb/s) = L.
  const double rc3 = (rc2 + L) / 2;
  EXPECT_NEAR(cc.current_rate(at(614, 1)), rc3, 1e-3);
  // 5. 914 us + 1 ns: hyper increase (stage 2 > F).
  const double rc4 = (rc3 + L) / 2;
  EXPECT_NEAR(cc.current_rate(at(914, 1)), rc4, 1e-3);
  EXPECT_EQ(cc.stage(at(1000)), 3u);
  // 6. CNP at 1000 us. Alpha ticks at 11..1000 us: 990 decays; the tick at 1001 us sees the CNP,
  // the one at 1002 us does not; the check at 1002 us + 1 ns decreases with stage 3 > 0: RT = RC.
  cc.cnp(us(1000));
  const double a2 = ((std::pow(1 - g, 991) + g)) * (1 - g);
  EXPECT_NEAR(cc.alpha(at(1002)), a2, 1e-12);
  const double rc5 = rc4 * (1 - a2 / 2);
  EXPECT_NEAR(cc.current_rate(at(1002, 1)), rc5, 1e-3);
  EXPECT_NEAR(cc.target_rate(at(1002, 1)), rc4, 1e-3);
  // 7-9. Fast recovery, additive (+5 Mb/s), hyper (+50 Mb/s) every 300 us from the decrease.
  const double rc6 = (rc5 + rc4) / 2;
  EXPECT_NEAR(cc.current_rate(at(1302, 1)), rc6, 1e-3);
  const double rt7 = rc4 + 5e6, rc7 = (rc6 + rt7) / 2;
  EXPECT_NEAR(cc.current_rate(at(1602, 1)), rc7, 1e-3);
  EXPECT_NEAR(cc.target_rate(at(1602, 1)), rt7, 1e-3);
  const double rt8 = rt7 + 50e6, rc8 = (rc7 + rt8) / 2;
  EXPECT_NEAR(cc.current_rate(at(1902, 1)), rc8, 1e-3);
  EXPECT_NEAR(cc.target_rate(at(1902, 1)), rt8, 1e-3);
  // The integer rate the NIC paces at.
  EXPECT_EQ(cc.rate(at(1950)), std::llround(rc8));
  EXPECT_EQ(cc.decreases(), 2u);
  EXPECT_EQ(cc.cnps(), 2u);
}

// At most one decrease per check interval, whatever the number of CNPs; never below the minimum rate.
TEST(Dcqcn, OneDecreasePerIntervalAndMinimumRate) {
  Dcqcn cc(params());
  cc.set_line_rate(gbps(100));
  cc.cnp(us(0));
  cc.cnp(ns(500));
  cc.cnp(us(2));
  cc.cnp(us(3));
  EXPECT_EQ(cc.decreases(), 0u);
  EXPECT_EQ(cc.cnps(), 4u);
  (void)cc.rate(at(4, 1));
  EXPECT_EQ(cc.decreases(), 1u);
  // A CNP every 500 ns up to 1 ms: a decrease at every check, i.e. at 4k us + 1 ns for k = 1..249
  // (1000 us + 1 ns is later); the rate ends at the floor.
  for (SimTime t = us(4) + ns(500); t <= us(1000); t += ns(500)) cc.cnp(t);
  EXPECT_EQ(cc.decreases(), 249u);
  EXPECT_DOUBLE_EQ(cc.current_rate(us(1000)), 100e6);
  EXPECT_EQ(cc.rate(us(1000)), 100'000'000);
}

// The NP's CNP interval (transport.dcqcn_cnp_interval_us): marked ACKs within it are not CNPs.
TEST(Dcqcn, CnpIntervalFiltersMarkedAcks) {
  CcParams p = params();
  p.dcqcn.cnp_interval = us(50);
  auto cc = make_cc(p);
  cc->set_line_rate(gbps(100));
  auto& d = dynamic_cast<Dcqcn&>(*cc);
  for (int i = 0; i < 10; ++i) cc->on_ack(1048, 1048, us(10 * i));  // 0, 10, ..., 90 us
  EXPECT_EQ(d.cnps(), 2u);                                          // at 0 and 50 us
  cc->on_ack(1048, 0, us(100));                                     // unmarked: no CNP
  EXPECT_EQ(d.cnps(), 2u);
  EXPECT_DOUBLE_EQ(cc->cwnd(), 100 * 1048.0);  // the window never moves
}

namespace {
config::Config fat_tree_flows(const std::string& cc) {
  config::Config c = test::small_fat_tree();
  c.set("workload.kind", "flows_csv");
  c.set("transport.preset", cc == "dcqcn" ? "laps_dcqcn" : "none");
  c.set("transport.cc", cc);
  c.set("network.mtu", 1000);
  c.set("network.header_bytes", 48);
  return c;
}
}  // namespace

// In a simulation: a lone DCQCN flow sees no CNP and is paced at line rate, so its FCT equals the
// fixed-window sender's with the same window; two DCQCN flows into one host (incast) get CNPs, cut
// their rates and both finish.
TEST(Dcqcn, PacedFlowsInASimulation) {
  const std::string dir = test::temp_dir("dcqcn-sim");
  const auto run = [&](const std::string& cc, const std::string& flows) {
    config::Config c = fat_tree_flows(cc);
    c.set("workload.file", test::write_file(dir + "/flows-" + cc + std::to_string(flows.size()) + ".csv", flows));
    if (cc != "dcqcn") {
      c.set("transport.init_cwnd_bdp", 1.0);
      c.set("transport.max_cwnd_bdp", 1.0);
      c.set("transport.delivery", "in_order");
      c.set("transport.in_order_recovery", "go_back_n");
    }
    sim::Simulation s(c);
    EXPECT_EQ(s.run(), 0);
    EXPECT_TRUE(test::conserved(s));
    return s.flow_results();
  };
  const std::string one = "src,dst,bytes,start_us\n0,100,2000000,0\n";
  const auto a = run("dcqcn", one), b = run("none", one);
  ASSERT_EQ(a.size(), 1u);
  EXPECT_EQ(a[0].fct(), b[0].fct());
  const std::string two = "src,dst,bytes,start_us\n0,100,4000000,0\n20,100,4000000,0\n";
  const auto r = run("dcqcn", two);
  ASSERT_EQ(r.size(), 2u);
  for (const auto& f : r) {
    EXPECT_GT(f.ecn_acks, 0u);
    // Two flows share the receiver's 400 Gb/s link: each needs at least 2 x its lone transfer time.
    EXPECT_GT(to_us(f.fct()), 2 * 4e6 * 8 / 400e9 * 1e6);
  }
}

// NIC pacing as such: a test-only rate CC that always answers 10 Gb/s. One 1,000,000-byte flow
// (1000 packets of 1048 wire bytes) on 400 Gb/s links then starts a packet every 1048 x 8 / 10 Gb/s
// = 838.4 ns: the last one leaves 999 x 838.4 ns after the first, and the FCT is that plus one
// packet's trip (less than the base RTT) - not the 21 us of line rate.
namespace {
class TenGig final : public CongestionControl {
 public:
  explicit TenGig(const CcParams& p) : CongestionControl(p) { paced_ = true; }
  BitsPerSec rate(SimTime) override { return gbps(10); }

 protected:
  void ack_unmarked(Bytes) override {}
  void ack_marked(Bytes, Bytes) override {}
  void loss(double) override {}
};
const RegisterCc kTenGig{{{"test_paced_10g", "Test only: paced at 10 Gb/s.", {}, {}}, nullptr, [](const CcParams& p) {
                            return std::make_unique<TenGig>(p);
                          }}};
}  // namespace

TEST(Pacing, NicHonoursTheCcRate) {
  const std::string dir = test::temp_dir("pacing");
  config::Config c = fat_tree_flows("test_paced_10g");
  c.set("workload.file", test::write_file(dir + "/flows.csv", "src,dst,bytes,start_us\n0,100,1000000,0\n"));
  c.set("transport.init_cwnd_bdp", 4.0);
  c.set("transport.max_cwnd_bdp", 4.0);
  sim::Simulation s(c);
  ASSERT_EQ(s.run(), 0);
  EXPECT_TRUE(lbsim::test::conserved(s));
  const auto r = s.flow_results().at(0);
  const double gap_ps = 1048 * 8 / 10e9 * 1e12;
  const double last_start_us = 999 * gap_ps / 1e6;
  EXPECT_GT(to_us(r.fct()), last_start_us);
  EXPECT_LT(to_us(r.fct()), last_start_us + to_us(s.derived().base_rtt));
  EXPECT_EQ(r.packets_sent, 1000u);
}
