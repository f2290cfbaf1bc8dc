// Topology plug-ins (`topology.kind`): each generator registers its name, its keys and a factory
// that builds the neutral Topology graph from a Config (core/registry.h).
#pragma once
#include <functional>

#include "core/config.h"
#include "core/registry.h"
#include "topo/topology.h"

namespace lbsim::topo {

// The size a config's topology will have, from its parameters alone (nothing is built): the memory
// guard of a run (sim/memory.h) prices it before any allocation. Doubles, because the sizes of
// absurd configs (Dragonfly a = h = 4096: 7e10 switches) overflow the int32 node ids.
struct TopologySize {
  double hosts = 0;
  double switches = 0;
  double links = 0;      // every link, host links included (2 ports each)
  double next_hops = 1;  // mean shortest-path next hops per (switch, destination switch) pair
  // Topology::host_rate() of the graph `make` builds, from the generator's own parameters (the ones its
  // build uses; load-driven workloads size their arrivals by it).
  double host_rate_bps = 0;
  // Bounded paths of topo/paths.h per switch pair, an upper estimate of the largest pair (what a
  // source-guided run's EV entry lists and ECMP tables hold per pair in use); 0 = not priced.
  double bounded_paths = 0;
  // The generator sets Topology::minimal_one_global_hop (the Dragonfly): the `minimal` and the
  // non-minimal routers keep routes of their own (routing::minimal_routes()).
  bool minimal_one_global_hop = false;
  std::string keys;  // the keys that set the size, for messages ("topology.hosts")
};

struct TopologyPlugin : config::PluginInfo {
  std::function<Topology(const config::Config&)> make;
  // Each generator prices its own size (required: the memory guard runs before `make`).
  std::function<TopologySize(const config::Config&)> size;
};

config::Registry<TopologyPlugin>& topologies();

struct RegisterTopology {
  explicit RegisterTopology(TopologyPlugin p) { topologies().add(std::move(p)); }
};

// The topology `topology.kind` names, built from the config.
Topology build_topology(const config::Config& cfg);

// The size of the topology `topology.kind` names, without building it.
TopologySize topology_size(const config::Config& cfg);

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
