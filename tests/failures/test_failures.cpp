// Failure schedules (src/net/failures.h): black holes, degraded links, transient failures, random
// link failures, routing convergence. 128-host 2-tier fat tree, 400 Gb/s, RTO 70 us ([REPS] 4.1).
#include <gtest/gtest.h>

#include <fmt/core.h>

#include "../sim/helpers.h"
#include "core/error.h"
#include "net/failures.h"

using namespace lbsim;
using lbsim::test::conserved;

namespace {

// One flow (or several) given as CSV rows, plus a failure file.
config::Config scenario(const std::string& name, const std::string& flows, const std::string& failures,
                        const std::string& lb = "ops") {
  auto c = test::small_fat_tree();
  const auto dir = test::temp_dir("fail-" + name);
  c.set("workload.kind", "flows_csv");
  c.set("workload.file", test::write_file(dir + "/flows.csv", "src,dst,bytes,start_us\n" + flows));
  if (!failures.empty()) c.set("failures.file", test::write_file(dir + "/failures.txt", failures));
  c.set("lb.algorithm", lb);
  c.set("transport.rto_us", 70);
  return c;
}

std::uint64_t total(sim::Simulation& s, std::uint64_t net::PortStats::*field) {
  std::uint64_t n = 0;
  for (std::uint32_t i = 0; i < s.network().num_ports(); ++i) n += s.network().port(i).stats.*field;
  return n;
}

}  // namespace

// A black-holed ToR uplink (tor0 -> spine0 only, so ACKs still come back) swallows the packets OPS
// sprays onto it: no trims, no NACKs; each lost packet is found by exactly one RTO and resent, and
// every byte arrives. About 1/8 of the 256 packets of 1 MiB take spine 0.
TEST(Failures, BlackHoleLosesSilentlyAndRtoRecovers) {
  sim::Simulation s(scenario("blackhole", "0,8,1048576,0\n", "0 down tor0-spine0 from=tor0\n"));
  ASSERT_EQ(s.run(), 0);
  const auto r = s.flow_results().at(0);
  const auto fdrops = total(s, &net::PortStats::failure_drops);
  EXPECT_GT(fdrops, 10u);
  EXPECT_LT(fdrops, 80u);
  EXPECT_EQ(total(s, &net::PortStats::trims), 0u);
  EXPECT_EQ(r.nacks, 0u);
  EXPECT_EQ(r.timeouts, fdrops);
  EXPECT_EQ(r.retransmits, fdrops);
  EXPECT_GE(r.fct(), r.ideal + us(70));  // at least one RTO on the critical path
  EXPECT_TRUE(conserved(s));
  EXPECT_EQ(s.summary()["failures"]["count"].get<int>(), 1);
}

// Every flow of a permutation recovers from a permanently failed (both directions) uplink.
TEST(Failures, PermutationRecoversFromDeadUplink) {
  auto c = test::small_fat_tree();
  c.set("workload.size", 256 << 10);
  c.set("transport.rto_us", 70);
  const auto dir = test::temp_dir("fail-perm");
  c.set("failures.file", test::write_file(dir + "/f.txt", "# a dead cable\n0 down tor2-spine5\n"));
  sim::Simulation s(c);
  ASSERT_EQ(s.run(), 0);
  EXPECT_GT(total(s, &net::PortStats::failure_drops), 0u);
  EXPECT_EQ(s.summary()["completed"].get<int>(), 128);
  EXPECT_TRUE(conserved(s));
}

// A degraded last hop (400 -> 200 or 100 Gb/s) is the bottleneck: a 4 MiB flow takes 2x / 4x as long.
TEST(Failures, DegradedLinkTakesProportionallyLonger) {
  auto fct = [](const std::string& fail) {
    sim::Simulation s(scenario("degrade", "0,8,4194304,0\n", fail, "ecmp"));
    EXPECT_EQ(s.run(), 0);
    EXPECT_TRUE(conserved(s));
    return static_cast<double>(s.flow_results().at(0).fct());
  };
  const double base = fct("");
  const double half = fct("0 degrade tor1-h8 rate_gbps=200\n");
  const double quarter = fct("0 degrade tor1-h8 rate_gbps=100 from=tor1\n");
  EXPECT_NEAR(half / base, 2.0, 0.1);
  EXPECT_NEAR(quarter / base, 4.0, 0.2);
}

