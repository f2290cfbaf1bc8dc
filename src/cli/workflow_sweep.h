// Sweep files (`lbsim sweep`): parsing, validation and grid expansion, run-folder bookkeeping and
// the results table. Header-only (src/cli has no library) so tests/workflow can use it directly;
// the process handling (local workers, Slurm) lives in cmd_workflow.cpp.
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
// Every key is checked against the config key table (sim::config_keys) and every value is applied
// with config::apply_override before anything runs; errors name the sweep file, line and key.
#pragma once
#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "core/error.h"
#include "config/reader.h"

namespace lbsim::cli::wf {

namespace fs = std::filesystem;

struct Assignment {
  std::string key;    // "section.name"
  std::string value;  // TOML text of the value, as apply_override takes it
  std::string label;  // the value as shown in folder names and results.csv
  int line = 0;
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
  config::Config cfg;                  // resolved config (out_dir = the run folder)
};

// The summary columns of results.csv, after the swept columns. `wall_s` and `peak_rss_mb` are
// wall-clock measurements; every other column is deterministic for a given config and seed.
inline const std::vector<std::string>& metric_columns() {
  static const std::vector<std::string> cols{
      "status",      "completed",     "unfinished",  "transfers",   "max_fct_us", "p99_fct_us",
      "p50_fct_us",  "mean_fct_us",   "mean_slowdown", "p99_slowdown", "max_slowdown", "drops",
      "failure_drops", "trims",       "ecn_marks",   "nacks",       "retransmits", "timeouts",
      "ooo_pct",     "events",        "sim_time_us", "wall_s",      "peak_rss_mb"};
  return cols;
}
inline bool nondeterministic_column(const std::string& c) { return c == "wall_s" || c == "peak_rss_mb"; }

namespace detail {

inline int line_of(const toml::node& n) { return static_cast<int>(n.source().begin.line); }

inline std::string loc(const std::string& file, int line) {
  return line > 0 ? fmt::format("{}:{}", file, line) : file;
}

// Keys that hold a path relative to the config file (resolved against the file they came from).
inline bool is_path_key(const std::string& key, const std::string& value) {
  for (const auto& d : config::keys())
    if (d.key == key && d.path) return true;
  // workload.cdf is a built-in name or a file (same rule as the simulation: '/' or '.').
  return key == "workload.cdf" && value.find_first_of("/.") != std::string::npos;
}

inline std::string sanitize(const std::string& s) {
  std::string out;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '-' || c == '+';
    out += ok ? c : '_';
  }
  return out.empty() ? "_" : out;
}

// A TOML scalar -> (override text, label). Paths are made absolute relative to `dir`.
inline Assignment to_assignment(const std::string& file, const std::string& key, const toml::node& n,
                                const fs::path& dir) {
  Assignment a;
  a.key = key;
  a.line = line_of(n);
  if (const auto* s = n.as_string()) {
    std::string v = s->get();
    if (is_path_key(key, v) && !v.empty() && fs::path(v).is_relative()) v = (dir / v).lexically_normal().string();
    std::ostringstream os;
    os << toml::value<std::string>(v);
    a.value = os.str();
    a.label = is_path_key(key, v) ? fs::path(v).stem().string() : v;
  } else if (const auto* i = n.as_integer()) {
    a.value = a.label = std::to_string(i->get());
  } else if (const auto* f = n.as_floating_point()) {
    a.value = fmt::format("{}", f->get());
    if (a.value.find_first_of(".eEin") == std::string::npos) a.value += ".0";
    a.label = fmt::format("{}", f->get());
  } else if (const auto* b = n.as_boolean()) {
    a.value = a.label = b->get() ? "true" : "false";
  } else {
    throw UserError(fmt::format("{}: key '{}': expected a string, number or boolean value", loc(file, a.line), key));
  }
  return a;
}

// Apply one assignment; errors are re-thrown with the sweep file's line.
inline void apply(config::Config& cfg, const std::string& file, const Assignment& a) {
  bool known = false;
  for (const auto& d : config::keys()) known = known || d.key == a.key;
  if (!known)
    throw UserError(fmt::format("{}: unknown key '{}' (did you mean '{}'?)", loc(file, a.line), a.key,
                                config::closest_key(a.key)));
  try {
    config::apply_override(cfg, a.key + "=" + a.value);
  } catch (const UserError& e) {
    std::string msg = e.what();
    if (msg.rfind("--set: ", 0) == 0) msg = msg.substr(7);
    throw UserError(fmt::format("{}: {}", loc(file, a.line), msg));
  }
}

inline void check_key(const std::string& file, const std::string& key, int line) {
  bool known = false;
  for (const auto& d : config::keys()) known = known || d.key == key;
  if (!known)
    throw UserError(fmt::format("{}: unknown key '{}' (did you mean '{}'?)", loc(file, line), key,
                                config::closest_key(key)));
}

inline std::vector<Assignment> read_sets(const std::string& file, const toml::table& t, const fs::path& dir,
                                         const std::vector<std::string>& skip) {
  std::vector<Assignment> out;
  for (const auto& [k, v] : t) {
    const std::string key(k.str());
    if (std::find(skip.begin(), skip.end(), key) != skip.end()) continue;
    check_key(file, key, line_of(v));
    out.push_back(to_assignment(file, key, v, dir));
  }
  return out;
}

}  // namespace detail

