// Small switch graphs for quick experiments: `ring` (a cycle of n switches) and `complete` (every
// switch linked to every other). They exercise routing on graphs whose properties are known by
// heart: a ring has long paths and cyclic channel dependencies (deadlock analyses, [SlimFly]
// sec. 5.2), the complete graph has diameter 1 and n-2 two-hop detours per pair (layered routing,
// sec. 4). `lbsim layers` / `lbsim mat` used them before they were topologies; as plug-ins they
// also run packets (`lbsim run`).
//
// Layout: hosts first, p per switch in switch order (host h on switch h / p, ports 0..p-1 of its
// switch), switch i labelled "s<i>"; every switch-switch link is LinkKind::Local with
// topology.local_latency_ns, every link runs at topology.link_rate_gbps.
#include <string>
#include <utility>
#include <vector>

#include <cmath>

#include <fmt/core.h>

#include "core/error.h"
#include "topo/registry.h"

namespace lbsim::topo {

namespace {

// Every link's rate, host links included.
BitsPerSec link_rate(const config::Config& c) { return rate_gbps(c.real("topology.link_rate_gbps")); }

// Builds the topology of `kind` from its switch-switch edges (i < j, no duplicates). p = 0 means
// ceil(k'/2) hosts per switch, k' the switch degree: the full-global-bandwidth rule of Slim Fly
// ([SlimFly] App. A.1), so that the graphs compare with a Slim Fly of the same degree.
Topology build_small_graph(const std::string& kind, int n, const std::vector<std::pair<int, int>>& edges,
                           const config::Config& c) {
  std::vector<int> degree(static_cast<std::size_t>(n), 0);
  for (const auto& e : edges) {
    ++degree[static_cast<std::size_t>(e.first)];
    ++degree[static_cast<std::size_t>(e.second)];
  }
  const int kp = degree[0];  // both graphs are regular
  const int p = c.integer("topology.p") > 0 ? static_cast<int>(c.integer("topology.p")) : (kp + 1) / 2;
  const BitsPerSec rate = link_rate(c);

  Topology t;
  t.kind = kind;
  for (int h = 0; h < n * p; ++h) t.add_host(fmt::format("h{}", h));
  for (int s = 0; s < n; ++s) t.add_switch(fmt::format("s{}", s), -1, 1);
  for (int s = 0; s < n; ++s)
    for (int j = 0; j < p; ++j)
      t.connect(s * p + j, t.switch_node(s), rate, from_ns(c.real("topology.host_latency_ns")), LinkKind::HostLink);
  const SimTime local = from_ns(c.real("topology.local_latency_ns"));
  for (const auto& e : edges) t.connect(t.switch_node(e.first), t.switch_node(e.second), rate, local, LinkKind::Local);
  t.set_param("n", std::to_string(n));
  t.set_param("k'", std::to_string(kp));
  t.set_param("p", std::to_string(p));
  t.set_param("switches", std::to_string(n));
  t.set_param("hosts", std::to_string(n * p));
  return t;
}

int switches(const config::Config& c) { return static_cast<int>(c.integer("topology.n")); }

// Switch i is linked to i + 1 (mod n); for n = 2 that is a single link, not two parallel ones.
Topology build_ring(const config::Config& c) {
  const int n = switches(c);
  std::vector<std::pair<int, int>> edges;
  for (int i = 0; i + 1 < n; ++i) edges.emplace_back(i, i + 1);
  if (n > 2) edges.emplace_back(0, n - 1);
  return build_small_graph("ring", n, edges, c);
}

Topology build_complete(const config::Config& c) {
  const int n = switches(c);
  std::vector<std::pair<int, int>> edges;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) edges.emplace_back(i, j);
  return build_small_graph("complete", n, edges, c);
}

// The size of a ring / complete graph of n switches of degree k' with p hosts each (memory guard).
TopologySize small_graph_size(const config::Config& c, double degree) {
  const double n = switches(c);
  const double p =
      c.integer("topology.p") > 0 ? static_cast<double>(c.integer("topology.p")) : std::floor((degree + 1) / 2);
  TopologySize s;
  s.switches = n;
  s.hosts = n * p;
  s.links = s.hosts + n * degree / 2;
  s.next_hops = 1;
  s.host_rate_bps = static_cast<double>(link_rate(c));
  s.keys = "topology.n";
  return s;
}

using namespace config;
const RegisterTopology kRing{
    {{"ring",
      "Ring of topology.n switches (cycle graph), for small experiments (deadlock, layered routing).",
      {},
      {"topology.n=4", "topology.p=1"}},
     &build_ring,
     [](const Config& c) { return small_graph_size(c, switches(c) > 2 ? 2 : 1); }}};
const RegisterTopology kComplete{{{"complete",
                                   "Complete graph of topology.n switches (diameter 1), for small experiments.",
                                   {},
                                   {"topology.n=4", "topology.p=1"}},
                                  &build_complete,
                                  [](const Config& c) { return small_graph_size(c, switches(c) - 1); }}};

}  // namespace

}  // namespace lbsim::topo
