// Configuration keys and values, shared by every command and every plug-in.
//
// Each layer declares the keys of its own section (`config::declare`), and each plug-in declares its
// keys in its own file when it registers (core/registry.h), the way SST components declare their
// parameters beside their code. The key table is assembled from those declarations the first time it
// is used (after static initialisation, i.e. in main) and is immutable from then on; it holds no
// simulation state. A `Config` holds one value per declared key (the default until a file, --set or
// code sets it) and where each value came from, so later checks can name the file and line.
//
// Reading TOML files and `--set` overrides, writing the resolved config and docs/config.md live in the
// config layer (config/reader.h); this header has no TOML dependency so that every layer can declare
// and read keys.
#pragma once
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace lbsim::config {

enum class KeyType : std::uint8_t { Bool, Int, Real, Text };
using Value = std::variant<bool, std::int64_t, double, std::string>;

struct KeyDef {
  std::string key;  // "section.name"
  KeyType type = KeyType::Text;
  Value def;
  std::string unit;
  std::string doc;
  std::vector<std::string> choices;                    // Text: allowed values (empty = any)
  std::vector<std::string> (*choices_fn)() = nullptr;  // Text: allowed values computed later (a registry's names)
  double min = -1e300, max = 1e300;                    // Int / Real: inclusive bounds
  bool size = false;                                   // Int bytes; also accepts "8MiB", "4KiB", "1GB"
  bool path = false;                                   // Text: a file path, relative to the config file
  std::string owner;                                   // plug-in that declared it ("" = the section's own key)
  std::string selector;  // the key that selects `owner` ("topology.kind"); "" when the owner is no plug-in
  // Plug-ins besides the owner that read the key, as (selecting key, plug-in name). A key with a
  // plug-in owner or readers is read only when one of them is selected (config::is_read); a key with
  // neither is read by every run.
  std::vector<std::pair<std::string, std::string>> readers;

  KeyDef& range(double lo, double hi) {
    min = lo;
    max = hi;
    return *this;
  }
  KeyDef& one_of(std::vector<std::string> values) {
    choices = std::move(values);
    return *this;
  }
  KeyDef& one_of(std::vector<std::string> (*fn)()) {
    choices_fn = fn;
    return *this;
  }
  // The key is read by these plug-ins of `selector_key` (a shared key: topology.link_rate_gbps is read
  // by the direct networks only).
  KeyDef& read_by(const std::string& selector_key, const std::vector<std::string>& names) {
    for (const auto& n : names) readers.emplace_back(selector_key, n);
    return *this;
  }
  // The allowed values of a Text key (empty = any).
  std::vector<std::string> allowed() const { return choices_fn ? choices_fn() : choices; }
  std::string section() const { return key.substr(0, key.find('.')); }
  std::string name() const { return key.substr(key.find('.') + 1); }
};

// Builders for declarations: flag("network.ecn", true, "doc"), integer(...).range(1, 64), ...
KeyDef flag(std::string key, bool def, std::string doc);
KeyDef integer(std::string key, std::int64_t def, std::string unit, std::string doc);
KeyDef real(std::string key, double def, std::string unit, std::string doc);
KeyDef text(std::string key, std::string def, std::string doc);
KeyDef bytes(std::string key, std::int64_t def, std::string doc);  // Int, size strings accepted
KeyDef file(std::string key, std::string doc);                     // Text path, default ""

// Declares keys (before the table is first used). `owner` = the plug-in name, "" for a section's
// own keys; `selector` = the key that selects that plug-in (core/registry.h passes it). A key
// declared twice is a programming error (std::logic_error when the table freezes).
void declare(std::vector<KeyDef> keys, const std::string& owner = "", const std::string& selector = "");

// Plug-ins listed in the docs under the key that selects them (lb.algorithm, ...); filled by
// core/registry.h.
struct PluginDoc {
  std::string name, doc;
};
void describe_plugin(const std::string& selector_key, PluginDoc doc);
std::vector<PluginDoc> plugins_of(std::string_view selector_key);  // sorted by name

class Config;
// A check across keys, run by config::check() after files and overrides (e.g. kmin < kmax). It
// throws UserError naming the keys and where their values came from (Config::where).
using Check = std::function<void(const Config&)>;
void declare_check(Check check);
const std::vector<Check>& checks();
// A preset: a key whose value fills in other keys the config does not give itself (transport.preset,
// lb.spritz_reading). Presets run, in the order of their names, wherever a config is finished before
// its checks: the Simulation and every sweep point (whose file then holds the preset's values).
using Preset = std::function<void(Config&)>;
void declare_preset(std::string name, Preset preset);
void apply_presets(Config& cfg);

// Every declared key: sections in `sections()` order, then a section's own keys, then the
// plug-ins' keys by plug-in name, each group in declaration order.
const std::vector<KeyDef>& keys();
// The sections: topology, network, routing, transport, lb, workload, failures, output, run first,
// then any other declared section in alphabetical order.
const std::vector<std::string>& sections();
const KeyDef* find_key(std::string_view key);
std::size_t key_index(std::string_view key);  // std::logic_error when undeclared
// Closest declared key (Levenshtein), for "did you mean" hints.
std::string closest_key(std::string_view key);
// "; did you mean 'x'?" when some value is close to `word`, else "".
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);
// "a, b, c"
std::string join(const std::vector<std::string>& items, std::string_view sep = ", ");

