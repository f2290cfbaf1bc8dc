// Breadth-first search, shared by every hop-distance computation on a switch graph: the topology's
// switch distances, the routing tables (min-hop and Dragonfly minimal routes), the path model behind
// base RTT / RTO / ideal FCT, and layered routing's all-pairs distances and in-layer shortest paths.
// One traversal keeps their tie-breaking the same: neighbours are visited in the order the caller
// lists them, and the first edge to reach a node becomes its parent.
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "topo/topology.h"

namespace lbsim::topo {

// Adjacency lists over nodes 0..n-1 (the neighbour order is the traversal order).
using AdjacencyLists = std::vector<std::vector<std::int32_t>>;

// Reusable BFS state for a graph of a fixed number of nodes: running it from several sources in a
// row allocates nothing after the first run.
class Bfs {
 public:
  explicit Bfs(std::int32_t nodes)
      : dist_(static_cast<std::size_t>(nodes), -1),
        parent_(static_cast<std::size_t>(nodes), -1),
        order_(static_cast<std::size_t>(nodes)) {}

  // Runs from `source`. `edges(u, reach)` must call `reach(v, via)` for every edge u -> v to follow,
  // in the order to follow them; `via` is what parent() records for v when that edge reaches it
  // first (the neighbour itself, a port or a link id: whatever the caller walks back along).
  template <class Edges>
  void run(std::int32_t source, Edges&& edges) {
    for (std::size_t i = 0; i < reached_; ++i) {  // reset only what the previous run touched
      dist_[static_cast<std::size_t>(order_[i])] = -1;
      parent_[static_cast<std::size_t>(order_[i])] = -1;
    }
    // order_ doubles as the queue: a node is appended once, so n slots always suffice.
    order_[0] = source;
    reached_ = 1;
    dist_[static_cast<std::size_t>(source)] = 0;
    for (std::size_t head = 0; head < reached_; ++head) {
      const std::int32_t u = order_[head];
      const std::int32_t du = dist_[static_cast<std::size_t>(u)];
      edges(u, [&](std::int32_t v, std::int32_t via) {
        auto& dv = dist_[static_cast<std::size_t>(v)];
        if (dv >= 0) return;
        dv = du + 1;
        parent_[static_cast<std::size_t>(v)] = via;
        order_[reached_++] = v;
      });
    }
  }

  // Hops from the last source; -1 when unreachable.
  std::span<const std::int32_t> dist() const { return dist_; }
  // `via` of the edge that first reached each node; -1 for the source and unreachable nodes.
  std::span<const std::int32_t> parent() const { return parent_; }
  // The reached nodes in visit order (source first, distances non-decreasing).
  std::span<const std::int32_t> order() const { return {order_.data(), reached_}; }

 private:
  std::vector<std::int32_t> dist_, parent_, order_;
  std::size_t reached_ = 0;  // nodes of order_ in use
};

// BFS from switch index `source` over the switch graph of `t`: every switch's ports in port order,
// host ports skipped, only links for which `follow(link)` holds. Nodes are switch indices and
// parent() holds the id of the link that first reached each switch.
template <class Follow>
void switch_bfs(const Topology& t, std::int32_t source, Bfs& bfs, Follow&& follow) {
  // Node id <-> switch index through a local copy of num_hosts: the search's stores into int32
  // arrays could alias t.num_hosts, which would otherwise be reloaded for every port.
  const std::int32_t hosts = t.num_hosts;
  bfs.run(source, [&](std::int32_t u, auto&& reach) {
    for (const auto& p : t.ports[static_cast<std::size_t>(hosts + u)])
      if (p.peer >= hosts && follow(t.links[static_cast<std::size_t>(p.link)])) reach(p.peer - hosts, p.link);
  });
}

// A switch graph in compressed rows: the neighbours (switch indices) of switch u are
// nbr[off[u] .. off[u + 1]), in port order, one entry per link.
struct SwitchRows {
  std::vector<std::int32_t> off, nbr;
  std::size_t size() const { return off.empty() ? 0 : off.size() - 1; }
  // The OR of words[v] over the neighbours v of u (the bit-parallel searches' step).
  std::uint32_t gather(std::size_t u, const std::vector<std::uint32_t>& words) const {
    std::uint32_t w = 0;
    for (std::int32_t i = off[u]; i < off[u + 1]; ++i)
      w |= words[static_cast<std::size_t>(nbr[static_cast<std::size_t>(i)])];
    return w;
  }
};

// The switch graph of `t` over the links for which `follow(link)` holds, host ports skipped.
template <class Follow>
SwitchRows switch_rows(const Topology& t, Follow&& follow) {
  SwitchRows g;
  const std::int32_t hosts = t.num_hosts;
  g.off.reserve(static_cast<std::size_t>(t.num_switches()) + 1);
  g.off.push_back(0);
  for (std::int32_t u = 0; u < t.num_switches(); ++u) {
    for (const auto& p : t.ports[static_cast<std::size_t>(hosts + u)])
      if (p.peer >= hosts && follow(t.links[static_cast<std::size_t>(p.link)])) g.nbr.push_back(p.peer - hosts);
    g.off.push_back(static_cast<std::int32_t>(g.nbr.size()));
  }
  return g;
}

// Hop distances from up to 32 sources at once: a bit-parallel breadth-first search, one bit per
// source in a word per switch, each level one pass over the rows that ORs the words of the
// neighbours first reached at the level before. The same distances as one Bfs per source at a
// fraction of the cost: the routing tables' builders search their destinations in blocks of 32
// (routing/tables.h), and a search over 35 links per switch then reads each link once per level for
// the whole block instead of once per destination. Rows are symmetric (links are bidirectional),
// so the hops from source k to u are also those from u to k.
class BlockBfs {
 public:
  static constexpr std::size_t kMaxSources = 32;
  explicit BlockBfs(std::size_t switches) : seen_(switches), front_(switches), next_(switches) {}

  // hops[u * stride + k] = hops between sources[k] and switch u over the edges of `g` (-1 when
  // unreachable), for k < sources.size() <= kMaxSources; columns from sources.size() on are left alone.
  void run(const SwitchRows& g, std::span<const std::int32_t> sources, std::int32_t* hops, std::size_t stride);

 private:
  std::vector<std::uint32_t> seen_, front_, next_;
};

// Hop distances between all pairs of nodes of an adjacency-list graph, row-major n*n
// ([s * n + d]); -1 if unreachable.
std::vector<std::int32_t> all_pairs_distances(const AdjacencyLists& adj);

}  // namespace lbsim::topo
