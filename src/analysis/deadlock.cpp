// Deadlock-free virtual-lane assignment ([SlimFly] sec. 5.2). See deadlock.h.
#include "analysis/deadlock.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include <fmt/core.h>

#include "core/error.h"

namespace lbsim::analysis {

namespace {

// Directed channels (u->v for every link) numbered in (u, adjacency) order.
struct Channels {
  int n = 0;
  std::vector<int> id;  // n*n -> channel or -1
  std::vector<std::pair<int, int>> ends;
  explicit Channels(const Adjacency& adj) : n(static_cast<int>(adj.size())) {
    id.assign(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), -1);
    for (int u = 0; u < n; ++u)
      for (int v : adj[static_cast<std::size_t>(u)]) {
        id[static_cast<std::size_t>(u) * static_cast<std::size_t>(n) + static_cast<std::size_t>(v)] =
            static_cast<int>(ends.size());
        ends.emplace_back(u, v);
      }
  }
  int of(int u, int v) const {
    int c = id[static_cast<std::size_t>(u) * static_cast<std::size_t>(n) + static_cast<std::size_t>(v)];
    if (c < 0) throw UserError(fmt::format("route uses {}->{}, which is not a link", u, v));
    return c;
  }
  std::size_t size() const { return ends.size(); }
  std::string name(int c) const {
    return fmt::format("{}->{}", ends[static_cast<std::size_t>(c)].first, ends[static_cast<std::size_t>(c)].second);
  }
};

// A dependency graph over channels whose edges carry a usage count; edges with count 0 are absent.
struct Cdg {
  std::vector<std::vector<int>> out;  // channel -> edge ids
  std::vector<int> head;              // edge -> target channel
  std::vector<long> count;            // edge -> routes inducing it
  std::unordered_map<std::uint64_t, int> index;

  explicit Cdg(std::size_t channels) : out(channels) {}
  int edge(int a, int b) {
    std::uint64_t key = (static_cast<std::uint64_t>(a) << 32) | static_cast<std::uint32_t>(b);
    auto [it, inserted] = index.emplace(key, static_cast<int>(head.size()));
    if (inserted) {
      head.push_back(b);
      count.push_back(0);
      out[static_cast<std::size_t>(a)].push_back(it->second);
    }
    return it->second;
  }

  // Returns the edge ids of one cycle (empty if acyclic). Iterative DFS, white/grey/black.
  std::vector<int> find_cycle() const {
    const std::size_t c = out.size();
    std::vector<char> color(c, 0);
    std::vector<std::pair<int, std::size_t>> stack;  // (channel, next out index)
    std::vector<int> via;                            // edge used to enter stack[i+1]
    for (std::size_t root = 0; root < c; ++root) {
      if (color[root]) continue;
      stack.assign(1, {static_cast<int>(root), 0});
      via.clear();
      color[root] = 1;
      while (!stack.empty()) {
        auto& [ch, k] = stack.back();
        const auto& edges = out[static_cast<std::size_t>(ch)];
        if (k == edges.size()) {
          color[static_cast<std::size_t>(ch)] = 2;
          stack.pop_back();
          if (!via.empty()) via.pop_back();
          continue;
        }
        int e = edges[k++];
        if (count[static_cast<std::size_t>(e)] <= 0) continue;
        int nx = head[static_cast<std::size_t>(e)];
        if (color[static_cast<std::size_t>(nx)] == 1) {
          // Back edge: the cycle is the stack from nx to the top, closed by e.
          std::vector<int> res;
          std::size_t pos = 0;
          while (stack[pos].first != nx) ++pos;
          for (std::size_t i = pos; i + 1 < stack.size(); ++i) res.push_back(via[i]);
          res.push_back(e);
          return res;
        }
        if (color[static_cast<std::size_t>(nx)] == 0) {
          color[static_cast<std::size_t>(nx)] = 1;
          via.push_back(e);
          stack.emplace_back(nx, 0);
        }
      }
    }
    return {};
  }
};

std::vector<int> route_channels(const Channels& ch, const Route& r) {
  std::vector<int> c;
  for (std::size_t i = 0; i + 1 < r.size(); ++i) c.push_back(ch.of(r[i], r[i + 1]));
  return c;
}

}  // namespace

