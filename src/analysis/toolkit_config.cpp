#include "analysis/toolkit_config.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <vector>

#include <fmt/core.h>
#include <toml++/toml.h>

#include "analysis/scale.h"
#include "core/error.h"
#include "core/text.h"

namespace lbsim::analysis {

namespace {

std::string closest_hint(std::string_view key, const std::vector<std::string>& valid) {
  std::string best;
  std::size_t bd = static_cast<std::size_t>(-1);
  for (const auto& v : valid)
    if (auto d = edit_distance(key, v); d < bd) {
      bd = d;
      best = v;
    }
  std::string list;
  for (const auto& v : valid) list += (list.empty() ? "" : ", ") + v;
  if (!best.empty() && bd <= std::max<std::size_t>(2, key.size() / 3))
    return fmt::format("; did you mean '{}'? (valid: {})", best, list);
  return fmt::format(" (valid: {})", list);
}

class Reader {
 public:
  explicit Reader(std::string name) : name_(std::move(name)) {}

  std::string where(const toml::source_region& r) const {
    return fmt::format("{}:{}", name_, r.begin.line);
  }

  // Checks that every key of `tbl` is in `valid`; `prefix` is the dotted table name.
  void only_keys(const toml::table& tbl, const std::string& prefix, const std::vector<std::string>& valid) const {
    for (auto&& [k, v] : tbl) {
      const std::string key(k.str());
      if (std::find(valid.begin(), valid.end(), key) == valid.end())
        throw UserError(fmt::format("{}: unknown key '{}{}'{}", where(k.source()), prefix, key,
                                    closest_hint(key, valid)));
    }
  }

  const toml::table& table(const toml::node& n, const std::string& key) const {
    if (!n.is_table())
      throw UserError(fmt::format("{}: '{}' must be a table ([{}])", where(n.source()), key, key));
    return *n.as_table();
  }

  long long integer(const toml::node& n, const std::string& key, long long lo, long long hi) const {
    if (!n.is_integer())
      throw UserError(fmt::format("{}: '{}' must be an integer", where(n.source()), key));
    const long long v = n.as_integer()->get();
    if (v < lo || v > hi)
      throw UserError(fmt::format("{}: '{}' = {} is out of range [{}, {}]", where(n.source()), key, v, lo, hi));
    return v;
  }

  double number(const toml::node& n, const std::string& key) const {
    double v = 0;
    if (n.is_integer())
      v = static_cast<double>(n.as_integer()->get());
    else if (n.is_floating_point())
      v = n.as_floating_point()->get();
    else
      throw UserError(fmt::format("{}: '{}' must be a number", where(n.source()), key));
    if (v < 0) throw UserError(fmt::format("{}: '{}' must be >= 0, got {}", where(n.source()), key, v));
    return v;
  }

  std::string string(const toml::node& n, const std::string& key) const {
    if (!n.is_string()) throw UserError(fmt::format("{}: '{}' must be a string", where(n.source()), key));
    return n.as_string()->get();
  }

 private:
  std::string name_;
};

}  // namespace

std::string ToolkitConfig::where(int line) const {
  return line > 0 ? fmt::format("{}:{}", source, line) : source;
}

ToolkitConfig default_toolkit_config() {
  ToolkitConfig c;
  c.prices = default_prices();
  return c;
}

ToolkitConfig parse_toolkit_config(std::string_view text, const std::string& name) {
  ToolkitConfig c = default_toolkit_config();
  c.source = name;
  toml::table root;
  try {
    root = toml::parse(text, name);
  } catch (const toml::parse_error& e) {
    throw UserError(fmt::format("{}:{}: TOML syntax error: {}", name, e.source().begin.line, e.description()));
  }
  const Reader r(name);
  r.only_keys(root, "", {"topology", "cabling", "cost"});

  if (const auto* n = root.get("topology")) {
    const auto& t = r.table(*n, "topology");
    r.only_keys(t, "topology.", {"kind", "q", "p"});
    if (const auto* v = t.get("kind")) {
      c.kind = r.string(*v, "topology.kind");
      if (c.kind != "slim_fly")
        throw UserError(fmt::format("{}: topology.kind = \"{}\": the Slim Fly toolkit supports only "
                                    "kind = \"slim_fly\"",
                                    r.where(v->source()), c.kind));
    }
    if (const auto* v = t.get("q")) {
      c.q = static_cast<int>(r.integer(*v, "topology.q", 0, 1024));
      c.q_line = static_cast<int>(v->source().begin.line);
    }
    if (const auto* v = t.get("p")) {
      c.p = static_cast<int>(r.integer(*v, "topology.p", 0, 4096));
      c.p_line = static_cast<int>(v->source().begin.line);
    }
  }
  if (const auto* n = root.get("cabling")) {
    const auto& t = r.table(*n, "cabling");
    r.only_keys(t, "cabling.", {"switch_ports", "name_prefix"});
    if (const auto* v = t.get("switch_ports")) {
      c.switch_ports = static_cast<int>(r.integer(*v, "cabling.switch_ports", 1, 4096));
      c.switch_ports_line = static_cast<int>(v->source().begin.line);
    }
    if (const auto* v = t.get("name_prefix")) {
      c.name_prefix = r.string(*v, "cabling.name_prefix");
      const bool ok = !c.name_prefix.empty() &&
                      std::all_of(c.name_prefix.begin(), c.name_prefix.end(), [](char ch) {
                        return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.';
                      });
      if (!ok)
        throw UserError(fmt::format("{}: cabling.name_prefix = \"{}\" must be non-empty and use only "
                                    "letters, digits, '_' or '.' (it is matched inside node descriptions)",
                                    r.where(v->source()), c.name_prefix));
    }
  }
  if (const auto* n = root.get("cost")) {
    const auto& t = r.table(*n, "cost");
    for (auto&& [k, v] : t) {
      const std::string key(k.str());
      int radix = 0;
      std::size_t used = 0;
      if (key.rfind("radix", 0) == 0 && key.size() > 5) {
        try {
          radix = std::stoi(key.substr(5), &used);
        } catch (const std::exception&) {
          used = 0;
        }
      }
      if (used == 0 || used != key.size() - 5 || radix < 2 || radix > 4096)
        throw UserError(fmt::format("{}: unknown key 'cost.{}' (expected tables named cost.radix<K>, "
                                    "e.g. [cost.radix36], K = switch port count)",
                                    r.where(k.source()), key));
      const auto& pt = r.table(v, "cost." + key);
      r.only_keys(pt, "cost." + key + ".", {"switch", "switch_cable", "endpoint_cable"});
      Prices pr = c.prices.count(radix) ? c.prices[radix] : Prices{};
      if (const auto* x = pt.get("switch")) pr.switch_price = r.number(*x, "cost." + key + ".switch");
      if (const auto* x = pt.get("switch_cable"))
        pr.switch_cable = r.number(*x, "cost." + key + ".switch_cable");
      if (const auto* x = pt.get("endpoint_cable"))
        pr.endpoint_cable = r.number(*x, "cost." + key + ".endpoint_cable");
      c.prices[radix] = pr;
    }
  }
  return c;
}

ToolkitConfig load_toolkit_config(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UserError(fmt::format("{}: cannot open config file", path));
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_toolkit_config(ss.str(), path);
}

}  // namespace lbsim::analysis
