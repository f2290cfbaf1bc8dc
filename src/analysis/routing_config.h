// Minimal config reader for `lbsim layers` and `lbsim mat` (stand-in until the project's config
// loader covers them). Slim Fly files are read with the toolkit's reader
// (analysis/toolkit_config.h, shared with `lbsim cabling` / `lbsim scale`, so one file serves all
// toolkit commands; its [cabling] and [cost.*] tables are accepted and ignored here). Accepted TOML:
//
//   [topology]
//   kind = "slim_fly"   # "slim_fly" (MMS graph, [SlimFly] App. A), or for small
//                       # experiments "ring" / "complete" (n switches)
//   q = 5               # slim_fly: prime power with q % 4 != 2 (required)
//   n = 8               # ring / complete: number of switches (required there)
//   p = 4               # endpoints per switch; default ceil(k'/2) (full global bandwidth, sec. 3.2)
//
// Unknown tables or keys and wrong types are lbsim::UserError naming file, line and key.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "routing/layered.h"

namespace lbsim::analysis {

// The layered-routing types (routing/layered.h) the analyses work on.
using routing::Adjacency;
using routing::LayerOptions;
using routing::LidPlan;
using routing::RoutingLayers;

struct RoutingConfig {
  std::string source = "<defaults>";
  std::string kind = "slim_fly";
  int q = -1;  // slim_fly
  int n = -1;  // ring / complete
  int p = -1;  // endpoints per switch; -1 = ceil(k'/2)
};

RoutingConfig parse_routing_config(std::string_view text, const std::string& name);
RoutingConfig load_routing_config(const std::string& path);

// The switch graph and endpoints per switch described by the config.
struct SwitchGraph {
  Adjacency adj;
  int endpoints_per_switch = 0;
  std::string description;  // e.g. "slim_fly q=5: 50 switches, k'=7, p=4"
};
SwitchGraph build_switch_graph(const RoutingConfig& cfg);

}  // namespace lbsim::analysis
