// `lbsim scale`: Table 2 (Slim Fly size vs. LIDs per endpoint) and Table 4 (size and cost of FT2,
// FT2-B, FT3, HX2, SF) of [SlimFly] (sec. 5.4, 7.8, App. D); see analysis/scale.h.
#include <memory>

#include <fmt/core.h>

#include "analysis/scale.h"
#include "cli/commands.h"
#include "config/reader.h"
#include "topo/slim_fly.h"

namespace lbsim::cli {

namespace {

struct ScaleCliOptions {
  std::string config;
  std::vector<std::string> sets;
  std::string rule = "strict";
  long endpoints = 2048;
  int suggest = 0;
  bool only_table2 = false, only_table4 = false;
};

int do_scale(const ScaleCliOptions& o) {
  const auto prices = analysis::configured_prices(config::load(o.config, o.sets));
  analysis::ScaleOptions so;
  so.rule = analysis::parse_size_rule(o.rule);
  so.cluster_endpoints = o.endpoints;
  if (o.suggest > 0) {
    fmt::print("Slim Fly sizes near {} endpoints (App. A.5; p = ceil(k'/2)):\n", o.suggest);
    fmt::print("{:>4} {:>6} {:>4} {:>4} {:>8} {:>8} {:>6}\n", "q", "delta", "k'", "p", "switches", "hosts", "radix");
    for (const auto& s : topo::suggest_slim_fly(o.suggest))
      fmt::print("{:>4} {:>6} {:>4} {:>4} {:>8} {:>8} {:>6}\n", s.q, s.delta, s.k_prime, s.p, s.switches, s.hosts,
                 s.radix);
    return 0;
  }
  if (!o.only_table4) fmt::print("{}\n", analysis::format_table2(so));
  if (!o.only_table2) fmt::print("{}", analysis::format_table4(so, prices));
  if (so.rule == analysis::SizeRule::Strict)
    fmt::print(
        "\nnote: rule 'strict' uses only constructible q (prime powers, q % 4 != 2); '--rule paper' "
        "reproduces the paper's tables, which also use q = 6, 12, 15, 20, 21, 28.\n");
  return 0;
}

}  // namespace

void add_scale_commands(CLI::App& app, Commands& out) {
  auto o = std::make_shared<ScaleCliOptions>();
  auto* sc = app.add_subcommand("scale",
                                "Slim Fly scale under the IB LID space (Table 2) and size/cost comparison "
                                "with fat trees and HyperX (Table 4)");
  sc->add_option("--config", o->config, "Config (TOML); cost.prices names a price list (CSV)");
  sc->add_option("--set", o->sets, "Override a key: section.key=value (repeatable)");
  sc->add_option("--rule", o->rule, "Which q are allowed: strict (constructible) or paper (as printed)")
      ->check(CLI::IsMember({"strict", "paper"}))
      ->capture_default_str();
  sc->add_option("--endpoints", o->endpoints, "Endpoints of the fixed-size cluster columns")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  sc->add_option("--suggest", o->suggest, "Only list Slim Fly sizes near this many endpoints (App. A.5)")
      ->check(CLI::PositiveNumber);
  sc->add_flag("--table2", o->only_table2, "Only print Table 2");
  sc->add_flag("--table4", o->only_table4, "Only print Table 4");
  out.push_back(Command{sc, [o] { return do_scale(*o); }});
}

}  // namespace lbsim::cli
