// One-way latency of a packet from host a to host b along a shortest path (per-hop serialization +
// propagation + switch latency): the base RTT, the RTO and the ideal FCT of every flow come from it.
#pragma once
#include <cstdint>
#include <vector>

#include "core/time.h"
#include "topo/topology.h"

namespace lbsim::routing {

class PathModel {
 public:
  PathModel(const topo::Topology& t, SimTime switch_latency);
  SimTime one_way(std::int32_t src_host, std::int32_t dst_host, Bytes bytes) const;
  // FCT of a `bytes` message alone on an idle network (NIC streams MTU packets back to back; exact
  // when every link on the path has the same rate, a lower bound otherwise).
  SimTime ideal_fct(std::int32_t src_host, std::int32_t dst_host, Bytes bytes, Bytes mtu, Bytes header) const;
  // Links of the shortest path used (host link first).
  std::vector<std::int32_t> path_links(std::int32_t src_host, std::int32_t dst_host) const;

 private:
  const topo::Topology& t_;
  SimTime sw_lat_;
  // [src switch index][switch index] -> the link towards src on the shortest path (-1: src or unreachable)
  std::vector<std::vector<std::int32_t>> parent_link_;
};

}  // namespace lbsim::routing
