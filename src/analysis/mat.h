// Maximum achievable throughput (MAT), [SlimFly] sec. 6.4 and Fig. 9.
//
// Definition used here (docs/layered-routing.md): given a switch-level demand matrix D (the
// aggregate of endpoint-to-endpoint demands, each endpoint injecting at most 1 unit), MAT is the
// largest theta such that every commodity (s, d) can route theta * D(s, d) simultaneously with
// every inter-switch link carrying at most 1 unit per direction. Endpoint-switch links are not
// constrained (as in TopoBench, the tool the paper uses). Two variants:
//  - path-based: each commodity may only use the paths of the routing (its distinct layer paths),
//    split arbitrarily among them ("adhering to network and routing constraints");
//  - edge-based: unrestricted multicommodity flow (the topology's own limit).
// Both are linear programs solved with COIN-OR CLP.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/deadlock.h"
#include "routing/layered.h"

namespace lbsim::analysis {

// The layered-routing types (routing/layered.h) the analyses work on.
using routing::Adjacency;
using routing::LayerOptions;
using routing::RoutingLayers;

struct Demand {
  int src = 0, dst = 0;  // switches
  double amount = 0;     // in units of one endpoint's injection rate
};

struct TrafficMatrix {
  std::string name;
  int switches = 0;
  std::vector<Demand> demands;  // one entry per ordered switch pair with positive demand
  long endpoint_flows = 0;      // endpoint pairs behind the demands (reports)
};

enum class TrafficPattern { Permutation, Uniform, Adversarial };
TrafficPattern parse_traffic_pattern(const std::string& name);  // permutation|uniform|adversarial

// Builds a switch-level traffic matrix from an endpoint pattern. endpoints[s] endpoints sit on
// switch s (endpoint ids are consecutive per switch); traffic between endpoints of one switch never
// enters the network and is dropped.
//  - permutation: a uniformly random permutation of the endpoints; e sends 1 unit to perm(e).
//  - uniform: every endpoint sends 1/(N-1) to each other endpoint.
//  - adversarial(fraction): each ordered endpoint pair whose switches are at least 2 hops apart is
//    selected with probability `fraction`; an endpoint with k selected destinations sends 1/k to
//    each. Sparse selections make few large (elephant) flows per endpoint, dense ones many small
//    flows, all over multi-hop distances (sec. 6.4 after TopoBench).
// Random draws use Rng(seed, hash_name("mat/<pattern>")).
TrafficMatrix make_traffic(const Adjacency& adj, const std::vector<int>& endpoints, TrafficPattern pattern,
                           double fraction, std::uint64_t seed);

// CLP algorithm: dual simplex, primal simplex, barrier (interior point + crossover) or CLP's
// automatic choice (initialSolve; the default, the fastest on the Slim Fly LPs measured:
// docs/results/layered-routing.md "Measured numbers").
enum class LpMethod { Dual, Primal, Barrier, Auto };
LpMethod parse_lp_method(const std::string& name);

struct MatResult {
  double theta = 0;  // MAT; +inf when no demand crosses the network
  bool optimal = false;
  double solve_seconds = 0;  // CLP wall time (model build excluded)
  double build_seconds = 0;
  int variables = 0, constraints = 0;
  long nonzeros = 0;
  std::string status;
};

// Unrestricted (edge-based) multicommodity flow, aggregated per source switch (a source's
// commodities share flow variables, which does not change the optimum of a concurrent flow).
MatResult mat_edge_lp(const Adjacency& adj, const TrafficMatrix& tm, LpMethod method = LpMethod::Auto);

// Path-restricted flow. paths[i] are the allowed switch paths for demand tm.demands[i].
MatResult mat_path_lp(const Adjacency& adj, const TrafficMatrix& tm, const std::vector<std::vector<Route>>& paths,
                      LpMethod method = LpMethod::Auto);

// Convenience: the allowed paths of every demand are its distinct paths in layers 0..layers-1.
MatResult mat_routing_lp(const RoutingLayers& r, int layers, const TrafficMatrix& tm, LpMethod method = LpMethod::Auto);

}  // namespace lbsim::analysis
