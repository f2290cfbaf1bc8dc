#include "routing/tables.h"

#include "topo/graph.h"

namespace lbsim::routing {

MinimalTables::MinimalTables(const topo::Topology& t) : SwitchPairPorts(t) {
  fill(topo::all_pairs_distances(t.switch_adjacency()), [&](std::size_t s, std::size_t d, auto& out) {
    const std::int32_t hops = switch_hops(s, d);
    if (s == d || hops < 0) return;
    const auto& ports = t.ports[t.switch_node(static_cast<std::int32_t>(s))];
    for (std::size_t p = 0; p < ports.size(); ++p) {
      const std::int32_t peer = ports[p].peer;
      if (t.is_host(peer)) continue;
      if (switch_hops(static_cast<std::size_t>(t.switch_index(peer)), d) == hops - 1)
        out.push_back(static_cast<std::int16_t>(p));
    }
  });
  host_port_.resize(t.num_hosts);
  for (std::int32_t h = 0; h < t.num_hosts; ++h)
    host_port_[h] = static_cast<std::int16_t>(t.ports[h][0].peer_port);
}

}  // namespace lbsim::routing
