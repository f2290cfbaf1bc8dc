// Reproduce manifests (manifest.h): reading and checking them, what this build lacks to run them,
// finding them under examples/, and the sweep or analysis command each one runs.
#include "workflow/manifest.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/core.h>
#include <toml++/toml.h>

#include "config/reader.h"
#include "core/error.h"
#include "workflow/sweep_toml.h"

namespace lbsim::workflow {

namespace {

namespace fs = std::filesystem;

int line_of(const toml::node& n) { return static_cast<int>(n.source().begin.line); }

std::string loc(const std::string& file, int line) { return line > 0 ? fmt::format("{}:{}", file, line) : file; }

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

toml::table parse_toml_file(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw UserError(fmt::format("cannot open '{}'", file));
  std::stringstream ss;
  ss << in.rdbuf();
  try {
    return toml::parse(ss.str(), file);
  } catch (const toml::parse_error& e) {
    throw UserError(fmt::format("{}:{}:{}: TOML syntax error: {}", file, e.source().begin.line, e.source().begin.column,
                                e.description()));
  }
}

// Typed access to one table of a manifest: a key not in `allowed` is an error, and so is a value of
// the wrong type; `prefix` is the table's path ("quick.", "report.metric.") for the messages.
struct Reader {
  const std::string& file;
  const toml::table& t;
  std::string prefix;

