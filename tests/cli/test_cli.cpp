// The lbsim binary: exit codes and messages as a user sees them.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "../sim/helpers.h"

namespace {

struct Result {
  int code;
  std::string out;
};

Result run(const std::string& args) {
  const std::string cmd = std::string(LBSIM_BINARY_DIR) + "/lbsim " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace

TEST(Cli, BadConfigExitsTwoWithMessage) {
  const auto dir = lbsim::test::temp_dir("cli");
  const auto cfg = lbsim::test::write_file(dir + "/bad.toml", "[lb]\nalgoritm = \"ops\"\n");
  const auto r = run("run " + cfg);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("bad.toml:2: unknown key 'lb.algoritm' (did you mean 'lb.algorithm'?)"), std::string::npos) << r.out;
}

TEST(Cli, RunWritesFolderAndUnfinishedExitsThree) {
  const auto dir = lbsim::test::temp_dir("cli-run");
  const auto cfg = lbsim::test::write_file(dir + "/c.toml", "[topology]\nhosts = 16\nradix = 8\n[workload]\nsize = \"64KiB\"\n");
  auto r = run("run " + cfg + " --out " + dir + "/out --quiet");
  EXPECT_EQ(r.code, 0) << r.out;
  for (auto f : {"config.toml", "summary.json", "flows.csv", "ports.csv"})
    EXPECT_TRUE(std::filesystem::exists(dir + "/out/" + f)) << f;
  r = run("run " + cfg + " --out " + dir + "/out2 --quiet --set run.end_us=1");
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.out.find("unfinished"), std::string::npos);
}

TEST(Cli, TopoDescribesFatTree) {
  const auto dir = lbsim::test::temp_dir("cli-topo");
  const auto cfg = lbsim::test::write_file(dir + "/c.toml", "[topology]\nhosts = 128\nradix = 16\n");
  const auto r = run("topo " + cfg);
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("hosts: 128"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("switches: 24"), std::string::npos) << r.out;  // 16 ToRs + 8 spines
  EXPECT_NE(r.out.find("links: 256"), std::string::npos) << r.out;    // 128 host + 16*8
  EXPECT_NE(r.out.find("shortest paths between tor0 and tor1 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(": 8\n"), std::string::npos) << r.out;
}

TEST(Cli, MissingFileAndUnknownCommand) {
  EXPECT_NE(run("run /nonexistent.toml").code, 0);
  EXPECT_NE(run("frobnicate").code, 0);
  EXPECT_EQ(run("--help").code, 0);
}
