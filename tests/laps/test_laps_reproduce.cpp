// The `lbsim reproduce laps-*` entries (docs/laps.md "Transport per scheme"): every scheme runs the
// sender its implementation ran in the LAPS paper's evaluation, read from the printed sweep.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "../sim/helpers.h"
#include "config/reader.h"
#include "workflow/sweep.h"
#include "workflow/manifest.h"
#include "workflow/reports.h"

namespace {

using lbsim::test::run_lbsim;

// scheme name -> its line in the printed `scheme = [...]` axis.
std::map<std::string, std::string> scheme_lines(const std::string& out) {
  std::map<std::string, std::string> m;
  for (std::size_t at = out.find("{name = \""); at != std::string::npos; at = out.find("{name = \"", at + 1)) {
    const auto b = at + 9;
    const auto e = out.find('"', b);
    m[out.substr(b, e - b)] = out.substr(at, out.find('\n', at) - at);
  }
  return m;
}

bool has(const std::string& line, const std::string& key, const std::string& value) {
  return line.find("\"" + key + "\" = " + value) != std::string::npos;
}

std::string print(const std::string& entry) {
  ::setenv("LBSIM_SOURCE_DIR", LBSIM_SOURCE_DIR, 1);
  const auto r = run_lbsim("reproduce " + entry + " --quick --print");
  EXPECT_EQ(r.code, 0) << r.out;
  return r.out;
}

}  // namespace

// ECMP, LetFlow, CONGA and ConWeave ran RoCE senders in the paper's ns-3 code (DCQCN, go-back-N, in-order
// delivery, window = one BDP); PLB the same recovery over DCTCP (g = 1/256, 12 congested rounds);
// LAPS its own rate control and selective retransmission (cc = none, out-of-order placement).
TEST(LapsReproduce, EveryEntryRunsEachSchemeWithItsOwnTransport) {
  for (const char* entry :
       {"laps-fig5", "laps-fig6", "laps-fig7", "laps-fig8", "laps-table1", "laps-patterns", "laps-fig9"}) {
    SCOPED_TRACE(entry);
    const auto out = print(entry);
    const auto s = scheme_lines(out);
    ASSERT_EQ(s.size(), 6u) << out;
    for (const char* roce : {"ecmp", "letflow", "conga", "conweave", "plb"}) {
      SCOPED_TRACE(roce);
      ASSERT_TRUE(s.count(roce));
      const auto& l = s.at(roce);
      EXPECT_TRUE(has(l, "transport.delivery", "\"in_order\"")) << l;
      EXPECT_TRUE(has(l, "transport.in_order_recovery", "\"go_back_n\"")) << l;
      EXPECT_TRUE(has(l, "transport.init_cwnd_bdp", "1.0")) << l;
      EXPECT_TRUE(has(l, "transport.max_cwnd_bdp", "1.0")) << l;
      EXPECT_TRUE(has(l, "transport.cc", std::string(roce) == "plb" ? "\"dctcp\"" : "\"dcqcn\"")) << l;
    }
    EXPECT_TRUE(has(s.at("plb"), "transport.dctcp_g", "0.00390625")) << s.at("plb");
    EXPECT_TRUE(has(s.at("plb"), "lb.plb_rounds", "12")) << s.at("plb");
    EXPECT_TRUE(has(s.at("conweave"), "routing.algorithm", "\"conweave\"")) << s.at("conweave");
    // CONGA over the LAPS candidate paths, the least congested of 4 drawn per new flowlet (the artifact).
    EXPECT_TRUE(has(s.at("conga"), "routing.algorithm", "\"conga\"")) << s.at("conga");
    EXPECT_TRUE(has(s.at("conga"), "routing.conga_candidates", "4")) << s.at("conga");
    const auto& laps = s.at("laps");
    EXPECT_TRUE(has(laps, "transport.cc", "\"none\"")) << laps;
    EXPECT_TRUE(has(laps, "lb.algorithm", "\"laps\"")) << laps;
    EXPECT_EQ(laps.find("go_back_n"), std::string::npos) << laps;
    EXPECT_EQ(laps.find("init_cwnd_bdp"), std::string::npos) << laps;  // the base config's window
    // Fig. 9 measures LAPS's receiver reorder buffer: in-order delivery through the buffer.
    EXPECT_TRUE(has(laps, "transport.delivery", std::string(entry) == "laps-fig9" ? "\"in_order\"" : "\"ooo\""))
        << laps;
  }
}

