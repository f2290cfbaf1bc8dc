// Maximum achievable throughput as linear programs ([SlimFly] sec. 6.4). See mat.h.
#include "analysis/mat.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include <ClpSimplex.hpp>
#include <ClpSolve.hpp>
#include <CoinPackedMatrix.hpp>
#include <fmt/core.h>

#include "core/error.h"
#include "core/rng.h"

namespace lbsim::analysis {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Column-wise LP under construction: maximize theta (column 0) subject to rows with bounds.
struct LpBuilder {
  std::vector<int> rows, cols;
  std::vector<double> vals;
  std::vector<double> row_lo, row_hi, col_lo, col_hi, obj;

  int add_col(double lo, double hi, double c) {
    col_lo.push_back(lo);
    col_hi.push_back(hi);
    obj.push_back(c);
    return static_cast<int>(obj.size()) - 1;
  }
  int add_row(double lo, double hi) {
    row_lo.push_back(lo);
    row_hi.push_back(hi);
    return static_cast<int>(row_lo.size()) - 1;
  }
  void set(int row, int col, double v) {
    rows.push_back(row);
    cols.push_back(col);
    vals.push_back(v);
  }

  MatResult solve(Clock::time_point build_start, LpMethod method) {
    MatResult res;
    res.variables = static_cast<int>(obj.size());
    res.constraints = static_cast<int>(row_lo.size());
    res.nonzeros = static_cast<long>(vals.size());
    CoinPackedMatrix m(true, rows.data(), cols.data(), vals.data(), static_cast<CoinBigIndex>(vals.size()));
    // Empty trailing rows/columns are not seen by the triplet constructor; size explicitly.
    m.setDimensions(res.constraints, res.variables);
    ClpSimplex model;
    model.setLogLevel(0);
    model.loadProblem(m, col_lo.data(), col_hi.data(), obj.data(), row_lo.data(), row_hi.data());
    model.setOptimizationDirection(-1);  // maximize theta
    res.build_seconds = seconds_since(build_start);
    auto t0 = Clock::now();
    switch (method) {
      case LpMethod::Dual:
        model.dual();
        break;
      case LpMethod::Primal:
        model.primal();
        break;
      case LpMethod::Barrier: {
        ClpSolve opts;
        opts.setSolveType(ClpSolve::useBarrier);
        model.initialSolve(opts);
        break;
      }
      case LpMethod::Auto:
        model.initialSolve();
        break;
    }
    res.solve_seconds = seconds_since(t0);
    res.optimal = model.isProvenOptimal();
    res.status = res.optimal ? "optimal" : fmt::format("clp status {}", model.status());
    res.theta = model.getColSolution()[0];
    return res;
  }
};

std::vector<int> channel_index(const Adjacency& adj, std::vector<std::pair<int, int>>* ends) {
  const std::size_t n = adj.size();
  std::vector<int> id(n * n, -1);
  int c = 0;
  for (std::size_t u = 0; u < n; ++u)
    for (int v : adj[u]) {
      id[u * n + static_cast<std::size_t>(v)] = c++;
      if (ends) ends->emplace_back(static_cast<int>(u), v);
    }
  return id;
}

MatResult no_demand() {
  MatResult r;
  r.theta = std::numeric_limits<double>::infinity();
  r.optimal = true;
  r.status = "no demand crosses the network";
  return r;
}

}  // namespace

LpMethod parse_lp_method(const std::string& name) {
  if (name == "dual") return LpMethod::Dual;
  if (name == "primal") return LpMethod::Primal;
  if (name == "barrier") return LpMethod::Barrier;
  if (name == "auto") return LpMethod::Auto;
  throw UserError(fmt::format("unknown LP method '{}' (expected dual, primal, barrier or auto)", name));
}

TrafficPattern parse_traffic_pattern(const std::string& name) {
  if (name == "permutation") return TrafficPattern::Permutation;
  if (name == "uniform") return TrafficPattern::Uniform;
  if (name == "adversarial") return TrafficPattern::Adversarial;
  throw UserError(fmt::format("unknown traffic pattern '{}' (expected permutation, uniform or adversarial)", name));
}

