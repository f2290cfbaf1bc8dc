// ECMP over the bounded simple paths ([Spritz] sec. V-A "ECMP: Each flow is assigned to a fixed
// path based on its five-tuple (Section II-A). Assigned paths may be minimal or non-minimal.").
// The source switch hashes (src, dst, flow, EV, switch salt) onto one of the bounded paths of
// topo/paths.h between the source and destination switch (Table I's set) and the packet follows it;
// with a fixed EV per flow (lb.algorithm = "ecmp") every flow keeps one path, a sender that varies the
// EV (e.g. OPS) sprays over the whole set. The paths are the same at every switch role, so a sender
// cannot tell which EV leads where - unlike Spritz's source-guided routing (routing/source_guided.h).
#pragma once
#include <cstdint>

#include "routing/bounded_paths.h"

namespace lbsim::routing {

class EcmpPathsRouter final : public PathRouterBase {
 public:
  EcmpPathsRouter(const MinimalTables& tables, std::uint64_t seed) : PathRouterBase(tables, seed) {}
  std::int32_t route(std::int32_t node, net::Packet& p) override {
    const std::int32_t dst_sw = host_switch(p.dst);
    if (node == dst_sw) return tables_.host_port(p.dst);
    if (p.route_state == 0) {
      const auto& pr = paths_.pair(node, dst_sw);
      if (pr.count == 0) {
        p.route_state = kRouteMinimal;
      } else {
        const auto i = static_cast<std::uint32_t>(ecmp_hash(p.src, p.dst, p.flow, p.ev, salt_[node]) % pr.count);
        start_path(p, pr.first + i);
      }
    }
    return forward(node, p, nullptr);
  }
};

}  // namespace lbsim::routing
