// Adaptive (least-queued) switch routing (src/routing/adaptive.h) and the failure mask (src/routing/failure_mask.h).
#include <gtest/gtest.h>

#include <set>

#include "../sim/helpers.h"
#include "routing/adaptive.h"
#include "routing/failure_mask.h"
#include "routing/ecmp.h"
#include "routing/registry.h"
#include "routing/tables.h"

using namespace lbsim;

namespace {
struct Fixture {
  topo::Topology t = topo::build_topology(test::small_fat_tree());
  routing::MinimalTables tables{t};
  net::Network net{t, net::NetConfig{}, 1};
  std::int32_t tor0 = t.host_switch(0);
  net::Packet pkt(std::uint32_t psn) {
    net::Packet p;
    p.src = 0;
    p.dst = 127;  // another ToR: 8 up-ports are candidates
    p.psn = psn;
    return p;
  }
};
}  // namespace

// With every up-port of tor0 holding bytes except one, each packet goes to the empty one; with
// all empty, packets spread over several ports (per-packet tie-break).
TEST(AdaptiveRouting, PicksLeastQueuedCandidate) {
  Fixture f;
  const auto c = f.tables.candidates(f.tor0, f.t.host_switch(127));
  ASSERT_EQ(c.size(), 8u);
  routing::AdaptiveRouter r(f.tables, f.net, 1);
  std::set<std::int32_t> spread;
  for (std::uint32_t psn = 0; psn < 64; ++psn) {
    auto p = f.pkt(psn);
    spread.insert(r.route(f.tor0, p));
  }
  EXPECT_GE(spread.size(), 6u);
  for (std::size_t k = 0; k < c.size(); ++k) f.net.port(f.net.port_id(f.tor0, c[k])).data.bytes = 10000 + 100 * k;
  f.net.port(f.net.port_id(f.tor0, c[5])).data.bytes = 0;
  for (std::uint32_t psn = 0; psn < 16; ++psn) {
    auto p = f.pkt(psn);
    EXPECT_EQ(r.route(f.tor0, p), c[5]);
  }
  f.net.port(f.net.port_id(f.tor0, c[5])).data.bytes = 20000;  // now c[0] (10000 B) is the least
  auto p = f.pkt(3);
  EXPECT_EQ(r.route(f.tor0, p), c[0]);
  for (auto port : c) f.net.port(f.net.port_id(f.tor0, port)).data.bytes = 0;
}

// The failure mask re-hashes packets away from dead ports and returns -1 when none is left.
TEST(AdaptiveRouting, FailureMaskAvoidsDeadPorts) {
  Fixture f;
  routing::EcmpRouter ecmp(f.tables, 1);
  routing::FailureMaskRouter mask(ecmp, f.tables, f.net, 1);
  const auto c = f.tables.candidates(f.tor0, f.t.host_switch(127));
  for (std::size_t k = 0; k + 1 < c.size(); ++k) mask.set_dead(f.net.port_id(f.tor0, c[k]), true);
  EXPECT_EQ(mask.dead_ports(), 7u);
  for (std::uint32_t ev = 0; ev < 32; ++ev) {
    auto p = f.pkt(0);
    p.ev = ev;
    EXPECT_EQ(mask.route(f.tor0, p), c.back());
  }
  mask.set_dead(f.net.port_id(f.tor0, c.back()), true);
  auto p = f.pkt(0);
  EXPECT_EQ(mask.route(f.tor0, p), -1);
  for (auto port : c) mask.set_dead(f.net.port_id(f.tor0, port), false);
  EXPECT_EQ(mask.dead_ports(), 0u);
}
