// The REPS paper's scenarios (examples/reps/*.toml) on the 128-host 2-tier fat tree, asserting the
// paper's qualitative results ([REPS] sec. 4.3, App. C), not its exact numbers.
#include <gtest/gtest.h>

#include <algorithm>

#include "../sim/helpers.h"

using namespace lbsim;
using lbsim::test::conserved;

namespace {

struct Result {
  double max_fct = 0;
  int completed = 0;
  std::uint64_t failure_drops = 0;
  Bytes max_queue = 0;           // largest data-queue occupancy of any switch port
  double slow_uplink_share = 0;  // tor0 -> spine0 bytes / all tor0 uplink bytes
  nlohmann::json summary;
};

Result run(const std::string& example, const std::string& lb, const std::vector<std::string>& overrides = {}) {
  config::Config c;
  config::load_file(c, std::string(LBSIM_SOURCE_DIR) + "/examples/reps/" + example);
  c.set("lb.algorithm", lb);
  c.set("run.progress", "off");
  for (const auto& o : overrides) config::apply_override(c, o);
  sim::Simulation s(c);
  s.run();
  EXPECT_TRUE(conserved(s)) << example << " " << lb;
  Result r;
  r.summary = s.summary();
  r.max_fct = r.summary["fct_us"]["max"].get<double>();
  r.completed = r.summary["completed"].get<int>();
  r.failure_drops = r.summary["failure_drops"].get<std::uint64_t>();
  auto& net = s.network();
  const auto& t = s.topology();
  Bytes up_total = 0, up_slow = 0;
  for (std::uint32_t i = 0; i < net.num_ports(); ++i) {
    const auto& p = net.port(i);
    if (p.is_nic) continue;
    r.max_queue = std::max(r.max_queue, p.stats.max_data_bytes);
    if (t.nodes[p.node].label == "tor0" && !t.is_host(p.peer)) {
      up_total += static_cast<Bytes>(p.stats.tx_bytes);
      if (t.nodes[p.peer].label == "spine0") up_slow += static_cast<Bytes>(p.stats.tx_bytes);
    }
  }
  r.slow_uplink_share = up_total ? static_cast<double>(up_slow) / static_cast<double>(up_total) : 0;
  return r;
}

}  // namespace

// sec. 4.3.1: in a healthy symmetric network REPS finishes no later than OPS and keeps queues lower;
// ECMP's hash collisions make it far slower.
TEST(RepsScenarios, SymmetricPermutationAndTornado) {
  for (const std::string w : {"symmetric_permutation.toml", "symmetric_tornado.toml"}) {
    const auto reps = run(w, "reps"), ops = run(w, "ops"), ecmp = run(w, "ecmp");
    EXPECT_EQ(reps.completed, 128);
    EXPECT_LE(reps.max_fct, ops.max_fct) << w;
    EXPECT_LT(reps.max_queue, ops.max_queue) << w;
    EXPECT_GT(ecmp.max_fct, 1.5 * reps.max_fct) << w;
  }
}

// Fig. 4: one of tor0's uplinks at 200 Gb/s. OPS sprays 1/8 of the bytes onto it regardless; REPS
// learns from ECN to send less there and finishes clearly faster.
TEST(RepsScenarios, AsymmetricMicroAvoidsSlowUplink) {
  const auto reps = run("asymmetric_micro.toml", "reps"), ops = run("asymmetric_micro.toml", "ops");
  EXPECT_EQ(reps.completed, 8);
  EXPECT_NEAR(ops.slow_uplink_share, 0.125, 0.02);
  EXPECT_LT(reps.slow_uplink_share, 0.75 * ops.slow_uplink_share);
  EXPECT_LT(reps.max_fct, 0.8 * ops.max_fct);
}

// sec. 4.3.2: 3% of the ToR uplinks at 200 Gb/s plus 10% ECMP background flows.
TEST(RepsScenarios, AsymmetricWithEcmpBackground) {
  const auto reps = run("asymmetric_background.toml", "reps"), ops = run("asymmetric_background.toml", "ops");
  EXPECT_EQ(reps.completed, 128);
  EXPECT_GT(reps.summary["fct_us_by_tag"].count("ecmp_background"), 0u);
  EXPECT_LT(reps.max_fct, 0.9 * ops.max_fct);
  EXPECT_LT(reps.summary["fct_us_by_tag"]["default"]["max"].get<double>(),
            ops.summary["fct_us_by_tag"]["default"]["max"].get<double>());
}

// sec. 4.3.3 / Fig. 7: two transient ToR-uplink failures. REPS freezes within one RTO of the first
// failure, loses far fewer packets than OPS and finishes faster.
TEST(RepsScenarios, TransientFailures) {
  const auto reps = run("failures_transient.toml", "reps"), ops = run("failures_transient.toml", "ops");
  EXPECT_EQ(reps.completed, 128);
  EXPECT_EQ(ops.completed, 128);
  const auto& rs = reps.summary["reps"];
  ASSERT_FALSE(rs["first_freeze_us"].is_null());
  const double freeze = rs["first_freeze_us"].get<double>();
  EXPECT_GE(freeze, 20.0);         // not before the first failure
  EXPECT_LE(freeze, 20.0 + 70.0);  // within one RTO of it
  EXPECT_GT(reps.failure_drops, 0u);
  EXPECT_LT(2 * reps.failure_drops, ops.failure_drops);
  EXPECT_LT(reps.max_fct, ops.max_fct);
}

