// Switch routing plug-ins (`routing.algorithm`): each registers its name, its keys and a factory
// (core/registry.h), and optionally its hooks: its summary.json block, its part of the memory
// estimate, and (a router that is a PairPathSource) what it tells the connections of a switch pair
// about the pair's paths. The engine asks the network's router for an output port at every switch
// hop; nothing outside a plug-in's own file names it.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config.h"
#include "core/registry.h"
#include "lb/pair_paths.h"
#include "net/network.h"
#include "routing/tables.h"

namespace lbsim::routing {

// What a routing factory may use: the run's config, the shortest-path tables (shared by every
// router of the run), the network (queue lengths for adaptive routing) and the run seed.
struct RoutingContext {
  const config::Config& cfg;
  const MinimalTables& tables;
  net::Network& net;
  std::uint64_t seed;
  SimTime base_rtt = 0;  // the run's base RTT (sim/derived.h), for defaults derived from it
};

struct RoutingPlugin : config::PluginInfo {
  std::function<std::unique_ptr<net::Router>(const RoutingContext&)> make;
  // Optional: a summary.json block ("summary_key") about the run's router (the one `make` built) at
  // the end of the run; a null value writes no block.
  std::string summary_key;
  std::function<nlohmann::json(const net::Router&, SimTime end)> summarize;
  // Optional: what the router keeps beyond the shared minimal tables, for the memory guard of a run
  // (sim/memory.h; priced from the sizes alone, before anything is built). Without it: nothing.
  config::MemoryShare (*memory)(const config::Config&, const config::MemorySizes&) = nullptr;
};

// A router whose EVs name paths it knows per (source switch, destination switch) pair, and which
// tells the connections of a pair about them (lb::PairPaths: source-guided routing's EV entry list,
// [Spritz] sec. III-C; source routing's candidate paths, [LAPS] sec. 3.3). The run asks for the pair
// of every transfer of its workload before the run starts (so what is built does not depend on which
// flows start), hands each flow's policy its pair's (lb::PolicyContext::pair_paths) and, for
// path_usage.csv, asks what an EV names.
class PairPathSource {
 public:
  virtual ~PairPathSource() = default;
  // The pair's paths, built on the first call; the router owns them for the rest of the run.
  virtual const lb::PairPaths& pair_paths(std::int32_t src_switch, std::int32_t dst_switch) = 0;
  // path_usage.csv's columns about `ev` from switch a to switch b (docs/outputs.md): the EV's entry
  // in the pair's list (-1: none), that path's latency and category, and, when the router can replay
  // it, the switches it leads through (b excluded).
  struct EvPath {
    std::int32_t entry = -1;
    SimTime latency = 0;
    std::string category;
    bool walked = false;
    std::vector<std::int32_t> switches;
  };
  virtual EvPath describe_ev(std::int32_t src_switch, std::int32_t dst_switch, std::uint32_t ev) const = 0;
};

config::Registry<RoutingPlugin>& routings();

struct RegisterRouting {
  explicit RegisterRouting(RoutingPlugin p) { routings().add(std::move(p)); }
};

// The router `routing.algorithm` names.
std::unique_ptr<net::Router> make_router(const RoutingContext& ctx);

}  // namespace lbsim::routing
