// One simulation run assembled from a Config: topology -> workload -> network + routing +
// transport (+ load balancers) -> run -> outputs. The CLI, tests and benchmarks all go through here.
// The pieces live in their own files: derived quantities (sim/derived.h), the failure schedule
// (sim/failure_schedule.h), per-flow policy setup (sim/flow_setup.h) and the reports (sim/report.cpp).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config.h"
#include "metrics/report.h"
#include "net/network.h"
#include "routing/path_model.h"
#include "routing/tables.h"
#include "sim/derived.h"
#include "topo/topology.h"
#include "transport/transport.h"
#include "workload/flow_spec.h"

namespace lbsim::sim {

using config::Config;

class FailureSchedule;
class FlowSetup;

class Simulation final : public net::EventHandler {
 public:
  explicit Simulation(Config cfg);
  ~Simulation() override;

  // Runs to completion or run.end_us; returns 0 when every entry finished, 3 otherwise.
  int run();
  // Writes config.toml, summary.json, flows.csv, ports.csv (and queues.csv, path_usage.csv) into `dir`.
  void write_outputs(const std::string& dir) const;

  nlohmann::json summary() const;
  std::vector<metrics::FlowResult> flow_results() const;

  const Config& config() const { return cfg_; }
  const Derived& derived() const { return d_; }
  const topo::Topology& topology() const { return topo_; }
  const workload::Workload& workload() const { return wl_; }
  net::Network& network() { return *net_; }
  const transport::Transport& transport() const { return *tr_; }
  double wall_seconds() const { return wall_s_; }

  // kEvQueueSample
  void on_event(const Event& e) override;

 private:
  static void progress(void* self, SimTime now);
  nlohmann::json flow_control_summary() const;

  Config cfg_;
  topo::Topology topo_;
  workload::Workload wl_;
  Derived d_;
  std::unique_ptr<routing::PathModel> paths_;
  std::unique_ptr<routing::MinimalTables> tables_;
  std::unique_ptr<net::Network> net_;
  std::unique_ptr<net::Router> router_;  // the run's switch routing (routing.algorithm)
  std::unique_ptr<FailureSchedule> failures_;
  std::unique_ptr<FlowSetup> flows_;
  std::unique_ptr<transport::Transport> tr_;
  SimTime queue_sample_ = 0;
  std::vector<metrics::QueueSample> queue_samples_;
  double wall_s_ = 0;
  double run_start_ = 0;  // steady-clock seconds at run() start (progress line)
  double progress_last_ = 0;
  bool progress_on_ = false;
  bool ran_ = false;
};

}  // namespace lbsim::sim