// A transient failure ends: the receiver's link is black-holed from 10 to 40 us; afterwards the
// RTO resends what was lost and the flow finishes. The same failure without an end never finishes.
TEST(Failures, TransientFailureEnds) {
  {
    sim::Simulation s(scenario("transient", "0,8,1048576,0\n", "10 down tor1-h8 for_us=30 from=tor1\n", "ecmp"));
    ASSERT_EQ(s.run(), 0);
    const auto r = s.flow_results().at(0);
    EXPECT_GT(total(s, &net::PortStats::failure_drops), 0u);
    EXPECT_GT(r.fct(), us(40));
    EXPECT_LT(r.fct(), us(40) + us(70) * 3);
    auto& net = s.network();
    for (std::uint32_t i = 0; i < net.num_ports(); ++i) EXPECT_TRUE(net.port(i).up);
    EXPECT_TRUE(conserved(s));
  }
  {
    auto c = scenario("permanent", "0,8,1048576,0\n", "10 down tor1-h8 from=tor1\n", "ecmp");
    c.set("run.end_us", 500);
    sim::Simulation s(c);
    EXPECT_EQ(s.run(), 3);
    EXPECT_FALSE(s.flow_results().at(0).finished);
    EXPECT_TRUE(conserved(s));
  }
}

// A switch that goes down takes all its ports with it; random loss drops about prob x packets.
TEST(Failures, SwitchDownAndRandomLoss) {
  {
    sim::Simulation s(scenario("swdown", "0,8,1048576,0\n", "0 switch_down spine3 for_us=200\n"));
    ASSERT_EQ(s.run(), 0);
    EXPECT_GT(total(s, &net::PortStats::failure_drops), 0u);
    EXPECT_TRUE(conserved(s));
  }
  {
    sim::Simulation s(scenario("loss", "0,8,8388608,0\n", "0 loss tor0-h0 prob=0.05 from=h0\n", "ecmp"));
    ASSERT_EQ(s.run(), 0);
    const auto r = s.flow_results().at(0);
    const double lost = static_cast<double>(total(s, &net::PortStats::failure_drops));
    EXPECT_NEAR(lost / static_cast<double>(r.packets_sent), 0.05, 0.015);
  }
}

// With routing convergence the dead uplink leaves the ECMP group after 5 us, so far fewer packets
// are lost than when routing never reacts.
TEST(Failures, RoutingConvergenceMasksDeadPorts) {
  auto drops = [](double converge_us) {
    auto c = scenario("converge", "0,8,4194304,0\n1,9,4194304,0\n", "0 down tor0-spine0 from=tor0\n");
    c.set("failures.converge_us", converge_us);
    sim::Simulation s(c);
    EXPECT_EQ(s.run(), 0);
    EXPECT_TRUE(conserved(s));
    return total(s, &net::PortStats::failure_drops);
  };
  const auto never = drops(0), converged = drops(5);
  EXPECT_GT(never, 100u);
  EXPECT_LT(converged * 4, never);
}

TEST(Failures, RandomFractionPicksDistinctLinksOfTheClass) {
  auto c = test::small_fat_tree();
  const auto t = topo::build_topology(c);
  net::RandomFailures r;
  r.fraction = 0.03;  // 3% of the 16 x 8 = 128 ToR uplinks: round(3.84) = 4
  auto f = net::random_failures(r, t, 7);
  ASSERT_EQ(f.size(), 4u);
  for (std::size_t i = 0; i < f.size(); ++i)
    for (std::size_t j = 0; j < i; ++j) EXPECT_NE(f[i].link, f[j].link);
  for (const auto& x : f) EXPECT_EQ(t.links[x.link].kind, topo::LinkKind::Tier1);
  EXPECT_EQ(net::random_failures(r, t, 7)[0].link, f[0].link);  // seeded
  r.fraction = 0.001;
  EXPECT_EQ(net::random_failures(r, t, 7).size(), 1u);
}

