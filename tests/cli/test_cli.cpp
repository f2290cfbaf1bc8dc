// The lbsim binary: exit codes and messages as a user sees them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../sim/helpers.h"
#include "core/huge_pages.h"

namespace {

constexpr auto run = &lbsim::test::run_lbsim;

}  // namespace

TEST(Cli, BadConfigExitsTwoWithMessage) {
  const auto dir = lbsim::test::temp_dir("cli");
  const auto cfg = lbsim::test::write_file(dir + "/bad.toml", "[lb]\nalgoritm = \"ops\"\n");
  const auto r = run("run " + cfg);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("bad.toml:2: unknown key 'lb.algoritm' (did you mean 'lb.algorithm'?)"), std::string::npos)
      << r.out;
}

TEST(Cli, RunWritesFolderAndUnfinishedExitsThree) {
  const auto dir = lbsim::test::temp_dir("cli-run");
  const auto cfg =
      lbsim::test::write_file(dir + "/c.toml", "[topology]\nhosts = 16\nradix = 8\n[workload]\nsize = \"64KiB\"\n");
  auto r = run("run " + cfg + " --out " + dir + "/out --quiet");
  EXPECT_EQ(r.code, 0) << r.out;
  for (auto f : {"config.toml", "summary.json", "flows.csv", "ports.csv"})
    EXPECT_TRUE(std::filesystem::exists(dir + "/out/" + f)) << f;
  r = run("run " + cfg + " --out " + dir + "/out2 --quiet --set run.end_us=1");
  EXPECT_EQ(r.code, 3);
  EXPECT_NE(r.out.find("unfinished"), std::string::npos);
}

// Issue 14: a message of 2^32 + 1 packets ran as one packet and exited 0; size 0 "finished".
TEST(Cli, MessageSizesAtTheEdgeAreErrors) {
  const auto dir = lbsim::test::temp_dir("cli-size");
  const auto cfg = lbsim::test::write_file(dir + "/c.toml",
                                           "[topology]\nhosts = 16\nradix = 8\n[workload]\nsize = 17592186048512\n");
  auto r = run("run " + cfg + " --out " + dir + "/out --quiet");
  EXPECT_EQ(r.code, 2) << r.out;
  // Found from the keys before anything is built (the memory guard, docs/reliability.md "Limits").
  EXPECT_NE(r.out.find("c.toml:5: workload.size = 17592186048512 bytes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("4294967297 packets"), std::string::npos) << r.out;
  r = run("run " + cfg + " --out " + dir + "/out --quiet --set workload.size=0");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("key 'workload.size': value 0 is out of range"), std::string::npos) << r.out;
}

// Issue 14: values that were silently changed or ignored are errors naming the key.
TEST(Cli, IgnoredOrRaisedValuesAreErrors) {
  const auto dir = lbsim::test::temp_dir("cli-silent");
  const auto ft =
      lbsim::test::write_file(dir + "/ft.toml", "[topology]\nhosts = 16\nradix = 8\n[workload]\nsize = \"64KiB\"\n");
  auto r = run("run " + ft + " --out " + dir + "/o --quiet --seed -1");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("--seed -1: key 'run.seed': value -1 is out of range"), std::string::npos) << r.out;
  r = run("run " + ft + " --out " + dir + "/o --quiet --seed 99999999999999999999");
  EXPECT_EQ(r.code, 2) << r.out;
  r = run("run " + ft + " --out " + dir + "/o --quiet --set network.queue_bytes=1000");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("key 'network.queue_bytes': the data queue would be 1000 bytes, smaller than one full packet"),
            std::string::npos)
      << r.out;
  const auto df =
      lbsim::test::write_file(dir + "/df.toml", "[topology]\nkind = \"dragonfly\"\na = 2\nh = 1\np = 1\nhosts = 100\n");
  r = run("topo " + df);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("df.toml:6: key 'topology.hosts' is read only by topology.kind = \"fat_tree\""),
            std::string::npos)
      << r.out;
  // The resolved config of a Dragonfly run lists the fat-tree keys as comments and loads again.
  const auto ok = lbsim::test::write_file(
      dir + "/ok.toml", "[topology]\nkind = \"dragonfly\"\na = 2\nh = 1\np = 1\n[workload]\nsize = \"16KiB\"\n");
  r = run("run " + ok + " --out " + dir + "/o1 --quiet");
  ASSERT_EQ(r.code, 0) << r.out;
  r = run("run " + dir + "/o1/config.toml --out " + dir + "/o2 --quiet");
  EXPECT_EQ(r.code, 0) << r.out;
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
  auto r = run("run /nonexistent.toml");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("/nonexistent.toml"), std::string::npos) << r.out;
  EXPECT_EQ(run("frobnicate").code, 2);
  EXPECT_EQ(run("--help").code, 0);
}