std::vector<Route> collect_routes(const RoutingLayers& r, int layers) {
  const int n = r.num_switches();
  const int nl = layers <= 0 ? r.num_layers() : std::min(layers, r.num_layers());
  // Sorted and de-duplicated like a std::set of all routes, but one source at a time: every route
  // starts with its source, so the routes of source s form one contiguous, sorted run of the set.
  std::vector<Route> out;
  std::vector<int> nodes;
  std::vector<std::pair<std::size_t, std::size_t>> spans;  // (offset in nodes, length)
  for (int s = 0; s < n; ++s) {
    nodes.clear();
    spans.clear();
    for (int l = 0; l < nl; ++l)
      for (int d = 0; d < n; ++d) {
        if (s == d) continue;
        const std::size_t off = nodes.size();
        nodes.push_back(s);
        for (int x = s; x != d;) {
          x = r.next_hop(l, x, d);
          if (x < 0 || static_cast<int>(nodes.size() - off) > n)
            throw std::logic_error(fmt::format("layer {}: no loop-free route {} -> {}", l, s, d));
          nodes.push_back(x);
        }
        spans.emplace_back(off, nodes.size() - off);
      }
    auto less = [&](const std::pair<std::size_t, std::size_t>& a, const std::pair<std::size_t, std::size_t>& b) {
      return std::lexicographical_compare(nodes.begin() + static_cast<std::ptrdiff_t>(a.first),
                                          nodes.begin() + static_cast<std::ptrdiff_t>(a.first + a.second),
                                          nodes.begin() + static_cast<std::ptrdiff_t>(b.first),
                                          nodes.begin() + static_cast<std::ptrdiff_t>(b.first + b.second));
    };
    std::sort(spans.begin(), spans.end(), less);
    for (std::size_t i = 0; i < spans.size(); ++i) {
      if (i > 0 && !less(spans[i - 1], spans[i])) continue;  // equal to the previous route
      const auto b = nodes.begin() + static_cast<std::ptrdiff_t>(spans[i].first);
      out.emplace_back(b, b + static_cast<std::ptrdiff_t>(spans[i].second));
    }
  }
  return out;
}

bool cdg_acyclic(const Adjacency& adj, const std::vector<Route>& routes, std::string* cycle) {
  Channels ch(adj);
  Cdg g(ch.size());
  for (const auto& r : routes) {
    auto c = route_channels(ch, r);
    for (std::size_t i = 0; i + 1 < c.size(); ++i) ++g.count[static_cast<std::size_t>(g.edge(c[i], c[i + 1]))];
  }
  auto cyc = g.find_cycle();
  if (!cyc.empty() && cycle) {
    cycle->clear();
    for (std::size_t i = 0; i < cyc.size(); ++i) {
      int to = g.head[static_cast<std::size_t>(cyc[i])];
      *cycle += (i ? " " : "") + ch.name(to);
    }
  }
  return cyc.empty();
}

