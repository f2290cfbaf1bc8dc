// The small TOML configuration read by `lbsim paths` (docs/topologies.md "lbsim paths").
// It names a Dragonfly or Slim Fly and the network parameters that set Table I latencies
// ([Spritz] sec. III-C, Table II); the topo layer itself stays free of TOML.
//
//   [topology]
//   kind = "dragonfly"          # or "slim_fly"
//   p = 4                       # dragonfly: p, a, h, g, arrangement, global_map; slim_fly: q, p
//   a = 8
//   h = 4
//   [network]
//   rate_gbps = 400             # every link
//   host_latency_ns = 25
//   local_latency_ns = 25
//   global_latency_ns = 500
//   mtu = 4096                  # payload bytes; packet = mtu + header_bytes
//   header_bytes = 64
//   [paths]
//   rule = "auto"               # auto | dragonfly | valiant | simple
//   max_hops = -1
//
// Unknown sections/keys, keys of the other topology kind and wrongly typed values are UserErrors
// that name the file, the line and the key.
#pragma once
#include <string>
#include <string_view>

#include "topo/dragonfly.h"
#include "topo/paths.h"
#include "topo/slim_fly.h"
#include "topo/topology.h"

namespace lbsim::cli {

struct PathsConfig {
  std::string kind = "dragonfly";  // "dragonfly" | "slim_fly"
  topo::DragonflyParams dragonfly;
  topo::SlimFlyParams slim_fly;
  Bytes mtu = 4096;
  Bytes header_bytes = 64;
  topo::PathOptions paths;  // packet_bytes = mtu + header_bytes, rate 0 = link rate
};

// `name` is the file name used in messages; relative global_map paths resolve against `base_dir`.
PathsConfig parse_paths_config(std::string_view text, const std::string& name,
                               const std::string& base_dir = "");
PathsConfig read_paths_config(const std::string& file);

topo::Topology build_paths_topology(const PathsConfig& cfg);

}  // namespace lbsim::cli
