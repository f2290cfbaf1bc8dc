// The generic report of `lbsim reproduce` (kind "table", reports.h): per setting and metric, one
// line per scheme with the mean [min..max] over the seeds and the paper's value.
#include "workflow/reports.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <tuple>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "core/error.h"

namespace lbsim::workflow {

Range range(const std::vector<double>& v) {
  Range r;
  if (v.empty()) return r;
  for (double x : v) r.mean += x;
  r.mean /= static_cast<double>(v.size());
  r.min = *std::min_element(v.begin(), v.end());
  r.max = *std::max_element(v.begin(), v.end());
  return r;
}

namespace {

namespace fs = std::filesystem;

bool matches(const std::string& pattern, const std::string& text) {
  if (pattern.empty()) return true;
  if (pattern.back() == '*') return text.rfind(pattern.substr(0, pattern.size() - 1), 0) == 0;
  return pattern == text;
}

bool matches_any(const std::vector<std::string>& patterns, const std::string& text) {
  for (const auto& p : patterns)
    if (matches(p, text)) return true;
  return false;
}

// One completed run: its scheme (the `scheme` axis, else lb.algorithm), setting (case and the other
// axes but run.seed), seed and summary.json.
struct Run {
  std::string scheme, setting;
  std::int64_t seed = 0;
  nlohmann::json summary;
  fs::path dir;
};

std::vector<Run> completed_runs(const Sweep& sw, int& skipped) {
  std::vector<Run> out;
  skipped = 0;
  for (const auto& p : sw.points) {
    Run r;
    r.scheme = p.cfg.text("lb.algorithm");
    r.setting = p.case_name;
    for (std::size_t i = 0; i < sw.spec.axes.size() && i < p.labels.size(); ++i) {
      const auto& key = sw.spec.axes[i].key;
      if (key == "scheme")
        r.scheme = p.labels[i];
      else if (key != "run.seed")
        r.setting += (r.setting.empty() ? "" : "/") + p.labels[i];
    }
    r.seed = p.cfg.integer("run.seed");
    const auto row = metrics_row(p);
    if (row[0] != "ok" && row[0] != "unfinished") {
      ++skipped;
      continue;
    }
    r.dir = p.cfg.text("output.dir");
    try {
      r.summary = nlohmann::json::parse(read_text(r.dir / "summary.json"));
    } catch (const std::exception&) {
      ++skipped;
      continue;
    }
    out.push_back(std::move(r));
  }
  return out;
}

// A number at a summary.json path, or `fallback` when it is missing or not a number.
double at_path(const nlohmann::json& j, const std::vector<std::string>& path, double fallback) {
  const nlohmann::json* cur = &j;
  for (const auto& k : path) {
    if (!cur->is_object() || !cur->contains(k)) return fallback;
    cur = &(*cur)[k];
  }
  return cur->is_number() ? cur->get<double>() : fallback;
}

bool has_tag(const Run& r, const std::string& tag) {
  return r.summary.contains("fct_us_by_tag") && r.summary["fct_us_by_tag"].contains(tag);
}

// From flows.csv: last finish - first start over the transfers whose tag matches (-1 when one of
// them did not finish or none matched).
double span_us(const Run& r, const std::string& tags) {
  std::istringstream in(read_text(r.dir / "flows.csv"));
  std::string line;
  if (!std::getline(in, line)) return -1;
  std::vector<std::string> cols;
  {
    std::istringstream h(line);
    std::string c;
    while (std::getline(h, c, ',')) cols.push_back(c);
  }
  const auto col = [&](const char* n) {
    return static_cast<std::size_t>(std::find(cols.begin(), cols.end(), n) - cols.begin());
  };
  const std::size_t tag = col("tag"), kind = col("kind"), start = col("start_us"), finish = col("finish_us");
  if (std::max({tag, kind, start, finish}) >= cols.size()) return -1;
  double first = 1e300, last = -1;
  bool any = false;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::istringstream l(line);
    std::string c;
    while (std::getline(l, c, ',')) f.push_back(c);
    if (f.size() < cols.size() || f[kind] != "transfer" || !matches(tags, f[tag])) continue;
    const double s = std::stod(f[start]), e = std::stod(f[finish]);
    if (e < 0) return -1;
    any = true;
    first = std::min(first, s);
    last = std::max(last, e);
  }
  return any ? last - first : -1;
}

bool applies(const MetricSpec& m, const Run& r) {
  if (!m.schemes.empty() && !matches_any(m.schemes, r.scheme)) return false;
  if (!m.if_tag.empty() && !has_tag(r, m.if_tag)) return false;
  if (!m.unless_tag.empty() && has_tag(r, m.unless_tag)) return false;
  if (!m.if_key.empty() && !r.summary.contains(m.if_key)) return false;
  return true;
}

// The metric's value for the run; negative: no value.
double value_of(const MetricSpec& m, const Run& r) {
  if (!m.span_tags.empty()) return span_us(r, m.span_tags);
  double sum = 0;
  for (const auto& path : m.terms) {
    const double x = at_path(r.summary, path, m.has_missing ? m.missing : -1);
    if (x < 0) return -1;
    sum += x;
  }
  return sum * m.scale / m.divide_by;
}

// Values per (setting, metric, scheme) over the seeds; settings, schemes and metrics in first-seen
// order (a metric is seen even where a run had no value for it).
struct Table {
  std::vector<std::string> settings, schemes, metrics;
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<double>> v;
  void add(const std::string& setting, const std::string& metric, const std::string& scheme, double x) {
    if (std::find(settings.begin(), settings.end(), setting) == settings.end()) settings.push_back(setting);
    if (std::find(schemes.begin(), schemes.end(), scheme) == schemes.end()) schemes.push_back(scheme);
    if (std::find(metrics.begin(), metrics.end(), metric) == metrics.end()) metrics.push_back(metric);
    if (x >= 0) v[{setting, metric, scheme}].push_back(x);
  }
  const std::vector<double>* get(const std::string& s, const std::string& m, const std::string& sc) const {
    const auto it = v.find({s, m, sc});
    return it == v.end() ? nullptr : &it->second;
  }
};

std::string cell(const std::vector<double>* v, int prec = 1) {
  if (!v || v->empty()) return "-";
  const auto r = range(*v);
  if (v->size() == 1) return fmt::format("{:.{}f}", r.mean, prec);
  return fmt::format("{:.{}f} [{:.{}f}..{:.{}f}]", r.mean, prec, r.min, prec, r.max, prec);
}

std::string render(const Table& t, const std::vector<PaperRule>& paper) {
  std::string s;
  for (const auto& setting : t.settings)
    for (const auto& m : t.metrics) {
      bool any = false;
      for (const auto& sc : t.schemes) any = any || t.get(setting, m, sc);
      if (!any) continue;
      s += fmt::format("{}{}\n", setting.empty() ? "" : setting + ": ", m);
      for (const auto& sc : t.schemes) {
        const auto* v = t.get(setting, m, sc);
        if (!v) continue;
        const auto pv = paper_value(paper, setting, m, sc);
        s += fmt::format("  {:<10} {:>30}{}\n", sc, cell(v), pv.empty() ? "" : "   paper: " + pv);
      }
    }
  return s;
}

std::string seeds_line(const std::vector<Run>& runs, int skipped) {
  std::vector<std::int64_t> seeds;
  for (const auto& r : runs)
    if (std::find(seeds.begin(), seeds.end(), r.seed) == seeds.end()) seeds.push_back(r.seed);
  return fmt::format("{} seed(s); mean [min..max] over the seeds{}\n", seeds.size(),
                     skipped ? fmt::format("; {} run(s) not completed are left out", skipped) : "");
}

std::string setting_label(const std::string& format, const std::string& setting) {
  std::string s = format;
  const auto at = s.find("{}");
  if (at != std::string::npos) s.replace(at, 2, setting);
  return s;
}

// The margin of each group scheme (per setting, over the seeds): the best value of the schemes
// outside the group over the group scheme's value, per seed; > 1: the group scheme is faster.
std::string margins(const Table& t, const std::vector<Run>& runs, const std::vector<std::string>& settings,
                    const std::vector<std::map<std::string, double>>& values, const MarginSpec& m) {
  std::string s;
  std::map<std::tuple<std::string, std::int64_t, std::string>, double> at;
  std::vector<std::int64_t> seeds;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& r = runs[i];
    for (const auto& label : m.metrics) {
      const auto it = values[i].find(label);
      if (it == values[i].end()) continue;
      if (it->second > 0) at[{settings[i], r.seed, r.scheme}] = it->second;
      break;
    }
    if (std::find(seeds.begin(), seeds.end(), r.seed) == seeds.end()) seeds.push_back(r.seed);
  }
  for (const auto& setting : t.settings)
    for (const auto& sc : t.schemes) {
      if (!matches_any(m.group, sc)) continue;
      std::vector<double> ratio;
      std::map<std::string, int> next_best;
      for (const auto seed : seeds) {
        const auto mine = at.find({setting, seed, sc});
        if (mine == at.end()) continue;
        double best = -1;
        std::string who;
        for (const auto& other : t.schemes) {
          if (matches_any(m.group, other)) continue;
          const auto it = at.find({setting, seed, other});
          if (it != at.end() && (best < 0 || it->second < best)) best = it->second, who = other;
        }
        if (best < 0) continue;
        ratio.push_back(best / mine->second);
        ++next_best[who];
      }
      if (ratio.empty()) continue;
      std::string nb;
      for (const auto& [k, n] : next_best) nb += (nb.empty() ? "" : ", ") + fmt::format("{} x{}", k, n);
      s += fmt::format("  {:<28} {:<10} {:>24}x   (next best: {})\n", setting, sc, cell(&ratio, 2), nb);
    }
  if (s.empty()) return s;
  return fmt::format("{} of the best non-{} scheme / {} scheme, per seed (> 1: {} faster); paper: {}\n", m.label,
                     m.group_name, m.group_name, m.group_name, m.paper) +
         s;
}