// App. C.3: three of tor0's uplinks die 200 us apart, for good. REPS keeps finishing every flow and
// loses an order of magnitude fewer packets; OPS keeps spraying into the dead links.
TEST(RepsScenarios, IncrementalFailures) {
  const std::vector<std::string> shorter{"workload.size=\"8MiB\"", "run.end_us=3000"};
  const auto reps = run("failures_incremental.toml", "reps", shorter);
  const auto ops = run("failures_incremental.toml", "ops", shorter);
  EXPECT_EQ(reps.completed, 128);
  EXPECT_GT(reps.summary["reps"]["freeze_entries"].get<int>(), 0);
  EXPECT_LT(5 * reps.failure_drops, ops.failure_drops);
}

// App. C.4: without failures freezing never triggers (identical runs); with 1% of the cables dead,
// freezing mode loses no more packets than running without it.
TEST(RepsScenarios, FreezingOnOff) {
  const std::vector<std::string> healthy{"failures.random_fraction=0"};
  const auto on0 = run("freezing_on_off.toml", "reps", healthy);
  auto off_healthy = healthy;
  off_healthy.push_back("lb.reps_freezing=false");
  const auto off0 = run("freezing_on_off.toml", "reps", off_healthy);
  EXPECT_EQ(on0.max_fct, off0.max_fct);
  EXPECT_EQ(on0.summary["reps"]["freeze_entries"].get<int>(), 0);
  const auto on = run("freezing_on_off.toml", "reps");
  const auto off = run("freezing_on_off.toml", "reps", {"lb.reps_freezing=false"});
  EXPECT_EQ(on.completed, 128);
  EXPECT_EQ(off.completed, 128);
  EXPECT_GT(on.summary["reps"]["freeze_entries"].get<int>(), 0);
  EXPECT_EQ(off.summary["reps"]["freeze_entries"].get<int>(), 0);
  EXPECT_LE(on.failure_drops, off.failure_drops);
}

// Every baseline balancer and the adaptive switch routing complete the symmetric permutation.
TEST(RepsScenarios, BaselinesAndAdaptiveRoutingComplete) {
  for (const std::string lb : {"plb", "flowlet", "mprdma", "mptcp", "bitmap"})
    EXPECT_EQ(run("symmetric_permutation.toml", lb, {"workload.size=\"1MiB\""}).completed, 128) << lb;
  const auto ecmp = run("symmetric_permutation.toml", "ecmp");
  const auto adaptive = run("symmetric_permutation.toml", "ecmp", {"routing.algorithm=adaptive"});
  EXPECT_EQ(adaptive.completed, 128);
  EXPECT_LT(adaptive.max_fct, 0.5 * ecmp.max_fct);  // per-packet adaptive routing beats ECMP hashing
}

// sec. 4.5.1 / Fig. 13: with 8:1 ACK coalescing, "ACK + Carry EVs" (the coalesced ACK returns every
// non-ECN EV it covers) recycles more good paths than the plain ACK and finishes earlier.
TEST(RepsScenarios, AckCoalescingCarryEvs) {
  const auto plain = run("symmetric_permutation.toml", "reps", {"transport.ack_every=8"});
  const auto carry = run("symmetric_permutation.toml", "reps", {"transport.ack_every=8", "lb.reps_ack_mode=carry"});
  EXPECT_EQ(carry.completed, 128);
  EXPECT_LT(carry.max_fct, 0.95 * plain.max_fct);
}

// App. A without trimming: the max-RTT heuristic takes the black-holed packets of the transient
// failures for failures (REPS freezes) but not the congestion drops of a 16-to-1 incast.
TEST(RepsScenarios, FailureDetectionWithoutTrimming) {
  const auto fail = run("failures_transient.toml", "reps", {"network.trimming=false"});
  EXPECT_EQ(fail.completed, 128);
  EXPECT_GT(fail.summary["reps"]["freeze_entries"].get<int>(), 0);
  EXPECT_GT(fail.summary["reps"]["failures_detected"].get<int>(), 0);
  const auto incast =
      run("symmetric_permutation.toml", "reps",
          {"network.trimming=false", "workload.kind=incast", "workload.incast_senders=16", "workload.size=1048576"});
  EXPECT_EQ(incast.completed, 16);
  EXPECT_GT(incast.summary["timeouts"].get<int>(), 100);  // congestion losses, found by the RTO
  EXPECT_EQ(incast.summary["reps"]["failures_detected"].get<int>(), 0);
}

// The run summary says which start-time unit an htsim connection matrix was read with, and a
// REPS run reports its per-connection state (Table 1).
TEST(RepsScenarios, SummaryNamesHtsimStartUnitAndRepsState) {
  auto c = test::small_fat_tree();
  c.set("workload.kind", "htsim_cm");
  c.set("workload.file", std::string(LBSIM_SOURCE_DIR) + "/examples/workloads/incast_then_fanout.cm");
  c.set("workload.htsim_start_unit", "ps");
  c.set("lb.algorithm", "reps");
  sim::Simulation s(c);
  ASSERT_EQ(s.run(), 0);
  EXPECT_TRUE(lbsim::test::conserved(s));
  const auto j = s.summary();
  EXPECT_EQ(j["workload"]["htsim_start_unit"], "ps");
  EXPECT_EQ(j["reps"]["state_bits"].get<int>(), 193);
  EXPECT_EQ(j["reps"]["state_bytes"].get<int>(), 25);
  EXPECT_EQ(j["reps"]["flows"].get<int>(), 4);
  c.set("workload.kind", "permutation");
  c.set("lb.algorithm", "ops");
  sim::Simulation s2(c);
  const auto j2 = s2.summary();
  EXPECT_FALSE(j2["workload"].contains("htsim_start_unit"));
  EXPECT_FALSE(j2.contains("reps"));
}
