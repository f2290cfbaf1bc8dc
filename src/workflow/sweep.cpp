#include "workflow/sweep.h"

#include <algorithm>
#include <csignal>
#include <cstring>
#include <cstdint>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <fmt/core.h>
#include <nlohmann/json.hpp>
#include <toml++/toml.h>

#include "core/error.h"
#include "core/text.h"
#include "workflow/sweep_toml.h"

namespace lbsim::workflow {

namespace fs = std::filesystem;

bool is_path_key(const std::string& key, const std::string& value) {
  for (const auto& d : config::keys())
    if (d.key == key && d.path) return true;
  // workload.cdf is a built-in name or a file (same rule as the simulation: '/' or '.').
  return key == "workload.cdf" && value.find_first_of("/.") != std::string::npos;
}

namespace {

int line_of(const toml::node& n) { return static_cast<int>(n.source().begin.line); }

std::string loc(const std::string& file, int line) { return line > 0 ? fmt::format("{}:{}", file, line) : file; }

std::string sanitize(const std::string& s) {
  std::string out;
  for (char c : s) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+';
    out += ok ? c : '_';
  }
  return out.empty() ? "_" : out;
}

// A TOML scalar -> (override text, label). Paths are made absolute relative to `dir`.
Assignment to_assignment(const std::string& file, const std::string& key, const toml::node& n, const fs::path& dir) {
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

void check_key(const std::string& file, const std::string& key, int line) {
  bool known = false;
  for (const auto& d : config::keys()) known = known || d.key == key;
  if (!known)
    throw UserError(
        fmt::format("{}: unknown key '{}' (did you mean '{}'?)", loc(file, line), key, config::closest_key(key)));
}

// Apply one assignment; errors are re-thrown with the sweep file's line.
void apply(config::Config& cfg, const std::string& sweep_file, const Assignment& a) {
  const std::string& file = a.file.empty() ? sweep_file : a.file;
  check_key(file, a.key, a.line);
  try {
    config::apply_override(cfg, a.key + "=" + a.value);
  } catch (const UserError& e) {
    std::string msg = e.what();
    if (msg.rfind("--set: ", 0) == 0) msg = msg.substr(7);
    throw UserError(fmt::format("{}: {}", loc(file, a.line), msg));
  }
}

}  // namespace

std::vector<Assignment> parse_assignments(const std::string& file, const toml::table& t, const fs::path& dir,
                                          const std::vector<std::string>& skip) {
  std::vector<Assignment> out;
  for (const auto& [k, v] : t) {
    const std::string key(k.str());
    if (std::find(skip.begin(), skip.end(), key) != skip.end()) continue;
    check_key(file, key, line_of(v));
    out.push_back(to_assignment(file, key, v, dir));
  }
  // TOML tables iterate in key order; keep the file's.
  std::stable_sort(out.begin(), out.end(), [](const Assignment& a, const Assignment& b) { return a.line < b.line; });
  return out;
}

Axis parse_axis(const std::string& file, const std::string& key, const toml::node& gv, const fs::path& dir) {
  Axis ax;
  ax.key = key;
  ax.line = line_of(gv);
  if (!gv.is_array() || gv.as_array()->empty())
    throw UserError(fmt::format("{}: grid key '{}': expected a non-empty array of values", loc(file, ax.line), ax.key));
  // A named axis: an array of tables, each a name plus config keys set together, e.g.
  // scheme = [{name = "ecmp", "lb.algorithm" = "ecmp", "routing.algorithm" = "ecmp"}, ...]
  const bool named = gv.as_array()->is_array_of_tables();
  if (!named) check_key(file, ax.key, ax.line);
  if (named && sanitize(ax.key) != ax.key)
    throw UserError(
        fmt::format("{}: grid axis name '{}': use letters, digits, '.', '-', '+' only", loc(file, ax.line), ax.key));
  for (const auto& e : *gv.as_array()) {
    AxisValue av;
    av.line = line_of(e) > 0 ? line_of(e) : ax.line;
    if (named) {
      const auto& t = *e.as_table();
      const auto* nm = t.get("name");
      if (!nm || !nm->is_string() || nm->as_string()->get().empty())
        throw UserError(
            fmt::format("{}: grid axis '{}': every entry needs name = \"...\"", loc(file, av.line), ax.key));
      av.label = nm->as_string()->get();
      for (const auto& o : ax.values)
        if (o.label == av.label)
          throw UserError(
              fmt::format("{}: grid axis '{}': name '{}' used twice", loc(file, av.line), ax.key, av.label));
      av.sets = parse_assignments(file, t, dir, {"name"});
    } else if (e.is_table() || e.is_array()) {
      throw UserError(fmt::format("{}: grid key '{}': mix of tables and values", loc(file, av.line), ax.key));
    } else {
      auto a = to_assignment(file, ax.key, e, dir);
      if (a.line == 0) a.line = ax.line;
      av.label = a.label;
      av.sets.push_back(std::move(a));
    }
    ax.values.push_back(std::move(av));
  }
  return ax;
}

namespace {

// The base config with relative paths made absolute (they are relative to the base file).
config::Config load_base(const SweepSpec& s) {
  config::Config cfg;
  if (s.base.empty()) return cfg;
  config::load_file(cfg, s.base);
  const fs::path dir = fs::path(s.base).parent_path();
  for (const auto& d : config::keys()) {
    if (d.type != config::KeyType::Text) continue;
    const std::string v = cfg.text(d.key);
    if (!v.empty() && is_path_key(d.key, v) && fs::path(v).is_relative())
      cfg.set(d.key, (dir / v).lexically_normal().string(), cfg.origin(d.key));
  }
  cfg.source_file.clear();
  return cfg;
}

std::string json_num(const nlohmann::json& j) {
  if (j.is_number_unsigned()) return std::to_string(j.get<std::uint64_t>());
  if (j.is_number_integer()) return std::to_string(j.get<std::int64_t>());
  // Fixed decimals (issue 18 "no float noise"): 6, the picosecond resolution of the us columns, as
  // in flows.csv.
  if (j.is_number_float()) return fmt::format("{:.6f}", j.get<double>());
  return "";
}

}  // namespace

const std::vector<std::string>& metric_columns() {
  static const std::vector<std::string> cols{
      "status",     "completed",     "unfinished",    "transfers",    "max_fct_us",   "p99_fct_us",
      "p50_fct_us", "mean_fct_us",   "mean_slowdown", "p99_slowdown", "max_slowdown", "makespan_us",
      "drops",      "failure_drops", "trims",         "ecn_marks",    "nacks",        "retransmits",
      "timeouts",   "ooo_pct",       "events",        "sim_time_us",  "wall_s",       "peak_rss_mb"};
  return cols;
}

bool nondeterministic_column(const std::string& c) { return c == "wall_s" || c == "peak_rss_mb"; }

SweepSpec parse_sweep_text(const std::string& text, const std::string& file) {
  toml::table root;
  try {
    root = toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    throw UserError(fmt::format("{}:{}:{}: TOML syntax error: {}", file, e.source().begin.line, e.source().begin.column,
                                e.description()));
  }
  const fs::path dir = fs::absolute(fs::path(file)).parent_path();
  SweepSpec s;
  s.file = file;
  s.name = fs::path(file).stem().string();
  // Not a structured binding: `v` is captured by the lambda below, which C++20 allows for
  // structured bindings but clang 14 does not implement.
  for (const auto& kv : root) {
    const std::string key(kv.first.str());
    const toml::node& v = kv.second;
    const std::string where = loc(file, line_of(v));
    const auto need_string = [&]() -> std::string {
      if (!v.is_string()) throw UserError(fmt::format("{}: key '{}': expected a string", where, key));
      return v.as_string()->get();
    };
    if (key == "name") {
      s.name = need_string();
      if (s.name.empty() || sanitize(s.name) != s.name)
        throw UserError(fmt::format("{}: key 'name': use letters, digits, '.', '-', '+' only", where));
    } else if (key == "base") {
      const std::string b = need_string();
      const fs::path p = fs::path(b).is_relative() ? dir / b : fs::path(b);
      // The non-throwing overload: a name the file system rejects (too long, ...) is bad input too.
      std::error_code ec;
      if (!fs::is_regular_file(p, ec))
        throw UserError(fmt::format("{}: key 'base': config file '{}' not found{}", where, p.string(),
                                    ec ? " (" + ec.message() + ")" : ""));
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
      s.sets = parse_assignments(file, *v.as_table(), dir, {});
    } else if (key == "grid") {
      if (!v.is_table()) throw UserError(fmt::format("{}: 'grid' must be a table: [grid]", where));
      for (const auto& [gk, gv] : *v.as_table()) s.axes.push_back(parse_axis(file, std::string(gk.str()), gv, dir));
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
        if (c.name.empty() || sanitize(c.name) != c.name)
          throw UserError(fmt::format("{}: case name '{}': use letters, digits, '.', '-', '+' only",
                                      loc(file, line_of(*nm)), c.name));
        for (const auto& o : s.cases)
          if (o.name == c.name)
            throw UserError(fmt::format("{}: case name '{}' used twice", loc(file, line_of(*nm)), c.name));
        c.sets = parse_assignments(file, t, dir, {"name"});
        s.cases.push_back(std::move(c));
      }
    } else {
      throw UserError(
          fmt::format("{}: unknown sweep key '{}' (expected name, base, out, sbatch, [set], "
                      "[grid], [[case]]; config keys go inside [set] or [grid] as "
                      "\"section.key\")",
                      where, key));
    }
  }
  return s;
}