  Reader(const std::string& f, const toml::table& table, std::string p, const std::vector<std::string>& allowed)
      : file(f), t(table), prefix(std::move(p)) {
    for (const auto& [k, v] : t) {
      const std::string key(k.str());
      if (std::find(allowed.begin(), allowed.end(), key) == allowed.end())
        throw UserError(fmt::format("{}: unknown key '{}{}' (expected one of: {})", loc(file, line_of(v)), prefix, key,
                                    joined(allowed)));
    }
  }
  const toml::node* get(const char* key) const { return t.get(key); }
  int line(const char* key) const {
    const auto* n = t.get(key);
    return n ? line_of(*n) : 0;
  }
  [[noreturn]] void bad(const char* key, const char* expected) const {
    throw UserError(fmt::format("{}: key '{}{}': expected {}", loc(file, line(key)), prefix, key, expected));
  }
  std::string text(const char* key, bool required = false, const std::string& dflt = "") const {
    const auto* n = get(key);
    if (!n) {
      if (required) throw UserError(fmt::format("{}: key '{}{}' is missing", file, prefix, key));
      return dflt;
    }
    if (!n->is_string()) bad(key, "a string");
    return n->as_string()->get();
  }
  double number(const char* key, double dflt) const {
    const auto* n = get(key);
    if (!n) return dflt;
    if (const auto* i = n->as_integer()) return static_cast<double>(i->get());
    if (const auto* f = n->as_floating_point()) return f->get();
    bad(key, "a number");
  }
  bool boolean(const char* key, bool dflt) const {
    const auto* n = get(key);
    if (!n) return dflt;
    if (!n->is_boolean()) bad(key, "true or false");
    return n->as_boolean()->get();
  }
  std::vector<std::string> strings(const char* key) const {
    std::vector<std::string> out;
    const auto* n = get(key);
    if (!n) return out;
    if (!n->is_array()) bad(key, "an array of strings");
    for (const auto& e : *n->as_array()) {
      if (!e.is_string()) bad(key, "an array of strings");
      out.push_back(e.as_string()->get());
    }
    return out;
  }
  const toml::table* table(const char* key) const {
    const auto* n = get(key);
    if (!n) return nullptr;
    if (!n->is_table()) bad(key, "a table");
    return n->as_table();
  }
  std::vector<const toml::table*> tables(const char* key) const {
    std::vector<const toml::table*> out;
    const auto* n = get(key);
    if (!n) return out;
    if (!n->is_array_of_tables()) bad(key, fmt::format("an array of tables ([[{}{}]])", prefix, key).c_str());
    for (const auto& e : *n->as_array()) out.push_back(e.as_table());
    return out;
  }
};

// ---- what this build lacks ------------------------------------------------------------------------

struct Needs {
  std::vector<std::string> labels, where;
  void check(const std::string& file, const std::string& key, const toml::node& v) {
    if (v.is_table()) return;  // not a config key's value: the parser reports it
    const config::KeyDef* d = config::find_key(key);
    std::string label, why;
    if (!d) {
      label = key;
      why = fmt::format("unknown key; did you mean '{}'?", config::closest_key(key));
    } else if (const auto* s = v.as_string()) {
      const auto allowed = d->allowed();
      if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), s->get()) == allowed.end()) {
        label = key + " = " + s->get();
        why = "not one of: " + joined(allowed);
      }
    }
    if (label.empty() || std::find(labels.begin(), labels.end(), label) != labels.end()) return;
    labels.push_back(label);
    where.push_back(fmt::format("{}: key '{}': {}", loc(file, line_of(v)), key, why));
  }
  // A table of config-key assignments ([set], a case, a named axis value).
  void sets(const std::string& file, const toml::table& t) {
    for (const auto& [k, v] : t)
      if (k.str() != "name" && k.str() != "unset") check(file, std::string(k.str()), v);
  }
  void grid(const std::string& file, const toml::table& t) {
    for (const auto& [k, v] : t) {
      if (!v.is_array()) continue;  // the sweep parser reports it
      for (const auto& e : *v.as_array()) {
        if (const auto* named = e.as_table())
          sets(file, *named);
        else
          check(file, std::string(k.str()), e);
      }
    }
  }
  // A sweep file, and its base config (a run config: [section] key = value).
  void sweep(const std::string& file) {
    const toml::table root = parse_toml_file(file);
    if (const auto* t = root["set"].as_table()) sets(file, *t);
    if (const auto* t = root["grid"].as_table()) grid(file, *t);
    if (const auto* a = root["case"].as_array())
      for (const auto& c : *a)
        if (const auto* t = c.as_table()) sets(file, *t);
    if (const auto* b = root["base"].as_string()) {
      const fs::path p = fs::path(file).parent_path() / b->get();
      std::error_code ec;
      if (!fs::is_regular_file(p, ec)) return;  // the sweep parser reports it
      const std::string base = p.lexically_normal().string();
      for (const auto& [sec, st] : parse_toml_file(base))
        if (const auto* t = st.as_table())
          for (const auto& [k, v] : *t) check(base, std::string(sec.str()) + "." + std::string(k.str()), v);
    }
  }
};

// ---- a manifest's changes -------------------------------------------------------------------------

const std::vector<std::string> kChangeKeys{"base", "set", "grid", "cases", "drop_axes", "case", "axis"};

void needs_of_changes(Needs& needs, const Reader& r) {
  if (const auto* t = r.table("set")) needs.sets(r.file, *t);
  if (const auto* t = r.table("grid")) needs.grid(r.file, *t);
  if (const auto* t = r.table("case"))
    for (const auto& [name, v] : *t)
      if (const auto* c = v.as_table()) needs.sets(r.file, *c);
  if (const auto* t = r.table("axis"))
    for (const auto& [axis, values] : *t)
      if (const auto* vt = values.as_table())
        for (const auto& [name, v] : *vt)
          if (const auto* c = v.as_table()) needs.sets(r.file, *c);
}

// A table of config keys to set plus `unset = [...]`, the keys to remove.
Patch read_patch(const Reader& r, const toml::table& t, const std::string& where, int line) {
  Patch p;
  p.line = line;
  p.sets = parse_assignments(r.file, t, fs::absolute(r.file).parent_path(), {"unset"});
  for (auto& a : p.sets) a.file = r.file;
  if (const auto* u = t.get("unset")) {
    const auto bad = [&] {
      throw UserError(fmt::format("{}: key '{}{}.unset': expected an array of config keys", loc(r.file, line_of(*u)),
                                  r.prefix, where));
    };
    if (!u->is_array()) bad();
    for (const auto& e : *u->as_array()) {
      if (!e.is_string()) bad();
      p.unset.push_back(e.as_string()->get());
    }
  }
  return p;
}

