// Sweep files (`lbsim sweep`): parsing, validation and grid expansion, run-folder bookkeeping and
// the results table. The child processes that run the points are in runner.h.
//
// A sweep file is TOML:
//   name = "ecmp_vs_ops"            # optional, default: the file's stem
//   base = "../demo.toml"           # optional base config, relative to the sweep file
//   out  = "results/sweeps/x"       # optional default output folder (relative to the working dir)
//   sbatch = ["--time=01:00:00"]    # optional extra sbatch arguments for --slurm
//   [set]                           # fixed overrides, any config key
//   "workload.size" = "64KiB"
//   [grid]                          # one run per combination (cartesian product, in file order)
//   "lb.algorithm" = ["ecmp", "ops"]
//   "run.seed" = [1, 2, 3]
//   scheme = [{name = "min", "routing.algorithm" = "minimal", "lb.algorithm" = "ecmp"},
//             {name = "ops", "lb.algorithm" = "ops"}]   # a named axis: keys set together
//   [[case]]                        # optional named cases (crossed with the grid)
//   name = "tornado"
//   "workload.kind" = "tornado"
// Every key is checked against the config key table (config::keys) and every value is applied
// with config::apply_override before anything runs; errors name the sweep file, line and key.
//
// A sweep's output folder holds points/NAME.toml (each point's resolved config), runs/NAME/ (the run
// folders, plus the `.exit_code` the sweep recorded), logs/NAME.log, sweep.json and results.csv.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "config/reader.h"

namespace lbsim::workflow {

struct Assignment {
  std::string key;    // "section.name"
  std::string value;  // TOML text of the value, as apply_override takes it
  std::string label;  // the value as shown in folder names and results.csv
  int line = 0;
  std::string file;  // the file it came from, when not the sweep file (a reproduce manifest)
};

// One value of a grid axis: a single key's value, or (named axis) a bundle of keys with a name.
struct AxisValue {
  std::string label;
  std::vector<Assignment> sets;
  int line = 0;
};

struct Axis {
  std::string key;  // a config key, or the column name of a named axis (e.g. "scheme")
  std::vector<AxisValue> values;
  int line = 0;
};

struct Case {
  std::string name;
  std::vector<Assignment> sets;
  int line = 0;
};

struct SweepSpec {
  std::string file;  // the sweep file as given
  std::string name;
  std::string base;  // absolute path of the base config, or empty (defaults)
  std::string out;   // default output folder, or empty
  std::vector<std::string> sbatch;
  std::vector<Assignment> sets;
  std::vector<Case> cases;
  std::vector<Axis> axes;
};

struct Point {
  std::string name;                 // run folder name under runs/
  std::string case_name;            // empty without [[case]]
  std::vector<std::string> labels;  // one per axis
  config::Config cfg;               // resolved config (output.dir = the run folder)
};

// A sweep ready to run: its spec, its output folder (absolute) and every point.
struct Sweep {
  SweepSpec spec;
  std::filesystem::path out;
  std::vector<Point> points;
};

// The summary columns of results.csv, after the swept columns. `wall_s` and `peak_rss_mb` are
// wall-clock measurements; every other column is deterministic for a given config and seed.
const std::vector<std::string>& metric_columns();
bool nondeterministic_column(const std::string& c);

// Parse and check a sweep file (keys and value types; values are checked by expand()).
SweepSpec parse_sweep_text(const std::string& text, const std::string& file);
SweepSpec parse_sweep_file(const std::string& file);

// Every grid point (cases outermost, then the axes in file order, the last axis fastest), each
// resolved and validated. `out` is the sweep's output folder (absolute).
std::vector<Point> expand(const SweepSpec& s, const std::string& out);

// Parses and expands `file` into its output folder: `out` when given, else the sweep's `out`,
// else results/sweeps/<name> (relative to the working folder).
Sweep prepare(const std::string& file, const std::string& out);

// ---- run folders ----------------------------------------------------------------------------------

// The whole file, or "" when it cannot be read (a missing file is a normal state of a run folder).
std::string read_text(const std::filesystem::path& p);
// Replaces the file's content; throws UserError when it cannot be opened.
void write_file(const std::filesystem::path& p, const std::string& text);

// Creates points/, runs/ and logs/, writes each point's resolved config to points/NAME.toml (only
// when it changed, so resumed sweeps keep their timestamps) and sweep.json.
void write_inputs(const Sweep& sw);

// The exit code a sweep recorded for a run (file `.exit_code` in the run folder), or -1.
int recorded_exit_code(const std::filesystem::path& run_dir);
// The status word of a run that did not complete with exit code `rc` (results.csv "status"):
// `killed(SIGKILL)` for a process ended by a signal other than SIGINT (recorded as 128 + the
// signal; `lbsim run` itself never exits above 130), `failed(RC)` otherwise.
std::string failed_status(int rc);
// The signal's name ("SIGKILL"), or "signal N".
std::string signal_name(int sig);

// A run is complete when its process ended with 0 or 3 (unfinished flows are a result), its
// summary.json is there and its resolved config.toml is exactly the point's config.
bool run_complete(const Point& p);

// The points that are not complete, in point order.
std::vector<const Point*> pending(const Sweep& sw);

// ---- results table --------------------------------------------------------------------------------

// One row of metrics (metric_columns order) for a run folder; `status` is ok / unfinished /
// failed(rc) / missing / corrupt.
std::vector<std::string> metrics_row(const Point& p);

// results.csv's header: run, case (with [[case]]), one column per axis, the metrics, dir.
std::vector<std::string> header(const SweepSpec& s);

// results.csv: one row per point, in point order.
std::string results_csv(const SweepSpec& s, const std::vector<Point>& points);

// The short table `lbsim sweep` prints when it is done: one line per point.
std::string results_table(const std::vector<Point>& points);

// sweep.json: what the plotting tool needs to group runs (swept keys, cases, point names).
std::string manifest_json(const SweepSpec& s, const std::vector<Point>& points);

// The sweep's exit code from its runs: 2 / 70 when a run failed (bad input / anything else), 3
// when a run has unfinished flows or is missing, else 0.
int sweep_exit_code(const Sweep& sw);

}  // namespace lbsim::workflow
