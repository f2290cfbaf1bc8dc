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
#include "topo/topology.h"
#include "workload/flow_spec.h"

namespace lbsim::workload {

struct WorkloadContext {
  const config::Config& cfg;
  const topo::Topology& topo;
  std::uint64_t seed;
  std::vector<std::string>* warnings;  // reader/CDF warnings for the user
};

struct WorkloadPlugin : config::PluginInfo {
  std::function<Workload(const WorkloadContext&)> make;
  bool needs_file = false;  // reads workload.file (a config without it is an error)
};

config::Registry<WorkloadPlugin>& workloads();

struct RegisterWorkload {
  explicit RegisterWorkload(WorkloadPlugin p) { workloads().add(std::move(p)); }
};

// The workload `workload.kind` names, validated against the topology's hosts; warnings (if any)
// are appended to `warnings`.
Workload build_workload(const config::Config& cfg, const topo::Topology& topo, std::vector<std::string>* warnings);

// workload.start_us as a SimTime.
SimTime start_time(const config::Config& cfg);

}  // namespace lbsim::workload
