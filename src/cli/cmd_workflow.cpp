// `lbsim sweep`, `lbsim plot`, `lbsim reproduce` (docs/workflow.md): the options, the order of the
// steps and the child processes. The sweep files, run-folder bookkeeping, results writers and the
// reproduction catalogue are the workflow library (src/workflow/).
//
// A sweep runs every grid point as a child `lbsim run <point.toml> --quiet` process (failures stay
// isolated), locally with N workers or as one Slurm job array, then builds results.csv from the run
// folders. Completed runs (exit code 0 or 3 recorded, summary.json present, resolved config equal
// to the point's) are skipped, so an interrupted sweep resumes where it stopped.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <thread>

#include <fmt/core.h>

#include "cli/commands.h"
#include "core/error.h"
#include "workflow/catalog.h"
#include "workflow/sweep.h"

extern char** environ;

namespace lbsim::cli {

namespace {

namespace fs = std::filesystem;
namespace wf = workflow;

// ---- processes --------------------------------------------------------------------------------------

std::string self_exe() {
  std::error_code ec;
  const auto p = fs::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("cannot locate the lbsim executable (/proc/self/exe)");
  return p.string();
}

// Starts argv[0] (looked up on PATH) with stdout and stderr sent to `log` (or inherited when
// empty). Returns the pid; throws UserError when the program cannot be started.
pid_t spawn(const std::vector<std::string>& args, const std::string& log) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (!log.empty()) {
    posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
  }
  pid_t pid = 0;
  const int err = posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (err != 0) throw UserError(fmt::format("cannot start '{}': {}", args[0], std::strerror(err)));
  return pid;
}

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 70;
}

int wait_for(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return 70;
  return exit_code_of(status);
}

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

std::string status_of(const wf::Point& p) {
  const int rc = wf::recorded_exit_code(p.cfg.out_dir);
  if (rc == 0) return "ok";
  if (rc == 3) return "unfinished";
  return fmt::format("failed({})", rc);
}

// Runs the pending points with at most `workers` child processes.
void run_local(const wf::Sweep& sw, const std::vector<const wf::Point*>& todo, int workers) {
  const std::string exe = self_exe();
  std::map<pid_t, std::pair<const wf::Point*, std::chrono::steady_clock::time_point>> running;
  std::size_t next = 0, done = 0;
  while (done < todo.size()) {
    while (next < todo.size() && static_cast<int>(running.size()) < workers) {
      const wf::Point* p = todo[next++];
      fs::remove_all(p->cfg.out_dir);
      const std::string log = (sw.out / "logs" / (p->name + ".log")).string();
      try {
        const auto pid = spawn({exe, "run", (sw.out / "points" / (p->name + ".toml")).string(), "--quiet"}, log);
        running[pid] = {p, std::chrono::steady_clock::now()};
      } catch (const UserError& e) {  // e.g. the binary is being rebuilt: fail this point only
        fs::create_directories(p->cfg.out_dir);
        wf::write_file(fs::path(p->cfg.out_dir) / ".exit_code", "127\n");
        wf::write_file(log, std::string(e.what()) + "\n");
        ++done;
        fmt::print("[{}/{}] {}: failed(127): {}\n", done, todo.size(), p->name, e.what());
      }
    }
    if (running.empty()) continue;
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    if (pid < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(fmt::format("waitpid: {}", std::strerror(errno)));
    }
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    const auto [p, t0] = it->second;
    running.erase(it);
    const int rc = exit_code_of(status);
    fs::create_directories(p->cfg.out_dir);
    wf::write_file(fs::path(p->cfg.out_dir) / ".exit_code", fmt::format("{}\n", rc));
    ++done;
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    fmt::print("[{}/{}] {}: {} ({:.1f} s){}\n", done, todo.size(), p->name, status_of(*p), secs,
               rc == 0 || rc == 3 ? "" : fmt::format(", see logs/{}.log", p->name));
    std::fflush(stdout);
  }
}

