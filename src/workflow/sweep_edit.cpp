// Changes to a parsed sweep (manifest overrides, --seeds, --set) and the sweep written back as TOML.
#include "workflow/sweep_edit.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include <fmt/core.h>
#include <toml++/toml.h>

#include "config/reader.h"
#include "core/error.h"
#include "workflow/sweep_toml.h"

namespace lbsim::workflow {

namespace {

namespace fs = std::filesystem;

std::string loc(const std::string& file, int line) { return line > 0 ? fmt::format("{}:{}", file, line) : file; }

// `a` replaces the assignment of the same key in `sets`, or is added last.
void put(std::vector<Assignment>& sets, const Assignment& a) {
  for (auto& x : sets)
    if (x.key == a.key) {
      x = a;
      return;
    }
  sets.push_back(a);
}

std::string names(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s.empty() ? "none" : s;
}

std::vector<std::string> case_names(const SweepSpec& s) {
  std::vector<std::string> v;
  for (const auto& c : s.cases) v.push_back(c.name);
  return v;
}

// A TOML basic string ("..." with escapes).
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\')
      out += std::string("\\") + c;
    else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
    else
      out += c;
  }
  return out + "\"";
}

// An assignment's value as written: strings as basic strings (the parser keeps toml++'s quoting).
std::string value_text(const std::string& value) {
  if (value.empty() || (value[0] != '\'' && value[0] != '"')) return value;
  const toml::table t = toml::parse("v = " + value);
  return quoted(t.get("v")->as_string()->get());
}

// A key as written in the sweep file: quoted when it holds a dot (a config key).
std::string key_text(const std::string& key) {
  return key.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") == std::string::npos
             ? key
             : quoted(key);
}

void write_sets(std::string& out, const std::vector<Assignment>& sets) {
  for (const auto& a : sets) out += fmt::format("{} = {}\n", key_text(a.key), value_text(a.value));
}

// A plain axis value sets exactly its axis key, labelled with the value (a named axis value has a
// name of its own and any keys).
bool plain(const Axis& ax) {
  for (const auto& v : ax.values)
    if (v.sets.size() != 1 || v.sets[0].key != ax.key || v.sets[0].label != v.label) return false;
  return true;
}

}  // namespace

void apply_overrides(SweepSpec& s, const Overrides& o) {
  if (!o.base.empty()) s.base = o.base;
  // The keys of one patch: replaced in place or added, then the removed ones.
  const auto patch = [&](std::vector<Assignment>& sets, const Patch& p, const std::string& what) {
    for (const auto& a : p.sets) put(sets, a);
    for (const auto& key : p.unset) {
      const auto it = std::find_if(sets.begin(), sets.end(), [&](const Assignment& x) { return x.key == key; });
      if (it == sets.end())
        throw UserError(fmt::format("{}: key 'unset': {} of the sweep {} does not set '{}'", loc(o.file, p.line), what,
                                    s.file, key));
      sets.erase(it);
    }
  };
  patch(s.sets, o.set, "[set]");
  for (const auto& ax : o.grid) {
    const auto it = std::find_if(s.axes.begin(), s.axes.end(), [&](const Axis& x) { return x.key == ax.key; });
    if (it != s.axes.end())
      *it = ax;
    else
      s.axes.push_back(ax);
  }
  for (const auto& key : o.drop_axes) {
    const auto it = std::find_if(s.axes.begin(), s.axes.end(), [&](const Axis& x) { return x.key == key; });
    if (it == s.axes.end()) {
      std::vector<std::string> keys;
      for (const auto& ax : s.axes) keys.push_back(ax.key);
      throw UserError(fmt::format("{}: key 'drop_axes': the sweep {} has no axis '{}' (axes: {})",
                                  loc(o.file, o.drop_axes_line), s.file, key, names(keys)));
    }
    s.axes.erase(it);
  }
  for (const auto& p : o.case_patches) {
    const auto it = std::find_if(s.cases.begin(), s.cases.end(), [&](const Case& x) { return x.name == p.name; });
    if (it == s.cases.end())
      throw UserError(fmt::format("{}: key 'case.{}': the sweep {} has no case '{}' (cases: {})", loc(o.file, p.line),
                                  p.name, s.file, p.name, names(case_names(s))));
    patch(it->sets, p, "case " + p.name);
  }
  for (const auto& p : o.axis_patches) {
    const auto ax = std::find_if(s.axes.begin(), s.axes.end(), [&](const Axis& x) { return x.key == p.axis; });
    std::vector<std::string> labels;
    if (ax != s.axes.end())
      for (const auto& v : ax->values) labels.push_back(v.label);
    const auto v = ax == s.axes.end() ? std::vector<AxisValue>::iterator{}
                                      : std::find_if(ax->values.begin(), ax->values.end(),
                                                     [&](const AxisValue& x) { return x.label == p.name; });
    if (ax == s.axes.end() || v == ax->values.end())
      throw UserError(fmt::format("{}: key 'axis.{}.{}': the sweep {} has no value '{}' on a named axis '{}' ({})",
                                  loc(o.file, p.line), p.axis, p.name, s.file, p.name, p.axis,
                                  ax == s.axes.end() ? "no such axis" : "values: " + names(labels)));
    patch(v->sets, p, "axis value " + p.axis + "." + p.name);
  }
  if (o.keep_cases) {
    for (const auto& n : o.cases)
      if (std::none_of(s.cases.begin(), s.cases.end(), [&](const Case& c) { return c.name == n; }))
        throw UserError(fmt::format("{}: key 'cases': the sweep {} has no case '{}' (cases: {})",
                                    loc(o.file, o.cases_line), s.file, n, names(case_names(s))));
    std::vector<Case> kept;
    for (const auto& c : s.cases)
      if (std::find(o.cases.begin(), o.cases.end(), c.name) != o.cases.end()) kept.push_back(c);
    s.cases = std::move(kept);
  }
}

