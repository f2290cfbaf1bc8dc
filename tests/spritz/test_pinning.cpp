// Flows pinned to a path through a chosen group (flows_csv lb = via_group:<g>) under any routing,
// and path_usage.csv (output.path_usage_tag): what each EV of a tagged flow carried.
#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "../sim/helpers.h"
#include "core/error.h"
#include "sim/simulation.h"

using namespace lbsim;

namespace {

// Dragonfly p = 2, a = 4, h = 2: 9 groups of 4 switches, 72 hosts; host 0 is in group 0, host 8 in
// group 1 (one direct global link between every two groups).
config::Config small_dragonfly(const std::string& routing, const std::string& flows) {
  config::Config c;
  for (const char* o : {"topology.kind=\"dragonfly\"", "topology.p=2", "topology.a=4", "topology.h=2",
                        "workload.kind=\"flows_csv\"", "run.progress=\"off\""})
    config::apply_override(c, o);
  c.set("routing.algorithm", routing);
  c.set("lb.algorithm", "ecmp");
  c.set("workload.file", flows);
  return c;
}

// Packets each group's switches sent (ports.csv rows of switches labelled g<group>s<i>).
std::map<int, long> group_tx(const std::string& dir) {
  std::map<int, long> tx;
  std::istringstream in(test::read_file(dir + "/ports.csv"));
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    if (f[1].size() < 2 || f[1][0] != 'g') continue;
    tx[std::stoi(f[1].substr(1))] += std::stol(f[7]);
  }
  return tx;
}

}  // namespace

TEST(Pinning, ViaGroupTakesTheChosenGroupUnderAnyRouting) {
  const std::string dir = test::temp_dir("pinning");
  // 64 KiB = 16 data packets from group 0 to group 1.
  const auto flows =
      test::write_file(dir + "/flows.csv", "src,dst,bytes,start_us,tag,lb\n0,8,65536,0,pinned,via_group:5\n");
  for (const char* routing : {"minimal", "source_guided", "ugal_l"}) {
    auto c = small_dragonfly(routing, flows);
    sim::Simulation s(c);
    ASSERT_EQ(s.run(), 0) << routing;
    EXPECT_TRUE(lbsim::test::conserved(s));
    s.write_outputs(dir + "/" + routing);
    const auto tx = group_tx(dir + "/" + routing);
    // Every data packet crosses group 5 (ACKs return by the run's routing, which never enters it).
    EXPECT_GE(tx.count(5) ? tx.at(5) : 0, 16) << routing;
    // No other intermediate group sees the flow.
    for (const auto& [g, n] : tx)
      if (g != 0 && g != 1 && g != 5) {
        EXPECT_EQ(n, 0) << routing << " group " << g;
      }
  }
  // Unpinned, minimal routing goes straight from group 0 to group 1.
  const auto plain = test::write_file(dir + "/plain.csv", "src,dst,bytes,start_us,tag,lb\n0,8,65536,0,plain,\n");
  auto c = small_dragonfly("minimal", plain);
  sim::Simulation s(c);
  ASSERT_EQ(s.run(), 0);
  EXPECT_TRUE(lbsim::test::conserved(s));
  s.write_outputs(dir + "/plain");
  const auto tx = group_tx(dir + "/plain");
  EXPECT_EQ(tx.count(5) ? tx.at(5) : 0, 0);
}

namespace {
// Packets sent per switch-to-switch port (ports.csv rows whose node and peer are switches g<i>s<j>).
std::map<std::string, long> switch_port_tx(const std::string& dir) {
  std::map<std::string, long> tx;
  std::istringstream in(test::read_file(dir + "/ports.csv"));
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    if (f[1][0] != 'g' || f[4][0] != 'g') continue;
    if (const long n = std::stol(f[7]); n > 0) tx[f[1] + ":" + f[2]] = n;
  }
  return tx;
}
}  // namespace

