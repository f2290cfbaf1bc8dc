// HPCC/ns-3 flow files (simulation/mix/flow.txt in the HPCC repository, produced by traffic_gen):
//
//   <N>                                   number of flows
//   <src> <dst> <pg> <dport> <bytes> <start_s>      N lines
//
// src/dst are ns-3 node ids, pg the priority group, dport the destination port (both recorded only as
// an optional tag: lbsim has no priority queues and hashes on its own entropy value), bytes the
// message size and start_s the start time in seconds. Like HPCC's reader, exactly N flows are read;
// anything after them is ignored with a warning (the sample file in HPCC ends with usage notes).
//
// Node ids: HPCC topology files (e.g. fat.txt: "<nodes> <switches> <links>", then the switch ids)
// number hosts first and switches after them, so by default a node id is a host id. When the switch
// ids are given (or read from the topology file), host = node id minus the number of switch ids below
// it, which also covers topologies whose switch ids are interleaved with hosts; a flow that names a
// switch is an error.
#pragma once
#include <cstdint>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

#include "workload/flow_spec.h"

namespace lbsim::workload {

struct Ns3FlowParams {
  std::string path;                      // the flow file
  std::vector<std::int32_t> switch_ids;  // node ids that are switches (optional)
  std::string topology_path;             // or: read the switch ids from an HPCC topology file
  bool tag_priority_group = false;       // tag each flow "pg<pg>"
  std::string lb;
};

// Switch ids from an HPCC topology file (first line "<nodes> <switches> <links>", then the ids).
std::vector<std::int32_t> read_ns3_switch_ids(const std::string& topology_path);
std::vector<std::int32_t> parse_ns3_switch_ids(std::istream& in, std::string_view name);

Workload parse_ns3_flows(std::istream& in, std::string_view name, const Ns3FlowParams& p, std::int32_t num_hosts,
                         std::vector<std::string>* warnings = nullptr);
// Reads p.path (and p.topology_path when set and p.switch_ids is empty).
Workload read_ns3_flows(const Ns3FlowParams& p, std::int32_t num_hosts, std::vector<std::string>* warnings = nullptr);

}  // namespace lbsim::workload
