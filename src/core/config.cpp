#include "core/config.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <stdexcept>
#include <unordered_map>

#include <fmt/core.h>

#include "core/error.h"
#include "core/text.h"
#include "core/time.h"

namespace lbsim::config {

namespace {

struct Group {
  std::string owner;
  std::vector<KeyDef> keys;
};

struct SelectionRule {
  std::string selector;
  Selection fn;
};

// Declarations collected during static initialisation; frozen into the table on first use.
struct Table {
  std::vector<Group> pending;
  std::vector<Check> checks;
  std::map<std::string, Preset> presets;  // by name: applied in a fixed order
  std::vector<SelectionRule> selections;
  std::vector<std::pair<std::string, PluginDoc>> plugins;
  bool frozen = false;
  std::vector<KeyDef> keys;
  std::vector<std::string> sections;
  struct Hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, std::size_t, Hash, std::equal_to<>> index;
};

Table& table() {
  static Table t;
  return t;
}

const std::vector<std::string> kSectionOrder{"topology", "network",  "routing", "transport", "lb",
                                             "workload", "failures", "output",  "run"};

// A time key cannot ask for more than simulated time holds (int64 picoseconds, about 106 days):
// its range is capped at declaration, so a larger value is an out-of-range error naming the key
// instead of a silent overflow ([issue 14]: run.end_us = 1e15 ended the run at once).
void clamp_to_sim_time(KeyDef& d) {
  const double ps_per_unit = d.unit == "ps"   ? 1.0
                             : d.unit == "ns" ? 1e3
                             : d.unit == "us" ? 1e6
                             : d.unit == "ms" ? 1e9
                             : d.unit == "s"  ? 1e12
                                              : 0.0;
  if (ps_per_unit == 0.0) return;
  const double limit = std::floor(kMaxSimTimePs / ps_per_unit);
  d.max = std::min(d.max, limit);
  d.min = std::max(d.min, -limit);
}

void freeze() {
  auto& t = table();
  if (t.frozen) return;
  t.frozen = true;
  // Section rank: the fixed order first, then other sections alphabetically.
  std::vector<std::string> extra;
  for (const auto& g : t.pending)
    for (const auto& k : g.keys) {
      const auto dot = k.key.find('.');
      if (dot == std::string::npos || dot == 0 || dot + 1 == k.key.size())
        throw std::logic_error("config key '" + k.key + "' is not of the form section.name");
      const std::string sec = k.section();
      if (std::find(kSectionOrder.begin(), kSectionOrder.end(), sec) == kSectionOrder.end() &&
          std::find(extra.begin(), extra.end(), sec) == extra.end())
        extra.push_back(sec);
    }
  std::sort(extra.begin(), extra.end());
  t.sections = kSectionOrder;
  t.sections.insert(t.sections.end(), extra.begin(), extra.end());
  auto rank = [&](const std::string& sec) {
    return static_cast<std::size_t>(std::find(t.sections.begin(), t.sections.end(), sec) - t.sections.begin());
  };
  // Deterministic whatever the static initialisation order: (section, owner, group, position).
  struct Item {
    std::size_t sec;
    std::string owner;
    std::string group_first;  // first key of the declaring group (orders groups of one owner)
    std::size_t pos;
    const KeyDef* def;
  };
  std::vector<Item> items;
  for (const auto& g : t.pending)
    for (std::size_t i = 0; i < g.keys.size(); ++i)
      items.push_back(Item{rank(g.keys[i].section()), g.owner, g.keys.front().key, i, &g.keys[i]});
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    if (a.sec != b.sec) return a.sec < b.sec;
    if (a.owner != b.owner) return a.owner < b.owner;  // "" (the section's own keys) first
    if (a.group_first != b.group_first) return a.group_first < b.group_first;
    return a.pos < b.pos;
  });
  for (const auto& it : items) {
    if (t.index.count(it.def->key))
      throw std::logic_error("config key '" + it.def->key + "' is declared twice (by '" +
                             t.keys[t.index.find(it.def->key)->second].owner + "' and '" + it.owner + "')");
    t.index.emplace(it.def->key, t.keys.size());
    t.keys.push_back(*it.def);
    clamp_to_sim_time(t.keys.back());
  }
  t.pending.clear();
}

