// The papers' experiments as data: `lbsim reproduce` reads one manifest per entry, a TOML file in a
// folder named `reproduce` under examples/ (examples/<paper>/reproduce/<entry>.toml; docs/workflow.md
// "Reproduction manifests" lists every key). A manifest names its sweep file (the full scale, a
// plain `lbsim sweep` file) or an lbsim analysis subcommand, says what --quick changes, what is
// printed after the run (workflow/reports.h) and how long both scales take. `extends` starts from
// another manifest (its sweep, changes and report) and adds its own changes.
//
// An entry whose sweep, base config or changes use a config key or a choice (a routing or load
// balancer name) that this build does not have reports "needs: ..." and refuses to run; anything
// else wrong in a manifest is an error naming the file, the line and the key.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include "workflow/reports.h"
#include "workflow/sweep.h"
#include "workflow/sweep_edit.h"

namespace lbsim::workflow {

// One manifest's changes to its sweep: `all` at both scales, `quick` with --quick.
struct Layer {
  std::string file;
  Overrides all, quick;
};

struct Entry {
  std::string file;  // the manifest
  std::string name, paper, figure, section, description;
  std::string sweep;                  // the sweep file (absolute); empty for an analysis entry
  std::vector<std::string> analysis;  // an analysis entry's lbsim subcommand, e.g. {"balls", "evs"}
  // Wall time in seconds with --workers 2, without the plots (scripts/reproduce_times.sh measures
  // them); estimated: not measured (shown with "~").
  double quick_s = 0, full_s = 0;
  bool quick_estimated = false, full_estimated = false;
  ReportSpec report;
  std::vector<Layer> layers;             // the `extends` chain, the root first, this manifest last
  std::vector<std::string> needs;        // what this build lacks ("lb.algorithm = reps", a key); empty: it can run
  std::vector<std::string> needs_where;  // per need: "file:line: key '...': why"

  std::string source() const;  // "[REPS] Fig. 3"
};

// Reads one manifest (and the manifests it extends). Throws UserError (file:line: key ...).
Entry load_entry(const std::string& file);

// Every manifest under `examples` (the *.toml files of folders named `reproduce`, at any depth),
// in natural order of the entry names. Two manifests with the same name are an error.
std::vector<Entry> discover(const std::filesystem::path& examples);

// The entry's sweep at full scale or --quick: the sweep file with the layers' changes, named after
// the entry. Throws UserError when the entry has needs or is an analysis.
SweepSpec entry_sweep(const Entry& e, bool quick);

// An analysis entry's arguments after `lbsim`: the subcommand and `--set key=value` per [set] key.
std::vector<std::string> analysis_args(const Entry& e, bool quick);

// "12 s", "5.5 min", "~3 h" (estimated); below a second "<1 s".
std::string format_duration(double seconds, bool estimated);

}  // namespace lbsim::workflow