namespace {

// The subcommand names listed under "Subcommands:" in a --help text.
std::vector<std::string> subcommands_in(const std::string& help) {
  std::vector<std::string> names;
  const auto at = help.find("Subcommands:\n");
  if (at == std::string::npos) return names;
  std::istringstream in(help.substr(at + 13));
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("  ", 0) != 0) break;
    std::istringstream words(line);
    std::string name;
    words >> name;
    if (!name.empty()) names.push_back(name);
  }
  return names;
}

}  // namespace

// Every command keeps one contract ([issue 14]): --help is 0; an unknown flag, a missing config
// file and an unknown subcommand are bad input (exit 2) with a message, not CLI11's codes 104-109.
// The commands are read from `lbsim --help`, so a new command is walked without editing this test.
TEST(Cli, EverySubcommandExitsTwoOnBadArguments) {
  std::vector<std::string> leaves;
  for (const auto& top : subcommands_in(run("--help").out)) {
    const auto nested = subcommands_in(run(top + " --help").out);
    if (nested.empty()) leaves.push_back(top);
    for (const auto& sub : nested) leaves.push_back(top + " " + sub);
  }
  ASSERT_GE(leaves.size(), 13u);  // run, compare, topo, ..., cabling plan/verify, balls evs/queue/theorem
  for (const auto& cmd : leaves) {
    SCOPED_TRACE(cmd);
    EXPECT_EQ(run(cmd + " --help").code, 0);
    auto r = run(cmd + " --no-such-flag-xyz");
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_FALSE(r.out.empty());
    r = run(cmd + " /nonexistent-dir-xyz/c.toml");
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_FALSE(r.out.empty());
  }
  const auto r = run("frobnicate");
  EXPECT_EQ(r.code, 2) << r.out;
}

// lbsim re-executes itself with glibc.malloc.hugetlb=1 where the kernel gives huge pages on request
// (core/huge_pages.h): summary.json perf.huge_pages says how the heap was backed, LBSIM_HUGEPAGES=0
// turns it off, and the simulated results are the same either way.
TEST(Cli, HeapOnHugePagesSameResults) {
  namespace hp = lbsim::huge_pages;
  const auto dir = lbsim::test::temp_dir("cli-huge");
  const auto cfg =
      lbsim::test::write_file(dir + "/c.toml", "[topology]\nhosts = 16\nradix = 8\n[workload]\nsize = \"256KiB\"\n");
  const std::string mode = hp::kernel_thp_mode();
  // This test binary is built like lbsim (the same sanitizer flags, the same libc).
  const std::string expected_on = !hp::glibc_heap()   ? "off"
                                  : mode == "always"  ? "always"
                                  : mode == "madvise" ? "advised"
                                                      : "off";
  const std::string expected_off = hp::glibc_heap() && mode == "always" ? "always" : "off";
  const auto on = run("run " + cfg + " --out " + dir + "/on --quiet");
  ASSERT_EQ(on.code, 0) << on.out;
  const auto off = lbsim::test::run_lbsim_env("LBSIM_HUGEPAGES=0", "run " + cfg + " --out " + dir + "/off --quiet");
  ASSERT_EQ(off.code, 0) << off.out;
  // The user's own setting is kept (no re-execution over it).
  const auto own = lbsim::test::run_lbsim_env("GLIBC_TUNABLES=glibc.malloc.hugetlb=0",
                                              "run " + cfg + " --out " + dir + "/own --quiet");
  ASSERT_EQ(own.code, 0) << own.out;
  const auto backing = [&](const std::string& out) {
    return nlohmann::json::parse(lbsim::test::read_file(dir + "/" + out + "/summary.json"))["perf"]["huge_pages"]
        .get<std::string>();
  };
  EXPECT_EQ(backing("on"), expected_on) << "kernel THP mode '" << mode << "'";
  EXPECT_EQ(backing("off"), expected_off);
  EXPECT_EQ(backing("own"), expected_off);
  const std::string flows = lbsim::test::read_file(dir + "/on/flows.csv");
  EXPECT_GT(std::count(flows.begin(), flows.end(), '\n'), 16);  // header + 16 flows
  EXPECT_EQ(flows, lbsim::test::read_file(dir + "/off/flows.csv"));
  EXPECT_EQ(flows, lbsim::test::read_file(dir + "/own/flows.csv"));
}
