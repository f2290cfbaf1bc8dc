// `lbsim layers`: layered multipath routing for Slim Fly and friends ([SlimFly] sec. 4,
// 5, 6.1-6.3): builds the layers, prints path statistics (optionally for every layer count up to
// --layers), writes forwarding tables / LFTs and runs the deadlock analysis.
// Documented in docs/layered-routing.md.
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "analysis/cabling.h"
#include "analysis/deadlock.h"
#include "analysis/fabric.h"
#include "analysis/opensm.h"
#include "analysis/pathstats.h"
#include "analysis/switch_graph.h"
#include "routing/layered.h"
#include "topo/registry.h"
#include "cli/commands.h"
#include "config/reader.h"
#include "core/error.h"
#include "core/progress.h"
#include "sim/memory.h"

namespace lbsim::cli {

namespace {

struct LayersArgs {
  std::string config;
  std::vector<std::string> sets;
  int layers = 4;
  std::string scheme = "layered";
  double keep = 0.6;
  std::uint64_t seed = 1;
  std::string out;
  std::string fabric;  // discovered fabric (ibnetdiscover / LST) the tables are written for
  std::string map;     // node-name map for --fabric
  bool sweep = false;
  bool tables = false;
  bool no_guard = false;
  bool timings = false;
  std::string detours = "exact3";
  int vls = 0;
  std::string deadlock = "dfsssp";
  int sls = 16;
  long link_bin = 20;
};

void write_file(const std::filesystem::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary);
  if (!f) throw UserError(fmt::format("cannot write '{}'", p.string()));
  f.write(text.data(), static_cast<std::streamsize>(text.size()));
  f.close();
  if (!f) throw UserError(fmt::format("cannot write '{}' (disk full?)", p.string()));
}

// Writes a table file and returns the text to read back: the bytes just written, once the file
// holds exactly them (its size checked), without reading the (up to ~1 GB) file again.
const std::string& write_table(const std::filesystem::path& p, const std::string& text) {
  write_file(p, text);
  if (std::filesystem::file_size(p) != text.size())
    throw UserError(
        fmt::format("'{}' holds {} bytes after writing {}", p.string(), std::filesystem::file_size(p), text.size()));
  return text;
}

std::string read_file(const std::filesystem::path& p) {
  // One read into a string of the file's size (the LFT dump of a large fabric is ~1 GB).
  std::ifstream f(p, std::ios::binary | std::ios::ate);
  if (!f) throw UserError(fmt::format("cannot read '{}'", p.string()));
  std::string text(static_cast<std::size_t>(f.tellg()), '\0');
  f.seekg(0);
  if (!f.read(text.data(), static_cast<std::streamsize>(text.size())))
    throw UserError(fmt::format("cannot read '{}'", p.string()));
  return text;
}

// The physical fabric the tables are written for (analysis/fabric.h, the one port model): a Slim
// Fly's cabling plan ([cabling] keys) or, with --fabric, the discovered fabric mapped onto the plan;
// any other topology numbers its ports in Topology order.
analysis::Fabric tables_fabric(const config::Config& cfg, const topo::Topology& t, const LayersArgs& a) {
  using namespace analysis;
  if (t.kind != "slim_fly") {
    if (!a.fabric.empty())
      throw UserError(fmt::format(
          "--fabric maps a discovered fabric onto a Slim Fly cabling plan; topology.kind is \"{}\"", t.kind));
    return fabric_from_topology(t);
  }
  const CablingPlan plan = make_cabling_plan(cfg);
  if (a.fabric.empty()) return fabric_from_plan(plan);
  std::ifstream in(a.fabric);
  if (!in) throw UserError(fmt::format("cannot read the fabric dump '{}'", a.fabric));
  const IbFabric dump = parse_ibnetdiscover(in, a.fabric);
  std::map<std::string, std::string> names;
  if (!a.map.empty()) {
    std::ifstream m(a.map);
    if (!m) throw UserError(fmt::format("cannot read the mapping file '{}'", a.map));
    names = parse_name_map(m, a.map);
  }
  return fabric_from_discovery(plan, dump, a.map.empty() ? nullptr : &names);
}

nlohmann::json stats_json(const analysis::PathStats& s) {
  nlohmann::json j;
  j["layers"] = s.layers;
  j["pairs"] = s.pairs;
  j["mean_avg_length"] = s.mean_of_avg_length;
  j["mean_max_length"] = s.mean_of_max_length;
  j["max_length"] = s.max_length;
  j["routes_non_minimal_not_3_hops"] = s.non_minimal_not_3;
  for (auto [k, v] : s.max_length_hist) j["max_length_hist"][std::to_string(k)] = v;
  for (auto [k, v] : s.avg_length_hist) j["avg_length_hist"][fmt::format("{:.2f}", k)] = v;
  j["paths_per_link"] = s.paths_per_link;
  j["paths_per_link_bin"] = s.link_bin;
  for (auto [k, v] : s.paths_per_link_hist) j["paths_per_link_hist"][std::to_string(k)] = v;
  j["paths_per_link_min"] = s.min_paths_per_link;
  j["paths_per_link_max"] = s.max_paths_per_link;
  j["paths_per_link_mean"] = s.mean_paths_per_link;
  j["paths_per_link_stddev"] = s.stddev_paths_per_link;
  for (auto [k, v] : s.disjoint_hist) j["disjoint_paths_hist"][std::to_string(k)] = v;
  j["share_at_least_3_disjoint"] = s.share_at_least_3_disjoint;
  j["mean_distinct_paths"] = s.mean_distinct_paths;
  return j;
}

// CPU seconds of the phases (std::clock: the process's processor time, which other jobs on the
// machine do not inflate), printed with --timings; not written to layers.json, whose content
// depends only on the config and the options.
struct PhaseClock {
  std::clock_t t0 = std::clock();
  std::string text;
  void lap(const char* what) {
    const std::clock_t t1 = std::clock();
    text += fmt::format("{}{} {:.2f} s", text.empty() ? "" : ", ", what, static_cast<double>(t1 - t0) / CLOCKS_PER_SEC);
    t0 = t1;
  }
};

int run_layers(const LayersArgs& a) {
  using namespace analysis;
  using namespace routing;
  PhaseClock clock;
  const auto cfg = config::load(a.config, a.sets);
  sim::check_memory(cfg, sim::MemoryUse::Topology);
  const topo::Topology topology = topo::build_topology(cfg);
  const auto g = switch_graph(topology);
  if (!a.fabric.empty() && !a.tables) throw UserError("--fabric needs --tables");
  if (!a.map.empty() && a.fabric.empty()) throw UserError("--map needs --fabric");
  LayerOptions opt;
  opt.layers = a.layers;
  opt.scheme = parse_layer_scheme(a.scheme);
  opt.keep_fraction = a.keep;
  opt.seed = a.seed;
  opt.guard_short_routes = !a.no_guard;
  opt.detours = parse_detours(a.detours);
  if (a.tables && a.out.empty()) throw UserError("--tables needs --out DIR");
  // Progress (run.progress of the config): the layers, each statistics pass, the tables, the lanes.
  int first = a.sweep ? 1 : a.layers;
  const double steps = 1.0 + (a.layers - first + 1) + (a.tables ? 1.0 : 0.0) + (a.vls > 0 ? 1.0 : 0.0);
  double step = 0;
  progress::Meter meter("lbsim layers", progress::mode_for_stderr(cfg.text("run.progress")), "steps");
  clock.lap("topology");
  auto r = build_layers(g.adj, opt);
  if (auto err = validate_layers(r); !err.empty()) throw std::logic_error(err);
  clock.lap("layers");
  meter.update(++step, steps, "layers built");
  meter.finish();
  const std::string note = fmt::format("{}; scheme {}{}; layers {}; seed {}", g.description, a.scheme,
                                       opt.scheme != LayerScheme::Layered ? fmt::format(" p={}", a.keep)
                                       : opt.detours != Detours::Exact3   ? fmt::format(" detours={}", a.detours)
                                                                          : std::string(),
                                       a.layers, a.seed);
  fmt::print("{}\n", note);
  nlohmann::json js;
  js["config"] = a.config;
  js["topology"] = g.description;
  js["scheme"] = a.scheme;
  js["seed"] = a.seed;
  js["layers"] = a.layers;
  js["guard_short_routes"] = opt.guard_short_routes;
  if (opt.scheme == LayerScheme::Layered) js["detours"] = a.detours;
  if (opt.scheme != LayerScheme::Layered) js["keep_fraction"] = a.keep;
  for (int l = 0; l < r.num_layers(); ++l) {
    const auto& b = r.build_stats[static_cast<std::size_t>(l)];
    js["build"].push_back({{"layer", l},
                           {"almost_minimal_found", b.almost_minimal_found},
                           {"already_routed", b.already_routed},
                           {"fallback", b.fallback},
                           {"fallback_non_minimal", b.fallback_non_minimal},
                           {"pinned", b.pinned}});
  }
  for (int l = first; l <= a.layers; ++l) {
    auto s = compute_path_stats(r, l, a.link_bin);
    meter.update(++step, steps, fmt::format("statistics of {} layers", l));
    meter.finish();
    fmt::print("{}", format_path_stats(s));
    js["stats"].push_back(stats_json(s));
  }
  clock.lap("statistics");
  // Tables first, so they exist even when the deadlock analysis below fails for lack of lanes.
  std::filesystem::path dir(a.out);
  Fabric fabric;
  analysis::LidPlan lids;
  InstalledTables installed;
  if (!a.out.empty()) {
    std::filesystem::create_directories(dir);
    if (a.tables) {
      write_file(dir / "forwarding.txt", format_forwarding_tables(r, note));
      fabric = tables_fabric(cfg, topology, a);
      lids = make_lid_plan(fabric, r.num_layers());
      const Lfts lft = compute_lfts(r, fabric, lids);
      const std::string lfts_path = std::filesystem::absolute(dir / "lfts.dump").lexically_normal().string();
      const std::string guid2lid_text = format_guid2lid(fabric, lids);
      write_table(dir / "guid2lid", guid2lid_text);
      write_file(dir / "lids.csv", format_lid_csv(fabric, lids));
      write_file(dir / "opensm.conf", format_opensm_conf(lids, lfts_path, a.vls > 0 ? a.deadlock : "", a.vls));
      // lfts.dump (switches x LIDs lines, ~0.9 GB for q = 13 with 16 layers) is written one switch
      // block at a time, and each block is read back as OpenSM would (the bytes written; the file's
      // size checked at the end) while it is still in cache: the same file and the same installed
      // tables as format_lfts_dump + parse_lfts_dump + install_like_opensm, without the whole dump
      // and all its parsed entries in memory.
      {
        const std::string src = (dir / "lfts.dump").string();
        std::ofstream of(dir / "lfts.dump", std::ios::binary);
        if (!of) throw UserError(fmt::format("cannot write '{}'", src));
        const LftsDumpFormatter fm(fabric, lids);
        OpenSmInstaller ins(fabric, parse_guid2lid(guid2lid_text, (dir / "guid2lid").string()));
        std::string buf;
        std::uintmax_t bytes = 0;
        long lines = 0;
        auto put = [&](long block_lines) {
          for (const auto& blk : parse_lfts_dump(buf, src, lines)) ins.add(blk);
          of.write(buf.data(), static_cast<std::streamsize>(buf.size()));
          bytes += buf.size();
          lines += block_lines;
          buf.clear();
        };
        put(fm.header(buf));
        for (int s = 0; s < fabric.num_switches(); ++s) put(fm.block(s, lft[static_cast<std::size_t>(s)], buf));
        of.close();
        if (!of) throw UserError(fmt::format("cannot write '{}' (disk full?)", src));
        if (std::filesystem::file_size(dir / "lfts.dump") != bytes)
          throw UserError(fmt::format("'{}' holds {} bytes after writing {}", src,
                                      std::filesystem::file_size(dir / "lfts.dump"), bytes));
        installed = ins.finish();
      }
      clock.lap("tables and read-back");
      // Walk every (source, destination LID) pair over the fabric's cables through the tables read
      // back: they must deliver every route before anyone loads them.
      const WalkReport walk = walk_routes(fabric, installed);
      fmt::print("tables for {} ({} switches, {} endpoints, LMC {}, LIDs 1-{}): LFT walk {}", fabric.source,
                 fabric.num_switches(), fabric.num_endpoints(), lids.lmc, lids.max_lid, walk.text());
      js["tables"] = {{"fabric", fabric.source},
                      {"lmc", lids.lmc},
                      {"max_lid", lids.max_lid},
                      {"walk_routes", walk.routes},
                      {"walk_delivered", walk.delivered},
                      {"walk_failed", walk.failed},
                      {"walk_max_switch_hops", walk.max_switch_hops}};
      if (!walk.ok())
        throw std::logic_error("the written forwarding tables do not deliver every route:\n" + walk.text());
      clock.lap("walk");
      meter.update(++step, steps, "tables written and walked");
    }
  }
  if (a.vls > 0) {
    meter.finish();
    auto routes = collect_routes(r);
    VlAssignment v = a.deadlock == "three-lane" ? assign_three_lane(r.adjacency(), routes, a.vls, a.sls)
                     : a.deadlock == "dfsssp"
                         ? assign_dfsssp(r.adjacency(), routes, a.vls)
                         : throw UserError(fmt::format("unknown --deadlock '{}' (dfsssp or three-lane)", a.deadlock));
    fmt::print("distinct routes {}\n{}", routes.size(), format_vl_assignment(v));
    clock.lap("deadlock analysis");
    js["deadlock"] = {{"scheme", v.scheme},
                      {"vls_available", v.vls_available},
                      {"vls_needed", v.vls_needed},
                      {"vls_used", v.vls_used},
                      {"per_lane_acyclic", v.per_lane_acyclic},
                      {"per_vl", v.routes_per_vl},
                      {"distinct_routes", routes.size()}};
    if (v.scheme == "three-lane") {
      js["deadlock"]["colors_used"] = v.colors_used;
      js["deadlock"]["switch_sl"] = v.color;
    }
    if (a.tables) {
      // Per-route SLs and SL-to-VL tables for the lanes; checked like the LFTs: read back, follow
      // every route through the installed tables and require an acyclic (channel, VL) graph.
      const SlTables sl = make_sl_tables(r, fabric, v, routes);
      write_file(dir / "path-sl.txt", format_path_sl(fabric, lids, sl));
      write_file(dir / "sl2vl.dump", format_sl2vl_dump(fabric, lids, sl));
      const VlCheck c =
          check_vls(fabric, installed, parse_path_sl(read_file(dir / "path-sl.txt"), (dir / "path-sl.txt").string()),
                    parse_sl2vl_dump(read_file(dir / "sl2vl.dump"), (dir / "sl2vl.dump").string()));
      fmt::print("SL/VL tables: {} routes, {} hops on {} VLs, (channel, VL) graph {}\n", c.routes, c.hops, c.vls_used,
                 c.acyclic ? "acyclic" : "CYCLIC");
      js["deadlock"]["tables_vls_used"] = c.vls_used;
      js["deadlock"]["tables_acyclic"] = c.acyclic;
      if (!c.problem.empty()) throw std::logic_error("the written SL/VL tables are not deadlock-free: " + c.problem);
      clock.lap("SL/VL tables and check");
    }
  }
  if (!a.out.empty()) {
    write_file(dir / "layers.json", js.dump(2) + "\n");
    fmt::print("wrote {}\n", dir.string());
  }
  if (a.timings) fmt::print("timings: {}\n", clock.text);
  return 0;
}

}  // namespace

