// Run folders and interruption (docs/reliability.md): a re-used --out holds exactly one run, an
// unwritable --out is bad input found before the simulation, and SIGINT/SIGTERM leave a folder with
// what was measured, marked "interrupted", and exit code 130.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "../sim/helpers.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;

using lbsim::test::run_lbsim;

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> v;
  for (const auto& e : fs::directory_iterator(dir)) v.push_back(e.path().filename().string());
  std::sort(v.begin(), v.end());
  return v;
}

const char* kSmall = "[topology]\nhosts = 16\nradix = 8\n[workload]\nsize = \"64KiB\"\n";

}  // namespace

TEST(RunFolder, ReusedFolderHoldsExactlyOneRun) {
  const auto dir = lbsim::test::temp_dir("run-folder");
  const auto cfg = lbsim::test::write_file(dir + "/c.toml", kSmall);
  const std::string out = dir + "/out";
  auto r = run_lbsim("run " + cfg + " --out " + out + " --quiet --set output.queue_sample_us=1");
  ASSERT_EQ(r.code, 0) << r.out;
  ASSERT_TRUE(fs::exists(out + "/queues.csv"));
  ASSERT_TRUE(fs::exists(out + "/ports.csv"));
  lbsim::test::write_file(out + "/notes.txt", "mine\n");  // not a run file: kept
  // The second run writes neither queues.csv nor ports.csv: the first run's must not stay behind.
  r = run_lbsim("run " + cfg + " --out " + out + "/ --quiet --set output.ports_csv=false --set run.seed=7");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(names_in(out), (std::vector<std::string>{"config.toml", "flows.csv", "notes.txt", "summary.json"}));
  EXPECT_NE(lbsim::test::read_file(out + "/config.toml").find("seed = 7"), std::string::npos);
  EXPECT_EQ(lbsim::test::read_file(out + "/notes.txt"), "mine\n");
  // No temporary sibling is left next to the folder.
  EXPECT_EQ(names_in(dir), (std::vector<std::string>{"c.toml", "out"}));
}

TEST(RunFolder, FreshFolderIsCreatedWhole) {
  const auto dir = lbsim::test::temp_dir("run-folder-new");
  const auto cfg = lbsim::test::write_file(dir + "/c.toml", kSmall);
  const auto r = run_lbsim("run " + cfg + " --out " + dir + "/a/b/run --quiet");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_EQ(names_in(dir + "/a/b/run"),
            (std::vector<std::string>{"config.toml", "flows.csv", "ports.csv", "summary.json"}));
  EXPECT_EQ(names_in(dir + "/a/b"), (std::vector<std::string>{"run"}));
  // A folder made like mkdir's: readable by others when the umask allows it (not mkdtemp's 0700).
  const auto perms = fs::status(dir + "/a/b/run").permissions();
  const mode_t mask = umask(0);
  umask(mask);
  EXPECT_EQ(static_cast<mode_t>(perms) & 0777, 0777 & ~mask);
}

TEST(RunFolder, UnwritableOutIsBadInputBeforeTheRun) {
  const auto dir = lbsim::test::temp_dir("run-folder-bad");
  const auto cfg = lbsim::test::write_file(dir + "/c.toml", kSmall);
  const auto file = lbsim::test::write_file(dir + "/plain-file", "x");
  // Under a regular file: cannot be created (root can write anywhere else, so permissions would not do).
  auto r = run_lbsim("run " + cfg + " --out " + file + "/run");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("output folder '" + file + "/run': cannot create it"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("lbsim run:"), std::string::npos) << "the simulation ran: " << r.out;
  // A regular file as the folder.
  r = run_lbsim("run " + cfg + " --out " + file);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("not a folder"), std::string::npos) << r.out;
  EXPECT_EQ(lbsim::test::read_file(file), "x");
  // compare checks every run folder before the first run.
  r = run_lbsim("compare " + cfg + " --lb ecmp,ops --out " + file);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_EQ(r.out.find("scheme"), std::string::npos) << r.out;
}

// A run far too long to finish, stopped by a signal once it is running: the folder holds what was
// measured and says so.
TEST(RunFolder, SignalStopsTheRunAndKeepsWhatWasMeasured) {
  for (const int sig : {SIGINT, SIGTERM}) {
    const auto dir = lbsim::test::temp_dir("run-signal-" + std::to_string(sig));
    const auto cfg = lbsim::test::write_file(
        dir + "/c.toml",
        "[topology]\nhosts = 128\nradix = 16\n[workload]\nsize = \"1GiB\"\n[run]\nprogress = \"off\"\n");
    const std::string out = dir + "/out", log = dir + "/log.txt";
    const std::string bin = std::string(LBSIM_BINARY_DIR) + "/lbsim";
    std::vector<std::string> args{bin, "run", cfg, "--out", out};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid = 0;
    ASSERT_EQ(posix_spawn(&pid, bin.c_str(), &fa, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&fa);
    // The output folder exists once the handlers are installed (cmd_run.cpp); then let it simulate a
    // little (the signal may also arrive while the network is being built: the same outcome).
    int status = 0;
    bool exited = false;
    while (!fs::exists(out)) {
      if (waitpid(pid, &status, WNOHANG) == pid) {
        exited = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_FALSE(exited) << lbsim::test::read_file(log);
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ASSERT_EQ(kill(pid, sig), 0);
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status) << ": " << lbsim::test::read_file(log);
    EXPECT_EQ(WEXITSTATUS(status), 130) << lbsim::test::read_file(log);
    EXPECT_NE(lbsim::test::read_file(log).find("lbsim: interrupted at t = "), std::string::npos)
        << lbsim::test::read_file(log);
    const auto j = nlohmann::json::parse(lbsim::test::read_file(out + "/summary.json"));
    EXPECT_TRUE(j["interrupted"].get<bool>());
    EXPECT_EQ(j["workload"]["transfers"].get<int>(), 128);
    EXPECT_GT(j["unfinished"].get<int>(), 0);
    for (auto f : {"config.toml", "flows.csv", "ports.csv"}) EXPECT_TRUE(fs::exists(out + "/" + f)) << f;
  }
}
