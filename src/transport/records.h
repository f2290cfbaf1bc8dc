// What the transport reports about its workload entries, and how a streamed workload comes in and
// goes out (docs/architecture.md "Per-flow state"): FlowReport (one entry's flows.csv row and summary
// values, from its record or from its compact FlowRow), FlowMemory (the bytes per-flow state holds),
// EntryFeed and RetireSink. The records' lifecycle is in transport/records.cpp.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "core/time.h"
#include "transport/flow_state.h"
#include "workload/flow_spec.h"

namespace lbsim::transport {

// What flows.csv and summary.json report of one entry (sim::Simulation::result, FlowTotals): made
// from its record, or from the compact row a streamed run keeps once the record is released.
struct FlowReport {
  std::uint32_t id = 0;
  std::int32_t src = -1, dst = -1, tag = 0;
  Bytes bytes = 0;
  SimTime compute = -1;             // >= 0: a computation of this duration
  const std::string* lb = nullptr;  // the entry's load balancer name; empty = the run's default
  bool finished = false;
  std::uint32_t npkts = 0, rcv_count = 0;
  SimTime start_time = -1, finish_time = -1, sender_done_time = -1;
  FlowCounters n;
  bool is_compute() const { return compute >= 0; }
};

// Memory held by per-flow state, counted from the containers (tests, docs/scale.md).
struct FlowMemory {
  std::size_t entries = 0;  // workload entries
  std::size_t records = 0;  // FlowState records held now (every entry, or a streamed run's records not yet released)
  std::size_t peak_records = 0;  // most records at once
  // Streamed runs: the ids from the lowest entry not yet reported to the highest made, their
  // released rows waiting for their turn, and the bytes of the window (the id-indexed rows and
  // record slots, at capacity) and of the record pool (FlowState + FlowSpec per slot, at capacity).
  std::size_t window = 0, peak_window = 0;
  std::size_t waiting_rows = 0, peak_waiting_rows = 0;
  std::size_t spilled_rows = 0;  // waiting rows written to the temporary file (their ids beyond the rows in memory)
  std::size_t window_bytes = 0, window_capacity = 0;
  std::size_t record_bytes = 0, record_capacity = 0;
  std::size_t live = 0;             // transfers with a FlowLive (started, not yet over)
  std::size_t peak_live = 0;        // most FlowLive objects at once
  std::size_t policies = 0;         // load-balancer objects held
  std::size_t ccs = 0;              // congestion-control objects held
  std::size_t vector_bytes = 0;     // capacity of every per-flow vector (PSN state, bitmaps, logs, dependents)
  std::size_t scheduler_bytes = 0;  // the NIC scheduler's per-host slot lists and ready bits
};

// A streamed workload (workload.stream): the next entry in id order into `out` (false: none left).
using EntryFeed = std::function<bool(workload::FlowSpec& out)>;
// A streamed entry leaves the transport, in id order: its final values (flows.csv row, summary values).
using RetireSink = std::function<void(const FlowReport& f)>;

}  // namespace lbsim::transport