Overrides read_changes(const Reader& r, bool analysis) {
  Overrides o;
  o.file = r.file;
  const fs::path dir = fs::absolute(r.file).parent_path();
  if (analysis)
    for (const char* k : {"base", "grid", "cases", "drop_axes", "case", "axis"})
      if (r.get(k))
        throw UserError(fmt::format("{}: key '{}{}': an analysis entry runs no sweep; only [set] applies",
                                    loc(r.file, r.line(k)), r.prefix, k));
  if (r.get("base")) {
    const fs::path b = dir / r.text("base");
    std::error_code ec;
    if (!fs::is_regular_file(b, ec))
      throw UserError(fmt::format("{}: key '{}base': config file '{}' not found", loc(r.file, r.line("base")), r.prefix,
                                  b.string()));
    o.base = b.lexically_normal().string();
  }
  if (const auto* t = r.table("set")) o.set = read_patch(r, *t, "set", r.line("set"));
  if (const auto* t = r.table("grid")) {
    for (const auto& [k, v] : *t) {
      o.grid.push_back(parse_axis(r.file, std::string(k.str()), v, dir));
      for (auto& val : o.grid.back().values)
        for (auto& a : val.sets) a.file = r.file;
    }
    std::stable_sort(o.grid.begin(), o.grid.end(), [](const Axis& a, const Axis& b) { return a.line < b.line; });
  }
  o.drop_axes = r.strings("drop_axes");
  o.drop_axes_line = r.line("drop_axes");
  o.keep_cases = r.get("cases") != nullptr;
  o.cases = r.strings("cases");
  o.cases_line = r.line("cases");
  if (o.keep_cases && o.cases.empty())
    throw UserError(fmt::format("{}: key '{}cases': name at least one case", loc(r.file, o.cases_line), r.prefix));
  const auto table_of = [&](const toml::node& v, const std::string& where) -> const toml::table& {
    if (!v.is_table())
      throw UserError(fmt::format("{}: key '{}{}': expected a table [{}{}] of config keys", loc(r.file, line_of(v)),
                                  r.prefix, where, r.prefix, where));
    return *v.as_table();
  };
  if (const auto* t = r.table("case"))
    for (const auto& [name, v] : *t) {
      const std::string where = "case." + std::string(name.str());
      Patch p = read_patch(r, table_of(v, where), where, line_of(v));
      p.name = std::string(name.str());
      o.case_patches.push_back(std::move(p));
    }
  if (const auto* t = r.table("axis"))
    for (const auto& [axis, values] : *t)
      for (const auto& [name, v] : table_of(values, "axis." + std::string(axis.str()))) {
        const std::string where = "axis." + std::string(axis.str()) + "." + std::string(name.str());
        Patch p = read_patch(r, table_of(v, where), where, line_of(v));
        p.axis = std::string(axis.str());
        p.name = std::string(name.str());
        o.axis_patches.push_back(std::move(p));
      }
  const auto by_line = [](const Patch& a, const Patch& b) { return a.line < b.line; };
  std::stable_sort(o.case_patches.begin(), o.case_patches.end(), by_line);
  std::stable_sort(o.axis_patches.begin(), o.axis_patches.end(), by_line);
  return o;
}

// ---- [report] ------------------------------------------------------------------------------------

