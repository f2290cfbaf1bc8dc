#include "routing/path_model.h"

#include <fmt/core.h>

#include "core/error.h"
#include "topo/graph.h"

namespace lbsim::routing {

PathModel::PathModel(const topo::Topology& t, SimTime switch_latency) : t_(t), sw_lat_(switch_latency) {
  const auto nsw = t.num_switches();
  parent_link_.assign(static_cast<std::size_t>(nsw), {});
  topo::Bfs bfs(nsw);
  for (std::int32_t s = 0; s < nsw; ++s) {
    topo::switch_bfs(t, s, bfs, [](const topo::Link&) { return true; });
    parent_link_[static_cast<std::size_t>(s)].assign(bfs.parent().begin(), bfs.parent().end());
  }
}

std::vector<std::int32_t> PathModel::path_links(std::int32_t a, std::int32_t b) const {
  const std::int32_t sa = t_.host_switch(a), sb = t_.host_switch(b);
  std::vector<std::int32_t> rev;
  rev.push_back(t_.ports[b][0].link);
  const auto& parent = parent_link_[t_.switch_index(sa)];
  for (std::int32_t n = sb; n != sa;) {
    const std::int32_t l = parent[t_.switch_index(n)];
    if (l < 0) throw UserError(fmt::format("host {} cannot reach host {}", a, b));
    rev.push_back(l);
    const auto& link = t_.links[l];
    n = link.a == n ? link.b : link.a;
  }
  rev.push_back(t_.ports[a][0].link);
  return {rev.rbegin(), rev.rend()};
}

SimTime PathModel::ideal_fct(std::int32_t a, std::int32_t b, Bytes bytes, Bytes mtu, Bytes header) const {
  const Bytes n = (bytes + mtu - 1) / mtu;
  if (n <= 0) return 0;
  const Bytes full = mtu + header;
  const Bytes last = header + bytes - (n - 1) * mtu;
  if (n == 1) return one_way(a, b, last);
  // The NIC sends the n-1 full packets back to back; the last (possibly shorter) packet then trails
  // the previous full packet at every later hop, so it leaves each hop one full-packet time after
  // its predecessor started there, and is serialized itself only on the final link.
  const auto links = path_links(a, b);
  SimTime t = serialization_ps((n - 1) * full, t_.links[links.front()].rate);
  for (std::size_t i = 1; i < links.size(); ++i) t += serialization_ps(full, t_.links[links[i]].rate);
  t += serialization_ps(last, t_.links[links.back()].rate);
  for (auto l : links) t += t_.links[l].latency;
  return t + static_cast<SimTime>(links.size() - 1) * sw_lat_;
}

SimTime PathModel::one_way(std::int32_t a, std::int32_t b, Bytes bytes) const {
  const auto links = path_links(a, b);
  SimTime t = 0;
  for (auto l : links) t += serialization_ps(bytes, t_.links[l].rate) + t_.links[l].latency;
  return t + static_cast<SimTime>(links.size() - 1) * sw_lat_;
}

}  // namespace lbsim::routing
