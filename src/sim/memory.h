// The up-front memory guard (docs/reliability.md "Limits"): an estimate of the bytes a run (or a
// command that builds the topology) will allocate, computed from the config alone before anything
// is built, and a check that refuses (UserError, exit 2) when it exceeds run.max_memory_gb.
// The sizes come from the plug-ins (topo::TopologyPlugin::size, workload::WorkloadPlugin::size);
// this file prices them with the sizes of the structures that hold them. What the run's routing and
// load balancer keep of their own they price themselves (routing::RoutingPlugin::memory,
// lb::LbPlugin::memory).
#pragma once
#include <string>

#include "core/config.h"
#include "topo/registry.h"
#include "workload/registry.h"

namespace lbsim::sim {

// What is built: a whole run (`lbsim run`, `compare`, the sweeps), or only the topology and its
// per switch pair tables (`lbsim topo`, `layers`, `mat`, `paths`, `cabling`).
enum class MemoryUse { Run, Topology };

struct MemoryEstimate {
  topo::TopologySize topo;
  workload::WorkloadSize workload;     // zero for MemoryUse::Topology
  double packets_per_entry_state = 0;  // PSNs whose per-PSN state may exist at once (the PSNs in play)
  double packets_in_flight = 0;        // packet records (bounded by the switch buffers)
  double base = 0;                     // the executable, libraries and fixed tables
  double graph = 0;                    // topology graph (nodes, ports, links) and network ports
  double tables = 0;                   // per (switch, destination switch) tables
  double entries = 0;                  // per workload entry (spec, transport state, result)
  double psn_state = 0;                // per-PSN sender and receiver state
  double packets = 0;                  // packet pool
  // The routing's and load balancer's own (config::MemoryShare): the switch pairs the workload uses
  // (each with its index entry and bounded paths: e.g. source-guided routing's EV entry list and
  // ECMP 1 / 2 tables, or the non-minimal routers' path records) and per-connection path state.
  double path_pairs = 0;
  double paths = 0;
  double total() const { return base + graph + tables + entries + psn_state + packets + paths; }
  // "412.3 GiB (topology 400.1 GiB: ...; workload 12.2 GiB: ...)"
  std::string describe() const;
};

MemoryEstimate estimate_memory(const config::Config& cfg, MemoryUse use = MemoryUse::Run);

// Physical memory of this machine in bytes (MemTotal of /proc/meminfo; 0 when unknown).
double machine_memory_bytes();
// The limit the guard applies: run.max_memory_gb, or 80% of the machine's memory when it is 0
// (no limit when that is unknown: returns 0). `why` describes it for messages.
double memory_limit_bytes(const config::Config& cfg, std::string* why = nullptr);

// Throws UserError naming the config file, the estimate, its parts and the keys that set the size
// when the estimate exceeds the limit. Call it before building anything.
void check_memory(const config::Config& cfg, MemoryUse use = MemoryUse::Run);

// "12.3 GiB", "456.0 MiB"
std::string format_bytes(double bytes);

}  // namespace lbsim::sim
