// `lbsim reproduce`: the manifests under examples/ (workflow/manifest.h) - every shipped entry builds
// its sweep at both scales, a manifest's errors name the file, the line and the key, entries are
// found by folder and listed aligned with a quick time no longer than the full one, an entry's run
// prints the table its [report] describes, and `--set` / `--seeds` / analysis entries.
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <gtest/gtest.h>

#include "config/reader.h"
#include "core/error.h"
#include "workflow/manifest.h"

namespace fs = std::filesystem;
namespace wf = lbsim::workflow;

namespace {

const std::string kLbsim = std::string(LBSIM_BINARY_DIR) + "/lbsim";
const std::string kExamples = std::string(LBSIM_SOURCE_DIR) + "/examples";

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

fs::path scratch(const std::string& name) {
  const fs::path d = fs::path(LBSIM_BINARY_DIR) / "workflow-tests" / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream f(p);
  f << text;
}

std::string read(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// A source tree of its own for discovery (LBSIM_SOURCE_DIR needs examples/ and src/).
std::string in_tree(const fs::path& root, const std::string& args) {
  fs::create_directories(root / "src");
  return "LBSIM_SOURCE_DIR=" + root.string() + " " + kLbsim + " " + args;
}

// A tiny sweep: a 16-host fat tree, 64 KiB permutation, ECMP vs OPS as a named axis.
const char* kTinySweep = R"(name = "tiny"
[set]
"topology.kind" = "fat_tree"
"topology.hosts" = 16
"topology.radix" = 8
"transport.rto_us" = 70
"workload.kind" = "permutation"
"workload.size" = "64KiB"
[grid]
scheme = [{name = "ecmp", "lb.algorithm" = "ecmp"}, {name = "ops", "lb.algorithm" = "ops"}]
[[case]]
name = "h8"
"topology.hosts" = 8
[[case]]
name = "h16"
)";

// A valid manifest of the tiny sweep; `extra` is appended.
std::string manifest(const std::string& extra = "", const std::string& name = "tiny-fig1") {
  return "name = \"" + name +
         "\"\npaper = \"Tiny\"\nfigure = \"Fig. 1\"\ndescription = \"a test\"\nsweep = \"sweep.toml\"\n"
         "[time]\nfull_s = 2\nquick_s = 1\n" +
         extra;
}

// "5.5 min", "<1 s", "~3 h" -> seconds ("<1 s": 0.5).
double seconds(const std::string& t) {
  static const std::regex re(R"(^~?(<?)([0-9.]+) (s|min|h)$)");
  std::smatch m;
  if (!std::regex_match(t, m, re)) {
    ADD_FAILURE() << "not a duration: '" << t << "'";
    return 0;
  }
  const double v = m[1].length() ? 0.5 : std::stod(m[2]);
  return v * (m[3] == "s" ? 1 : m[3] == "min" ? 60 : 3600);
}

}  // namespace

// Every shipped entry loads, needs nothing this build lacks, and its sweep (full and --quick)
// expands; written back as a sweep file it gives the same points with the same configs.
TEST(Manifests, EveryShippedEntryBuildsAndRoundTrips) {
  const auto d = scratch("manifests");
  const auto entries = wf::discover(kExamples);
  ASSERT_GE(entries.size(), 35u);
  for (const auto& e : entries) {
    EXPECT_TRUE(e.needs.empty()) << e.name << ": " << (e.needs.empty() ? "" : e.needs[0]);
    EXPECT_LE(e.quick_s, e.full_s) << e.name;
    if (!e.analysis.empty()) {
      const auto args = wf::analysis_args(e, true);
      ASSERT_GE(args.size(), e.analysis.size());
      EXPECT_TRUE(std::equal(e.analysis.begin(), e.analysis.end(), args.begin())) << e.name;
      continue;
    }
    for (const bool quick : {false, true}) {
      const auto spec = wf::entry_sweep(e, quick);
      EXPECT_EQ(spec.name, e.name);
      const auto pts = wf::expand(spec, (d / "a").string());
      const auto again =
          wf::expand(wf::parse_sweep_text(wf::sweep_to_toml(spec, {"header"}), (d / (e.name + ".toml")).string()),
                     (d / "a").string());
      ASSERT_EQ(pts.size(), again.size()) << e.name;
      for (std::size_t i = 0; i < pts.size(); ++i) {
        EXPECT_EQ(pts[i].name, again[i].name) << e.name;
        EXPECT_EQ(lbsim::config::to_toml(pts[i].cfg), lbsim::config::to_toml(again[i].cfg)) << pts[i].name;
      }
    }
  }
}

