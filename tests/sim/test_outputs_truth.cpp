// Results that looked right and were not (issue "Every output tells the truth", items 3-5):
// utilisation above 1, statistics over no transfer shown as 0, a stopped run that looked finished,
// an RTO below the base RTT without a word.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "helpers.h"

namespace lbsim {
namespace {

// ports.csv rows as (node_label, peer_label, utilization).
struct PortUse {
  std::string node, peer;
  double utilization;
};
std::vector<PortUse> port_use(const std::string& dir) {
  std::istringstream in(test::read_file(dir + "/ports.csv"));
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line.rfind("node,node_label,port,peer,peer_label,link_kind,rate_gbps,tx_packets,tx_bytes,utilization,", 0),
            0u);
  std::vector<PortUse> out;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string x;
    while (std::getline(ss, x, ',')) f.push_back(x);
    out.push_back({f.at(1), f.at(4), std::stod(f.at(9))});
  }
  return out;
}

// Item 3: utilisation counted a packet when it started: run.end_us = 0.001 gave 83,200.
TEST(OutputsTruth, UtilisationCountsOnlyWhatWasOnTheWire) {
  auto c = test::small_fat_tree();
  c.set("workload.size", 64 << 10);
  c.set("run.end_us", 0.001);  // 1 ns: a 4160-byte packet takes 83.2 ns at 400 Gb/s
  sim::Simulation s(c);
  EXPECT_EQ(s.run(), 3);
  EXPECT_TRUE(test::conserved(s));
  const auto dir = test::temp_dir("truth-util-tiny");
  s.write_outputs(dir);
  int senders = 0;
  for (const auto& p : port_use(dir)) {
    EXPECT_LE(p.utilization, 1.0) << p.node << " -> " << p.peer;
    // Every host started its first packet at t = 0: its link was busy for the whole nanosecond.
    if (p.node == "h0" || p.node == "h5") {
      EXPECT_NEAR(p.utilization, 1.0, 1e-6) << p.node;
      ++senders;
    }
  }
  EXPECT_EQ(senders, 2);
}

// Item 3: 1 Mb/s links gave 1.33.
TEST(OutputsTruth, UtilisationOfSlowLinksStaysAtMostOne) {
  auto c = test::small_fat_tree();
  c.set("topology.hosts", 16);
  c.set("topology.radix", 8);
  for (const char* k : {"topology.host_rate_gbps", "topology.tier1_rate_gbps", "topology.tier2_rate_gbps"})
    c.set(k, 0.001);
  c.set("workload.size", 64 << 10);
  c.set("run.end_us", 100000.0);  // 0.1 s: 3 packets of 33.28 ms each on a host link
  sim::Simulation s(c);
  EXPECT_EQ(s.run(), 3);
  EXPECT_TRUE(test::conserved(s));
  const auto dir = test::temp_dir("truth-util-slow");
  s.write_outputs(dir);
  double h0 = -1;
  for (const auto& p : port_use(dir)) {
    EXPECT_LE(p.utilization, 1.0) << p.node << " -> " << p.peer;
    if (p.node == "h0") h0 = p.utilization;
  }
  EXPECT_NEAR(h0, 1.0, 1e-6) << "h0's window (more than a BDP) keeps its link busy for the whole 0.1 s";
}