TEST(Failures, FileErrorsNameTheLine) {
  auto c = test::small_fat_tree();
  const auto t = topo::build_topology(c);
  const auto dir = test::temp_dir("fail-errors");
  auto expect_error = [&](const std::string& text, const std::string& needle) {
    const auto path = test::write_file(dir + "/f.txt", text);
    try {
      net::read_failure_file(path, t);
      ADD_FAILURE() << "no error for: " << text;
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  expect_error("# ok\n0 down tor0-spine0\n5 explode tor0-spine0\n", "f.txt:3: unknown failure kind 'explode'");
  expect_error("0 down tor0-tor1\n", "f.txt:1: 'tor0-tor1' is not a link");
  expect_error("\n\n0 degrade tor0-spine0\n", "f.txt:3: degrade needs rate_gbps=");
  expect_error("x down tor0-spine0\n", "f.txt:1: start time 'x'");
  expect_error("0 down link:9999\n", "f.txt:1: link id");
  expect_error("0 down tor0-spine0 from=spine1\n", "f.txt:1: from=spine1");
  expect_error("0 switch_down h3\n", "f.txt:1: 'h3' is not a switch");
  // A failure at 1e300 us fired at t = 0 through an out-of-range cast (issue 14).
  expect_error("1e300 down tor0-spine0\n", "f.txt:1: start time 1e300 us is beyond the largest simulated time");
  expect_error("0 down tor0-spine0 for_us=1e13\n", "f.txt:1: for_us is beyond the largest simulated time");
  const auto ok =
      net::read_failure_file(test::write_file(dir + "/ok.txt", "1.5 loss link:3 prob=0.5 for_us=2 # comment\n"), t);
  ASSERT_EQ(ok.size(), 1u);
  EXPECT_EQ(ok[0].start, ns(1500));
  EXPECT_EQ(ok[0].duration, us(2));
  EXPECT_EQ(ok[0].link, 3);
  EXPECT_DOUBLE_EQ(ok[0].loss, 0.5);
}

// Issue 14: failures on one port nest. The end of a loss (or degrade) inside a longer down period
// keeps the port down; overlapping degrades keep the lowest rate; losses combine.
TEST(Failures, OverlappingFailuresNest) {
  auto c = test::small_fat_tree();
  const auto t = topo::build_topology(c);
  const auto dir = test::temp_dir("fail-nest");
  const auto fs = net::read_failure_file(test::write_file(dir + "/f.txt",
                                                          "0 down tor0-spine0 from=tor0 for_us=100\n"
                                                          "10 loss tor0-spine0 from=tor0 prob=0.5 for_us=10\n"
                                                          "30 degrade tor0-spine0 from=tor0 rate_gbps=100 for_us=40\n"
                                                          "40 degrade tor0-spine0 from=tor0 rate_gbps=200 for_us=10\n"
                                                          "50 loss tor0-spine0 from=tor0 prob=0.2 for_us=10\n"),
                                         t);
  net::Network net(t, net::NetConfig{}, 1);
  const auto ports = net::failure_ports(fs[0], net);
  ASSERT_EQ(ports.size(), 1u);
  const auto& p = net.port(ports[0]);
  const BitsPerSec full = p.rate;
  net::ActiveFailures a(fs);
  a.start(net, 0);
  a.start(net, 1);
  EXPECT_FALSE(p.up);
  EXPECT_EQ(p.loss_prob, 0.5);
  a.end(net, 1);  // the loss ends inside the down period
  EXPECT_FALSE(p.up);
  EXPECT_EQ(p.loss_prob, 0.0);
  a.start(net, 2);
  a.start(net, 3);
  EXPECT_EQ(p.rate, gbps(100));  // the lower of 100 and 200
  a.end(net, 3);
  EXPECT_EQ(p.rate, gbps(100));
  a.start(net, 4);
  a.start(net, 1);
  EXPECT_DOUBLE_EQ(p.loss_prob, 1.0 - 0.8 * 0.5);
  a.end(net, 4);
  a.end(net, 1);
  a.end(net, 2);
  EXPECT_EQ(p.rate, full);
  EXPECT_FALSE(p.up);
  a.end(net, 0);
  EXPECT_TRUE(p.up);
  EXPECT_EQ(p.loss_prob, 0.0);
}

// run.watchdog_us ([docs/reliability.md] "Stop conditions"): without an end time, a flow whose last
// hop is dead for good never finishes and its sender retransmits every RTO forever. The watchdog
// stops the run once nothing has progressed for the window (10 ms here, more than 20 x RTO = 1.4 ms):
// exit 3, the stuck flow listed, the healthy flow finished, and the stop no earlier than the last
// delivery + the window.
TEST(Watchdog, StopsARunWithoutEndTimeWhenNothingProgresses) {
  auto c = scenario("watchdog", "0,8,1048576,0\n1,9,1048576,0\n", "0 down tor1-h8\n", "ecmp");
  c.set("run.end_us", 0);
  sim::Simulation s(c);
  ASSERT_EQ(s.run(), 3);
  ASSERT_TRUE(s.stuck());
  const auto r = s.flow_results();
  EXPECT_FALSE(r.at(0).finished);
  ASSERT_TRUE(r.at(1).finished);
  const auto w = s.summary()["watchdog"];
  EXPECT_EQ(w["window_us"].get<double>(), 10000.0);
  EXPECT_EQ(w["stuck_started"].get<int>(), 1);
  EXPECT_EQ(w["stuck_waiting"].get<int>(), 0);
  ASSERT_EQ(w["first_stuck"].size(), 1u);
  EXPECT_EQ(w["first_stuck"][0]["id"].get<int>(), 0);
  EXPECT_EQ(w["first_stuck"][0]["received_packets"].get<int>(), 0);
  EXPECT_GT(w["first_stuck"][0]["timeouts"].get<int>(), 100);  // one per RTO for > 10 ms
  // Progress stopped with flow 1's last packet; the stop comes at the first event batch after the window.
  EXPECT_DOUBLE_EQ(w["no_progress_since_us"].get<double>(), to_us(r.at(1).finish));
  EXPECT_GE(w["stopped_at_us"].get<double>(), to_us(r.at(1).finish) + 10000.0);
  EXPECT_TRUE(conserved(s));
}

// A link that is down for longer than the window but comes back is not a stall: the watchdog waits
// for the failure schedule's last change, and the flow finishes after the repair.
TEST(Watchdog, WaitsForTheFailureScheduleToEnd) {
  auto c = scenario("watchdog-heal", "0,8,1048576,0\n", "0 down tor1-h8 for_us=25000\n", "ecmp");
  c.set("run.end_us", 0);
  sim::Simulation s(c);
  ASSERT_EQ(s.run(), 0);
  EXPECT_TRUE(lbsim::test::conserved(s));
  EXPECT_FALSE(s.stuck());
  EXPECT_GT(s.flow_results().at(0).finish, us(25000));
  EXPECT_FALSE(s.summary().contains("watchdog"));
}

// run.watchdog_us = 0 turns it off: the stuck run goes on to run.end_us.
TEST(Watchdog, OffRunsToTheEndTime) {
  auto c = scenario("watchdog-off", "0,8,1048576,0\n", "0 down tor1-h8\n", "ecmp");
  c.set("run.end_us", 30000);
  c.set("run.watchdog_us", 0);
  sim::Simulation s(c);
  ASSERT_EQ(s.run(), 3);
  EXPECT_TRUE(lbsim::test::conserved(s));
  EXPECT_FALSE(s.stuck());
  EXPECT_GT(s.summary()["sim_time_us"].get<double>(), 29900.0);  // the last event before the end time
}

// Memory of a stuck flow does not grow with simulated time: over 0.3 s (> 4,000 RTOs) its retransmit
// queue and send log stay within their compaction bounds (2 x 1,024 entries beyond the packets in
// flight; one entry per PSN sent and not acknowledged, with up to 8/3 x that capacity), although
// every RTO adds entries to both.
TEST(Watchdog, StuckFlowStateDoesNotGrowWithTime) {
  auto c = scenario("stuck-state", "0,8,1048576,0\n", "0 down tor1-h8\n", "ecmp");
  c.set("run.end_us", 300000);
  c.set("run.watchdog_us", 0);
  sim::Simulation s(c);
  ASSERT_EQ(s.run(), 3);
  EXPECT_TRUE(lbsim::test::conserved(s));
  const auto& f = s.transport().flows().at(0);
  EXPECT_GT(f.n.timeouts, 4000u);
  ASSERT_TRUE(f.live);  // unfinished: its transfer state is still held
  EXPECT_LE(f.live->rtx.size(), 2 * 1024u + f.npkts);
  EXPECT_LE(f.live->sendlog.capacity(), 3 * f.live->next_new);
}

// Issue "Every output tells the truth", item 2: with every uplink of tor0 down and routing
// converged, tor0 has no route for h0's packets and drops them; those drops were in no counter
// (console "drops 0", conservation.dropped far above failure_drops). Every data packet h0 sends
// is lost at tor0: on a dead uplink before convergence (failure_drops), with no route after.
TEST(Failures, NoRouteDropsAreCountedAndConserved) {
  std::string fail;
  for (int k = 0; k < 8; ++k) fail += fmt::format("0 down tor0-spine{}\n", k);
  auto c = scenario("noroute", "0,8,1048576,0\n", fail, "ecmp");
  c.set("failures.converge_us", 20.0);
  c.set("run.end_us", 1000.0);
  c.set("run.watchdog_us", 0.0);
  sim::Simulation s(c);
  EXPECT_EQ(s.run(), 3);
  EXPECT_TRUE(conserved(s));
  const auto& net = s.network();
  const auto r = s.flow_results().at(0);
  const std::uint64_t fdrops = total(s, &net::PortStats::failure_drops);
  EXPECT_GT(net.no_route_drops(), 0u);
  EXPECT_GT(fdrops, 0u);
  EXPECT_EQ(fdrops + net.no_route_drops(), r.packets_sent);
  EXPECT_EQ(net.ttl_drops(), 0u);
  // Counted at tor0's port from h0, in summary.json and ports.csv.
  const auto& topo = s.topology();
  std::uint64_t at_h0 = 0;
  for (std::uint32_t i = 0; i < net.num_ports(); ++i)
    if (topo.nodes[net.port(i).node].label == "tor0" && topo.nodes[net.port(i).peer].label == "h0")
      at_h0 = net.no_route_drops(i);
  EXPECT_EQ(at_h0, net.no_route_drops());
  const auto j = s.summary();
  EXPECT_EQ(j["no_route_drops"].get<std::uint64_t>(), net.no_route_drops());
  EXPECT_TRUE(j["conservation"]["ok"].get<bool>());
  EXPECT_EQ(j["conservation"]["dropped"].get<std::uint64_t>(),
            j["drops"].get<std::uint64_t>() + j["failure_drops"].get<std::uint64_t>() +
                j["ttl_drops"].get<std::uint64_t>() + j["no_route_drops"].get<std::uint64_t>());
  const auto dir = test::temp_dir("fail-noroute-out");
  s.write_outputs(dir);
  const auto ports = test::read_file(dir + "/ports.csv");
  EXPECT_NE(ports.find(",max_queue_bytes,no_route_drops\n"), std::string::npos);
  EXPECT_NE(ports.find(fmt::format(",{}\n", net.no_route_drops())), std::string::npos);
}
