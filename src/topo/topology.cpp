#include "topo/topology.h"

#include <algorithm>

#include "topo/graph.h"

namespace lbsim::topo {

const char* link_kind_name(LinkKind k) {
  switch (k) {
    case LinkKind::HostLink:
      return "host";
    case LinkKind::Tier1:
      return "tier1";
    case LinkKind::Tier2:
      return "tier2";
    case LinkKind::Local:
      return "local";
    case LinkKind::Global:
      return "global";
  }
  return "?";
}

std::int32_t Topology::add_host(std::string label) {
  // Hosts must come first so that host ids are 0..num_hosts-1.
  nodes.push_back(Node{NodeKind::Host, -1, 0, std::move(label)});
  ports.emplace_back();
  return num_hosts++;
}

std::int32_t Topology::add_switch(std::string label, std::int32_t group, std::int32_t tier) {
  nodes.push_back(Node{NodeKind::Switch, group, tier, std::move(label)});
  ports.emplace_back();
  return static_cast<std::int32_t>(nodes.size()) - 1;
}

std::int32_t Topology::connect(std::int32_t a, std::int32_t b, BitsPerSec rate, SimTime latency, LinkKind kind) {
  Link l;
  l.a = a;
  l.b = b;
  l.port_a = static_cast<std::int32_t>(ports[a].size());
  l.port_b = static_cast<std::int32_t>(ports[b].size());
  l.rate = rate;
  l.latency = latency;
  l.kind = kind;
  auto id = static_cast<std::int32_t>(links.size());
  links.push_back(l);
  ports[a].push_back(Port{id, b, l.port_b});
  ports[b].push_back(Port{id, a, l.port_a});
  return id;
}

std::vector<std::int32_t> Topology::hosts_of(std::int32_t sw) const {
  std::vector<std::int32_t> out;
  for (const auto& p : ports[sw])
    if (is_host(p.peer)) out.push_back(p.peer);
  return out;
}

std::vector<std::vector<std::int32_t>> Topology::switch_adjacency() const {
  std::vector<std::vector<std::int32_t>> adj(num_switches());
  for (std::int32_t s = 0; s < num_switches(); ++s)
    for (const auto& p : ports[switch_node(s)])
      if (!is_host(p.peer)) adj[s].push_back(switch_index(p.peer));
  return adj;
}

void Topology::set_param(const std::string& key, const std::string& value) {
  for (auto& kv : params)
    if (kv.first == key) {
      kv.second = value;
      return;
    }
  params.emplace_back(key, value);
}

std::vector<std::vector<std::int32_t>> switch_distances(const Topology& t) {
  const std::int32_t n = t.num_switches();
  std::vector<std::vector<std::int32_t>> dist(static_cast<std::size_t>(n));
  Bfs bfs(n);
  for (std::int32_t s = 0; s < n; ++s) {
    switch_bfs(t, s, bfs, [](const Link&) { return true; });
    dist[static_cast<std::size_t>(s)].assign(bfs.dist().begin(), bfs.dist().end());
  }
  return dist;
}

GraphStats graph_stats(const Topology& t) {
  GraphStats st;
  auto adj = t.switch_adjacency();
  if (adj.empty()) return st;
  st.min_degree = st.max_degree = static_cast<std::int32_t>(adj[0].size());
  for (const auto& a : adj) {
    st.min_degree = std::min(st.min_degree, static_cast<std::int32_t>(a.size()));
    st.max_degree = std::max(st.max_degree, static_cast<std::int32_t>(a.size()));
  }
  // One BFS per source switch (no table per switch pair: docs/scale.md).
  std::vector<char> has_hosts(static_cast<std::size_t>(t.num_switches()), 0);
  for (std::int32_t s = 0; s < t.num_switches(); ++s)
    has_hosts[static_cast<std::size_t>(s)] = !t.hosts_of(t.switch_node(s)).empty();
  Bfs bfs(t.num_switches());
  double sum = 0;
  std::int64_t pairs = 0;
  std::int32_t diam = 0, hd = 0;
  bool any_hosts = false;
  for (std::int32_t s = 0; s < t.num_switches(); ++s) {
    switch_bfs(t, s, bfs, [](const Link&) { return true; });
    const auto dist = bfs.dist();
    any_hosts = any_hosts || has_hosts[static_cast<std::size_t>(s)];
    for (std::size_t d = 0; d < dist.size(); ++d) {
      if (static_cast<std::int32_t>(d) == s) continue;
      if (dist[d] < 0) {
        st.diameter = -1;
        st.host_diameter = -1;
        return st;
      }
      diam = std::max(diam, dist[d]);
      sum += dist[d];
      ++pairs;
      // Farthest host pair: max switch distance among switches that have hosts, plus the two host links.
      if (has_hosts[static_cast<std::size_t>(s)] && has_hosts[d]) hd = std::max(hd, dist[d]);
    }
  }
  st.diameter = diam;
  st.avg_path_length = pairs ? sum / static_cast<double>(pairs) : 0.0;
  const bool with_hosts_empty = !any_hosts;
  st.host_diameter = with_hosts_empty ? 0 : hd + 2;
  return st;
}

}  // namespace lbsim::topo
