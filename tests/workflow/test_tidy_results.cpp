// results.csv: a metric that has no value (a distribution over no completed transfer) is empty -
// NaN in pandas - not 0 or -1 (issue 18, "Tidy results").
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "../sim/helpers.h"
#include "workflow/sweep.h"

namespace lbsim::workflow {
namespace {

std::string col(const std::vector<std::string>& row, const std::string& name) {
  const auto& c = metric_columns();
  const auto it = std::find(c.begin(), c.end(), name);
  return it == c.end() ? "<none>" : row[static_cast<std::size_t>(it - c.begin())];
}

TEST(TidyResults, NoCompletedTransferGivesEmptyMetrics) {
  const auto dir = test::temp_dir("tidy-results");
  // A run stopped before any transfer completed (lbsim run --set run.end_us=0.001).
  auto r = test::run_lbsim("run " + std::string(LBSIM_SOURCE_DIR) + "/examples/demo.toml --quiet --out " + dir +
                           "/run --set topology.hosts=16 --set run.end_us=0.001");
  ASSERT_EQ(r.code, 3) << r.out;
  test::write_file(dir + "/run/.exit_code", "3\n");
  Point p;
  p.cfg.set("output.dir", dir + "/run");
  auto row = metrics_row(p);
  EXPECT_EQ(row[0], "unfinished");
  EXPECT_EQ(col(row, "completed"), "0");
  for (const char* m :
       {"max_fct_us", "p99_fct_us", "p50_fct_us", "mean_fct_us", "mean_slowdown", "p99_slowdown", "max_slowdown"})
    EXPECT_EQ(col(row, m), "") << m;
  EXPECT_NE(col(row, "drops"), "");  // counters keep their value (0 is a measurement)
  // A run that completed its transfers has every metric.
  r = test::run_lbsim("run " + std::string(LBSIM_SOURCE_DIR) + "/examples/demo.toml --quiet --out " + dir +
                      "/run2 --set topology.hosts=16 --set workload.size=\"64KiB\"");
  ASSERT_EQ(r.code, 0) << r.out;
  test::write_file(dir + "/run2/.exit_code", "0\n");
  p.cfg.set("output.dir", dir + "/run2");
  row = metrics_row(p);
  EXPECT_EQ(row[0], "ok");
  EXPECT_NE(col(row, "max_fct_us"), "");
  EXPECT_GT(std::stod(col(row, "max_fct_us")), 0.0);
}

}  // namespace
}  // namespace lbsim::workflow