void add_layers_commands(CLI::App& app, Commands& out) {
  auto args = std::make_shared<LayersArgs>();
  auto* sub = app.add_subcommand("layers",
                                 "layered multipath routing: build layers, path statistics, tables, deadlock analysis");
  sub->add_option("config", args->config, "Config (TOML): the [topology] to route on (any kind)")->required();
  sub->add_option("--set", args->sets, "Override a key: section.key=value (repeatable)");
  sub->add_option("--layers,-L", args->layers, "number of layers |L| incl. the minimal layer 0")->capture_default_str();
  sub->add_option("--scheme", args->scheme, "layered | rues | fatpaths")->capture_default_str();
  sub->add_option("--p", args->keep, "rues/fatpaths: fraction of links kept per layer")->capture_default_str();
  sub->add_option("--seed", args->seed, "random seed")->capture_default_str();
  sub->add_option("--out", args->out, "write layers.json (and tables with --tables) into DIR");
  sub->add_flag("--sweep", args->sweep, "statistics for every layer count 1..--layers");
  sub->add_flag("--timings", args->timings, "print the CPU time of each phase");
  sub->add_flag("--no-guard", args->no_guard,
                "layered: plain Algorithm 1 without the short-route guard (fallbacks may exceed 3 hops)");
  sub->add_option("--detours", args->detours,
                  "layered: almost-minimal path length, exact3 (App. B.1.1: 3 hops) | shortest (the shortest existing "
                  "length >= 3, 4 hops for adjacent girth-5 pairs) | range (3 or 4 hops, the lighter path; App. B.1.1 "
                  "\"a range of "
                  "valid lengths\")")
      ->capture_default_str();
  sub->add_flag("--tables", args->tables,
                "write forwarding.txt and the OpenSM files lfts.dump, guid2lid, lids.csv, opensm.conf (+ path-sl.txt, "
                "sl2vl.dump with --vls) into --out DIR, on the cabling plan's ports");
  sub->add_option("--fabric", args->fabric,
                  "with --tables: write the tables for this discovered fabric (ibnetdiscover [-g] or LST dump), mapped "
                  "onto the cabling plan as `cabling verify` does (real GUIDs and ports)");
  sub->add_option("--map", args->map, "with --fabric: node-name map (0x<guid> \"<planned name>\" lines)");
  sub->add_option("--vls", args->vls, "run the deadlock analysis with this many virtual lanes");
  sub->add_option("--deadlock", args->deadlock, "dfsssp | three-lane")->capture_default_str();
  sub->add_option("--sls", args->sls, "three-lane: available service levels")->capture_default_str();
  sub->add_option("--link-bin", args->link_bin, "bin width of the paths-per-link histogram")->capture_default_str();
  out.push_back({sub, [args] { return run_layers(*args); }});
}

}  // namespace lbsim::cli