// [REPS] Fig. 3 at --quick: the manifest's [quick] keeps 8 of the 10 cases and shrinks the networks
// (fat trees of 128 hosts, 32 for traces and collectives) and the messages.
TEST(Manifests, QuickChangesFollowTheManifest) {
  const auto entries = wf::discover(kExamples);
  const auto it =
      std::find_if(entries.begin(), entries.end(), [](const wf::Entry& e) { return e.name == "reps-fig3"; });
  ASSERT_NE(it, entries.end());
  const auto full = wf::expand(wf::entry_sweep(*it, false), "/tmp/x");
  const auto quick = wf::expand(wf::entry_sweep(*it, true), "/tmp/x");
  EXPECT_EQ(full.size(), 10u * 3);
  EXPECT_EQ(quick.size(), 8u * 3);
  for (const auto& p : quick) {
    const bool small = p.case_name.rfind("websearch", 0) == 0 || p.case_name.find("all") != std::string::npos;
    EXPECT_EQ(p.cfg.integer("topology.hosts"), small ? 32 : 128) << p.name;
    if (p.case_name == "permutation") {
      EXPECT_EQ(p.cfg.integer("workload.size"), 2 << 20);
    }
  }
  for (const auto& p : full)
    if (p.case_name == "permutation") {
      EXPECT_EQ(p.cfg.integer("topology.hosts"), 1024);
    }
}

// Item 12 of the outputs issue: `--list` rows line up with the header, and no entry's quick run
// takes longer than its full one (both from the manifests' [time]).
TEST(ReproduceList, ColumnsAlignAndQuickIsNoLongerThanFull) {
  const auto r = sh(kLbsim + " reproduce --list");
  ASSERT_EQ(r.rc, 0) << r.out;
  std::istringstream in(r.out);
  std::string header;
  std::getline(in, header);
  const auto source = header.find("source"), full = header.find("full"), quick = header.find("quick"),
             status = header.find("status");
  ASSERT_NE(status, std::string::npos) << header;
  int rows = 0;
  for (std::string line; std::getline(in, line); ++rows) {
    ASSERT_GT(line.size(), status) << line;
    // Each column starts where its header does (full and quick are right-aligned: they end there).
    EXPECT_EQ(line.compare(source - 2, 2, "  "), 0) << line;
    EXPECT_NE(line[source], ' ') << line;
    EXPECT_EQ(line.compare(status - 2, 2, "  "), 0) << line;
    EXPECT_NE(line[status], ' ') << line;
    const std::string times = line.substr(source, status - source);
    static const std::regex t(R"((~?<?[0-9.]+ (?:s|min|h))\s+(~?<?[0-9.]+ (?:s|min|h))\s*$)");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(times, m, t)) << line;
    EXPECT_EQ(static_cast<std::size_t>(m.position(1) + m.length(1)) + source, full + 4) << line;
    EXPECT_EQ(static_cast<std::size_t>(m.position(2) + m.length(2)) + source, quick + 5) << line;
    EXPECT_LE(seconds(m[2]), seconds(m[1])) << line;
  }
  EXPECT_GE(rows, 35);
}

TEST(ReproduceList, DurationsReadAsTheirUnit) {
  EXPECT_EQ(wf::format_duration(0.2, false), "<1 s");
  EXPECT_EQ(wf::format_duration(11, false), "11 s");
  EXPECT_EQ(wf::format_duration(330, false), "5.5 min");
  EXPECT_EQ(wf::format_duration(240, true), "~4 min");
  EXPECT_EQ(wf::format_duration(2700, true), "~45 min");
  EXPECT_EQ(wf::format_duration(50000, true), "~14 h");
}

