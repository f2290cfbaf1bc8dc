// Sweeps (grid expansion, errors, resume, results.csv), the runner (local workers, the Slurm job
// script), Slurm job arrays and plots (`lbsim reproduce`: test_reproduce.cpp). CLI tests run the
// lbsim binary of this build on tiny configs.
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "workflow/runner.h"
#include "workflow/sweep.h"

namespace fs = std::filesystem;
namespace wf = lbsim::workflow;
using lbsim::workflow::expand;
using lbsim::workflow::parse_sweep_text;

namespace {

const std::string kLbsim = std::string(LBSIM_BINARY_DIR) + "/lbsim";

struct Result {
  int rc = -1;
  std::string out;
};

Result sh(const std::string& cmd) {
  Result r;
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  while (fgets(buf.data(), buf.size(), p)) r.out += buf.data();
  const int st = pclose(p);
  r.rc = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

// A fresh folder for one test under the build tree.
fs::path scratch(const std::string& name) {
  const fs::path d = fs::path(LBSIM_BINARY_DIR) / "workflow-tests" / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream f(p);
  f << text;
}

std::string read(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<std::vector<std::string>> csv(const fs::path& p) {
  std::vector<std::vector<std::string>> rows;
  std::ifstream f(p);
  std::string line;
  while (std::getline(f, line)) {
    std::vector<std::string> r;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ',')) r.push_back(cell);
    if (!line.empty() && line.back() == ',') r.push_back("");
    rows.push_back(r);
  }
  return rows;
}

// 16 hosts, 64 KiB messages: each run takes a few milliseconds.
const char* kTinyBase = R"([topology]
kind = "fat_tree"
hosts = 16
radix = 8
[transport]
rto_us = 70
[workload]
kind = "permutation"
size = "64KiB"
)";

fs::path tiny_sweep(const fs::path& dir, const std::string& extra_set = "") {
  write(dir / "base.toml", kTinyBase);
  write(dir / "sweep.toml", "name = \"tiny\"\nbase = \"base.toml\"\n[set]\n\"output.queue_sample_us\" = 2\n" +
                                extra_set + "[grid]\n\"lb.algorithm\" = [\"ecmp\", \"ops\"]\n\"run.seed\" = [1, 2]\n");
  return dir / "sweep.toml";
}

}  // namespace

TEST(SweepSpec, GridExpansionOrderNamesAndValues) {
  const auto d = scratch("expand");
  const auto s = parse_sweep_text(R"(name = "g"
[set]
"topology.hosts" = 16
"topology.radix" = 8
[grid]
"lb.algorithm" = ["ecmp", "ops"]
"run.seed" = [1, 2, 3]
"workload.size" = ["64KiB", 131072]
[[case]]
name = "perm"
"workload.kind" = "permutation"
[[case]]
name = "tornado"
"workload.kind" = "tornado"
)",
                                  (d / "g.toml").string());
  const auto pts = expand(s, (d / "out").string());
  ASSERT_EQ(pts.size(), 2u * 2 * 3 * 2);
  // Cases outermost, then axes in file order, the last axis fastest.
  EXPECT_EQ(pts[0].name, "perm_algorithm-ecmp_seed-1_size-64KiB");
  EXPECT_EQ(pts[1].name, "perm_algorithm-ecmp_seed-1_size-131072");
  EXPECT_EQ(pts[2].name, "perm_algorithm-ecmp_seed-2_size-64KiB");
  EXPECT_EQ(pts[12].name, "tornado_algorithm-ecmp_seed-1_size-64KiB");
  EXPECT_EQ(pts[23].name, "tornado_algorithm-ops_seed-3_size-131072");
  EXPECT_EQ(pts[23].cfg.text("lb.algorithm"), "ops");
  EXPECT_EQ(pts[23].cfg.integer("run.seed"), 3);
  EXPECT_EQ(pts[23].cfg.integer("workload.size"), 131072);
  EXPECT_EQ(pts[0].cfg.integer("workload.size"), 65536);
  EXPECT_EQ(pts[23].cfg.text("workload.kind"), "tornado");
  EXPECT_EQ(pts[0].cfg.integer("topology.hosts"), 16);
  EXPECT_EQ(pts[5].cfg.text("output.dir"), (d / "out" / "runs" / pts[5].name).string());
  EXPECT_EQ(pts[0].cfg.text("run.progress"), "off");
  std::map<std::string, int> names;
  for (const auto& p : pts) ++names[p.name];
  EXPECT_EQ(names.size(), pts.size());
}

