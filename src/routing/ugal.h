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
// pair's non-minimal bounded paths (Rng stream "ugal", per switch).
// Where the comparison is made (routing.ugal_decide; docs/spritz.md "UGAL-L readings"):
//   source   (default) once, at the source switch; the packet then follows the minimal route or the
//            chosen Valiant path (Kim et al.'s UGAL).
//   per_hop  at every switch the packet reaches while it is still on its minimal route, with this
//            switch's queues and a Valiant path drawn from here ([Spritz] V-A: "per-packet decisions",
//            "all with switch-level decisions"; the progressive re-evaluation of Jiang et al.'s PAR).
//            Once the packet leaves the minimal route it follows its Valiant path to the end, so a
//            route is at most (minimal distance - 1) minimal hops plus one bounded path (it may
//            pass a switch of its minimal prefix again, e.g. back through the source switch).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "routing/bounded_paths.h"

namespace lbsim::routing {

enum class UgalMode { Local, Global };
UgalMode parse_ugal_mode(const std::string& s);  // "local" | "global"
enum class UgalDecide { Source, PerHop };
UgalDecide parse_ugal_decide(const std::string& s);  // "source" | "per_hop"

class UgalRouter final : public PathRouterBase {
 public:
  UgalRouter(const MinimalTables& tables, const net::Network& net, std::uint64_t seed, UgalMode mode,
             UgalDecide decide = UgalDecide::Source);
  std::int32_t route(std::int32_t node, net::Packet& p) override;
  // Comparisons made (packets of every type; with per_hop one per switch a packet reaches on its
  // minimal route) and how they went.
  std::uint64_t minimal_decisions() const { return n_min_; }
  std::uint64_t valiant_decisions() const { return n_val_; }
  // The same for data packets only, and the data packets that left the minimal route at a switch
  // other than their source switch (per_hop only).
  std::uint64_t data_minimal_decisions() const { return n_data_min_; }
  std::uint64_t data_valiant_decisions() const { return n_data_val_; }
  std::uint64_t data_valiant_downstream() const { return n_data_val_down_; }
  // summary.json "ugal" (docs/outputs.md).
  nlohmann::json summary() const;

 private:
  Bytes queue_of(std::int32_t node, std::int32_t port) const { return net_.queued_bytes(net_.port_id(node, port)); }
  const net::Network& net_;
  // One UGAL comparison at `node` for a packet on its minimal route: true if it leaves it.
  bool decide(std::int32_t node, std::int32_t dst_sw, net::Packet& p);
  UgalMode mode_;
  UgalDecide decide_;
  std::vector<Rng> rng_;
  std::uint64_t n_min_ = 0, n_val_ = 0, n_data_min_ = 0, n_data_val_ = 0, n_data_val_down_ = 0;
};

}  // namespace lbsim::routing
