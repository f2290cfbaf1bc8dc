// `lbsim run`, `lbsim topo`, `lbsim config`.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <fmt/core.h>

#include "cli/commands.h"
#include "core/error.h"
#include "config/reader.h"
#include "routing/tables.h"
#include "sim/memory.h"
#include "topo/export.h"
#include "topo/registry.h"
#include "sim/simulation.h"

namespace lbsim::cli {

namespace {

struct RunOptions {
  std::string config;
  std::vector<std::string> sets;
  std::string seed;  // empty: run.seed of the config
  std::string out;
  bool quiet = false;
};

using config::load;

// --seed goes through the same integer and range check as run.seed in a file: a negative or
// too-large seed is an error (it used to be ignored, or clamped by the option parser).
void set_seed(config::Config& cfg, const std::string& text) {
  try {
    config::apply_override(cfg, "run.seed=" + text);
  } catch (const UserError& e) {
    std::string msg = e.what();
    if (msg.rfind("--set: ", 0) == 0) msg.erase(0, 7);
    throw UserError(fmt::format("--seed {}: {}", text, msg));
  }
}

// What another command left in `dir` (docs/outputs.md "Whose folder"): "run" (summary.json),
// "compare" (compare.json, or run folders inside), "sweep" / "reproduce" (sweep.json, results.csv),
// "analysis" (balls.json); "" for a missing or empty folder or one with none of them.
std::string folder_kind(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path d(dir);
  if (!fs::is_directory(d, ec)) return "";
  const auto has = [&](const char* f) { return fs::exists(d / f, ec); };
  if (has("reproduce.json")) return "reproduce";
  if (has("sweep.json") || has("results.csv")) return "sweep";
  if (has("compare.json")) return "compare";
  if (has("balls.json")) return "analysis";
  if (has("summary.json")) return "run";
  for (const auto& e : fs::directory_iterator(d, ec))
    if (e.is_directory(ec) && fs::exists(e.path() / "summary.json", ec)) return "compare";
  return "";
}

// A command writes into a folder another command filled only when asked (--out names it): `lbsim
// run examples/demo.toml` after `make demo` used to put a run into the compare's folder, and the
// next `lbsim report` replaced the compare's report with a run's.
void check_folder_owner(const std::string& dir, const std::string& mine, bool asked, const char* what) {
  const std::string kind = folder_kind(dir);
  if (kind.empty() || kind == mine || asked) return;
  throw UserError(
      fmt::format("output folder '{}' holds the results of `lbsim {}`; {} would mix with them: give --out to write "
                  "elsewhere (or --out {} to write there anyway)",
                  dir, kind == "analysis" ? "balls" : kind, what, dir));
}

// The folders (and files) a command creates before its first run, removed again when that run is
// refused for bad input (e.g. the memory estimate), so a refused run leaves no empty output folder
// behind (docs/outputs.md). Only folders that did not exist and are still empty are removed.
class NewFolders {
 public:
  void add(const std::string& dir) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::path p = fs::absolute(dir, ec).lexically_normal();
    if (p.filename().empty()) p = p.parent_path();
    for (; !p.empty() && !fs::exists(p, ec); p = p.parent_path()) {
      folders_.push_back(p);
      if (p == p.parent_path()) break;
    }
  }
  void add_file(const std::string& file) {
    std::error_code ec;
    if (!std::filesystem::exists(file, ec)) files_.push_back(file);
  }
  void keep() {
    folders_.clear();
    files_.clear();
  }
  void keep_files() { files_.clear(); }
  NewFolders() = default;
  NewFolders(const NewFolders&) = delete;
  NewFolders& operator=(const NewFolders&) = delete;
  ~NewFolders() {
    std::error_code ec;
    for (const auto& f : files_) std::filesystem::remove(f, ec);
    // Deepest first; a folder is removed only when empty (remove fails otherwise).
    std::sort(folders_.begin(), folders_.end(), [](const auto& a, const auto& b) {
      return std::distance(a.begin(), a.end()) > std::distance(b.begin(), b.end());
    });
    for (const auto& d : folders_) std::filesystem::remove(d, ec);
  }

