// Layered multipath routing: Algorithm 1 and Appendix B.1 of [SlimFly], plus the RUES
// and FatPaths-style baselines of sec. 6. See layered.h and docs/layered-routing.md.
#include "routing/layered.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>
#include <stdexcept>
#include <utility>

#include <fmt/core.h>
#include <fmt/format.h>

#include "core/error.h"
#include "core/rng.h"
#include "topo/graph.h"

namespace lbsim::routing {

namespace {

constexpr long kInf = std::numeric_limits<long>::max() / 4;

// Fisher-Yates shuffle driven by our deterministic stream (std::shuffle's use of the generator is
// implementation-defined, which would break "same seed = same tables" across standard libraries).
template <class T>
void shuffle_with(std::vector<T>& v, Rng& rng) {
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.below(i)]);
}

// Mutable state shared by the construction of all layers.
struct Builder {
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

  Builder(const Adjacency& a, RoutingLayers& routing)
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
  void begin_layer() {
    track = false;
    std::fill(route_len.begin(), route_len.end(), -1);
  }

  // Starts tracking mp / so for layer l, whose table must be empty: every switch can still get a
  // minimal route, so every switch counts its neighbours within the length limit.
  void start_tracking() {
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

  bool mp_compute(int l, int z, int d) const {
    if (z == d) return true;
    if (r.next_hop(l, z, d) >= 0) return route_len[id(z, d)] == r.distance(z, d);
    const int dz = r.distance(z, d);
    for (int y : adj[static_cast<std::size_t>(z)])
      if (r.distance(y, d) == dz - 1 && mp[id(y, d)]) return true;
    return false;
  }
  // After rs / uo of z changed: so of z and, for an unrouted z != d, the counters.
  void so_update(int l, int z, int d) {
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
  void contribute(int l, int x, int d, int sign) {
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
  void set_hop(int l, int x, int d, int nh) {
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

  long chain_weight(int l, int s, int d) const {
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
  void build_minimal_layer(int l, Rng& rng) {
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
  int target_hops(int s, int d) {
    const int t = std::max(3, r.distance(s, d) + 1);
    if (detours != Detours::Shortest) return t;
    if (target_memo.empty()) target_memo.assign(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), 0);
    int& m = target_memo[id(s, d)];
    if (m == 0) {
      m = t;
      while (m < n && !has_simple_path(s, d, m)) ++m;
    }
    return m;
  }
  // Does the graph have a simple path of exactly `len` hops from s to d (ignoring the layers)?
  bool has_simple_path(int s, int d, int len) {
    std::vector<char> on(static_cast<std::size_t>(n), 0);
    on[static_cast<std::size_t>(s)] = 1;
    auto dfs = [&](auto&& self, int x, int rem) -> bool {
      if (x == d) return rem == 0;
      if (rem == 0) return false;
      for (int y : adj[static_cast<std::size_t>(x)]) {
        auto yi = static_cast<std::size_t>(y);
        if (on[yi] || r.distance(y, d) > rem - 1) continue;
        on[yi] = 1;
        const bool found = self(self, y, rem - 1);
        on[yi] = 0;
        if (found) return true;
      }
      return false;
    };
    return dfs(dfs, s, len);
  }

  // find_path of App. B.1.1: all simple paths src -> dst of exactly `t` hops that are consistent
  // with the routes already in layer l (a node that already has a next hop towards dst must keep
  // it), and among them one of least total weight W (ties uniformly at random). With `guard`, a
  // candidate that would leave a neighbouring switch without any route of at most
  // max(3, distance + 1) hops is skipped in favour of the next lighter one (see
  // keeps_short_routes; our addition, so that the fallback of App. B.1.4 stays short).
  std::vector<int> find_path(int l, int src, int dst, Rng& rng, bool guard) {
    const int t = target_hops(src, dst);
    cands.clear();
    cand_nodes.clear();
    // Candidates are numbered in the order of the depth-first enumeration (neighbours in ascending
    // order at every step), each with one draw of rng for the tie-break, so both enumerations below
    // give the same candidates with the same keys.
    auto consider = [&](const int* p, int len, long wsum) {
      cands.push_back({wsum, rng.next(), cand_nodes.size(), len});
      cand_nodes.insert(cand_nodes.end(), p, p + len);
    };
    // Depth-first enumeration of the paths of exactly tt hops, with pruning by the remaining budget.
    auto enumerate = [&](int tt) {
      std::vector<int> cur{src};
      std::vector<char> on_path(static_cast<std::size_t>(n), 0);
      on_path[static_cast<std::size_t>(src)] = 1;
      auto dfs = [&](auto&& self, int x, int remaining, long wsum) -> void {
        if (x == dst) {
          if (remaining == 0) consider(cur.data(), static_cast<int>(cur.size()), wsum);
          return;
        }
        if (remaining == 0) return;
        if (x != src && r.next_hop(l, x, dst) >= 0) {
          // The rest of the route is already fixed in this layer: it must use exactly the remaining
          // budget and must not revisit the prefix.
          std::vector<int> p = cur;
          long ws = wsum;
          int y = x;
          while (y != dst) {
            int z = r.next_hop(l, y, dst);
            ws += w[id(y, z)];
            if (z != dst && on_path[static_cast<std::size_t>(z)]) return;
            p.push_back(z);
            y = z;
          }
          if (static_cast<int>(p.size()) - 1 == tt) consider(p.data(), static_cast<int>(p.size()), ws);
          return;
        }
        for (int y : adj[static_cast<std::size_t>(x)]) {
          auto yi = static_cast<std::size_t>(y);
          if (on_path[yi] || r.distance(y, dst) > remaining - 1) continue;
          on_path[yi] = 1;
          cur.push_back(y);
          self(self, y, remaining - 1, wsum + w[id(x, y)]);
          cur.pop_back();
          on_path[yi] = 0;
        }
      };
      dfs(dfs, src, tt, 0);
    };
    if (t == 3)
      find_3hop(l, src, dst, consider);
    else
      enumerate(t);
    // Detours::Range: App. B.1.1's "range of valid lengths", t and t + 1 hops in one candidate set.
    if (detours == Detours::Range) enumerate(t + 1);
    std::sort(cands.begin(), cands.end(),
              [](const Cand& a, const Cand& b) { return a.w != b.w ? a.w < b.w : a.key < b.key; });
    for (const auto& c : cands) {
      const int* p = cand_nodes.data() + c.off;
      if (!guard || keeps_short_routes(l, p, c.len, /*keep=*/true)) {
        std::vector<int> out(static_cast<std::size_t>(c.len));
        std::copy_n(p, c.len, out.begin());
        return out;
      }
    }
    return {};
  }

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
  void build_neighbour_bits() {
    words = (static_cast<std::size_t>(n) + 63) / 64;
    nbr_bits.assign(static_cast<std::size_t>(n) * words, 0);
    for (int a = 0; a < n; ++a)
      for (int b : adj[static_cast<std::size_t>(a)])
        nbr_bits[static_cast<std::size_t>(a) * words + static_cast<std::size_t>(b) / 64] |= std::uint64_t{1}
                                                                                            << (b % 64);
  }
  template <class Consider>
  void find_3hop(int l, int src, int dst, Consider& consider) {
    if (nbr_bits.empty()) build_neighbour_bits();
    int p[4] = {src, 0, 0, dst};
    const std::uint64_t* row_d = nbr_bits.data() + static_cast<std::size_t>(dst) * words;
    for (int y1 : adj[static_cast<std::size_t>(src)]) {
      if (y1 == dst || r.distance(y1, dst) > 2) continue;
      p[1] = y1;
      const long w1 = w[id(src, y1)];
      if (const int z = r.next_hop(l, y1, dst); z >= 0) {
        if (z == dst || z == src || r.next_hop(l, z, dst) != dst) continue;
        p[2] = z;
        consider(p, 4, w1 + w[id(y1, z)] + w[id(z, dst)]);
        continue;
      }
      const std::uint64_t* row_y = nbr_bits.data() + static_cast<std::size_t>(y1) * words;
      for (std::size_t k = 0; k < words; ++k)
        for (std::uint64_t m = row_y[k] & row_d[k]; m != 0; m &= m - 1) {
          const int y2 = static_cast<int>(k * 64 + static_cast<std::size_t>(__builtin_ctzll(m)));
          if (y2 == src) continue;
          if (const int z = r.next_hop(l, y2, dst); z >= 0 && z != dst) continue;
          p[2] = y2;
          consider(p, 4, w1 + w[id(y1, y2)] + w[id(y2, dst)]);
        }
    }
  }

  // Current route length of a switch that has a next hop towards d in layer l.
  int fixed_len(int, int x, int d) const { return x == d ? 0 : route_len[id(x, d)]; }

  // Can switch z (towards d, in layer l) still get a minimal route? True for d itself, for a routed
  // switch whose route is minimal, and for an unrouted switch with such a next hop candidate
  // (kept in mp while tracking).
  bool minimal_possible(int, int z, int d) const { return mp[id(z, d)] != 0; }

  // Number of next hops (at most 2 counted) that give unrouted switch x (towards d) a route of at
  // most max(3, dist(x, d) + 1) hops: a routed neighbour that is short enough, or an unrouted one
  // that can still get a minimal route. short_options_pick also returns the lightest unrouted such
  // neighbour (it depends on the weights W, so it is computed when asked for).
  int short_options_pick(int l, int x, int d, int* unrouted_pick) const {
    const int limit = std::max(3, r.distance(x, d) + 1);
    int count = 0, pick = -1;
    for (int z : adj[static_cast<std::size_t>(x)]) {
      if (z == d || r.next_hop(l, z, d) >= 0) {
        if (fixed_len(l, z, d) + 1 <= limit) return 2;  // a fixed short route never goes away
      } else if (r.distance(z, d) + 1 <= limit && minimal_possible(l, z, d)) {
        ++count;
        if (pick < 0 || w[id(x, z)] < w[id(x, pick)]) pick = z;
      }
    }
    *unrouted_pick = pick;
    return std::min(count, 2);
  }
  bool fine(int l, int x, int d) const { return routed(l, x, d) || so[id(x, d)] > 0; }

  // Would inserting p leave some unrouted switch within 2 hops of the new routes without a short
  // option (options can vanish up to two hops away)? Evaluated by inserting the path's next hops
  // tentatively and undoing them. On a diameter-2 graph those 2 hops reach every switch, so the
  // count of such switches answers at once.
  // With keep, a path that passes stays inserted (its next hops set; kept_j = how many were new), so
  // insert_path does not set them again: the tracked counts are pure functions of the entries, so
  // this is the state that clearing and setting them again would give.
  int kept_j = -1;
  bool keeps_short_routes(int l, const int* p, int len, bool keep) {
    const int d = p[len - 1];
    const int t = len - 1;
    int j = 0;
    while (j < t && r.next_hop(l, p[static_cast<std::size_t>(j)], d) < 0) ++j;
    for (int k = j - 1; k >= 0; --k) set_hop(l, p[static_cast<std::size_t>(k)], d, p[static_cast<std::size_t>(k) + 1]);
    bool ok = true;
    if (diameter2 && j > 0) {
      ok = bad[static_cast<std::size_t>(d)] == 0;
    } else {
      for (int k = 0; k < j && ok; ++k)
        for (int x : adj[static_cast<std::size_t>(p[static_cast<std::size_t>(k)])]) {
          if (!fine(l, x, d)) ok = false;
          for (int y : adj[static_cast<std::size_t>(x)]) ok = ok && fine(l, y, d);
          if (!ok) break;
        }
    }
    if (ok && keep) {
      kept_j = j;
      return ok;
    }
    for (int k = 0; k < j; ++k) set_hop(l, p[static_cast<std::size_t>(k)], d, -1);
    return ok;
  }

  // Routes z minimally in layer l (through next hops that can stay minimal), lightest first.
  void pin_minimal(int l, int z, int d) {
    if (z == d || r.next_hop(l, z, d) >= 0) return;
    int best = -1;
    for (int y : adj[static_cast<std::size_t>(z)])
      if (r.distance(y, d) == r.distance(z, d) - 1 && minimal_possible(l, y, d) &&
          (best < 0 || w[id(z, y)] < w[id(z, best)]))
        best = y;
    if (best < 0) return;
    pin_minimal(l, best, d);
    set_hop(l, z, d, best);
    add_route_weight(l, z, d);
    ++r.build_stats[static_cast<std::size_t>(l)].pinned;
  }

  // After inserting p: an unrouted switch near the new routes (within 2 hops of a newly routed
  // switch: a route change there can remove options of switches up to two hops away, through
  // minimal_possible) whose short options dropped to a single unrouted next hop z gets z's minimal
  // route pinned, so later paths cannot take that last option away.
  void pin_short_routes(int l, const std::vector<int>& p, int j) {
    const int d = p.back();
    if (ones[static_cast<std::size_t>(d)] == 0) return;  // no switch has a single short option
    auto check = [&](int x) {
      if (routed(l, x, d) || so[id(x, d)] != 1) return;
      int pick = -1;
      short_options_pick(l, x, d, &pick);
      if (pick >= 0) pin_minimal(l, pick, d);
    };
    for (int k = 0; k < j; ++k) {
      const int u = p[static_cast<std::size_t>(k)];
      for (int x : adj[static_cast<std::size_t>(u)]) {
        check(x);
        for (int y : adj[static_cast<std::size_t>(x)]) check(y);
      }
    }
  }

  // add_path_to_layer + update_weights + update_priorities (Algorithm 1, lines 11-13).
  int insert_path(int l, const std::vector<int>& p) {
    const int d = p.back();
    const int t = static_cast<int>(p.size()) - 1;
    // Nodes without a next hop form a prefix p[0..j-1]; the suffix from p[j] is already routed
    // (counted before find_path's check kept the path in the layer, if it did).
    const bool already_set = kept_j >= 0;
    int j = kept_j;
    kept_j = -1;
    if (!already_set)
      for (j = 0; j < t && r.next_hop(l, p[static_cast<std::size_t>(j)], d) < 0;) ++j;
    // App. B.1.3: each link's weight grows by the number of new routes that now cross it. New
    // routes start at the j newly attached nodes; link i (p[i] -> p[i+1]) is crossed by those of
    // p[0..i], i.e. min(i+1, j) of them (Fig. 15 counts endpoints; we count switch-level routes,
    // which differs by the constant factor p^2 and so selects the same paths).
    for (int i = 0; i < t; ++i)
      w[id(p[static_cast<std::size_t>(i)], p[static_cast<std::size_t>(i) + 1])] += std::min(i + 1, j);
    if (!already_set)
      for (int k = j - 1; k >= 0; --k)
        set_hop(l, p[static_cast<std::size_t>(k)], d, p[static_cast<std::size_t>(k) + 1]);
    for (int k = 0; k < j; ++k) {
      int u = p[static_cast<std::size_t>(k)];
      // App. B.1.2: every pair that now has a non-minimal route in this layer (the pair itself
      // and the sub-path pairs, Fig. 16) moves to the next priority level.
      if (t - k > r.distance(u, d)) ++prio[id(u, d)];
    }
    return j;
  }

  // Layers 1..|L|-1 of Algorithm 1 (lines 4-17).
  void build_layered_layer(int l, Rng& rng, bool guard) {
    auto& st = r.build_stats[static_cast<std::size_t>(l)];
    // copy_pairs: both directions of every pair, random order within a priority level, lower
    // priority value (fewer almost-minimal routes so far) first (App. B.1.2).
    std::vector<std::pair<int, int>> pairs;
    pairs.reserve(static_cast<std::size_t>(n) * static_cast<std::size_t>(n));
    for (int s = 0; s < n; ++s)
      for (int d = 0; d < n; ++d)
        if (s != d) pairs.emplace_back(s, d);
    shuffle_with(pairs, rng);
    std::vector<int> snapshot = prio;  // priorities as of the start of the layer
    std::stable_sort(pairs.begin(), pairs.end(), [&](const auto& a, const auto& b) {
      return snapshot[id(a.first, a.second)] < snapshot[id(b.first, b.second)];
    });
    if (guard) start_tracking();
    for (auto [s, d] : pairs) {
      if (r.next_hop(l, s, d) >= 0) {
        ++st.already_routed;  // fixed by an earlier path's suffix (App. B.1.4, Fig. 16)
        continue;
      }
      std::vector<int> p = find_path(l, s, d, rng, guard);
      if (p.empty()) continue;  // P is empty: minimal fallback below (App. B.1.4, Fig. 17)
      ++st.almost_minimal_found;
      const int j = insert_path(l, p);
      if (guard) pin_short_routes(l, p, j);
    }
    track = false;
    complete_layer(
        l, [](int, int) { return true; }, true);
  }

  // Picks, for every node that reaches d inside the layer's subgraph, a uniformly random next hop
  // among those on a shortest in-layer route. allowed(x, y) says whether the channel x -> y may be
  // used on the way to d.
  template <class Allowed>
  void shortest_in_subgraph(int l, int d, Allowed allowed, Rng& rng) {
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

  std::vector<char> sample_links(double p, Rng& rng) const {
    std::vector<char> keep(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), 0);
    for (int u = 0; u < n; ++u)
      for (int v : adj[static_cast<std::size_t>(u)])
        if (u < v && rng.bernoulli(p)) keep[id(u, v)] = keep[id(v, u)] = 1;
    return keep;
  }

  // RUES (sec. 6 "Baselines"): a layer is a uniformly random fraction p of the links; routes are
  // shortest paths inside that subgraph. Pairs disconnected in the subgraph fall back to the
  // shortest route over all links consistent with the layer (complete_layer).
  void build_rues_layer(int l, double p, Rng& rng) {
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
  void build_fatpaths_layer(int l, double p, Rng& rng) {
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
};

}  // namespace

LayerScheme parse_layer_scheme(const std::string& name) {
  if (name == "layered") return LayerScheme::Layered;
  if (name == "rues") return LayerScheme::Rues;
  if (name == "fatpaths") return LayerScheme::FatPaths;
  throw UserError(fmt::format("unknown layer scheme '{}' (expected layered, rues or fatpaths)", name));
}

Detours parse_detours(const std::string& name) {
  if (name == "exact3") return Detours::Exact3;
  if (name == "shortest") return Detours::Shortest;
  if (name == "range") return Detours::Range;
  throw UserError(fmt::format("unknown detour rule '{}' (expected exact3, shortest or range)", name));
}

const char* detours_name(Detours d) {
  return d == Detours::Exact3 ? "exact3" : d == Detours::Shortest ? "shortest" : "range";
}

const char* layer_scheme_name(LayerScheme s) {
  switch (s) {
    case LayerScheme::Layered:
      return "layered";
    case LayerScheme::Rues:
      return "rues";
    case LayerScheme::FatPaths:
      return "fatpaths";
  }
  return "?";
}

Adjacency normalize_graph(Adjacency adj) {
  const int n = static_cast<int>(adj.size());
  if (n < 2) throw UserError("layered routing needs a graph with at least 2 switches");
  for (int u = 0; u < n; ++u) {
    auto& a = adj[static_cast<std::size_t>(u)];
    for (int v : a)
      if (v < 0 || v >= n) throw UserError(fmt::format("switch graph: neighbour {} of switch {} out of range", v, u));
    std::sort(a.begin(), a.end());
    a.erase(std::unique(a.begin(), a.end()), a.end());
    a.erase(std::remove(a.begin(), a.end(), u), a.end());
  }
  for (int u = 0; u < n; ++u)
    for (int v : adj[static_cast<std::size_t>(u)])
      if (!std::binary_search(adj[static_cast<std::size_t>(v)].begin(), adj[static_cast<std::size_t>(v)].end(), u))
        throw UserError(fmt::format("switch graph is not symmetric: {}->{} without {}->{}", u, v, v, u));
  auto dist = all_pairs_distances(adj);
  for (int v = 0; v < n; ++v)
    if (dist[static_cast<std::size_t>(v)] < 0)
      throw UserError(fmt::format("switch graph is disconnected: switch {} unreachable from 0", v));
  return adj;
}

RoutingLayers::RoutingLayers(Adjacency adj, int layers) : n_(static_cast<int>(adj.size())), adj_(std::move(adj)) {
  dist_ = all_pairs_distances(adj_);
  next_.assign(static_cast<std::size_t>(layers),
               std::vector<int>(static_cast<std::size_t>(n_) * static_cast<std::size_t>(n_), -1));
  build_stats.assign(static_cast<std::size_t>(layers), {});
}

int RoutingLayers::next_port(int l, int s, int d) const {
  int nh = next_hop(l, s, d);
  if (nh < 0) return -1;
  const auto& a = adj_[static_cast<std::size_t>(s)];
  auto it = std::lower_bound(a.begin(), a.end(), nh);
  return static_cast<int>(it - a.begin());
}

std::vector<int> RoutingLayers::path(int l, int s, int d) const {
  std::vector<int> p{s};
  for (int x = s; x != d;) {
    x = next_hop(l, x, d);
    if (x < 0 || static_cast<int>(p.size()) > n_)
      throw std::logic_error(fmt::format("layer {}: no loop-free route {} -> {}", l, s, d));
    p.push_back(x);
  }
  return p;
}

int RoutingLayers::hops(int l, int s, int d) const {
  int h = 0;
  for (int x = s; x != d; ++h) {
    x = next_hop(l, x, d);
    if (x < 0 || h >= n_) throw std::logic_error(fmt::format("layer {}: no loop-free route {} -> {}", l, s, d));
  }
  return h;
}

RoutingLayers build_layers(const Adjacency& adj_in, const LayerOptions& opt) {
  if (opt.layers < 1 || opt.layers > 128)
    throw UserError(fmt::format("number of layers must be in 1..128 (got {})", opt.layers));
  if (opt.scheme != LayerScheme::Layered && !(opt.keep_fraction > 0.0 && opt.keep_fraction <= 1.0))
    throw UserError(fmt::format("link keep fraction p must be in (0, 1] (got {})", opt.keep_fraction));
  // Every layer holds a next hop per ordered switch pair (plus the n^2 distances): refuse sizes
  // that cannot be held instead of dying in the allocator.
  constexpr long long kMaxTableEntries = 1LL << 28;
  if (const long long n = static_cast<long long>(adj_in.size()), entries = n * n * (opt.layers + 1);
      entries > kMaxTableEntries)
    throw UserError(
        fmt::format("{} switches with {} layers need {} next-hop entries, more than the {} the layered routing "
                    "holds in memory; use fewer layers or a smaller topology",
                    n, opt.layers, entries, kMaxTableEntries));
  Adjacency adj = normalize_graph(adj_in);
  RoutingLayers r(adj, opt.layers);
  Builder b(r.adjacency(), r);
  b.detours = opt.detours;
  const std::uint64_t stream = hash_name(layer_scheme_name(opt.scheme));
  for (int l = 0; l < opt.layers; ++l) {
    Rng rng(opt.seed, stream, static_cast<std::uint64_t>(l));
    b.begin_layer();
    if (l == 0) {
      b.build_minimal_layer(0, rng);  // Algorithm 1, line 3: layer 0 = all links, minimal paths
      continue;
    }
    switch (opt.scheme) {
      case LayerScheme::Layered:
        b.build_layered_layer(l, rng, opt.guard_short_routes);
        break;
      case LayerScheme::Rues:
        b.build_rues_layer(l, opt.keep_fraction, rng);
        break;
      case LayerScheme::FatPaths:
        b.build_fatpaths_layer(l, opt.keep_fraction, rng);
        break;
    }
  }
  return r;
}

std::string validate_layers(const RoutingLayers& r) {
  const int n = r.num_switches();
  for (int l = 0; l < r.num_layers(); ++l)
    for (int d = 0; d < n; ++d) {
      // Every node's chain must reach d within n hops over existing links.
      for (int s = 0; s < n; ++s) {
        if (s == d) {
          if (r.next_hop(l, s, d) != -1) return fmt::format("layer {}: entry ({}, {}) set on the diagonal", l, s, d);
          continue;
        }
        int x = s, steps = 0;
        while (x != d) {
          int y = r.next_hop(l, x, d);
          if (y < 0) return fmt::format("layer {}: switch {} has no next hop to {}", l, x, d);
          const auto& a = r.adjacency()[static_cast<std::size_t>(x)];
          if (!std::binary_search(a.begin(), a.end(), y))
            return fmt::format("layer {}: next hop {} of switch {} (dst {}) is not a neighbour", l, y, x, d);
          if (++steps > n) return fmt::format("layer {}: forwarding loop from {} towards {}", l, s, d);
          x = y;
        }
      }
    }
  return {};
}

std::string format_forwarding_tables(const RoutingLayers& r, const std::string& scheme_note) {
  const int n = r.num_switches();
  std::string out = fmt::format(
      "# lbsim forwarding tables v1: port[l][s][d] as next-hop switch "
      "(docs/layered-routing.md)\n# {}\nlayers {} switches {}\n",
      scheme_note, r.num_layers(), n);
  for (int l = 0; l < r.num_layers(); ++l) {
    out += fmt::format("layer {}\n", l);
    for (int s = 0; s < n; ++s) {
      out += fmt::format("{}:", s);
      for (int d = 0; d < n; ++d) out += fmt::format(" {}", r.next_hop(l, s, d));
      out += '\n';
    }
  }
  return out;
}

}  // namespace lbsim::routing
