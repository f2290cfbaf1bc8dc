// `lbsim flowcut-memory`: the analytic memory model of [Flowcut] sec. III-A2 (Eq. 1, Fig. 4 and 5);
// see analysis/flowcut_memory.h. The simulator's measured table sizes are in summary.json ("flowcut").
// `lbsim flowlet-timeouts`: the Flowlet Best / Balanced / Lowest OOO timeouts of [Flowcut] sec. III-C2
// for a scenario, by a short search (analysis/flowlet_search.h), one run per timeout tried.
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "analysis/flowcut_memory.h"
#include "analysis/flowlet_search.h"
#include "cli/commands.h"
#include "config/reader.h"
#include "core/error.h"
#include "sim/simulation.h"

namespace lbsim::cli {

namespace {
struct FlowcutMemoryOptions {
  std::string fig = "all";
  double mtu = 2048, ports = 64;
  bool csv = false;
};

struct FlowletTimeoutOptions {
  std::string config;
  std::vector<std::string> sets;
  std::string key = "routing.flowlet_timeout_us";
  double lo = 0.25, hi = 64;
  int steps = 5;
};

int do_flowlet_timeouts(const FlowletTimeoutOptions& o) {
  auto base = config::load(o.config, o.sets);
  if (o.key == "routing.flowlet_timeout_us") {
    if (base.text("routing.algorithm") != "flowlet")
      throw UserError(
          fmt::format("flowlet-timeouts: --key {} needs routing.algorithm = \"flowlet\" (the config has \"{}\")", o.key,
                      base.text("routing.algorithm")));
  } else if (o.key == "lb.flowlet_timeout_us") {
    if (base.text("lb.algorithm") != "flowlet")
      throw UserError(fmt::format("flowlet-timeouts: --key {} needs lb.algorithm = \"flowlet\" (the config has \"{}\")",
                                  o.key, base.text("lb.algorithm")));
  } else {
    throw UserError("flowlet-timeouts: --key must be routing.flowlet_timeout_us or lb.flowlet_timeout_us");
  }
  base.set("run.progress", "off", "flowlet-timeouts");
  fmt::print("{:>12} {:>9} {:>11} {:>11} {:>6}\n", "timeout_us", "ooo_%", "mean_fct_us", "p99_fct_us", "done");
  const auto run = [&](double t) {
    auto cfg = base;
    cfg.set(o.key, t, "flowlet-timeouts");
    sim::Simulation s(cfg);
    s.run();
    const auto j = s.summary();
    const double ooo = j["ooo_pct"].get<double>();
    fmt::print(
        "{:>12.4g} {:>9.3f} {:>11} {:>11} {:>6}\n", t, ooo, stat_text(j["fct_us"]["mean"]),
        stat_text(j["fct_us"]["p99"]),
        fmt::format("{}/{}", j["completed"].get<std::uint64_t>(), j["workload"]["transfers"].get<std::uint64_t>()));
    return ooo;
  };
  const auto r = analysis::search_flowlet_timeouts(run, o.lo, o.hi, o.steps);
  fmt::print("\n{:<11} {:>8} {:>12} {:>9}\n", "flowlet", "bound_%", "timeout_us", "ooo_%");
  for (const auto& p : r.picks) {
    if (p.timeout_us < 0)
      fmt::print("{:<11} {:>8g} {:>12} {:>9}   (above the bound even at --hi {})\n", p.name, p.bound_pct, "-", "-",
                 o.hi);
    else
      fmt::print("{:<11} {:>8g} {:>12.4g} {:>9.3f}\n", p.name, p.bound_pct, p.timeout_us, p.ooo_pct);
  }
  return 0;
}
}  // namespace

void add_flowcut_commands(CLI::App& app, Commands& out) {
  auto o = std::make_shared<FlowcutMemoryOptions>();
  auto* sc = app.add_subcommand("flowcut-memory",
                                "Flowcut table memory per switch / NIC from Eq. 1 ([Flowcut] Fig. 4 a/b/c and Fig. 5)");
  sc->add_option("--fig", o->fig, "Which series: 4a (RTT), 4b (bandwidth), 4c (hosts), 5 (algorithms) or all")
      ->check(CLI::IsMember({"all", "4a", "4b", "4c", "5"}))
      ->capture_default_str();
  sc->add_option("--mtu", o->mtu, "Packet size M in bytes (the figures: 2 KiB)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  sc->add_option("--ports", o->ports, "Input ports of an ingress switch (the figures: 64)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  sc->add_flag("--csv", o->csv, "Comma-separated values instead of aligned columns");
  out.push_back({sc, [o] {
                   fmt::print("{}", analysis::flowcut_memory_report(o->fig, o->mtu, o->ports, o->csv));
                   return 0;
                 }});

  auto fo = std::make_shared<FlowletTimeoutOptions>();
  auto* ft = app.add_subcommand("flowlet-timeouts",
                                "Search the Flowlet Best / Balanced / Lowest OOO timeouts (< 20/5/2 % ooo packets, "
                                "[Flowcut] sec. III-C2) for a scenario");
  ft->add_option("config", fo->config, "Config file (TOML) with a flowlet routing or load balancer")
      ->required()
      ->check(CLI::ExistingFile);
  ft->add_option("--set", fo->sets, "Override a key: section.key=value (repeatable)");
  ft->add_option("--key", fo->key, "The timeout key to search: routing.flowlet_timeout_us or lb.flowlet_timeout_us")
      ->capture_default_str();
  ft->add_option("--lo", fo->lo, "Shortest timeout tried (us)")->check(CLI::PositiveNumber)->capture_default_str();
  ft->add_option("--hi", fo->hi, "Longest timeout tried (us)")->check(CLI::PositiveNumber)->capture_default_str();
  ft->add_option("--steps", fo->steps, "Bisection steps per bound (one run each)")
      ->check(CLI::Range(1, 30))
      ->capture_default_str();
  out.push_back({ft, [fo] { return do_flowlet_timeouts(*fo); }});
}

}  // namespace lbsim::cli
