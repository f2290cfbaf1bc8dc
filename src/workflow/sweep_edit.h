// Changing a parsed sweep before it runs, and writing it back as a sweep file: the overrides of a
// reproduce manifest (workflow/manifest.h), `--seeds N` and `--set key=value` of `lbsim reproduce`
// and `lbsim sweep`. Every change keeps the file, line and key of what it came from for errors.
#pragma once
#include <string>
#include <vector>

#include "workflow/sweep.h"

namespace lbsim::workflow {

// Keys replaced or added (in place, or last) and keys removed, in [set], a case or a named axis value.
struct Patch {
  std::string axis, name;  // the named axis and its value, or the case ([set]: both empty)
  int line = 0;
  std::vector<Assignment> sets;
  std::vector<std::string> unset;
};

// What a manifest changes in its sweep (docs/workflow.md "Manifest keys"), at both scales or at --quick.
struct Overrides {
  std::string file;  // the manifest, for errors
  std::string base;  // a base config instead of the sweep's (absolute); empty: the sweep's
  Patch set;
  std::vector<Axis> grid;              // an axis of the same key is replaced in place; others are added last
  std::vector<std::string> drop_axes;  // these axes are not swept
  int drop_axes_line = 0;
  bool keep_cases = false;  // only the [[case]]s named in `cases`, in the sweep's order
  std::vector<std::string> cases;
  int cases_line = 0;
  std::vector<Patch> case_patches, axis_patches;
};

// Applies the overrides; an axis, case, axis value or key to remove that the sweep does not have is
// an error naming the manifest's line.
void apply_overrides(SweepSpec& s, const Overrides& o);

// `--seeds N`: every point over run.seed = 1..N (a first grid axis). Refused when the sweep sets or
// sweeps run.seed itself.
void add_seed_axis(SweepSpec& s, int n);

// `--set section.key=value` (repeatable): a key for every point. A key of [set] takes the new value,
// any other key is added to [set]; a key that a case or a grid axis sets is refused (those values
// are what the sweep compares). A relative path is taken relative to the working folder.
void set_for_every_point(SweepSpec& s, const std::vector<std::string>& sets);

// The sweep as a sweep file that parses back to the same points (paths absolute). `header` lines
// are written first as comments.
std::string sweep_to_toml(const SweepSpec& s, const std::vector<std::string>& header);

}  // namespace lbsim::workflow
