// Per-flow results and the files a run writes (docs/outputs.md documents every column).
#pragma once
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "core/time.h"

namespace lbsim::metrics {

struct FlowResult {
  std::uint32_t id = 0;
  std::int32_t src = -1, dst = -1;
  Bytes bytes = 0;
  std::string tag;
  std::string lb;
  bool compute = false;
  bool finished = false;
  SimTime start = -1, finish = -1, sender_done = -1;
  SimTime ideal = 0;  // FCT alone in an idle network on a shortest path
  std::uint64_t packets_sent = 0, retransmits = 0, nacks = 0, timeouts = 0, ecn_acks = 0;
  std::uint64_t ooo = 0, duplicates = 0, trimmed_rx = 0, packets = 0;
  std::uint32_t max_reorder = 0;  // largest PSN - expected PSN of an out-of-order arrival

  SimTime fct() const { return finished ? finish - start : -1; }
  // Sender-side FCT: start to the final ACK at the sender (htsim's FCT), -1 if that never came.
  SimTime sender_fct() const { return sender_done >= 0 && start >= 0 && !compute ? sender_done - start : -1; }
};

struct Distribution {
  std::size_t count = 0;
  double max = 0, mean = 0, p50 = 0, p99 = 0, min = 0;
};
Distribution distribution(const std::vector<double>& v);

// flows.csv: one row per workload entry, fixed formatting (byte-identical for identical runs).
void write_flows_csv(std::ostream& os, const std::vector<FlowResult>& flows);
// Its parts, for rows written as entries finish (workload.stream): the header line and one row.
const char* flows_csv_header();
void write_flow_row(std::ostream& os, const FlowResult& f);

// One port's counters over the run (ports.csv).
struct PortRow {
  std::int32_t node = -1, port = -1, peer = -1;
  std::string node_label, peer_label, link_kind;
  double rate_gbps = 0;
  std::uint64_t tx_packets = 0, tx_bytes = 0;
  double utilization = 0;  // tx_bytes over the run time at the port's rate
  std::uint64_t drops = 0, trims = 0, ecn_marks = 0, failure_drops = 0;
  Bytes max_queue_bytes = 0;
  std::uint64_t no_route_drops = 0;  // arrived on this port, no route at its node
};
void write_ports_csv(std::ostream& os, const std::vector<PortRow>& ports);

// One sample of a non-empty switch queue (queues.csv).
struct QueueSample {
  SimTime time = 0;
  std::int32_t node = -1, port = -1, peer = -1;
  Bytes data_bytes = 0, ctrl_bytes = 0;
  bool blocked = false;  // lossless modes: idle with packets that may not be sent (no credit / paused)
};
// `label(node)`: the node's name (topology labels), written beside the node and peer ids.
void write_queues_csv(std::ostream& os, const std::vector<QueueSample>& samples,
                      const std::function<const std::string&(std::int32_t)>& label);

}  // namespace lbsim::metrics