SweepSpec parse_sweep_file(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw UserError(fmt::format("cannot open sweep file '{}'", file));
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_sweep_text(ss.str(), file);
}

std::vector<Point> expand(const SweepSpec& s, const std::string& out) {
  const config::Config base = load_base(s);
  config::Config fixed = base;
  for (const auto& a : s.sets) apply(fixed, s.file, a);
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
        for (const auto& a : c->sets) apply(p.cfg, s.file, a);
      }
      std::size_t rest = idx;
      std::vector<std::size_t> pick(s.axes.size());
      for (std::size_t i = s.axes.size(); i-- > 0;) {
        pick[i] = rest % s.axes[i].values.size();
        rest /= s.axes[i].values.size();
      }
      for (std::size_t i = 0; i < s.axes.size(); ++i) {
        const auto& v = s.axes[i].values[pick[i]];
        for (const auto& a : v.sets) apply(p.cfg, s.file, a);
        p.labels.push_back(v.label);
        parts.push_back(sanitize(short_names[i]) + "-" + sanitize(v.label));
      }
      std::string name;
      for (const auto& part : parts) name += (name.empty() ? "" : "_") + part;
      if (name.empty()) name = "run";
      if (const int n = used[name]++; n > 0) name += fmt::format("_{}", n + 1);
      p.name = name;
      try {
        config::apply_presets(p.cfg);  // the point's file holds their values (a run of it gives every key)
        config::check(p.cfg);
      } catch (const UserError& e) {
        throw UserError(fmt::format("{}: sweep point '{}': {}", s.file, p.name, e.what()));
      }
      p.cfg.set("output.dir", (fs::path(out) / "runs" / p.name).string(), "sweep");
      p.cfg.set("run.progress", "off", "sweep");
      points.push_back(std::move(p));
    }
  }
  // A key the sweep sets must be read by some point (lb.reps_freezing with an lb axis of ecmp and
  // reps is; each point's config writes the keys it does not read as comments: config::to_toml).
  std::vector<const config::Config*> cfgs;
  for (const auto& p : points) cfgs.push_back(&p.cfg);
  try {
    config::check_keys_read(cfgs);
  } catch (const UserError& e) {
    std::string msg = e.what();
    if (msg.rfind("--set: ", 0) == 0) msg = msg.substr(7);  // a key of the sweep file's [set] or [grid]
    throw UserError(fmt::format("{}: {}", s.file, msg));
  }
  return points;
}

