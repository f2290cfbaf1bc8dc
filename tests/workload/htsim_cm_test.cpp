#include "workload/htsim_cm.h"

#include <gtest/gtest.h>

#include <sstream>

#include "core/error.h"
#include "workload/validate.h"

namespace lbsim::workload {
namespace {

Workload parse(const std::string& text, HtsimCmParams p = {}, std::int32_t hosts = 16) {
  std::istringstream in(text);
  return parse_htsim_cm(in, "m.cm", p, hosts);
}

std::string error_of(const std::string& text, HtsimCmParams p = {}, std::int32_t hosts = 16) {
  try {
    parse(text, p, hosts);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(HtsimCm, ReadsAnIncastMatrixWithMicrosecondStarts) {
  auto w = parse(
      "# 3-to-1 incast\n"
      "Nodes 16\n"
      "Connections 3\n"
      "0->15 start 0 size 2000000\n"
      "1->15 id 7 start 1.5 size 2000000\n"
      "2->15 start 10 size 4096 prio 3\n");
  ASSERT_EQ(w.flows.size(), 3u);
  EXPECT_EQ(w.flows[0].src, 0);
  EXPECT_EQ(w.flows[0].dst, 15);
  EXPECT_EQ(w.flows[0].bytes, 2'000'000);
  EXPECT_EQ(w.flows[1].start, 1'500'000);   // 1.5 us in ps
  EXPECT_EQ(w.flows[2].start, 10'000'000);  // 10 us
  EXPECT_EQ(w.flows[2].bytes, 4096);
}

TEST(HtsimCm, PicosecondStartUnitForTheRepsArtifact) {
  HtsimCmParams p;
  p.start_unit = ps(1);
  auto w = parse("Nodes 4\nConnections 1\n0->1 start 83200 size 4160\n", p, 4);
  EXPECT_EQ(w.flows[0].start, 83'200);
}

TEST(HtsimCm, TriggersBecomeDependencies) {
  auto w = parse(
      "Nodes 8\nConnections 5\nTriggers 2\n"
      "0->1 id 1 start 0 size 100 send_done_trigger 1\n"
      "2->1 id 2 start 0 size 100 recv_done_trigger 1\n"
      "1->3 id 3 trigger 1 size 100 send_done_trigger 2\n"
      "3->4 id 4 trigger 2 size 100\n"
      "4->5 id 5 start 3 size 100\n"
      "trigger id 1 barrier count 2\n"
      "trigger id 2 oneshot\n",
      {}, 8);
  ASSERT_EQ(w.flows.size(), 5u);
  EXPECT_EQ(w.flows[2].deps, (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(w.flows[3].deps, (std::vector<std::uint32_t>{2}));
  EXPECT_TRUE(w.flows[4].deps.empty());
  validate_workload(w, 8);
}

TEST(HtsimCm, UnexpressibleTriggersAreRejectedClearly) {
  const std::string head = "Nodes 8\nConnections 3\n";
  EXPECT_NE(error_of(head + "0->1 start 0 size 1 send_done_trigger 1\n"
                            "2->1 start 0 size 1 send_done_trigger 1\n"
                            "1->3 trigger 1 size 1\n"
                            "trigger id 1 oneshot\n",
                     {}, 8)
                .find("m.cm:5: oneshot trigger 1 (line 6) fires on the first of 2 signals"),
            std::string::npos);
  EXPECT_NE(error_of(head + "0->1 start 0 size 1 send_done_trigger 1\n"
                            "2->1 start 0 size 1\n"
                            "1->3 trigger 1 size 1\n"
                            "trigger id 1 barrier count 2\n",
                     {}, 8)
                .find("m.cm:5: barrier trigger 1 (line 6) fires after 2 signals but 1 connections"),
            std::string::npos);
  EXPECT_NE(error_of(head + "0->1 start 0 size 1\n2->1 start 0 size 1\n1->3 trigger 9 size 1\n", {}, 8)
                .find("m.cm:5: trigger 9 is used but never defined"),
            std::string::npos);
}

TEST(HtsimCm, ErrorsNameTheLine) {
  EXPECT_NE(
      error_of("Nodes 16\nConnections 2\n0->1 start 0 size 10\n").find("m.cm:2: 'Connections 2' but the file has 1"),
      std::string::npos);
  EXPECT_NE(error_of("Nodes 16\nConnections 1\n0->1 start 0 size 10 color red\n")
                .find("m.cm:3: unknown connection attribute 'color'"),
            std::string::npos);
  EXPECT_NE(error_of("Nodes 16\nConnections 1\n0->1 size 10\n").find("m.cm:3: connection has neither"),
            std::string::npos);
  EXPECT_NE(error_of("Nodes 16\nConnections 1\n0->1 start 0 trigger 1 size 10\ntrigger id 1 oneshot\n")
                .find("m.cm:3: connection has both"),
            std::string::npos);
  EXPECT_NE(error_of("Nodes 16\nConnections 1\n0->x start 0 size 10\n").find("m.cm:3: dst 'x'"), std::string::npos);
  EXPECT_NE(error_of("Nodes 16\nConnections 1\n0->16 start 0 size 10\n").find("m.cm:3: dst 16 is out of range"),
            std::string::npos);
  EXPECT_NE(error_of("Nodes 16\nConnections 1\n0->1 start 0 size\n").find("m.cm:3: 'size' needs a value"),
            std::string::npos);
  EXPECT_NE(error_of("Nodes 16\nConnections 0\nFailures 1\n").find("m.cm:3: failures"), std::string::npos);
  EXPECT_NE(error_of("Connections 0\n").find("missing 'Nodes"), std::string::npos);
  EXPECT_NE(error_of("Nodes 32\nConnections 0\n").find("m.cm:1: 'Nodes 32' but the topology has only 16"),
            std::string::npos);
}

TEST(HtsimCm, TriggerCyclesAreErrors) {
  EXPECT_NE(error_of("Nodes 4\nConnections 2\n"
                     "0->1 trigger 1 size 1 send_done_trigger 2\n"
                     "1->2 trigger 2 size 1 send_done_trigger 1\n"
                     "trigger id 1 oneshot\ntrigger id 2 oneshot\n",
                     {}, 4)
                .find("cycle"),
            std::string::npos);
}

}  // namespace
}  // namespace lbsim::workload