// Submits the pending points as one job array; with `wait`, returns when the array has finished.
void run_slurm(const wf::Sweep& sw, const std::vector<const wf::Point*>& todo, int workers,
               const std::vector<std::string>& extra, bool wait) {
  const fs::path dir = sw.out / "slurm";
  fs::create_directories(dir);
  std::string tasks;
  for (const auto* p : todo) {
    tasks += p->name + "\n";
    fs::remove_all(p->cfg.out_dir);
  }
  wf::write_file(dir / "tasks.txt", tasks);
  const std::string array = fmt::format("0-{}{}", todo.size() - 1, workers > 0 ? fmt::format("%{}", workers) : "");
  std::string job = fmt::format(
      "#!/bin/bash\n"
      "# Generated by `lbsim sweep --slurm`: one array task per pending grid point ({} tasks).\n"
      "#SBATCH --job-name=lbsim-{}\n"
      "#SBATCH --array={}\n"
      "#SBATCH --ntasks=1\n"
      "#SBATCH --cpus-per-task=1\n"
      "#SBATCH --output={}\n"
      "set -u\n"
      "OUT={}\n"
      "LBSIM={}\n"
      "name=$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" \"$OUT/slurm/tasks.txt\")\n"
      "dir=\"$OUT/runs/$name\"\n"
      "rm -rf \"$dir\"\n"
      "\"$LBSIM\" run \"$OUT/points/$name.toml\" --quiet > \"$OUT/logs/$name.log\" 2>&1\n"
      "rc=$?\n"
      "mkdir -p \"$dir\"\n"
      "echo $rc > \"$dir/.exit_code\"\n"
      "echo \"lbsim sweep task $SLURM_ARRAY_TASK_ID ($name): exit code $rc\"\n"
      "exit $rc\n",
      todo.size(), sw.spec.name, array, (sw.out / "logs" / "slurm-%A_%a.out").string(),
      shell_quote(sw.out.string()), shell_quote(self_exe()));
  wf::write_file(dir / "job.sh", job);
  fs::permissions(dir / "job.sh", fs::perms::owner_exec, fs::perm_options::add);
  std::vector<std::string> args{"sbatch"};
  if (wait) args.push_back("--wait");
  for (const auto& a : extra) args.push_back(a);
  args.push_back((dir / "job.sh").string());
  const std::string log = (dir / "sbatch.log").string();
  fmt::print("sbatch: submitting {} array task(s){}\n", todo.size(), wait ? " and waiting for them" : "");
  std::fflush(stdout);
  const int rc = wait_for(spawn(args, log));
  const std::string out = wf::read_text(log);
  const auto pos = out.find("Submitted batch job ");
  if (pos == std::string::npos)
    throw UserError(fmt::format("sbatch failed (exit code {}): {}", rc, out.empty() ? "(no output)" : out));
  const std::string id = out.substr(pos + 20, out.find_first_of("\r\n", pos) - pos - 20);
  fmt::print("sbatch: job {} {}\n", id, wait ? "finished" : "submitted");
}

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
};

int do_sweep_prepared(const wf::Sweep& sw, const SweepOptions& o) {
  if (o.dry_run) {
    fmt::print("{} point(s); output folder {}\n", sw.points.size(), sw.out.string());
    for (const auto& p : sw.points) fmt::print("{}\n", p.name);
    return 0;
  }
  wf::write_inputs(sw);
  const auto todo = wf::pending(sw);
  fmt::print("sweep {}: {} point(s), {} complete, {} {}; folder {}\n", sw.spec.name, sw.points.size(),
             sw.points.size() - todo.size(), todo.size(), o.collect ? "incomplete (--collect: not run)" : "to run",
             sw.out.string());
  std::fflush(stdout);
  if (!todo.empty() && !o.collect) {
    if (o.slurm) {
      std::vector<std::string> extra = sw.spec.sbatch;
      extra.insert(extra.end(), o.sbatch.begin(), o.sbatch.end());
      run_slurm(sw, todo, o.workers, extra, !o.no_wait);
      if (o.no_wait) {
        fmt::print("when the job has finished: lbsim sweep {} --collect{}\n", sw.spec.file,
                   o.out.empty() ? "" : " --out " + o.out);
        return 0;
      }
    } else {
      const int w = o.workers > 0 ? o.workers : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
      run_local(sw, todo, w);
    }
  }
  wf::write_file(sw.out / "results.csv", wf::results_csv(sw.spec, sw.points));
  fmt::print("{}", wf::results_table(sw.points));
  fmt::print("results: {}\n", (sw.out / "results.csv").string());
  return wf::sweep_exit_code(sw);
}