VlAssignment assign_dfsssp(const Adjacency& adj, const std::vector<Route>& routes, int vls_available, bool balance) {
  if (vls_available < 1 || vls_available > 15)
    throw UserError(
        fmt::format("available virtual lanes must be in 1..15 (sec. 5: IB has up to 15 "
                    "data VLs), got {}",
                    vls_available));
  Channels ch(adj);
  const std::size_t nr = routes.size();
  std::vector<std::vector<int>> rch(nr);
  for (std::size_t i = 0; i < nr; ++i) rch[i] = route_channels(ch, routes[i]);
  VlAssignment a;
  a.scheme = "dfsssp";
  a.vls_available = vls_available;
  a.route_vl.assign(nr, 0);
  // Lane by lane (DFSSSP, sec. 5.2 [36]): break every cycle of lane k by moving the routes that
  // induce one dependency of the cycle, the one used by the fewest routes, to lane k + 1.
  for (int k = 0;; ++k) {
    Cdg g(ch.size());
    std::vector<std::vector<int>> edge_routes;
    std::vector<std::vector<int>> route_edges(nr);
    bool any = false;
    for (std::size_t i = 0; i < nr; ++i) {
      if (a.route_vl[i] != k) continue;
      any = true;
      const auto& c = rch[i];
      for (std::size_t j = 0; j + 1 < c.size(); ++j) {
        int e = g.edge(c[j], c[j + 1]);
        if (static_cast<std::size_t>(e) >= edge_routes.size()) edge_routes.resize(static_cast<std::size_t>(e) + 1);
        ++g.count[static_cast<std::size_t>(e)];
        edge_routes[static_cast<std::size_t>(e)].push_back(static_cast<int>(i));
        route_edges[i].push_back(e);
      }
    }
    if (!any) break;
    a.vls_needed = k + 1;
    bool moved = false;
    for (;;) {
      auto cyc = g.find_cycle();
      if (cyc.empty()) break;
      int best = cyc.front();
      for (int e : cyc)
        if (g.count[static_cast<std::size_t>(e)] < g.count[static_cast<std::size_t>(best)]) best = e;
      if (k + 1 >= vls_available)
        throw UserError(
            fmt::format("deadlock avoidance (DFSSSP, sec. 5.2) needs more than the {} available virtual lane(s): "
                        "lane {} still has a channel dependency cycle of length {}; use more VLs, fewer layers "
                        "or the three-lane scheme",
                        vls_available, k, cyc.size()));
      for (int ri : edge_routes[static_cast<std::size_t>(best)]) {
        auto riu = static_cast<std::size_t>(ri);
        if (a.route_vl[riu] != k) continue;
        a.route_vl[riu] = k + 1;
        moved = true;
        for (int e : route_edges[riu]) --g.count[static_cast<std::size_t>(e)];
      }
    }
    if (!moved) break;
  }
  a.vls_used = a.vls_needed;
  a.routes_per_vl.assign(static_cast<std::size_t>(vls_available), 0);
  for (int v : a.route_vl) ++a.routes_per_vl[static_cast<std::size_t>(v)];
  if (balance) {
    // DFSSSP balancing: a subset of an acyclic lane is acyclic, so splitting the fullest lane into
    // an empty one keeps every lane deadlock-free while evening out the route counts.
    while (a.vls_used < vls_available) {
      int from =
          static_cast<int>(std::max_element(a.routes_per_vl.begin(), a.routes_per_vl.end()) - a.routes_per_vl.begin());
      if (a.routes_per_vl[static_cast<std::size_t>(from)] < 2) break;
      int to = a.vls_used++;
      long half = a.routes_per_vl[static_cast<std::size_t>(from)] / 2, seen = 0;
      for (auto& v : a.route_vl)
        if (v == from && (seen++ % 2) == 1 && a.routes_per_vl[static_cast<std::size_t>(to)] < half) {
          v = to;
          --a.routes_per_vl[static_cast<std::size_t>(from)];
          ++a.routes_per_vl[static_cast<std::size_t>(to)];
        }
    }
    // Second pass: the lanes created while breaking cycles can stay nearly empty. Move routes from
    // the fullest lane to the emptiest one as long as the receiving lane stays acyclic (a route is
    // accepted only if none of its dependencies closes a cycle there).
    std::vector<std::vector<std::vector<int>>> lane_out(static_cast<std::size_t>(vls_available),
                                                        std::vector<std::vector<int>>(ch.size()));
    for (std::size_t i = 0; i < nr; ++i) {
      const auto& c = rch[i];
      for (std::size_t j = 0; j + 1 < c.size(); ++j)
        lane_out[static_cast<std::size_t>(a.route_vl[i])][static_cast<std::size_t>(c[j])].push_back(c[j + 1]);
    }
    auto reaches = [&](const std::vector<std::vector<int>>& g, int from, int to) {
      std::vector<char> seen(g.size(), 0);
      std::vector<int> st{from};
      seen[static_cast<std::size_t>(from)] = 1;
      while (!st.empty()) {
        int x = st.back();
        st.pop_back();
        if (x == to) return true;
        for (int y : g[static_cast<std::size_t>(x)])
          if (!seen[static_cast<std::size_t>(y)]) seen[static_cast<std::size_t>(y)] = 1, st.push_back(y);
      }
      return false;
    };
    for (int round = 0; round < 4 * vls_available; ++round) {
      auto mx = std::max_element(a.routes_per_vl.begin(), a.routes_per_vl.end());
      auto mn = std::min_element(a.routes_per_vl.begin(), a.routes_per_vl.end());
      const int from = static_cast<int>(mx - a.routes_per_vl.begin());
      const int to = static_cast<int>(mn - a.routes_per_vl.begin());
      long want = (*mx - *mn) / 2;
      if (want < 1) break;
      auto& g = lane_out[static_cast<std::size_t>(to)];
      long moved = 0;
      for (std::size_t i = 0; i < nr && moved < want; ++i) {
        if (a.route_vl[i] != from) continue;
        const auto& c = rch[i];
        bool ok = true;
        std::vector<std::pair<int, int>> added;
        for (std::size_t j = 0; j + 1 < c.size() && ok; ++j) {
          if (reaches(g, c[j + 1], c[j]))
            ok = false;  // c[j] -> c[j+1] would close a cycle
          else {
            g[static_cast<std::size_t>(c[j])].push_back(c[j + 1]);
            added.emplace_back(c[j], c[j + 1]);
          }
        }
        if (!ok) {
          for (auto [u, v] : added) {
            auto& o = g[static_cast<std::size_t>(u)];
            o.erase(std::find(o.begin(), o.end(), v));
          }
          continue;
        }
        // Leave the old lane: drop one copy of each dependency (a subset stays acyclic).
        auto& og = lane_out[static_cast<std::size_t>(from)];
        for (std::size_t j = 0; j + 1 < c.size(); ++j) {
          auto& o = og[static_cast<std::size_t>(c[j])];
          o.erase(std::find(o.begin(), o.end(), c[j + 1]));
        }
        a.route_vl[i] = to;
        --a.routes_per_vl[static_cast<std::size_t>(from)];
        ++a.routes_per_vl[static_cast<std::size_t>(to)];
        ++moved;
      }
      if (moved == 0) break;
    }
  }
  // Independent verification of the result.
  a.per_lane_acyclic = true;
  for (int v = 0; v < vls_available; ++v) {
    std::vector<Route> lane;
    for (std::size_t i = 0; i < nr; ++i)
      if (a.route_vl[i] == v) lane.push_back(routes[i]);
    if (!cdg_acyclic(adj, lane)) a.per_lane_acyclic = false;
  }
  return a;
}