// Parse and check a sweep file (keys and value types; values are checked by expand()).
inline SweepSpec parse_sweep_text(const std::string& text, const std::string& file) {
  using detail::line_of;
  using detail::loc;
  toml::table root;
  try {
    root = toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    throw UserError(fmt::format("{}:{}:{}: TOML syntax error: {}", file, e.source().begin.line,
                                e.source().begin.column, e.description()));
  }
  const fs::path dir = fs::absolute(fs::path(file)).parent_path();
  SweepSpec s;
  s.file = file;
  s.name = fs::path(file).stem().string();
  for (const auto& [k, v] : root) {
    const std::string key(k.str());
    const std::string where = loc(file, line_of(v));
    const auto need_string = [&]() -> std::string {
      if (!v.is_string()) throw UserError(fmt::format("{}: key '{}': expected a string", where, key));
      return v.as_string()->get();
    };
    if (key == "name") {
      s.name = need_string();
      if (s.name.empty() || detail::sanitize(s.name) != s.name)
        throw UserError(fmt::format("{}: key 'name': use letters, digits, '.', '-', '+' only", where));
    } else if (key == "base") {
      const std::string b = need_string();
      const fs::path p = fs::path(b).is_relative() ? dir / b : fs::path(b);
      if (!fs::is_regular_file(p))
        throw UserError(fmt::format("{}: key 'base': config file '{}' not found", where, p.string()));
      s.base = p.lexically_normal().string();
    } else if (key == "out") {
      s.out = need_string();
    } else if (key == "sbatch") {
      if (!v.is_array()) throw UserError(fmt::format("{}: key 'sbatch': expected an array of strings", where));
      for (const auto& e : *v.as_array()) {
        if (!e.is_string()) throw UserError(fmt::format("{}: key 'sbatch': expected an array of strings", where));
        s.sbatch.push_back(e.as_string()->get());
      }
    } else if (key == "set") {
      if (!v.is_table()) throw UserError(fmt::format("{}: 'set' must be a table: [set]", where));
      s.sets = detail::read_sets(file, *v.as_table(), dir, {});
    } else if (key == "grid") {
      if (!v.is_table()) throw UserError(fmt::format("{}: 'grid' must be a table: [grid]", where));
      for (const auto& [gk, gv] : *v.as_table()) {
        Axis ax;
        ax.key = std::string(gk.str());
        ax.line = line_of(gv);
        if (!gv.is_array() || gv.as_array()->empty())
          throw UserError(fmt::format("{}: grid key '{}': expected a non-empty array of values",
                                      loc(file, ax.line), ax.key));
        // A named axis: an array of tables, each a name plus config keys set together, e.g.
        // scheme = [{name = "ecmp", "lb.algorithm" = "ecmp", "routing.algorithm" = "ecmp"}, ...]
        const bool named = gv.as_array()->is_array_of_tables();
        if (!named) detail::check_key(file, ax.key, ax.line);
        if (named && detail::sanitize(ax.key) != ax.key)
          throw UserError(fmt::format("{}: grid axis name '{}': use letters, digits, '.', '-', '+' only",
                                      loc(file, ax.line), ax.key));
        for (const auto& e : *gv.as_array()) {
          AxisValue v;
          v.line = line_of(e) > 0 ? line_of(e) : ax.line;
          if (named) {
            const auto& t = *e.as_table();
            const auto* nm = t.get("name");
            if (!nm || !nm->is_string() || nm->as_string()->get().empty())
              throw UserError(fmt::format("{}: grid axis '{}': every entry needs name = \"...\"",
                                          loc(file, v.line), ax.key));
            v.label = nm->as_string()->get();
            for (const auto& o : ax.values)
              if (o.label == v.label)
                throw UserError(fmt::format("{}: grid axis '{}': name '{}' used twice", loc(file, v.line),
                                            ax.key, v.label));
            v.sets = detail::read_sets(file, t, dir, {"name"});
          } else if (e.is_table() || e.is_array()) {
            throw UserError(fmt::format("{}: grid key '{}': mix of tables and values", loc(file, v.line), ax.key));
          } else {
            auto a = detail::to_assignment(file, ax.key, e, dir);
            if (a.line == 0) a.line = ax.line;
            v.label = a.label;
            v.sets.push_back(std::move(a));
          }
          ax.values.push_back(std::move(v));
        }
        s.axes.push_back(std::move(ax));
      }
      // TOML tables iterate in key order; the grid's axes follow the file.
      std::stable_sort(s.axes.begin(), s.axes.end(), [](const Axis& a, const Axis& b) { return a.line < b.line; });
    } else if (key == "case") {
      if (!v.is_array_of_tables())
        throw UserError(fmt::format("{}: 'case' must be an array of tables: [[case]]", where));
      for (const auto& e : *v.as_array()) {
        const auto& t = *e.as_table();
        Case c;
        c.line = line_of(e);
        const auto* nm = t.get("name");
        if (!nm || !nm->is_string())
          throw UserError(fmt::format("{}: [[case]] needs name = \"...\"", loc(file, c.line)));
        c.name = nm->as_string()->get();
        if (c.name.empty() || detail::sanitize(c.name) != c.name)
          throw UserError(fmt::format("{}: case name '{}': use letters, digits, '.', '-', '+' only",
                                      loc(file, line_of(*nm)), c.name));
        for (const auto& o : s.cases)
          if (o.name == c.name)
            throw UserError(fmt::format("{}: case name '{}' used twice", loc(file, line_of(*nm)), c.name));
        c.sets = detail::read_sets(file, t, dir, {"name"});
        s.cases.push_back(std::move(c));
      }
    } else {
      throw UserError(fmt::format("{}: unknown sweep key '{}' (expected name, base, out, sbatch, [set], "
                                  "[grid], [[case]]; config keys go inside [set] or [grid] as "
                                  "\"section.key\")",
                                  where, key));
    }
  }
  return s;
}

