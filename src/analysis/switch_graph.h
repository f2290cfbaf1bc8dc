// The switch graph `lbsim layers` and `lbsim mat` route on: any topology of the config
// (`topology.kind`, built by its plug-in), reduced to its undirected switch adjacency.
#pragma once
#include <string>

#include "core/config.h"
#include "routing/layered.h"
#include "topo/topology.h"

namespace lbsim::analysis {

struct SwitchGraph {
  routing::Adjacency adj;        // normalized (routing::normalize_graph): sorted, no parallel links
  int endpoints_per_switch = 0;  // the most hosts any switch has (all of them for direct networks)
  std::string description;       // e.g. "slim_fly q=5: 50 switches, k'=7, p=4"
};

// Switch indices are the topology's (Topology::switch_node(i)); for Slim Fly that is the MMS index
// (topo/slim_fly.h), so tables and LFTs name the same switches as the cabling plan.
SwitchGraph switch_graph(const topo::Topology& t);
// The topology of the config (topo::build_topology), as a switch graph.
SwitchGraph switch_graph(const config::Config& cfg);

}  // namespace lbsim::analysis
