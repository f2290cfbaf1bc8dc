// `lbsim cabling plan` and `lbsim cabling verify` ([SlimFly] sec. 3.3, 3.4).
// Exit codes: 0 = done / fabric matches the plan, 1 = fabric differs from the plan, 2 = user error
// (bad config, malformed dump; printed by main()).
#include <filesystem>
#include <fstream>
#include <memory>

#include <fmt/core.h>

#include "analysis/cabling.h"
#include "cli/commands.h"
#include "config/reader.h"
#include "core/error.h"
#include "sim/memory.h"

namespace lbsim::cli {

namespace {

struct CablingOptions {
  std::string config;
  std::vector<std::string> sets;
  std::string out = "cabling";
  std::string emit;
  bool no_svg = false;
  std::string discovered;
  std::string map;
  std::string report;
};

analysis::CablingPlan plan_from(const CablingOptions& o) {
  const auto cfg = config::load(o.config, o.sets);
  sim::check_memory(cfg, sim::MemoryUse::Topology);
  return analysis::make_cabling_plan(cfg);
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  if (!out) throw UserError(fmt::format("{}: cannot open for writing", path.string()));
  out << text;
  if (!out) throw UserError(fmt::format("{}: write failed", path.string()));
}

int do_plan(const CablingOptions& o) {
  const auto plan = plan_from(o);
  namespace fs = std::filesystem;
  const fs::path dir(o.out);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw UserError(fmt::format("{}: cannot create directory: {}", o.out, ec.message()));
  write_file(dir / "links.csv", analysis::plan_links_csv(plan));
  write_file(dir / "ports.csv", analysis::plan_ports_csv(plan));
  write_file(dir / "plan.json", analysis::plan_json(plan));
  write_file(dir / "wiring.txt", analysis::plan_wiring_text(plan));
  const auto cables = analysis::plan_cables(plan, analysis::cable_layout(config::load(o.config, o.sets)));
  write_file(dir / "cables.csv", analysis::cables_csv(cables));
  fs::create_directories(dir / "sheets", ec);
  if (ec) throw UserError(fmt::format("{}: cannot create directory: {}", (dir / "sheets").string(), ec.message()));
  for (int r = 0; r < plan.q; ++r) {
    write_file(dir / "sheets" / fmt::format("rack_{}.csv", r), analysis::rack_cables_csv(plan, cables, r));
    write_file(dir / "sheets" / fmt::format("rack_{}.html", r), analysis::rack_cables_html(plan, cables, r));
  }
  int svgs = 0;
  if (!o.no_svg) {
    fs::create_directories(dir / "racks", ec);
    if (ec) throw UserError(fmt::format("{}: cannot create directory: {}", (dir / "racks").string(), ec.message()));
    for (int a = 0; a < plan.q; ++a)
      for (int b = a + 1; b < plan.q; ++b, ++svgs)
        write_file(dir / "racks" / fmt::format("rack_{}_{}.svg", a, b), analysis::rack_pair_svg(plan, a, b));
  }
  if (!o.emit.empty()) write_file(o.emit, analysis::emit_ibnetdiscover(plan));
  fmt::print(
      "Slim Fly q = {} (delta = {}, k' = {}, p = {}): {} racks, {} switches, {} switch-switch cables "
      "({} per rack pair)\n",
      plan.q, plan.delta, plan.k_prime, plan.p, plan.q, plan.num_switches(), plan.links.size(), 2 * plan.q);
  fmt::print(
      "wrote {0}/links.csv, {0}/ports.csv, {0}/plan.json, {0}/wiring.txt, {0}/cables.csv ({1} cables), per-rack "
      "sheets {0}/sheets/rack_R.{{csv,html}}",
      o.out, cables.size());
  if (svgs) fmt::print(", {} rack-pair diagrams in {}/racks/", svgs, o.out);
  fmt::print("\n");
  if (!o.emit.empty()) fmt::print("wrote {} (ibnetdiscover format)\n", o.emit);
  return 0;
}

int do_verify(const CablingOptions& o) {
  const auto plan = plan_from(o);
  std::ifstream dump(o.discovered);
  if (!dump) throw UserError(fmt::format("{}: cannot open the ibnetdiscover dump", o.discovered));
  const auto fabric = analysis::parse_ibnetdiscover(dump, o.discovered);
  std::map<std::string, std::string> names;
  if (!o.map.empty()) {
    std::ifstream mf(o.map);
    if (!mf) throw UserError(fmt::format("{}: cannot open the mapping file", o.map));
    names = analysis::parse_name_map(mf, o.map);
  }
  const auto rep = analysis::verify_cabling(plan, fabric, o.map.empty() ? nullptr : &names);
  const std::string text = rep.text();
  fmt::print("{}", text);
  if (!o.report.empty()) write_file(o.report, text);
  return rep.ok() ? 0 : 1;
}

}  // namespace

void add_cabling_commands(CLI::App& app, Commands& out) {
  auto o = std::make_shared<CablingOptions>();
  auto* cab = app.add_subcommand("cabling", "Slim Fly cabling plan and verification against ibnetdiscover output");
  cab->require_subcommand(1);

  auto* plan = cab->add_subcommand("plan",
                                   "Write the port-to-port cabling plan (CSV, JSON, 3-step wiring order, "
                                   "rack-pair SVG diagrams)");
  // A missing config file is the reader's UserError (exit 2), like every other config error.
  plan->add_option("config", o->config, "Config (TOML): [topology] kind = \"slim_fly\", q, p; [cabling]")->required();
  plan->add_option("--set", o->sets, "Override a key: section.key=value (repeatable)");
  plan->add_option("--out", o->out, "Output directory")->capture_default_str();
  plan->add_option("--emit-ibnetdiscover", o->emit, "Also write the planned fabric as an ibnetdiscover dump");
  plan->add_flag("--no-svg", o->no_svg, "Do not write the rack-pair diagrams");
  out.push_back(Command{plan, [o] { return do_plan(*o); }});

  auto* verify = cab->add_subcommand("verify", "Compare an ibnetdiscover dump with the plan; exit 1 if they differ");
  verify->add_option("config", o->config, "Config (TOML), as for plan")->required();
  verify->add_option("--set", o->sets, "Override a key: section.key=value (repeatable)");
  verify->add_option("--discovered", o->discovered, "Output of ibnetdiscover")->required();
  verify->add_option("--map", o->map, "GUID to planned switch name map ('0x<guid> \"<name>\"' per line)");
  verify->add_option("--report", o->report, "Also write the report to this file");
  out.push_back(Command{verify, [o] { return do_verify(*o); }});
}

}  // namespace lbsim::cli
