// The layer under construction (layered_builder.h): the next-hop state and the short-route guard's
// counts kept at every set_hop, the channel weights W ([SlimFly] sec. 4.3, App. B.1.3), layer 0 of
// Algorithm 1 (minimal paths) and the RUES and FatPaths-style baseline layers of sec. 6.
#include "routing/layered_builder.h"

#include <algorithm>
#include <vector>

namespace lbsim::routing::detail {

LayerBuilder::LayerBuilder(const Adjacency& a, RoutingLayers& routing)
    : adj(a),
      n(static_cast<int>(a.size())),
      r(routing),
      w(static_cast<std::size_t>(n) * n, 0),
      prio(static_cast<std::size_t>(n) * n, 0),
      bfs(n),
      route_len(static_cast<std::size_t>(n) * n, -1) {
  diameter2 = true;
  for (int s = 0; s < n && diameter2; ++s)
    for (int d = 0; d < n; ++d)
      if (r.distance(s, d) > 2) {
        diameter2 = false;
        break;
      }
}

// Starts layer l: its table is still empty.
void LayerBuilder::begin_layer() {
  track = false;
  std::fill(route_len.begin(), route_len.end(), -1);
}

// Starts tracking mp / so for layer l, whose table must be empty: every switch can still get a
// minimal route, so every switch counts its neighbours within the length limit.
void LayerBuilder::start_tracking() {
  const std::size_t nn = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
  mp.assign(nn, 1);
  so.assign(nn, 0);
  rs.assign(nn, 0);
  uo.assign(nn, 0);
  bad.assign(static_cast<std::size_t>(n), 0);
  ones.assign(static_cast<std::size_t>(n), 0);
  track = true;
  for (int x = 0; x < n; ++x)
    for (int d = 0; d < n; ++d) {
      if (x == d) continue;
      const int limit = limit_of(x, d);
      int& r_short = rs[id(x, d)];
      int& u_ok = uo[id(x, d)];
      for (int z : adj[static_cast<std::size_t>(x)]) {
        if (z == d)
          ++r_short;  // fixed_len(d) + 1 = 1 <= limit
        else if (r.distance(z, d) + 1 <= limit)
          ++u_ok;
      }
      so[id(x, d)] = static_cast<signed char>(so_of(x, d));
      count_so(x, d, +1);
    }
}

bool LayerBuilder::mp_compute(int l, int z, int d) const {
  if (z == d) return true;
  if (r.next_hop(l, z, d) >= 0) return route_len[id(z, d)] == r.distance(z, d);
  const int dz = r.distance(z, d);
  for (int y : adj[static_cast<std::size_t>(z)])
    if (r.distance(y, d) == dz - 1 && mp[id(y, d)]) return true;
  return false;
}

// After rs / uo of z changed: so of z and, for an unrouted z != d, the counters.
void LayerBuilder::so_update(int l, int z, int d) {
  const int v = so_of(z, d);
  if (v == so[id(z, d)]) return;
  const bool counted = !routed(l, z, d);
  if (counted) count_so(z, d, -1);
  so[id(z, d)] = static_cast<signed char>(v);
  if (counted) count_so(z, d, +1);
}

// Adds (sign +1) or removes (-1) what x in its current state gives each neighbour z: a routed x
// a short route when fixed_len(x) + 1 <= limit(z); an unrouted x an option when it is close
// enough and minimal_possible.
void LayerBuilder::contribute(int l, int x, int d, int sign) {
  const bool x_routed = r.next_hop(l, x, d) >= 0;
  const int len = route_len[id(x, d)], dx = r.distance(x, d);
  const bool x_mp = mp[id(x, d)] != 0;
  for (int z : adj[static_cast<std::size_t>(x)]) {
    if (z == d) continue;
    const int limit = limit_of(z, d);
    if (x_routed) {
      if (len + 1 > limit) continue;
      rs[id(z, d)] += sign;
    } else {
      if (!x_mp || dx + 1 > limit) continue;
      uo[id(z, d)] += sign;
    }
    so_update(l, z, d);
  }
}

// Sets (nh >= 0) or clears (nh = -1) the next hop of x towards d in layer l. When setting, nh
// must be d or already routed (the callers set routes from the destination end backwards).
void LayerBuilder::set_hop(int l, int x, int d, int nh) {
  if (track) {
    contribute(l, x, d, -1);          // x's old state
    if (nh >= 0) count_so(x, d, -1);  // x leaves the unrouted switches
  }
  r.set_next_hop(l, x, d, nh);
  route_len[id(x, d)] = nh < 0 ? -1 : nh == d ? 1 : route_len[id(nh, d)] + 1;
  if (!track) return;
  // mp of x, then of the switches one hop farther from d that may depend on it, while it flips
  // (breadth first, so every switch is recomputed after all its closer neighbours).
  flipped.clear();
  if (const bool m = mp_compute(l, x, d); m != (mp[id(x, d)] != 0)) {
    mp[id(x, d)] = m ? 1 : 0;
    flipped.push_back(x);
  }
  contribute(l, x, d, +1);  // x's new state
  if (nh < 0) {             // x is unrouted again
    so[id(x, d)] = static_cast<signed char>(so_of(x, d));
    count_so(x, d, +1);
  }
  for (std::size_t i = 0; i < flipped.size(); ++i) {
    const int u = flipped[i];
    const int du = r.distance(u, d);
    for (int z : adj[static_cast<std::size_t>(u)]) {
      if (r.distance(z, d) != du + 1 || routed(l, z, d)) continue;
      if (const bool m = mp_compute(l, z, d); m != (mp[id(z, d)] != 0)) {
        // z is unrouted: its option for its neighbours follows its mp.
        const int sign = m ? +1 : -1;
        mp[id(z, d)] = m ? 1 : 0;
        flipped.push_back(z);
        for (int w : adj[static_cast<std::size_t>(z)]) {
          if (w == d || r.distance(z, d) + 1 > limit_of(w, d)) continue;
          uo[id(w, d)] += sign;
          so_update(l, w, d);
        }
      }
    }
  }
}

long LayerBuilder::chain_weight(int l, int s, int d) const {
  long sum = 0;
  for (int x = s; x != d;) {
    int y = r.next_hop(l, x, d);
    sum += w[id(x, y)];
    x = y;
  }
  return sum;
}

// Layer 0 (Algorithm 1, line 3): all links, minimal paths. Where several minimal next hops
// exist, pick the one whose whole route has the least weight so far ("we also use W to balance
// the paths in the first layer", sec. 4.3); ties at random.
void LayerBuilder::build_minimal_layer(int l, Rng& rng) {
  std::vector<int> dests(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) dests[static_cast<std::size_t>(i)] = i;
  shuffle_with(dests, rng);
  for (int d : dests) {
    std::vector<int> order;
    for (int s = 0; s < n; ++s)
      if (s != d) order.push_back(s);
    shuffle_with(order, rng);
    // Closer sources first, so every candidate next hop already has its route.
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return r.distance(a, d) < r.distance(b, d); });
    for (int s : order) {
      int best = -1;
      long best_w = kInf;
      int ties = 0;
      for (int u : adj[static_cast<std::size_t>(s)]) {
        if (r.distance(u, d) != r.distance(s, d) - 1) continue;
        long cw = w[id(s, u)] + (u == d ? 0 : chain_weight(l, u, d));
        if (cw < best_w) {
          best_w = cw, best = u, ties = 1;
        } else if (cw == best_w && rng.below(static_cast<std::uint64_t>(++ties)) == 0) {
          best = u;  // reservoir sampling: uniform among equal-weight candidates
        }
      }
      set_hop(l, s, d, best);
      add_route_weight(l, s, d);
    }
  }
}

