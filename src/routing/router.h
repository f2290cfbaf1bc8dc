// Switch routing plug-ins, registered by name (DESIGN.md: "Plug-ins are registered by name in one
// place"). The engine asks the router of the network for an output port at every switch hop.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "net/network.h"
#include "routing/tables.h"

namespace lbsim::routing {

struct RoutingParams {
  std::string name = "ecmp";
  std::uint64_t seed = 1;
  std::string valiant_mode = "per_hop";  // valiant: "per_hop" | "path" (routing/valiant.h)
  std::string ugal = "local";            // ugal_l: "local" (UGAL-L) | "global" (UGAL-G)
};

// ECMP over minimal (shortest) paths: at each switch, hash (src, dst, flow, EV, switch salt) modulo
// the number of shortest-path next hops ([REPS] sec. 2.2). Down-routing in a fat tree has a single
// candidate and is therefore deterministic.
class EcmpRouter : public net::Router {
 public:
  EcmpRouter(const MinimalTables& tables, std::uint64_t seed);
  std::int32_t route(std::int32_t node, net::Packet& p) override;

 private:
  const MinimalTables& tables_;
  const topo::Topology& topo_;
  std::vector<std::uint64_t> salt_;  // per switch node
};

// Every registered routing name, for config validation and docs.
const std::vector<std::string>& routing_names();
std::unique_ptr<net::Router> make_router(const RoutingParams& params, const MinimalTables& tables,
                                         net::Network& net);

}  // namespace lbsim::routing
