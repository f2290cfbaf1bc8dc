// Flow-size distributions given as piecewise-linear CDFs.
//
// File format (HPCC/ns-3 traffic_gen, the format behind the WebSearch/Hadoop/Storage/RPC workloads of
// [LAPS] sec. 4.1 and the web-search traces of [REPS] App. D and [Spritz] sec. V-B c)): one
// point per line, `<size_bytes> <cdf>`, where cdf is a percentage (0..100) or a fraction (0..1);
// '#' starts a comment. Between points the CDF is linear, i.e. the size is uniform between two
// consecutive sizes with the probability mass of the step. The first point's cdf is a point mass at
// its size (usually `0 0`, i.e. none). The last point must reach 100% (or 1).
//
// Non-monotone input is never accepted silently: in Reject mode it is an error naming the line; in
// Repair mode the value is raised to the running maximum and a warning naming the line is returned.
#pragma once
#include <cstdint>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

#include "core/rng.h"
#include "core/time.h"

namespace lbsim::workload {

enum class CdfScale { kAuto, kPercent, kFraction };
enum class CdfRepair { kReject, kRepair };

struct CdfOptions {
  // kAuto: percent if any cdf value exceeds 1, else fraction (a percent file always ends at 100).
  CdfScale scale = CdfScale::kAuto;
  CdfRepair repair = CdfRepair::kReject;
};

struct CdfPoint {
  double bytes = 0;
  double p = 0;  // cumulative probability in [0, 1]
};

class FlowSizeCdf {
 public:
  FlowSizeCdf() = default;
  // Points must be monotone in both coordinates and end at p = 1; throws UserError otherwise.
  FlowSizeCdf(std::vector<CdfPoint> points, std::string name);

  const std::vector<CdfPoint>& points() const { return pts_; }
  const std::string& name() const { return name_; }

  // Inverse CDF for u in [0, 1]: linear interpolation between the two points around u.
  double quantile(double u) const;
  // P(size <= bytes).
  double cdf(double bytes) const;
  // Inverse-transform sample rounded to whole bytes, at least 1 byte (a 0-byte flow would carry
  // nothing; the clamp changes the mean by less than one byte times P(size < 0.5)).
  Bytes sample(Rng& rng) const;
  // Analytic moments of the piecewise-linear CDF: point mass p0 at x0, then for every step a uniform
  // size on [x_{i-1}, x_i] with mass p_i - p_{i-1}: mean = p0 x0 + sum dp (a + b) / 2,
  // E[X^2] = p0 x0^2 + sum dp (a^2 + ab + b^2) / 3.
  double mean() const;
  double second_moment() const;

 private:
  std::vector<CdfPoint> pts_;
  std::string name_;
};

struct CdfParseResult {
  FlowSizeCdf cdf;
  std::vector<std::string> warnings;  // one per repaired line: "<file>:<line>: ..."
  double scale = 1.0;                 // the file's cdf at 100%: 100 for a file in percent, 1 for fractions
};

CdfParseResult parse_cdf(std::istream& in, std::string_view name, const CdfOptions& opt = {});
CdfParseResult read_cdf_file(const std::string& path, const CdfOptions& opt = {});

// Built-in distributions, written from the published CDFs (sources cited in cdf.cpp):
// "websearch", "datamining", "hadoop", "alistorage", "googlerpc", "enterprise".
// Names are case-insensitive; throws UserError listing the valid names otherwise.
FlowSizeCdf builtin_cdf(std::string_view name);
std::vector<std::string> builtin_cdf_names();

// A built-in name, or else a path to a CDF file.
CdfParseResult load_cdf(const std::string& name_or_path, const CdfOptions& opt = {});

}  // namespace lbsim::workload
