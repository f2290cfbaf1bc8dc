// Small statistics helpers shared by metrics and analyses.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace lbsim {

// Where percentile p (in [0, 100]) of n sorted samples lies: between the order statistics lo and hi
// (0-based), `frac` of the way from lo. metrics::distribution_of selects the same two values without
// sorting, so both give the same double.
struct PercentileRanks {
  std::uint64_t lo = 0, hi = 0;
  double frac = 0;
  double interpolate(double at_lo, double at_hi) const { return at_lo + (at_hi - at_lo) * frac; }
};
inline PercentileRanks percentile_ranks(std::uint64_t n, double p) {
  const double rank = p / 100.0 * static_cast<double>(n - 1);
  PercentileRanks r;
  r.lo = static_cast<std::uint64_t>(std::floor(rank));
  r.hi = static_cast<std::uint64_t>(std::ceil(rank));
  r.frac = rank - static_cast<double>(r.lo);
  return r;
}

// Percentile with linear interpolation between closest ranks (p in [0, 100]); 0 for no samples.
inline double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  if (v.size() == 1) return v[0];
  const auto r = percentile_ranks(v.size(), p);
  return r.interpolate(v[r.lo], v[r.hi]);
}

inline double mean(const std::vector<double>& v) {
  if (v.empty()) return 0.0;
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

}  // namespace lbsim
