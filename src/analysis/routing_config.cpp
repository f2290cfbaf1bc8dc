// Minimal TOML reader for the layered-routing and MAT commands. See routing_config.h.
#include "analysis/routing_config.h"

#include <fstream>
#include <sstream>

#include <fmt/core.h>
#include <toml++/toml.h>

#include "analysis/toolkit_config.h"
#include "core/error.h"
#include "topo/slim_fly.h"

namespace lbsim::analysis {

namespace {

std::string at(const std::string& file, const toml::source_region& r) {
  return fmt::format("{}:{}", file, r.begin.line);
}

int read_int(const std::string& file, const toml::node& v, const std::string& key, int lo, int hi) {
  if (!v.is_integer())
    throw UserError(fmt::format("{}: key 'topology.{}' must be an integer", at(file, v.source()), key));
  long long x = v.as_integer()->get();
  if (x < lo || x > hi)
    throw UserError(fmt::format("{}: key 'topology.{}' = {} out of range [{}, {}]", at(file, v.source()),
                                key, x, lo, hi));
  return static_cast<int>(x);
}

}  // namespace

RoutingConfig parse_routing_config(std::string_view text, const std::string& name) {
  toml::table root;
  try {
    root = toml::parse(text, name);
  } catch (const toml::parse_error& e) {
    throw UserError(fmt::format("{}:{}: {}", name, e.source().begin.line, e.description()));
  }
  RoutingConfig cfg;
  cfg.source = name;
  std::string kind = "slim_fly";
  if (const auto* k = root["topology"]["kind"].as_string()) {
    kind = k->get();
    if (kind != "slim_fly" && kind != "ring" && kind != "complete")
      throw UserError(fmt::format("{}: topology.kind = \"{}\" is not supported here (slim_fly, ring, "
                                  "complete)", at(name, k->source()), kind));
  }
  if (kind != "ring" && kind != "complete") {
    // Slim Fly files are shared with `lbsim cabling` / `lbsim scale`: read them with the toolkit's
    // reader (analysis/toolkit_config.h), which validates [topology], [cabling] and [cost.*].
    ToolkitConfig tk = parse_toolkit_config(text, name);
    cfg.kind = tk.kind;
    cfg.q = tk.q;
    cfg.p = tk.p;
  } else {
    for (auto&& [k, v] : root) {
      if (k.str() != "topology")
        throw UserError(fmt::format("{}: unknown key '{}' (kind = \"{}\" reads only [topology])",
                                    at(name, k.source()), k.str(), kind));
    }
    cfg.kind = kind;
    for (auto&& [k, v] : *root["topology"].as_table()) {
      const std::string key(k.str());
      if (key == "kind") continue;
      if (key == "n") {
        cfg.n = read_int(name, v, key, 2, 1 << 14);
      } else if (key == "p") {
        cfg.p = read_int(name, v, key, 0, 1 << 10);
      } else {
        throw UserError(fmt::format("{}: unknown key 'topology.{}' (valid for kind = \"{}\": kind, n, p)",
                                    at(name, k.source()), key, kind));
      }
    }
  }
  if (cfg.kind == "slim_fly" && cfg.q < 0)
    throw UserError(fmt::format("{}: topology.q is required for kind = \"slim_fly\"", name));
  if (cfg.kind != "slim_fly" && cfg.n < 0)
    throw UserError(fmt::format("{}: topology.n is required for kind = \"{}\"", name, cfg.kind));
  return cfg;
}

RoutingConfig load_routing_config(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UserError(fmt::format("cannot read config file '{}'", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_routing_config(ss.str(), path);
}

SwitchGraph build_switch_graph(const RoutingConfig& cfg) {
  SwitchGraph g;
  if (cfg.kind == "slim_fly") {
    topo::MmsGraph m = topo::build_mms_graph(cfg.q);
    g.adj = m.adj;
    const int kp = m.degree();
    g.endpoints_per_switch = cfg.p >= 0 ? cfg.p : (kp + 1) / 2;
    g.description = fmt::format("slim_fly q={}: {} switches, k'={}, p={}", cfg.q, g.adj.size(), kp,
                                g.endpoints_per_switch);
  } else {
    const int n = cfg.n;
    g.adj.assign(static_cast<std::size_t>(n), {});
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if (i != j && (cfg.kind == "complete" || (j == (i + 1) % n || i == (j + 1) % n)))
          g.adj[static_cast<std::size_t>(i)].push_back(j);
    const int kp = static_cast<int>(g.adj[0].size());
    g.endpoints_per_switch = cfg.p >= 0 ? cfg.p : (kp + 1) / 2;
    g.description = fmt::format("{} n={}: {} switches, k'={}, p={}", cfg.kind, n, n, kp, g.endpoints_per_switch);
  }
  g.adj = routing::normalize_graph(std::move(g.adj));
  return g;
}

}  // namespace lbsim::analysis
