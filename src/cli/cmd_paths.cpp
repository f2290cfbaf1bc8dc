// `lbsim paths`: bounded simple paths of a Dragonfly, a Slim Fly or any topology ([Spritz] sec. III,
// Table I) and the size of the Spritz endpoint table (sec. III-C, Fig. 3). See docs/topologies.md.
//
//   lbsim paths CONFIG                      whole network: paths per switch pair, path types,
//                                           endpoint-table memory
//   lbsim paths CONFIG --src S --dst D      one pair: path types, counts, latencies (--list: each path)
//   lbsim paths [CONFIG] --fig3             Fig. 3 sweep: Dragonfly and Slim Fly up to 40k endpoints
#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>

#include <fmt/core.h>

#include "analysis/path_options.h"
#include "cli/commands.h"
#include "config/reader.h"
#include "core/error.h"
#include "core/progress.h"
#include "topo/dragonfly.h"
#include "topo/paths.h"
#include "topo/registry.h"
#include "topo/slim_fly.h"
#include "sim/memory.h"

namespace lbsim::cli {

namespace {

struct PathsArgs {
  std::string config;
  std::vector<std::string> sets;
  std::string src, dst;
  bool list = false;
  bool fig3 = false;
  int sources = -1;  // sampled source switches; -1 = automatic, 0 = all
  std::int64_t max_endpoints = 41000;
  std::string format = "text";  // text | csv (fig3)
};

double elapsed_ms(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

std::string fmt_ns(SimTime t) { return fmt::format("{:.1f}", to_ns(t)); }

std::string human_bytes(double b) {
  if (b >= 1024.0 * 1024.0) return fmt::format("{:.2f} MiB", b / (1024.0 * 1024.0));
  if (b >= 1024.0) return fmt::format("{:.2f} KiB", b / 1024.0);
  return fmt::format("{:.0f} B", b);
}

// A switch given as its index, its label, or a host label / "h<id>" (then: that host's switch).
std::int32_t resolve_switch(const topo::Topology& t, const std::string& s, const char* what) {
  if (!s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    long long v = std::stoll(s);
    if (v < 0 || v >= t.num_switches())
      throw UserError(fmt::format("--{} {}: switch index out of range [0, {})", what, s, t.num_switches()));
    return t.switch_node(static_cast<std::int32_t>(v));
  }
  if (s.size() > 1 && s[0] == 'h' && std::all_of(s.begin() + 1, s.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    long long v = std::stoll(s.substr(1));
    if (v < 0 || v >= t.num_hosts)
      throw UserError(fmt::format("--{} {}: host id out of range [0, {})", what, s, t.num_hosts));
    return t.host_switch(static_cast<std::int32_t>(v));
  }
  for (std::int32_t n = 0; n < t.size(); ++n)
    if (t.nodes[n].label == s) return t.is_host(n) ? t.host_switch(n) : n;
  throw UserError(fmt::format("--{} '{}' is neither a switch index, a host 'h<id>' nor a node label (e.g. '{}')", what,
                              s, t.nodes[t.switch_node(0)].label));
}

std::string describe(const topo::Topology& t) {
  std::string out = t.kind;
  for (const auto& [k, v] : t.params)
    if (k == "p" || k == "a" || k == "h" || k == "g" || k == "q" || k == "n" || k == "arrangement")
      out += fmt::format(" {}={}", k, v);
  return out;
}

// Evenly spread sample of source switches (all when n == 0 or n >= switches).
std::vector<std::int32_t> sample_sources(const topo::Topology& t, int n) {
  std::vector<std::int32_t> out;
  const std::int32_t ns = t.num_switches();
  if (n <= 0 || n >= ns) {
    for (std::int32_t s = 0; s < ns; ++s) out.push_back(s);
    return out;
  }
  for (int i = 0; i < n; ++i) out.push_back(static_cast<std::int32_t>(static_cast<std::int64_t>(i) * ns / n));
  return out;
}

int run_pair(const topo::PathOptions& opt, const topo::Topology& t, const PathsArgs& a) {
  topo::PathEnumerator pe(t, opt);
  const auto s = resolve_switch(t, a.src, "src"), d = resolve_switch(t, a.dst, "dst");
  const auto dist = topo::switch_distances(t)[t.switch_index(s)][t.switch_index(d)];
  auto t0 = std::chrono::steady_clock::now();
  auto paths = pe.paths(s, d);
  const double ms = elapsed_ms(t0);
  fmt::print("topology: {} ({} hosts, {} switches)\n", describe(t), t.num_hosts, t.num_switches());
  fmt::print("rule: {} (<= {} hops), packet {} B, latency per hop = link latency + serialization\n",
             topo::path_rule_name(pe.rule()), pe.max_hops(), opt.packet_bytes);
  const auto gs = t.nodes[s].group, gd = t.nodes[d].group;
  fmt::print(
      "from {} (switch {}, group {}) to {} (switch {}, group {}): {} bounded paths, shortest {} hops ({:.1f} ms)\n",
      t.nodes[s].label, t.switch_index(s), gs, t.nodes[d].label, t.switch_index(d), gd, paths.size(), dist, ms);
  // Categories of Table I: in Dragonfly a path is minimal when it crosses no intermediate group
  // (at most one global hop); otherwise when its hop count equals the switch distance.
  auto category = [&](const topo::PathTypeCount& r) -> std::string {
    const bool minimal = pe.rule() == topo::PathRule::Dragonfly ? r.global <= 1 : r.local + r.global == dist;
    if (!minimal) return "non-minimal";
    return gs == gd ? "minimal (within group)" : "minimal (across groups)";
  };
  fmt::print("  {:<24} {:>5} {:>6} {:>11} {:>6}\n", "category", "local", "global", "latency_ns", "paths");
  for (const auto& r : topo::summarize_path_types(paths))
    fmt::print("  {:<24} {:>5} {:>6} {:>11} {:>6}\n", category(r), r.local, r.global, fmt_ns(r.latency), r.count);
  if (a.list) {
    fmt::print("paths (EV entry list order, sec. III-C: sorted by latency); ev = first two output ports:\n");
    int i = 0;
    for (const auto& p : paths) {
      std::string hops;
      for (const auto& h : p.hops) hops += fmt::format("{}:{} -> ", t.nodes[h.node].label, h.port);
      hops += t.nodes[d].label;
      const int e1 = p.hops.size() > 0 ? p.hops[0].port : -1;
      const int e2 = p.hops.size() > 1 ? p.hops[1].port : -1;
      fmt::print("  {:>4} {:>9} ns  L{} G{}  ev=({},{})  {}\n", i++, fmt_ns(p.latency), p.local, p.global, e1, e2,
                 hops);
    }
  }
  return 0;
}

struct NetworkStats {
  std::int64_t min_paths = 0, max_paths = 0;
  std::int32_t max_src = -1, max_dst = -1;
  double mean_paths = 0;
  std::int64_t worst_table_entries = 0;  // sum over destinations for the worst sampled source
  std::int32_t worst_table_src = -1;
  std::size_t sources = 0;
};

NetworkStats network_stats(const topo::Topology& t, const topo::PathEnumerator& pe,
                           const std::vector<std::int32_t>& sources) {
  NetworkStats st;
  st.min_paths = -1;
  double sum = 0;
  std::int64_t pairs = 0;
  for (auto s : sources) {
    auto c = pe.counts_from(t.switch_node(s));
    std::int64_t table = 0;
    for (std::int32_t d = 0; d < t.num_switches(); ++d) {
      table += c[d];
      if (d == s) continue;
      if (st.min_paths < 0 || c[d] < st.min_paths) st.min_paths = c[d];
      if (c[d] > st.max_paths) {
        st.max_paths = c[d];
        st.max_src = s;
        st.max_dst = d;
      }
      sum += static_cast<double>(c[d]);
      ++pairs;
    }
    if (table > st.worst_table_entries) {
      st.worst_table_entries = table;
      st.worst_table_src = s;
    }
  }
  st.mean_paths = pairs ? sum / static_cast<double>(pairs) : 0;
  st.sources = sources.size();
  return st;
}

int run_network(const topo::PathOptions& opt, const topo::Topology& t, const PathsArgs& a) {
  topo::PathEnumerator pe(t, opt);
  const int n = a.sources >= 0 ? a.sources : (t.num_switches() > 2000 ? 64 : 0);
  const auto sources = sample_sources(t, n);
  fmt::print("topology: {} ({} hosts, {} switches)\n", describe(t), t.num_hosts, t.num_switches());
  fmt::print("rule: {} (<= {} hops), packet {} B, latency per hop = link latency + serialization\n",
             topo::path_rule_name(pe.rule()), pe.max_hops(), opt.packet_bytes);
  if (sources.size() < static_cast<std::size_t>(t.num_switches()))
    fmt::print("sampled {} evenly spread source switches (--sources 0 for all)\n", sources.size());
  auto t0 = std::chrono::steady_clock::now();
  // Path types over all sampled pairs (Table I): (latency, global, local) -> (pairs, paths).
  std::map<std::tuple<SimTime, int, int>, std::pair<std::int64_t, std::int64_t>> types;
  std::map<std::tuple<SimTime, int, int>, std::int64_t> per_pair;
  std::int64_t total = 0;
  for (auto s : sources)
    for (std::int32_t d = 0; d < t.num_switches(); ++d) {
      if (d == s) continue;
      per_pair.clear();
      pe.for_each_path(t.switch_node(s), t.switch_node(d), [&](const topo::PathView& v) {
        ++per_pair[{v.latency, v.global, v.local}];
      });
      for (const auto& [k, c] : per_pair) {
        types[k].first += 1;
        types[k].second += c;
        total += c;
      }
    }
  const double enum_ms = elapsed_ms(t0);
  t0 = std::chrono::steady_clock::now();
  const auto st = network_stats(t, pe, sources);
  const double count_ms = elapsed_ms(t0);
  fmt::print("bounded paths per switch pair (s != d): min {}, max {} ({} -> {}), mean {:.2f}\n", st.min_paths,
             st.max_paths, t.nodes[t.switch_node(st.max_src)].label, t.nodes[t.switch_node(st.max_dst)].label,
             st.mean_paths);
  fmt::print("path types ([Spritz] Table I) over {} paths:\n", total);
  fmt::print("  {:>5} {:>6} {:>11} {:>10} {:>10}\n", "local", "global", "latency_ns", "pairs", "paths");
  for (const auto& [k, v] : types)
    fmt::print("  {:>5} {:>6} {:>11} {:>10} {:>10}\n", std::get<2>(k), std::get<1>(k), fmt_ns(std::get<0>(k)), v.first,
               v.second);
  const auto bound = topo::endpoint_table_bytes(t.num_switches(), st.max_paths);
  const auto worst = st.worst_table_entries * topo::kEvEntryBits / 8;
  fmt::print("endpoint table per endpoint (sec. III-C, Fig. 3; EV entry {} bits, one list per destination switch):\n",
             topo::kEvEntryBits);
  fmt::print("  upper bound {} switches x {} paths x 3 B = {} B ({})\n", t.num_switches(), st.max_paths, bound,
             human_bytes(static_cast<double>(bound)));
  fmt::print("  largest actual table (source {}): {} entries = {} B ({})\n",
             t.nodes[t.switch_node(st.worst_table_src)].label, st.worst_table_entries, worst,
             human_bytes(static_cast<double>(worst)));
  fmt::print("time: enumeration {:.0f} ms, counting {:.0f} ms\n", enum_ms, count_ms);
  return 0;
}

// Fig. 3: canonical Dragonflies (a = 2p = 2h, g = a*h + 1) and Slim Flies (p = ceil(k'/2)) up to
// max_endpoints endpoints; max paths per pair and the endpoint-table upper bound.
// Link rates and latencies come from the config (its [topology] keys), the sizes from the sweep.
int run_fig3(const config::Config& cfg, const topo::PathOptions& opt, const PathsArgs& a) {
  struct Row {
    std::string kind, params;
    std::int64_t endpoints, switches, max_paths;
    std::size_t sources;
    double ms;
  };
  std::vector<Row> rows;
  const int n = a.sources >= 0 ? a.sources : 8;
  // The sizes first (cheap), so that the progress display knows how many networks there are.
  const topo::DragonflyParams df = topo::dragonfly_params(cfg);
  const topo::SlimFlyParams sf = topo::slim_fly_params(cfg);
  std::vector<topo::DragonflyParams> dfs;
  std::vector<topo::SlimFlyParams> sfs;
  for (int h = 1;; ++h) {
    topo::DragonflyParams p = df;
    p.h = h;
    p.p = h;
    p.a = 2 * h;
    p.g = -1;
    p.arrangement = "consecutive";
    p.global_map_file.clear();
    const std::int64_t endpoints = static_cast<std::int64_t>(p.a) * p.p * (p.a * p.h + 1);
    if (endpoints > a.max_endpoints) break;
    dfs.push_back(p);
  }
  for (int q = 3;; ++q) {
    if (!topo::valid_slim_fly_q(q)) continue;
    if (topo::slim_fly_size(q).hosts > a.max_endpoints) break;
    topo::SlimFlyParams p = sf;
    p.q = q;
    p.p = -1;
    sfs.push_back(p);
  }
  const double total = static_cast<double>(dfs.size() + sfs.size());
  progress::Meter meter("lbsim paths --fig3", progress::mode_for_stderr(cfg.text("run.progress")), "networks");
  auto add = [&](const topo::Topology& t, const std::string& params) {
    auto t0 = std::chrono::steady_clock::now();
    topo::PathEnumerator pe(t, opt);
    const auto sources = sample_sources(t, n);
    const auto st = network_stats(t, pe, sources);
    rows.push_back(Row{t.kind, params, t.num_hosts, t.num_switches(), st.max_paths, sources.size(), elapsed_ms(t0)});
    meter.update(static_cast<double>(rows.size()), total, t.kind + " " + params);
  };
  for (const auto& p : dfs)
    add(topo::build_dragonfly(p), fmt::format("p={} a={} h={} g={}", p.p, p.a, p.h, p.a * p.h + 1));
  for (const auto& p : sfs) add(topo::build_slim_fly(p), fmt::format("q={} p={}", p.q, topo::slim_fly_size(p.q).p));
  meter.finish();
  if (a.format == "csv") {
    fmt::print("kind,params,endpoints,switches,max_paths,table_bytes,sampled_sources\n");
    for (const auto& r : rows)
      fmt::print("{},{},{},{},{},{},{}\n", r.kind, r.params, r.endpoints, r.switches, r.max_paths,
                 topo::endpoint_table_bytes(r.switches, r.max_paths), r.sources);
    return 0;
  }
  fmt::print("[Spritz] Fig. 3: endpoint-table memory per endpoint = switches x max paths x {} bits\n",
             topo::kEvEntryBits);
  fmt::print("{:<10} {:<22} {:>9} {:>8} {:>9} {:>12} {:>8} {:>8}\n", "topology", "params", "endpoints", "switches",
             "max_paths", "table", "sources", "ms");
  for (const auto& r : rows)
    fmt::print("{:<10} {:<22} {:>9} {:>8} {:>9} {:>12} {:>8} {:>8.0f}\n", r.kind, r.params, r.endpoints, r.switches,
               r.max_paths, human_bytes(static_cast<double>(topo::endpoint_table_bytes(r.switches, r.max_paths))),
               r.sources, r.ms);
  return 0;
}

int run_paths(const PathsArgs& a) {
  if (a.format != "text" && a.format != "csv")
    throw UserError(fmt::format("--format '{}': valid formats are text, csv", a.format));
  const auto cfg = config::load(a.config, a.sets);
  const auto opt = analysis::path_options(cfg);
  if (a.fig3) return run_fig3(cfg, opt, a);
  if (a.config.empty()) throw UserError("lbsim paths: a CONFIG file is required (or use --fig3)");
  sim::check_memory(cfg, sim::MemoryUse::Topology);
  const auto t = topo::build_topology(cfg);
  if (a.src.empty() != a.dst.empty()) throw UserError("lbsim paths: give both --src and --dst, or neither");
  if (!a.src.empty()) return run_pair(opt, t, a);
  return run_network(opt, t, a);
}

}  // namespace

void add_paths_commands(CLI::App& app, Commands& out) {
  auto args = std::make_shared<PathsArgs>();
  auto* sub = app.add_subcommand("paths",
                                 "Bounded simple paths ([Spritz] Table I) and endpoint-table memory (Fig. 3) of a "
                                 "Dragonfly, Slim Fly or any topology");
  sub->add_option(
      "config", args->config,
      "Config (TOML): [topology] (any kind; link rate and latencies), [network] mtu and header_bytes, [paths]");
  sub->add_option("--set", args->sets, "Override a key: section.key=value (repeatable)");
  sub->add_option("--src", args->src, "Source switch: index, label (e.g. g0s3) or host 'h<id>'");
  sub->add_option("--dst", args->dst, "Destination switch: index, label or host 'h<id>'");
  sub->add_flag("--list", args->list, "With --src/--dst: print every path (hops as switch:port)");
  sub->add_flag("--fig3", args->fig3, "Sweep Dragonfly and Slim Fly sizes up to --max-endpoints (Fig. 3)");
  sub->add_option("--sources", args->sources,
                  "Source switches sampled for whole-network statistics (0 = all; default all up to 2000 "
                  "switches, else 64; --fig3 default 8)");
  sub->add_option("--max-endpoints", args->max_endpoints, "--fig3: largest network size (default 41000)");
  sub->add_option("--format", args->format, "--fig3 output: text or csv");
  out.push_back(Command{sub, [args] { return run_paths(*args); }});
}

}  // namespace lbsim::cli