// Bad manifests: exit 2 and one line naming the file, the line and the key, before anything runs.
TEST(Manifests, ErrorsNameFileLineAndKey) {
  const auto d = scratch("manifest-errors");
  write(d / "sweep.toml", kTinySweep);
  const auto check = [&](const std::string& text, const std::string& expected) {
    write(d / "m.toml", text);
    const auto r = sh(kLbsim + " reproduce " + (d / "m.toml").string() + " --quick --print");
    EXPECT_EQ(r.rc, 2) << text << "\n" << r.out;
    EXPECT_NE(r.out.find(expected), std::string::npos) << "expected: " << expected << "\n" << r.out;
  };
  const std::string m = (d / "m.toml").string();
  check("figur = \"x\"\n" + manifest(), m + ":1: unknown key 'figur' (expected one of:");
  check(
      "name = \"tiny-fig1\"\nfigure = \"Fig. 1\"\ndescription = \"x\"\nsweep = \"sweep.toml\"\n[time]\n"
      "full_s = 2\nquick_s = \"fast\"\n",
      m + ":7: key 'time.quick_s': expected a number");
  check(
      "name = \"tiny-fig1\"\nfigure = \"Fig. 1\"\ndescription = \"x\"\nsweep = \"sweep.toml\"\n[time]\n"
      "full_s = 1\nquick_s = 5\n",
      m + ":7: key 'time.quick_s': the quick run (5 s) takes longer than the full run (1 s)");
  check(manifest("[quick]\ncases = [\"h8\", \"h32\"]\n"), m + ":10: key 'cases': the sweep");
  check(manifest("[quick]\ncases = [\"h8\", \"h32\"]\n"), "has no case 'h32' (cases: h8, h16)");
  check(manifest("[quick.set]\nunset = [\"workload.window\"]\n"), m + ":9: key 'unset': [set] of the sweep");
  check(manifest("[quick]\ndrop_axes = [\"run.seed\"]\n"), m + ":10: key 'drop_axes': the sweep");
  check(manifest("[quick.axis.scheme.reps]\n\"workload.size\" = \"1MiB\"\n"), m + ":9: key 'axis.scheme.reps'");
  check(manifest("[quick.set]\n\"workload.size\" = \"lots\"\n"), m + ":10: key 'workload.size': 'lots' is not a size");
  check(manifest("[report]\nkind = \"bars\"\n"), m + ":10: key 'report.kind': 'bars' is not one of: table");
  check(manifest("[report]\nkind = \"table\"\n[[report.metric]]\nlabel = \"x\"\n"),
        "[[report.metric]] 'x': give either value (summary.json paths) or span_tags");
  check(manifest("[report]\nkind = \"table\"\n[[report.metric]]\nlabel = \"x\"\nvalue = \"fct_us..p99\"\n"),
        m + ":13: key 'report.metric.value': 'fct_us..p99' is not a summary.json path");
  check(manifest("[report]\nkind = \"table\"\n[[report.metric]]\nlabel = \"x\"\nvalue = \"completed\"\n"
                 "[[report.ratio]]\nlabel = \"r\"\nmetric = \"y\"\nscheme = \"ops\"\n"),
        m + ":16: key 'report.ratio.metric': no [[report.metric]] has label 'y'");
  check("extends = \"other.toml\"\n" + manifest(), m + ": give exactly one of sweep");
  check("name = \"Tiny\"\n", m + ":1: key 'name': use lower-case letters");
}

// A config key or choice this build does not have: --list says what is missing, running it refuses
// with the file and line, and nothing runs.
TEST(Manifests, NeedsWhatThisBuildLacks) {
  const auto root = scratch("manifest-needs");
  const fs::path ex = root / "examples" / "tiny";
  std::string sweep = kTinySweep;
  sweep.replace(sweep.find("\"lb.algorithm\" = \"ops\""), 22, "\"lb.algorithm\" = \"warp_drive\"");
  write(ex / "sweep.toml", sweep);
  std::string m = manifest("[quick.set]\n\"network.teleport\" = true\n");
  m.replace(m.find("\"sweep.toml\""), 12, "\"../sweep.toml\"");
  write(ex / "reproduce" / "fig1.toml", m);
  auto r = sh(in_tree(root, "reproduce --list"));
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("needs: lb.algorithm = warp_drive, network.teleport"), std::string::npos) << r.out;
  r = sh(in_tree(root, "reproduce tiny-fig1 --quick --out " + (root / "out").string()));
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("tiny-fig1 ([Tiny] Fig. 1) cannot run in this build: needs lb.algorithm = warp_drive"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find((ex / "sweep.toml").string() + ":10: key 'lb.algorithm': not one of:"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find((ex / "reproduce" / "fig1.toml").string() + ":10: key 'network.teleport': unknown key"),
            std::string::npos)
      << r.out;
  EXPECT_FALSE(fs::exists(root / "out"));
}