TrafficMatrix make_traffic(const Adjacency& adj, const std::vector<int>& endpoints, TrafficPattern pattern,
                           double fraction, std::uint64_t seed) {
  const int n = static_cast<int>(adj.size());
  if (static_cast<int>(endpoints.size()) != n)
    throw UserError(fmt::format("endpoint counts given for {} switches, graph has {}", endpoints.size(), n));
  std::vector<int> sw_of;  // endpoint -> switch
  for (int s = 0; s < n; ++s) {
    if (endpoints[static_cast<std::size_t>(s)] < 0) throw UserError("endpoint counts must be >= 0");
    for (int k = 0; k < endpoints[static_cast<std::size_t>(s)]; ++k) sw_of.push_back(s);
  }
  const int ne = static_cast<int>(sw_of.size());
  if (ne < 2) throw UserError("traffic patterns need at least 2 endpoints");
  std::map<std::pair<int, int>, double> agg;
  TrafficMatrix tm;
  tm.switches = n;
  auto add = [&](int a, int b, double amount) {
    int s = sw_of[static_cast<std::size_t>(a)], d = sw_of[static_cast<std::size_t>(b)];
    if (s == d || amount <= 0) return;
    agg[{s, d}] += amount;
    ++tm.endpoint_flows;
  };
  switch (pattern) {
    case TrafficPattern::Permutation: {
      tm.name = "permutation";
      Rng rng(seed, hash_name("mat/permutation"));
      std::vector<int> perm(static_cast<std::size_t>(ne));
      for (int i = 0; i < ne; ++i) perm[static_cast<std::size_t>(i)] = i;
      for (std::size_t i = perm.size(); i > 1; --i) std::swap(perm[i - 1], perm[rng.below(i)]);
      for (int e = 0; e < ne; ++e) add(e, perm[static_cast<std::size_t>(e)], 1.0);
      break;
    }
    case TrafficPattern::Uniform: {
      tm.name = "uniform";
      const double each = 1.0 / (ne - 1);
      for (int a = 0; a < ne; ++a)
        for (int b = 0; b < ne; ++b)
          if (a != b) add(a, b, each);
      break;
    }
    case TrafficPattern::Adversarial: {
      if (!(fraction > 0.0 && fraction <= 1.0))
        throw UserError(
            fmt::format("adversarial traffic: fraction of communicating pairs must be in (0, 1], got {}", fraction));
      tm.name = fmt::format("adversarial({})", fraction);
      Rng rng(seed, hash_name("mat/adversarial"));
      auto dist = routing::all_pairs_distances(adj);
      for (int a = 0; a < ne; ++a) {
        std::vector<int> dst;
        const int sa = sw_of[static_cast<std::size_t>(a)];
        for (int b = 0; b < ne; ++b) {
          const int sb = sw_of[static_cast<std::size_t>(b)];
          if (dist[static_cast<std::size_t>(sa) * static_cast<std::size_t>(n) + static_cast<std::size_t>(sb)] < 2)
            continue;
          if (rng.bernoulli(fraction)) dst.push_back(b);
        }
        for (int b : dst) add(a, b, 1.0 / static_cast<double>(dst.size()));
      }
      break;
    }
  }
  for (auto& [k, v] : agg) tm.demands.push_back({k.first, k.second, v});
  return tm;
}