std::vector<int> color_switches(const Adjacency& adj) {
  // DSATUR: repeatedly colour the uncoloured switch with the most distinct neighbour colours
  // (ties: higher degree, then lower index) with the smallest free colour. Deterministic.
  const int n = static_cast<int>(adj.size());
  std::vector<int> color(static_cast<std::size_t>(n), -1);
  std::vector<std::set<int>> sat(static_cast<std::size_t>(n));
  for (int step = 0; step < n; ++step) {
    int pick = -1;
    for (int v = 0; v < n; ++v) {
      auto vi = static_cast<std::size_t>(v);
      if (color[vi] >= 0) continue;
      if (pick < 0) {
        pick = v;
        continue;
      }
      auto pi = static_cast<std::size_t>(pick);
      if (sat[vi].size() > sat[pi].size() || (sat[vi].size() == sat[pi].size() && adj[vi].size() > adj[pi].size()))
        pick = v;
    }
    auto pi = static_cast<std::size_t>(pick);
    int c = 0;
    while (sat[pi].count(c)) ++c;
    color[pi] = c;
    for (int u : adj[pi]) sat[static_cast<std::size_t>(u)].insert(c);
  }
  return color;
}

namespace {
// Exact search for a proper colouring with at most k colours: DSATUR order with backtracking
// (Brélaz 1979; a new colour only as the next unused one, so colour permutations are not revisited).
// Deterministic. Returns the colouring, or an empty vector with *exhausted = true when none exists,
// or an empty vector with *exhausted = false when the step budget ran out first.
struct ExactColouring {
  const Adjacency& adj;
  int n, k;
  long budget, steps = 0;
  std::vector<int> color;
  std::vector<std::vector<int>> cnt;  // cnt[v][c]: neighbours of v with colour c
  std::vector<int> sat;               // distinct neighbour colours of v
  bool out_of_budget = false;

