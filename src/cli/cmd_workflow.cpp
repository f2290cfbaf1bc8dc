// `lbsim sweep`, `lbsim plot`, `lbsim reproduce` (docs/workflow.md): the options and the order of
// the steps. The sweep files, run-folder bookkeeping, results writers, child processes and the
// reproduction catalogue are the workflow library (src/workflow/).
//
// A sweep runs every grid point as a child `lbsim run <point.toml> --quiet` process (failures stay
// isolated), locally with N workers or as one Slurm job array, then builds results.csv from the run
// folders. Completed runs (exit code 0 or 3 recorded, summary.json present, resolved config equal
// to the point's) are skipped, so an interrupted sweep resumes where it stopped.
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <thread>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "cli/commands.h"
#include "config/reader.h"
#include "core/error.h"
#include "sim/simulation.h"
#include "workflow/manifest.h"
#include "workflow/runner.h"
#include "workflow/sweep.h"

namespace lbsim::cli {

namespace {

namespace fs = std::filesystem;
namespace wf = workflow;

// ---- sweep ------------------------------------------------------------------------------------------

struct SweepOptions {
  std::string file;
  std::string out;
  int workers = 0;
  bool slurm = false;
  bool no_wait = false;
  bool collect = false;
  bool dry_run = false;
  std::vector<std::string> sbatch;
  std::vector<std::string> sets;  // --set section.key=value for every point
};

// The arguments that name the same sweep again (its --set keys and --out folder), for the hints
// that tell how to resume or collect it.
std::string same_sweep_args(const SweepOptions& o) {
  std::string s;
  for (const auto& a : o.sets) s += " --set " + a;
  return o.out.empty() ? s : s + " --out " + o.out;
}

int do_sweep_prepared(const wf::Sweep& sw, const SweepOptions& o) {
  if (o.dry_run) {
    fmt::print("{} point(s); output folder {}\n", sw.points.size(), sw.out.string());
    for (const auto& p : sw.points) fmt::print("{}\n", p.name);
    return 0;
  }
  wf::write_inputs(sw);
  const auto todo = wf::pending(sw);
  wf::LocalRun interrupted;
  fmt::print("sweep {}: {} point(s), {} complete, {} {}; folder {}\n", sw.spec.name, sw.points.size(),
             sw.points.size() - todo.size(), todo.size(), o.collect ? "incomplete (--collect: not run)" : "to run",
             sw.out.string());
  std::fflush(stdout);
  if (!todo.empty() && !o.collect) {
    if (o.slurm) {
      std::vector<std::string> extra = sw.spec.sbatch;
      extra.insert(extra.end(), o.sbatch.begin(), o.sbatch.end());
      wf::submit_slurm_job(wf::write_slurm_job(sw, todo, o.workers, wf::self_exe()), todo, extra, !o.no_wait);
      if (o.no_wait) {
        fmt::print("when the job has finished: lbsim sweep {}{} --collect\n", sw.spec.file, same_sweep_args(o));
        return 0;
      }
    } else {
      const int w = o.workers > 0 ? o.workers : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
      // SIGINT/SIGTERM: the points running write their folders (exit 130), the rest wait for the
      // next `lbsim sweep` of the same file (docs/workflow.md "Interruption").
      sim::install_interrupt_handlers();
      interrupted = wf::run_local(sw, todo, w, wf::self_exe(), [] { return sim::interrupt_requested(); });
    }
  }
  wf::write_file(sw.out / "results.csv", wf::results_csv(sw.spec, sw.points));
  fmt::print("{}", wf::results_table(sw.points));
  fmt::print("results: {}\n", (sw.out / "results.csv").string());
  if (interrupted.stopped) {
    const auto names = [](const std::vector<std::string>& v) {
      std::string s;
      for (const auto& n : v) s += (s.empty() ? "" : ", ") + n;
      return v.empty() ? std::string("none") : s;
    };
    fmt::print(stderr,
               "lbsim: sweep interrupted: {} point(s) stopped mid-run (exit 130, folders written: {}), {} not "
               "started ({}); `lbsim sweep {}{}` again runs them\n",
               interrupted.interrupted.size(), names(interrupted.interrupted), interrupted.not_started.size(),
               names(interrupted.not_started), sw.spec.file, same_sweep_args(o));
    return 130;
  }
  return wf::sweep_exit_code(sw);
}

int do_sweep(const SweepOptions& o) {
  if (o.no_wait && !o.slurm) throw UserError("--no-wait only applies to --slurm");
  if (o.collect && o.slurm) throw UserError("use either --collect or --slurm");
  if (o.sets.empty()) return do_sweep_prepared(wf::prepare(o.file, o.out), o);
  // --set: the sweep file with a key for every point (as `lbsim reproduce --set`).
  wf::Sweep sw;
  sw.spec = wf::parse_sweep_file(o.file);
  wf::set_for_every_point(sw.spec, o.sets);
  const std::string dir = !o.out.empty()         ? o.out
                          : !sw.spec.out.empty() ? sw.spec.out
                                                 : "results/sweeps/" + sw.spec.name;
  sw.out = fs::absolute(dir).lexically_normal();
  sw.points = wf::expand(sw.spec, sw.out.string());
  return do_sweep_prepared(sw, o);
}

// ---- plot -------------------------------------------------------------------------------------------

// The installed layout (`make install`): <prefix>/bin/lbsim with tools/, examples/ and data/ in
// <prefix>/share/lbsim.
fs::path installed_share_dir() { return fs::path(wf::self_exe()).parent_path().parent_path() / "share" / "lbsim"; }

// The source tree (examples/ for reproduce): $LBSIM_SOURCE_DIR, one level above the executable (a
// build folder inside the source tree), the installed share folder, or the tree this file was
// compiled from.
fs::path source_dir() {
  std::vector<fs::path> cand;
  if (const char* e = std::getenv("LBSIM_SOURCE_DIR")) cand.emplace_back(e);
  cand.push_back(fs::path(wf::self_exe()).parent_path().parent_path());
  cand.push_back(installed_share_dir());
#ifdef LBSIM_SOURCE_DIR
  cand.push_back(fs::path(LBSIM_SOURCE_DIR));
#endif
  cand.push_back(fs::path(__FILE__).parent_path().parent_path().parent_path());
  for (const auto& c : cand)
    if (fs::is_directory(c / "examples") && (fs::is_directory(c / "src") || c == installed_share_dir())) return c;
  return cand.back();
}

// tools/ is found, in order, at $LBSIM_TOOLS_DIR, next to the executable, one level up (a build
// folder inside the source tree), in the installed share folder and in the source tree this file
// was compiled from.
fs::path tools_dir() {
  std::vector<fs::path> cand;
  if (const char* e = std::getenv("LBSIM_TOOLS_DIR")) cand.emplace_back(e);
  const fs::path exe_dir = fs::path(wf::self_exe()).parent_path();
  cand.push_back(exe_dir / "tools");
  cand.push_back(exe_dir.parent_path() / "tools");
  cand.push_back(installed_share_dir() / "tools");
#ifdef LBSIM_SOURCE_DIR
  cand.push_back(fs::path(LBSIM_SOURCE_DIR) / "tools");
#endif
  cand.push_back(fs::path(__FILE__).parent_path().parent_path().parent_path() / "tools");
  for (const auto& c : cand)
    if (fs::is_regular_file(c / "plot.py")) return c;
  throw UserError("cannot find tools/plot.py (set LBSIM_TOOLS_DIR to the lbsim tools/ folder)");
}

std::string python() {
  const char* e = std::getenv("LBSIM_PYTHON");
  return e && *e ? e : "/usr/bin/python3";
}

// What `lbsim plot` passes on to tools/plot.py (empty / 0: plot.py's default). plot.py checks them
// (a bad --formats value exits 2 naming the formats matplotlib can write).
struct PlotOptions {
  std::string dir, out, formats, ports;
  int dpi = 0, top_ports = 0;
};

int do_plot(const PlotOptions& o) {
  std::error_code ec;
  if (!fs::is_directory(o.dir, ec)) throw UserError(fmt::format("'{}' is not a folder", o.dir));
  std::vector<std::string> args{python(), (tools_dir() / "plot.py").string(), o.dir};
  auto opt = [&args](const char* name, const std::string& v) {
    if (v.empty()) return;
    args.emplace_back(name);
    args.push_back(v);
  };
  opt("--out", o.out);
  opt("--formats", o.formats);
  opt("--ports", o.ports);
  if (o.dpi > 0) opt("--dpi", std::to_string(o.dpi));
  if (o.top_ports > 0) opt("--top-ports", std::to_string(o.top_ports));
  return wf::wait_for(wf::spawn(args, ""));
}

int do_plot(const std::string& dir, const std::string& out) {
  PlotOptions o;
  o.dir = dir;
  o.out = out;
  return do_plot(o);
}

// ---- report ------------------------------------------------------------------------------------------

// `lbsim report DIR`: one self-contained report.html (tools/report.py; docs/report.md).
int do_report(const std::string& dir, const std::string& out) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw UserError(fmt::format("'{}' is not a folder", dir));
  std::vector<std::string> args{python(), (tools_dir() / "report.py").string(), dir};
  if (!out.empty()) {
    args.push_back("--out");
    args.push_back(out);
  }
  return wf::wait_for(wf::spawn(args, ""));
}

// What `lbsim report` shows of a reproduce entry: its name, source and description.
void write_reproduce_meta(const fs::path& out, const wf::Entry& e, bool quick) {
  nlohmann::json j{{"name", e.name},       {"source", e.source()}, {"what", e.description},
                   {"section", e.section}, {"manifest", e.file},   {"quick", quick}};
  wf::write_file(out / "reproduce.json", j.dump(2) + "\n");
}

// ---- reproduce --------------------------------------------------------------------------------------

struct ReproOptions {
  std::string name;
  bool list = false, quick = false, print = false, slurm = false, no_plot = false;
  int workers = 0;
  int seeds = 0;                  // > 0: sweep run.seed = 1..seeds (an entry that sets or sweeps run.seed refuses)
  std::vector<std::string> sets;  // section.key=value added to the sweep's [set] (every point)
  std::string out;
};

// The entries: the manifests under the examples/ folder of the source tree or the installed share
// folder (docs/workflow.md "Reproduction manifests").
std::vector<wf::Entry> entries() {
  const fs::path ex = source_dir() / "examples";
  std::error_code ec;
  if (!fs::is_directory(ex, ec))
    throw UserError(fmt::format("no examples/ folder at {} (set LBSIM_SOURCE_DIR to the lbsim source tree)",
                                ex.parent_path().string()));
  return wf::discover(ex);
}

// `lbsim reproduce --list`: one row per entry, the columns as wide as their longest value.
std::string list_table(const std::vector<wf::Entry>& cat) {
  std::vector<std::array<std::string, 5>> rows{{"name", "source", "full", "quick", "status"}};
  for (const auto& e : cat)
    rows.push_back({e.name, e.source(), wf::format_duration(e.full_s, e.full_estimated),
                    wf::format_duration(e.quick_s, e.quick_estimated),
                    e.needs.empty() ? std::string("ready") : "needs: " + [&] {
                      std::string m;
                      for (const auto& x : e.needs) m += (m.empty() ? "" : ", ") + x;
                      return m;
                    }()});
  std::array<std::size_t, 4> w{};
  for (const auto& r : rows)
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = std::max(w[i], r[i].size());
  std::string out;
  for (const auto& r : rows)
    out += fmt::format("{:<{}}  {:<{}}  {:>{}}  {:>{}}  {}\n", r[0], w[0], r[1], w[1], r[2], w[2], r[3], w[3], r[4]);
  return out;
}

// An analysis entry (manifest `analysis`): `lbsim <subcommand> --set ... --out DIR` as a child
// process of the same binary (it prints the figure's metric next to the paper's statement), then
// the plots.
int do_reproduce_command(const wf::Entry& e, const ReproOptions& o) {
  auto args = wf::analysis_args(e, o.quick);
  const fs::path out = fs::absolute(!o.out.empty() ? o.out : "results/reproduce/" + e.name + (o.quick ? "-quick" : ""));
  args.insert(args.end(), {"--out", out.string()});
  if (o.print) {
    std::string line = "lbsim";
    for (const auto& a : args) line += " " + a;
    fmt::print("{}\n", line);
    return 0;
  }
  if (o.slurm) fmt::print(stderr, "lbsim: {} is an analysis (no sweep); it runs here, not on Slurm\n", e.name);
  args.insert(args.begin(), wf::self_exe());
  fs::create_directories(out);
  write_reproduce_meta(out, e, o.quick);
  const int rc = wf::wait_for(wf::spawn(args, ""));
  if (rc == 0 && !o.no_plot) {
    const int prc = do_plot(out.string(), (out / "plots").string());
    if (prc != 0)
      fmt::print(stderr, "lbsim: plotting failed (exit code {}); the results are in {}\n", prc, out.string());
  }
  return rc;
}

int do_reproduce(const ReproOptions& o) {
  if (o.list || o.name.empty()) {
    fmt::print("{}", list_table(entries()));
    return o.name.empty() && !o.list ? 2 : 0;
  }
  // NAME is an entry, or a manifest file (e.g. a copy with other parameters).
  wf::Entry e;
  std::error_code ec;
  if (o.name.size() > 5 && o.name.compare(o.name.size() - 5, 5, ".toml") == 0 && fs::is_regular_file(o.name, ec)) {
    e = wf::load_entry(o.name);
  } else {
    const auto cat = entries();
    const auto it = std::find_if(cat.begin(), cat.end(), [&](const wf::Entry& x) { return x.name == o.name; });
    if (it == cat.end()) {
      std::string names;
      for (const auto& x : cat) names += (names.empty() ? "" : ", ") + x.name;
      throw UserError(fmt::format("unknown experiment '{}' (one of: {}; or a manifest file)", o.name, names));
    }
    e = *it;
  }
  if (!e.needs.empty()) {
    std::string m;
    for (const auto& x : e.needs) m += (m.empty() ? "" : ", ") + x;
    std::string where;
    for (const auto& x : e.needs_where) where += "\n  " + x;
    throw UserError(fmt::format("{} ({}) cannot run in this build: needs {}{}", e.name, e.source(), m, where));
  }
  if (!e.analysis.empty() && o.seeds > 0)
    throw UserError(fmt::format("--seeds: {} is an analysis with its own seed options, not a sweep", e.name));
  if (!e.analysis.empty() && !o.sets.empty())
    throw UserError(fmt::format("--set: {} is an analysis with its own options, not a sweep", e.name));
  if (!e.analysis.empty()) return do_reproduce_command(e, o);
  auto spec = wf::entry_sweep(e, o.quick);
  if (o.seeds > 0) wf::add_seed_axis(spec, o.seeds);  // the reports print mean [min..max] over the seeds
  // Keys for every point (e.g. network.flow_control=lossy on the LAPS entries); a key the entry
  // varies per point (its grid or cases) is refused: those values are what it compares.
  wf::set_for_every_point(spec, o.sets);
  const fs::path out = fs::absolute(!o.out.empty() ? o.out : "results/reproduce/" + e.name + (o.quick ? "-quick" : ""));
  // Every point resolved and checked here, so that an error names the manifest or the sweep file
  // it comes from (not the copy written below).
  (void)wf::expand(spec, out.string());
  const std::string text = wf::sweep_to_toml(
      spec, {fmt::format("{}: {} ({}{}).", e.name, e.description, e.source(),
                         e.section.empty() || e.figure.rfind("sec.", 0) == 0 ? "" : ", sec. " + e.section),
             fmt::format("Written by `lbsim reproduce {}{}` from {}", e.name, o.quick ? " --quick" : "", e.file),
             "(sweep " + e.sweep + "); change the experiment there, not here."});
  if (o.print) {
    std::cout << text;
    return 0;
  }
  fs::create_directories(out);
  const fs::path file = out / "sweep.toml";
  if (wf::read_text(file) != text) wf::write_file(file, text);
  SweepOptions so;
  so.file = file.string();
  so.out = out.string();
  so.workers = o.workers;
  so.slurm = o.slurm;
  const auto sw = wf::prepare(so.file, so.out);
  write_reproduce_meta(out, e, o.quick);
  const int rc = do_sweep_prepared(sw, so);
  if (!e.report.kind.empty()) {
    // The figure's metric beside the paper's statement: printed, and kept for `lbsim report`.
    const std::string paper = wf::run_report(sw, e.report);
    fmt::print("\n{}", paper);
    wf::write_file(out / "paper.txt", paper);
  }
  // Plot whatever completed (failed runs are left out of the plots and marked in results.csv).
  if (!o.no_plot) {
    const int prc = do_plot(out.string(), (out / "plots").string());
    if (prc != 0)
      fmt::print(stderr, "lbsim: plotting failed (exit code {}); the results are in {}\n", prc, out.string());
  }
  return rc;
}

}  // namespace

