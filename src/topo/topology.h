// The neutral topology graph shared by the packet engine and the offline analyses.
// Nodes [0, num_hosts) are hosts (endpoints), nodes [num_hosts, size) are switches. Every node owns
// an ordered list of ports; port p of node n is a full-duplex link to (peer node, peer port).
// Generators (fat_tree, dragonfly, slim_fly, ...) fill a Topology; nothing downstream knows which
// generator made it except through `kind`, node groups and `params` (for reports). What routing must
// know about a family it reads from properties the generator sets (minimal_one_global_hop), never
// from `kind`.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/time.h"

namespace lbsim::topo {

enum class NodeKind : std::uint8_t { Host, Switch };

// What a link is, for per-class latency/rate settings, failure selection and reports.
enum class LinkKind : std::uint8_t {
  HostLink,  // host <-> first switch (ToR / edge / router)
  Tier1,     // fat tree: ToR <-> aggregation (T0-T1)
  Tier2,     // fat tree: aggregation <-> core (T1-T2)
  Local,     // Dragonfly intra-group / Slim Fly intra-subgroup or generic switch-switch link
  Global,    // Dragonfly inter-group / Slim Fly inter-subgroup
};
const char* link_kind_name(LinkKind k);

struct Node {
  NodeKind kind = NodeKind::Switch;
  std::int32_t group = -1;  // pod (fat tree: ToR index for ToRs), group (Dragonfly), rack (Slim Fly); -1 none
  std::int32_t tier = 0;    // hosts 0; fat tree ToR 1, agg 2, core 3; direct networks 1
  std::string label;        // human-readable name, e.g. "tor3", "sw(0,1,4)"
};

struct Link {
  std::int32_t a = -1, b = -1;            // endpoints (node ids)
  std::int32_t port_a = -1, port_b = -1;  // port index at a and at b
  BitsPerSec rate = 0;
  SimTime latency = 0;  // propagation latency, one direction
  LinkKind kind = LinkKind::Local;
};

struct Port {
  std::int32_t link = -1;  // index into links
  std::int32_t peer = -1;  // node at the other end
  std::int32_t peer_port = -1;
};

class Topology {
 public:
  std::string kind;  // "fat_tree", "dragonfly", "slim_fly", ...
  std::vector<Node> nodes;
  std::vector<Link> links;
  std::vector<std::vector<Port>> ports;  // ports[node][port]
  std::int32_t num_hosts = 0;
  // What a minimal route is. False: a path with the fewest switch-to-switch hops. True: a path with
  // at most one Global link, i.e. local-global-local between groups (Node::group), the shortest of
  // those (Dragonfly minimal routing: Kim et al., ISCA 2008; [Spritz] sec. II-A, Table I). A path
  // through a third group counts as non-minimal (Valiant) even when it has fewer hops. Routing then
  // restricts minimal routes to one global hop (routing::MinimalRoutes), classifies paths by their
  // global hops, and bounded paths are enumerated group by group (PathRule::Dragonfly). Set by the
  // dragonfly generator.
  bool minimal_one_global_hop = false;
  // Switches of group -1 are scale-out planes (rails) that every group reaches: the source-route
  // candidate rule "rail" ([LAPS] sec. 4.1) sends inter-group traffic through each of them. Set by
  // the rail generator.
  bool rail_planes = false;
  // Construction parameters and derived facts for reports (`lbsim topo`), in insertion order.
  std::vector<std::pair<std::string, std::string>> params;

  std::int32_t add_host(std::string label);
  std::int32_t add_switch(std::string label, std::int32_t group = -1, std::int32_t tier = 1);
  // Connects a and b with a new port on each side; returns the link id.
  std::int32_t connect(std::int32_t a, std::int32_t b, BitsPerSec rate, SimTime latency, LinkKind kind);

  std::int32_t size() const { return static_cast<std::int32_t>(nodes.size()); }
  std::int32_t num_switches() const { return size() - num_hosts; }
  bool is_host(std::int32_t n) const { return n < num_hosts; }
  // The rate of a host's link, the NIC rate (host 0's port 0: the generators give every host link the
  // same rate); 0 without hosts. The one place the run's host rate comes from (BDP, rate-based load
  // balancers, load-driven workloads); topo::TopologySize::host_rate_bps predicts it before the build.
  BitsPerSec host_rate() const { return num_hosts > 0 ? links[static_cast<std::size_t>(ports[0][0].link)].rate : 0; }
  // The switch a host is attached to (its port 0).
  std::int32_t host_switch(std::int32_t host) const { return ports[host][0].peer; }
  // Switch index in [0, num_switches) <-> node id.
  std::int32_t switch_node(std::int32_t s) const { return num_hosts + s; }
  std::int32_t switch_index(std::int32_t node) const { return node - num_hosts; }

  // Hosts attached to a switch (node id), in port order.
  std::vector<std::int32_t> hosts_of(std::int32_t sw) const;

  // Switch-only adjacency (indices in [0, num_switches)), one entry per link (parallel links repeat).
  std::vector<std::vector<std::int32_t>> switch_adjacency() const;

  void set_param(const std::string& key, const std::string& value);
};

// Hop distances between all pairs of switches (BFS over switch-switch links); -1 if unreachable.
// Result is indexed [switch index][switch index].
std::vector<std::vector<std::int32_t>> switch_distances(const Topology& t);

struct GraphStats {
  std::int32_t min_degree = 0, max_degree = 0;  // switch-to-switch degree
  std::int32_t diameter = 0;                    // switch graph, hops; -1 if disconnected
  double avg_path_length = 0;                   // mean over ordered switch pairs s != d
  std::int32_t host_diameter = 0;               // links between the farthest two hosts
};
GraphStats graph_stats(const Topology& t);

}  // namespace lbsim::topo