MetricSpec read_metric(const Reader& r) {
  MetricSpec m;
  m.label = r.text("label", true);
  const std::string value = r.text("value");
  m.span_tags = r.text("span_tags");
  if (value.empty() == m.span_tags.empty())
    throw UserError(fmt::format("{}: [[report.metric]] '{}': give either value (summary.json paths) or span_tags",
                                loc(r.file, r.line("label")), m.label));
  // "trims + drops": the sum of summary.json paths ("fct_us.p99", "fct_us_by_tag.incast.p99").
  for (std::size_t b = 0; !value.empty() && b <= value.size();) {
    const auto e = value.find('+', b);
    std::string term = value.substr(b, e == std::string::npos ? std::string::npos : e - b);
    term.erase(0, term.find_first_not_of(' '));
    term.erase(term.find_last_not_of(' ') + 1);
    std::vector<std::string> path;
    std::stringstream ss(term);
    for (std::string part; std::getline(ss, part, '.');) path.push_back(part);
    if (term.empty() || std::find(path.begin(), path.end(), "") != path.end())
      throw UserError(fmt::format("{}: key 'report.metric.value': '{}' is not a summary.json path (a.b.c [+ d])",
                                  loc(r.file, r.line("value")), value));
    m.terms.push_back(path);
    if (e == std::string::npos) break;
    b = e + 1;
  }
  m.has_missing = r.get("missing") != nullptr;
  m.missing = r.number("missing", 0);
  m.scale = r.number("scale", 1);
  m.divide_by = r.number("divide_by", 1);
  if (m.divide_by == 0)
    throw UserError(fmt::format("{}: key 'report.metric.divide_by': not 0", loc(r.file, r.line("divide_by"))));
  m.schemes = r.strings("schemes");
  m.if_tag = r.text("if_tag");
  m.unless_tag = r.text("unless_tag");
  m.if_key = r.text("if_key");
  return m;
}

