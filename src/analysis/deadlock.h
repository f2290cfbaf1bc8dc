// Deadlock freedom for layered routing on lossless (credit-based, InfiniBand) networks
// ([SlimFly] sec. 5.2).
//
// A route is a switch sequence; its consecutive inter-switch channels (directed links) form the
// channel dependency graph (CDG). Routes placed on the same virtual lane (VL) are deadlock-free
// when that lane's CDG is acyclic. Two assignments:
//  (a) DFSSSP-style: start with every route on VL 0; while a lane's CDG has a cycle, move the routes
//      inducing the cycle's least-used dependency to the next lane; fail (UserError) when the
//      available lanes do not suffice; spread routes over unused lanes for balance.
//  (b) The 3-lane scheme for routes of at most 3 hops: a proper colouring of the switches is mapped
//      to service levels (SL = colour of the route's second switch), and each switch infers the hop
//      position from (SL, in port, out port), so hop i uses the VL subset i.
#pragma once
#include <string>
#include <vector>

#include "routing/layered.h"

namespace lbsim::analysis {

// The layered-routing types (routing/layered.h) the analyses work on.
using routing::Adjacency;
using routing::LayerOptions;
using routing::RoutingLayers;

using Route = std::vector<int>;  // switch sequence, at least 2 switches

// The distinct routes of the first `layers` layers (all when <= 0) over all ordered switch pairs.
std::vector<Route> collect_routes(const RoutingLayers& r, int layers = 0);

// True when the CDG of `routes` over the graph `adj` has no cycle. On a cycle, `cycle` (if given)
// receives it as a list of channels "u->v".
bool cdg_acyclic(const Adjacency& adj, const std::vector<Route>& routes, std::string* cycle = nullptr);

struct VlAssignment {
  std::string scheme;  // "dfsssp" or "three-lane"
  int vls_available = 0;
  int vls_needed = 0;               // lanes needed before balancing (DFSSSP) / 3 (three-lane)
  int vls_used = 0;                 // lanes carrying routes after balancing
  std::vector<int> route_vl;        // DFSSSP: lane of each route (every hop on it)
  std::vector<long> routes_per_vl;  // DFSSSP: routes per lane; three-lane: route hops per lane
  bool per_lane_acyclic = false;    // verified after the assignment
  // three-lane only
  std::vector<int> color;  // switch colour = its SL
  int colors_used = 0;
  std::vector<int> route_sl;
};

// (a) DFSSSP-style lane assignment (sec. 5.2, first scheme). Throws UserError when more than
// `vls_available` lanes would be needed. balance: spread routes over the unused lanes.
VlAssignment assign_dfsssp(const Adjacency& adj, const std::vector<Route>& routes, int vls_available,
                           bool balance = true);

// (b) The 3-lane scheme of sec. 5.2 (second scheme). Needs vls_available >= 3, routes of at most 3
// hops and a proper colouring with at most `sls_available` colours; throws UserError otherwise.
// Lanes are split into three disjoint subsets by hop position (lane v serves hop v mod 3); inside a
// subset a route uses lane index SL mod (subset size).
VlAssignment assign_three_lane(const Adjacency& adj, const std::vector<Route>& routes, int vls_available,
                               int sls_available = 16);

// Proper colouring (DSATUR); colour count is not guaranteed minimal.
std::vector<int> color_switches(const Adjacency& adj);
// Exact: a proper colouring with at most max_colours colours by DSATUR backtracking, or an empty
// vector: *proven_impossible = true when none exists, false when step_budget search steps ran out.
// assign_three_lane uses it (budget kExactColouringSteps) when DSATUR needs more colours than there
// are service levels, e.g. 4 SLs on q = 5 (the Hoffman-Singleton graph has chromatic number 4).
inline constexpr long kExactColouringSteps = 2'000'000;
std::vector<int> color_switches_exact(const Adjacency& adj, int max_colours, long step_budget,
                                      bool* proven_impossible = nullptr);

std::string format_vl_assignment(const VlAssignment& a);

}  // namespace lbsim::analysis