  ExactColouring(const Adjacency& a, int colours, long steps_budget)
      : adj(a),
        n(static_cast<int>(a.size())),
        k(colours),
        budget(steps_budget),
        color(a.size(), -1),
        cnt(a.size(), std::vector<int>(static_cast<std::size_t>(colours), 0)),
        sat(a.size(), 0) {}

  void set(int v, int c, int delta) {
    for (int u : adj[static_cast<std::size_t>(v)]) {
      int& x = cnt[static_cast<std::size_t>(u)][static_cast<std::size_t>(c)];
      if (delta > 0 && x++ == 0) ++sat[static_cast<std::size_t>(u)];
      if (delta < 0 && --x == 0) --sat[static_cast<std::size_t>(u)];
    }
  }
  bool search(int coloured, int used) {
    if (coloured == n) return true;
    if (++steps > budget) {
      out_of_budget = true;
      return false;
    }
    int pick = -1;
    for (int v = 0; v < n; ++v) {
      const auto vi = static_cast<std::size_t>(v);
      if (color[vi] >= 0) continue;
      if (sat[vi] >= k) return false;  // no colour left for v
      if (pick < 0) {
        pick = v;
        continue;
      }
      const auto pi = static_cast<std::size_t>(pick);
      if (sat[vi] > sat[pi] || (sat[vi] == sat[pi] && adj[vi].size() > adj[pi].size())) pick = v;
    }
    const auto pi = static_cast<std::size_t>(pick);
    for (int c = 0; c < std::min(k, used + 1); ++c) {
      if (cnt[pi][static_cast<std::size_t>(c)] > 0) continue;
      color[pi] = c;
      set(pick, c, +1);
      if (search(coloured + 1, std::max(used, c + 1))) return true;
      set(pick, c, -1);
      color[pi] = -1;
      if (out_of_budget) return false;
    }
    return false;
  }
};
}  // namespace

std::vector<int> color_switches_exact(const Adjacency& adj, int max_colours, long step_budget,
                                      bool* proven_impossible) {
  if (proven_impossible) *proven_impossible = false;
  if (adj.empty()) return {};
  if (max_colours < 1) {
    if (proven_impossible) *proven_impossible = true;
    return {};
  }
  ExactColouring e(adj, max_colours, step_budget);
  if (e.search(0, 0)) return e.color;
  if (proven_impossible) *proven_impossible = !e.out_of_budget;
  return {};
}

