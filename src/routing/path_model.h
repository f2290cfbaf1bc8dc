// One-way latency of a packet from host a to host b along a shortest path (per-hop serialization +
// propagation + switch latency): the base RTT, the RTO and the ideal FCT of every flow come from it.
//
// The path is the lexicographically smallest shortest path by output-port sequence from the source
// switch: the one a breadth-first search from the source switch (ports in order, first discovery
// wins) records as its tree path. It is walked through the min-hop tables (MinimalTables), taking
// the first (lowest) candidate port at every switch, so the model holds no state of its own
// (docs/scale.md; it used to keep a BFS parent link per switch pair).
#pragma once
#include <cstdint>
#include <span>
#include <vector>

#include "core/time.h"
#include "routing/tables.h"
#include "topo/topology.h"

namespace lbsim::routing {

class PathModel {
 public:
  PathModel(const MinimalTables& tables, SimTime switch_latency);
  SimTime one_way(std::int32_t src_host, std::int32_t dst_host, Bytes bytes) const;
  // FCT of a `bytes` message alone on an idle network (NIC streams MTU packets back to back; exact
  // when every link on the path has the same rate, a lower bound otherwise).
  SimTime ideal_fct(std::int32_t src_host, std::int32_t dst_host, Bytes bytes, Bytes mtu, Bytes header) const;
  // Links of the shortest path used (host link first).
  std::vector<std::int32_t> path_links(std::int32_t src_host, std::int32_t dst_host) const;

  // The largest unloaded round trip over ordered pairs of distinct entries of `hosts`: a
  // `data`-byte packet a -> b plus an `ack`-byte packet b -> a, both by one_way(). Returns the first
  // pair in (a, b) order over `hosts` that attains it, exactly as the loop over all pairs would, in
  // about two table lookups per pair instead of two path walks (docs/scale.md). Throws as
  // path_links() does for the first pair that cannot reach each other.
  struct Farthest {
    SimTime rtt = 0;
    std::int32_t a = -1, b = -1;
  };
  Farthest farthest_pair(std::span<const std::int32_t> hosts, Bytes data, Bytes ack) const;

 private:
  const MinimalTables& tables_;
  const topo::Topology& t_;
  SimTime sw_lat_;
};

}  // namespace lbsim::routing