// Manifests are the *.toml files of folders named `reproduce` under examples/, listed in natural
// order of their names; two entries with one name are an error.
TEST(Manifests, DiscoveryByFolderInNaturalOrder) {
  const auto root = scratch("manifest-discovery");
  const fs::path ex = root / "examples";
  write(ex / "a" / "sweep.toml", kTinySweep);
  write(ex / "a" / "reproduce" / "x.toml", manifest("", "tiny-fig10"));
  write(ex / "a" / "reproduce" / "y.toml", manifest("", "tiny-fig9"));
  write(ex / "a" / "reproduce" / "notes.txt", "not a manifest");
  write(ex / "a" / "other" / "z.toml", "not = \"a manifest: not in reproduce/\"\n");
  write(ex / "b" / "deeper" / "reproduce" / "w.toml",
        "name = \"tiny-fig9-b\"\nfigure = \"Fig. 9b\"\ndescription = \"x\"\nextends = \"../../../a/reproduce/y.toml\"\n"
        "[time]\nfull_s = 3\nquick_s = 1\n");
  for (const auto& f : {"x.toml", "y.toml"}) {
    std::string t = read(ex / "a" / "reproduce" / f);
    t.replace(t.find("\"sweep.toml\""), 12, "\"../sweep.toml\"");
    write(ex / "a" / "reproduce" / f, t);
  }
  auto r = sh(in_tree(root, "reproduce --list"));
  ASSERT_EQ(r.rc, 0) << r.out;
  const auto a = r.out.find("\ntiny-fig9 "), b = r.out.find("\ntiny-fig9-b "), c = r.out.find("\ntiny-fig10 ");
  ASSERT_NE(a, std::string::npos) << r.out;
  EXPECT_LT(a, b) << r.out;
  EXPECT_LT(b, c) << r.out;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 4) << r.out;
  write(ex / "b" / "reproduce" / "dup.toml",
        "name = \"tiny-fig10\"\nfigure = \"Fig. 10\"\ndescription = \"x\"\nextends = \"../../a/reproduce/y.toml\"\n"
        "[time]\nfull_s = 3\nquick_s = 1\n");
  r = sh(in_tree(root, "reproduce --list"));
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("key 'name': 'tiny-fig10' is also the name of"), std::string::npos) << r.out;
}

