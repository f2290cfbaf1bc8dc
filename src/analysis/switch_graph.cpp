#include "analysis/switch_graph.h"

#include <algorithm>
#include <string_view>

#include <fmt/core.h>

#include "topo/registry.h"

namespace lbsim::analysis {

SwitchGraph switch_graph(const topo::Topology& t) {
  SwitchGraph g;
  g.adj = routing::normalize_graph(t.switch_adjacency());
  std::size_t kp = 0;
  for (const auto& a : g.adj) kp = std::max(kp, a.size());
  for (std::int32_t s = 0; s < t.num_switches(); ++s)
    g.endpoints_per_switch = std::max(g.endpoints_per_switch, static_cast<int>(t.hosts_of(t.switch_node(s)).size()));
  // The parameters that fix a topology's size (Slim Fly q, ring / complete n, Dragonfly a, h, g, fat
  // tree tiers and radix) name it in the description; p and the degree k' follow.
  std::string name = t.kind;
  for (const std::string_view key : {"q", "n", "a", "h", "g", "tiers", "radix"})
    for (const auto& [k, v] : t.params)
      if (k == key) name += fmt::format(" {}={}", k, v);
  g.description = fmt::format("{}: {} switches, k'={}, p={}", name, g.adj.size(), kp, g.endpoints_per_switch);
  return g;
}

SwitchGraph switch_graph(const config::Config& cfg) { return switch_graph(topo::build_topology(cfg)); }

}  // namespace lbsim::analysis
