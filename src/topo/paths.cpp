#include "topo/paths.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

#include <fmt/core.h>

#include "core/error.h"

namespace lbsim::topo {

namespace {
constexpr std::int16_t kFar = std::numeric_limits<std::int16_t>::max() / 2;  // unreachable
constexpr int kMaxHopsLimit = 16;  // hop buffer size; bounded paths are far shorter
}  // namespace

const char* path_rule_name(PathRule r) {
  switch (r) {
    case PathRule::Dragonfly:
      return "dragonfly";
    case PathRule::Valiant:
      return "valiant";
    case PathRule::Simple:
      return "simple";
  }
  return "?";
}

PathEnumerator::PathEnumerator(const Topology& t, PathOptions opt) : t_(&t), opt_(std::move(opt)) {
  nsw_ = t.num_switches();
  if (opt_.packet_bytes <= 0) throw UserError("paths: packet size must be positive");
  if (opt_.rate < 0) throw UserError("paths: rate must be >= 0 (0 = each link's own rate)");
  if (opt_.rule == "auto")
    rule_ = t.minimal_one_global_hop ? PathRule::Dragonfly
            : t.kind == "slim_fly"   ? PathRule::Valiant
                                     : PathRule::Simple;
  else if (opt_.rule == "dragonfly")
    rule_ = PathRule::Dragonfly;
  else if (opt_.rule == "valiant")
    rule_ = PathRule::Valiant;
  else if (opt_.rule == "simple")
    rule_ = PathRule::Simple;
  else
    throw UserError(fmt::format("paths: unknown path rule '{}' (valid: auto, dragonfly, valiant, simple)", opt_.rule));

  link_lat_.resize(t.links.size());
  for (std::size_t i = 0; i < t.links.size(); ++i) link_lat_[i] = hop_latency(t.links[i]);

  if (rule_ == PathRule::Dragonfly) {
    // Group-level rule: needs each switch's group and the global links per ordered group pair.
    for (std::int32_t s = 0; s < nsw_; ++s) {
      auto grp = t.nodes[t.switch_node(s)].group;
      if (grp < 0)
        throw UserError(fmt::format("paths: the dragonfly rule needs switch groups; switch '{}' has none",
                                    t.nodes[t.switch_node(s)].label));
      groups_ = std::max(groups_, grp + 1);
    }
    pair_.assign(static_cast<std::size_t>(groups_) * groups_, {});
    for (const auto& l : t.links) {
      if (l.kind != LinkKind::Global || t.is_host(l.a) || t.is_host(l.b)) continue;
      auto ga = t.nodes[l.a].group, gb = t.nodes[l.b].group;
      if (ga == gb) continue;
      pair_[static_cast<std::size_t>(ga) * groups_ + gb].push_back(GlobalEdge{l.a, l.port_a, l.b});
      pair_[static_cast<std::size_t>(gb) * groups_ + ga].push_back(GlobalEdge{l.b, l.port_b, l.a});
    }
    local_off_.assign(static_cast<std::size_t>(nsw_) + 1, 0);
    std::vector<std::pair<std::int32_t, std::int32_t>> row;
    for (std::int32_t si = 0; si < nsw_; ++si) {
      const std::int32_t a = t.switch_node(si);
      row.clear();
      const auto& ports = t.ports[a];
      for (std::int32_t k = 0; k < static_cast<std::int32_t>(ports.size()); ++k)
        if (!t.is_host(ports[k].peer) && t.links[ports[k].link].kind != LinkKind::Global)
          row.emplace_back(ports[k].peer, k);
      std::sort(row.begin(), row.end());
      for (const auto& [peer, k] : row) {
        local_peer_.push_back(peer);
        local_port_.push_back(k);
      }
      local_off_[static_cast<std::size_t>(si) + 1] = static_cast<std::uint32_t>(local_peer_.size());
    }
    max_hops_ = 5;  // 3 local + 2 global
    return;
  }

  // Switch distances drive both the Valiant test and the pruning of the depth-first search.
  auto d = switch_distances(t);
  dist_.assign(static_cast<std::size_t>(nsw_) * nsw_, kFar);
  int diameter = 0;
  for (std::int32_t a = 0; a < nsw_; ++a)
    for (std::int32_t b = 0; b < nsw_; ++b)
      if (d[a][b] >= 0) {
        dist_[static_cast<std::size_t>(a) * nsw_ + b] = static_cast<std::int16_t>(d[a][b]);
        diameter = std::max(diameter, d[a][b]);
      }
  // Valiant = minimal to an intermediate switch + minimal onwards: at most twice the diameter
  // (Slim Fly: 2 * 2 = 4 hops, [Spritz] sec. III-b and Table I).
  max_hops_ = opt_.max_hops >= 0 ? opt_.max_hops : rule_ == PathRule::Valiant ? 2 * diameter : diameter;
  if (max_hops_ > kMaxHopsLimit)
    throw UserError(fmt::format("paths: max_hops {} is above the supported {}", max_hops_, kMaxHopsLimit));
}

SimTime PathEnumerator::hop_latency(const Link& l) const {
  const BitsPerSec r = opt_.rate > 0 ? opt_.rate : l.rate;
  return l.latency + serialization_ps(opt_.packet_bytes, r);
}

namespace {

// Fills the class counters and latency of a view from its hops.
void classify(const Topology& t, const std::vector<SimTime>& link_lat, PathView& v) {
  v.local = v.global = 0;
  v.latency = 0;
  for (std::int32_t i = 0; i < v.length; ++i) {
    const auto link = t.ports[v.hops[i].node][v.hops[i].port].link;
    (t.links[link].kind == LinkKind::Global ? v.global : v.local)++;
    v.latency += link_lat[link];
  }
}

}  // namespace

void PathEnumerator::for_each_path(std::int32_t src, std::int32_t dst,
                                   const std::function<void(const PathView&)>& visit, bool classes, int prune) const {
  if (t_->is_host(src) || t_->is_host(dst) || src >= t_->size() || dst >= t_->size() || src < 0 || dst < 0)
    throw UserError(fmt::format("paths: {} and {} must both be switches", src, dst));
  if (src == dst) {
    visit(PathView{});
    return;
  }
  if (rule_ == PathRule::Dragonfly)
    df_visit(src, dst, visit, classes);
  else
    dfs_visit(src, dst, visit, classes, prune);
}

// ---- Dragonfly (group-level Valiant) ----------------------------------------------------------

std::pair<const std::int32_t*, const std::int32_t*> PathEnumerator::local_ports(std::int32_t a, std::int32_t b) const {
  const auto si = static_cast<std::size_t>(t_->switch_index(a));
  const std::int32_t* peers = local_peer_.data();
  const auto [lo, hi] = std::equal_range(peers + local_off_[si], peers + local_off_[si + 1], b);
  const std::int32_t* ports = local_port_.data();
  return {ports + (lo - peers), ports + (hi - peers)};
}

std::int64_t PathEnumerator::local_links(std::int32_t a, std::int32_t b) const {
  if (a == b) return 1;  // an empty segment
  const auto [lo, hi] = local_ports(a, b);
  return hi - lo;
}

void PathEnumerator::df_visit(std::int32_t s, std::int32_t d, const std::function<void(const PathView&)>& visit,
                              bool classes) const {
  const Topology& t = *t_;
  Hop buf[kMaxHopsLimit];
  std::int32_t n = 0;
  std::int32_t global = 0;  // global hops of the path being built: known from its shape
  auto emit = [&] {
    PathView v;
    v.hops = buf;
    v.length = n;
    if (classes)
      classify(t, link_lat_, v);
    else
      v.global = global;
    visit(v);
  };
  // A segment inside one group: nothing when a == b, else each non-global link a -> b.
  auto seg = [&](std::int32_t a, std::int32_t b, auto&& cont) {
    if (a == b) {
      cont();
      return;
    }
    const auto [lo, hi] = local_ports(a, b);
    for (const std::int32_t* k = lo; k != hi; ++k) {
      buf[n++] = Hop{a, *k};
      cont();
      --n;
    }
  };
  const auto S = t.nodes[s].group, D = t.nodes[d].group;
  if (S == D) {
    // Same group (sec. III-B step 1/2): direct link, or one detour switch inside the group.
    seg(s, d, emit);
    const auto& ports = t.ports[s];
    for (std::int32_t k = 0; k < static_cast<std::int32_t>(ports.size()); ++k) {
      const auto x = ports[k].peer;
      if (t.is_host(x) || x == d || t.nodes[x].group != S || t.links[ports[k].link].kind == LinkKind::Global) continue;
      buf[n++] = Hop{s, k};
      seg(x, d, emit);
      --n;
    }
    return;
  }
  auto edges = [&](std::int32_t X, std::int32_t Y) -> const std::vector<GlobalEdge>& {
    return pair_[static_cast<std::size_t>(X) * groups_ + Y];
  };
  // Minimal across groups: [local] global [local].
  global = 1;
  for (const auto& e : edges(S, D))
    seg(s, e.u, [&] {
      buf[n++] = Hop{e.u, e.port};
      seg(e.v, d, emit);
      --n;
    });
  // Non-minimal through one intermediate group I: [local] global [local] global [local].
  global = 2;
  for (std::int32_t I = 0; I < groups_; ++I) {
    if (I == S || I == D) continue;
    for (const auto& e1 : edges(S, I))
      for (const auto& e2 : edges(I, D))
        seg(s, e1.u, [&] {
          buf[n++] = Hop{e1.u, e1.port};
          seg(e1.v, e2.u, [&] {
            buf[n++] = Hop{e2.u, e2.port};
            seg(e2.v, d, emit);
            --n;
          });
          --n;
        });
  }
}

std::int64_t PathEnumerator::df_count(std::int32_t s, std::int32_t d) const {
  const Topology& t = *t_;
  const auto S = t.nodes[s].group, D = t.nodes[d].group;
  if (s == d) return 1;
  std::int64_t total = 0;
  if (S == D) {
    total = local_links(s, d);
    for (const auto& p : t.ports[s])
      if (!t.is_host(p.peer) && p.peer != d && t.nodes[p.peer].group == S && t.links[p.link].kind != LinkKind::Global)
        total += local_links(p.peer, d);
    return total;
  }
  auto edges = [&](std::int32_t X, std::int32_t Y) -> const std::vector<GlobalEdge>& {
    return pair_[static_cast<std::size_t>(X) * groups_ + Y];
  };
  for (const auto& e : edges(S, D)) total += local_links(s, e.u) * local_links(e.v, d);
  for (std::int32_t I = 0; I < groups_; ++I) {
    if (I == S || I == D) continue;
    for (const auto& e1 : edges(S, I)) {
      const auto head = local_links(s, e1.u);
      if (head == 0) continue;
      for (const auto& e2 : edges(I, D)) total += head * local_links(e1.v, e2.u) * local_links(e2.v, d);
    }
  }
  return total;
}

// ---- Depth-first rules: "valiant" (Slim Fly) and "simple" --------------------------------------
//
// Valiant test without trying every intermediate switch: the prefixes of a path that are minimal
// form an initial run p_0..p_K (a prefix of a minimal path is minimal), and the suffixes that are
// minimal form a final run p_J..p_L. A split point exists iff J <= K, i.e. iff the suffix starting
// at p_K (the last node of the longest minimal prefix) is minimal: dist(p_K, d) == L - K.

void PathEnumerator::dfs_visit(std::int32_t s, std::int32_t d, const std::function<void(const PathView&)>& visit,
                               bool classes, int prune) const {
  const Topology& t = *t_;
  Hop buf[kMaxHopsLimit];
  std::vector<char> on_path(static_cast<std::size_t>(nsw_), 0);
  const bool valiant = rule_ == PathRule::Valiant;
  const int maxh = max_hops_;
  // The search reads only distances from s and to d: rows s and d of the matrix (links are
  // bidirectional, so dist(v, d) = dist(d, v)), a few KB that stay in cache; a lookup [v][d] per
  // node tried was a cache miss.
  const auto ns = static_cast<std::size_t>(nsw_);
  const std::int16_t* from_s = dist_.data() + static_cast<std::size_t>(t.switch_index(s)) * ns;
  const std::int16_t* to_d = dist_.data() + static_cast<std::size_t>(t.switch_index(d)) * ns;
  // The port of each neighbour of d towards d (the lowest when there are parallel links).
  std::vector<std::int32_t> port_to_d(ns, -1);
  bool parallel = false;
  for (const auto& q : t.ports[d]) {
    if (t.is_host(q.peer)) continue;
    auto& e = port_to_d[static_cast<std::size_t>(t.switch_index(q.peer))];
    if (e >= 0) parallel = true;
    e = e < 0 ? q.peer_port : std::min(e, q.peer_port);
  }
  // With `prune`: once a path longer than `prune` hops is visited, every depth >= prune returns at
  // once (unwind) until the search is back at depth prune - 1, which tries its next port.
  constexpr int kNoUnwind = kMaxHopsLimit + 1;
  int unwind = kNoUnwind;
  // u: current node at depth k; prefix: path so far is minimal; L: final length forced once the
  // prefix stopped being minimal (valiant only).
  auto rec = [&](auto&& self, std::int32_t u, int k, bool prefix, int L) -> void {
    const auto& ports = t.ports[u];
    const auto ui = static_cast<std::size_t>(t.switch_index(u));
    auto step = [&](std::int32_t pi) {
      if (k >= unwind) return;
      const auto v = ports[pi].peer;
      if (t.is_host(v)) return;
      const auto vi = static_cast<std::size_t>(t.switch_index(v));
      if (on_path[vi]) return;
      const int k1 = k + 1;
      const int dv = to_d[vi];
      bool next_prefix = prefix;
      int next_L = L;
      if (valiant) {
        if (prefix && from_s[vi] == k1) {
          if (k1 + dv > maxh) return;
        } else {
          if (prefix) {  // the minimal prefix ends at u: the rest must be a minimal path from u
            next_prefix = false;
            next_L = k + to_d[ui];
            if (next_L > maxh) return;
          }
          if (dv != next_L - k1) return;
        }
      } else if (k1 + dv > maxh) {
        return;
      }
      buf[k] = Hop{u, pi};
      if (v == d) {
        PathView view;
        view.hops = buf;
        view.length = k1;
        if (classes) classify(t, link_lat_, view);
        visit(view);
        if (prune > 0 && k1 > prune) unwind = prune;
        return;
      }
      on_path[vi] = 1;
      self(self, v, k1, next_prefix, next_L);
      on_path[vi] = 0;
      if (k1 == unwind) unwind = kNoUnwind;  // back at depth prune - 1: its next port is a new prefix
    };
    // When one hop is all that is left (the bound reached, or a minimal remainder of length 1) the
    // tests of step() accept no node but d (its distance to d would have to be 0): only u's ports
    // to d are tried, none when u is not next to d. Same paths, same order.
    if (k + 1 == maxh || (valiant && !prefix && L - k == 1)) {
      if (to_d[ui] != 1) return;
      if (!parallel) {
        step(port_to_d[ui]);
        return;
      }
      for (std::int32_t pi = 0; pi < static_cast<std::int32_t>(ports.size()); ++pi)
        if (ports[pi].peer == d) step(pi);
      return;
    }
    for (std::int32_t pi = 0; pi < static_cast<std::int32_t>(ports.size()) && k < unwind; ++pi) step(pi);
  };
  on_path[t.switch_index(s)] = 1;
  rec(rec, s, 0, true, 0);
}

void PathEnumerator::dfs_count_from(std::int32_t s, std::vector<std::int64_t>& out) const {
  const Topology& t = *t_;
  std::vector<char> on_path(static_cast<std::size_t>(nsw_), 0);
  const bool valiant = rule_ == PathRule::Valiant;
  const int maxh = max_hops_;
  // pivot: p_K (last node of the longest minimal prefix) once known, K its depth.
  auto rec = [&](auto&& self, std::int32_t u, int k, bool prefix, std::int32_t pivot, int K) -> void {
    for (const auto& p : t.ports[u]) {
      const auto v = p.peer;
      if (t.is_host(v) || on_path[t.switch_index(v)]) continue;
      const int k1 = k + 1;
      bool next_prefix = prefix;
      std::int32_t next_pivot = pivot;
      int next_K = K;
      if (valiant && prefix && dist(s, v) != k1) {
        next_prefix = false;
        next_pivot = u;
        next_K = k;
      }
      if (!valiant || next_prefix || dist(next_pivot, v) == k1 - next_K) ++out[t.switch_index(v)];
      if (k1 < maxh) {
        on_path[t.switch_index(v)] = 1;
        self(self, v, k1, next_prefix, next_pivot, next_K);
        on_path[t.switch_index(v)] = 0;
      }
    }
  };
  on_path[t.switch_index(s)] = 1;
  rec(rec, s, 0, true, s, 0);
}

// ---- Public helpers -----------------------------------------------------------------------------

std::vector<Path> PathEnumerator::paths(std::int32_t src, std::int32_t dst) const {
  std::vector<Path> out;
  for_each_path(src, dst, [&](const PathView& v) {
    Path p;
    p.hops.assign(v.hops, v.hops + v.length);
    p.local = v.local;
    p.global = v.global;
    p.latency = v.latency;
    out.push_back(std::move(p));
  });
  std::sort(out.begin(), out.end(), [](const Path& a, const Path& b) {
    if (a.latency != b.latency) return a.latency < b.latency;
    return std::lexicographical_compare(
        a.hops.begin(), a.hops.end(), b.hops.begin(), b.hops.end(),
        [](const Hop& x, const Hop& y) { return std::tie(x.node, x.port) < std::tie(y.node, y.port); });
  });
  return out;
}

std::int64_t PathEnumerator::count(std::int32_t src, std::int32_t dst) const {
  if (t_->is_host(src) || t_->is_host(dst) || src >= t_->size() || dst >= t_->size() || src < 0 || dst < 0)
    throw UserError(fmt::format("paths: {} and {} must both be switches", src, dst));
  if (rule_ == PathRule::Dragonfly) return df_count(src, dst);
  if (src == dst) return 1;
  std::int64_t n = 0;
  dfs_visit(
      src, dst, [&](const PathView&) { ++n; }, false);
  return n;
}

std::vector<std::int64_t> PathEnumerator::counts_from(std::int32_t src) const {
  std::vector<std::int64_t> out(static_cast<std::size_t>(nsw_), 0);
  if (rule_ == PathRule::Dragonfly) {
    for (std::int32_t d = 0; d < nsw_; ++d) out[d] = df_count(src, t_->switch_node(d));
    return out;
  }
  dfs_count_from(src, out);
  out[t_->switch_index(src)] = 1;
  return out;
}

std::vector<std::vector<Path>> endpoint_table(const PathEnumerator& pe, std::int32_t src_switch) {
  const Topology& t = pe.topology();
  std::vector<std::vector<Path>> out(static_cast<std::size_t>(t.num_switches()));
  for (std::int32_t d = 0; d < t.num_switches(); ++d) out[d] = pe.paths(src_switch, t.switch_node(d));
  return out;
}

std::vector<PathTypeCount> summarize_path_types(const std::vector<Path>& paths) {
  std::map<std::tuple<SimTime, std::int32_t, std::int32_t>, std::int64_t> m;
  for (const auto& p : paths) ++m[{p.latency, p.global, p.local}];
  std::vector<PathTypeCount> out;
  for (const auto& [key, n] : m) out.push_back(PathTypeCount{std::get<2>(key), std::get<1>(key), std::get<0>(key), n});
  return out;
}

}  // namespace lbsim::topo