const char* type_word(KeyType t) {
  switch (t) {
    case KeyType::Bool:
      return "true or false";
    case KeyType::Int:
      return "an integer";
    case KeyType::Real:
      return "a number";
    case KeyType::Text:
      return "a string";
  }
  return "?";
}

const char* value_word(const Value& v) {
  switch (v.index()) {
    case 0:
      return "a boolean";
    case 1:
      return "an integer";
    case 2:
      return "a number";
    default:
      return "a string";
  }
}

std::string show_value(const Value& v) {
  return std::visit(
      [](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, bool>)
          return x ? "true" : "false";
        else if constexpr (std::is_same_v<T, std::string>)
          return "\"" + x + "\"";
        else
          return fmt::format("{}", x);
      },
      v);
}

}  // namespace

namespace {
KeyDef make_key(std::string key, KeyType type, Value def, std::string unit, std::string doc) {
  KeyDef k;
  k.key = std::move(key);
  k.type = type;
  k.def = std::move(def);
  k.unit = std::move(unit);
  k.doc = std::move(doc);
  return k;
}
}  // namespace

KeyDef flag(std::string key, bool def, std::string doc) {
  return make_key(std::move(key), KeyType::Bool, def, "", std::move(doc));
}

KeyDef integer(std::string key, std::int64_t def, std::string unit, std::string doc) {
  return make_key(std::move(key), KeyType::Int, def, std::move(unit), std::move(doc));
}

KeyDef real(std::string key, double def, std::string unit, std::string doc) {
  return make_key(std::move(key), KeyType::Real, def, std::move(unit), std::move(doc));
}

KeyDef text(std::string key, std::string def, std::string doc) {
  return make_key(std::move(key), KeyType::Text, std::move(def), "", std::move(doc));
}

KeyDef bytes(std::string key, std::int64_t def, std::string doc) {
  KeyDef k = integer(std::move(key), def, "bytes", std::move(doc));
  k.size = true;
  return k;
}

KeyDef file(std::string key, std::string doc) {
  KeyDef k = text(std::move(key), "", std::move(doc));
  k.unit = "path";
  k.path = true;
  return k;
}

void declare(std::vector<KeyDef> keys, const std::string& owner, const std::string& selector) {
  auto& t = table();
  if (t.frozen) throw std::logic_error("config keys declared after the key table was first used");
  if (keys.empty()) return;
  for (auto& k : keys) {
    k.owner = owner;
    k.selector = selector;
  }
  t.pending.push_back(Group{owner, std::move(keys)});
}

void declare_check(Check c) {
  auto& t = table();
  if (t.frozen) throw std::logic_error("config check declared after the key table was first used");
  t.checks.push_back(std::move(c));
}

const std::vector<Check>& checks() { return table().checks; }

void declare_preset(std::string name, Preset p) {
  auto& t = table();
  if (t.frozen) throw std::logic_error("config preset declared after the key table was first used");
  if (!t.presets.emplace(std::move(name), std::move(p)).second) throw std::logic_error("config preset declared twice");
}

void apply_presets(Config& cfg) {
  for (const auto& [name, p] : table().presets) p(cfg);
}

void describe_plugin(const std::string& selector_key, PluginDoc doc) {
  table().plugins.emplace_back(selector_key, std::move(doc));
}

std::vector<PluginDoc> plugins_of(std::string_view selector_key) {
  std::vector<PluginDoc> out;
  for (const auto& [k, d] : table().plugins)
    if (k == selector_key) out.push_back(d);
  std::sort(out.begin(), out.end(), [](const PluginDoc& a, const PluginDoc& b) { return a.name < b.name; });
  return out;
}

const std::vector<KeyDef>& keys() {
  freeze();
  return table().keys;
}

const std::vector<std::string>& sections() {
  freeze();
  return table().sections;
}

const KeyDef* find_key(std::string_view key) {
  freeze();
  const auto& t = table();
  const auto it = t.index.find(key);
  return it == t.index.end() ? nullptr : &t.keys[it->second];
}