Sweep prepare(const std::string& file, const std::string& out) {
  Sweep sw;
  sw.spec = parse_sweep_file(file);
  const std::string dir = !out.empty() ? out : !sw.spec.out.empty() ? sw.spec.out : "results/sweeps/" + sw.spec.name;
  sw.out = fs::absolute(dir).lexically_normal();
  sw.points = expand(sw.spec, sw.out.string());
  return sw;
}

// ---- run folders ----------------------------------------------------------------------------------

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  if (!in) return {};
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  if (!f) throw UserError(fmt::format("cannot write '{}'", p.string()));
  f << text;
}

void write_inputs(const Sweep& sw) {
  for (const char* sub : {"points", "runs", "logs"}) fs::create_directories(sw.out / sub);
  for (const auto& p : sw.points) {
    const fs::path f = sw.out / "points" / (p.name + ".toml");
    const std::string text = config::to_toml(p.cfg);
    if (read_text(f) != text) write_file(f, text);
  }
  write_file(sw.out / "sweep.json", manifest_json(sw.spec, sw.points));
}

int recorded_exit_code(const fs::path& run_dir) {
  const std::string t = read_text(run_dir / ".exit_code");
  if (t.empty()) return -1;
  try {
    return std::stoi(t);
  } catch (...) {
    return -1;
  }
}

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev != nullptr ? fmt::format("SIG{}", abbrev) : fmt::format("signal {}", sig);
}