// One value per declared key and where it came from.
class Config {
 public:
  Config();  // every key at its default

  bool flag(std::string_view key) const { return get<bool>(key); }
  std::int64_t integer(std::string_view key) const { return get<std::int64_t>(key); }
  double real(std::string_view key) const { return get<double>(key); }
  const std::string& text(std::string_view key) const { return get<std::string>(key); }
  // A path key resolved against the config file's folder ("" stays "", absolute stays as is).
  std::string path(std::string_view key) const;

  // Sets a key with the same checks as a file value (type, range, choices); `origin` is what
  // messages name ("file.toml:12", "--set"). Integers are accepted for Real keys.
  // Throws UserError on a bad value, std::logic_error on an undeclared key.
  Config& set(std::string_view key, Value v, const std::string& origin = "code");
  Config& set(std::string_view key, bool v, const std::string& origin = "code") { return set(key, Value(v), origin); }
  Config& set(std::string_view key, int v, const std::string& origin = "code") {
    return set(key, Value(static_cast<std::int64_t>(v)), origin);
  }
  Config& set(std::string_view key, std::int64_t v, const std::string& origin = "code") {
    return set(key, Value(v), origin);
  }
  Config& set(std::string_view key, double v, const std::string& origin = "code") { return set(key, Value(v), origin); }
  Config& set(std::string_view key, const char* v, const std::string& origin = "code") {
    return set(key, Value(std::string(v)), origin);
  }
  Config& set(std::string_view key, const std::string& v, const std::string& origin = "code") {
    return set(key, Value(v), origin);
  }

  const Value& value(std::string_view key) const { return values_[key_index(key)]; }
  // Where the value came from: "file:line", "--set", "code", or "" for the default.
  const std::string& origin(std::string_view key) const { return origin_[key_index(key)]; }
  // "<origin>: " for messages ("" for a default value).
  std::string where(std::string_view key) const;
  // "<origin>: " of the first of `keys` whose value was set (for messages about several keys).
  std::string where_any(std::initializer_list<std::string_view> keys) const;
  bool given(std::string_view key) const { return !origin(key).empty(); }
  // The value as text (TOML literal form for strings: quoted).
  std::string show(std::string_view key) const;

  std::string source_file;  // the config file, for relative paths and messages

 private:
  template <class T>
  const T& get(std::string_view key) const;
  std::vector<Value> values_;
  std::vector<std::string> origin_;
};

// Runs every declared cross-key check.
void check(const Config& cfg);

// ---- Keys that a run reads ------------------------------------------------------------------------
// A plug-in's keys (and a shared key's, KeyDef::readers) are read only when the plug-in is selected.
// The plug-ins a config selects are the value of each selecting key, plus what a declared selection
// adds: a workload that runs a background permutation with ECMP selects "ecmp" for lb.algorithm as
// well; "*" = every plug-in of that key may be used (a flows CSV names load balancers per row).
using Selection = std::function<std::vector<std::string>(const Config&)>;
void declare_selection(const std::string& selector_key, Selection fn);
// Whether a run of `cfg` reads key `d` (docs/config.md "Keys a run does not read").
bool is_read(const Config& cfg, const KeyDef& d);
// "topology.kind = \"dragonfly\", \"slim_fly\" or \"rail\"": who reads a plug-in's or shared key.
std::string readers_text(const KeyDef& d);
// A key the user set (a file, --set): given, and not set on behalf of another key (a preset's
// values, whose origin names the key that set them: `transport.preset = "htsim"`).
bool set_by_user(const Config& cfg, const KeyDef& d);
// Refuses (UserError: where, the key, who reads it) the first key set by the user that no plug-in
// selected by any of `variants` reads: one config for a run, every run's config for `lbsim compare`
// and a sweep (a key needs to be read by one of them).
void check_keys_read(const std::vector<const Config*>& variants);
inline void check_keys_read(const Config& cfg) { check_keys_read(std::vector<const Config*>{&cfg}); }

}  // namespace lbsim::config
