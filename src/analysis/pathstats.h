// Path analyses of a set of routing layers ([SlimFly] sec. 6.1-6.3): path lengths
// (Fig. 6), paths per link (Fig. 7), disjoint paths per switch pair (Fig. 8).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "routing/layered.h"

namespace lbsim::analysis {

// The layered-routing types (routing/layered.h) the analyses work on.
using routing::Adjacency;
using routing::LayerOptions;
using routing::RoutingLayers;

struct PathStats {
  int layers = 0;  // statistics use layers 0..layers-1
  int switches = 0;
  long pairs = 0;  // ordered switch pairs s != d

  // sec. 6.1: per ordered pair, the average and the maximum length (hops) of its `layers` routes.
  double mean_of_avg_length = 0;  // mean over pairs of the per-pair average
  double mean_of_max_length = 0;
  int max_length = 0;                      // over all pairs and layers
  std::map<int, long> max_length_hist;     // max length -> pairs
  std::map<double, long> avg_length_hist;  // per-pair average rounded down to 0.25 -> pairs
  long non_minimal_not_3 = 0;              // routes longer than minimal whose length is not exactly 3

  // sec. 6.2 / Fig. 7: routes (over all layers and ordered pairs) crossing each directed link.
  std::vector<long> paths_per_link;          // indexed like the directed links below
  std::map<long, long> paths_per_link_hist;  // bin start (multiples of bin) -> links
  long link_bin = 20;                        // Fig. 7 uses bins of 20
  long min_paths_per_link = 0, max_paths_per_link = 0;
  double mean_paths_per_link = 0, stddev_paths_per_link = 0;

  // sec. 6.3 / Fig. 8: the largest number of pairwise link-disjoint paths among a pair's distinct
  // layer paths (two paths are disjoint if they share no link, either direction).
  std::map<int, long> disjoint_hist;  // disjoint paths -> pairs
  double share_at_least_3_disjoint = 0;
  double mean_distinct_paths = 0;  // distinct paths per pair
};

// Computes all statistics over the first `layers` layers of r (all when layers <= 0).
PathStats compute_path_stats(const RoutingLayers& r, int layers = 0, long link_bin = 20);

// Largest set of pairwise link-disjoint paths in `paths` (exact; paths as switch sequences).
int max_disjoint_paths(const std::vector<std::vector<int>>& paths);

std::string format_path_stats(const PathStats& s);
}  // namespace lbsim::analysis
