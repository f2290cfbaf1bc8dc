#include "routing/path_model.h"

#include <fmt/core.h>

#include "core/error.h"

namespace lbsim::routing {

PathModel::PathModel(const MinimalTables& tables, SimTime switch_latency)
    : tables_(tables), t_(tables.topology()), sw_lat_(switch_latency) {}

std::vector<std::int32_t> PathModel::path_links(std::int32_t a, std::int32_t b) const {
  const std::int32_t sa = t_.host_switch(a), sb = t_.host_switch(b);
  std::vector<std::int32_t> links;
  links.push_back(t_.ports[a][0].link);
  if (sa != sb && tables_.distance(sa, sb) < 0) throw UserError(fmt::format("host {} cannot reach host {}", a, b));
  // Why the first candidate gives the BFS tree path: a BFS from sa visits the nodes of one level in
  // the order of their tree paths' port sequences (by induction: the level before is in that order
  // and each node scans its ports in order, the first discovery winning), so the tree path to any
  // node is the smallest port sequence among its shortest paths; every candidate port continues
  // some shortest path, so taking the smallest at every switch builds exactly that sequence.
  for (std::int32_t n = sa; n != sb;) {
    const std::int16_t p = tables_.candidates(n, sb).front();
    const auto& port = t_.ports[n][p];
    links.push_back(port.link);
    n = port.peer;
  }
  links.push_back(t_.ports[b][0].link);
  return links;
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
