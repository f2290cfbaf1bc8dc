// The example files shipped in examples/workloads/ must stay valid, and mean what their comments say.
#include <gtest/gtest.h>

#include "workload/cdf.h"
#include "workload/goal.h"
#include "workload/htsim_cm.h"
#include "workload/ns3.h"
#include "workload/patterns.h"
#include "workload/validate.h"

namespace lbsim::workload {
namespace {

const std::string kDir = LBSIM_SOURCE_DIR "/examples/workloads/";

TEST(Examples, FlowsCsv) {
  auto w = read_flows_csv(kDir + "flows.csv", 8);
  ASSERT_EQ(w.flows.size(), 3u);
  EXPECT_EQ(w.tags[w.flows[0].tag], "monitored");
  EXPECT_EQ(w.flows[2].start, 2'500'000);
  validate_workload(w, 8);
}

TEST(Examples, CdfMeanAsDocumented) { EXPECT_DOUBLE_EQ(read_cdf_file(kDir + "two_step.cdf").cdf.mean(), 255250.0); }

TEST(Examples, HtsimBarrier) {
  HtsimCmParams p;
  p.path = kDir + "incast_then_fanout.cm";
  auto w = read_htsim_cm(p, 8);
  ASSERT_EQ(w.flows.size(), 4u);
  EXPECT_EQ(w.flows[2].start, 500'000);
  EXPECT_EQ(w.flows[3].deps, (std::vector<std::uint32_t>{0, 1, 2}));
}

TEST(Examples, GoalRing) {
  GoalParams p;
  p.path = kDir + "ring4.goal";
  auto w = read_goal(p, 4);
  validate_workload(w, 4);
  const auto s = workload_stats(w);
  EXPECT_EQ(s.transfers, 4u);
  EXPECT_EQ(s.computations, 12u);  // 2 calcs + 1 recv per rank
  EXPECT_EQ(s.total_bytes, 4 * 65536);
}

TEST(Examples, Ns3) {
  Ns3FlowParams p;
  p.path = kDir + "flows_ns3.txt";
  auto w = read_ns3_flows(p, 8);
  ASSERT_EQ(w.flows.size(), 3u);
  EXPECT_EQ(w.flows[2].start, 10'000'000);  // 10 us
}

}  // namespace
}  // namespace lbsim::workload
