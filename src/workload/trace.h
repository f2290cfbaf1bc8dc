// Datacenter traces at a target load: Poisson flow arrivals per host with sizes from a flow-size CDF.
//
// Model (HPCC traffic_gen style, used by [Spritz] sec. V-B c), [REPS] sec. 4.2 / App. D and
// [LAPS] sec. 4.1):
//  - every sending host starts flows as a Poisson process; the mean inter-arrival time is
//    mean_size * 8 / (load * host_rate), so the offered load of each sender's link is `load`;
//  - receivers are drawn uniformly among the other hosts (never the sender). Spritz "randomly select[s]
//    receivers while limiting the number of simultaneous senders per receiver": with
//    max_senders_per_receiver = c, a receiver already receiving from c other senders is redrawn.
//    "Simultaneous" uses an estimated active interval per flow, [start, start + active_slowdown *
//    size * 8 / host_rate] (its FCT at line rate times a slowdown factor), since the real FCT is only
//    known after simulation;
//  - [LAPS] sec. 4.1 patterns pick the destinations: kUniform ("All2all": every host sends to random
//    others), kAllToOne ("AllReduce" via a parameter server: all other hosts send to `root`) and
//    kOneToAll ("AllScatter": `root` sends to all others). The load applies to every sending link;
//  - flows starting before start + warmup get the tag "warmup" so reports can exclude them;
//  - optional incast events (HPCC style) on top: a Poisson process of events over the whole network,
//    each picking a random receiver and `incast_senders` distinct random senders that each send
//    `incast_bytes` at the event time (tag "incast"; not subject to the receiver cap);
//  - optional "monitored" flows: background flows from `monitored_hosts`, plus each other background
//    flow with probability `monitored_fraction`, get the tag "monitored" (never warm-up flows).
// Every random choice has its own stream (arrivals per host, receivers, incast, monitoring), so e.g.
// turning on monitoring does not change which flows exist.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/time.h"
#include "workload/cdf.h"
#include "workload/flow_spec.h"
#include "workload/stream.h"

namespace lbsim::workload {

enum class TraceDestinations { kUniform, kAllToOne, kOneToAll };

struct CdfTraceParams {
  std::string cdf = "websearch";  // built-in name or CDF file path (see cdf.h)
  CdfOptions cdf_options;         // for files
  double load = 0.5;              // fraction of host_rate offered by each sending host, > 0
  BitsPerSec host_rate = gbps(400);
  SimTime start = 0;  // arrivals in [start, start + duration)
  SimTime duration = ms(1);
  SimTime warmup = 0;                         // flows starting before start + warmup are tagged "warmup"
  std::int32_t max_senders_per_receiver = 0;  // 0 = no cap
  double active_slowdown = 1.0;               // estimated active interval = slowdown * size at line rate
  TraceDestinations destinations = TraceDestinations::kUniform;
  std::int32_t root = 0;  // for kAllToOne / kOneToAll
  // Incast events on top (0 = none): mean time between events over the whole network.
  SimTime incast_mean_interval = 0;
  std::int32_t incast_senders = 8;
  Bytes incast_bytes = 64 * 1024;
  // Monitored flows.
  double monitored_fraction = 0.0;
  std::vector<std::int32_t> monitored_hosts;
  std::string tag;  // tag of background flows ("" = "default")
  std::string lb;   // per-flow load balancer ("" = run default)
};

// Uses `cdf` for the sizes (p.cdf and p.cdf_options are ignored). `warnings` (optional) receives one
// line per flow whose receiver had to exceed the cap because every host was at the cap.
Workload make_cdf_trace(const CdfTraceParams& p, const FlowSizeCdf& cdf, std::int32_t num_hosts, std::uint64_t seed,
                        std::vector<std::string>* warnings = nullptr);
// The same trace one entry at a time (workload.stream; docs/scale-flows.md): equal entries, equal
// order, equal tags (make_cdf_trace drains it).
std::unique_ptr<EntryStream> cdf_trace_stream(const CdfTraceParams& p, const FlowSizeCdf& cdf, std::int32_t num_hosts,
                                              std::uint64_t seed, std::vector<std::string>* warnings = nullptr);
// Loads p.cdf (built-in name or file); CDF repair warnings are appended to `warnings` too.
Workload make_cdf_trace(const CdfTraceParams& p, std::int32_t num_hosts, std::uint64_t seed,
                        std::vector<std::string>* warnings = nullptr);

// Estimated active interval used by the receiver cap (exposed for tests and reports).
SimTime estimated_active_time(Bytes bytes, BitsPerSec rate, double slowdown);

}  // namespace lbsim::workload
