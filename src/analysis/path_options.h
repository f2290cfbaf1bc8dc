// The [paths] keys: which bounded simple paths `lbsim paths` enumerates ([Spritz] sec. III,
// Table I; topo/paths.h), and the packet whose serialization Table I latencies include.
#pragma once
#include "core/config.h"
#include "topo/paths.h"

namespace lbsim::analysis {

// paths.rule and paths.max_hops; packet_bytes = network.mtu + network.header_bytes (the full data
// packet of a run, [Spritz] Table II: 4096 + 64 B); rate 0 = each link's own rate.
topo::PathOptions path_options(const config::Config& cfg);

}  // namespace lbsim::analysis
