// Layered multipath routing ([SlimFly] Algorithm 1 and App. B.1, the RUES and FatPaths-style baselines of
// sec. 6): scheme and detour names, RoutingLayers, build_layers (which drives the LayerBuilder of
// layered_builder.h layer by layer), validation and the forwarding-table text. See layered.h and
// docs/layered-routing.md.
#include "routing/layered.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include <fmt/core.h>
#include <fmt/format.h>

#include "core/error.h"
#include "core/rng.h"
#include "routing/layered_builder.h"
#include "topo/graph.h"

namespace lbsim::routing {

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
  detail::LayerBuilder b(r.adjacency(), r);
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