 private:
  std::vector<std::filesystem::path> folders_;
  std::vector<std::string> files_;
};

// summary.json "status" in words.
std::string status_words(const std::string& st) {
  if (st == "interrupted") return "interrupted (SIGINT/SIGTERM)";
  if (st == "watchdog") return "stopped by the no-progress watchdog (run.watchdog_us)";
  if (st == "stalled") return "stalled (lossless deadlock)";
  if (st == "unfinished") return "unfinished at run.end_us";
  return st;
}

int do_run(const RunOptions& o) {
  auto cfg = load(o.config, o.sets);
  if (!o.seed.empty()) set_seed(cfg, o.seed);
  if (!o.out.empty()) cfg.set("output.dir", o.out, "--out");
  if (o.quiet) cfg.set("run.progress", "off", "--quiet");
  const std::string& out = cfg.text("output.dir");
  check_folder_owner(out, "run", !o.out.empty(), "a run written there");
  sim::install_interrupt_handlers();
  NewFolders created;
  created.add(out);
  sim::check_output_dir(out);  // an unwritable folder is bad input, found before the simulation
  sim::Simulation s(cfg);
  const int rc = s.run();
  s.write_outputs(out);
  created.keep();
  const auto j = s.summary();
  if (!o.quiet) {
    const auto& f = j["fct_us"];
    fmt::print("lbsim run: {} on {} ({} hosts), lb={}, routing={}, cc={}, seed={}\n", cfg.text("workload.kind"),
               s.topology().kind, s.topology().num_hosts, cfg.text("lb.algorithm"), cfg.text("routing.algorithm"),
               cfg.text("transport.cc"), cfg.integer("run.seed"));
    // A run that stopped early says so first: its statistics cover the transfers that completed.
    if (const auto st = j["status"].get<std::string>(); st != "completed")
      fmt::print("  status: {}, t = {:.2f} us: {} of {} transfers completed; the FCT statistics cover those only\n",
                 status_words(st), j["end_time_us"].get<double>(), j["completed"].get<std::uint64_t>(),
                 j["workload"]["transfers"].get<std::uint64_t>());
    fmt::print("  completed {}/{}  FCT us: max {}  p99 {}  p50 {}  mean {}  (ideal max {})\n",
               j["completed"].get<std::uint64_t>(), j["workload"]["transfers"].get<std::uint64_t>(),
               stat_text(f["max"]), stat_text(f["p99"]), stat_text(f["p50"]), stat_text(f["mean"]),
               stat_text(j["ideal_fct_us"]["max"]));
    // Dependency workloads (collectives, GOAL, triggered .cm): their completion time is the makespan.
    if (j.value("has_dependencies", false) && !j["makespan_us"].is_null())
      fmt::print("  makespan {:.2f} us (first start to last finish, computations included)\n",
                 j["makespan_us"].get<double>());
    fmt::print("  drops {}  trims {}  ecn marks {}  retransmits {}  timeouts {}  out-of-order {:.2f}%\n",
               j["drops"].get<std::uint64_t>(), j["trims"].get<std::uint64_t>(), j["ecn_marks"].get<std::uint64_t>(),
               j["retransmits"].get<std::uint64_t>(), j["timeouts"].get<std::uint64_t>(), j["ooo_pct"].get<double>());
    // Packets lost other than to full queues (failures, no route after convergence, routing loops).
    const auto lost = [&](const char* k) { return j.value(k, std::uint64_t{0}); };
    if (lost("failure_drops") + lost("no_route_drops") + lost("ttl_drops") > 0)
      fmt::print("  also dropped: {} on failed links or to random loss, {} with no route, {} at the hop limit\n",
                 lost("failure_drops"), lost("no_route_drops"), lost("ttl_drops"));
    fmt::print("  {} events in {:.2f} s ({:.2f} M events/s), peak memory {:.0f} MiB\n",
               j["events"].get<std::uint64_t>(), j["perf"]["wall_s"].get<double>(),
               j["perf"]["events_per_s"].get<double>() / 1e6, j["perf"]["peak_rss_mb"].get<double>());
    if (j.contains("reps"))
      fmt::print("  REPS state per connection: {} bits ({} bytes, [REPS] Table 1); freezing mode entered {} times\n",
                 j["reps"]["state_bits"].dump(), j["reps"]["state_bytes"].dump(),
                 j["reps"].value("freeze_entries", nlohmann::json(0)).dump());
    fmt::print("  results in {}/\n", out);
  }
  if (rc == 130) {
    fmt::print(stderr,
               "lbsim: interrupted at t = {} us: {} of {} transfer(s) finished; what was measured is in {}/ "
               "(summary.json \"interrupted\": true)\n",
               j["end_time_us"].get<double>(), j["completed"].get<std::uint64_t>(),
               j["workload"]["transfers"].get<std::uint64_t>(), out);
  } else if (rc == 3) {
    // A lossless run that deadlocked stops at the stall, not at run.end_us.
    const auto* fc = j.contains("flow_control") ? &j["flow_control"] : nullptr;
    if (j.contains("watchdog")) {
      const auto& w = j["watchdog"];
      fmt::print(stderr,
                 "lbsim: stopped at t = {} us: nothing progressed since t = {} us (run.watchdog_us: window {} us); "
                 "{} started flow(s) stuck, {} waiting for them; see summary.json \"watchdog\" and {}/flows.csv\n",
                 w["stopped_at_us"].get<double>(), w["no_progress_since_us"].get<double>(),
                 w["window_us"].get<double>(), w["stuck_started"].get<std::uint64_t>(),
                 w["stuck_waiting"].get<std::uint64_t>(), out);
      for (const auto& f : w["first_stuck"])
        fmt::print(stderr, "  flow {} host {} -> {}: {}/{} packets received, {} retransmits, {} timeouts\n",
                   f["id"].get<std::uint64_t>(), f["src"].get<std::int64_t>(), f["dst"].get<std::int64_t>(),
                   f["received_packets"].get<std::uint64_t>(), f["packets"].get<std::uint64_t>(),
                   f["retransmits"].get<std::uint64_t>(), f["timeouts"].get<std::uint64_t>());
    } else if (fc != nullptr && fc->contains("stall"))
      fmt::print(stderr, "lbsim: {} flow(s) unfinished when the run stopped on the stall ({} us); see {}/flows.csv\n",
                 j["unfinished"].get<std::uint64_t>(), (*fc)["stall"]["time_us"].get<double>(), out);
    else {
      // Entries timed after the end never started: name them apart from those the run did not finish.
      const std::size_t late = s.late_transfers();
      fmt::print(stderr, "lbsim: {} flow(s) unfinished at the end time ({} us){}; see {}/flows.csv\n",
                 j["unfinished"].get<std::uint64_t>(), cfg.real("run.end_us"),
                 late > 0 ? fmt::format(", {} of them because they start after it", late) : std::string(), out);
    }
  }
  return rc;
}

struct TopoOptions {
  std::string config;
  std::vector<std::string> sets;
  std::string edges, nodes, format = "csv";
};

// Opens an export file for writing; a path that cannot be written is a UserError naming the option.
std::ofstream open_export(const std::string& path, const char* option) {
  std::ofstream f(path);
  if (!f) throw UserError(fmt::format("{} {}: cannot write this file", option, path));
  return f;
}

int do_topo(const TopoOptions& o) {
  const auto format = topo::parse_graph_format(o.format);
  if (!o.nodes.empty() && format != topo::GraphFormat::Csv)
    throw UserError("--nodes writes CSV; with --format graphml or dot the --edges file holds the nodes already");
  auto cfg = load(o.config, o.sets);
  // The estimate comes from the config alone; only what this command builds (the topology and its
  // tables) must fit, the run's estimate is printed for the user (`lbsim run` refuses above it).
  sim::check_memory(cfg, sim::MemoryUse::Topology);
  std::string limit_why;
  const double limit = sim::memory_limit_bytes(cfg, &limit_why);
  const auto mem = sim::estimate_memory(cfg);
  const auto t = topo::build_topology(cfg);
  if (!o.edges.empty()) {
    auto f = open_export(o.edges, "--edges");
    topo::write_graph(t, format, f);
  }
  if (!o.nodes.empty()) {
    auto f = open_export(o.nodes, "--nodes");
    topo::write_nodes_csv(t, f);
  }
  const auto st = topo::graph_stats(t);
  fmt::print("topology: {}\n", t.kind);
  for (const auto& [k, v] : t.params) fmt::print("  {}: {}\n", k, v);
  fmt::print("hosts: {}\nswitches: {}\nlinks: {}\n", t.num_hosts, t.num_switches(), t.links.size());
  std::map<std::string, int> kinds;
  for (const auto& l : t.links) ++kinds[topo::link_kind_name(l.kind)];
  for (const auto& [k, n] : kinds) fmt::print("  {} links: {}\n", k, n);
  fmt::print("switch degree (switch-to-switch links): min {} max {}\n", st.min_degree, st.max_degree);
  fmt::print("switch-graph diameter: {} hops, average shortest path {:.3f} hops\n", st.diameter, st.avg_path_length);
  fmt::print("host-to-host diameter: {} links\n", st.host_diameter);
  // Shortest-path (ECMP) diversity between the switches of the first and the farthest host.
  routing::MinimalTables tables(t);
  const std::int32_t a = t.host_switch(0);
  std::int32_t b = a;
  for (std::int32_t h = 0; h < t.num_hosts; ++h)
    if (tables.distance(a, t.host_switch(h)) > tables.distance(a, b)) b = t.host_switch(h);
  // Count shortest paths a -> b by dynamic programming over the next-hop sets.
  std::map<std::int32_t, double> memo;
  std::function<double(std::int32_t)> count = [&](std::int32_t n) -> double {
    if (n == b) return 1.0;
    if (auto it = memo.find(n); it != memo.end()) return it->second;
    double c = 0;
    for (auto p : tables.candidates(n, b)) c += count(t.ports[n][p].peer);
    return memo[n] = c;
  };
  fmt::print("shortest paths between {} and {} (farthest from host 0's switch): {}\n", t.nodes[a].label,
             t.nodes[b].label, static_cast<std::uint64_t>(count(a)));
  fmt::print("routing tables: {} bytes ({} distinct next-hop sets; min-hop tables as built for a run)\n",
             tables.bytes(), tables.distinct_sets());
  fmt::print("memory estimate of a run: {}\n", mem.describe());
  fmt::print("memory limit: {}{}\n", limit_why,
             limit > 0 && mem.total() > limit ? ": `lbsim run` refuses this config" : "");
  return 0;
}

struct CompareOptions {
  std::string config;
  std::vector<std::string> sets;
  std::string lbs;
  std::string vary;
  std::string out;
  std::string seed;  // empty: run.seed of the config
};

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos <= s.size()) {
    const auto comma = s.find(',', pos);
    const auto item = s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

// Runs the same scenario once per load balancer and prints one row per scheme.
int do_compare(const CompareOptions& o) {
  const auto base = load(o.config, o.sets, /*check_reads=*/false);  // checked over every run below
  const std::string root = o.out.empty() ? base.text("output.dir") : o.out;
  // --vary key=v1,v2,... (default: lb.algorithm=ecmp,ops)
  if (!o.lbs.empty() && !o.vary.empty()) throw UserError("use either --lb or --vary, not both");
  const std::string vary =
      !o.vary.empty() ? o.vary : "lb.algorithm=" + (o.lbs.empty() ? std::string("ecmp,ops") : o.lbs);
  const auto eq = vary.find('=');
  if (eq == std::string::npos || eq == 0) throw UserError("--vary '" + vary + "': expected section.key=v1,v2,...");
  const std::string key = vary.substr(0, eq);
  const auto values = split_list(vary.substr(eq + 1));
  if (values.empty()) throw UserError("--vary '" + vary + "': expected at least one value");
  const std::string label = key == "lb.algorithm" ? "scheme" : key.substr(key.find('.') + 1);
  // Every run's config before the first run: a bad value (--lb ecmp,foo) is refused at once, and a key
  // must be read by one of the runs (lb.reps_freezing with --lb ecmp,reps is; with --lb ecmp,ops not).
  std::vector<config::Config> cfgs;
  for (const auto& lb : values) {
    auto cfg = base;
    config::apply_override(cfg, key + "=" + lb);
    if (!o.seed.empty()) set_seed(cfg, o.seed);
    config::check(cfg);
    cfgs.push_back(std::move(cfg));
  }
  std::vector<const config::Config*> all;
  for (const auto& c : cfgs) all.push_back(&c);
  config::check_keys_read(all);
  check_folder_owner(root, "compare", !o.out.empty(), "the compare's run folders");
  sim::install_interrupt_handlers();
  NewFolders created;  // removed again if the first run is refused
  for (const auto& lb : values) created.add(root + "/" + lb);
  for (const auto& lb : values) sim::check_output_dir(root + "/" + lb);  // before the first run
  // compare.json marks the folder as a compare's (lbsim report, and a later `lbsim run` that would
  // write into it unasked).
  created.add_file((std::filesystem::path(root) / "compare.json").string());
  {
    std::ofstream f(std::filesystem::path(root) / "compare.json");
    f << nlohmann::json{{"command", "compare"}, {"key", key}, {"values", values}}.dump(2) << "\n";
    if (!f) throw UserError(fmt::format("output folder '{}': cannot write compare.json", root));
  }
  // Each run's config records run.progress = off (as before); the display follows the base config.
  const auto mode = progress::mode_for_stderr(base.text("run.progress"));
  fmt::print("{:<16} {:>11} {:>11} {:>11} {:>9} {:>8} {:>8} {:>8} {:>8} {:>7} {:>7}  {}\n", label, "max_fct_us",
             "p99_fct_us", "mean_fct_us", "slowdown", "drops", "trims", "retx", "timeouts", "ooo_%", "done", "status");
  int rc = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const auto& lb = values[i];
    auto& cfg = cfgs[i];
    cfg.set("output.dir", root + "/" + lb, "--out");
    cfg.set("run.progress", "off", "compare");
    sim::Simulation s(cfg);
    s.set_progress(mode, fmt::format("compare {} ({}/{})", lb, i + 1, values.size()));
    rc = std::max(rc, s.run());
    s.write_outputs(cfg.text("output.dir"));
    created.keep_files();  // the later runs' folders go only if they stay empty
    const auto j = s.summary();
    // drops: every packet the network dropped (full queues, failed links, no route, hop limit).
    const auto dropped = j["drops"].get<std::uint64_t>() + j["failure_drops"].get<std::uint64_t>() +
                         j["no_route_drops"].get<std::uint64_t>() + j["ttl_drops"].get<std::uint64_t>();
    fmt::print(
        "{:<16} {:>11} {:>11} {:>11} {:>9} {:>8} {:>8} {:>8} {:>8} {:>7.2f} {:>7}  {}\n", lb,
        stat_text(j["fct_us"]["max"]), stat_text(j["fct_us"]["p99"]), stat_text(j["fct_us"]["mean"]),
        stat_text(j["slowdown"]["mean"], 3), dropped, j["trims"].get<std::uint64_t>(),
        j["retransmits"].get<std::uint64_t>(), j["timeouts"].get<std::uint64_t>(), j["ooo_pct"].get<double>(),
        fmt::format("{}/{}", j["completed"].get<std::uint64_t>(), j["workload"]["transfers"].get<std::uint64_t>()),
        j["status"].get<std::string>());
    if (s.interrupted()) {
      fmt::print(
          stderr,
          "lbsim: interrupted during {}: its folder {} holds what was measured; the remaining runs were not started\n",
          lb, cfg.text("output.dir"));
      return 130;
    }
  }
  fmt::print("run folders: {}/<{}>/\n", root, label);
  return rc;
}

}  // namespace

