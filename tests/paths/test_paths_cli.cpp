// End-to-end `lbsim paths` runs (needs the lbsim binary of the same build; skipped if it is absent).
#include <cstdio>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

namespace {

struct Run {
  std::string out;
  int rc = -1;
};

Run lbsim(const std::string& args) {
  const std::string bin = std::string(LBSIM_BINARY_DIR) + "/lbsim";
  Run r;
  FILE* f = popen((bin + " " + args + " 2>&1").c_str(), "r");
  if (!f) return r;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, f)) r.out += buf;
  const int status = pclose(f);
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

bool have_binary() { return std::filesystem::exists(std::string(LBSIM_BINARY_DIR) + "/lbsim"); }
std::string example(const char* f) { return std::string(LBSIM_SOURCE_DIR) + "/examples/dragonfly/" + f; }

}  // namespace

TEST(PathsCli, PairDragonfly) {
  if (!have_binary()) GTEST_SKIP() << "lbsim binary not built";
  auto r = lbsim("paths " + example("paths_dragonfly.toml") + " --src g0s3 --dst g7s5 --list");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("32 bounded paths, shortest 3 hops"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("minimal (across groups)      2      1       799.6      1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("non-minimal                  3      2      1491.0     23"), std::string::npos) << r.out;
}

TEST(PathsCli, WholeNetworkSlimFly) {
  if (!have_binary()) GTEST_SKIP() << "lbsim binary not built";
  auto r = lbsim("paths " + example("paths_slim_fly.toml"));
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("max 146"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2332.8"), std::string::npos) << r.out;  // Table I: 0 local + 4 global
  EXPECT_NE(r.out.find("162 switches x 146 paths x 3 B = 70956 B"), std::string::npos) << r.out;
}

TEST(PathsCli, Fig3Dragonfly) {
  if (!have_binary()) GTEST_SKIP() << "lbsim binary not built";
  auto r = lbsim("paths --fig3 --format csv --max-endpoints 41000 --sources 2");
  ASSERT_EQ(r.rc, 0) << r.out;
  // [Spritz] Fig. 3: 200 paths and ~2.3 MiB for the 40k-endpoint Dragonfly.
  EXPECT_NE(r.out.find("dragonfly,p=10 a=20 h=10 g=201,40200,4020,200,2412000,2"), std::string::npos) << r.out;
}

// A run config serves `lbsim paths` as it is; --set overrides its keys.
TEST(PathsCli, RunConfigAndOverrides) {
  if (!have_binary()) GTEST_SKIP() << "lbsim binary not built";
  const std::string cfg = std::string(LBSIM_SOURCE_DIR) + "/examples/spritz/slim_fly_table2.toml";
  auto r = lbsim("paths " + cfg + " --src 0 --dst 1 --set paths.max_hops=3");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("rule: valiant (<= 3 hops), packet 4160 B"), std::string::npos) << r.out;
  r = lbsim("paths " + cfg + " --set paths.rule=bogus");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.out.find("--set: key 'paths.rule': 'bogus' is not one of"), std::string::npos) << r.out;
  r = lbsim("paths /nonexistent/cfg.toml");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.out.find("cannot open config file '/nonexistent/cfg.toml'"), std::string::npos) << r.out;
}

TEST(PathsCli, Errors) {
  if (!have_binary()) GTEST_SKIP() << "lbsim binary not built";
  auto r = lbsim("paths " + example("paths_dragonfly.toml") + " --src g0s3");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.out.find("give both --src and --dst"), std::string::npos) << r.out;
  r = lbsim("paths " + example("paths_dragonfly.toml") + " --src g99s0 --dst 1");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.out.find("--src 'g99s0' is neither"), std::string::npos) << r.out;
}
