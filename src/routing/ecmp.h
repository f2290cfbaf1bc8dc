// ECMP switch routing over minimal (shortest) paths ([REPS] sec. 2.2).
#pragma once
#include <cstdint>
#include <vector>

#include "net/network.h"
#include "routing/tables.h"

namespace lbsim::routing {

// At each switch, hash (src, dst, flow, EV, per-switch salt) modulo the number of shortest-path next
// hops. Down-routing in a fat tree has a single candidate and is therefore deterministic.
class EcmpRouter : public net::Router {
 public:
  EcmpRouter(const MinimalTables& tables, std::uint64_t seed);
  std::int32_t route(std::int32_t node, net::Packet& p) override;
  std::int32_t prefetch_route(std::int32_t node, const net::Packet& p, int stage) const override;

 private:
  std::int32_t pick(std::int32_t node, const net::Packet& p) const;
  const MinimalTables& tables_;
  const topo::Topology& topo_;
  std::vector<std::uint64_t> salt_;  // per switch node
  // The switch of every host (Topology::host_switch), dense: the per-packet lookup reads one int
  // instead of walking the host's port list (docs/results/event-cost.md "Cost per event", change 7).
  std::vector<std::int32_t> host_sw_;
};

}  // namespace lbsim::routing