std::string failed_status(int rc) {
  if (rc > 128 && rc != 130 && rc < 128 + 65) return fmt::format("killed({})", signal_name(rc - 128));
  return fmt::format("failed({})", rc);
}

bool run_complete(const Point& p) {
  const fs::path dir = p.cfg.text("output.dir");
  const int rc = recorded_exit_code(dir);
  if (rc != 0 && rc != 3) return false;
  std::error_code ec;
  if (!fs::is_regular_file(dir / "summary.json", ec)) return false;
  return read_text(dir / "config.toml") == config::to_toml(p.cfg);
}

std::vector<const Point*> pending(const Sweep& sw) {
  std::vector<const Point*> todo;
  for (const auto& p : sw.points)
    if (!run_complete(p)) todo.push_back(&p);
  return todo;
}

// ---- results table --------------------------------------------------------------------------------

namespace {

// The row of metric_columns() for a point; `summary` (if given) receives its parsed summary.json
// (unchanged when the run has none), so results_csv reads each file once.
std::vector<std::string> metrics_row_of(const Point& p, nlohmann::json* summary) {
  const fs::path dir = p.cfg.text("output.dir");
  std::vector<std::string> row(metric_columns().size());
  const int rc = recorded_exit_code(dir);
  std::error_code ec;
  const bool have = (rc == 0 || rc == 3) && fs::is_regular_file(dir / "summary.json", ec);
  if (!have) {
    row[0] = rc < 0 ? "missing" : failed_status(rc);
    return row;
  }
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_text(dir / "summary.json"));
  } catch (const std::exception&) {
    row[0] = "corrupt";
    return row;
  }
  if (summary) *summary = j;
  const auto get = [&](std::initializer_list<const char*> path) -> std::string {
    const nlohmann::json* cur = &j;
    for (const char* k : path) {
      if (!cur->is_object() || !cur->contains(k)) return "";
      cur = &(*cur)[k];
    }
    return json_num(*cur);
  };
  // A distribution over no completed transfer has no value: empty (NaN in pandas), not 0.
  const auto dist = [&](const char* d, const char* stat) {
    return get({d, "count"}) == "0" ? std::string() : get({d, stat});
  };
  const std::string unfinished = get({"unfinished"});
  row = {unfinished == "0" ? "ok" : "unfinished",
         get({"completed"}),
         unfinished,
         get({"workload", "transfers"}),
         dist("fct_us", "max"),
         dist("fct_us", "p99"),
         dist("fct_us", "p50"),
         dist("fct_us", "mean"),
         dist("slowdown", "mean"),
         dist("slowdown", "p99"),
         dist("slowdown", "max"),
         get({"makespan_us"}),
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

}  // namespace

std::vector<std::string> metrics_row(const Point& p) { return metrics_row_of(p, nullptr); }

std::vector<std::string> header(const SweepSpec& s) {
  std::vector<std::string> h{"run"};
  if (!s.cases.empty()) h.push_back("case");
  for (const auto& ax : s.axes) h.push_back(ax.key);
  for (const auto& c : metric_columns()) h.push_back(c);
  h.push_back("dir");
  return h;
}

namespace {

// The per-tag columns: one group per entry tag seen in any point, unless the only tag is "default".
const char* const kTagStats[][2] = {
    {"completed", "count"}, {"mean_fct_us", "mean"}, {"p99_fct_us", "p99"}, {"max_fct_us", "max"}};

}  // namespace

