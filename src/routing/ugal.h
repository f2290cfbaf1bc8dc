// UGAL (Kim et al. ISCA 2008; [Spritz] sec. II-A, V-A "Routing"): at the source switch compare the
// minimal route with one randomly chosen Valiant (non-minimal bounded) path:
//   local  (UGAL-L, the paper's baseline): minimal iff q_min * h_min <= q_val * h_val, where q is the
//          number of bytes waiting in this switch's output queue of the path's first hop
//          (net::Network::queued_bytes) and h the path's switch-to-switch hop count;
//   global (UGAL-G): minimal iff Q_min <= Q_val, where Q is the sum of the bytes waiting in the output
//          queues of every hop of the path (what a switch with global knowledge would see; the sum
//          already grows with the path length, so it is not multiplied by h).
// An idle network (q = 0 everywhere) therefore always routes minimally. The minimal candidate is the
// port the `minimal` router would take (same hash), the Valiant candidate a uniform draw from the
// pair's non-minimal bounded paths (Rng stream "ugal", per switch). The decision is made once, at the
// source switch; the packet then follows the minimal route or the chosen Valiant path.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "routing/bounded_paths.h"

namespace lbsim::routing {

enum class UgalMode { Local, Global };
UgalMode parse_ugal_mode(const std::string& s);  // "local" | "global"

class UgalRouter final : public PathRouterBase {
 public:
  UgalRouter(const MinimalTables& tables, const net::Network& net, std::uint64_t seed, UgalMode mode);
  std::int32_t route(std::int32_t node, net::Packet& p) override;
  // Decisions taken at source switches (packets of every type).
  std::uint64_t minimal_decisions() const { return n_min_; }
  std::uint64_t valiant_decisions() const { return n_val_; }

 private:
  Bytes queue_of(std::int32_t node, std::int32_t port) const {
    return net_.queued_bytes(net_.port_id(node, port));
  }
  const net::Network& net_;
  UgalMode mode_;
  std::vector<Rng> rng_;
  std::uint64_t n_min_ = 0, n_val_ = 0;
};

}  // namespace lbsim::routing
