// Slim Fly: the McKay-Miller-Siran (MMS) graph of diameter 2 ([SlimFly] sec. 2, 3.2
// and App. A; Besta & Hoefler, SC'14) and the simulator topology built on it.
//
// Switch labels (s, x, y) in {0,1} x GF(q) x GF(q). Edges (App. A.3, eqs. 1-3):
//   (0,x,y) ~ (0,x,y')  iff  y - y' in X
//   (1,m,c) ~ (1,m,c')  iff  c - c' in X'
//   (0,x,y) ~ (1,m,c)   iff  y = m*x + c
// Racks (sec. 3.2, App. A.4): rack r holds the subgraph-0 group x = r and the subgraph-1 group m = r
// (2q switches). Link-kind rule used by build_slim_fly: links inside a rack (intra-subgroup links and
// the one link between the two subgroups of the rack) are LinkKind::Local (copper, sec. 3.1),
// links between racks are LinkKind::Global (optical fibre). Every switch has (q - delta)/2 + 1 local
// and q - 1 global links, one to each other rack.
#pragma once
#include <array>
#include <vector>

#include "core/time.h"
#include "core/config.h"
#include "topo/topology.h"

namespace lbsim::topo {

struct MmsGraph {
  int q = 0, delta = 0, w = 0;              // q = 4w + delta, delta in {-1,0,1}
  std::vector<int> X, Xp;                   // generator sets X and X' (field elements in the GF(q) encoding
                                            // of topo/galois.h; for prime q the residues themselves)
  std::vector<std::vector<int>> adj;        // switch adjacency; index = s*q*q + x*q + y
  int xi = 0;                               // (extra) the primitive element of GF(q) used to build X and X'
  int degree() const;                       // k' = (3q - delta)/2
  std::array<int, 3> label(int idx) const;  // (s, x, y)
  int index(int s, int x, int y) const;
  int num_switches() const { return 2 * q * q; }
  // Rack of a switch: x for (0,x,y), m for (1,m,c) (App. A.4).
  int rack(int idx) const { return label(idx)[1]; }
};

// Throws lbsim::UserError if q is not a prime power or q % 4 == 2 (no MMS graph then).
MmsGraph build_mms_graph(int q);

// delta for a valid q (q = 4w + delta); throws UserError otherwise.
int slim_fly_delta(int q);
// True iff q is a prime power with q % 4 != 2 (and q >= 3).
bool valid_slim_fly_q(int q);

struct SlimFlyParams {
  int q = 5;
  int p = -1;  // hosts per switch; -1 = ceil(k'/2) (full global bandwidth, App. A.1)
  BitsPerSec rate = gbps(400);
  // Defaults from [Spritz] Table II: 5 m copper inside a rack, 100 m fibre between racks.
  SimTime host_latency = ns(25), local_latency = ns(25), global_latency = ns(500);
};

// Switch index i (Topology::switch_node(i)) == MMS index i; hosts first, p per switch in switch
// order (host h is attached to switch h / p). Node group = rack, tier 1, label "sw(s,x,y)".
Topology build_slim_fly(const SlimFlyParams&);

// Valid q values whose Slim Fly with p = ceil(k'/2) gives at least/near `hosts` endpoints
// (App. A.5: cube root of N, nearby prime powers, compare sizes). Sorted by |hosts - wanted|, ties
// to the larger network.
struct SlimFlySize {
  int q, delta, k_prime, p, switches, hosts, radix;
};
SlimFlySize slim_fly_size(int q, int p = -1);  // sizes for a valid q (no graph is built)
std::vector<SlimFlySize> suggest_slim_fly(int hosts, int max_candidates = 5);

// The Slim Fly keys of a config (topology.q, p, rates, latencies); an invalid q is a UserError
// naming topology.q and where its value came from.
SlimFlyParams slim_fly_params(const config::Config& c);

}  // namespace lbsim::topo