int do_sweep(const SweepOptions& o) {
  if (o.no_wait && !o.slurm) throw UserError("--no-wait only applies to --slurm");
  if (o.collect && o.slurm) throw UserError("use either --collect or --slurm");
  return do_sweep_prepared(wf::prepare(o.file, o.out), o);
}

// ---- plot -------------------------------------------------------------------------------------------

// The source tree (examples/ for reproduce): $LBSIM_SOURCE_DIR, one level above the executable (a
// build folder inside the source tree), or the tree this file was compiled from.
fs::path source_dir() {
  std::vector<fs::path> cand;
  if (const char* e = std::getenv("LBSIM_SOURCE_DIR")) cand.emplace_back(e);
  cand.push_back(fs::path(self_exe()).parent_path().parent_path());
#ifdef LBSIM_SOURCE_DIR
  cand.push_back(fs::path(LBSIM_SOURCE_DIR));
#endif
  cand.push_back(fs::path(__FILE__).parent_path().parent_path().parent_path());
  for (const auto& c : cand)
    if (fs::is_directory(c / "examples") && fs::is_directory(c / "src")) return c;
  return cand.back();
}

// tools/ is found, in order, at $LBSIM_TOOLS_DIR, next to the executable (installed layout), one
// level up (a build folder inside the source tree) and in the source tree this file was compiled
// from.
fs::path tools_dir() {
  std::vector<fs::path> cand;
  if (const char* e = std::getenv("LBSIM_TOOLS_DIR")) cand.emplace_back(e);
  const fs::path exe_dir = fs::path(self_exe()).parent_path();
  cand.push_back(exe_dir / "tools");
  cand.push_back(exe_dir.parent_path() / "tools");
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

int do_plot(const std::string& dir, const std::string& out) {
  if (!fs::is_directory(dir)) throw UserError(fmt::format("'{}' is not a folder", dir));
  std::vector<std::string> args{python(), (tools_dir() / "plot.py").string(), dir};
  if (!out.empty()) {
    args.push_back("--out");
    args.push_back(out);
  }
  return wait_for(spawn(args, ""));
}

// ---- reproduce --------------------------------------------------------------------------------------

struct ReproOptions {
  std::string name;
  bool list = false, quick = false, print = false, slurm = false, no_plot = false;
  int workers = 0;
  std::string out;
};

int do_reproduce(const ReproOptions& o) {
  const auto cat = wf::catalog();
  if (o.list || o.name.empty()) {
    fmt::print("{:<22} {:<34} {:<8} {:<8} {}\n", "name", "source", "full", "quick", "status");
    for (const auto& e : cat) {
      const auto miss = wf::missing_needs(e);
      std::string st = miss.empty() ? (e.full.empty() ? "not defined yet" : "ready") : "needs: ";
      for (std::size_t i = 0; i < miss.size(); ++i) st += (i ? ", " : "") + miss[i];
      fmt::print("{:<22} {:<34} {:<8} {:<8} {}\n", e.name, e.source, e.runtime_full, e.runtime_quick, st);
    }
    if (o.name.empty() && !o.list) return 2;
    return 0;
  }
  const auto it = std::find_if(cat.begin(), cat.end(), [&](const wf::Entry& e) { return e.name == o.name; });
  if (it == cat.end()) {
    std::string names;
    for (const auto& e : cat) names += (names.empty() ? "" : ", ") + e.name;
    throw UserError(fmt::format("unknown experiment '{}' (one of: {})", o.name, names));
  }
  const auto miss = wf::missing_needs(*it);
  if (!miss.empty()) {
    std::string m;
    for (const auto& x : miss) m += (m.empty() ? "" : ", ") + x;
    throw UserError(fmt::format("{} ({}) cannot run in this build: needs {}", it->name, it->source, m));
  }
  const std::string text = wf::sweep_text(*it, o.quick, source_dir());
  if (o.print) {
    std::cout << text;
    return 0;
  }
  const fs::path out = fs::absolute(!o.out.empty() ? o.out : "results/reproduce/" + it->name + (o.quick ? "-quick" : ""));
  fs::create_directories(out);
  const fs::path file = out / "sweep.toml";
  if (wf::read_text(file) != text) wf::write_file(file, text);
  for (const auto& [name, content] : it->files)
    if (wf::read_text(out / name) != content) wf::write_file(out / name, content);
  SweepOptions so;
  so.file = file.string();
  so.out = out.string();
  so.workers = o.workers;
  so.slurm = o.slurm;
  const int rc = do_sweep_prepared(wf::prepare(so.file, so.out), so);
  // Plot whatever completed (failed runs are left out of the plots and marked in results.csv).
  if (!o.no_plot) {
    const int prc = do_plot(out.string(), (out / "plots").string());
    if (prc != 0) fmt::print(stderr, "lbsim: plotting failed (exit code {}); the results are in {}\n", prc, out.string());
  }
  return rc;
}

}  // namespace

