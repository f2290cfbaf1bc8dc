// Dragonfly topology generator (Kim et al., ISCA 2008; used by [Spritz] sec. II-A / Table II,
// [Flowcut] sec. III-B and [LAPS] sec. 4.1).
//
// g groups of a switches; every switch has p hosts, a-1 local links (all-to-all inside its group)
// and h global links. Groups are joined by global links arranged by a documented rule
// (docs/topologies.md "Dragonfly"): every pair of groups gets the same number m = a*h / (g-1) of
// global links, or the links are read from an explicit map file.
//
// Node and port layout (what routing and reports may rely on):
//   hosts:    node  ((grp*a + s)*p + k)           label "g<grp>s<s>h<k>", port 0 -> its switch
//   switches: node  num_hosts + grp*a + s         label "g<grp>s<s>", Node::group = grp
//   switch ports [0, p)           hosts k = 0..p-1
//                [p, p+a-1)       local links to the other switches of the group, by switch index
//                [p+a-1, ...)     global links: ordered by (copy r, peer group) for the built-in
//                                 arrangements, in file order for a map file
#pragma once
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "core/time.h"
#include "core/config.h"
#include "topo/topology.h"

namespace lbsim::topo {

struct DragonflyParams {
  int p = 4;   // hosts per switch
  int a = 8;   // switches per group
  int h = 4;   // global links per switch
  int g = -1;  // groups; -1 = canonical a*h + 1 (one global link per group pair)
  // "consecutive" (alias "absolute") or "palmtree"; ignored when global_map_file is set.
  std::string arrangement = "consecutive";
  std::string global_map_file;  // explicit global links, see read_global_map()
  BitsPerSec rate = gbps(400);
  SimTime host_latency = ns(25), local_latency = ns(25), global_latency = ns(500);
};

// One global link: switch `switch_a` (0..a-1) of group `group_a` <-> switch `switch_b` of group
// `group_b`. `line` is the map-file line it came from (0 for generated links).
struct GlobalLinkSpec {
  int group_a = -1, switch_a = -1, group_b = -1, switch_b = -1;
  int line = 0;
};

// Number of groups after applying the canonical default (g = -1 -> a*h + 1).
int dragonfly_groups(const DragonflyParams& prm);

// The global links of a built-in arrangement, in creation order. Throws UserError for invalid
// parameters (e.g. a*h global ports per group not divisible by g-1).
std::vector<GlobalLinkSpec> dragonfly_global_links(const DragonflyParams& prm);

// Parses a global-link map: one link per line "group_a switch_a group_b switch_b"; '#' starts a
// comment; blank lines are ignored. `name` is used in error messages ("name:line: ...").
// Checks syntax and ranges against p/a/h/g of `prm`; structural checks are done by the builder.
std::vector<GlobalLinkSpec> parse_global_map(std::istream& in, const std::string& name, const DragonflyParams& prm);
std::vector<GlobalLinkSpec> read_global_map(const std::string& path, const DragonflyParams& prm);

Topology build_dragonfly(const DragonflyParams& prm);

// The Dragonfly keys of a config (topology.p, a, h, g, arrangement, global_map, rates, latencies).
DragonflyParams dragonfly_params(const config::Config& c);

}  // namespace lbsim::topo
