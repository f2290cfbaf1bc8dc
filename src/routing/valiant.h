// Valiant routing ([Spritz] sec. II-A, V-A; Kim et al. ISCA 2008 for Dragonfly, Besta & Hoefler
// SC'14 / [SlimFly] sec. 2 for Slim Fly): misroute through a random intermediate
// location - a group in a Dragonfly, a switch in a Slim Fly - then route minimally.
//
// The Valiant paths are the bounded simple paths of topo/paths.h ([Spritz] sec. III: "we target all
// possible Valiant paths"; Table I), and [Spritz] sec. V-A (last paragraph) names the two ways of
// sampling them, both offered here (routing.valiant_mode):
//   per_hop  the next hop is sampled uniformly and independently at each switch among the next hops
//            that stay on a Valiant path (the paper's implementation). Where a global hop is needed
//            the source switch's own global links are then likelier than the global links of its
//            group neighbours (1/(a-1+h) each vs 1/((a-1+h) h) in a Dragonfly), as the paper notes.
//   path     uniform over whole Valiant paths, decided at the source switch (Valiant's original
//            definition, "conceptually closer to OPS (u)").
//   per_flow one whole Valiant path per flow: the source switch hashes (src, dst, flow, EV, switch
//            salt) onto the pair's paths, so every packet of a flow (fixed EV) takes the same
//            intermediate group / switch (a reading of "Valiant" the paper does not name; the
//            ecmp_paths router does the same with the same hash).
// ACKs and NACKs (routing.valiant_acks): "valiant" routes them like data (a random Valiant path from
// the receiver's switch, drawn per packet as the mode says), "minimal" routes them minimally (the
// reading where only data is misrouted; [Spritz] does not say how its Valiant routes ACKs).
// Once the intermediate group / switch is reached the rest of every Valiant path is minimal, so the
// packet simply follows the path it has narrowed down to. Draws come from one Rng stream per switch
// ("valiant", switch index), so runs are deterministic for a seed.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "routing/bounded_paths.h"

namespace lbsim::routing {

enum class ValiantMode { PerHop, Path, PerFlow };
ValiantMode parse_valiant_mode(const std::string& s);  // "per_hop" | "path" | "per_flow"; UserError otherwise

class ValiantRouter final : public PathRouterBase {
 public:
  ValiantRouter(const MinimalTables& tables, std::uint64_t seed, ValiantMode mode, bool minimal_acks = false);
  std::int32_t route(std::int32_t node, net::Packet& p) override;

 private:
  ValiantMode mode_;
  bool minimal_acks_;
  std::vector<Rng> rng_;  // per switch index
};

}  // namespace lbsim::routing
