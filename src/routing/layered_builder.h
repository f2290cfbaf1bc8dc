// The layer builder behind build_layers (layered.cpp): the state shared by the construction of all
// layers and its operations. Internal to the layered routing; its members are defined in
// layered_builder.cpp (layer state, W, layer 0, fallback, RUES / FatPaths) and layered_paths.cpp
// (the almost-minimal paths of Algorithm 1 and the short-route guard). See layered.h.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <utility>
#include <vector>

#include "core/rng.h"
#include "routing/layered.h"
#include "topo/graph.h"

namespace lbsim::routing::detail {

inline constexpr long kInf = std::numeric_limits<long>::max() / 4;

// Fisher-Yates shuffle driven by our deterministic stream (std::shuffle's use of the generator is
// implementation-defined, which would break "same seed = same tables" across standard libraries).
template <class T>
void shuffle_with(std::vector<T>& v, Rng& rng) {
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.below(i)]);
}

// Mutable state shared by the construction of all layers.
struct LayerBuilder {
  const Adjacency& adj;
  int n;
  RoutingLayers& r;
  // W(u,v): number of routes (over all layers built so far) using the directed channel u->v
  // (sec. 4.3 "matrix W"; App. B.1.3). Directed because each direction of a full-duplex cable is
  // loaded independently.
  std::vector<long> w;
  // Priority p(u,v) of App. B.1.2: number of almost-minimal routes the ordered pair already has.
  std::vector<int> prio;
  topo::Bfs bfs;  // scratch of shortest_in_subgraph
  // State of the layer under construction (layers are built one after the other). A next hop is
  // only ever set on a switch without one, and no routed switch's chain passes through an unrouted
  // switch, so a route's length never changes once set: route_len[x*n+d] is kept next to the next
  // hop (-1: unrouted).
  std::vector<int> route_len;
  // The short-route guard's view of the layer, kept up to date at every set_hop while the pairs of
  // a layered layer are inserted (`track`), instead of being re-derived for every candidate path:
  //   mp[x*n+d]  minimal_possible(x, d) (below), for every switch;
  //   so[x*n+d]  short option count (0, 1, 2 = two or more) of an unrouted switch x != d;
  //   bad[d], ones[d]: unrouted switches x != d with 0 / exactly 1 short option.
  // Both are pure functions of the layer's entries towards d, so an entry set and cleared again
  // (keeps_short_routes) leaves them as they were. A change of x's entry can only change mp of x
  // and, through minimal next hops, of switches one hop farther from d (propagated while values
  // flip), and so of the neighbours of x and of the switches whose mp flipped.
  bool track = false;
  bool diameter2 = false;  // every switch within 2 hops of every other (Slim Fly)
  std::vector<char> mp;
  std::vector<signed char> so;
  // Behind so: per (x, d) the neighbours that give x a short option, routed ones (rs: route short
  // enough, d itself counts) and unrouted ones (uo: close enough to d and minimal_possible), so
  // so = rs > 0 ? 2 : min(uo, 2) follows every change of a neighbour in O(1).
  std::vector<int> rs, uo;
  std::vector<int> bad, ones;
  std::vector<int> flipped;  // scratch of set_hop

  LayerBuilder(const Adjacency& a, RoutingLayers& routing);

  void begin_layer();

  void start_tracking();

  int limit_of(int x, int d) const { return std::max(3, r.distance(x, d) + 1); }
  int so_of(int x, int d) const {
    const auto k = id(x, d);
    return rs[k] > 0 ? 2 : std::min(uo[k], 2);
  }
  void count_so(int x, int d, int sign) {
    const int v = so[id(x, d)];
    if (v == 0) bad[static_cast<std::size_t>(d)] += sign;
    if (v == 1) ones[static_cast<std::size_t>(d)] += sign;
  }
  bool routed(int l, int x, int d) const { return x == d || r.next_hop(l, x, d) >= 0; }

  inline bool mp_compute(int l, int z, int d) const;
  inline void so_update(int l, int z, int d);
  inline void contribute(int l, int x, int d, int sign);

  void set_hop(int l, int x, int d, int nh);

  std::size_t id(int u, int v) const {
    return static_cast<std::size_t>(u) * static_cast<std::size_t>(n) + static_cast<std::size_t>(v);
  }

  // Adds one route along the current forwarding chain s -> d of layer l to W.
  void add_route_weight(int l, int s, int d) {
    for (int x = s; x != d;) {
      int y = r.next_hop(l, x, d);
      w[id(x, y)] += 1;
      x = y;
    }
  }

  inline long chain_weight(int l, int s, int d) const;

  void build_minimal_layer(int l, Rng& rng);

