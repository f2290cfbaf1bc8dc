#include "workload/ns3.h"

#include <gtest/gtest.h>

#include <sstream>

#include "core/error.h"

namespace lbsim::workload {
namespace {

const std::string kDir = LBSIM_SOURCE_DIR "/data/ns3-hpcc/";

TEST(Ns3Flows, ReadsTheHpccSampleLikeHpccDoes) {
  // flow.txt declares 2 flows on its first line and then lists 256 flows and usage notes; HPCC reads
  // exactly the declared count, so do we, with a warning about the rest.
  Ns3FlowParams p;
  p.path = kDir + "flow.txt";
  p.topology_path = kDir + "fat.txt";  // 376 nodes, switches 320..375: hosts are 0..319
  std::vector<std::string> warn;
  auto w = read_ns3_flows(p, 320, &warn);
  ASSERT_EQ(w.flows.size(), 2u);
  EXPECT_EQ(w.flows[0].src, 2);
  EXPECT_EQ(w.flows[0].dst, 1);
  EXPECT_EQ(w.flows[0].bytes, 200'000'000);
  EXPECT_EQ(w.flows[0].start, 2'000'000'000'000);  // 2 s in ps
  EXPECT_EQ(w.flows[1].src, 3);
  EXPECT_EQ(w.flows[1].dst, 1);
  ASSERT_EQ(warn.size(), 1u);
  EXPECT_NE(warn[0].find("flow.txt:4: ignored"), std::string::npos);
  EXPECT_NE(warn[0].find("2 flows declared on line 1"), std::string::npos);
}

TEST(Ns3Flows, SwitchIdsFromTheTopologyFile) {
  auto ids = read_ns3_switch_ids(kDir + "fat.txt");
  ASSERT_EQ(ids.size(), 56u);
  EXPECT_EQ(ids.front(), 320);
  EXPECT_EQ(ids.back(), 375);
}

Workload parse(const std::string& text, Ns3FlowParams p = {}, std::int32_t hosts = 8) {
  std::istringstream in(text);
  return parse_ns3_flows(in, "f.txt", p, hosts);
}

std::string error_of(const std::string& text, Ns3FlowParams p = {}, std::int32_t hosts = 8) {
  try {
    parse(text, p, hosts);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(Ns3Flows, InterleavedSwitchIdsAreSkipped) {
  Ns3FlowParams p;
  p.switch_ids = {0, 4};  // nodes: 0=switch, 1..3 = hosts 0..2, 4=switch, 5.. = hosts 3..
  p.tag_priority_group = true;
  auto w = parse("2\n1 5 3 100 1000 0.000001\n3 6 0 100 10 0\n", p);
  ASSERT_EQ(w.flows.size(), 2u);
  EXPECT_EQ(w.flows[0].src, 0);
  EXPECT_EQ(w.flows[0].dst, 3);
  EXPECT_EQ(w.flows[0].start, 1'000'000);  // 1 us
  EXPECT_EQ(w.tags[w.flows[0].tag], "pg3");
  EXPECT_EQ(w.flows[1].src, 2);
  EXPECT_EQ(w.flows[1].dst, 4);
  EXPECT_NE(error_of("1\n4 1 3 100 10 0\n", p).find("f.txt:2: src node 4 is a switch"), std::string::npos);
}

TEST(Ns3Flows, ErrorsNameTheLine) {
  EXPECT_NE(error_of("2\n0 1 3 100 10 0\n\n0 1 3 100 x 0\n").find("f.txt:4: bytes 'x'"), std::string::npos);
  EXPECT_NE(error_of("1\n0 1 3 100 10\n").find("f.txt:2: 5 fields"), std::string::npos);
  EXPECT_NE(error_of("3\n0 1 3 100 10 0\n").find("f.txt:1: declares 3 flows but the file has only 1"),
            std::string::npos);
  EXPECT_NE(error_of("1\n0 9 3 100 10 0\n").find("f.txt:2: dst 9 is out of range"), std::string::npos);
  EXPECT_NE(error_of("1\n0 1 3 100 10 -1\n").find("f.txt:2: start time -1"), std::string::npos);
  // Beyond int64 picoseconds (issue 14): an error with the line, not an overflowed start time.
  EXPECT_NE(
      error_of("1\n0 1 3 100 10 1e300\n").find("f.txt:2: start time 1e+300 s is beyond the largest simulated time"),
      std::string::npos);
  EXPECT_NE(error_of("1 2\n").find("f.txt:1: expected the number of flows"), std::string::npos);
  EXPECT_NE(error_of("").find("empty file"), std::string::npos);
}

}  // namespace
}  // namespace lbsim::workload
