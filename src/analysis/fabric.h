// The physical InfiniBand fabric that forwarding tables are written for: switches and endpoints (HCA
// ports) with their GUIDs and node descriptions, and which numbered port is cabled to what.
//
// One port model ([SlimFly] sec. 3.2-3.3, 5.1): a forwarding entry port[l][s][d] (sec. 5.1) must
// name the physical port of switch s that the cabling connects to its next hop. The Fabric is the
// only place the LFT writer (analysis/opensm.h) takes port numbers from:
//  * Slim Fly: the cabling plan (CablingPlan, Fig. 4 numbering: endpoints 1..p, intra-rack, then one
//    port per other rack). The plan reads that numbering from topo::build_slim_fly's port order
//    (physical port = Topology port + 1), which the packet engine's `layered` router uses too;
//  * any other topology: the Topology's port order (physical port = Topology port + 1);
//  * a discovered fabric (ibnetdiscover or LST dump, mapped onto the plan by `cabling verify`'s
//    switch mapping): the ports the dump reports, with the real GUIDs.
// Switch i of a Fabric is switch i of the layers (routing::RoutingLayers), i.e. the topology's (for
// Slim Fly the MMS index of the plan).
#pragma once
#include <map>
#include <string>
#include <vector>

#include "analysis/cabling.h"
#include "routing/layered.h"
#include "topo/topology.h"

namespace lbsim::analysis {

struct FabricPort {
  enum Kind : char { None = 0, Switch = 'S', Endpoint = 'H' };
  Kind kind = None;
  int peer = -1;      // switch index or endpoint index
  int peer_port = 0;  // the peer's port (1 for an HCA port)
};

struct FabricSwitch {
  std::string name;               // planned name (sf-S-R-I) or the topology's label
  std::string guid;               // node GUID = port 0 GUID, 16 lowercase hex digits
  std::string desc;               // NodeDescription
  std::vector<FabricPort> ports;  // [0] = management port 0 (never cabled), [1..nports]
  int nports() const { return static_cast<int>(ports.size()) - 1; }
};

struct FabricEndpoint {
  std::string name;       // host name
  std::string node_guid;  // CA node GUID
  std::string port_guid;  // the GUID OpenSM keys LIDs by (guid2lid, LFT portguid)
  std::string desc;
  int sw = -1, port = 0;  // the switch port the HCA is cabled to
};

class Fabric {
 public:
  std::string source;  // "plan", "topology" or the dump's file name
  std::vector<FabricSwitch> switches;
  std::vector<FabricEndpoint> endpoints;  // in (switch, port) order

  // Builds the lookup behind port_to(); call after filling switches.
  void index();
  // The lowest port of switch s cabled to switch `neighbour`; -1 when there is none.
  int port_to(int s, int neighbour) const;
  // The switch graph (parallel cables collapse), as routing::normalize_graph would give it.
  routing::Adjacency switch_graph() const;
  int num_switches() const { return static_cast<int>(switches.size()); }
  int num_endpoints() const { return static_cast<int>(endpoints.size()); }

 private:
  std::vector<std::vector<std::pair<int, int>>> neighbour_port_;  // per switch: sorted (neighbour, port)
};

// The planned fabric with the plan's deterministic GUIDs (those of emit_ibnetdiscover).
Fabric fabric_from_plan(const CablingPlan& plan);
// Any topology: switch s has ports 1..n in Topology port order; GUIDs derived from the indices.
Fabric fabric_from_topology(const topo::Topology& t);
// A discovered fabric mapped onto the plan (map_switches: mapping file, then node descriptions).
// Every planned switch must be discovered and every planned switch-switch link cabled (on any
// ports: the tables follow the discovered ports); otherwise a UserError lists what is missing and
// points at `lbsim cabling verify`. Endpoints are the CA ports found on the mapped switches.
Fabric fabric_from_discovery(const CablingPlan& plan, const IbFabric& dump,
                             const std::map<std::string, std::string>* name_map = nullptr);

}  // namespace lbsim::analysis