inline SweepSpec parse_sweep_file(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw UserError(fmt::format("cannot open sweep file '{}'", file));
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_sweep_text(ss.str(), file);
}

// The base config with relative paths made absolute (they are relative to the base file).
inline config::Config load_base(const SweepSpec& s) {
  config::Config cfg;
  if (s.base.empty()) return cfg;
  config::load_file(cfg, s.base);
  const fs::path dir = fs::path(s.base).parent_path();
  for (const auto& d : config::keys()) {
    if (d.type != config::KeyType::Text) continue;
    const std::string& v = cfg.text(d.key);
    if (!v.empty() && detail::is_path_key(d.key, v) && fs::path(v).is_relative())
      cfg.set(d.key, (dir / v).lexically_normal().string(), cfg.origin(d.key));
  }
  cfg.source_file.clear();
  return cfg;
}

// Every grid point (cases outermost, then the axes in file order, the last axis fastest), each
// resolved and validated. `out` is the sweep's output folder (absolute).
inline std::vector<Point> expand(const SweepSpec& s, const std::string& out) {
  const config::Config base = load_base(s);
  config::Config fixed = base;
  for (const auto& a : s.sets) detail::apply(fixed, s.file, a);
  std::vector<const Case*> cases;
  for (const auto& c : s.cases) cases.push_back(&c);
  if (cases.empty()) cases.push_back(nullptr);
  // Folder-name part of each axis: the key's last component, the full key if that is ambiguous.
  std::vector<std::string> short_names;
  for (const auto& ax : s.axes) {
    std::string sn = ax.key.substr(ax.key.find('.') + 1);
    int same = 0;
    for (const auto& o : s.axes) same += o.key.substr(o.key.find('.') + 1) == sn;
    short_names.push_back(same > 1 ? ax.key : sn);
  }
  std::size_t combos = 1;
  for (const auto& ax : s.axes) combos *= ax.values.size();
  if (combos * cases.size() > 100000)
    throw UserError(fmt::format("{}: the sweep has {} points; more than 100000 is surely a mistake", s.file,
                                combos * cases.size()));
  std::vector<Point> points;
  std::map<std::string, int> used;
  for (const Case* c : cases) {
    for (std::size_t idx = 0; idx < combos; ++idx) {
      Point p;
      p.cfg = fixed;
      std::vector<std::string> parts;
      if (c) {
        p.case_name = c->name;
        parts.push_back(c->name);
        for (const auto& a : c->sets) detail::apply(p.cfg, s.file, a);
      }
      std::size_t rest = idx;
      std::vector<std::size_t> pick(s.axes.size());
      for (std::size_t i = s.axes.size(); i-- > 0;) {
        pick[i] = rest % s.axes[i].values.size();
        rest /= s.axes[i].values.size();
      }
      for (std::size_t i = 0; i < s.axes.size(); ++i) {
        const auto& v = s.axes[i].values[pick[i]];
        for (const auto& a : v.sets) detail::apply(p.cfg, s.file, a);
        p.labels.push_back(v.label);
        parts.push_back(detail::sanitize(short_names[i]) + "-" + detail::sanitize(v.label));
      }
      std::string name;
      for (const auto& part : parts) name += (name.empty() ? "" : "_") + part;
      if (name.empty()) name = "run";
      if (const int n = used[name]++; n > 0) name += fmt::format("_{}", n + 1);
      p.name = name;
      try {
        config::check(p.cfg);
      } catch (const UserError& e) {
        throw UserError(fmt::format("{}: sweep point '{}': {}", s.file, p.name, e.what()));
      }
      p.cfg.set("output.dir", (fs::path(out) / "runs" / p.name).string(), "sweep");
      p.cfg.set("run.progress", "off", "sweep");
      points.push_back(std::move(p));
    }
  }
  return points;
}