// An entry's run prints the table of its [report], from values known without simulating: a
// permutation on N hosts has N transfers, and 64 KiB on an idle lossless-enough fat tree all
// complete. Two cases (8 and 16 hosts), two schemes, --seeds 2; the paper's value by rule.
TEST(Reproduce, QuickRunPrintsTheTableOfItsManifest) {
  const auto d = scratch("reproduce-table");
  write(d / "sweep.toml", kTinySweep);
  write(d / "m.toml", manifest(R"([quick.set]
"workload.size" = "32KiB"
[report]
kind = "table"
title = "{name}: transfers per scheme; "
notes = ["the end"]
[[report.metric]]
label = "transfers"
value = "workload.transfers"
[[report.metric]]
label = "completed + transfers"
value = "completed + workload.transfers"
[[report.ratio]]
label = "transfers / ops's"
metric = "transfers"
scheme = "ops"
[[report.paper]]
setting = "h1*"
metric = "transfers"
scheme = "ecmp"
value = "16"
)"));
  auto r = sh(kLbsim + " reproduce " + (d / "m.toml").string() + " --quick --print --seeds 2");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_NE(r.out.find("\"workload.size\" = \"32KiB\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[grid]\n\"run.seed\" = [1, 2]\nscheme = [\n"), std::string::npos) << r.out;
  r = sh(kLbsim + " reproduce " + (d / "m.toml").string() + " --quick --no-plot --workers 2 --seeds 2 --out " +
         (d / "out").string());
  ASSERT_EQ(r.rc, 0) << r.out;
  std::string expected = "tiny-fig1: transfers per scheme; 2 seed(s); mean [min..max] over the seeds\n";
  for (const int hosts : {8, 16}) {
    const std::string n = fmt::format("{}.0 [{}.0..{}.0]", hosts, hosts, hosts);
    const std::string n2 = fmt::format("{}.0 [{}.0..{}.0]", 2 * hosts, 2 * hosts, 2 * hosts);
    const std::string paper = hosts == 16 ? "   paper: 16" : "";
    expected += fmt::format("h{}: transfers\n  {:<10} {:>30}{}\n  {:<10} {:>30}\n", hosts, "ecmp", n, paper, "ops", n);
    expected +=
        fmt::format("h{}: completed + transfers\n  {:<10} {:>30}\n  {:<10} {:>30}\n", hosts, "ecmp", n2, "ops", n2);
    expected +=
        fmt::format("h{}: transfers / ops's\n  {:<10} {:>30}\n  {:<10} {:>30}\n", hosts, "ecmp", "1.0", "ops", "1.0");
  }
  expected += "the end\n";
  EXPECT_NE(r.out.find("\n" + expected), std::string::npos) << "expected:\n" << expected << "\ngot:\n" << r.out;
  EXPECT_EQ(read(d / "out" / "paper.txt"), expected);
  EXPECT_NE(read(d / "out" / "reproduce.json").find("\"source\": \"[Tiny] Fig. 1\""), std::string::npos);
}

// `--set`: a key for every run (here the demo without ECN: no packet marked, where the demo marks); a
// key of the entry's [set] takes the new value; keys the entry varies per point, unknown keys, bad
// values, settings that contradict the entry's and analysis entries are refused.
TEST(Reproduce, SetAddsAKeyToEveryRun) {
  const auto d = scratch("reproduce-set");
  auto r = sh(kLbsim + " reproduce demo --quick --print --set network.ecn=false --set transport.rto_us=90");
  ASSERT_EQ(r.rc, 0) << r.out;  // the demo's own transport.rto_us = 70 is replaced
  EXPECT_NE(r.out.find("\n\"transport.rto_us\" = 90\n"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("\"transport.rto_us\" = 70"), std::string::npos) << r.out;
  const auto set = r.out.find("\n[set]\n"), grid = r.out.find("\n[grid]\n"),
             ecn = r.out.find("\n\"network.ecn\" = false\n");
  EXPECT_LT(set, ecn) << r.out;
  EXPECT_LT(ecn, grid) << r.out;
  r = sh(kLbsim + " reproduce demo --quick --print --set lb.algorithm=reps");
  EXPECT_EQ(r.rc, 2) << r.out;  // swept by the grid
  EXPECT_NE(r.out.find("demo varies \"lb.algorithm\" per point"), std::string::npos) << r.out;
  r = sh(kLbsim + " reproduce demo --quick --print --set network.flow_contro=pfc");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("unknown key 'network.flow_contro'"), std::string::npos) << r.out;
  r = sh(kLbsim + " reproduce demo --quick --print --set network.flow_control=paused");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("network.flow_control"), std::string::npos) << r.out;
  r = sh(kLbsim + " reproduce reps-fig18 --quick --print --set network.ecn=false");
  EXPECT_EQ(r.rc, 2) << r.out;  // an analysis
  // The demo trims, which a lossless network contradicts: refused before anything runs.
  r = sh(kLbsim + " reproduce demo --quick --no-plot --set network.flow_control=pfc --out " + (d / "pfc").string());
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("network.trimming = true contradicts"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(d / "pfc" / "runs"));
  for (const char* ecn : {"true", "false"}) {
    r = sh(kLbsim + " reproduce demo --quick --no-plot --workers 2 --set network.ecn=" + ecn + " --out " +
           (d / ecn).string());
    ASSERT_EQ(r.rc, 0) << r.out;
  }
  const auto csv = [](const fs::path& p) {
    std::vector<std::vector<std::string>> rows;
    std::istringstream in(read(p));
    for (std::string line; std::getline(in, line);) {
      std::vector<std::string> row;
      std::stringstream ss(line);
      for (std::string cell; std::getline(ss, cell, ',');) row.push_back(cell);
      rows.push_back(row);
    }
    return rows;
  };
  const auto on = csv(d / "true" / "results.csv"), off = csv(d / "false" / "results.csv");
  ASSERT_EQ(off.size(), 3u);
  ASSERT_EQ(on.size(), 3u);
  EXPECT_EQ(off[1][1], "ecmp");
  EXPECT_EQ(off[2][1], "ops");
  std::size_t marks = 0;
  for (std::size_t i = 0; i < off[0].size(); ++i)
    if (off[0][i] == "ecn_marks") marks = i;
  ASSERT_GT(marks, 0u);
  double marked = 0;
  for (std::size_t k = 1; k < 3; ++k) {
    EXPECT_EQ(off[k][2], "ok");
    EXPECT_EQ(off[k][marks], "0") << off[k][1];
    marked += std::stod(on[k][marks]);
  }
  EXPECT_GT(marked, 0.0);  // the setting made the difference (ECMP's collisions mark with ECN on)
}

