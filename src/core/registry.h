// A registry of plug-ins of one kind (topologies, switch routings, load balancers, congestion
// controls, workloads). Each plug-in registers itself from its own source file with a static
// `Registrar`: its name, a one-line doc, its config keys (declared into the key table with the
// plug-in as owner) and its factory. Everything that lists plug-ins (config choices, docs/config.md,
// `lbsim config`, validation, the registry tests) reads the registry, so adding a plug-in is one new
// file plus its test.
//
// Registration happens during static initialisation (the layer libraries are CMake OBJECT libraries,
// so every object file and its registrar is linked); the registry is read-only afterwards and holds
// no simulation state.
#pragma once
#include <algorithm>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/core.h>

#include "core/config.h"
#include "core/error.h"

namespace lbsim::config {

// Fields every plug-in entry has; a kind's entry type derives from it and adds its factory.
struct PluginInfo {
  std::string name;
  std::string doc;           // one line for docs/config.md and `lbsim config --plugins`
  std::vector<KeyDef> keys;  // the plug-in's own keys (owner = name)
  // Overrides ("section.key=value") that make a small scenario exercising the plug-in, for the
  // registry tests (e.g. a Spritz load balancer needs source-guided routing on a Dragonfly).
  std::vector<std::string> example;
};

// What the up-front memory guard (sim/memory.h) knows before anything is built, handed to the
// plug-ins' own estimates (the `memory` hooks of routing and load-balancer plug-ins). Doubles, like
// topo::TopologySize: the sizes of absurd configs overflow integers.
struct MemorySizes {
  double hosts = 0, switches = 0, links = 0;  // links: every link, host links included
  double bounded_paths = 0;                   // topo::TopologySize::bounded_paths (0 = not priced)
  bool minimal_one_global_hop = false;        // topo::TopologySize::minimal_one_global_hop
  // Bytes of one set of per (switch, destination switch) tables in routing::MinimalTables' layout.
  double pair_tables = 0;
  double entries = 0, concurrent_bytes = 0, largest_message = 0;  // workload::WorkloadSize
  // The run's routing's MemoryShare, for the load balancer's hook.
  double path_pairs = 0;
  bool path_lists = false;
};

// A plug-in's part of the estimate (sim::MemoryEstimate's fields of the same names).
struct MemoryShare {
  double tables = 0;      // per (switch, destination switch), beyond the shared minimal tables
  double path_pairs = 0;  // switch pairs in use whose paths it keeps
  double paths = 0;       // bytes of those pairs' paths (index entries, path records, lists)
  // Each connection gets its pair's list of up to bounded_paths paths (lb::PolicyContext::pair_paths),
  // which a load balancer may keep per-path state for.
  bool path_lists = false;
};

template <class Entry>
class Registry {
 public:
  // `what` names the kind in messages ("load balancer"); `key` is the config key that selects it.
  Registry(std::string what, std::string key) : what_(std::move(what)), key_(std::move(key)) {}

  void add(Entry e) {
    if (e.name.empty()) throw std::logic_error("a " + what_ + " registered without a name");
    for (const auto& x : entries_)
      if (x.name == e.name) throw std::logic_error("the " + what_ + " '" + e.name + "' is registered twice");
    declare(e.keys, e.name, key_);
    describe_plugin(key_, PluginDoc{e.name, e.doc});
    const auto pos = std::lower_bound(entries_.begin(), entries_.end(), e.name,
                                      [](const Entry& a, const std::string& n) { return a.name < n; });
    entries_.insert(pos, std::move(e));
  }

  const Entry* find(std::string_view name) const {
    for (const auto& e : entries_)
      if (e.name == name) return &e;
    return nullptr;
  }

  // The entry, or a UserError naming the valid names and the closest one.
  const Entry& get(std::string_view name) const {
    if (const Entry* e = find(name)) return *e;
    throw UserError(fmt::format("unknown {} '{}' ({} is one of: {}){}", what_, name, key_, join(names()),
                                did_you_mean(name, names())));
  }

  // Sorted by name.
  const std::vector<Entry>& entries() const { return entries_; }
  std::vector<std::string> names() const {
    std::vector<std::string> n;
    for (const auto& e : entries_) n.push_back(e.name);
    return n;
  }
  const std::string& what() const { return what_; }
  const std::string& key() const { return key_; }

 private:
  std::string what_, key_;
  std::vector<Entry> entries_;
};

}  // namespace lbsim::config
