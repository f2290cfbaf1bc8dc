// `lbsim flowcut-memory` and `lbsim flowlet-timeouts` as a user runs them.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "../sim/helpers.h"

namespace {

using lbsim::test::run_lbsim;

}  // namespace

TEST(FlowcutCli, MemoryPrintsFig5AndCsv) {
  auto r = run_lbsim("flowcut-memory --fig 5");
  EXPECT_EQ(r.code, 0) << r.out;
  // 50 us: full switch 625000 active flows x 11 B = 6.5565 MiB; Flowlet 1024 x 10^4 x 5 B = 48.8281 MiB.
  EXPECT_NE(r.out.find("6.5565"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("48.8281"), std::string::npos) << r.out;
  r = run_lbsim("flowcut-memory --fig 4c --csv");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("hosts,full_f1,"), std::string::npos) << r.out;
  r = run_lbsim("flowcut-memory --fig 6");
  EXPECT_NE(r.code, 0);
}

TEST(FlowcutCli, FlowletTimeoutsNeedsAFlowletScheme) {
  const auto dir = lbsim::test::temp_dir("flowcut-cli");
  const auto cfg =
      lbsim::test::write_file(dir + "/c.toml", "[topology]\nhosts = 16\nradix = 8\n[workload]\nsize = \"64KiB\"\n");
  auto r = run_lbsim("flowlet-timeouts " + cfg);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("needs routing.algorithm = \"flowlet\""), std::string::npos) << r.out;
  // With switch Flowlet: one row per timeout tried and the three picks.
  r = run_lbsim("flowlet-timeouts " + cfg + " --set routing.algorithm='\"flowlet\"' --lo 0.5 --hi 8 --steps 2");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("Best"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Lowest OOO"), std::string::npos) << r.out;
}