MatResult mat_edge_lp(const Adjacency& adj, const TrafficMatrix& tm, LpMethod method) {
  if (tm.demands.empty()) return no_demand();
  auto t0 = Clock::now();
  const int n = static_cast<int>(adj.size());
  std::vector<std::pair<int, int>> ends;
  channel_index(adj, &ends);
  const int nc = static_cast<int>(ends.size());
  std::vector<std::vector<const Demand*>> by_src(static_cast<std::size_t>(n));
  for (const auto& d : tm.demands) by_src[static_cast<std::size_t>(d.src)].push_back(&d);
  LpBuilder lp;
  const int theta = lp.add_col(0.0, COIN_DBL_MAX, 1.0);
  std::vector<int> cap_row(static_cast<std::size_t>(nc));
  for (int c = 0; c < nc; ++c) cap_row[static_cast<std::size_t>(c)] = lp.add_row(-COIN_DBL_MAX, 1.0);
  for (int s = 0; s < n; ++s) {
    const auto& ds = by_src[static_cast<std::size_t>(s)];
    if (ds.empty()) continue;
    // Flow conservation of source s's aggregate at every other switch v:
    // inflow(v) - outflow(v) = theta * D(s, v).
    std::vector<int> cons(static_cast<std::size_t>(n), -1);
    for (int v = 0; v < n; ++v)
      if (v != s) cons[static_cast<std::size_t>(v)] = lp.add_row(0.0, 0.0);
    for (const Demand* d : ds) lp.set(cons[static_cast<std::size_t>(d->dst)], theta, -d->amount);
    for (int c = 0; c < nc; ++c) {
      auto [u, v] = ends[static_cast<std::size_t>(c)];
      if (v == s) continue;  // flow back into its own source is never useful
      int col = lp.add_col(0.0, COIN_DBL_MAX, 0.0);
      lp.set(cap_row[static_cast<std::size_t>(c)], col, 1.0);
      lp.set(cons[static_cast<std::size_t>(v)], col, 1.0);
      if (u != s) lp.set(cons[static_cast<std::size_t>(u)], col, -1.0);
    }
  }
  return lp.solve(t0, method);
}

MatResult mat_path_lp(const Adjacency& adj, const TrafficMatrix& tm, const std::vector<std::vector<Route>>& paths,
                      LpMethod method) {
  if (paths.size() != tm.demands.size()) throw std::logic_error("mat_path_lp: one path list per demand expected");
  if (tm.demands.empty()) return no_demand();
  auto t0 = Clock::now();
  const std::size_t n = adj.size();
  auto ch = channel_index(adj, nullptr);
  LpBuilder lp;
  const int theta = lp.add_col(0.0, COIN_DBL_MAX, 1.0);
  std::vector<int> cap_row(ch.size() ? static_cast<std::size_t>(*std::max_element(ch.begin(), ch.end()) + 1) : 0);
  for (auto& r : cap_row) r = lp.add_row(-COIN_DBL_MAX, 1.0);
  for (std::size_t i = 0; i < tm.demands.size(); ++i) {
    const Demand& d = tm.demands[i];
    if (paths[i].empty()) throw UserError(fmt::format("no path for demand {} -> {}", d.src, d.dst));
    // sum_p x_p = theta * D(s, d)
    int row = lp.add_row(0.0, 0.0);
    lp.set(row, theta, -d.amount);
    for (const auto& p : paths[i]) {
      if (p.front() != d.src || p.back() != d.dst)
        throw std::logic_error("mat_path_lp: path does not connect its demand");
      int col = lp.add_col(0.0, COIN_DBL_MAX, 0.0);
      lp.set(row, col, 1.0);
      for (std::size_t k = 0; k + 1 < p.size(); ++k) {
        int c = ch[static_cast<std::size_t>(p[k]) * n + static_cast<std::size_t>(p[k + 1])];
        if (c < 0) throw UserError(fmt::format("path uses {}->{}, which is not a link", p[k], p[k + 1]));
        lp.set(cap_row[static_cast<std::size_t>(c)], col, 1.0);
      }
    }
  }
  return lp.solve(t0, method);
}

MatResult mat_routing_lp(const RoutingLayers& r, int layers, const TrafficMatrix& tm, LpMethod method) {
  const int nl = layers <= 0 ? r.num_layers() : std::min(layers, r.num_layers());
  std::vector<std::vector<Route>> paths;
  for (const auto& d : tm.demands) {
    std::set<Route> uniq;
    for (int l = 0; l < nl; ++l) uniq.insert(r.path(l, d.src, d.dst));
    paths.emplace_back(uniq.begin(), uniq.end());
  }
  return mat_path_lp(r.adjacency(), tm, paths, method);
}

}  // namespace lbsim::analysis
