// The run's failures ([REPS] sec. 4.3.3, App. C; docs/reps.md "Failures"): a schedule file and/or a
// random fraction of links, started and ended by events, with an optional routing convergence delay
// after which the switches stop (and later resume) using a down link.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config.h"
#include "net/failures.h"
#include "net/network.h"
#include "routing/tables.h"
#include "topo/topology.h"

namespace lbsim::sim {

class FailureSchedule final : public net::EventHandler {
 public:
  FailureSchedule(const config::Config& cfg, const topo::Topology& topo);
  bool empty() const { return failures_.empty(); }
  const std::vector<net::Failure>& failures() const { return failures_; }

  // Registers for the failure events and returns the router the network should use: `router`
  // itself, or a routing::FailureMaskRouter around it when failures.converge_us > 0.
  net::Router& attach(net::Network& net, net::Router& router, const routing::MinimalTables& tables, std::uint64_t seed);
  // Schedules the start and end of every failure (at the start of the run).
  void schedule();
  // The time of the last scheduled change (a failure's start or end, plus failures.converge_us for
  // the routing's reaction): until then a stuck flow may still be freed.
  SimTime last_change() const;
  void on_event(const Event& e) override;
  // summary.json "failures".
  nlohmann::json summary(const topo::Topology& topo) const;

 private:
  std::vector<net::Failure> failures_;
  std::unique_ptr<net::ActiveFailures> active_;  // over failures_, created by attach()
  SimTime converge_ = 0;
  double converge_us_ = 0;
  bool scale_queues_ = false;  // failures.degrade_queues = "scale"
  net::Network* net_ = nullptr;
  std::unique_ptr<net::Router> mask_;
};

}  // namespace lbsim::sim