// The sec. 4.1 patterns: All2all offers the load at every GPU, the parameter-server AllReduce divides
// it over the 63 senders into the root, AllScatter offers it at the root.
TEST(LapsReproduce, PatternsEntryLoadsTheBottleneck) {
  const auto out = print("laps-patterns");
  const auto at = [&](const std::string& c) {
    const auto b = out.find("name = \"" + c + "\"");
    EXPECT_NE(b, std::string::npos) << out;
    return out.substr(b, out.find("[[case]]", b) - b);
  };
  const auto all2all = at("All2all-load-0.8"), reduce = at("AllReduce-load-0.8"), scatter = at("AllScatter-load-0.8");
  EXPECT_NE(all2all.find("\"workload.destinations\" = \"uniform\""), std::string::npos) << all2all;
  EXPECT_NE(all2all.find("\"workload.load\" = 0.8\n"), std::string::npos) << all2all;
  EXPECT_NE(reduce.find("\"workload.destinations\" = \"all_to_one\""), std::string::npos) << reduce;
  EXPECT_NE(reduce.find("\"workload.load\" = 0.0126984\n"), std::string::npos) << reduce;  // 0.8 / 63
  EXPECT_NE(scatter.find("\"workload.destinations\" = \"one_to_all\""), std::string::npos) << scatter;
  EXPECT_NE(scatter.find("\"workload.load\" = 0.8\n"), std::string::npos) << scatter;
  const auto f9 = print("laps-fig9");
  EXPECT_NE(f9.find("\"workload.kind\" = \"allscatter\""), std::string::npos) << f9;
  EXPECT_NE(f9.find("\"workload.kind\" = \"ps_allreduce\""), std::string::npos) << f9;
}

// The quick entries run the base config's seed, so `--seeds N` runs them over seeds 1..N; the full
// entries sweep seeds 1-3 themselves.
TEST(LapsReproduce, QuickEntriesTakeSeeds) {
  ::setenv("LBSIM_SOURCE_DIR", LBSIM_SOURCE_DIR, 1);
  for (const char* entry : {"laps-fig5", "laps-table1", "laps-patterns", "laps-fig9"}) {
    SCOPED_TRACE(entry);
    const auto q = run_lbsim(std::string("reproduce ") + entry + " --quick --seeds 3 --print");
    ASSERT_EQ(q.code, 0) << q.out;
    EXPECT_NE(q.out.find("\"run.seed\" = [1, 2, 3]"), std::string::npos) << q.out;
    const auto f = run_lbsim(std::string("reproduce ") + entry + " --print");
    ASSERT_EQ(f.code, 0) << f.out;
    EXPECT_NE(f.out.find("\"run.seed\" = [1, 2, 3]"), std::string::npos) << f.out;
  }
}

// laps-fig5's flow-size CDF is a file of the source tree, named by an absolute path so that the
// entry runs from any output folder.
TEST(LapsReproduce, Fig5NamesItsCdfFileFromAnyOutputFolder) {
  const auto out = print("laps-fig5");
  const std::string key = "\"workload.cdf\" = \"";
  const auto b = out.find(key);
  ASSERT_NE(b, std::string::npos) << out;
  const auto path = out.substr(b + key.size(), out.find('"', b + key.size()) - b - key.size());
  EXPECT_EQ(path.front(), '/') << path;
  EXPECT_TRUE(std::filesystem::is_regular_file(path)) << path;
}

// Every LAPS entry runs on the PFC network of the authors' ns-3 runs; `--set
// network.flow_control=lossy` gives the lossy network for every point.
TEST(LapsReproduce, EntriesRunLosslessUnlessSetOtherwise) {
  ::setenv("LBSIM_SOURCE_DIR", LBSIM_SOURCE_DIR, 1);
  for (const char* entry :
       {"laps-fig5", "laps-fig6", "laps-fig7", "laps-fig8", "laps-table1", "laps-patterns", "laps-fig9"}) {
    SCOPED_TRACE(entry);
    for (const char* q : {"", " --quick"}) {
      const auto p = run_lbsim(std::string("reproduce ") + entry + q + " --print");
      ASSERT_EQ(p.code, 0) << p.out;
      EXPECT_NE(p.out.find("[set]\n\"network.flow_control\" = \"pfc\"\n"), std::string::npos) << p.out;
    }
    const auto l = run_lbsim(std::string("reproduce ") + entry + " --quick --print --set network.flow_control=lossy");
    ASSERT_EQ(l.code, 0) << l.out;
    EXPECT_NE(l.out.find("\n\"network.flow_control\" = \"lossy\"\n"), std::string::npos) << l.out;
    EXPECT_EQ(l.out.find("\"pfc\""), std::string::npos) << l.out;
  }
}