void add_seed_axis(SweepSpec& s, int n) {
  const auto sets_seed = [](const std::vector<Assignment>& v) {
    return std::any_of(v.begin(), v.end(), [](const Assignment& a) { return a.key == "run.seed"; });
  };
  bool fixed = sets_seed(s.sets);
  for (const auto& c : s.cases) fixed = fixed || sets_seed(c.sets);
  for (const auto& ax : s.axes) {
    fixed = fixed || ax.key == "run.seed";
    for (const auto& v : ax.values) fixed = fixed || sets_seed(v.sets);
  }
  if (fixed) throw UserError(fmt::format("--seeds: {} fixes or sweeps run.seed itself", s.name));
  Axis ax;
  ax.key = "run.seed";
  for (int i = 1; i <= n; ++i) {
    const std::string v = std::to_string(i);
    ax.values.push_back(AxisValue{v, {Assignment{"run.seed", v, v, 0}}, 0});
  }
  s.axes.insert(s.axes.begin(), std::move(ax));
}

void set_for_every_point(SweepSpec& s, const std::vector<std::string>& sets) {
  for (const auto& arg : sets) {
    const std::string line = config::override_line(arg);  // checks the key and the value
    const auto eq = line.find(" = ");
    const std::string quoted_key = line.substr(0, eq);
    const std::string key = arg.substr(0, arg.find('='));
    bool varied = false;
    for (const auto& c : s.cases)
      for (const auto& a : c.sets) varied = varied || a.key == key;
    for (const auto& ax : s.axes) {
      varied = varied || ax.key == key;
      for (const auto& v : ax.values)
        for (const auto& a : v.sets) varied = varied || a.key == key;
    }
    if (varied) throw UserError(fmt::format("--set {}: {} varies {} per point (see --print)", arg, s.name, quoted_key));
    Assignment a;
    a.key = key;
    a.value = line.substr(eq + 3);
    a.label = a.value;
    // A relative path on the command line is relative to the working folder.
    toml::table t = toml::parse("v = " + a.value);
    if (const auto* str = t.get("v")->as_string();
        str && is_path_key(key, str->get()) && !str->get().empty() && fs::path(str->get()).is_relative())
      a.value = quoted(fs::absolute(str->get()).lexically_normal().string());
    put(s.sets, a);
  }
}

std::string sweep_to_toml(const SweepSpec& s, const std::vector<std::string>& header) {
  std::string out;
  for (const auto& h : header) out += "# " + h + "\n";
  out += fmt::format("name = {}\n", quoted(s.name));
  if (!s.base.empty()) out += fmt::format("base = {}\n", quoted(s.base));
  if (!s.out.empty()) out += fmt::format("out = {}\n", quoted(s.out));
  if (!s.sbatch.empty()) {
    std::string v;
    for (const auto& b : s.sbatch) v += (v.empty() ? "" : ", ") + quoted(b);
    out += fmt::format("sbatch = [{}]\n", v);
  }
  if (!s.sets.empty()) {
    out += "\n[set]\n";
    write_sets(out, s.sets);
  }
  if (!s.axes.empty()) {
    out += "\n[grid]\n";
    for (const auto& ax : s.axes) {
      if (plain(ax)) {
        std::string v;
        for (const auto& x : ax.values) v += (v.empty() ? "" : ", ") + value_text(x.sets[0].value);
        out += fmt::format("{} = [{}]\n", key_text(ax.key), v);
        continue;
      }
      out += fmt::format("{} = [\n", key_text(ax.key));
      for (const auto& x : ax.values) {
        out += fmt::format("  {{name = {}", quoted(x.label));
        for (const auto& a : x.sets) out += fmt::format(", {} = {}", key_text(a.key), value_text(a.value));
        out += "},\n";
      }
      out += "]\n";
    }
  }
  for (const auto& c : s.cases) {
    out += fmt::format("\n[[case]]\nname = {}\n", quoted(c.name));
    write_sets(out, c.sets);
  }
  return out;
}

}  // namespace lbsim::workflow