void add_workflow_commands(CLI::App& app, Commands& out) {
  auto so = std::make_shared<SweepOptions>();
  auto* sw = app.add_subcommand("sweep",
                                "Run a grid of configs (a sweep file) in parallel or on Slurm; "
                                "resumable; writes results.csv");
  sw->add_option("sweep", so->file, "Sweep file (TOML: base, [set], [grid], [[case]])")
      ->required()
      ->check(CLI::ExistingFile);
  sw->add_option("--out", so->out, "Output folder (default: the sweep's `out`, else results/sweeps/<name>)");
  sw->add_option("--workers", so->workers, "Parallel runs (default: number of cores; with --slurm: array throttle)")
      ->check(CLI::Range(1, 4096));
  sw->add_flag("--slurm", so->slurm, "Submit the pending runs as a Slurm job array, watch it (squeue), then gather");
  sw->add_flag("--no-wait", so->no_wait, "With --slurm: submit and return; gather later with --collect");
  sw->add_option("--sbatch", so->sbatch, "Extra sbatch argument, e.g. --sbatch=--partition=cpu (repeatable)")
      ->allow_extra_args(false);
  sw->add_option("--set", so->sets,
                 "Set a key for every point: section.key=value (repeatable); refused for keys the sweep varies")
      ->allow_extra_args(false);
  sw->add_flag("--collect", so->collect, "Run nothing: build results.csv from the run folders that exist");
  sw->add_flag("--dry-run", so->dry_run, "Check the sweep and print its points; run nothing");
  out.push_back({sw, [so] { return do_sweep(*so); }});

  auto po = std::make_shared<PlotOptions>();
  auto* pl =
      app.add_subcommand("plot", "Plot a run, compare or sweep folder (PNG and PDF by default) with tools/plot.py");
  pl->add_option("dir", po->dir,
                 "Run folder (summary.json), compare folder (run folders inside) or sweep folder (results.csv)")
      ->required();
  pl->add_option("--out", po->out, "Folder for the plots (default: <dir>/plots)");
  pl->add_option("--formats", po->formats, "Comma-separated file formats, e.g. png,pdf,svg (default png,pdf)");
  pl->add_option("--dpi", po->dpi, "Resolution of raster formats (default 150)")->check(CLI::Range(1, 4800));
  pl->add_option("--ports", po->ports,
                 "queue_ports plot: switch ports by label, LABEL[:PORT],... (e.g. tor0:6,spine2) or degraded; default: "
                 "the degraded, then the busiest");
  pl->add_option("--top-ports", po->top_ports,
                 "queue_ports plot without --ports: this many ports, degraded first, then the busiest (default 4)")
      ->check(CLI::Range(1, 64));
  out.push_back({pl, [po] { return do_plot(*po); }});

  auto rdir = std::make_shared<std::string>();
  auto rout = std::make_shared<std::string>();
  auto* rep = app.add_subcommand("report",
                                 "Write one self-contained HTML report (tables, inline SVG figures) of a run, "
                                 "compare, sweep or reproduce folder");
  rep->add_option("dir", *rdir, "Run, compare, sweep or reproduce folder")->required();
  rep->add_option("--out", *rout, "The HTML file (default: <dir>/report.html)");
  out.push_back({rep, [rdir, rout] { return do_report(*rdir, *rout); }});

  auto ro = std::make_shared<ReproOptions>();
  auto* rp = app.add_subcommand("reproduce", "Run one of the papers' experiments (sweep + plots); --list shows all");
  rp->add_option("name", ro->name, "Experiment name (see --list)");
  rp->add_flag("--list", ro->list, "List the experiments, their runtime and whether this build can run them");
  rp->add_flag("--quick", ro->quick, "Reduced scale (a few minutes)");
  rp->add_flag("--print", ro->print, "Print the experiment's sweep file and exit");
  rp->add_flag("--slurm", ro->slurm, "Run the sweep on Slurm (see lbsim sweep --slurm)");
  rp->add_flag("--no-plot", ro->no_plot, "Do not plot");
  rp->add_option("--workers", ro->workers, "Parallel runs (default: number of cores)")->check(CLI::Range(1, 4096));
  rp->add_option("--seeds", ro->seeds, "Run every point with run.seed = 1..N (reports: mean [min..max] over the seeds)")
      ->check(CLI::Range(1, 1000));
  rp->add_option("--out", ro->out, "Output folder (default results/reproduce/<name>[-quick])");
  rp->add_option("--set", ro->sets,
                 "Set a key for every run: section.key=value (repeatable), e.g. network.flow_control=lossy; "
                 "refused for keys the experiment varies per point");
  out.push_back({rp, [ro] { return do_reproduce(*ro); }});
}

}  // namespace lbsim::cli