// `lbsim reproduce laps-artifact-*` (docs/laps.md "Running it"): the artifact sweeps, one point per
// scheme (the `scheme` axis: the report's rows), load 0.5-1.0 and seed 1-3. Each of the six schemes'
// points is the artifact's complete config of that scheme (examples/laps/artifact/<topo>_<scheme>.toml)
// at its load and seed, key for key; laps_paper is LAPS with the paper's sender on the same flows.
TEST(LapsReproduce, ArtifactEntriesRunTheArtifactConfigs) {
  namespace wf = lbsim::workflow;
  const std::string examples = std::string(LBSIM_SOURCE_DIR) + "/examples";
  const auto entries = wf::discover(examples);
  const std::vector<std::string> schemes = {"ecmp", "letflow", "conga", "plb", "conweave", "laps", "laps_paper"};
  const std::string out = "/tmp/lbsim-test-laps-artifact";
  // The resolved config as TOML without its output folder (the run's name: the one key that differs).
  const auto text = [](const lbsim::config::Config& c) {
    auto s = lbsim::config::to_toml(c);
    const auto at = s.find("\ndir = ");
    if (at != std::string::npos) s.erase(at + 1, s.find('\n', at + 1) - at);
    return s;
  };
  for (const auto& [entry, topo, workloads] : std::vector<std::tuple<std::string, std::string, std::size_t>>{
           {"laps-artifact-rail64", "rail64", 1}, {"laps-artifact-dragonfly144", "dragonfly144", 2}}) {
    SCOPED_TRACE(entry);
    const auto it = std::find_if(entries.begin(), entries.end(), [&](const auto& e) { return e.name == entry; });
    ASSERT_NE(it, entries.end());
    const auto pts = wf::expand(wf::entry_sweep(*it, false), out);
    ASSERT_EQ(pts.size(), schemes.size() * workloads * 6 * 3);
    std::map<std::string, int> per_scheme;
    for (const auto& p : pts) {
      ASSERT_FALSE(p.labels.empty());
      ++per_scheme[p.labels[0]];
      const bool paper = p.labels[0] == "laps_paper";
      if (p.cfg.real("workload.load") != 0.8 || p.cfg.integer("run.seed") != 1 ||
          p.cfg.text("workload.cdf").find("FbHdp") != std::string::npos)
        continue;
      SCOPED_TRACE(p.name);
      const auto file = examples + "/laps/artifact/" + topo + "_" + (paper ? "laps" : p.labels[0]) + ".toml";
      // The artifact config as a sweep of one point resolves it (presets, paths) as the entry's points;
      // laps_paper: the artifact's LAPS config with the paper's paced sender and a window of 2 BDP.
      std::string one = "base = \"" + file + "\"\n";
      if (paper)
        one +=
            "[set]\n\"lb.laps_sender\" = \"paper\"\n\"transport.cwnd_packets\" = 0\n"
            "\"transport.init_cwnd_bdp\" = 2.0\n\"transport.max_cwnd_bdp\" = 2.0\n";
      const auto own = wf::expand(wf::parse_sweep_text(one, examples + "/laps/artifact/one.toml"), out);
      ASSERT_EQ(own.size(), 1u);
      EXPECT_EQ(text(p.cfg), text(own[0].cfg)) << file;
    }
    ASSERT_EQ(per_scheme.size(), schemes.size());
    for (const auto& s : schemes) EXPECT_EQ(per_scheme[s], static_cast<int>(workloads * 6 * 3)) << s;
    // --quick: loads 0.5 and 0.8, one seed (the base config's, so that --seeds N applies), short window.
    const auto quick = wf::expand(wf::entry_sweep(*it, true), out);
    ASSERT_EQ(quick.size(), schemes.size() * workloads * 2);
    for (const auto& p : quick) {
      EXPECT_TRUE(p.cfg.real("workload.load") == 0.5 || p.cfg.real("workload.load") == 0.8) << p.name;
      EXPECT_EQ(p.cfg.integer("run.seed"), 1) << p.name;
      EXPECT_LT(p.cfg.real("workload.duration_us"), 10000) << p.name;
    }
    // The report's legend names each scheme's window: the baselines' one window in packets, the
    // artifact's LAPS sender its own (not paced), the paper's sender 2 BDP with its rate control.
    const auto legend = wf::laps_legend(wf::Sweep{wf::entry_sweep(*it, true), out, quick});
    const auto line = [&](const std::string& s) {
      const auto b = legend.find("  " + s + ": ");
      return b == std::string::npos ? std::string() : legend.substr(b, legend.find('\n', b) - b);
    };
    const std::string window = topo == "rail64" ? "156 packets" : "131 packets";
    for (const char* s : {"ecmp", "letflow", "conga", "plb", "conweave"})
      EXPECT_NE(line(s).find(" / " + window + "; network pfc"), std::string::npos) << legend;
    EXPECT_NE(line("laps").find("the artifact's LAPS sender: not paced"), std::string::npos) << legend;
    EXPECT_NE(line("laps").find("/ 2 x T x NIC rate;"), std::string::npos) << legend;
    EXPECT_NE(line("laps_paper").find("LAPS rate control, sec. 3.6"), std::string::npos) << legend;
    EXPECT_NE(line("laps_paper").find("/ 2 BDP;"), std::string::npos) << legend;
  }
}
