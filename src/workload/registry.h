// Workload plug-ins (`workload.kind`): each generator or trace reader registers its name, its keys
// and a factory that builds the Workload from the config and the built topology
// (core/registry.h). Every generator is deterministic in (config, topology, seed).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/config.h"
#include "core/registry.h"
#include "topo/registry.h"
#include "topo/topology.h"
#include "workload/flow_spec.h"
#include "workload/stream.h"

namespace lbsim::workload {

struct WorkloadContext {
  const config::Config& cfg;
  const topo::Topology& topo;
  std::uint64_t seed;
  std::vector<std::string>* warnings;  // reader/CDF warnings for the user
};

// What a workload will hold, from the config and the topology's size alone (nothing is generated):
// the memory guard of a run (sim/memory.h) prices it before any allocation. Doubles, like
// topo::TopologySize.
struct WorkloadSize {
  double entries = 0;           // transfers and computations (one FlowSpec, FlowState, result each)
  double concurrent_bytes = 0;  // message bytes that may be in progress at once (per-PSN state)
  double largest_message = 0;   // bytes of the largest message when the keys set it (workload.size), else 0
  double in_progress = 0;       // entries in progress at once, when the plug-in knows (0: up to every entry)
  std::string keys;             // the keys that set the size, for messages ("workload.duration_us")
};

struct WorkloadSizeContext {
  const config::Config& cfg;
  const topo::TopologySize& topo;
};

struct WorkloadPlugin : config::PluginInfo {
  std::function<Workload(const WorkloadContext&)> make;
  // Each generator or reader prices its own size (required: the memory guard runs before `make`).
  std::function<WorkloadSize(const WorkloadSizeContext&)> size;
  bool needs_file = false;  // reads workload.file (a config without it is an error)
  // The entries one at a time in start order (workload.stream), for plug-ins without dependencies
  // whose drained stream equals `make`'s Workload; empty = built eagerly only.
  std::function<std::unique_ptr<EntryStream>(const WorkloadContext&)> stream;
  // Optional: the plug-in's key that sets the unit of the start times it reads from a file. A misread
  // unit shows as entries that start after run.end_us: the warning about them names the key, and
  // summary.json's "workload" block reports its value (under the key's name without its section).
  std::string time_unit_key;
};

config::Registry<WorkloadPlugin>& workloads();

struct RegisterWorkload {
  explicit RegisterWorkload(WorkloadPlugin p) { workloads().add(std::move(p)); }
};

// The workload `workload.kind` names, validated against the topology's hosts; warnings (if any)
// are appended to `warnings`.
Workload build_workload(const config::Config& cfg, const topo::Topology& topo, std::vector<std::string>* warnings);

// The stream of the workload `workload.kind` names (null when the plug-in has none). Entries are not
// validated here: the caller checks each one (check_entry).
std::unique_ptr<EntryStream> open_stream(const config::Config& cfg, const topo::Topology& topo,
                                         std::vector<std::string>* warnings);

// The names of the workloads that can be streamed (WorkloadPlugin::stream), for messages.
std::vector<std::string> streamable_workloads();

// The size of the workload `workload.kind` names, without generating it.
WorkloadSize workload_size(const config::Config& cfg, const topo::TopologySize& topo);

// Sizes for the plug-ins' `size`: `messages` messages of workload.size, all in progress at once.
WorkloadSize messages_of_size(const config::Config& cfg, double messages);
// A reader's entries: at most one per line of workload.file (their sizes are not read; a file of
// N lines costs the per-entry state of N entries).
WorkloadSize file_entries(const WorkloadSizeContext& c);

// Lines of a workload file (an upper bound of its entries for the readers; 0 when it cannot be
// read: the reader reports that later, with its own message).
double count_lines(const std::string& path);

// workload.start_us as a SimTime.
SimTime start_time(const config::Config& cfg);

}  // namespace lbsim::workload
