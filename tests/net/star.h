// A one-switch network for engine and transport unit tests: `hosts` hosts on one switch (400 Gb/s,
// 100 ns links) and a router that sends every packet straight to its destination's port.
#pragma once
#include <string>

#include "net/network.h"
#include "topo/topology.h"

namespace lbsim::test {

inline topo::Topology star(int hosts) {
  topo::Topology t;
  t.kind = "star";
  for (int h = 0; h < hosts; ++h) t.add_host("h" + std::to_string(h));
  const auto sw = t.add_switch("sw");
  for (int h = 0; h < hosts; ++h) t.connect(h, sw, gbps(400), ns(100), topo::LinkKind::HostLink);
  return t;
}

struct ToDst : net::Router {
  const topo::Topology& t;
  explicit ToDst(const topo::Topology& topo) : t(topo) {}
  std::int32_t route(std::int32_t, net::Packet& p) override { return t.ports[p.dst][0].peer_port; }
};

}  // namespace lbsim::test
