#include "cli/paths_config.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <vector>

#include <fmt/core.h>
#include <toml++/toml.h>

#include "core/error.h"
#include "core/text.h"

namespace lbsim::cli {

namespace {

std::string suggestion(const std::string& key, const std::vector<std::string>& valid) {
  std::string best;
  std::size_t best_d = 3;  // suggest only close matches
  for (const auto& v : valid)
    if (auto d = edit_distance(key, v); d < best_d) {
      best_d = d;
      best = v;
    }
  return best.empty() ? "" : fmt::format(" (did you mean '{}'?)", best);
}

struct Ctx {
  const std::string& file;
  std::string where(const toml::source_region& r) const {
    return fmt::format("{}:{}", file, r.begin.line);
  }
};

using Setter = std::function<void(const toml::node&, const std::string& where, const std::string& key)>;

std::int64_t as_int(const toml::node& n, const std::string& where, const std::string& key) {
  if (auto v = n.value_exact<std::int64_t>()) return *v;
  throw UserError(fmt::format("{}: key '{}' must be an integer", where, key));
}
double as_num(const toml::node& n, const std::string& where, const std::string& key) {
  if (auto v = n.value_exact<std::int64_t>()) return static_cast<double>(*v);
  if (auto v = n.value_exact<double>()) return *v;
  throw UserError(fmt::format("{}: key '{}' must be a number", where, key));
}
std::string as_str(const toml::node& n, const std::string& where, const std::string& key) {
  if (auto v = n.value_exact<std::string>()) return *v;
  throw UserError(fmt::format("{}: key '{}' must be a string", where, key));
}
int as_small_int(const toml::node& n, const std::string& where, const std::string& key) {
  auto v = as_int(n, where, key);
  if (v < -1 || v > (1 << 20)) throw UserError(fmt::format("{}: key '{}' = {} is out of range", where, key, v));
  return static_cast<int>(v);
}
SimTime as_latency(const toml::node& n, const std::string& where, const std::string& key) {
  double v = as_num(n, where, key);
  if (!(v >= 0) || v > 1e9) throw UserError(fmt::format("{}: key '{}' must be in [0, 1e9] ns", where, key));
  return from_ns(v);
}

}  // namespace

PathsConfig parse_paths_config(std::string_view text, const std::string& name, const std::string& base_dir) {
  toml::table root;
  try {
    root = toml::parse(text, name);
  } catch (const toml::parse_error& e) {
    throw UserError(fmt::format("{}:{}:{}: {}", name, e.source().begin.line, e.source().begin.column,
                                e.description()));
  }
  Ctx ctx{name};
  PathsConfig cfg;

  // The kind decides which topology keys are valid, so read it first.
  if (auto* topo_tbl = root["topology"].as_table()) {
    if (auto* k = topo_tbl->get("kind")) {
      cfg.kind = as_str(*k, ctx.where(k->source()), "topology.kind");
      if (cfg.kind != "dragonfly" && cfg.kind != "slim_fly")
        throw UserError(fmt::format("{}: topology.kind '{}' is not supported by lbsim paths (valid: dragonfly, slim_fly)",
                                    ctx.where(k->source()), cfg.kind));
    }
  }
  const bool df = cfg.kind == "dragonfly";

  std::map<std::string, std::map<std::string, Setter>> sections;
  auto& tp = sections["topology"];
  tp["kind"] = [](const toml::node&, const std::string&, const std::string&) {};
  tp["p"] = [&](const toml::node& n, const std::string& w, const std::string& k) {
    (df ? cfg.dragonfly.p : cfg.slim_fly.p) = as_small_int(n, w, k);
  };
  if (df) {
    tp["a"] = [&](const toml::node& n, const std::string& w, const std::string& k) { cfg.dragonfly.a = as_small_int(n, w, k); };
    tp["h"] = [&](const toml::node& n, const std::string& w, const std::string& k) { cfg.dragonfly.h = as_small_int(n, w, k); };
    tp["g"] = [&](const toml::node& n, const std::string& w, const std::string& k) { cfg.dragonfly.g = as_small_int(n, w, k); };
    tp["arrangement"] = [&](const toml::node& n, const std::string& w, const std::string& k) {
      cfg.dragonfly.arrangement = as_str(n, w, k);
    };
    tp["global_map"] = [&](const toml::node& n, const std::string& w, const std::string& k) {
      std::filesystem::path p = as_str(n, w, k);
      if (p.is_relative() && !base_dir.empty()) p = std::filesystem::path(base_dir) / p;
      cfg.dragonfly.global_map_file = p.string();
    };
  } else {
    tp["q"] = [&](const toml::node& n, const std::string& w, const std::string& k) { cfg.slim_fly.q = as_small_int(n, w, k); };
  }
  auto& nw = sections["network"];
  nw["rate_gbps"] = [&](const toml::node& n, const std::string& w, const std::string& k) {
    double v = as_num(n, w, k);
    if (!(v > 0) || v > 1e6) throw UserError(fmt::format("{}: key '{}' must be in (0, 1e6] Gb/s", w, k));
    cfg.dragonfly.rate = cfg.slim_fly.rate = static_cast<BitsPerSec>(std::llround(v * 1e9));
  };
  nw["host_latency_ns"] = [&](const toml::node& n, const std::string& w, const std::string& k) {
    cfg.dragonfly.host_latency = cfg.slim_fly.host_latency = as_latency(n, w, k);
  };
  nw["local_latency_ns"] = [&](const toml::node& n, const std::string& w, const std::string& k) {
    cfg.dragonfly.local_latency = cfg.slim_fly.local_latency = as_latency(n, w, k);
  };
  nw["global_latency_ns"] = [&](const toml::node& n, const std::string& w, const std::string& k) {
    cfg.dragonfly.global_latency = cfg.slim_fly.global_latency = as_latency(n, w, k);
  };
  nw["mtu"] = [&](const toml::node& n, const std::string& w, const std::string& k) {
    cfg.mtu = as_int(n, w, k);
    if (cfg.mtu < 1 || cfg.mtu > (1 << 20)) throw UserError(fmt::format("{}: key '{}' must be in [1, 1048576] bytes", w, k));
  };
  nw["header_bytes"] = [&](const toml::node& n, const std::string& w, const std::string& k) {
    cfg.header_bytes = as_int(n, w, k);
    if (cfg.header_bytes < 0 || cfg.header_bytes > 65536)
      throw UserError(fmt::format("{}: key '{}' must be in [0, 65536] bytes", w, k));
  };
  auto& pa = sections["paths"];
  pa["rule"] = [&](const toml::node& n, const std::string& w, const std::string& k) { cfg.paths.rule = as_str(n, w, k); };
  pa["max_hops"] = [&](const toml::node& n, const std::string& w, const std::string& k) {
    cfg.paths.max_hops = as_small_int(n, w, k);
  };

  std::vector<std::string> section_names;
  for (const auto& [s, _] : sections) section_names.push_back(s);
  for (auto&& [skey, snode] : root) {
    const std::string sname(skey.str());
    auto it = sections.find(sname);
    if (it == sections.end() || !snode.is_table())
      throw UserError(fmt::format("{}: unknown section '{}'{}; valid sections: [topology], [network], [paths]",
                                  ctx.where(skey.source()), sname, suggestion(sname, section_names)));
    std::vector<std::string> valid;
    for (const auto& [k, _] : it->second) valid.push_back(k);
    for (auto&& [key, node] : *snode.as_table()) {
      const std::string k(key.str());
      const std::string full = sname + "." + k;
      auto set = it->second.find(k);
      if (set == it->second.end()) {
        std::string extra;
        if (sname == "topology") extra = fmt::format(" for kind '{}'", cfg.kind);
        throw UserError(fmt::format("{}: unknown key '{}'{}{}", ctx.where(key.source()), full, extra,
                                    suggestion(k, valid)));
      }
      set->second(node, ctx.where(key.source()), full);
    }
  }
  cfg.paths.packet_bytes = cfg.mtu + cfg.header_bytes;
  return cfg;
}

PathsConfig read_paths_config(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw UserError(fmt::format("cannot open config file '{}'", file));
  std::stringstream ss;
  ss << in.rdbuf();
  auto dir = std::filesystem::path(file).parent_path().string();
  return parse_paths_config(ss.str(), file, dir);
}

topo::Topology build_paths_topology(const PathsConfig& cfg) {
  if (cfg.kind == "dragonfly") return topo::build_dragonfly(cfg.dragonfly);
  return topo::build_slim_fly(cfg.slim_fly);
}

}  // namespace lbsim::cli
