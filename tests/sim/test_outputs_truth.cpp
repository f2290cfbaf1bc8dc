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

}  // namespace
}  // namespace lbsim
