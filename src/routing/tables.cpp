#include "routing/tables.h"

namespace lbsim::routing {

MinimalTables::MinimalTables(const topo::Topology& t) : topo_(t) {
  nsw_ = static_cast<std::size_t>(t.num_switches());
  auto dist = topo::switch_distances(t);
  dist_.assign(nsw_ * nsw_, -1);
  for (std::size_t a = 0; a < nsw_; ++a)
    for (std::size_t b = 0; b < nsw_; ++b) dist_[a * nsw_ + b] = dist[a][b];
  offset_.assign(nsw_ * nsw_ + 1, 0);
  for (std::size_t s = 0; s < nsw_; ++s) {
    const std::int32_t node = t.switch_node(static_cast<std::int32_t>(s));
    for (std::size_t d = 0; d < nsw_; ++d) {
      offset_[s * nsw_ + d] = static_cast<std::uint32_t>(ports_.size());
      if (s == d || dist[s][d] < 0) continue;
      const auto& ports = t.ports[node];
      for (std::size_t p = 0; p < ports.size(); ++p) {
        const std::int32_t peer = ports[p].peer;
        if (t.is_host(peer)) continue;
        if (dist[t.switch_index(peer)][d] == dist[s][d] - 1)
          ports_.push_back(static_cast<std::int16_t>(p));
      }
    }
  }
  offset_[nsw_ * nsw_] = static_cast<std::uint32_t>(ports_.size());
  host_port_.resize(t.num_hosts);
  for (std::int32_t h = 0; h < t.num_hosts; ++h)
    host_port_[h] = static_cast<std::int16_t>(t.ports[h][0].peer_port);
}

}  // namespace lbsim::routing