// [report]; with `inherited` (a manifest that extends another), the keys given replace the
// inherited report's (arrays whole), unless `kind` is given: then the report is this one alone.
ReportSpec read_report(const std::string& file, const toml::table& t, const ReportSpec* inherited) {
  const Reader r(
      file, t, "report.",
      {"kind", "title", "setting", "legend", "unfinished_notes", "notes", "metric", "ratio", "margin", "paper"});
  ReportSpec s = inherited && !r.get("kind") ? *inherited : ReportSpec{};
  if (s.kind.empty()) s.kind = r.text("kind", true);
  const auto& kinds = report_kinds();
  if (std::find(kinds.begin(), kinds.end(), s.kind) == kinds.end())
    throw UserError(
        fmt::format("{}: key 'report.kind': '{}' is not one of: {}", loc(file, r.line("kind")), s.kind, joined(kinds)));
  if (s.kind != "table")
    for (const char* k : {"setting", "legend", "unfinished_notes", "metric", "ratio", "margin"})
      if (r.get(k))
        throw UserError(fmt::format("{}: key 'report.{}': only for kind = \"table\" ({} takes title, paper, notes)",
                                    loc(file, r.line(k)), k, s.kind));
  if (r.get("title")) s.title = r.text("title");
  if (r.get("setting")) s.setting = r.text("setting");
  if (s.setting.find("{}") == std::string::npos)
    throw UserError(fmt::format("{}: key 'report.setting': needs {{}} where the setting goes, e.g. \"load {{}}\"",
                                loc(file, r.line("setting"))));
  if (r.get("legend")) s.legend = r.text("legend");
  if (!s.legend.empty() && s.legend != "laps")
    throw UserError(
        fmt::format("{}: key 'report.legend': '{}' is not one of: laps", loc(file, r.line("legend")), s.legend));
  s.unfinished_notes = r.boolean("unfinished_notes", s.unfinished_notes);
  if (r.get("notes")) s.notes = r.strings("notes");
  if (r.get("metric")) {
    s.metrics.clear();
    for (const auto* m : r.tables("metric"))
      s.metrics.push_back(read_metric(Reader(file, *m, "report.metric.",
                                             {"label", "value", "span_tags", "missing", "scale", "divide_by", "schemes",
                                              "if_tag", "unless_tag", "if_key"})));
  }
  if (s.kind == "table" && s.metrics.empty())
    throw UserError(fmt::format("{}: [report] kind = \"table\" needs at least one [[report.metric]]", file));
  const auto known_metric = [&](const std::string& label, const Reader& rr, const char* key) {
    for (const auto& m : s.metrics)
      if (m.label == label) return;
    throw UserError(fmt::format("{}: key '{}{}': no [[report.metric]] has label '{}'", loc(file, rr.line(key)),
                                rr.prefix, key, label));
  };
  if (r.get("ratio")) {
    s.ratios.clear();
    for (const auto* t2 : r.tables("ratio")) {
      const Reader rr(file, *t2, "report.ratio.", {"label", "metric", "scheme"});
      s.ratios.push_back({rr.text("label", true), rr.text("metric", true), rr.text("scheme", true)});
      known_metric(s.ratios.back().metric, rr, "metric");
    }
  }
  if (r.get("margin")) {
    s.margins.clear();
    for (const auto* t2 : r.tables("margin")) {
      const Reader rr(file, *t2, "report.margin.", {"label", "metrics", "group", "group_name", "paper"});
      MarginSpec m{rr.text("label", true), rr.text("group_name", true), rr.text("paper"), rr.strings("metrics"),
                   rr.strings("group")};
      if (m.metrics.empty() || m.group.empty())
        throw UserError(fmt::format("{}: [[report.margin]] '{}': needs metrics and group", file, m.label));
      for (const auto& label : m.metrics) known_metric(label, rr, "metrics");
      s.margins.push_back(std::move(m));
    }
  }
  if (r.get("paper")) {
    s.paper.clear();
    for (const auto* t2 : r.tables("paper")) {
      const Reader rr(file, *t2, "report.paper.", {"setting", "metric", "scheme", "value"});
      s.paper.push_back({rr.text("setting"), rr.text("metric"), rr.text("scheme"), rr.text("value", true)});
    }
  }
  // Inherited ratios and margins name metrics of this report too.
  for (const auto& x : s.ratios)
    if (std::none_of(s.metrics.begin(), s.metrics.end(), [&](const MetricSpec& m) { return m.label == x.metric; }))
      throw UserError(
          fmt::format("{}: [report]: the ratio '{}' names no metric of this report ('{}')", file, x.label, x.metric));
  return s;
}

// Natural order: digit runs compare as numbers (reps-fig3 < reps-fig3-baselines < reps-fig14).
bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
      std::size_t ie = i, je = j;
      while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie]))) ++ie;
      while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je]))) ++je;
      const auto na = std::stoull(a.substr(i, ie - i)), nb = std::stoull(b.substr(j, je - j));
      if (na != nb) return na < nb;
      i = ie;
      j = je;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  return a.size() - i < b.size() - j;
}