  // Completes layer l: every (s, d) without a next hop gets the shortest route that is consistent
  // with the entries already in the layer (Dijkstra from the partial tree towards d, unit lengths,
  // ties to the lighter channel). This is the minimal fallback of App. B.1.4; when the layer's
  // earlier paths make the minimal route impossible (a destination-based layer may already have
  // fixed the minimal next hop's route), the shortest still-possible route is used and counted in
  // fallback_non_minimal. `usable(u,v)` restricts the links (all links for the fallback).
  template <class Usable>
  void complete_layer(int l, Usable usable, bool count_fallbacks) {
    auto& st = r.build_stats[static_cast<std::size_t>(l)];
    for (int d = 0; d < n; ++d) {
      std::vector<long> len(static_cast<std::size_t>(n), kInf);
      std::vector<long> tie(static_cast<std::size_t>(n), kInf);
      std::vector<int> parent(static_cast<std::size_t>(n), -1);
      std::vector<char> fixed(static_cast<std::size_t>(n), 0);
      using Item = std::pair<std::pair<long, long>, int>;  // ((len, tie weight), node)
      std::priority_queue<Item, std::vector<Item>, std::greater<Item>> pq;
      for (int x = 0; x < n; ++x) {
        if (x == d || r.next_hop(l, x, d) >= 0) {
          len[static_cast<std::size_t>(x)] = fixed_len(l, x, d);
          fixed[static_cast<std::size_t>(x)] = 1;
          pq.push({{len[static_cast<std::size_t>(x)], 0}, x});
        }
      }
      std::vector<char> done(static_cast<std::size_t>(n), 0);
      std::vector<int> completed;
      while (!pq.empty()) {
        auto [key, y] = pq.top();
        pq.pop();
        auto yi = static_cast<std::size_t>(y);
        if (done[yi]) continue;
        done[yi] = 1;
        if (!fixed[yi]) completed.push_back(y);
        for (int x : adj[yi]) {
          auto xi = static_cast<std::size_t>(x);
          if (fixed[xi] || done[xi] || !usable(x, y)) continue;
          long nl = len[yi] + 1, nt = w[id(x, y)];
          if (nl < len[xi] || (nl == len[xi] && nt < tie[xi])) {
            len[xi] = nl, tie[xi] = nt, parent[xi] = y;
            pq.push({{nl, nt}, x});
          }
        }
      }
      for (int x : completed) {
        set_hop(l, x, d, parent[static_cast<std::size_t>(x)]);  // parents come first in `completed`
        if (count_fallbacks) {
          ++st.fallback;
          if (len[static_cast<std::size_t>(x)] > r.distance(x, d)) ++st.fallback_non_minimal;
        }
      }
      for (int x : completed) add_route_weight(l, x, d);
    }
  }

  // Target length of an almost-minimal path: exactly 3 hops on diameter-2 graphs such as Slim Fly
  // (App. B.1.1: "one hop longer than SF's diameter of two"); on other graphs, pairs farther than
  // two hops get (distance + 1), the general meaning of "almost minimal" in sec. 4.2. With
  // Detours::Shortest, the shortest length from there on for which the graph has a simple path
  // between the pair (4 hops for adjacent pairs of a girth-5 graph), memoised per pair.
  Detours detours = Detours::Exact3;
  std::vector<int> target_memo;
  inline int target_hops(int s, int d);
  inline bool has_simple_path(int s, int d, int len);

  inline std::vector<int> find_path(int l, int src, int dst, Rng& rng, bool guard);

  // The enumeration of find_path for t = 3 hops, without the search: a 3-hop path src -> y1 -> y2
  // -> dst has y2 a common neighbour of y1 and dst, so the candidates are read off the
  // intersection of two adjacency bitsets (ascending, as the depth-first search meets them)
  // instead of trying every neighbour of every neighbour. Same candidates in the same order as the search:
  //   * y1 == dst or dist(y1, dst) > 2: none;
  //   * y1 routed towards dst: its fixed route, when it has 2 hops and does not pass through src;
  //   * y1 unrouted: per y2 in N(y1) & N(dst), y2 != src: a routed y2 only when its next hop is dst,
  //     an unrouted y2 always (its last hop is the link to dst).
  struct Cand {
    long w;
    std::uint64_t key;  // random tie-break
    std::size_t off;    // nodes in cand_nodes[off .. off + len)
    int len;
  };
  std::vector<Cand> cands;
  std::vector<int> cand_nodes;
  // Adjacency rows as bitsets (n bits per switch, n^2 / 8 bytes: cache-resident for the sizes the
  // layers are built for): the common neighbours of (y1, dst) are the bits of row(y1) & row(dst),
  // met in ascending order.
  std::size_t words = 0;
  std::vector<std::uint64_t> nbr_bits;
  inline void build_neighbour_bits();
  template <class Consider>
  void find_3hop(int l, int src, int dst, Consider& consider);

  // Current route length of a switch that has a next hop towards d in layer l.
  int fixed_len(int, int x, int d) const { return x == d ? 0 : route_len[id(x, d)]; }

  // Can switch z (towards d, in layer l) still get a minimal route? True for d itself, for a routed
  // switch whose route is minimal, and for an unrouted switch with such a next hop candidate
  // (kept in mp while tracking).
  bool minimal_possible(int, int z, int d) const { return mp[id(z, d)] != 0; }

  inline int short_options_pick(int l, int x, int d, int* unrouted_pick) const;
  bool fine(int l, int x, int d) const { return routed(l, x, d) || so[id(x, d)] > 0; }

  // Would inserting p leave some unrouted switch within 2 hops of the new routes without a short
  // option (options can vanish up to two hops away)? Evaluated by inserting the path's next hops
  // tentatively and undoing them. On a diameter-2 graph those 2 hops reach every switch, so the
  // count of such switches answers at once.
  // With keep, a path that passes stays inserted (its next hops set; kept_j = how many were new), so
  // insert_path does not set them again: the tracked counts are pure functions of the entries, so
  // this is the state that clearing and setting them again would give.
  int kept_j = -1;
  inline bool keeps_short_routes(int l, const int* p, int len, bool keep);

  inline void pin_minimal(int l, int z, int d);

  inline void pin_short_routes(int l, const std::vector<int>& p, int j);

  inline int insert_path(int l, const std::vector<int>& p);

  void build_layered_layer(int l, Rng& rng, bool guard);

  template <class Allowed>
  void shortest_in_subgraph(int l, int d, Allowed allowed, Rng& rng);

  inline std::vector<char> sample_links(double p, Rng& rng) const;

  void build_rues_layer(int l, double p, Rng& rng);

  void build_fatpaths_layer(int l, double p, Rng& rng);
};

}  // namespace lbsim::routing::detail
