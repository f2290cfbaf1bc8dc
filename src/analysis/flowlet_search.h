// The Flowlet timeout search of [Flowcut] sec. III-C2: the paper compares Flowcut with Flowlet
// switching at three timeouts, "Best" (< 20% of packets out of order), "Balanced" (< 5%) and "Lowest
// OOO" (< 2%). A shorter timeout re-routes more often (better balance, more reordering), so for
// each bound the search looks for the shortest timeout whose run stays below it.
//
// The search bisects in log space between `lo` and `hi` (`steps` halvings per bound) on a function
// timeout -> ooo percentage (a simulation run in `lbsim flowlet-timeouts`). The out-of-order share
// falls with the timeout but not strictly (it is one run per point), so the result is the shortest
// evaluated timeout below the bound, which is what the bisection converges to when it is monotone.
// Evaluations are cached: the three bounds share runs.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace lbsim::analysis {

struct FlowletPick {
  double bound_pct = 0;    // the out-of-order bound (20, 5, 2)
  std::string name;        // Best, Balanced, Lowest OOO
  double timeout_us = -1;  // the shortest evaluated timeout below the bound; -1: none (even hi is above it)
  double ooo_pct = -1;     // its out-of-order percentage
};

struct FlowletSearch {
  std::vector<FlowletPick> picks;
  std::map<double, double> evaluated;  // timeout (us) -> ooo percentage, every run made
};

// The paper's three bounds: Best < 20%, Balanced < 5%, Lowest OOO < 2% (sec. III-C2).
FlowletSearch search_flowlet_timeouts(const std::function<double(double)>& ooo_pct_at, double lo_us, double hi_us,
                                      int steps, const std::vector<double>& bounds_pct = {20, 5, 2});

}  // namespace lbsim::analysis
