// Faithful imports (issue 18): the htsim .cm start-time unit, `size 0`, GOAL's
// workload.rank_to_host, and entries timed after run.end_us (htsim, ns-3) named as such.
#include <gtest/gtest.h>

#include <sstream>

#include "core/error.h"
#include "../sim/helpers.h"
#include "workload/goal.h"
#include "workload/htsim_cm.h"

namespace lbsim::workload {
namespace {

Workload cm(const std::string& text, HtsimCmParams p, std::vector<std::string>* warn = nullptr) {
  std::istringstream in(text);
  p.warnings = warn;
  return parse_htsim_cm(in, "m.cm", p, 16);
}

TEST(Imports, HtsimStartUnitDetected) {
  HtsimCmParams p;
  p.detect_unit = true;
  std::vector<std::string> warn;
  // htsim's generators write us x 1e6: a start of 5000000 is 5 us, not 5 s.
  auto w = cm("Nodes 16\nConnections 2\n0->1 start 0 size 4096\n2->3 start 5000000 size 4096\n", p, &warn);
  EXPECT_EQ(w.flows[1].start, us(5));
  ASSERT_EQ(warn.size(), 1u);
  EXPECT_NE(warn[0].find("read as picoseconds"), std::string::npos) << warn[0];
  // Small values are microseconds (hand-written UEC htsim files), without a warning.
  warn.clear();
  w = cm("Nodes 16\nConnections 2\n0->1 start 0.5 size 4096\n2->3 start 10 size 4096\n", p, &warn);
  EXPECT_EQ(w.flows[0].start, ns(500));
  EXPECT_EQ(w.flows[1].start, us(10));
  EXPECT_TRUE(warn.empty());
  // A unit given explicitly is used as is.
  p.detect_unit = false;
  p.start_unit = us(1);
  w = cm("Nodes 16\nConnections 1\n0->1 start 5000000 size 4096\n", p);
  EXPECT_EQ(w.flows[0].start, us(5'000'000));
}

TEST(Imports, HtsimSizeZeroIsRejected) {
  try {
    cm("Nodes 16\nConnections 1\n0->1 start 0 size 0\n", HtsimCmParams{});
    FAIL() << "size 0 accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("m.cm:3: size 0: htsim runs such a connection as an unbounded flow"),
              std::string::npos)
        << e.what();
  }
}

Workload goal(const std::string& text, GoalParams p, std::int32_t hosts) {
  std::istringstream in(text);
  return parse_goal(in, "s.goal", p, hosts);
}

// Four ranks in a ring on two hosts.
const char* kRing =
    "num_ranks 4\n"
    "rank 0 { a: send 8b to 1\n b: recv 8b from 3 }\n"
    "rank 1 { a: recv 8b from 0\n b: send 8b to 2 }\n"
    "rank 2 { a: recv 8b from 1\n b: send 8b to 3 }\n"
    "rank 3 { a: recv 8b from 2\n b: send 8b to 0 }\n";

TEST(Imports, GoalRankToHostRules) {
  GoalParams p;
  // Without a mapping, 4 ranks do not fit on 2 hosts; the message names the key.
  try {
    goal(kRing, p, 2);
    FAIL() << "4 ranks on 2 hosts accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("workload.rank_to_host = \"modulo\""), std::string::npos) << e.what();
  }
  // modulo: ranks 0,2 on host 0 and 1,3 on host 1: every ring message crosses the network.
  p.rank_rule = "modulo";
  auto w = goal(kRing, p, 2);
  int transfers = 0;
  for (const auto& f : w.flows)
    if (!f.is_compute()) {
      ++transfers;
      EXPECT_NE(f.src, f.dst);
    }
  EXPECT_EQ(transfers, 4);
  // block: ranks 0,1 on host 0 and 2,3 on host 1: only 1->2 and 3->0 cross the network.
  p.rank_rule = "block";
  w = goal(kRing, p, 2);
  transfers = 0;
  for (const auto& f : w.flows) transfers += f.is_compute() ? 0 : 1;
  EXPECT_EQ(transfers, 2);
}

TEST(Imports, GoalRankToHostFileThroughTheConfig) {
  const auto dir = test::temp_dir("imports-goal");
  const auto sched = test::write_file(dir + "/ring.goal", kRing);
  const auto map = test::write_file(dir + "/map.txt", "# rank -> host\n3\n2\n1\n0\n");
  const auto cfg =
      test::write_file(dir + "/c.toml",
                       "[topology]\nhosts = 4\nradix = 4\n[workload]\nkind = \"goal\"\nfile = \"ring.goal\"\n"
                       "rank_to_host = \"map.txt\"\n[run]\nprogress = \"off\"\n");
  auto r = test::run_lbsim("run " + cfg + " --quiet --out " + dir + "/out");
  EXPECT_EQ(r.code, 0) << r.out;
  const std::string flows = test::read_file(dir + "/out/flows.csv");
  // The first transfer (rank 0 -> rank 1) runs from host 3 to host 2.
  EXPECT_NE(flows.find("\n0,3,2,8,"), std::string::npos) << flows;
  // A bad host id names the file and line.
  test::write_file(dir + "/map.txt", "0\n1\n9\n2\n");
  r = test::run_lbsim("run " + cfg + " --quiet --out " + dir + "/out2");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("map.txt:3: host 9 of rank 2 is not a host id (0..3)"), std::string::npos) << r.out;
}

TEST(Imports, EntriesAfterTheEndAreNamed) {
  // An ns-3 flow file whose second flow starts at 1 s, after run.end_us = 100 us.
  const auto dir = test::temp_dir("imports-late");
  test::write_file(dir + "/flow.txt", "2\n0 1 3 100 65536 0.000001\n2 3 3 100 65536 1.0\n");
  const auto cfg =
      test::write_file(dir + "/c.toml",
                       "[topology]\nhosts = 16\nradix = 8\n[workload]\nkind = \"ns3\"\nfile = \"flow.txt\"\n"
                       "[run]\nend_us = 100\nprogress = \"off\"\n");
  auto r = test::run_lbsim("run " + cfg + " --out " + dir + "/out");
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.out.find("warning: 1 of 2 workload entries start after run.end_us = 100 us (the first at 1000000 us)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("1 flow(s) unfinished at the end time (100 us), 1 of them because they start after it"),
            std::string::npos)
      << r.out;
  // htsim: the same, with a hint at the unit key.
  test::write_file(dir + "/m.cm", "Nodes 16\nConnections 1\n0->1 start 200 size 4096\n");
  const auto cfg2 =
      test::write_file(dir + "/c2.toml",
                       "[topology]\nhosts = 16\nradix = 8\n[workload]\nkind = \"htsim_cm\"\nfile = \"m.cm\"\n"
                       "[run]\nend_us = 100\nprogress = \"off\"\n");
  r = test::run_lbsim("run " + cfg2 + " --out " + dir + "/out2");
  EXPECT_EQ(r.code, 3) << r.out;
  EXPECT_NE(r.out.find("(check workload.htsim_start_unit)"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace lbsim::workload
