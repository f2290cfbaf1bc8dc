// The `layered` routing plug-in for the packet simulator ([SlimFly] sec. 4-5): the
// layers of analysis/layered.h (Algorithm 1 / App. B, or the RUES / FatPaths baselines) as
// per-layer destination-based forwarding tables port[l][s][d]. Each packet carries its layer,
// chosen by the sender: layer = EV mod L, so `lb.algorithm = "rr"` gives round-robin layers per
// packet, `ops` random layers per packet, `ecmp` one layer per flow, and any other load balancer
// picks layers through its EVs (as InfiniBand multipath does with the LID offset, sec. 5.1).
// It lives in `sim` rather than `routing` because the layer construction is in `analysis`, which
// depends on `routing`.
#pragma once
#include <cstdint>
#include <vector>

#include "routing/layered.h"
#include "net/network.h"
#include "topo/topology.h"

namespace lbsim::routing {

class LayeredRouter final : public net::Router {
 public:
  LayeredRouter(const topo::Topology& t, RoutingLayers layers);
  std::int32_t route(std::int32_t node, net::Packet& p) override;
  const RoutingLayers& layers() const { return layers_; }

 private:
  const topo::Topology& t_;
  RoutingLayers layers_;
  std::size_t nsw_;
  std::vector<std::int16_t> port_to_;  // [s * nsw + neighbour switch] -> local port at s
  std::vector<std::int16_t> host_port_;
};

}  // namespace lbsim::routing
