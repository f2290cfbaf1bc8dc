#include "topo/registry.h"

#include <cmath>
#include <stdexcept>

#include <fmt/core.h>

#include "core/error.h"

namespace lbsim::topo {

config::Registry<TopologyPlugin>& topologies() {
  static config::Registry<TopologyPlugin> r("topology", "topology.kind");
  return r;
}

Topology build_topology(const config::Config& cfg) { return topologies().get(cfg.text("topology.kind")).make(cfg); }

TopologySize topology_size(const config::Config& cfg) {
  const auto& e = topologies().get(cfg.text("topology.kind"));
  if (!e.size) throw std::logic_error("the topology '" + e.name + "' has no size estimate");
  return e.size(cfg);
}

BitsPerSec rate_gbps(double gbps) { return static_cast<BitsPerSec>(std::llround(gbps * 1e9)); }

namespace {
std::vector<std::string> topology_names() { return topologies().names(); }

// The [topology] keys shared by several generators, each with the generators that read it (a key
// no selected generator reads is refused: config::check_keys_read); each generator declares its own.
const std::vector<std::string> kDirect{"dragonfly", "slim_fly", "ring", "complete"};

[[maybe_unused]] const bool declared = [] {
  using namespace config;
  const std::string kind = "topology.kind";
  declare({
      text("topology.kind", "fat_tree", "Topology generator (the plug-ins below; docs/topologies.md).")
          .one_of(&topology_names),
      real("topology.host_latency_ns", 500, "ns", "Propagation latency of host links.")
          .range(0, 1e9)
          .read_by(kind, {"fat_tree", "dragonfly", "slim_fly", "ring", "complete", "rail"}),
      integer("topology.p", 0, "hosts",
              "Dragonfly / Slim Fly / ring / complete: hosts per switch; 0 = default (Dragonfly 4, the others "
              "ceil(k'/2) for switch degree k').")
          .range(0, 4096)
          .read_by(kind, kDirect),
      integer("topology.n", 8, "switches", "Ring / complete: number of switches.")
          .range(2, 1 << 14)
          .read_by(kind, {"ring", "complete"}),
      real("topology.link_rate_gbps", 400, "Gb/s",
           "Dragonfly / Slim Fly / ring / complete / rail: rate of every link (host links included; rail: but the "
           "NVLink links).")
          .range(1e-3, 1e6)
          .read_by(kind, {"dragonfly", "slim_fly", "ring", "complete", "rail"}),
      real("topology.local_latency_ns", 25, "ns",
           "Dragonfly / Slim Fly / ring / complete: latency of local switch links (Dragonfly intra-group, Slim Fly "
           "intra-rack, every ring / complete link; [Spritz] Table II: 25).")
          .range(0, 1e9)
          .read_by(kind, kDirect),
      real("topology.global_latency_ns", 500, "ns",
           "Dragonfly / Slim Fly / rail: latency of global (inter-group / inter-rack / NIC-rail scale-out) links "
           "(Table II: 500).")
          .range(0, 1e9)
          .read_by(kind, {"dragonfly", "slim_fly", "rail"}),
  });
  return true;
}();
}  // namespace

}  // namespace lbsim::topo
