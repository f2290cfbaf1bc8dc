// Layered multipath routing for low-diameter networks (Slim Fly deployment paper,
// [SlimFly], sec. 4 "High-performance multipathing", Algorithm 1,
// and Appendix B.1 "Details of layer generation"), plus the two baselines of sec. 6: RUES (random
// uniform edge selection) and FatPaths-style acyclic layers.
//
// Everything works on a plain undirected switch graph (adjacency lists over switch indices
// 0..n-1), so any topology can be routed: Slim Fly (topo::build_mms_graph), Topology::
// switch_adjacency(), or a hand-made test graph.
//
// A layer is a destination-based forwarding function: for every (switch s, destination switch d)
// exactly one next-hop neighbour (sec. 5.1: port[l][s][d]). Every layer reaches every pair and is
// loop-free (checked by validate_layers()).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "topo/graph.h"

namespace lbsim::routing {

// Undirected simple graph as adjacency lists; neighbour order defines port indices (see below).
using Adjacency = topo::AdjacencyLists;

enum class LayerScheme { Layered, Rues, FatPaths };

// Length of the almost-minimal paths find_path looks for (layered scheme).
//   Exact3:   App. B.1.1 as written: exactly 3 hops (on graphs with pairs farther than 2 hops:
//             distance + 1). In a girth-5 graph (Slim Fly q = 5) an adjacent pair has no 3-hop path,
//             so it keeps its minimal path only, which caps the pairs with >= 3 disjoint paths at
//             85.7 % (Fig. 8 shows 88.5 % at 8 layers, ~100 % at 16).
//   Shortest: the shortest length >= that target for which the graph has a simple path between the
//             pair (4 hops for adjacent pairs of a girth-5 graph, 3 otherwise). Reproduces Fig. 8's
//             numbers (docs/layered-routing.md); the 4-hop routes rule out the three-lane scheme
//             (sec. 5.2 needs <= 3 hops), DFSSSP lanes work.
//   Range:    App. B.1.1's "in theory one could also define a range of valid lengths": paths of t
//             and t + 1 hops (t as for Exact3: 3 and 4 on Slim Fly) in one candidate set, the lightest
//             taken. One of the readings tried for Fig. 8 (docs/layered-routing.md); 4-hop routes
//             rule out the three-lane scheme.
enum class Detours { Exact3, Shortest, Range };
Detours parse_detours(const std::string& name);  // "exact3" | "shortest" | "range"
const char* detours_name(Detours d);
LayerScheme parse_layer_scheme(const std::string& name);  // "layered" | "rues" | "fatpaths"
const char* layer_scheme_name(LayerScheme s);

struct LayerOptions {
  int layers = 4;  // |L|, including layer 0 (all links, minimal paths)
  LayerScheme scheme = LayerScheme::Layered;
  // RUES / FatPaths: fraction of links kept in each layer l >= 1 (sec. 6 "Baselines": p = 40, 60,
  // 80 %). Unused by the layered scheme.
  double keep_fraction = 0.6;
  std::uint64_t seed = 1;
  // Layered scheme: skip a candidate path of find_path (App. B.1.1) that would leave a neighbouring
  // switch with no possible route of at most max(3, distance + 1) hops in this layer, taking the
  // next lighter candidate instead. Our addition (not in the paper): it keeps the minimal fallback
  // of App. B.1.4 short, so the 3-lane scheme of sec. 5.2 stays applicable. When a neighbour x
  // depends on an unrouted switch z for its short route, z's minimal route is pinned right away.
  bool guard_short_routes = true;
  Detours detours = Detours::Exact3;  // layered scheme: length of the almost-minimal paths (above)
};

// Per-layer construction counters (what happened to each ordered pair in each layer).
struct LayerBuildStats {
  long almost_minimal_found = 0;  // find_path succeeded for the pair (App. B.1.1)
  long already_routed = 0;        // pair already fixed by an earlier path's suffix (App. B.1.4, 1st)
  long fallback = 0;              // P empty: routed by the fallback completion (App. B.1.4, 2nd)
  long fallback_non_minimal = 0;  // ... and the completed route is longer than minimal
  long pinned = 0;                // switches routed minimally early to keep a neighbour's route short (guard)
};

class RoutingLayers {
 public:
  RoutingLayers() = default;
  RoutingLayers(Adjacency adj, int layers);

  int num_switches() const { return n_; }
  int num_layers() const { return static_cast<int>(next_.size()); }
  const Adjacency& adjacency() const { return adj_; }

  // Next-hop switch from s towards d in layer l; -1 when s == d.
  int next_hop(int l, int s, int d) const { return next_[l][idx(s, d)]; }
  // Index of that next hop in adjacency()[s] (0-based; -1 when s == d): not a physical port. The
  // physical port[l][s][d] of sec. 5.1 comes from the cabling (analysis::Fabric::port_to for the
  // LFTs, the Topology's ports in the packet engine's LayeredRouter: the same numbering).
  int next_port(int l, int s, int d) const;
  int next_port_or_neighbor(int l, int s, int d, bool neighbor) const {
    return neighbor ? next_hop(l, s, d) : next_port(l, s, d);
  }
  // Switch sequence s .. d following the layer's next hops. Throws std::logic_error on a loop.
  std::vector<int> path(int l, int s, int d) const;
  // Hops of that path (without building it; the layer construction asks this very often).
  int hops(int l, int s, int d) const;

  // Minimal hop distance in the full graph.
  int distance(int s, int d) const { return dist_[idx(s, d)]; }

  void set_next_hop(int l, int s, int d, int nh) { next_[l][idx(s, d)] = nh; }
  std::vector<LayerBuildStats> build_stats;  // one per layer

 private:
  std::size_t idx(int s, int d) const {
    return static_cast<std::size_t>(s) * static_cast<std::size_t>(n_) + static_cast<std::size_t>(d);
  }
  int n_ = 0;
  Adjacency adj_;
  std::vector<int> dist_;               // n*n all-pairs hop distances
  std::vector<std::vector<int>> next_;  // next_[l][s*n+d]
};

// All-pairs BFS hop distances, row-major n*n; -1 if unreachable (topo/graph.h).
using topo::all_pairs_distances;

// Sorts and de-duplicates neighbour lists, drops self-loops, checks symmetry and connectivity.
// Parallel links collapse into one (layers are sets of links, sec. 4.1). Throws UserError.
Adjacency normalize_graph(Adjacency adj);

// Builds the layers with the chosen scheme. Deterministic for (graph, options): every random draw
// comes from Rng(seed, hash_name("layered"|"rues"|"fatpaths"), layer).
RoutingLayers build_layers(const Adjacency& adj, const LayerOptions& opt);

// Checks that every layer is a loop-free destination-based forwarding function reaching every pair
// over existing links. Returns an empty string when valid, else the first problem found.
std::string validate_layers(const RoutingLayers& r);

// ---- Output formats (documented in docs/layered-routing.md) ---------------------------------

// Forwarding tables port[l][s][d] as text: a header line, then per layer one row per switch s with
// the n next-hop switches (-1 on the diagonal).
std::string format_forwarding_tables(const RoutingLayers& r, const std::string& scheme_note);

// The InfiniBand tables of these layers (LIDs, LFTs on the physical ports of the cabling, SLs) are
// written by analysis/opensm.h from an analysis::Fabric: next_port() above is an index into
// adjacency(), not a physical port number.

}  // namespace lbsim::routing