std::string results_csv(const SweepSpec& s, const std::vector<Point>& points) {
  std::string out;
  const auto add_row = [&](const std::vector<std::string>& r) {
    for (std::size_t i = 0; i < r.size(); ++i) out += (i ? "," : "") + csv_field(r[i]);
    out += "\n";
  };
  // Each point's metrics and fct_us_by_tag, from one read of its summary.json.
  std::vector<std::vector<std::string>> metrics;
  std::vector<nlohmann::json> tags;
  std::set<std::string> names;
  for (const auto& p : points) {
    nlohmann::json j = nlohmann::json::object();
    metrics.push_back(metrics_row_of(p, &j));
    tags.push_back(j.contains("fct_us_by_tag") && j["fct_us_by_tag"].is_object() ? j["fct_us_by_tag"]
                                                                                 : nlohmann::json::object());
    for (const auto& kv : tags.back().items()) names.insert(kv.key());
  }
  if (names.size() == 1 && *names.begin() == "default") names.clear();
  auto h = header(s);
  h.pop_back();  // "dir" stays last
  for (const auto& t : names)
    for (const auto& st : kTagStats) h.push_back(std::string(st[0]) + "." + t);
  h.push_back("dir");
  add_row(h);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto& p = points[i];
    std::vector<std::string> r{p.name};
    if (!s.cases.empty()) r.push_back(p.case_name);
    for (const auto& l : p.labels) r.push_back(l);
    const auto& m = metrics[i];
    const bool have = m[0] == "ok" || m[0] == "unfinished";
    for (const auto& v : m) r.push_back(v);
    for (const auto& t : names)
      for (const auto& st : kTagStats) {
        // A tag with no completed transfer: completed 0, the FCT cells empty (NaN in pandas).
        const bool has = have && tags[i].contains(t);
        const bool count = std::string(st[1]) == "count";
        r.push_back(has ? json_num(tags[i][t][st[1]]) : (have && count ? "0" : ""));
      }
    r.push_back("runs/" + p.name);
    add_row(r);
  }
  return out;
}

std::string results_table(const std::vector<Point>& points) {
  std::size_t w = 8;
  for (const auto& p : points) w = std::max(w, p.name.size());
  std::string out = fmt::format("{:<{}} {:>11} {:>11} {:>11} {:>9} {:>8} {:>8} {:>8} {:>8} {:>7} {:>9} {}\n", "run", w,
                                "max_fct_us", "p99_fct_us", "mean_fct_us", "slowdown", "drops", "trims", "retx",
                                "timeouts", "ooo_%", "done", "status");
  const auto& cols = metric_columns();
  const auto col = [&](const std::vector<std::string>& r, const char* name) {
    return r[std::find(cols.begin(), cols.end(), name) - cols.begin()];
  };
  const auto num = [](const std::string& s, int prec) {
    if (s.empty()) return std::string("-");
    return fmt::format("{:.{}f}", std::stod(s), prec);
  };
  for (const auto& p : points) {
    const auto r = metrics_row(p);
    const std::string done =
        col(r, "transfers").empty() ? "-" : fmt::format("{}/{}", col(r, "completed"), col(r, "transfers"));
    out += fmt::format("{:<{}} {:>11} {:>11} {:>11} {:>9} {:>8} {:>8} {:>8} {:>8} {:>7} {:>9} {}\n", p.name, w,
                       num(col(r, "max_fct_us"), 2), num(col(r, "p99_fct_us"), 2), num(col(r, "mean_fct_us"), 2),
                       num(col(r, "mean_slowdown"), 3), col(r, "drops").empty() ? "-" : col(r, "drops"),
                       col(r, "trims").empty() ? "-" : col(r, "trims"),
                       col(r, "retransmits").empty() ? "-" : col(r, "retransmits"),
                       col(r, "timeouts").empty() ? "-" : col(r, "timeouts"), num(col(r, "ooo_pct"), 2), done, r[0]);
  }
  return out;
}

std::string manifest_json(const SweepSpec& s, const std::vector<Point>& points) {
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

int sweep_exit_code(const Sweep& sw) {
  int rc = 0;
  for (const auto& p : sw.points) {
    const std::string st = metrics_row(p)[0];
    if (st == "ok") continue;
    if (st == "unfinished" || st == "missing")
      rc = std::max(rc, 3);
    else if (st.starts_with("killed("))  // not lbsim's error: docs/reliability.md "Exit codes"
      rc = std::max(rc, 4);
    else
      rc = std::max(rc, st == "failed(2)" ? 2 : 70);
  }
  return rc;
}

}  // namespace lbsim::workflow