// ---- run folders ----------------------------------------------------------------------------------

inline std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  if (!in) return {};
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The exit code a sweep recorded for a run (file `.exit_code` in the run folder), or -1.
inline int recorded_exit_code(const fs::path& run_dir) {
  const std::string t = read_text(run_dir / ".exit_code");
  if (t.empty()) return -1;
  try {
    return std::stoi(t);
  } catch (...) {
    return -1;
  }
}

// A run is complete when its process ended with 0 or 3 (unfinished flows are a result), its
// summary.json is there and its resolved config.toml is exactly the point's config.
inline bool run_complete(const Point& p) {
  const fs::path dir = p.cfg.text("output.dir");
  const int rc = recorded_exit_code(dir);
  if (rc != 0 && rc != 3) return false;
  if (!fs::is_regular_file(dir / "summary.json")) return false;
  return read_text(dir / "config.toml") == config::to_toml(p.cfg);
}

// ---- results table --------------------------------------------------------------------------------

inline std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

inline std::string json_num(const nlohmann::json& j) {
  if (j.is_number_unsigned()) return std::to_string(j.get<std::uint64_t>());
  if (j.is_number_integer()) return std::to_string(j.get<std::int64_t>());
  if (j.is_number_float()) return fmt::format("{}", j.get<double>());
  return "";
}

