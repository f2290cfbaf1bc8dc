// Fat trees ([REPS] sec. 4.1): 2 tiers (ToR + spine) or 3 tiers (ToR + aggregation + core, in
// pods), with an oversubscription ratio r:1 at the ToR (downlinks = r x uplinks).
#pragma once
#include "core/config.h"
#include "topo/topology.h"

namespace lbsim::topo {

struct FatTreeParams {
  int hosts = 128;
  int tiers = 2;             // 2 or 3
  int radix = 16;            // switch port count k
  int hosts_per_tor = 0;     // 0 = k/2
  int oversubscription = 1;  // r in r:1; ToR uplinks = hosts_per_tor / r
  BitsPerSec host_rate = gbps(400), tier1_rate = gbps(400), tier2_rate = gbps(400);
  SimTime host_latency = ns(500), tier1_latency = ns(500), tier2_latency = ns(500);
};

// Layout:
//  2 tiers: T = ceil(hosts / hosts_per_tor) ToRs, U = hosts_per_tor / r spines; every ToR has one
//           link to every spine (needs T <= k).
//  3 tiers: pods of k/2 ToRs and U aggregation switches (one link from every ToR of the pod to every
//           aggregation switch); aggregation switch j of every pod links to the k/2 cores of core
//           group j (U groups of k/2 cores), so every core reaches every pod once (needs pods <= k).
// The last ToR (and pod) may be partly filled when hosts is not a multiple.
// Throws UserError for impossible combinations, with the reason.
Topology build_fat_tree(const FatTreeParams& p);

// The fat-tree keys of a config (topology.hosts, radix, ... ).
FatTreeParams fat_tree_params(const config::Config& c);

}  // namespace lbsim::topo
