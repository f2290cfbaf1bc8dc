// What `lbsim reproduce` prints after the sweep of an entry: the figure's metric per scheme and
// setting, computed from the run folders and set beside the paper's values. The report is data,
// the [report] table of the entry's manifest (workflow/manifest.h, docs/workflow.md "[report]"):
// kind "table" is the generic machinery (metrics read from summary.json or flows.csv, mean
// [min..max] over the seeds, ratios to a reference scheme, a group's margin over the best other
// scheme, the paper's values by rule); the other kinds are bespoke computations a manifest selects
// by name (workflow/paper_reports.cpp).
#pragma once
#include <string>
#include <vector>

#include "workflow/sweep.h"

namespace lbsim::workflow {

// The paper's value beside ours: the first rule whose fields all match gives the value. An empty
// field matches anything, a trailing '*' matches a prefix ("spritz*"), anything else the whole text.
struct PaperRule {
  std::string setting, metric, scheme, value;
};

// One metric of a "table" report, a value per run.
struct MetricSpec {
  std::string label;                            // shown in the table; ratios and margins refer to it
  std::vector<std::vector<std::string>> terms;  // summary.json paths, summed ("trims + drops")
  std::string span_tags;                        // else: last finish - first start (flows.csv) of these tags
  bool has_missing = false;                     // a missing path counts as `missing` (else: no value)
  double missing = 0;
  double scale = 1, divide_by = 1;   // value * scale / divide_by
  std::vector<std::string> schemes;  // only runs of these schemes (patterns); empty: all
  std::string if_tag, unless_tag;    // only runs with / without this tag in fct_us_by_tag
  std::string if_key;                // only runs whose summary.json has this key
};

// A scheme's value of `metric` over `scheme`'s (the means over the seeds), per setting.
struct RatioSpec {
  std::string label, metric, scheme;
};

// Per seed: the best (lowest) value of the schemes outside `group` over each group scheme's value;
// the value of a run is its first of `metrics` that applies to it.
struct MarginSpec {
  std::string label, group_name, paper;
  std::vector<std::string> metrics, group;
};

struct ReportSpec {
  std::string kind;            // "" (nothing printed), "table", or a bespoke kind: "evs_size"
  std::string title;           // first line, before the seeds; "{name}" is the entry's name
  std::string setting = "{}";  // the setting's label; "{}" is case + other axes ("load {}")
  std::string legend;          // a bespoke block after the title: "laps" (the transport of each scheme)
  bool unfinished_notes = false;
  std::vector<MetricSpec> metrics;
  std::vector<RatioSpec> ratios;
  std::vector<MarginSpec> margins;
  std::vector<PaperRule> paper;
  std::vector<std::string> notes;  // lines printed last
};

// The kinds a manifest may name.
const std::vector<std::string>& report_kinds();

// The report of a finished sweep (empty when the kind is ""). Runs that did not complete are left
// out and counted.
std::string run_report(const Sweep& sw, const ReportSpec& spec);

// The first rule of `rules` matching (setting, metric, scheme), else "".
std::string paper_value(const std::vector<PaperRule>& rules, const std::string& setting, const std::string& metric,
                        const std::string& scheme);

// ---- bespoke kinds and blocks (paper_reports.cpp) -----------------------------------------------

// "evs_size": [REPS] sec. 4.5.2, Fig. 15 (left): max FCT per load balancer and network.ev_bits,
// relative to the largest EVS of the same load balancer and seed (paper rules: setting = ev_bits,
// scheme = lb.algorithm).
std::string evs_size_report(const Sweep& sw, const ReportSpec& spec);

// legend = "laps": one line per scheme naming its routing, load balancer, congestion control, loss
// recovery and window ([LAPS] sec. 4.2, docs/laps.md "Transport per scheme").
std::string laps_legend(const Sweep& sw);

// The mean, least and largest of a report cell's values (all 0 for none).
struct Range {
  double mean = 0, min = 0, max = 0;
};
Range range(const std::vector<double>& v);

}  // namespace lbsim::workflow