std::string table_report(const Sweep& sw, const ReportSpec& spec) {
  int skipped = 0;
  const auto runs = completed_runs(sw, skipped);
  Table t;
  std::vector<std::string> settings;                  // per run, as shown
  std::vector<std::map<std::string, double>> values;  // per run: metric -> value, for the metrics that apply
  for (const auto& r : runs) {
    settings.push_back(setting_label(spec.setting, r.setting));
    values.emplace_back();
    for (const auto& m : spec.metrics) {
      if (!applies(m, r)) continue;
      const double x = value_of(m, r);
      t.add(settings.back(), m.label, r.scheme, x);
      values.back()[m.label] = x;
    }
  }
  for (const auto& ratio : spec.ratios)
    for (const auto& setting : std::vector<std::string>(t.settings)) {
      const auto* ref = t.get(setting, ratio.metric, ratio.scheme);
      if (!ref || ref->empty()) continue;
      const double l = range(*ref).mean;
      for (const auto& sc : std::vector<std::string>(t.schemes)) {
        const auto* v = t.get(setting, ratio.metric, sc);
        if (v && !v->empty() && l > 0) t.add(setting, ratio.label, sc, range(*v).mean / l);
      }
    }
  std::string title = spec.title;
  for (auto at = title.find("{name}"); at != std::string::npos; at = title.find("{name}", at + sw.spec.name.size()))
    title.replace(at, 6, sw.spec.name);
  std::string s = title + seeds_line(runs, skipped);
  if (spec.legend == "laps") s += laps_legend(sw);
  // A run cut off with flows in progress (run.end_us / watchdog) keeps its row; its FCTs cover the
  // flows that completed, so the report names it.
  if (spec.unfinished_notes)
    for (const auto& r : runs)
      if (at_path(r.summary, {"unfinished"}, 0) > 0)
        s += fmt::format("note: {} seed {} {}: {} flow(s) unfinished, its FCTs cover the completed flows only\n",
                         r.scheme, r.seed, r.setting, at_path(r.summary, {"unfinished"}, 0));
  s += render(t, spec.paper);
  for (const auto& m : spec.margins) s += margins(t, runs, settings, values, m);
  for (const auto& n : spec.notes) s += n + "\n";
  return s;
}

}  // namespace

const std::vector<std::string>& report_kinds() {
  static const std::vector<std::string> kinds{"table", "evs_size"};
  return kinds;
}

std::string paper_value(const std::vector<PaperRule>& rules, const std::string& setting, const std::string& metric,
                        const std::string& scheme) {
  for (const auto& r : rules)
    if (matches(r.setting, setting) && matches(r.metric, metric) && matches(r.scheme, scheme)) return r.value;
  return "";
}

std::string run_report(const Sweep& sw, const ReportSpec& spec) {
  if (spec.kind.empty()) return "";
  if (spec.kind == "table") return table_report(sw, spec);
  if (spec.kind == "evs_size") return evs_size_report(sw, spec);
  throw UserError(fmt::format("unknown report kind '{}'", spec.kind));
}

}  // namespace lbsim::workflow
