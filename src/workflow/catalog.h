// `lbsim reproduce`: the papers' experiments as sweeps (docs/workflow.md lists every entry).
// Each entry generates a self-contained sweep file (no base config) at full scale (the paper's
// parameters) or reduced (--quick). An entry that needs a mechanism not in this build (a load
// balancer or routing name absent from the config key table, or a feature with no config key yet)
// reports "needs: ..." and refuses to run.
#pragma once
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "workflow/sweep.h"

namespace lbsim::workflow {

struct Need {
  std::string key;    // a config key (or key prefix when `value` is empty)
  std::string value;  // a value that must be among the key's choices; empty = the key must exist
  std::string label;  // shown to the user
};

struct Entry {
  std::string name;
  std::string source;  // paper and figure
  std::string what;
  std::vector<Need> needs;
  std::string full;                                        // sweep TOML at the paper's scale (empty: not defined)
  std::string quick;                                       // sweep TOML at a reduced scale
  std::string runtime_full, runtime_quick;                 // wall time with 2 workers (measured or estimated)
  std::vector<std::pair<std::string, std::string>> files;  // written next to the sweep file
  // A base config from the source tree (e.g. examples/spritz/motivational.toml): the sweep text
  // holds "@BASE@", replaced by its absolute path when the entry runs.
  std::string base = {};
  // An analysis entry (no packets, e.g. the [REPS] balls-into-bins models) runs the lbsim
  // subcommand `command` (`command_quick` with --quick) with `--out DIR` instead of a sweep, then
  // plots DIR; `full` and `quick` stay empty.
  std::vector<std::string> command = {}, command_quick = {};
  // Printed after a sweep entry has run: the figure's metric next to the paper's statement.
  std::function<std::string(const Sweep&)> report = {};
};

// The labels of the entry's needs that this build does not meet (empty: it can run).
std::vector<std::string> missing_needs(const Entry& e);

// The catalogue, in display order. Scheme names are this build's (docs/config.md); an entry whose
// routing, load balancer or config keys are absent reports "needs: ..." and does not run.
std::vector<Entry> catalog();

// The entry's sweep file (full scale or --quick). An entry with a base config gets "@BASE@" and
// "@BASEDIR@" replaced by the base file and its folder under `source_dir` (the lbsim source tree).
// Throws UserError when the base config is not there or the entry defines no sweep.
std::string sweep_text(const Entry& e, bool quick, const std::filesystem::path& source_dir);

}  // namespace lbsim::workflow
