// Switch-side adaptivity ([REPS] sec. 4.1 baseline "adaptive RoCE").
#pragma once
#include <cstdint>
#include <vector>

#include "net/network.h"
#include "routing/tables.h"

namespace lbsim::routing {

// Adaptive per-packet routing, like NVIDIA adaptive RoCE: at every hop the shortest-path candidate
// whose data queue holds the fewest bytes (Network::queued_bytes). Ties are broken by scanning from
// a per-packet hash position, so equally loaded ports share the traffic instead of the first always
// winning. The EV plays no role beyond that tie-break: the switch, not the sender, balances.
class AdaptiveRouter final : public net::Router {
 public:
  AdaptiveRouter(const MinimalTables& tables, const net::Network& net, std::uint64_t seed);
  std::int32_t route(std::int32_t node, net::Packet& p) override;

 private:
  const MinimalTables& tables_;
  const topo::Topology& topo_;
  const net::Network& net_;
  std::vector<std::uint64_t> salt_;
};

}  // namespace lbsim::routing