// One row of metrics (metric_columns order) for a run folder; `status` is ok / unfinished /
// failed(rc) / missing.
inline std::vector<std::string> metrics_row(const Point& p) {
  const fs::path dir = p.cfg.text("output.dir");
  std::vector<std::string> row(metric_columns().size());
  const int rc = recorded_exit_code(dir);
  const bool have = (rc == 0 || rc == 3) && fs::is_regular_file(dir / "summary.json");
  if (!have) {
    row[0] = rc < 0 ? "missing" : fmt::format("failed({})", rc);
    return row;
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_text(dir / "summary.json"));
  } catch (const std::exception&) {
    row[0] = "corrupt";
    return row;
  }
  const auto get = [&](std::initializer_list<const char*> path) -> std::string {
    const nlohmann::json* cur = &j;
    for (const char* k : path) {
      if (!cur->is_object() || !cur->contains(k)) return "";
      cur = &(*cur)[k];
    }
    return json_num(*cur);
  };
  const std::string unfinished = get({"unfinished"});
  row = {unfinished == "0" ? "ok" : "unfinished",
         get({"completed"}),
         unfinished,
         get({"workload", "transfers"}),
         get({"fct_us", "max"}),
         get({"fct_us", "p99"}),
         get({"fct_us", "p50"}),
         get({"fct_us", "mean"}),
         get({"slowdown", "mean"}),
         get({"slowdown", "p99"}),
         get({"slowdown", "max"}),
         get({"drops"}),
         get({"failure_drops"}),
         get({"trims"}),
         get({"ecn_marks"}),
         get({"nacks"}),
         get({"retransmits"}),
         get({"timeouts"}),
         get({"ooo_pct"}),
         get({"events"}),
         get({"sim_time_us"}),
         get({"perf", "wall_s"}),
         get({"perf", "peak_rss_mb"})};
  return row;
}

inline std::vector<std::string> header(const SweepSpec& s) {
  std::vector<std::string> h{"run"};
  if (!s.cases.empty()) h.push_back("case");
  for (const auto& ax : s.axes) h.push_back(ax.key);
  for (const auto& c : metric_columns()) h.push_back(c);
  h.push_back("dir");
  return h;
}

// results.csv: one row per point, in point order.
inline std::string results_csv(const SweepSpec& s, const std::vector<Point>& points) {
  std::string out;
  const auto add_row = [&](const std::vector<std::string>& r) {
    for (std::size_t i = 0; i < r.size(); ++i) out += (i ? "," : "") + csv_field(r[i]);
    out += "\n";
  };
  add_row(header(s));
  for (const auto& p : points) {
    std::vector<std::string> r{p.name};
    if (!s.cases.empty()) r.push_back(p.case_name);
    for (const auto& l : p.labels) r.push_back(l);
    for (auto& m : metrics_row(p)) r.push_back(std::move(m));
    r.push_back("runs/" + p.name);
    add_row(r);
  }
  return out;
}

// sweep.json: what the plotting tool needs to group runs (swept keys, cases, point names).
inline std::string manifest_json(const SweepSpec& s, const std::vector<Point>& points) {
  nlohmann::json j;
  j["name"] = s.name;
  j["keys"] = nlohmann::json::array();
  for (const auto& ax : s.axes) j["keys"].push_back(ax.key);
  j["cases"] = nlohmann::json::array();
  for (const auto& c : s.cases) j["cases"].push_back(c.name);
  j["points"] = nlohmann::json::array();
  for (const auto& p : points) {
    nlohmann::json e;
    e["name"] = p.name;
    e["case"] = p.case_name;
    e["values"] = nlohmann::json::object();
    for (std::size_t i = 0; i < s.axes.size(); ++i) e["values"][s.axes[i].key] = p.labels[i];
    j["points"].push_back(e);
  }
  return j.dump(2) + "\n";
}

}  // namespace lbsim::cli::wf
