// Topology-specific adversarial traffic ([Spritz] sec. V-B a): "the adversarial pattern, which is
// specific to each topology [49], [50]. It is designed to stress the network by overloading specific
// links, exposing cases where minimal routing performs poorly") and the permutation whose receivers
// are preferably outside the sender's group. Pure functions of (topology, params, seed); all draw
// from Rng(seed, hash_name("adversarial"), 0). Constructions: docs/topologies.md.
//
// Only the inline parts of topo/topology.h are used (node/port arrays), so this stays a data-level
// dependency of the workload layer on the neutral graph.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/time.h"
#include "topo/topology.h"
#include "workload/flow_spec.h"

namespace lbsim::workload {

struct AdversarialParams {
  Bytes bytes = 1 << 20;  // per flow
  SimTime start = 0;
  std::string tag;  // tag for the flows ("" = "default")
  std::string lb;   // per-flow load balancer ("" = run default)
};

// Dragonfly group shift (Kim et al. 2008 "worst case", [Spritz] [49]): every host of group i
// sends to a host of group (i + shift) mod g; within a group pair the host matching is a seeded
// random bijection, so the result is a permutation. Under minimal routing all a*p flows of a group
// share its m global links to the next group (a*p/m flows per global link).
Workload make_dragonfly_group_shift(const topo::Topology& t, const AdversarialParams& p, std::uint64_t seed,
                                    int shift = 1);

// Slim Fly adversarial (Besta & Hoefler SC'14 style, [Spritz] [50]): every switch sends all its
// hosts' flows to one switch at distance 2, chosen so that minimal paths share links. Switches are
// arranged along a cycle v_0 .. v_{n-1} of the switch graph in which v_i and v_{i+2} are at distance
// 2 with v_{i+1} as their only common neighbour; the hosts of v_i send to the hosts of v_{i+2}
// (seeded bijection). Every such flow has the single minimal path v_i -> v_{i+1} -> v_{i+2}, and each
// cycle link v_{i+1} -> v_{i+2} carries the p flows of v_i (second hop) plus the p flows of v_{i+1}
// (first hop): 2p flows per loaded link under minimal routing, against p for any pattern in which
// each switch's flows share only their first hop. When no closed cycle is found (large q), the
// longest path found is used and the few switches left over are matched to targets at distance 2.
// Throws UserError if some switch cannot get a target at distance 2.
Workload make_slim_fly_adversarial(const topo::Topology& t, const AdversarialParams& p, std::uint64_t seed);

// The construction behind make_slim_fly_adversarial (switch indices), exposed for tests/reports.
struct SlimFlyAdversarialPlan {
  std::vector<std::int32_t> cycle;  // v_0 .. v_{L-1} (a closed cycle when `closed`)
  bool closed = false;
  std::vector<std::int32_t> target;  // target[s] = switch the hosts of s send to
};
SlimFlyAdversarialPlan slim_fly_adversarial_plan(const topo::Topology& t, std::uint64_t seed);

// Random permutation (every host sends to exactly one host and receives from exactly one, never
// itself) whose receivers are outside the sender's group whenever possible ([Spritz] sec. V-B a:
// "We further prioritize the receiver to be outside the local group to force utilization of global
// links"). Group of a host = group of its switch (Dragonfly group, Slim Fly rack), or the switch
// itself when the switch has no group. If one group holds more than half of the hosts, some
// receivers must stay inside; the rest are still placed outside.
Workload make_permutation_outside_group(const topo::Topology& t, const AdversarialParams& p, std::uint64_t seed);

// Group used by make_permutation_outside_group for host `h`.
std::int32_t host_group(const topo::Topology& t, std::int32_t h);

}  // namespace lbsim::workload