// Presets (transport.preset, lb.spritz_reading) apply to every point before its file is written: the
// file gives every key, so a run of it could no longer fill them in. A key the sweep gives wins.
TEST(SweepSpec, PresetsApplyToEveryPoint) {
  const auto d = scratch("presets");
  const auto s = parse_sweep_text(R"(name = "p"
[set]
"transport.preset" = "htsim"
"lb.spritz_reading" = "code"
[grid]
"lb.spritz_timeout" = ["restore", "permanent"]
)",
                                  (d / "p.toml").string());
  const auto pts = expand(s, (d / "out").string());
  ASSERT_EQ(pts.size(), 2u);
  for (const auto& p : pts) {
    EXPECT_EQ(p.cfg.text("transport.rto_model"), "htsim");   // transport.preset = "htsim"
    EXPECT_EQ(p.cfg.integer("transport.ack_bytes"), 16384);  // lb.spritz_reading = "code"
    EXPECT_EQ(p.cfg.text("lb.spritz_bias"), "small_flows");
  }
  EXPECT_EQ(pts[0].cfg.text("lb.spritz_timeout"), "restore");
  EXPECT_EQ(pts[1].cfg.text("lb.spritz_timeout"), "permanent");
}

TEST(SweepSpec, NamedAxisSetsKeysTogether) {
  const auto d = scratch("named");
  const auto s = parse_sweep_text(R"([grid]
scheme = [{name = "min", "routing.algorithm" = "minimal", "lb.algorithm" = "ecmp"},
          {name = "spray", "lb.algorithm" = "ops"}]
"run.seed" = [1, 2]
)",
                                  (d / "s.toml").string());
  const auto pts = expand(s, d.string());
  ASSERT_EQ(pts.size(), 4u);
  EXPECT_EQ(pts[0].name, "scheme-min_seed-1");
  EXPECT_EQ(pts[0].cfg.text("routing.algorithm"), "minimal");
  EXPECT_EQ(pts[0].cfg.text("lb.algorithm"), "ecmp");
  EXPECT_EQ(pts[3].name, "scheme-spray_seed-2");
  EXPECT_EQ(pts[3].cfg.text("routing.algorithm"), "ecmp");  // default: a named entry sets only its own keys
  EXPECT_EQ(pts[3].cfg.text("lb.algorithm"), "ops");
  EXPECT_EQ(wf::header(s)[1], "scheme");
  // Errors inside a named entry point at its line and key.
  try {
    expand(parse_sweep_text("[grid]\nscheme = [{name = \"a\", \"lb.algorithm\" = \"ecmp\"},\n"
                            "  {name = \"b\", \"lb.algorithm\" = \"nope\"}]\n",
                            (d / "s.toml").string()),
           d.string());
    ADD_FAILURE() << "no error";
  } catch (const lbsim::UserError& e) {
    EXPECT_NE(std::string(e.what()).find("s.toml:3"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'lb.algorithm'"), std::string::npos) << e.what();
  }
}

TEST(SweepSpec, NoGridIsOneRun) {
  const auto d = scratch("one");
  const auto pts = expand(parse_sweep_text("[set]\n\"topology.hosts\" = 16\n", (d / "s.toml").string()), d.string());
  ASSERT_EQ(pts.size(), 1u);
  EXPECT_EQ(pts[0].name, "run");
}

TEST(SweepSpec, ErrorsNameFileLineAndKey) {
  const auto d = scratch("errors");
  const std::string f = (d / "s.toml").string();
  const auto err = [&](const std::string& text) {
    try {
      expand(parse_sweep_text(text, f), d.string());
    } catch (const lbsim::UserError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  auto e = err("[grid]\n\"lb.algorithm\" = [\"ecmp\"]\n\"lb.algoritm\" = [\"ops\"]\n");
  EXPECT_NE(e.find(f + ":3"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown key 'lb.algoritm'"), std::string::npos) << e;
  EXPECT_NE(e.find("did you mean 'lb.algorithm'"), std::string::npos) << e;
  e = err("[grid]\n\"run.seed\" = [1]\n\"lb.algorithm\" = [\"ecmp\",\n  \"nope\"]\n");
  EXPECT_NE(e.find(f + ":4"), std::string::npos) << e;
  EXPECT_NE(e.find("'lb.algorithm'"), std::string::npos) << e;
  EXPECT_NE(e.find("'nope' is not one of"), std::string::npos) << e;
  e = err("[set]\n\"topology.hosts\" = \"many\"\n");
  EXPECT_NE(e.find(f + ":2"), std::string::npos) << e;
  EXPECT_NE(e.find("'topology.hosts'"), std::string::npos) << e;
  e = err("[grid]\n\"run.seed\" = []\n");
  EXPECT_NE(e.find(f + ":2"), std::string::npos) << e;
  e = err("seeds = [1, 2]\n");
  EXPECT_NE(e.find(f + ":1"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown sweep key 'seeds'"), std::string::npos) << e;
  e = err("base = \"missing.toml\"\n");
  EXPECT_NE(e.find("key 'base'"), std::string::npos) << e;
  // A name the file system refuses (ENAMETOOLONG) is bad input, not a crash (found by fuzz_sweep).
  e = err("base = \"" + std::string(300, 'a') + "\"\n");
  EXPECT_NE(e.find("key 'base'"), std::string::npos) << e;
  EXPECT_NE(e.find("File name too long"), std::string::npos) << e;
  // Cross-key validation runs per point before anything runs.
  e = err("[grid]\n\"network.kmin\" = [0.1, 0.9]\n");
  EXPECT_NE(e.find("sweep point 'kmin-0.9'"), std::string::npos) << e;
}

TEST(SweepSpec, RelativePathsFollowTheirFile) {
  const auto d = scratch("paths");
  fs::create_directories(d / "cfg");
  write(d / "cfg" / "base.toml", "[workload]\nkind = \"flows_csv\"\nfile = \"flows.csv\"\n");
  write(d / "cfg" / "flows.csv", "src,dst,bytes\n0,1,4096\n");
  const auto s = parse_sweep_text("base = \"cfg/base.toml\"\n", (d / "s.toml").string());
  const auto pts = expand(s, (d / "out").string());
  EXPECT_EQ(pts[0].cfg.text("workload.file"), (d / "cfg" / "flows.csv").string());
  const auto s2 = parse_sweep_text("base = \"cfg/base.toml\"\n[grid]\n\"workload.file\" = [\"x/a.csv\"]\n",
                                   (d / "s.toml").string());
  EXPECT_EQ(expand(s2, (d / "out").string())[0].cfg.text("workload.file"), (d / "x" / "a.csv").string());
}

// Per-tag columns and the makespan (issue 18 "Tidy results"): two tags of an explicit flow list, one
// flow starting at 5 us; a point whose end time cuts the late flow off has an empty makespan.
TEST(SweepCli, TagColumnsAndMakespan) {
  const auto d = scratch("tags");
  write(d / "flows.csv", "src,dst,bytes,start_us,tag\n0,5,65536,0,a\n1,6,65536,0,a\n2,7,65536,5,b\n");
  write(d / "base.toml",
        "[topology]\nkind = \"fat_tree\"\nhosts = 16\nradix = 8\n[workload]\n"
        "kind = \"flows_csv\"\nfile = \"flows.csv\"\n");
  write(d / "sweep.toml", "base = \"base.toml\"\n[grid]\n\"run.end_us\" = [1000, 6]\n");
  const auto out = d / "out";
  const auto r = sh(kLbsim + " sweep " + (d / "sweep.toml").string() + " --workers 1 --out " + out.string());
  ASSERT_EQ(r.rc, 3) << r.out;  // the 6 us point leaves the late flow unfinished
  const auto rows = csv(out / "results.csv");
  ASSERT_EQ(rows.size(), 3u);
  const auto col = [&](const std::string& name) {
    const auto it = std::find(rows[0].begin(), rows[0].end(), name);
    EXPECT_NE(it, rows[0].end()) << name;
    return static_cast<std::size_t>(it - rows[0].begin());
  };
  EXPECT_EQ(rows[0].back(), "dir");
  const auto& full = rows[1];
  const auto j = nlohmann::json::parse(read(out / full.back() / "summary.json"));
  EXPECT_EQ(full[col("completed.a")], "2");
  EXPECT_EQ(full[col("completed.b")], "1");
  EXPECT_DOUBLE_EQ(std::stod(full[col("max_fct_us.a")]), j["fct_us_by_tag"]["a"]["max"].get<double>());
  EXPECT_DOUBLE_EQ(std::stod(full[col("mean_fct_us.b")]), j["fct_us_by_tag"]["b"]["mean"].get<double>());
  // First start 0, last finish: the later of flow b's (5 us + its FCT) and the a flows' largest FCT.
  const double b_end = 5.0 + j["fct_us_by_tag"]["b"]["max"].get<double>();
  EXPECT_NEAR(std::stod(full[col("makespan_us")]), std::max(b_end, j["fct_us_by_tag"]["a"]["max"].get<double>()), 1e-6);
  EXPECT_EQ(j["has_dependencies"], false);
  const auto& cut = rows[2];
  EXPECT_EQ(cut[col("status")], "unfinished");
  EXPECT_EQ(cut[col("makespan_us")], "");
  EXPECT_EQ(cut[col("completed.b")], "0");
  EXPECT_EQ(cut[col("max_fct_us.b")], "");
}

TEST(SweepCli, RunsResumesAndWritesResults) {
  const auto d = scratch("resume");
  const auto sweep = tiny_sweep(d);
  const auto out = d / "out";
  auto r = sh(kLbsim + " sweep " + sweep.string() + " --workers 2 --out " + out.string());
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("4 point(s), 0 complete, 4 to run"), std::string::npos) << r.out;
  const auto rows = csv(out / "results.csv");
  ASSERT_EQ(rows.size(), 5u);
  const std::vector<std::string> head{
      "run",         "lb.algorithm", "run.seed",      "status",      "completed",     "unfinished",   "transfers",
      "max_fct_us",  "p99_fct_us",   "p50_fct_us",    "mean_fct_us", "mean_slowdown", "p99_slowdown", "max_slowdown",
      "makespan_us", "drops",        "failure_drops", "trims",       "ecn_marks",     "nacks",        "retransmits",
      "timeouts",    "ooo_pct",      "events",        "sim_time_us", "wall_s",        "peak_rss_mb",  "dir"};
  EXPECT_EQ(rows[0], head);
  EXPECT_EQ(rows[1][0], "algorithm-ecmp_seed-1");
  EXPECT_EQ(rows[4][0], "algorithm-ops_seed-2");
  EXPECT_EQ(rows[4][1], "ops");
  EXPECT_EQ(rows[4][2], "2");
  for (std::size_t i = 1; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i][3], "ok");
    EXPECT_EQ(rows[i][4], "16");  // completed
    EXPECT_GT(std::stod(rows[i][7]), 0.0);
    // The row is the run's summary.
    const auto j = nlohmann::json::parse(read(out / rows[i].back() / "summary.json"));
    EXPECT_DOUBLE_EQ(std::stod(rows[i][7]), j["fct_us"]["max"].get<double>());
    EXPECT_EQ(rows[i][20], std::to_string(j["retransmits"].get<std::uint64_t>()));
    // Every transfer of the permutation starts at 0: the makespan is the largest FCT.
    EXPECT_DOUBLE_EQ(std::stod(rows[i][14]), std::stod(rows[i][7]));
    EXPECT_TRUE(fs::is_regular_file(out / rows[i].back() / "queues.csv"));
  }
  // The swept value reached the run.
  const std::string cfg2 = read(out / "runs" / "algorithm-ops_seed-2" / "config.toml");
  EXPECT_TRUE(cfg2.find("algorithm = 'ops'") != std::string::npos ||
              cfg2.find("algorithm = \"ops\"") != std::string::npos)
      << cfg2;

  // Second invocation: nothing runs again (summary files untouched), the table is the same.
  std::map<std::string, fs::file_time_type> mtimes;
  for (const auto& e : fs::directory_iterator(out / "runs"))
    mtimes[e.path().filename()] = fs::last_write_time(e.path() / "summary.json");
  const std::string table = read(out / "results.csv");
  r = sh(kLbsim + " sweep " + sweep.string() + " --workers 2 --out " + out.string());
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("4 point(s), 4 complete, 0 to run"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("[1/"), std::string::npos) << r.out;
  for (const auto& [name, t] : mtimes) EXPECT_EQ(fs::last_write_time(out / "runs" / name / "summary.json"), t) << name;
  EXPECT_EQ(read(out / "results.csv"), table);

  // An incomplete run (no summary) is re-run, and only that one.
  fs::remove(out / "runs" / "algorithm-ops_seed-1" / "summary.json");
  r = sh(kLbsim + " sweep " + sweep.string() + " --workers 2 --out " + out.string());
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("4 point(s), 3 complete, 1 to run"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[1/1] algorithm-ops_seed-1: ok"), std::string::npos) << r.out;
  EXPECT_EQ(fs::last_write_time(out / "runs" / "algorithm-ecmp_seed-1" / "summary.json"),
            mtimes["algorithm-ecmp_seed-1"]);

  // A changed config means the old run folders do not match: everything runs again.
  write(d / "base.toml", std::string(kTinyBase) + "[network]\nkmin = 0.3\n");
  r = sh(kLbsim + " sweep " + sweep.string() + " --workers 2 --out " + out.string());
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("4 point(s), 0 complete, 4 to run"), std::string::npos) << r.out;
}

TEST(SweepCli, ConfigErrorStopsBeforeAnyRun) {
  const auto d = scratch("bad");
  write(d / "sweep.toml",
        "[set]\n\"topology.hosts\" = 16\n[grid]\n\"run.seed\" = [1, 2]\n\"lb.algorithm\" = [\"ops\", \"rpes\"]\n");
  const auto r = sh(kLbsim + " sweep " + (d / "sweep.toml").string() + " --out " + (d / "out").string());
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("sweep.toml:5"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("'lb.algorithm'"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(d / "out"));
}

TEST(SweepCli, FailedRunIsIsolatedAndReported) {
  const auto d = scratch("failed");
  write(d / "base.toml", kTinyBase);
  // A flows_csv workload whose file does not exist passes validation but fails when the run starts.
  write(d / "sweep.toml",
        "base = \"base.toml\"\n[grid]\n\"workload.kind\" = [\"permutation\", \"flows_csv\"]\n"
        "[set]\n\"workload.file\" = \"missing.csv\"\n");
  const auto r = sh(kLbsim + " sweep " + (d / "sweep.toml").string() + " --workers 2 --out " + (d / "out").string());
  EXPECT_EQ(r.rc, 2) << r.out;
  const auto rows = csv(d / "out" / "results.csv");
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[1][2], "ok");
  EXPECT_EQ(rows[2][2], "failed(2)");
  EXPECT_NE(read(d / "out" / "logs" / "kind-flows_csv.log").find("missing.csv"), std::string::npos);
}

// SIGINT to a local sweep (docs/workflow.md "Interruption"): the running point writes its folder
// and exits 130, the others do not start, the sweep says which is which and exits 130; the next
// invocation of the same sweep runs all three.
TEST(SweepCli, InterruptStopsRunningPointsAndReportsThem) {
  const auto d = scratch("interrupt");
  write(d / "sweep.toml",
        "[set]\n\"topology.hosts\" = 128\n\"topology.radix\" = 16\n\"workload.size\" = \"1GiB\"\n"
        "\"run.progress\" = \"off\"\n[grid]\n\"run.seed\" = [1, 2, 3]\n");
  const auto out = d / "out";
  // The first point runs for minutes; stop the sweep once that run made its folder (lbsim run creates
  // it after installing its signal handlers, so the run is sure to catch the SIGINT the sweep passes
  // on: under a sanitizer on a loaded machine a fixed delay was not enough) and it ran a bit.
  const auto r = sh("{ " + kLbsim + " sweep " + (d / "sweep.toml").string() + " --workers 1 --out " + out.string() +
                    " 2>&1 & pid=$!; for i in $(seq 1200); do [ -d " + (out / "runs" / "seed-1").string() +
                    " ] && break; sleep 0.05; done; sleep 1; kill -INT $pid; wait $pid; }");
  EXPECT_EQ(r.rc, 130) << r.out;
  EXPECT_NE(r.out.find("sweep interrupted: 1 point(s) stopped mid-run (exit 130, folders written: seed-1), 2 not "
                       "started (seed-2, seed-3)"),
            std::string::npos)
      << r.out;
  // Issue 52 item 10: the hint names the same folder (it said `lbsim sweep FILE`, which starts anew in
  // the default folder when the sweep ran with --out).
  EXPECT_NE(r.out.find("`lbsim sweep " + (d / "sweep.toml").string() + " --out " + out.string() + "` again runs them"),
            std::string::npos)
      << r.out;
  const auto rows = csv(out / "results.csv");
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[1][2], "failed(130)");
  EXPECT_EQ(rows[2][2], "missing");
  EXPECT_EQ(rows[3][2], "missing");
  const auto j = nlohmann::json::parse(read(out / "runs" / "seed-1" / "summary.json"));
  EXPECT_TRUE(j["interrupted"].get<bool>());
  const auto again = sh(kLbsim + " sweep " + (d / "sweep.toml").string() + " --collect --out " + out.string());
  EXPECT_NE(again.out.find("3 point(s), 0 complete, 3 incomplete"), std::string::npos) << again.out;
}

// Issue 52 item 10. A sweep of one long point (minutes); `pid` is the driver, `w` its worker once
// the worker made its run folder. alive W: the process exists and is not a zombie.
std::string long_sweep_with_worker(const fs::path& d) {
  write(d / "sweep.toml",
        "[set]\n\"topology.hosts\" = 128\n\"topology.radix\" = 16\n\"workload.size\" = \"1GiB\"\n"
        "\"run.progress\" = \"off\"\n[grid]\n\"run.seed\" = [1]\n");
  return "alive() { [ -r /proc/$1/stat ] && ! grep -q '^[0-9]* ([^)]*) Z' /proc/$1/stat; }; " + kLbsim + " sweep " +
         (d / "sweep.toml").string() + " --workers 1 --out " + (d / "out").string() + " >" +
         (d / "driver.txt").string() + " 2>&1 & pid=$!; for i in $(seq 1200); do [ -d " +
         (d / "out" / "runs" / "seed-1").string() + " ] && break; sleep 0.05; done; w=$(pgrep -P $pid); ";
}

// Killing the driver with SIGKILL left its worker running for minutes: the worker now dies with it.
TEST(SweepCli, WorkersDieWithTheDriver) {
  const auto d = scratch("driver-killed");
  const auto r = sh("{ " + long_sweep_with_worker(d) +
                    "[ -n \"$w\" ] || { echo no worker; exit 1; }; kill -KILL $pid; wait $pid; "
                    "for i in $(seq 200); do alive $w || break; sleep 0.05; done; "
                    "if alive $w; then echo worker $w alive; kill -KILL $w; exit 1; fi; echo worker gone; }");
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("worker gone"), std::string::npos) << r.out;
}

// A worker killed by a signal (the out-of-memory killer, kill -9) showed as failed(137) with an empty
// log and made the sweep exit 70, the code of an internal error: its row and log now name the signal
// and the sweep exits 4 (docs/reliability.md "Exit codes").
TEST(SweepCli, AWorkerKilledBySignalIsNamed) {
  const auto d = scratch("worker-killed");
  const auto r = sh("{ " + long_sweep_with_worker(d) + "kill -KILL $w; wait $pid; rc=$?; cat " +
                    (d / "driver.txt").string() + "; exit $rc; }");
  EXPECT_EQ(r.rc, 4) << r.out;
  EXPECT_NE(r.out.find("[1/1] seed-1: killed(SIGKILL)"), std::string::npos) << r.out;
  const auto rows = csv(d / "out" / "results.csv");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1][2], "killed(SIGKILL)");
  EXPECT_NE(read(d / "out" / "logs" / "seed-1.log").find("killed by SIGKILL"), std::string::npos);
}