// Item 4: every way a run ends is in summary.json "status"; a statistic over no transfer is null.
TEST(OutputsTruth, SummaryStatesHowTheRunEndedAndNoValueIsNotZero) {
  const auto small = [] {
    auto c = test::small_fat_tree();
    c.set("topology.hosts", 16);
    c.set("topology.radix", 8);
    c.set("workload.size", 64 << 10);
    return c;
  };
  {
    sim::Simulation s(small());
    EXPECT_EQ(s.run(), 0);
    EXPECT_TRUE(test::conserved(s));
    const auto j = s.summary();
    EXPECT_EQ(j["status"], "completed");
    EXPECT_EQ(j["fct_us"]["count"], 16u);
    EXPECT_GT(j["fct_us"]["max"].get<double>(), 0.0);
  }
  {
    auto c = small();
    c.set("run.end_us", 1.0);  // no 64 KiB transfer completes in 1 us
    sim::Simulation s(c);
    EXPECT_EQ(s.run(), 3);
    EXPECT_TRUE(test::conserved(s));
    const auto j = s.summary();
    EXPECT_EQ(j["status"], "unfinished");
    EXPECT_EQ(j["completed"], 0u);
    for (const char* d : {"fct_us", "ideal_fct_us", "slowdown"}) {
      EXPECT_EQ(j[d]["count"], 0u) << d;
      for (const char* stat : {"min", "max", "mean", "p50", "p99"}) EXPECT_TRUE(j[d][stat].is_null()) << d << stat;
    }
  }
  {
    // Every uplink of h0's switch down, routing never reacting: the watchdog stops the run.
    auto c = small();
    const auto dir = test::temp_dir("truth-watchdog");
    c.set("workload.kind", "flows_csv");
    c.set("workload.file", test::write_file(dir + "/f.csv", "src,dst,bytes,start_us\n0,8,65536,0\n"));
    std::string fail;
    for (int k = 0; k < 4; ++k) fail += "0 down tor0-spine" + std::to_string(k) + "\n";
    c.set("failures.file", test::write_file(dir + "/fail.txt", fail));
    c.set("run.end_us", 0.0);
    sim::Simulation s(c);
    EXPECT_EQ(s.run(), 3);
    EXPECT_TRUE(test::conserved(s));
    const auto j = s.summary();
    EXPECT_EQ(j["status"], "watchdog");
    EXPECT_TRUE(j["fct_us"]["max"].is_null());
  }
  {
    sim::Simulation s(small());
    sim::request_interrupt();
    EXPECT_EQ(s.run(), 130);
    sim::clear_interrupt();
    EXPECT_TRUE(test::conserved(s));
    EXPECT_EQ(s.summary()["status"], "interrupted");
  }
}

// Item 4: the console and the compare table show the status and "-" for a missing statistic.
TEST(OutputsTruth, ConsoleAndCompareShowTheStatusAndNoFakeZeros) {
  const auto dir = test::temp_dir("truth-console");
  const std::string demo = std::string(LBSIM_SOURCE_DIR) + "/examples/demo.toml";
  auto r = test::run_lbsim("run " + demo + " --out " + dir + "/r --set topology.hosts=16 --set run.end_us=1");
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.out.find("status: unfinished at run.end_us, t = 1.00 us: 0 of 16 transfers completed"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("FCT us: max -  p99 -  p50 -  mean -"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("0.00  p99"), std::string::npos) << r.out;
  r = test::run_lbsim("compare " + demo + " --lb ecmp,ops --out " + dir +
                      "/c --set topology.hosts=16 --set run.end_us=1");
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.out.find("done  status\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ecmp                       -           -           -         -"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0/16  unfinished\n"), std::string::npos) << r.out;
}

// Item 5: the demo's transport.rto_us = 70 on 1 Mb/s links (base RTT 135 ms) gave 94 spurious
// timeouts without a word.
TEST(OutputsTruth, RtoBelowTheBaseRttIsWarned) {
  const std::string demo = std::string(LBSIM_SOURCE_DIR) + "/examples/demo.toml";
  config::Config c;
  config::load_file(c, demo);
  c.set("topology.hosts", 16);
  c.set("run.progress", "off");
  ASSERT_EQ(c.real("transport.rto_us"), 70.0) << "the demo sets the RTO";
  {
    sim::Simulation s(c);  // 400 Gb/s: the base RTT is a few us
    EXPECT_LT(s.derived().base_rtt, us(70));
    EXPECT_TRUE(s.derived().warnings.empty());
  }
  for (const char* k : {"topology.host_rate_gbps", "topology.tier1_rate_gbps", "topology.tier2_rate_gbps"})
    c.set(k, 0.001);
  c.set("run.end_us", 1000.0);
  sim::Simulation s(c);
  EXPECT_GT(s.derived().base_rtt, ms(100));
  ASSERT_EQ(s.derived().warnings.size(), 1u);
  const auto& w = s.derived().warnings[0];
  EXPECT_NE(w.find("demo.toml:"), std::string::npos) << w;
  EXPECT_NE(w.find("transport.rto_us = 70 us is below the base RTT, "), std::string::npos) << w;
  s.run();
  EXPECT_TRUE(test::conserved(s));
  EXPECT_EQ(s.summary()["warnings"][0], w);
  // On the command line.
  const auto r = test::run_lbsim("run " + demo + " --quiet --out " + test::temp_dir("truth-rto") +
                                 " --set topology.hosts=16 --set topology.host_rate_gbps=0.001 "
                                 "--set topology.tier1_rate_gbps=0.001 --set run.end_us=1000");
  EXPECT_NE(r.out.find("lbsim: warning: " + std::string(LBSIM_SOURCE_DIR) + "/examples/demo.toml:"), std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace lbsim
