// `lbsim mat`: maximum achievable throughput ([SlimFly] sec. 6.4, Fig. 9) as linear
// programs solved with COIN-OR CLP: restricted to a layered routing's paths and unrestricted.
// Documented in docs/layered-routing.md.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "routing/layered.h"
#include "analysis/mat.h"
#include "analysis/switch_graph.h"
#include "cli/commands.h"
#include "config/reader.h"
#include "core/error.h"
#include "core/progress.h"
#include "sim/memory.h"

namespace lbsim::cli {

namespace {

struct MatArgs {
  std::string config;
  std::vector<std::string> sets;
  int layers = 4;
  std::string scheme = "layered";
  double keep = 0.6;
  std::uint64_t seed = 1;
  std::string pattern = "permutation";
  double fraction = 0.5;
  std::string mode = "both";
  std::string at;
  std::string method = "auto";
  bool no_guard = false;
  std::string detours = "exact3";
  std::string out;
};

std::vector<int> parse_int_list(const std::string& s) {
  std::vector<int> v;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) {
    try {
      std::size_t pos = 0;
      int x = std::stoi(item, &pos);
      if (pos != item.size()) throw std::invalid_argument(item);
      v.push_back(x);
    } catch (const std::exception&) {
      throw UserError(fmt::format("--at: '{}' is not a comma-separated list of layer counts", s));
    }
  }
  return v;
}

nlohmann::json result_json(const analysis::MatResult& r) {
  return {{"theta", std::isinf(r.theta) ? nlohmann::json("inf") : nlohmann::json(r.theta)},
          {"optimal", r.optimal},
          {"status", r.status},
          {"solve_seconds", r.solve_seconds},
          {"build_seconds", r.build_seconds},
          {"variables", r.variables},
          {"constraints", r.constraints},
          {"nonzeros", r.nonzeros}};
}

void print_result(const std::string& what, const analysis::MatResult& r) {
  fmt::print("{:<28} MAT {:.6f}  ({}; {} vars, {} rows, {} nz; build {:.3f} s, CLP {:.3f} s)\n", what, r.theta,
             r.status, r.variables, r.constraints, r.nonzeros, r.build_seconds, r.solve_seconds);
  std::fflush(stdout);  // long runs: show each result as soon as it is known
}

int run_mat(const MatArgs& a) {
  using namespace analysis;
  using namespace routing;
  if (a.mode != "both" && a.mode != "routing" && a.mode != "edge")
    throw UserError(fmt::format("unknown --mode '{}' (routing, edge or both)", a.mode));
  const LpMethod method = parse_lp_method(a.method);
  const auto cfg = config::load(a.config, a.sets);
  sim::check_memory(cfg, sim::MemoryUse::Topology);
  const auto g = switch_graph(cfg);
  const int per = std::max(1, g.endpoints_per_switch);
  auto tm =
      make_traffic(g.adj, std::vector<int>(g.adj.size(), per), parse_traffic_pattern(a.pattern), a.fraction, a.seed);
  fmt::print("{}; pattern {}; {} switch-level demands from {} endpoint flows\n", g.description, tm.name,
             tm.demands.size(), tm.endpoint_flows);
  nlohmann::json js;
  js["config"] = a.config;
  js["topology"] = g.description;
  js["pattern"] = tm.name;
  js["seed"] = a.seed;
  js["lp_method"] = a.method;
  js["demands"] = tm.demands.size();
  // Progress (run.progress of the config): one step per LP and one for the layers.
  const std::vector<int> counts = a.at.empty() ? std::vector<int>{a.layers} : parse_int_list(a.at);
  const double steps =
      (a.mode != "edge" ? 1.0 + static_cast<double>(counts.size()) : 0.0) + (a.mode != "routing" ? 1.0 : 0.0);
  double step = 0;
  progress::Meter meter("lbsim mat", progress::mode_for_stderr(cfg.text("run.progress")), "steps");
  if (a.mode != "edge") {
    LayerOptions opt;
    opt.layers = a.layers;
    opt.scheme = parse_layer_scheme(a.scheme);
    opt.keep_fraction = a.keep;
    opt.seed = a.seed;
    opt.guard_short_routes = !a.no_guard;
    opt.detours = parse_detours(a.detours);
    js["detours"] = a.detours;
    for (int l : counts)
      if (l < 1 || l > a.layers)
        throw UserError(fmt::format("--at: layer count {} outside 1..--layers ({})", l, a.layers));
    auto r = build_layers(g.adj, opt);
    meter.update(++step, steps, "layers built");
    for (int l : counts) {
      auto res = mat_routing_lp(r, l, tm, method);
      meter.update(++step, steps, fmt::format("LP with {} layers solved", l));
      meter.finish();
      print_result(fmt::format("{} routing, {} layers", a.scheme, l), res);
      auto j = result_json(res);
      j["layers"] = l;
      j["scheme"] = a.scheme;
      js["routing"].push_back(j);
    }
  }
  if (a.mode != "routing") {
    auto res = mat_edge_lp(g.adj, tm, method);
    meter.update(++step, steps, "edge LP solved");
    meter.finish();
    print_result("unrestricted (edge LP)", res);
    js["edge"] = result_json(res);
  }
  if (!a.out.empty()) {
    std::filesystem::create_directories(a.out);
    auto p = std::filesystem::path(a.out) / "mat.json";
    std::ofstream f(p);
    if (!f) throw UserError(fmt::format("cannot write '{}'", p.string()));
    f << js.dump(2) << "\n";
    fmt::print("wrote {}\n", p.string());
  }
  return 0;
}

}  // namespace

void add_mat_commands(CLI::App& app, Commands& out) {
  auto args = std::make_shared<MatArgs>();
  auto* sub = app.add_subcommand("mat", "maximum achievable throughput (LP, COIN-OR CLP)");
  sub->add_option("config", args->config, "Config (TOML): the [topology] to route on (any kind)")->required();
  sub->add_option("--set", args->sets, "Override a key: section.key=value (repeatable)");
  sub->add_option("--layers,-L", args->layers, "layers of the routing")->capture_default_str();
  sub->add_option("--scheme", args->scheme, "layered | rues | fatpaths")->capture_default_str();
  sub->add_option("--p", args->keep, "rues/fatpaths: fraction of links kept per layer")->capture_default_str();
  sub->add_option("--seed", args->seed, "seed for layers and traffic")->capture_default_str();
  sub->add_option("--pattern", args->pattern, "permutation | uniform | adversarial")->capture_default_str();
  sub->add_option("--fraction", args->fraction, "adversarial: fraction of communicating endpoint pairs")
      ->capture_default_str();
  sub->add_option("--mode", args->mode, "routing (path LP) | edge (unrestricted) | both")->capture_default_str();
  sub->add_option("--at", args->at, "comma-separated layer counts for the path LP (default: --layers)");
  sub->add_option("--lp-method", args->method, "CLP algorithm: dual | primal | barrier | auto")->capture_default_str();
  sub->add_flag("--no-guard", args->no_guard, "layered: plain Algorithm 1 without the short-route guard");
  sub->add_option("--detours", args->detours,
                  "layered: almost-minimal path length, exact3 (App. B.1.1) | shortest (4 hops where no 3-hop "
                  "path exists) | range (3 or 4 hops, the lighter path)")
      ->capture_default_str();
  sub->add_option("--out", args->out, "write mat.json into DIR");
  out.push_back({sub, [args] { return run_mat(*args); }});
}

}  // namespace lbsim::cli
