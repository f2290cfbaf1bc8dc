// Switch routing plug-ins (`routing.algorithm`): each registers its name, its keys and a factory
// (core/registry.h). The engine asks the network's router for an output port at every switch hop.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "core/config.h"
#include "core/registry.h"
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
  // Optional: a summary.json block ("summary_key") about the run's router at the end of the run.
  std::string summary_key;
  std::function<nlohmann::json(const net::Router&, SimTime end)> summarize;
};

config::Registry<RoutingPlugin>& routings();

struct RegisterRouting {
  explicit RegisterRouting(RoutingPlugin p) { routings().add(std::move(p)); }
};

// The router `routing.algorithm` names.
std::unique_ptr<net::Router> make_router(const RoutingContext& ctx);

}  // namespace lbsim::routing