// Picks, for every node that reaches d inside the layer's subgraph, a uniformly random next hop
// among those on a shortest in-layer route. allowed(x, y) says whether the channel x -> y may be
// used on the way to d.
template <class Allowed>
void LayerBuilder::shortest_in_subgraph(int l, int d, Allowed allowed, Rng& rng) {
  // Backwards from d: x is reached from y over the channel x -> y.
  bfs.run(d, [&](int y, auto&& reach) {
    for (int x : adj[static_cast<std::size_t>(y)])
      if (allowed(x, y)) reach(x, y);
  });
  const auto dd = bfs.dist();
  const auto order = bfs.order();
  for (std::size_t h = 1; h < order.size(); ++h) {
    int x = order[h];
    int pick = -1, cnt = 0;
    for (int y : adj[static_cast<std::size_t>(x)])
      if (dd[static_cast<std::size_t>(y)] == dd[static_cast<std::size_t>(x)] - 1 && allowed(x, y) &&
          rng.below(static_cast<std::uint64_t>(++cnt)) == 0)
        pick = y;
    set_hop(l, x, d, pick);  // BFS order: pick (one hop closer to d) is already set
  }
  for (std::size_t h = 1; h < order.size(); ++h) add_route_weight(l, order[h], d);
}

std::vector<char> LayerBuilder::sample_links(double p, Rng& rng) const {
  std::vector<char> keep(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), 0);
  for (int u = 0; u < n; ++u)
    for (int v : adj[static_cast<std::size_t>(u)])
      if (u < v && rng.bernoulli(p)) keep[id(u, v)] = keep[id(v, u)] = 1;
  return keep;
}

// RUES (sec. 6 "Baselines"): a layer is a uniformly random fraction p of the links; routes are
// shortest paths inside that subgraph. Pairs disconnected in the subgraph fall back to the
// shortest route over all links consistent with the layer (complete_layer).
void LayerBuilder::build_rues_layer(int l, double p, Rng& rng) {
  auto keep = sample_links(p, rng);
  for (int d = 0; d < n; ++d)
    shortest_in_subgraph(
        l, d, [&](int x, int y) { return keep[id(x, y)] != 0; }, rng);
  complete_layer(
      l, [](int, int) { return true; }, true);
}

// FatPaths-style layer (sec. 4.1, 5.2: "in FatPaths, each layer is acyclic"): random links with
// probability p and a random order of the switches; a route to d only climbs in that order (when
// the source ranks below d) or only descends (when it ranks above). Climbing channels depend only
// on higher-ranked climbing channels and likewise for descending ones, so the layer's channel
// dependency graph is acyclic. Pairs without a monotone route fall back as in RUES.
void LayerBuilder::build_fatpaths_layer(int l, double p, Rng& rng) {
  auto keep = sample_links(p, rng);
  std::vector<int> rank(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) rank[static_cast<std::size_t>(i)] = i;
  shuffle_with(rank, rng);
  for (int d = 0; d < n; ++d) {
    const int rd = rank[static_cast<std::size_t>(d)];
    shortest_in_subgraph(
        l, d,
        [&](int x, int y) {
          if (!keep[id(x, y)]) return false;
          int rx = rank[static_cast<std::size_t>(x)], ry = rank[static_cast<std::size_t>(y)];
          return (rx < ry && ry <= rd) || (rx > ry && ry >= rd);
        },
        rng);
  }
  complete_layer(
      l, [](int, int) { return true; }, true);
}
}  // namespace lbsim::routing::detail
