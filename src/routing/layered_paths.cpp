// Layers 1..|L|-1 of Algorithm 1 of [SlimFly] (App. B.1): the almost-minimal paths (find_path, exact
// 3-hop enumeration, detour lengths), their insertion with the weight and priority updates, and the
// short-route guard's checks and pins. Part of LayerBuilder (layered_builder.h).
#include "routing/layered_builder.h"

#include <algorithm>
#include <utility>
#include <vector>

namespace lbsim::routing::detail {

int LayerBuilder::target_hops(int s, int d) {
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
bool LayerBuilder::has_simple_path(int s, int d, int len) {
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
std::vector<int> LayerBuilder::find_path(int l, int src, int dst, Rng& rng, bool guard) {
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

void LayerBuilder::build_neighbour_bits() {
  words = (static_cast<std::size_t>(n) + 63) / 64;
  nbr_bits.assign(static_cast<std::size_t>(n) * words, 0);
  for (int a = 0; a < n; ++a)
    for (int b : adj[static_cast<std::size_t>(a)])
      nbr_bits[static_cast<std::size_t>(a) * words + static_cast<std::size_t>(b) / 64] |= std::uint64_t{1} << (b % 64);
}

template <class Consider>
void LayerBuilder::find_3hop(int l, int src, int dst, Consider& consider) {
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

// Number of next hops (at most 2 counted) that give unrouted switch x (towards d) a route of at
// most max(3, dist(x, d) + 1) hops: a routed neighbour that is short enough, or an unrouted one
// that can still get a minimal route. short_options_pick also returns the lightest unrouted such
// neighbour (it depends on the weights W, so it is computed when asked for).
int LayerBuilder::short_options_pick(int l, int x, int d, int* unrouted_pick) const {
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

bool LayerBuilder::keeps_short_routes(int l, const int* p, int len, bool keep) {
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
void LayerBuilder::pin_minimal(int l, int z, int d) {
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
void LayerBuilder::pin_short_routes(int l, const std::vector<int>& p, int j) {
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
int LayerBuilder::insert_path(int l, const std::vector<int>& p) {
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
    for (int k = j - 1; k >= 0; --k) set_hop(l, p[static_cast<std::size_t>(k)], d, p[static_cast<std::size_t>(k) + 1]);
  for (int k = 0; k < j; ++k) {
    int u = p[static_cast<std::size_t>(k)];
    // App. B.1.2: every pair that now has a non-minimal route in this layer (the pair itself
    // and the sub-path pairs, Fig. 16) moves to the next priority level.
    if (t - k > r.distance(u, d)) ++prio[id(u, d)];
  }
  return j;
}

// Layers 1..|L|-1 of Algorithm 1 (lines 4-17).
void LayerBuilder::build_layered_layer(int l, Rng& rng, bool guard) {
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
}  // namespace lbsim::routing::detail
