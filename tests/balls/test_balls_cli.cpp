// `lbsim balls evs|queue|theorem` as a user runs it: files, exit codes, error messages, and the
// reproduce entries that call it.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "../sim/helpers.h"

namespace {

namespace fs = std::filesystem;

constexpr auto run = &lbsim::test::run_lbsim;

TEST(BallsCli, QueueWritesFilesAndReport) {
  const auto dir = lbsim::test::temp_dir("balls-cli");
  // A single bare number for a list key is taken as the list's text.
  const auto r = run("balls queue --set balls.queue_bins=3 --set balls.queue_steps=5 --set balls.seeds=2 --out " + dir);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("[REPS] sec. 5.1 queue model"), std::string::npos) << r.out;
  for (const char* f :
       {"queue_runs.csv", "queue_steps.csv", "queue_bins.csv", "report.txt", "config.toml", "balls.json"})
    EXPECT_TRUE(fs::is_regular_file(fs::path(dir) / f)) << f;
  const auto j = lbsim::test::read_file(dir + "/balls.json");
  EXPECT_NE(j.find("\"command\": \"queue\""), std::string::npos) << j;
  EXPECT_NE(lbsim::test::read_file(dir + "/config.toml").find("queue_bins = '3'"), std::string::npos);
}

TEST(BallsCli, BadInputExitsTwoNamingTheKey) {
  auto r = run("balls evs --set balls.evs_bits_min=5 --set balls.evs_bits_max=3");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("balls.evs_bits_min (5) must not exceed balls.evs_bits_max (3)"), std::string::npos) << r.out;
  r = run("balls theorem --set balls.tau_count=middle");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("balls.tau_count"), std::string::npos) << r.out;
  const auto dir = lbsim::test::temp_dir("balls-cli-bad");
  const auto cfg = lbsim::test::write_file(dir + "/c.toml", "[balls]\nseeds = 2\ntheorem_bins = \"16,,32\"\n");
  r = run("balls theorem " + cfg);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("c.toml:3: balls.theorem_bins"), std::string::npos) << r.out;
}

TEST(BallsCli, ReproduceEntriesRunTheCommand) {
  auto r = run("reproduce reps-fig18 --print --quick --out /tmp/x");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("lbsim balls queue --set balls.queue_models=ops,recycled --set balls.queue_bins=\"5\""),
            std::string::npos)
      << r.out;
  const auto dir = lbsim::test::temp_dir("balls-repro");
  r = run("reproduce reps-fig18 --quick --no-plot --out " + dir);
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("paper (Fig. 18)"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::is_regular_file(fs::path(dir) / "queue_bins.csv"));
  r = run("reproduce --list");
  for (const char* e : {"reps-fig14", "reps-fig15", "reps-fig17", "reps-fig18", "reps-thm51"})
    EXPECT_NE(r.out.find(e), std::string::npos) << e;
}

}  // namespace