void add_workflow_commands(CLI::App& app, Commands& out) {
  auto so = std::make_shared<SweepOptions>();
  auto* sw = app.add_subcommand("sweep", "Run a grid of configs (a sweep file) in parallel or on Slurm; "
                                         "resumable; writes results.csv");
  sw->add_option("sweep", so->file, "Sweep file (TOML: base, [set], [grid], [[case]])")->required()->check(CLI::ExistingFile);
  sw->add_option("--out", so->out, "Output folder (default: the sweep's `out`, else results/sweeps/<name>)");
  sw->add_option("--workers", so->workers, "Parallel runs (default: number of cores; with --slurm: array throttle)")
      ->check(CLI::Range(1, 4096));
  sw->add_flag("--slurm", so->slurm, "Submit the pending runs as a Slurm job array (sbatch --wait), then gather");
  sw->add_flag("--no-wait", so->no_wait, "With --slurm: submit and return; gather later with --collect");
  sw->add_option("--sbatch", so->sbatch, "Extra sbatch argument, e.g. --sbatch=--partition=cpu (repeatable)")
      ->allow_extra_args(false);
  sw->add_flag("--collect", so->collect, "Run nothing: build results.csv from the run folders that exist");
  sw->add_flag("--dry-run", so->dry_run, "Check the sweep and print its points; run nothing");
  out.push_back({sw, [so] { return do_sweep(*so); }});

  auto pdir = std::make_shared<std::string>();
  auto pout = std::make_shared<std::string>();
  auto* pl = app.add_subcommand("plot", "Plot a run folder or a sweep folder (PNG and PDF) with tools/plot.py");
  pl->add_option("dir", *pdir, "Run folder (summary.json) or sweep folder (results.csv)")->required();
  pl->add_option("--out", *pout, "Folder for the plots (default: <dir>/plots)");
  out.push_back({pl, [pdir, pout] { return do_plot(*pdir, *pout); }});

  auto ro = std::make_shared<ReproOptions>();
  auto* rp = app.add_subcommand("reproduce", "Run one of the papers' experiments (sweep + plots); --list shows all");
  rp->add_option("name", ro->name, "Experiment name (see --list)");
  rp->add_flag("--list", ro->list, "List the experiments, their runtime and whether this build can run them");
  rp->add_flag("--quick", ro->quick, "Reduced scale (a few minutes)");
  rp->add_flag("--print", ro->print, "Print the experiment's sweep file and exit");
  rp->add_flag("--slurm", ro->slurm, "Run the sweep on Slurm (see lbsim sweep --slurm)");
  rp->add_flag("--no-plot", ro->no_plot, "Do not plot");
  rp->add_option("--workers", ro->workers, "Parallel runs (default: number of cores)")->check(CLI::Range(1, 4096));
  rp->add_option("--out", ro->out, "Output folder (default results/reproduce/<name>[-quick])");
  out.push_back({rp, [ro] { return do_reproduce(*ro); }});
}

}  // namespace lbsim::cli
