// A new user's first frictions (issue "Every output tells the truth", items 6, 9, 10): messages that
// say what to do, nothing run or written before bad input is refused.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "../sim/helpers.h"

namespace {

namespace fs = std::filesystem;
using lbsim::test::run_lbsim;
const std::string kDemo = std::string(LBSIM_SOURCE_DIR) + "/examples/demo.toml";

// Item 9: `lbsim rn` said only "A subcommand is required".
TEST(Frictions, MisspelledCommandSuggestsTheCommand) {
  const auto r = run_lbsim("rn examples/demo.toml");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("unknown command 'rn'; did you mean 'run'?"), std::string::npos) << r.out;
  EXPECT_EQ(run_lbsim("xyzzy").code, 2);
}

// Item 9: a misspelled section suggested a key of it ('topology.p'), not the section.
TEST(Frictions, MisspelledSectionSuggestsTheSection) {
  const auto dir = lbsim::test::temp_dir("frictions-section");
  const auto cfg = lbsim::test::write_file(dir + "/c.toml", "[topolgy]\nhosts = 16\n");
  auto r = run_lbsim("topo " + cfg);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("c.toml:1: unknown section [topolgy] (did you mean [topology]?"), std::string::npos) << r.out;
  // On the command line: the key of that name in the closest section.
  const auto ok = lbsim::test::write_file(dir + "/ok.toml", "[topology]\nhosts = 16\nradix = 8\n");
  r = run_lbsim("topo " + ok + " --set topolgy.hosts=16");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("unknown key 'topolgy.hosts': no section [topolgy] (did you mean 'topology.hosts'?)"),
            std::string::npos)
      << r.out;
}

// Item 9: `compare --lb ecmp,foo` ran ecmp to the end before refusing foo.
TEST(Frictions, CompareChecksEverySchemeBeforeTheFirstRun) {
  const auto dir = lbsim::test::temp_dir("frictions-compare");
  const auto r = run_lbsim("compare " + kDemo + " --lb ecmp,foo --out " + dir + "/cmp");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("'foo' is not one of"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir + "/cmp/ecmp")) << "ecmp ran before foo was refused";
  EXPECT_EQ(r.out.find("max_fct_us"), std::string::npos) << "no table row before the refusal: " << r.out;
}

// Item 6: `lbsim run examples/demo.toml` wrote a run into the folder `make demo` filled with its
// compare, and `lbsim report` then replaced the compare's report with a run's.
TEST(Frictions, ACommandWritesIntoAnotherCommandsFolderOnlyWhenAsked) {
  const auto dir = lbsim::test::temp_dir("frictions-folders");
  const std::string small = " --set topology.hosts=16 --set workload.size=\\\"16KiB\\\"";
  const std::string cmp = dir + "/cmp", one = dir + "/one";
  auto r = run_lbsim("compare " + kDemo + " --lb ecmp,ops --out " + cmp + small);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(lbsim::test::read_file(cmp + "/compare.json").find("\"key\": \"lb.algorithm\""), std::string::npos);
  // The compare's folder as a run's output.dir (from the config, not --out): refused, nothing written.
  r = run_lbsim("run " + kDemo + " --quiet --set output.dir=\\\"" + cmp + "\\\"" + small);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("holds the results of `lbsim compare`; a run written there would mix with them: give --out"),
            std::string::npos)
      << r.out;
  EXPECT_FALSE(fs::exists(cmp + "/summary.json"));
  // A run's folder as a compare's parent folder: refused.
  ASSERT_EQ(run_lbsim("run " + kDemo + " --quiet --out " + one + small).code, 0);
  r = run_lbsim("compare " + kDemo + " --lb ecmp,ops --set output.dir=\\\"" + one + "\\\"" + small);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("holds the results of `lbsim run`"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(one + "/ecmp"));
  // Asked with --out: written. The report of the compare is then not replaced by a run's.
  ASSERT_EQ(run_lbsim("report " + cmp).code, 0);
  ASSERT_EQ(run_lbsim("run " + kDemo + " --quiet --out " + cmp + small).code, 0);
  r = run_lbsim("report " + cmp);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("is the report of a compare folder"), std::string::npos) << r.out;
  EXPECT_NE(lbsim::test::read_file(cmp + "/report.html").find("<title>lbsim compare:"), std::string::npos);
  EXPECT_EQ(run_lbsim("report " + cmp + " --out " + dir + "/run-report.html").code, 0);
}

// Item 10: a run refused for bad input after its folder was checked (here the memory estimate of a
// ten-million-host fat tree) left an empty output folder, and its parents, behind.
TEST(Frictions, ARefusedRunLeavesNoEmptyFolder) {
  const auto dir = lbsim::test::temp_dir("frictions-refused");
  const std::string huge = " --set topology.hosts=10000000";
  auto r = run_lbsim("run " + kDemo + " --quiet --out " + dir + "/new/run" + huge);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("estimated memory"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir + "/new")) << "an empty folder was left";
  r = run_lbsim("compare " + kDemo + " --lb ecmp,ops --out " + dir + "/cmp" + huge);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_FALSE(fs::exists(dir + "/cmp")) << "empty run folders were left";
  // A folder that existed stays (empty or not).
  fs::create_directories(dir + "/kept");
  EXPECT_EQ(run_lbsim("run " + kDemo + " --quiet --out " + dir + "/kept" + huge).code, 2);
  EXPECT_TRUE(fs::is_directory(dir + "/kept"));
}

}  // namespace