std::size_t key_index(std::string_view key) {
  freeze();
  const auto& t = table();
  const auto it = t.index.find(key);
  if (it == t.index.end()) throw std::logic_error("config key '" + std::string(key) + "' is not declared");
  return it->second;
}

std::string closest_key(std::string_view key) {
  std::string best;
  std::size_t best_d = ~std::size_t{0};
  for (const auto& d : keys()) {
    const std::size_t dist = edit_distance(key, d.key);
    if (dist < best_d) {
      best_d = dist;
      best = d.key;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t bd = ~std::size_t{0};
  for (const auto& c : candidates)
    if (const auto d = edit_distance(word, c); d < bd) {
      bd = d;
      best = c;
    }
  if (best.empty() || bd > std::max<std::size_t>(2, word.size() / 3)) return "";
  return fmt::format("; did you mean '{}'?", best);
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (const auto& s : items) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

Config::Config() {
  const auto& ks = keys();
  values_.reserve(ks.size());
  for (const auto& k : ks) values_.push_back(k.def);
  origin_.assign(ks.size(), std::string());
}

template <class T>
const T& Config::get(std::string_view key) const {
  const auto& v = values_[key_index(key)];
  if (const T* p = std::get_if<T>(&v)) return *p;
  throw std::logic_error(fmt::format("config key '{}' read with the wrong type (it holds {})", key, value_word(v)));
}
template const bool& Config::get<bool>(std::string_view) const;
template const std::int64_t& Config::get<std::int64_t>(std::string_view) const;
template const double& Config::get<double>(std::string_view) const;
template const std::string& Config::get<std::string>(std::string_view) const;

std::string Config::path(std::string_view key) const {
  const std::string& p = text(key);
  namespace fs = std::filesystem;
  if (p.empty() || fs::path(p).is_absolute() || source_file.empty()) return p;
  return (fs::path(source_file).parent_path() / p).string();
}

std::string Config::where(std::string_view key) const {
  const auto& o = origin(key);
  return o.empty() ? std::string() : o + ": ";
}

std::string Config::where_any(std::initializer_list<std::string_view> keys) const {
  for (const auto k : keys)
    if (given(k)) return where(k);
  return std::string();
}

std::string Config::show(std::string_view key) const { return show_value(value(key)); }

Config& Config::set(std::string_view key, Value v, const std::string& origin) {
  const std::size_t i = key_index(key);
  const KeyDef& d = keys()[i];
  const std::string loc = origin.empty() ? std::string() : origin + ": ";
  const auto fail = [&](const std::string& expected) {
    throw UserError(fmt::format("{}key '{}': expected {}, got {}", loc, d.key, expected, value_word(v)));
  };
  const auto check_range = [&](double x) {
    if (x < d.min || x > d.max)
      throw UserError(fmt::format("{}key '{}': value {} is out of range [{}, {}]{}", loc, d.key, show_value(v), d.min,
                                  d.max, d.unit.empty() ? "" : " (" + d.unit + ")"));
  };
  switch (d.type) {
    case KeyType::Bool:
      if (!std::holds_alternative<bool>(v)) fail(type_word(d.type));
      break;
    case KeyType::Int:
      if (!std::holds_alternative<std::int64_t>(v))
        fail(d.size ? "an integer number of bytes or a size string like \"8MiB\"" : "an integer");
      check_range(static_cast<double>(std::get<std::int64_t>(v)));
      break;
    case KeyType::Real:
      if (std::holds_alternative<std::int64_t>(v)) v = static_cast<double>(std::get<std::int64_t>(v));
      if (!std::holds_alternative<double>(v)) fail("a number");
      if (!std::isfinite(std::get<double>(v))) fail("a finite number");
      check_range(std::get<double>(v));
      break;
    case KeyType::Text: {
      if (!std::holds_alternative<std::string>(v)) fail("a string");
      const auto allowed = d.allowed();
      const auto& s = std::get<std::string>(v);
      if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), s) == allowed.end())
        throw UserError(fmt::format("{}key '{}': '{}' is not one of: {}{}", loc, d.key, s, join(allowed),
                                    did_you_mean(s, allowed)));
      break;
    }
  }
  values_[i] = std::move(v);
  origin_[i] = origin;
  return *this;
}

