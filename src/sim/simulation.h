// One simulation run assembled from a Config: topology -> workload -> network + routing +
// transport (+ load balancers) -> run -> outputs. The CLI, tests and benchmarks all go through here.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lb/endpoint_table.h"
#include "lb/recording.h"
#include "metrics/report.h"
#include "net/failures.h"
#include "net/network.h"
#include "routing/router.h"
#include "routing/source_guided.h"
#include "sim/config.h"
#include "topo/topology.h"
#include "transport/transport.h"
#include "workload/flow_spec.h"

namespace lbsim::sim {

// Quantities derived from the topology and config (reported in summary.json "derived").
struct Derived {
  SimTime base_rtt = 0;      // unloaded RTT of the longest host-to-host shortest path (MTU data + ACK)
  Bytes packet_bytes = 0;    // wire size of a full data packet
  Bytes bdp = 0;             // host rate x base_rtt
  std::uint32_t bdp_packets = 0;
  Bytes queue_bytes = 0, ctrl_queue_bytes = 0;
  SimTime rto = 0;
  Bytes init_cwnd = 0, max_cwnd = 0;
  std::uint32_t ev_space = 0;
};

topo::Topology build_topology(const Config& cfg);
workload::Workload build_workload(const Config& cfg, const topo::Topology& topo);

// One-way latency of a packet of `bytes` from host a to host b along a shortest path (per-hop
// serialization + propagation + switch latency), used for ideal FCTs and the base RTT.
class PathModel {
 public:
  PathModel(const topo::Topology& t, SimTime switch_latency);
  SimTime one_way(std::int32_t src_host, std::int32_t dst_host, Bytes bytes) const;
  // FCT of a `bytes` message alone on an idle network (NIC streams MTU packets back to back; exact
  // when every link on the path has the same rate, a lower bound otherwise).
  SimTime ideal_fct(std::int32_t src_host, std::int32_t dst_host, Bytes bytes, Bytes mtu, Bytes header) const;
  // Links of the shortest path used (host link first).
  std::vector<std::int32_t> path_links(std::int32_t src_host, std::int32_t dst_host) const;

 private:
  const topo::Topology& t_;
  SimTime sw_lat_;
  std::vector<std::vector<std::int32_t>> parent_link_;  // [src switch index][node] -> link towards src
};

class Simulation final : public net::EventSink {
 public:
  explicit Simulation(Config cfg);
  ~Simulation() override;

  // Runs to completion or cfg.end_us; returns 0 when every entry finished, 3 otherwise.
  int run();
  // Writes config.toml, summary.json, flows.csv, ports.csv (and queues.csv) into `dir`.
  void write_outputs(const std::string& dir) const;
  // path_usage.csv (output.path_usage_tag, docs/outputs.md).
  void write_path_usage(std::ostream& os) const;

  nlohmann::json summary() const;
  std::vector<metrics::FlowResult> flow_results() const;

  const Config& config() const { return cfg_; }
  const Derived& derived() const { return d_; }
  const topo::Topology& topology() const { return topo_; }
  const workload::Workload& workload() const { return wl_; }
  net::Network& network() { return *net_; }
  const transport::Transport& transport() const { return *tr_; }
  double wall_seconds() const { return wall_s_; }

  void on_event(const Event& e) override;

 private:
  enum SimEvent : std::uint32_t { kEvQueueSample = 40 };
  // Failure schedule (docs/reps.md): obj = index into failures_.
  enum FailureEvent : std::uint32_t { kEvFailStart = 48, kEvFailEnd, kEvRouteDead, kEvRouteAlive };
  void on_failure_event(const Event& e);
  void sample_queues();
  static void progress(void* self, SimTime now);

  Config cfg_;
  topo::Topology topo_;
  workload::Workload wl_;
  Derived d_;
  std::unique_ptr<PathModel> paths_;
  std::unique_ptr<routing::MinimalTables> tables_;
  std::unique_ptr<net::Network> net_;
  std::unique_ptr<net::Router> router_;
  // Flows pinned with via_group under a routing other than fine-grained source_guided: their own
  // source-guided router and the dispatcher in front of router_ (null otherwise).
  std::unique_ptr<routing::SourceGuidedRouter> pin_sg_;
  std::unique_ptr<net::Router> dispatch_;
  std::unique_ptr<transport::Transport> tr_;
  // Spritz EV entry lists per (source switch, destination switch) of the workload's transfers, key
  // src * 2^32 + dst node ids; std::map keeps the addresses the policies hold stable.
  std::map<std::uint64_t, lb::EvEntryList> ev_lists_;
  // Flows whose lb is via_group:<g>: the EV of their lowest-latency source-guided path through
  // group g, by workload index.
  std::map<std::uint32_t, std::uint32_t> pinned_evs_;
  // output.path_usage_tag: the recorders wrapped around the load balancers of the tagged flows
  // (owned by the transport's flows), by flow id.
  std::vector<std::pair<std::uint32_t, const lb::RecordingPolicy*>> recorders_;
  std::vector<net::Failure> failures_;
  std::unique_ptr<net::Router> mask_;  // routing::FailureMaskRouter when failures.converge_us > 0
  SimTime converge_ = 0;
  SimTime queue_sample_ = 0;
  std::vector<std::string> queue_rows_;
  double wall_s_ = 0;
  double run_start_ = 0;  // steady-clock seconds at run() start (progress line)
  double progress_last_ = 0;
  bool progress_on_ = false;
  bool ran_ = false;
};

}  // namespace lbsim::sim