void add_run_commands(CLI::App& app, Commands& out) {
  auto copts = std::make_shared<CompareOptions>();
  auto* cmp = app.add_subcommand("compare", "Run one scenario with several load balancers and print a table");
  cmp->add_option("config", copts->config, "Config file (TOML)")->required()->check(CLI::ExistingFile);
  cmp->add_option("--lb", copts->lbs, "Comma-separated load balancers (default ecmp,ops)");
  cmp->add_option("--vary", copts->vary, "Vary any key instead: section.key=v1,v2,... (one run per value)");
  cmp->add_option("--set", copts->sets, "Override a key: section.key=value (repeatable)");
  cmp->add_option("--seed", copts->seed, "Seed (overrides run.seed)");
  cmp->add_option("--out", copts->out, "Parent folder of the run folders (default output.dir)");
  out.push_back({cmp, [copts] { return do_compare(*copts); }});

  auto opts = std::make_shared<RunOptions>();
  auto* run = app.add_subcommand("run", "Run a simulation described by a TOML config; writes a run folder");
  run->add_option("config", opts->config, "Config file (TOML)")->required()->check(CLI::ExistingFile);
  run->add_option("--set", opts->sets, "Override a key: section.key=value (repeatable)");
  run->add_option("--seed", opts->seed, "Seed (overrides run.seed)");
  run->add_option("--out", opts->out, "Output folder (overrides output.dir)");
  run->add_flag("--quiet", opts->quiet, "No progress line and no summary on stdout");
  out.push_back({run, [opts] { return do_run(*opts); }});

  auto topo_opts = std::make_shared<TopoOptions>();
  auto* topo = app.add_subcommand("topo",
                                  "Describe the topology of a config: counts, degree, diameter, path counts; "
                                  "export its graph (--edges)");
  topo->add_option("config", topo_opts->config, "Config file (TOML)")->required()->check(CLI::ExistingFile);
  topo->add_option("--set", topo_opts->sets, "Override a key: section.key=value (repeatable)");
  topo->add_option("--edges", topo_opts->edges,
                   "Write the graph to this file: one row per link (CSV), or the whole graph (--format graphml|dot)");
  topo->add_option("--nodes", topo_opts->nodes, "Write one row per node (CSV: id, label, kind, group, tier, ports)");
  topo->add_option("--format", topo_opts->format, "Format of --edges: csv (default), graphml, dot");
  out.push_back({topo, [topo_opts] { return do_topo(*topo_opts); }});

  auto md = std::make_shared<bool>(false);
  auto check = std::make_shared<std::string>();
  auto* config = app.add_subcommand("config", "Print the default configuration (TOML) or the key reference");
  config->add_flag("--markdown", *md, "Print the reference of every key as Markdown (docs/config.md)");
  config->add_option("--check", *check, "Load and validate a config file, print the resolved config");
  out.push_back({config, [md, check] {
                   if (*md) {
                     std::cout << config::keys_markdown();
                   } else if (!check->empty()) {
                     std::cout << config::to_toml(load(*check, {}));
                   } else {
                     std::cout << config::to_toml(config::Config{});
                   }
                   return 0;
                 }});
}

}  // namespace lbsim::cli
