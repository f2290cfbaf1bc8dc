#include "analysis/flowlet_search.h"

#include <cmath>

#include "core/error.h"

namespace lbsim::analysis {

FlowletSearch search_flowlet_timeouts(const std::function<double(double)>& ooo_pct_at, double lo_us, double hi_us,
                                      int steps, const std::vector<double>& bounds_pct) {
  if (!(lo_us > 0) || !(hi_us > lo_us)) throw UserError("flowlet timeout search: need 0 < lo < hi (us)");
  if (steps < 1 || steps > 30) throw UserError("flowlet timeout search: steps must be in [1, 30]");
  FlowletSearch out;
  const auto eval = [&](double t) {
    auto it = out.evaluated.find(t);
    if (it != out.evaluated.end()) return it->second;
    const double v = ooo_pct_at(t);
    out.evaluated.emplace(t, v);
    return v;
  };
  for (const double bound : bounds_pct) {
    FlowletPick pick;
    pick.bound_pct = bound;
    pick.name = bound >= 20 ? "Best" : bound >= 5 ? "Balanced" : "Lowest OOO";
    if (eval(hi_us) < bound) {
      // Invariant: ooo(hi) < bound; bisect towards the shortest such timeout.
      double lo = lo_us, hi = hi_us;
      if (eval(lo) < bound) {
        hi = lo;
      } else {
        for (int s = 0; s < steps; ++s) {
          const double mid = std::sqrt(lo * hi);
          if (eval(mid) < bound)
            hi = mid;
          else
            lo = mid;
        }
      }
      // The shortest evaluated timeout below the bound (a non-monotone point may beat the bisection's).
      for (const auto& [t, v] : out.evaluated)
        if (v < bound) {
          pick.timeout_us = t;
          pick.ooo_pct = v;
          break;
        }
    }
    out.picks.push_back(pick);
  }
  return out;
}

}  // namespace lbsim::analysis