TEST(SweepCli, DryRunListsPointsAndWritesNothing) {
  const auto d = scratch("dry");
  const auto r = sh(kLbsim + " sweep " + tiny_sweep(d).string() + " --dry-run --out " + (d / "out").string());
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("4 point(s)"), std::string::npos);
  EXPECT_NE(r.out.find("algorithm-ops_seed-2"), std::string::npos);
  EXPECT_FALSE(fs::exists(d / "out"));
}

// The runner in-process: points run as child processes of the given executable; one that cannot
// be started is recorded as failed(127) without stopping the others.
TEST(Runner, LocalWorkersRecordExitCodesAndSpawnFailures) {
  const auto d = scratch("runner");
  const auto sw = wf::prepare(tiny_sweep(d).string(), (d / "out").string());
  wf::write_inputs(sw);
  const auto todo = wf::pending(sw);
  ASSERT_EQ(todo.size(), 4u);
  wf::run_local(sw, {todo[0], todo[1]}, 2, kLbsim);
  wf::run_local(sw, {todo[2], todo[3]}, 2, (d / "no-such-lbsim").string());
  EXPECT_EQ(wf::recorded_exit_code(todo[0]->cfg.text("output.dir")), 0);
  EXPECT_TRUE(wf::run_complete(*todo[1]));
  EXPECT_EQ(wf::recorded_exit_code(todo[2]->cfg.text("output.dir")), 127);
  EXPECT_NE(read(d / "out" / "logs" / (todo[3]->name + ".log")).find("cannot start"), std::string::npos);
  const auto left = wf::pending(sw);
  ASSERT_EQ(left.size(), 2u);
  EXPECT_EQ(left[0], todo[2]);
  EXPECT_EQ(wf::metrics_row(*todo[3])[0], "failed(127)");
  EXPECT_EQ(wf::sweep_exit_code(sw), 70);
}