// An analysis entry runs its lbsim subcommand with the manifest's keys; --quick changes them.
TEST(Reproduce, AnalysisEntryRunsItsCommand) {
  auto r = sh(kLbsim + " reproduce reps-fig18 --quick --print --out /tmp/x");
  ASSERT_EQ(r.rc, 0) << r.out;
  EXPECT_EQ(r.out.rfind("lbsim balls queue --set balls.queue_models=ops,recycled --set balls.queue_bins=\"5\" ", 0), 0u)
      << r.out;
  EXPECT_NE(r.out.find(" --set balls.seeds=5 --out /tmp/x\n"), std::string::npos) << r.out;
  r = sh(kLbsim + " reproduce reps-fig18 --print --out /tmp/x");
  EXPECT_NE(r.out.find(" --set balls.seeds=20 --out /tmp/x\n"), std::string::npos) << r.out;
  r = sh(kLbsim + " reproduce reps-fig18 --quick --seeds 2");
  EXPECT_EQ(r.rc, 2) << r.out;
  r = sh(kLbsim + " reproduce nonsense");
  EXPECT_EQ(r.rc, 2);
  EXPECT_NE(r.out.find("unknown experiment 'nonsense'"), std::string::npos);
}

TEST(Reproduce, FlowcutDragonflyQuickRunsEverySchemeLossless) {
  // flowcut-fig13 --quick: the 64-host Dragonfly (p = a = 4, h = 3, g = 4) on the credit network,
  // uniform 4 KiB-1 MiB flows (examples/flowcut/uniform.cdf). Every point must load and complete;
  // Flowcut delivers nothing out of order, the per-packet schemes (UGAL-L, Valiant) do.
  const auto d = scratch("flowcut-fig13");
  const auto r = sh(kLbsim + " reproduce flowcut-fig13 --quick --no-plot --workers 2 --out " + (d / "out").string());
  ASSERT_EQ(r.rc, 0) << r.out;
  std::istringstream in(read(d / "out" / "results.csv"));
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> row;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) row.push_back(cell);
    rows.push_back(row);
  }
  ASSERT_EQ(rows.size(), 9u);  // header + 8 schemes
  const auto col = [&](const char* name) {
    for (std::size_t i = 0; i < rows[0].size(); ++i)
      if (rows[0][i] == name) return i;
    ADD_FAILURE() << "no column " << name;
    return std::size_t{0};
  };
  const auto scheme = col("scheme"), status = col("status"), ooo = col("ooo_pct"), drops = col("drops");
  std::map<std::string, double> ooo_of;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i][status], "ok") << rows[i][scheme];
    EXPECT_EQ(rows[i][drops], "0") << rows[i][scheme];  // lossless
    ooo_of[rows[i][scheme]] = std::stod(rows[i][ooo]);
  }
  EXPECT_EQ(ooo_of.at("flowcut_nic"), 0.0);
  EXPECT_EQ(ooo_of.at("flowcut_full"), 0.0);
  EXPECT_EQ(ooo_of.at("ecmp"), 0.0);
  EXPECT_GT(ooo_of.at("ugal_l"), 10.0);
  EXPECT_GT(ooo_of.at("valiant"), 10.0);
}

// `lbsim sweep --set`: a key for every point, as reproduce --set.
TEST(SweepCli, SetAddsAKeyToEveryPoint) {
  const auto d = scratch("sweep-set");
  write(d / "sweep.toml", kTinySweep);
  auto r = sh(kLbsim + " sweep " + (d / "sweep.toml").string() + " --set network.ecn=false --collect --out " +
              (d / "out").string());
  EXPECT_EQ(r.rc, 3) << r.out;  // nothing run
  int points = 0;
  for (const auto& f : fs::directory_iterator(d / "out" / "points")) {
    ++points;
    EXPECT_NE(read(f.path()).find("\necn = false\n"), std::string::npos) << f.path();
  }
  EXPECT_EQ(points, 4);
  r = sh(kLbsim + " sweep " + (d / "sweep.toml").string() +
         " --set workload.size=1KiB --set topology.hosts=4 --dry-run");
  EXPECT_EQ(r.rc, 2) << r.out;
  EXPECT_NE(r.out.find("tiny varies \"topology.hosts\" per point"), std::string::npos) << r.out;
}