VlAssignment assign_three_lane(const Adjacency& adj, const std::vector<Route>& routes, int vls_available,
                               int sls_available) {
  if (vls_available < 3 || vls_available > 15)
    throw UserError(fmt::format("the three-lane scheme (sec. 5.2) needs 3..15 virtual lanes, got {}", vls_available));
  if (sls_available < 1 || sls_available > 16)
    throw UserError(fmt::format("service levels must be in 1..16, got {}", sls_available));
  VlAssignment a;
  a.scheme = "three-lane";
  a.vls_available = vls_available;
  a.vls_needed = 3;
  a.color = color_switches(adj);
  a.colors_used = 1 + *std::max_element(a.color.begin(), a.color.end());
  if (a.colors_used > sls_available) {
    // The heuristic colouring is not minimal: search for one with sls_available colours exactly.
    bool impossible = false;
    auto exact = color_switches_exact(adj, sls_available, kExactColouringSteps, &impossible);
    if (exact.empty())
      throw UserError(fmt::format(
          "three-lane scheme (sec. 5.2): the switch colouring needs {} colours (DSATUR) but only {} service levels are "
          "available, and {}",
          a.colors_used, sls_available,
          impossible ? fmt::format("no proper colouring with {} colours exists (exhaustive search)", sls_available)
                     : fmt::format("the exact search gave up after {} steps", kExactColouringSteps)));
    a.color = std::move(exact);
    a.colors_used = 1 + *std::max_element(a.color.begin(), a.color.end());
  }
  // Lane subsets by hop position: hop class h uses lanes {v < V : v mod 3 == h}.
  std::vector<std::vector<int>> subset(3);
  for (int v = 0; v < vls_available; ++v) subset[static_cast<std::size_t>(v % 3)].push_back(v);
  Channels ch(adj);
  a.routes_per_vl.assign(static_cast<std::size_t>(vls_available), 0);
  // Virtual channels (channel, lane) for the per-lane CDG check.
  Cdg g(ch.size() * static_cast<std::size_t>(vls_available));
  for (const auto& r : routes) {
    const int hops = static_cast<int>(r.size()) - 1;
    if (hops > 3)
      throw UserError(
          fmt::format("three-lane scheme (sec. 5.2) needs routes of at most 3 hops; "
                      "route {}->{} has {} hops",
                      r.front(), r.back(), hops));
    // SL = colour of the second switch (sec. 5.2); 1-hop routes never need it (SL 0).
    const int sl = hops >= 2 ? a.color[static_cast<std::size_t>(r[1])] : 0;
    a.route_sl.push_back(sl);
    int prev_vc = -1;
    for (int i = 0; i < hops; ++i) {
      // What switch r[i] can see: whether the packet came from an endpoint (first hop), the SL and
      // its own colour. SL == own colour identifies the second switch; otherwise it is the third
      // (its colour differs from its neighbour the second switch's, by the proper colouring).
      const int sw = r[static_cast<std::size_t>(i)];
      const int cls = i == 0 ? 0 : (sl == a.color[static_cast<std::size_t>(sw)] ? 1 : 2);
      if (cls != i)
        throw std::logic_error(
            fmt::format("three-lane: hop {} of {}->{} classified as {}", i, r.front(), r.back(), cls));
      const auto& sub = subset[static_cast<std::size_t>(cls)];
      const int vl = sub[static_cast<std::size_t>(sl) % sub.size()];
      ++a.routes_per_vl[static_cast<std::size_t>(vl)];
      const int vc = ch.of(sw, r[static_cast<std::size_t>(i) + 1]) * vls_available + vl;
      if (prev_vc >= 0) ++g.count[static_cast<std::size_t>(g.edge(prev_vc, vc))];
      prev_vc = vc;
    }
  }
  // The dependency graph over (channel, lane) pairs must be acyclic; in particular so is the part
  // of it inside each lane. (Dependencies only go from hop class h to h + 1, so this holds by
  // construction; it is checked, not assumed.)
  a.per_lane_acyclic = g.find_cycle().empty();
  a.vls_used = 0;
  for (long c : a.routes_per_vl) a.vls_used += c > 0;
  return a;
}

std::string format_vl_assignment(const VlAssignment& a) {
  std::string out = fmt::format(
      "deadlock avoidance: {}  lanes available {}  needed {}  used {}  "
      "per-lane CDG acyclic: {}\n",
      a.scheme, a.vls_available, a.vls_needed, a.vls_used, a.per_lane_acyclic ? "yes" : "NO");
  if (a.scheme == "three-lane") out += fmt::format("  switch colours (SLs) used: {}\n", a.colors_used);
  out += fmt::format("  {} per lane:", a.scheme == "three-lane" ? "route hops" : "routes");
  for (std::size_t v = 0; v < a.routes_per_vl.size(); ++v) out += fmt::format(" VL{}:{}", v, a.routes_per_vl[v]);
  out += '\n';
  return out;
}

}  // namespace lbsim::analysis