// The Slurm job script on its own: each array task runs its line of tasks.txt and records the exit
// code, as Slurm would run it (no Slurm needed; the real cluster test is below).
TEST(Runner, SlurmJobScriptRunsEachTask) {
  const auto d = scratch("slurm-script");
  const auto sw = wf::prepare(tiny_sweep(d).string(), (d / "out").string());
  wf::write_inputs(sw);
  const auto todo = wf::pending(sw);
  ASSERT_EQ(todo.size(), 4u);
  const fs::path job = wf::write_slurm_job(sw, todo, 2, kLbsim);
  const std::string text = read(job);
  EXPECT_NE(text.find("#SBATCH --array=0-3%2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("#SBATCH --job-name=lbsim-tiny\n"), std::string::npos) << text;
  std::string names;
  for (const auto* p : todo) names += p->name + "\n";
  EXPECT_EQ(read(d / "out" / "slurm" / "tasks.txt"), names);
  for (int i = 0; i < 4; ++i) {
    const auto r = sh("SLURM_ARRAY_TASK_ID=" + std::to_string(i) + " bash " + job.string());
    EXPECT_EQ(r.rc, 0) << r.out;
  }
  EXPECT_TRUE(wf::pending(sw).empty());
  EXPECT_EQ(wf::sweep_exit_code(sw), 0);
  // An executable path with a quote and a space reaches the shell intact.
  const fs::path odd = d / "it's lbsim";
  fs::create_symlink(kLbsim, odd);
  const fs::path job2 = wf::write_slurm_job(sw, {todo[1]}, 0, odd.string());
  EXPECT_NE(read(job2).find("#SBATCH --array=0-0\n"), std::string::npos);
  EXPECT_FALSE(wf::run_complete(*todo[1]));  // the task's run folder was cleared
  const auto r = sh("SLURM_ARRAY_TASK_ID=0 bash " + job2.string());
  EXPECT_EQ(r.rc, 0) << r.out;
  EXPECT_TRUE(wf::run_complete(*todo[1]));
}

// The same sweep through a real single-node Slurm (scripts/slurm-local.sh) gives the same
// results table as the local path (wall-clock columns aside).
TEST(Slurm, JobArrayMatchesLocalResults) {
  for (const char* b : {"/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/sbin/munged", "/usr/bin/sbatch"})
    if (!fs::exists(b))
      GTEST_SKIP() << b << " missing: install the Debian packages slurm-wlm and munge (scripts/install-deps.sh)";
  if (geteuid() != 0) GTEST_SKIP() << "starting slurmctld/slurmd/munged needs root";
  const auto d = scratch("slurm");
  const auto sweep = tiny_sweep(d);
  auto r = sh(kLbsim + " sweep " + sweep.string() + " --workers 2 --out " + (d / "local").string());
  ASSERT_EQ(r.rc, 0) << r.out;
  const std::string script = std::string(LBSIM_SOURCE_DIR) + "/scripts/slurm-local.sh";
  // A deep state folder: slurmd's spool must not live under it (Unix socket paths are limited to 108
  // bytes; with the spool there, every task ended "launch failed requeued held" and the sweep hung).
  const std::string state = (d / std::string(120, 'd') / "slurm-state").string();
  // The second sweep submits its array held (--sbatch=--hold): it must stop with an error naming
  // the held tasks and cancel the job, not wait for ever. `timeout` bounds the whole session.
  // One local cluster at a time on this machine (fixed ports): serialize with a lock file.
  r = sh("flock /tmp/lbsim-slurm-test.lock timeout -k 10 600 bash -c '" + script + " start " + state +
         " && export SLURM_CONF=" + state + "/slurm.conf LBSIM_SLURM_POLL_MS=200 && " + kLbsim + " sweep " +
         sweep.string() + " --slurm --out " + (d / "slurm").string() + "; rc=$?; " + kLbsim + " sweep " +
         sweep.string() + " --slurm --sbatch=--hold --out " + (d / "held").string() + " > " +
         (d / "held.log").string() + " 2>&1; echo $? > " + (d / "held.rc").string() + "; " + script + " stop " + state +
         "; exit $rc'");
  const std::string held = read(d / "held.log");
  EXPECT_EQ(read(d / "held.rc"), "2\n") << held;
  EXPECT_NE(held.find("JobHeldUser"), std::string::npos) << held;
  EXPECT_NE(held.find("was cancelled (scancel"), std::string::npos) << held;
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("sbatch: job"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::is_regular_file(d / "slurm" / "slurm" / "job.sh"));
  const auto a = csv(d / "local" / "results.csv"), b = csv(d / "slurm" / "results.csv");
  ASSERT_EQ(a.size(), 5u);
  ASSERT_EQ(a.size(), b.size());
  ASSERT_EQ(a[0], b[0]);
  for (std::size_t i = 1; i < a.size(); ++i) {
    ASSERT_EQ(a[i].size(), b[i].size());
    for (std::size_t c = 0; c < a[i].size(); ++c)
      if (!wf::nondeterministic_column(a[0][c])) {
        EXPECT_EQ(a[i][c], b[i][c]) << a[0][c] << " row " << i;
      }
  }
  // Slurm ran the array tasks (one log per task).
  int logs = 0;
  for (const auto& e : fs::directory_iterator(d / "slurm" / "logs"))
    logs += e.path().filename().string().rfind("slurm-", 0) == 0;
  EXPECT_EQ(logs, 4);
}

TEST(Plot, WritesPngAndPdfForSweepAndRun) {
  if (sh("/usr/bin/python3 -c 'import matplotlib, pandas'").rc != 0)
    GTEST_SKIP() << "/usr/bin/python3 lacks matplotlib/pandas (python3-matplotlib, python3-pandas)";
  const auto d = scratch("plot");
  auto r = sh(kLbsim + " sweep " + tiny_sweep(d).string() + " --workers 2 --out " + (d / "out").string());
  ASSERT_EQ(r.rc, 0) << r.out;
  r = sh(kLbsim + " plot " + (d / "out").string());
  ASSERT_EQ(r.rc, 0) << r.out;
  for (const char* n : {"fct_cdf", "fct_violin", "fct_bars", "drops_ooo", "queues", "ports"})
    for (const char* ext : {".png", ".pdf"}) {
      const auto f = d / "out" / "plots" / (std::string(n) + ext);
      EXPECT_TRUE(fs::is_regular_file(f)) << f;
      if (fs::is_regular_file(f)) {
        EXPECT_GT(fs::file_size(f), 1000u) << f;
      }
    }
  r = sh(kLbsim + " plot " + (d / "out" / "runs" / "algorithm-ops_seed-1").string() + " --out " + (d / "one").string());
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_TRUE(fs::is_regular_file(d / "one" / "fct_cdf.png"));
  r = sh(kLbsim + " plot " + d.string());  // neither a run nor a sweep folder
  EXPECT_EQ(r.rc, 2) << r.out;
}