Entry load(const std::string& file, int depth) {
  if (depth > 8) throw UserError(fmt::format("{}: 'extends' goes more than 8 manifests deep (a cycle?)", file));
  const toml::table root = parse_toml_file(file);
  const Reader r(file, root, "",
                 {"name", "paper", "figure", "section", "description", "sweep", "analysis", "extends", "time", "base",
                  "set", "grid", "cases", "drop_axes", "case", "axis", "quick", "report"});
  Entry e;
  e.file = file;
  e.name = r.text("name", true);
  if (e.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-+.") != std::string::npos)
    throw UserError(
        fmt::format("{}: key 'name': use lower-case letters, digits, '-', '+', '.' only", loc(file, r.line("name"))));
  e.paper = r.text("paper");
  e.figure = r.text("figure", true);
  e.section = r.text("section");
  e.description = r.text("description", true);
  const fs::path dir = fs::path(file).parent_path();
  const int kinds = !!r.get("sweep") + !!r.get("analysis") + !!r.get("extends");
  if (kinds != 1)
    throw UserError(
        fmt::format("{}: give exactly one of sweep (a sweep file), analysis (an lbsim subcommand) and "
                    "extends (another manifest)",
                    file));
  Needs needs;
  if (r.get("extends")) {
    const std::string parent = (dir / r.text("extends")).lexically_normal().string();
    std::error_code ec;
    if (!fs::is_regular_file(parent, ec))
      throw UserError(fmt::format("{}: key 'extends': manifest '{}' not found", loc(file, r.line("extends")), parent));
    Entry p = load(parent, depth + 1);
    e.sweep = p.sweep;
    e.analysis = p.analysis;
    e.report = p.report;
    e.layers = p.layers;
    needs.labels = p.needs;
    needs.where = p.needs_where;
  } else if (r.get("sweep")) {
    const fs::path s = dir / r.text("sweep");
    std::error_code ec;
    if (!fs::is_regular_file(s, ec))
      throw UserError(
          fmt::format("{}: key 'sweep': sweep file '{}' not found", loc(file, r.line("sweep")), s.string()));
    e.sweep = fs::absolute(s).lexically_normal().string();
    needs.sweep(e.sweep);
  } else {
    e.analysis = r.strings("analysis");
    if (e.analysis.empty()) r.bad("analysis", "the lbsim subcommand and its words, e.g. [\"balls\", \"evs\"]");
  }
  // [time]: measured (or estimated) wall time of both scales; a quick run longer than the full one
  // is a mistake in the data.
  const auto* time = r.table("time");
  if (!time) throw UserError(fmt::format("{}: key 'time' is missing ([time] quick_s = ..., full_s = ...)", file));
  const Reader tr(file, *time, "time.", {"quick_s", "full_s", "quick_estimated", "full_estimated"});
  if (!tr.get("quick_s") || !tr.get("full_s"))
    throw UserError(fmt::format("{}: [time] needs quick_s and full_s (seconds)", loc(file, line_of(*time))));
  e.quick_s = tr.number("quick_s", 0);
  e.full_s = tr.number("full_s", 0);
  e.quick_estimated = tr.boolean("quick_estimated", false);
  e.full_estimated = tr.boolean("full_estimated", false);
  if (e.quick_s < 0 || e.full_s < 0)
    throw UserError(fmt::format("{}: key 'time': times are seconds >= 0", loc(file, line_of(*time))));
  if (e.quick_s > e.full_s)
    throw UserError(fmt::format("{}: key 'time.quick_s': the quick run ({} s) takes longer than the full run ({} s)",
                                loc(file, tr.line("quick_s")), e.quick_s, e.full_s));
  // The changes, at both scales and with --quick.
  const toml::table empty;
  const auto* quick = r.table("quick");
  const Reader qr(file, quick ? *quick : empty, "quick.", kChangeKeys);
  needs_of_changes(needs, r);
  needs_of_changes(needs, qr);
  e.needs = needs.labels;
  e.needs_where = needs.where;
  if (e.needs.empty()) {
    const bool analysis = !e.analysis.empty();
    e.layers.push_back(Layer{file, read_changes(r, analysis), read_changes(qr, analysis)});
  }
  if (const auto* rep = r.table("report")) {
    if (!e.analysis.empty())
      throw UserError(
          fmt::format("{}: key 'report': an analysis entry prints its own comparison", loc(file, r.line("report"))));
    e.report = read_report(file, *rep, r.get("extends") ? &e.report : nullptr);
  }
  return e;
}

}  // namespace

std::string Entry::source() const { return paper.empty() ? figure : "[" + paper + "] " + figure; }

Entry load_entry(const std::string& file) { return load(file, 0); }

