// What `lbsim reproduce spritz-*` prints after its sweep: the [report] of each entry's manifest
// (examples/spritz/reproduce/*.toml) run by the generic report machinery (workflow/reports.h) - the
// metric of the paper's figure per scheme and setting, mean [min..max] over the seeds, beside the
// paper's value.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "../sim/helpers.h"
#include "workflow/manifest.h"
#include "workflow/reports.h"

namespace lbsim::workflow {
namespace {

namespace fs = std::filesystem;

Point point(const fs::path& root, const std::string& kase, const std::string& scheme, int seed,
            const std::string& summary, const std::string& flows = "") {
  Point p;
  p.name = kase + "-" + scheme + "-" + std::to_string(seed);
  p.case_name = kase;
  p.labels = {scheme};
  p.cfg.set("run.seed", seed);
  const fs::path dir = root / p.name;
  fs::create_directories(dir);
  p.cfg.set("output.dir", dir.string());
  test::write_file((dir / ".exit_code").string(), "0");
  test::write_file((dir / "summary.json").string(), summary);
  if (!flows.empty()) test::write_file((dir / "flows.csv").string(), flows);
  return p;
}

// The report of a shipped Spritz manifest.
std::string report(const Sweep& sw, const std::string& manifest) {
  return run_report(sw, load_entry(std::string(LBSIM_SOURCE_DIR) + "/examples/spritz/reproduce/" + manifest).report);
}

Sweep scheme_sweep() {
  Sweep sw;
  sw.spec.axes.push_back(Axis{"scheme", {}, 0});
  return sw;
}

// A summary with the monitored flow's FCT and a much larger FCT over all flows (the background).
std::string monitored(double fct) {
  return "{\"unfinished\": 0, \"completed\": 117, \"fct_us\": {\"max\": 1500.0, \"p99\": 1400.0}, "
         "\"fct_us_by_tag\": {\"monitored\": {\"count\": 1, \"max\": " +
         std::to_string(fct) + ", \"p99\": " + std::to_string(fct) +
         "}, \"background\": {\"count\": 116, \"max\": 1500.0, \"p99\": 1400.0}}}";
}

TEST(SpritzReports, Table3PrintsTheMonitoredFlowNotTheMaxOverAllFlows) {
  const fs::path root = test::temp_dir("spritz-table3-report");
  auto sw = scheme_sweep();
  sw.points.push_back(point(root, "loaded", "minimal", 1, monitored(240)));
  sw.points.push_back(point(root, "loaded", "minimal", 2, monitored(260)));
  sw.points.push_back(point(root, "loaded", "scout", 1, monitored(120)));
  sw.points.push_back(point(root, "solo", "scout", 1, monitored(90)));
  const std::string r = report(sw, "table3.toml");
  EXPECT_NE(r.find("250.0 [240.0..260.0]   paper: 244"), std::string::npos) << r;
  EXPECT_NE(r.find("120.0   paper: 110"), std::string::npos) << r;
  EXPECT_NE(r.find("solo: FCT of the monitored flow (us)"), std::string::npos) << r;
  EXPECT_NE(r.find("90.0   paper: 91"), std::string::npos) << r;
  EXPECT_EQ(r.find("1500"), std::string::npos) << r;
  EXPECT_EQ(r.find("1400"), std::string::npos) << r;
  EXPECT_NE(r.find("2 seed(s)"), std::string::npos) << r;
}

std::string p99(double all, double trims) {
  return "{\"unfinished\": 0, \"completed\": 10, \"fct_us\": {\"max\": " + std::to_string(all * 2) +
         ", \"p99\": " + std::to_string(all) + "}, \"trims\": " + std::to_string(trims) +
         ", \"drops\": 0, \"ooo_pct\": 1.5}";
}

TEST(SpritzReports, Fig6MarginOverTheNextBestPerSeed) {
  const fs::path root = test::temp_dir("spritz-fig6-report");
  auto sw = scheme_sweep();
  // Seed 1: next best OPS (u) 90 / Spray 75 = 1.20; seed 2: Valiant 88 / Spray 80 = 1.10.
  sw.points.push_back(point(root, "dragonfly", "valiant", 1, p99(100, 50)));
  sw.points.push_back(point(root, "dragonfly", "ops_u", 1, p99(90, 40)));
  sw.points.push_back(point(root, "dragonfly", "spritz_u", 1, p99(75, 10)));
  sw.points.push_back(point(root, "dragonfly", "valiant", 2, p99(88, 50)));
  sw.points.push_back(point(root, "dragonfly", "ops_u", 2, p99(95, 40)));
  sw.points.push_back(point(root, "dragonfly", "spritz_u", 2, p99(80, 10)));
  const std::string r = report(sw, "fig6.toml");
  EXPECT_NE(r.find("dragonfly: p99 FCT (us)"), std::string::npos) << r;
  EXPECT_NE(r.find("77.5 [75.0..80.0]"), std::string::npos) << r;
  EXPECT_NE(r.find("1.15 [1.10..1.20]x"), std::string::npos) << r;
  EXPECT_NE(r.find("next best: ops_u x1, valiant x1"), std::string::npos) << r;
  EXPECT_NE(r.find("1.1-1.2x (permutation), 1.3-1.5x (adversarial)"), std::string::npos) << r;
  EXPECT_NE(r.find("dropped packets (trimmed + dropped)"), std::string::npos) << r;
}

TEST(SpritzReports, Fig7CollectiveDurationFromFlowsCsv) {
  const fs::path root = test::temp_dir("spritz-fig7-report");
  auto sw = scheme_sweep();
  const std::string summary =
      "{\"unfinished\": 0, \"completed\": 4, \"fct_us\": {\"max\": 900.0, \"p99\": 900.0}, "
      "\"fct_us_by_tag\": {\"background\": {\"count\": 2, \"max\": 900.0, \"p99\": 880.0}, "
      "\"step0\": {\"count\": 1, \"max\": 10.0, \"p99\": 10.0}}}";
  // The collective: step0 from 5 to 15 us, step1 from 15 to 40 us: 35 us; the background ends at 900.
  const std::string flows =
      "id,src,dst,bytes,tag,lb,kind,finished,start_us,finish_us,fct_us\n"
      "0,1,2,4096,step0,,transfer,1,5.0,15.0,10.0\n"
      "1,2,1,4096,step1,,transfer,1,15.0,40.0,25.0\n"
      "2,3,4,4096,background,ecmp,transfer,1,0.0,900.0,900.0\n"
      "3,4,3,4096,background,ecmp,transfer,1,0.0,860.0,860.0\n";
  sw.points.push_back(point(root, "dragonfly", "spritz_u", 1, summary, flows));
  const std::string r = report(sw, "fig7.toml");
  EXPECT_NE(r.find("collective duration (us)"), std::string::npos) << r;
  EXPECT_NE(r.find("35.0"), std::string::npos) << r;
  EXPECT_NE(r.find("background p99 FCT (us)"), std::string::npos) << r;
  EXPECT_NE(r.find("880.0"), std::string::npos) << r;
}

TEST(SpritzReports, Fig8PerTag) {
  const fs::path root = test::temp_dir("spritz-fig8-report");
  auto sw = scheme_sweep();
  sw.points.push_back(
      point(root, "", "valiant", 1,
            "{\"unfinished\": 0, \"completed\": 3, \"retransmits\": 4000, \"fct_us\": {\"p99\": 2700.0}, "
            "\"fct_us_by_tag\": {\"incast\": {\"count\": 32, \"p99\": 2750.0, \"p50\": 2700.0}, "
            "\"bystander\": {\"count\": 1023, \"p99\": 250.0, \"p50\": 180.0}}}"));
  const std::string r = report(sw, "fig8.toml");
  EXPECT_NE(r.find("incast p99 FCT (us)\n  valiant                            2750.0   paper: 2740-2770"),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("bystander p99 FCT (us)\n  valiant                             250.0   paper: 249.01"),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("4000.0   paper: 4526"), std::string::npos) << r;
}

TEST(SpritzReports, EverySpritzEntryHasAReportAndFig9SaysFig9) {
  int spritz = 0;
  for (const auto& e : discover(std::string(LBSIM_SOURCE_DIR) + "/examples")) {
    if (e.name.rfind("spritz-", 0) != 0) continue;
    ++spritz;
    EXPECT_EQ(e.report.kind, "table") << e.name;
    if (e.name == "spritz-fig9") {
      EXPECT_EQ(e.report.title.rfind("[Spritz] Fig. 9", 0), 0u) << e.report.title;
      EXPECT_EQ(e.report.title.find("Fig. 7"), std::string::npos) << e.report.title;
    }
    if (e.name == "spritz-fig7") {
      const auto text = sweep_to_toml(entry_sweep(e, false), {});
      EXPECT_NE(text.find("\"workload.background_lb\" = \"pinned_ecmp\""), std::string::npos);
      EXPECT_EQ(text.find("\"workload.background_lb\" = \"ecmp\""), std::string::npos);
    }
  }
  EXPECT_EQ(spritz, 6);
}

}  // namespace
}  // namespace lbsim::workflow