// transport.pinned_acks = "pinned" (default): the ACKs of a pinned flow return over the source-guided
// path their echoed EV names, so data and ACKs cross the same switch ports, the same number of times,
// under every routing (the traffic of a pinned background is then identical in every row of a
// comparison); with "run_routing" Valiant spreads the 16 ACKs over random Valiant paths instead.
TEST(Pinning, PinnedAcksTakeTheSamePortsUnderEveryRouting) {
  const std::string dir = test::temp_dir("pinned_acks");
  const auto flows =
      test::write_file(dir + "/flows.csv", "src,dst,bytes,start_us,tag,lb\n0,8,65536,0,pinned,via_group:5\n");
  std::map<std::string, std::map<std::string, long>> by;
  for (const char* routing : {"source_guided", "minimal", "valiant", "ugal_l"}) {
    for (const char* acks : {"pinned", "run_routing"}) {
      auto c = small_dragonfly(routing, flows);
      c.set("transport.pinned_acks", acks);
      sim::Simulation s(c);
      ASSERT_EQ(s.run(), 0) << routing;
      EXPECT_TRUE(lbsim::test::conserved(s));
      const std::string out = dir + "/" + routing + "_" + acks;
      s.write_outputs(out);
      by[std::string(routing) + "/" + acks] = switch_port_tx(out);
    }
  }
  const auto& ref = by.at("source_guided/pinned");
  long total = 0;
  for (const auto& [port, n] : ref) total += n;
  // 16 data packets over a path through group 5 (>= 2 switch hops) and >= 15 ACKs back.
  EXPECT_GE(total, 2 * 16 + 2 * 15);
  for (const char* routing : {"minimal", "valiant", "ugal_l"})
    EXPECT_EQ(by.at(std::string(routing) + "/pinned"), ref) << routing;
  EXPECT_EQ(by.at("source_guided/run_routing"), ref);  // source-guided routing routes ACKs by the EV anyway
  EXPECT_NE(by.at("valiant/run_routing"), ref);
}

TEST(Pinning, BadViaGroupIsAClearError) {
  const std::string dir = test::temp_dir("pinning_bad");
  for (const char* lb : {"via_group:x", "via_group:-1", "via_group:", "via_gruop:3"}) {
    const auto flows =
        test::write_file(dir + "/f.csv", std::string("src,dst,bytes,start_us,tag,lb\n0,8,65536,0,t,") + lb + "\n");
    auto c = small_dragonfly("minimal", flows);
    EXPECT_THROW(sim::Simulation s(c), UserError) << lb;
  }
  // A group the pair's bounded paths never visit (there are 9 groups: 0..8).
  const auto flows = test::write_file(dir + "/g.csv", "src,dst,bytes,start_us,tag,lb\n0,8,65536,0,t,via_group:40\n");
  auto c = small_dragonfly("minimal", flows);
  try {
    sim::Simulation s(c);
    FAIL() << "expected an error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("no bounded path"), std::string::npos) << e.what();
  }
}

TEST(PathUsage, CountsEveryPacketAndFeedbackPerEv) {
  const std::string dir = test::temp_dir("path_usage");
  const auto flows = test::write_file(
      dir + "/flows.csv", "src,dst,bytes,start_us,tag,lb\n0,8,262144,0,monitored,ops_u\n9,17,1048576,0,other,\n");
  auto c = small_dragonfly("source_guided", flows);
  c.set("output.path_usage_tag", "monitored");
  sim::Simulation s(c);
  ASSERT_EQ(s.run(), 0);
  EXPECT_TRUE(lbsim::test::conserved(s));
  s.write_outputs(dir + "/run");
  std::istringstream in(test::read_file(dir + "/run/path_usage.csv"));
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line.rfind("flow,src,dst,ev,ev1,ev2,entry,latency_ns,switch_hops,category,path,sent,", 0), 0u);
  long sent = 0, fed_back = 0;
  int rows = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    ASSERT_EQ(f.size(), 18u) << line;
    EXPECT_EQ(f[0], "0");  // only the tagged flow
    EXPECT_GE(std::stoi(f[6]), 0) << "every OPS (u) EV is an entry of the list";
    EXPECT_EQ(f[10].rfind("g0s", 0), 0u) << f[10];             // path from the source switch ...
    EXPECT_NE(f[10].find("g1s"), std::string::npos) << f[10];  // ... into group 1
    sent += std::stol(f[11]);
    fed_back += std::stol(f[12]) + std::stol(f[13]) + std::stol(f[14]) + std::stol(f[15]);
    ++rows;
  }
  // 256 KiB = 64 packets sprayed over several paths; on an idle network every packet is acked once
  // (per-packet ACKs) and nothing is lost. (The 1 MiB flow keeps the run going until the last ACK
  // of the tagged flow is back: a run ends when every transfer has been delivered.)
  EXPECT_EQ(sent, 64);
  EXPECT_EQ(fed_back, 64);
  EXPECT_GT(rows, 1);
  // A tag no entry has is an error, not an empty file.
  auto bad = small_dragonfly("source_guided", flows);
  bad.set("output.path_usage_tag", "monitord");
  EXPECT_THROW(sim::Simulation s2(bad), UserError);
}