std::vector<Entry> discover(const fs::path& examples) {
  std::vector<std::string> files;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(examples, ec), end; !ec && it != end; it.increment(ec))
    if (it->is_regular_file() && it->path().extension() == ".toml" &&
        it->path().parent_path().filename() == "reproduce")
      files.push_back(it->path().string());
  std::sort(files.begin(), files.end());
  std::vector<Entry> out;
  std::map<std::string, std::string> seen;
  for (const auto& f : files) {
    out.push_back(load_entry(f));
    const auto [it, fresh] = seen.emplace(out.back().name, f);
    if (!fresh)
      throw UserError(fmt::format("{}: key 'name': '{}' is also the name of {}", f, out.back().name, it->second));
  }
  std::stable_sort(out.begin(), out.end(), [](const Entry& a, const Entry& b) { return natural_less(a.name, b.name); });
  return out;
}

SweepSpec entry_sweep(const Entry& e, bool quick) {
  if (!e.needs.empty()) throw UserError(fmt::format("{}: this build lacks {}", e.name, joined(e.needs)));
  if (e.sweep.empty())
    throw UserError(fmt::format("{} is an analysis (lbsim {}), not a sweep", e.name, joined(e.analysis)));
  SweepSpec s = parse_sweep_file(e.sweep);
  for (const auto& l : e.layers) {
    apply_overrides(s, l.all);
    if (quick) apply_overrides(s, l.quick);
  }
  s.name = e.name;
  s.out.clear();  // `lbsim reproduce` chooses the output folder
  return s;
}

std::vector<std::string> analysis_args(const Entry& e, bool quick) {
  if (!e.needs.empty()) throw UserError(fmt::format("{}: this build lacks {}", e.name, joined(e.needs)));
  std::vector<Assignment> sets;
  const auto put = [&](const Patch& p) {
    for (const auto& a : p.sets) {
      const auto it = std::find_if(sets.begin(), sets.end(), [&](const Assignment& x) { return x.key == a.key; });
      if (it != sets.end())
        *it = a;
      else
        sets.push_back(a);
    }
    for (const auto& key : p.unset) {
      const auto it = std::find_if(sets.begin(), sets.end(), [&](const Assignment& x) { return x.key == key; });
      if (it == sets.end())
        throw UserError(fmt::format("{}: key 'unset': no earlier [set] of {} sets '{}'", e.file, e.name, key));
      sets.erase(it);
    }
  };
  for (const auto& l : e.layers) {
    put(l.all.set);
    if (quick) put(l.quick.set);
  }
  // A string value goes as the bare word when lbsim reads that back as the same string (ops,recycled).
  const auto arg = [](const std::string& value) {
    if (value.empty() || (value[0] != '\'' && value[0] != '"')) return value;
    const std::string s = *toml::parse("v = " + value)["v"].value<std::string>();
    try {
      (void)toml::parse("v = " + s);
    } catch (const toml::parse_error&) {
      return s;
    }
    std::string q = "\"";
    for (const char c : s) q += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
    return q + "\"";
  };
  std::vector<std::string> args = e.analysis;
  for (const auto& a : sets) args.insert(args.end(), {"--set", a.key + "=" + arg(a.value)});
  return args;
}

std::string format_duration(double s, bool estimated) {
  const auto trim = [](std::string t) {
    if (t.size() > 2 && t.compare(t.size() - 2, 2, ".0") == 0) t.resize(t.size() - 2);
    return t;
  };
  std::string t;
  if (s < 1)
    t = "<1 s";
  else if (s < 89.5)
    t = fmt::format("{:.0f} s", s);
  else if (s < 5370)
    t = (s < 597 ? trim(fmt::format("{:.1f}", s / 60)) : fmt::format("{:.0f}", s / 60)) + " min";
  else
    t = (s < 35820 ? trim(fmt::format("{:.1f}", s / 3600)) : fmt::format("{:.0f}", s / 3600)) + " h";
  return (estimated ? "~" : "") + t;
}

}  // namespace lbsim::workflow
