#include "config/reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include <fmt/core.h>
#include <toml++/toml.h>

#include "core/error.h"
#include "core/text.h"

namespace lbsim::config {

namespace {

std::string where(const std::string& file, const toml::source_region& src) {
  if (src.begin.line == 0) return file;
  return fmt::format("{}:{}", file, src.begin.line);
}

const char* node_word(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a number";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::table:
      return "a table";
    default:
      return "a date/time";
  }
}

// A TOML value as the key's Value (sizes parsed); the type itself is checked by Config::set.
Value to_value(const KeyDef& d, const toml::node& n, const std::string& loc) {
  if (n.is_boolean()) return n.as_boolean()->get();
  if (n.is_integer()) return static_cast<std::int64_t>(n.as_integer()->get());
  if (n.is_floating_point()) return n.as_floating_point()->get();
  if (n.is_string()) {
    const std::string s = n.as_string()->get();
    if (d.type == KeyType::Int && d.size) {
      std::int64_t v = 0;
      if (!parse_size(s, v))
        throw UserError(
            fmt::format("{}: key '{}': '{}' is not a size (expected bytes, e.g. 4096, \"4KiB\", \"8MiB\", \"1GB\")",
                        loc, d.key, s));
      return v;
    }
    return s;
  }
  const char* expected = d.type == KeyType::Bool   ? "true or false"
                         : d.type == KeyType::Int  ? "an integer"
                         : d.type == KeyType::Real ? "a number"
                                                   : "a string";
  throw UserError(fmt::format("{}: key '{}': expected {}, got {}", loc, d.key, expected, node_word(n)));
}

// "did you mean": a key of the same section when the section exists; else the closest section, and
// the closest key in it when `key` names one ("topolgy" -> section [topology], "topolgy.hots" ->
// topology.hosts), not the key whose whole name is closest.
std::string unknown_key_message(const std::string& loc, const std::string& key) {
  const auto dot = key.find('.');
  const std::string sec = key.substr(0, dot);
  const auto& secs = sections();
  if (std::find(secs.begin(), secs.end(), sec) != secs.end())
    return fmt::format("{}: unknown key '{}' (did you mean '{}'?)", loc, key, closest_key(key));
  std::string best = secs.front();
  std::size_t best_d = ~std::size_t{0};
  for (const auto& s : secs)
    if (const auto d = edit_distance(sec, s); d < best_d) {
      best_d = d;
      best = s;
    }
  if (dot == std::string::npos)
    return fmt::format("{}: unknown section [{}] (did you mean [{}]? sections: {})", loc, key, best, join(secs));
  return fmt::format("{}: unknown key '{}': no section [{}] (did you mean '{}'?)", loc, key, sec,
                     closest_key(best + key.substr(dot)));
}

void load_table(Config& cfg, const toml::table& root, const std::string& name) {
  const auto& secs = sections();
  for (const auto& [sec_key, sec_node] : root) {
    const std::string sec(sec_key.str());
    const std::string loc = where(name, sec_node.source());
    if (!sec_node.is_table())
      throw UserError(fmt::format("{}: '{}' must be inside a section ([topology], [network], ...); did you mean '{}'?",
                                  loc, sec, closest_key(sec)));
    if (std::find(secs.begin(), secs.end(), sec) == secs.end()) throw UserError(unknown_key_message(loc, sec));
    for (const auto& [k, v] : *sec_node.as_table()) {
      const std::string full = sec + "." + std::string(k.str());
      const std::string kloc = where(name, v.source());
      const KeyDef* d = find_key(full);
      if (!d) throw UserError(unknown_key_message(kloc, full));
      cfg.set(full, to_value(*d, v, kloc), kloc);
    }
  }
}

}  // namespace

bool parse_size(std::string_view s, std::int64_t& out) {
  // The number: digits with at most one decimal point, nothing else ("1..5KiB" is not a size).
  std::size_t i = 0, dots = 0, digits = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) {
    if (s[i] == '.')
      ++dots;
    else
      ++digits;
    ++i;
  }
  if (digits == 0 || dots > 1) return false;
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + i, v);
  if (ec != std::errc() || end != s.data() + i) return false;
  std::string unit(s.substr(i));
  unit.erase(std::remove(unit.begin(), unit.end(), ' '), unit.end());
  double mul = 0;
  if (unit.empty() || unit == "B")
    mul = 1;
  else if (unit == "KiB")
    mul = 1024.0;
  else if (unit == "MiB")
    mul = 1024.0 * 1024;
  else if (unit == "GiB")
    mul = 1024.0 * 1024 * 1024;
  else if (unit == "KB" || unit == "kB")
    mul = 1e3;
  else if (unit == "MB")
    mul = 1e6;
  else if (unit == "GB")
    mul = 1e9;
  else
    return false;
  const double bytes = std::round(v * mul);
  if (!(bytes < 9.2e18)) return false;
  out = static_cast<std::int64_t>(bytes);
  return true;
}

void load_text(Config& cfg, std::string_view text, const std::string& name) {
  toml::table root;
  try {
    root = toml::parse(text, name);
  } catch (const toml::parse_error& e) {
    throw UserError(fmt::format("{}:{}:{}: TOML syntax error: {}", name, e.source().begin.line, e.source().begin.column,
                                e.description()));
  }
  if (!name.empty()) cfg.source_file = name;
  load_table(cfg, root, name);
}

void load_file(Config& cfg, const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UserError(fmt::format("cannot open config file '{}'", path));
  std::stringstream ss;
  ss << in.rdbuf();
  load_text(cfg, ss.str(), path);
}

