// `lbsim balls evs|queue|theorem`: the balls-into-bins models of [REPS] sec. 4.5.2 (Fig. 14) and
// sec. 5.1 (Fig. 17, 18, Theorem 5.1), analysis/balls.h. Parameters are [balls] config keys (a
// config file is optional, --set overrides any key); --out DIR writes the CSV files, the printed
// report, the resolved config and balls.json (which `lbsim plot DIR` reads). Documented in
// docs/reps.md, the files in docs/outputs.md.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "analysis/balls.h"
#include "cli/commands.h"
#include "config/reader.h"
#include "core/error.h"

namespace lbsim::cli {

namespace {

namespace fs = std::filesystem;
namespace balls = analysis::balls;

struct BallsArgs {
  std::string config;
  std::vector<std::string> sets;
  std::int64_t seed = -1;
  std::string out;
};

// A progress line on stderr (run.progress: auto = only when stderr is a terminal), at most twice
// a second, erased when done.
class ProgressLine {
 public:
  ProgressLine(const config::Config& c, std::string label) : label_(std::move(label)) {
    const auto& p = c.text("run.progress");
    on_ = p == "on" || (p == "auto" && isatty(STDERR_FILENO));
  }
  ~ProgressLine() {
    if (shown_) fmt::print(stderr, "\r{:<60}\r", "");
  }
  balls::Progress fn() {
    if (!on_) return {};
    return [this](double f) {
      const double now = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
      if (now - last_ < 0.5 && f < 1.0) return;
      last_ = now;
      shown_ = true;
      fmt::print(stderr, "\r{}: {:5.1f}%  {:.0f} s", label_, 100.0 * f, now);
      std::fflush(stderr);
    };
  }

 private:
  std::string label_;
  bool on_ = false, shown_ = false;
  double last_ = -1;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// The list keys are text ("8,16,32"); `--set balls.queue_bins=16` would parse as a TOML integer,
// so a single bare number for one of them is taken as that text.
std::vector<std::string> list_overrides(const std::vector<std::string>& sets) {
  std::vector<std::string> out;
  for (const auto& s : sets) {
    const auto eq = s.find('=');
    const std::string key = eq == std::string::npos ? "" : s.substr(0, eq);
    const std::string value = eq == std::string::npos ? "" : s.substr(eq + 1);
    const bool list_key = key == "balls.evs_flows" || key == "balls.queue_bins" || key == "balls.theorem_bins";
    const bool number = !value.empty() && value.find_first_not_of("0123456789") == std::string::npos;
    out.push_back(list_key && number ? key + "=\"" + value + "\"" : s);
  }
  return out;
}

config::Config load_config(const BallsArgs& a) {
  auto cfg = config::load(a.config, list_overrides(a.sets));
  if (a.seed >= 0) cfg.set("run.seed", a.seed, "--seed");
  return cfg;
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary);
  if (!f || !(f << text)) throw UserError(fmt::format("cannot write '{}'", p.string()));
}

// The output folder: each CSV, report.txt, config.toml and balls.json (the command and its files).
void write_outputs(const BallsArgs& a, const config::Config& cfg, const std::string& command,
                   const std::vector<std::pair<std::string, std::string>>& files, const std::string& report) {
  if (a.out.empty()) return;
  const fs::path out(a.out);
  fs::create_directories(out);
  nlohmann::json j;
  j["command"] = command;
  j["seed"] = cfg.integer("run.seed");
  for (const auto& [name, text] : files) {
    write(out / name, text);
    j["files"].push_back(name);
  }
  write(out / "report.txt", report);
  write(out / "config.toml", config::to_toml(cfg));
  write(out / "balls.json", j.dump(2) + "\n");
  fmt::print("wrote {} file(s) to {}/ (plots: lbsim plot {})\n", files.size() + 3, out.string(), out.string());
}

int run_evs(const BallsArgs& a) {
  const auto cfg = load_config(a);
  const auto p = balls::evs_params(cfg);
  ProgressLine pl(cfg, "lbsim balls evs");
  const auto r = balls::run_evs(p, pl.fn());
  const auto report = balls::evs_report(r);
  fmt::print("{}", report);
  write_outputs(a, cfg, "evs", {{"evs.csv", balls::evs_csv(r)}, {"evs_trials.csv", balls::evs_trials_csv(r)}}, report);
  return 0;
}

int run_queue(const BallsArgs& a) {
  const auto cfg = load_config(a);
  const auto p = balls::queue_params(cfg);
  ProgressLine pl(cfg, "lbsim balls queue");
  const auto r = balls::run_queue(p, pl.fn());
  const auto report = balls::queue_report(r);
  fmt::print("{}", report);
  write_outputs(a, cfg, "queue",
                {{"queue_runs.csv", balls::queue_runs_csv(r)},
                 {"queue_steps.csv", balls::queue_steps_csv(r)},
                 {"queue_bins.csv", balls::queue_bins_csv(r)}},
                report);
  return 0;
}

int run_theorem(const BallsArgs& a) {
  const auto cfg = load_config(a);
  const auto p = balls::theorem_params(cfg);
  ProgressLine pl(cfg, "lbsim balls theorem");
  const auto r = balls::run_theorem(p, pl.fn());
  const auto report = balls::theorem_report(r);
  fmt::print("{}", report);
  write_outputs(a, cfg, "theorem",
                {{"theorem.csv", balls::theorem_summary_csv(r)}, {"theorem_runs.csv", balls::theorem_csv(r)}}, report);
  return 0;
}

}  // namespace

void add_balls_commands(CLI::App& app, Commands& out) {
  auto* sub = app.add_subcommand("balls",
                                 "Balls-into-bins models of [REPS]: EVS-size load imbalance (Fig. 14), OPS vs "
                                 "recycled queues (Fig. 17, 18), Theorem 5.1");
  sub->require_subcommand(1);
  const struct {
    const char* name;
    const char* help;
    int (*run)(const BallsArgs&);
  } cmds[] = {
      {"evs", "Load imbalance of F flows x 2^k EVs on n uplinks, uniform and ECMP-hashed ([REPS] sec. 4.5.2, Fig. 14)",
       &run_evs},
      {"queue", "OPS and recycled balls-into-bins queues per step ([REPS] sec. 5.1, Fig. 17, 18)", &run_queue},
      {"theorem", "Steps to convergence and max queue of recycled balls-into-bins ([REPS] Theorem 5.1)", &run_theorem},
  };
  for (const auto& c : cmds) {
    auto args = std::make_shared<BallsArgs>();
    auto* s = sub->add_subcommand(c.name, c.help);
    s->add_option("config", args->config, "Config file (TOML) with a [balls] table (optional)")
        ->check(CLI::ExistingFile);
    s->add_option("--set", args->sets, "Override a key: section.key=value (repeatable), e.g. balls.seeds=5");
    s->add_option("--seed", args->seed, "Seed (overrides run.seed)");
    s->add_option("--out", args->out, "Write the CSV files, report.txt, config.toml and balls.json into DIR");
    auto* run = c.run;
    out.push_back({s, [args, run] { return run(*args); }});
  }
}

}  // namespace lbsim::cli
