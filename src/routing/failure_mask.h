// Routing convergence after failures ([REPS] sec. 3.2): a wrapper around the run's router (not a
// plug-in; sim/failure_schedule.h puts it in front of whatever routing.algorithm names).
#pragma once
#include <cstdint>
#include <vector>

#include "net/network.h"
#include "routing/tables.h"

namespace lbsim::routing {

// Routing convergence after failures: wraps any router and, for ports marked dead, re-hashes the
// packet over the shortest-path candidates that are still alive (an ECMP group with the failed
// member removed). With no dead port it only forwards the call. When every candidate is dead the
// packet has no route (-1, dropped by the network).
class FailureMaskRouter final : public net::Router {
 public:
  FailureMaskRouter(net::Router& inner, const MinimalTables& tables, const net::Network& net, std::uint64_t seed);
  std::int32_t route(std::int32_t node, net::Packet& p) override;
  // Take a port (global id) out of / back into every ECMP group; calls nest.
  void set_dead(std::uint32_t port, bool dead);
  std::uint32_t dead_ports() const { return dead_count_; }

 private:
  net::Router& inner_;
  const MinimalTables& tables_;
  const net::Network& net_;
  std::vector<std::uint16_t> dead_;  // per global port: number of active failures masking it
  std::uint32_t dead_count_ = 0;
  std::vector<std::uint64_t> salt_;
};

}  // namespace lbsim::routing