void apply_override(Config& cfg, const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw UserError(fmt::format("--set '{}': expected section.key=value", assignment));
  const std::string key = assignment.substr(0, eq);
  const std::string value = assignment.substr(eq + 1);
  const KeyDef* d = find_key(key);
  if (!d) throw UserError(unknown_key_message("--set", key));
  toml::table t;
  try {
    t = toml::parse("v = " + value);
  } catch (const toml::parse_error&) {
    t = toml::table{{"v", value}};  // a bare word: take it as a string (e.g. lb.algorithm=ops)
  }
  cfg.set(key, to_value(*d, *t.get("v"), "--set"), "--set");
}

std::string override_line(const std::string& assignment) {
  Config scratch;
  apply_override(scratch, assignment);  // the key exists and the value has its type and range
  const auto eq = assignment.find('=');
  const std::string value = assignment.substr(eq + 1);
  std::string text = value;
  try {
    (void)toml::parse("v = " + value);
  } catch (const toml::parse_error&) {
    std::ostringstream os;
    os << toml::table{{"v", value}};
    text = os.str().substr(os.str().find('=') + 2);  // the bare word as a TOML string
  }
  return fmt::format("\"{}\" = {}", assignment.substr(0, eq), text);
}

Config load(const std::string& file, const std::vector<std::string>& overrides, bool check_reads) {
  Config cfg;
  if (!file.empty()) load_file(cfg, file);
  for (const auto& s : overrides) apply_override(cfg, s);
  check(cfg);
  if (check_reads) check_keys_read(cfg);
  return cfg;
}

std::string to_toml(const Config& cfg) {
  std::ostringstream os;
  os << "# Resolved lbsim configuration: every key with the value this run used.\n";
  std::string cur;
  for (const auto& d : keys()) {
    const std::string sec = d.section();
    if (sec != cur) {
      os << (cur.empty() ? "" : "\n") << "[" << sec << "]\n";
      cur = sec;
    }
    // The keys of plug-ins the run does not select are written as comments with their defaults, so the
    // file loads again (setting a key no selected plug-in reads is an error) and still shows every key.
    const bool unread = !is_read(cfg, d);
    os << (unread ? "# " : "") << d.name() << " = ";
    std::visit(
        [&](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, bool>)
            os << (v ? "true" : "false");
          else if constexpr (std::is_same_v<T, std::int64_t>)
            os << v;
          else if constexpr (std::is_same_v<T, double>) {
            std::string s = fmt::format("{}", v);
            if (s.find_first_of(".eEin") == std::string::npos) s += ".0";
            os << s;
          } else {
            os << toml::value<std::string>(v);
          }
        },
        unread ? d.def : cfg.value(d.key));
    if (unread) os << "  # read only by " << readers_text(d);
    os << "\n";
  }
  return os.str();
}

std::string keys_markdown() {
  std::ostringstream os;
  os << "# Configuration reference\n\n"
        "Generated by `lbsim config --markdown` from the key table, which the layers and plug-ins declare "
        "beside their code (a test keeps this file in sync). One file format serves every command (`run`, "
        "`compare`, `topo`, `paths`, `cabling`, `layers`, `mat`, `scale`, `balls`, `sweep`). Config files are TOML "
        "with "
        "the sections below; `--set section.key=value` overrides any key on the command line. Unknown keys, "
        "wrong types and out-of-range values are errors that name the file, the line and the key. A key "
        "marked with plug-in names is read by those plug-ins only: set while none of them is selected, it is an "
        "error (`lbsim config` writes it as a comment), unless it comes from a config file whose choice of plug-in "
        "a later `--set` or sweep axis replaced (the file's key belongs to the plug-in the file chose).\n";
  std::string cur;
  for (const auto& d : keys()) {
    const std::string sec = d.section();
    if (sec != cur) {
      os << "\n## [" << sec << "]\n\n| key | default | unit | meaning |\n|---|---|---|---|\n";
      cur = sec;
    }
    std::string dflt = std::visit(
        [](const auto& v) -> std::string {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, bool>)
            return v ? "true" : "false";
          else if constexpr (std::is_same_v<T, std::string>)
            return "\"" + v + "\"";
          else
            return fmt::format("{}", v);
        },
        d.def);
    // "(dragonfly)": read by that plug-in only; "(fat_tree, dragonfly, ...)": a shared key and its readers.
    std::vector<std::string> by;
    if (!d.owner.empty()) by.push_back(d.owner);
    for (const auto& r : d.readers)
      if (std::find(by.begin(), by.end(), r.second) == by.end()) by.push_back(r.second);
    std::string doc = by.empty() ? d.doc : "(" + join(by) + ") " + d.doc;
    const auto allowed = d.allowed();
    if (!allowed.empty()) {
      doc += " One of:";
      for (std::size_t i = 0; i < allowed.size(); ++i) doc += (i ? ", `" : " `") + allowed[i] + "`";
      doc += ".";
    }
    if (d.size) doc += " Accepts a size string (\"4KiB\", \"8MiB\", \"1GB\").";
    os << "| `" << d.key << "` | `" << dflt << "` | " << d.unit << " | " << doc << " |\n";
  }
  // The plug-ins behind each selecting key, with their one-line docs.
  bool header = false;
  for (const auto& d : keys()) {
    const auto plugins = plugins_of(d.key);
    if (plugins.empty()) continue;
    if (!header) {
      os << "\n## Plug-ins\n\nEach plug-in registers itself in its own source file with its name, its keys and "
            "a factory (docs/architecture.md, \"Adding a plug-in\").\n";
      header = true;
    }
    os << "\n### `" << d.key << "`\n\n| name | what it is |\n|---|---|\n";
    for (const auto& p : plugins) os << "| `" << p.name << "` | " << p.doc << " |\n";
  }
  return os.str();
}

}  // namespace lbsim::config
