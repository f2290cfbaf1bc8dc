// Path analyses of routing layers ([SlimFly] sec. 6.1-6.3, Fig. 6-8).
#include "analysis/pathstats.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <set>

#include <fmt/core.h>

namespace lbsim::analysis {

namespace {

// Maximum independent set in the conflict graph of <= 64 paths (bitmask branch and bound). The
// number of distinct paths of a pair is at most the number of layers, so this stays tiny.
int mis(std::uint64_t cand, const std::vector<std::uint64_t>& conflict, int cur, int best) {
  if (cand == 0) return std::max(cur, best);
  if (cur + std::popcount(cand) <= best) return best;
  int v = std::countr_zero(cand);
  std::uint64_t bit = std::uint64_t{1} << v;
  std::uint64_t nb = conflict[static_cast<std::size_t>(v)] & cand;
  best = mis(cand & ~bit & ~nb, conflict, cur + 1, best);     // take v
  if (nb != 0) best = mis(cand & ~bit, conflict, cur, best);  // skip v (only useful if v conflicts)
  return best;
}

std::vector<long> undirected_edges(const std::vector<int>& p) {
  std::vector<long> e;
  for (std::size_t i = 0; i + 1 < p.size(); ++i) {
    long a = std::min(p[i], p[i + 1]), b = std::max(p[i], p[i + 1]);
    e.push_back(a * 1'000'000L + b);
  }
  std::sort(e.begin(), e.end());
  return e;
}

bool share_edge(const std::vector<long>& a, const std::vector<long>& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i] == b[j]) return true;
    if (a[i] < b[j])
      ++i;
    else
      ++j;
  }
  return false;
}

}  // namespace

int max_disjoint_paths(const std::vector<std::vector<int>>& paths_in) {
  std::set<std::vector<int>> uniq(paths_in.begin(), paths_in.end());
  std::vector<std::vector<long>> edges;
  for (const auto& p : uniq) edges.push_back(undirected_edges(p));
  // Beyond 64 distinct paths (more than 64 layers) keep the 64 shortest: still a valid lower bound.
  std::stable_sort(edges.begin(), edges.end(), [](const auto& a, const auto& b) { return a.size() < b.size(); });
  if (edges.size() > 64) edges.resize(64);
  const std::size_t k = edges.size();
  std::vector<std::uint64_t> conflict(k, 0);
  for (std::size_t i = 0; i < k; ++i)
    for (std::size_t j = i + 1; j < k; ++j)
      if (share_edge(edges[i], edges[j])) {
        conflict[i] |= std::uint64_t{1} << j;
        conflict[j] |= std::uint64_t{1} << i;
      }
  std::uint64_t all = k == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << k) - 1;
  return mis(all, conflict, 0, 0);
}

PathStats compute_path_stats(const RoutingLayers& r, int layers, long link_bin) {
  PathStats st;
  const int n = r.num_switches();
  st.layers = layers <= 0 ? r.num_layers() : std::min(layers, r.num_layers());
  st.switches = n;
  st.link_bin = std::max(1L, link_bin);
  std::vector<long> link_count(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), 0);
  double sum_avg = 0, sum_max = 0, sum_distinct = 0;
  long at_least_3 = 0;
  for (int s = 0; s < n; ++s)
    for (int d = 0; d < n; ++d) {
      if (s == d) continue;
      ++st.pairs;
      std::vector<std::vector<int>> paths;
      int mx = 0, total = 0;
      for (int l = 0; l < st.layers; ++l) {
        auto p = r.path(l, s, d);
        int h = static_cast<int>(p.size()) - 1;
        total += h;
        mx = std::max(mx, h);
        if (h != r.distance(s, d) && h != 3) ++st.non_minimal_not_3;
        for (std::size_t i = 0; i + 1 < p.size(); ++i)
          ++link_count[static_cast<std::size_t>(p[i]) * static_cast<std::size_t>(n) +
                       static_cast<std::size_t>(p[i + 1])];
        paths.push_back(std::move(p));
      }
      double avg = static_cast<double>(total) / st.layers;
      sum_avg += avg;
      sum_max += mx;
      st.max_length = std::max(st.max_length, mx);
      ++st.max_length_hist[mx];
      ++st.avg_length_hist[std::floor(avg * 4.0) / 4.0];
      std::set<std::vector<int>> distinct(paths.begin(), paths.end());
      sum_distinct += static_cast<double>(distinct.size());
      int disj = max_disjoint_paths(paths);
      ++st.disjoint_hist[disj];
      if (disj >= 3) ++at_least_3;
    }
  const double np = static_cast<double>(std::max(1L, st.pairs));
  st.mean_of_avg_length = sum_avg / np;
  st.mean_of_max_length = sum_max / np;
  st.mean_distinct_paths = sum_distinct / np;
  st.share_at_least_3_disjoint = static_cast<double>(at_least_3) / np;
  // Directed links in (switch, adjacency) order.
  for (int u = 0; u < n; ++u)
    for (int v : r.adjacency()[static_cast<std::size_t>(u)])
      st.paths_per_link.push_back(
          link_count[static_cast<std::size_t>(u) * static_cast<std::size_t>(n) + static_cast<std::size_t>(v)]);
  if (!st.paths_per_link.empty()) {
    double sum = 0, sq = 0;
    st.min_paths_per_link = st.max_paths_per_link = st.paths_per_link.front();
    for (long c : st.paths_per_link) {
      sum += static_cast<double>(c);
      sq += static_cast<double>(c) * static_cast<double>(c);
      st.min_paths_per_link = std::min(st.min_paths_per_link, c);
      st.max_paths_per_link = std::max(st.max_paths_per_link, c);
      ++st.paths_per_link_hist[c / st.link_bin * st.link_bin];
    }
    const double m = static_cast<double>(st.paths_per_link.size());
    st.mean_paths_per_link = sum / m;
    st.stddev_paths_per_link = std::sqrt(std::max(0.0, sq / m - (sum / m) * (sum / m)));
  }
  return st;
}

std::string format_path_stats(const PathStats& s) {
  std::string out = fmt::format(
      "layers {}: pairs {}  avg length {:.3f}  mean max length {:.3f}  max length {}  "
      "distinct paths/pair {:.2f}  >=3 disjoint {:.1f}%\n",
      s.layers, s.pairs, s.mean_of_avg_length, s.mean_of_max_length, s.max_length, s.mean_distinct_paths,
      100.0 * s.share_at_least_3_disjoint);
  out += "  max length hist (hops:pairs):";
  for (auto [k, v] : s.max_length_hist) out += fmt::format(" {}:{}", k, v);
  out += "\n  avg length hist (bin 0.25, start:pairs):";
  for (auto [k, v] : s.avg_length_hist) out += fmt::format(" {:.2f}:{}", k, v);
  out += fmt::format(
      "\n  paths per directed link: min {} mean {:.1f} max {} stddev {:.1f}; hist (bin {}):", s.min_paths_per_link,
      s.mean_paths_per_link, s.max_paths_per_link, s.stddev_paths_per_link, s.link_bin);
  for (auto [k, v] : s.paths_per_link_hist) out += fmt::format(" {}:{}", k, v);
  out += "\n  disjoint paths hist (paths:pairs):";
  for (auto [k, v] : s.disjoint_hist) out += fmt::format(" {}:{}", k, v);
  out += '\n';
  return out;
}

}  // namespace lbsim::analysis