void check(const Config& cfg) {
  for (const auto& c : checks()) c(cfg);
}

void declare_selection(const std::string& selector_key, Selection fn) {
  auto& t = table();
  if (t.frozen) throw std::logic_error("config selection declared after the key table was first used");
  t.selections.push_back(SelectionRule{selector_key, std::move(fn)});
}

namespace {
// Who reads `d`: (selecting key, plug-in), the owner first; empty = every run.
std::vector<std::pair<std::string, std::string>> readers_of(const KeyDef& d) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!d.owner.empty() && !d.selector.empty()) out.emplace_back(d.selector, d.owner);
  out.insert(out.end(), d.readers.begin(), d.readers.end());
  return out;
}

bool selected(const Config& cfg, const std::string& selector, const std::string& name) {
  if (cfg.text(selector) == name) return true;
  for (const auto& r : table().selections) {
    if (r.selector != selector) continue;
    for (const auto& n : r.fn(cfg))
      if (n == name || n == "*") return true;
  }
  return false;
}
}  // namespace

bool is_read(const Config& cfg, const KeyDef& d) {
  const auto readers = readers_of(d);
  if (readers.empty()) return true;
  for (const auto& [sel, name] : readers)
    if (selected(cfg, sel, name)) return true;
  return false;
}

std::string readers_text(const KeyDef& d) {
  std::string out;
  const auto readers = readers_of(d);
  for (std::size_t i = 0; i < readers.size(); ++i) {
    const auto& [sel, name] = readers[i];
    const bool same = i > 0 && readers[i - 1].first == sel;
    if (i > 0) out += i + 1 == readers.size() ? " or " : ", ";
    out += same ? "\"" + name + "\"" : sel + " = \"" + name + "\"";
  }
  return out;
}

bool set_by_user(const Config& cfg, const KeyDef& d) {
  const std::string& o = cfg.origin(d.key);
  if (o.empty()) return false;
  // "transport.preset = \"htsim\"", "network.flow_control": set on behalf of another key.
  return find_key(o.substr(0, o.find(' '))) == nullptr;
}

namespace {
// "base.toml:43" -> "base.toml"; "" for an origin that is not a file line (--set, code).
std::string origin_file(const std::string& o) {
  const auto colon = o.rfind(':');
  if (colon == std::string::npos || colon + 1 == o.size()) return "";
  for (std::size_t i = colon + 1; i < o.size(); ++i)
    if (o[i] < '0' || o[i] > '9') return "";
  return o.substr(0, colon);
}

// A key from a config file whose plug-in a later override replaced (`--set workload.kind=...` on a
// base file written for another kind, a sweep's grid over lb.algorithm): the file's key belongs to
// the plug-in the file chose, not to this run, which does not read it (it is written as a comment).
bool overridden_choice(const Config& cfg, const KeyDef& d) {
  const std::string file = origin_file(cfg.origin(d.key));
  if (file.empty()) return false;
  for (const auto& [sel, name] : readers_of(d))
    if (cfg.given(sel) && origin_file(cfg.origin(sel)) != file) return true;
  return false;
}
}  // namespace

void check_keys_read(const std::vector<const Config*>& variants) {
  for (const auto& d : keys()) {
    bool user = false, read = false;
    for (const Config* c : variants) {
      user = user || (set_by_user(*c, d) && !overridden_choice(*c, d));
      read = read || is_read(*c, d);
    }
    if (!user || read) continue;
    std::vector<std::string> chosen;
    for (const auto& [sel, name] : readers_of(d))
      for (const Config* c : variants) {
        const std::string v = "\"" + c->text(sel) + "\"";
        if (std::find(chosen.begin(), chosen.end(), v) == chosen.end()) chosen.push_back(v);
      }
    const Config& where = **std::find_if(variants.begin(), variants.end(), [&](const Config* c) {
      return set_by_user(*c, d) && !overridden_choice(*c, d);
    });
    throw UserError(
        fmt::format("{}key '{}' is read only by {}, not by {} (remove it; `lbsim config --markdown` "
                    "lists the keys of each plug-in)",
                    where.where(d.key), d.key, readers_text(d), join(chosen, " / ")));
  }
}

}  // namespace lbsim::config
