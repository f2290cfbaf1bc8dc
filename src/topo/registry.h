// Topology plug-ins (`topology.kind`): each generator registers its name, its keys and a factory
// that builds the neutral Topology graph from a Config (core/registry.h).
#pragma once
#include <functional>

#include "core/config.h"
#include "core/registry.h"
#include "topo/topology.h"

namespace lbsim::topo {

struct TopologyPlugin : config::PluginInfo {
  std::function<Topology(const config::Config&)> make;
};

config::Registry<TopologyPlugin>& topologies();

struct RegisterTopology {
  explicit RegisterTopology(TopologyPlugin p) { topologies().add(std::move(p)); }
};

// The topology `topology.kind` names, built from the config.
Topology build_topology(const config::Config& cfg);

// Gb/s (config) -> bits/s, exact for the usual rates.
BitsPerSec rate_gbps(double gbps);

// The shared link keys of the direct networks (topology.link_rate_gbps, host/local/global
// latencies) into a generator's params (DragonflyParams, SlimFlyParams).
template <class Params>
void read_direct_links(const config::Config& c, Params& p) {
  p.rate = rate_gbps(c.real("topology.link_rate_gbps"));
  p.host_latency = from_ns(c.real("topology.host_latency_ns"));
  p.local_latency = from_ns(c.real("topology.local_latency_ns"));
  p.global_latency = from_ns(c.real("topology.global_latency_ns"));
}

}  // namespace lbsim::topo
