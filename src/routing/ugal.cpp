#include "routing/ugal.h"

#include "core/error.h"
#include "routing/registry.h"

namespace lbsim::routing {

UgalMode parse_ugal_mode(const std::string& s) {
  if (s == "local") return UgalMode::Local;
  if (s == "global") return UgalMode::Global;
  throw UserError("routing.ugal: unknown mode '" + s + "' (local or global)");
}

UgalRouter::UgalRouter(const MinimalTables& tables, const net::Network& net, std::uint64_t seed, UgalMode mode)
    : PathRouterBase(tables, seed), net_(net), mode_(mode) {
  const auto n = tables.topology().num_switches();
  rng_.reserve(static_cast<std::size_t>(n));
  for (std::int32_t s = 0; s < n; ++s) rng_.emplace_back(seed, hash_name("ugal"), static_cast<std::uint64_t>(s));
}

std::int32_t UgalRouter::route(std::int32_t node, net::Packet& p) {
  const std::int32_t dst_sw = host_switch(p.dst);
  if (node == dst_sw) return tables_.host_port(p.dst);
  if (p.route_state == 0) {
    p.route_state = kRouteMinimal;
    const auto& pr = paths_.pair(node, dst_sw);
    const std::int32_t min_port = minimal_port(node, dst_sw, p);
    if (pr.nonmin_count > 0 && min_port >= 0) {
      Rng& rng = rng_[static_cast<std::size_t>(topo_.switch_index(node))];
      const std::uint32_t rel = paths_.nonminimal(pr, static_cast<std::uint32_t>(rng.below(pr.nonmin_count)));
      const std::uint32_t path = pr.first + rel;
      const topo::Hop* hops = paths_.hops(path);
      const std::int32_t h_val = paths_.length(path);
      const std::int32_t h_min = routes_.distance(node, dst_sw);
      Bytes q_min = 0, q_val = 0;
      if (mode_ == UgalMode::Local) {
        q_min = queue_of(node, min_port);
        q_val = queue_of(node, hops[0].port);
      } else {
        // The minimal route the packet would take, hop by hop (same hash as minimal_port).
        for (std::int32_t u = node, port = min_port;;) {
          q_min += queue_of(u, port);
          u = topo_.ports[u][port].peer;
          if (u == dst_sw) break;
          port = minimal_port(u, dst_sw, p);
          if (port < 0) break;
        }
        for (std::int32_t i = 0; i < h_val; ++i) q_val += queue_of(hops[i].node, hops[i].port);
      }
      // UGAL-L estimates the delay of a path from the one queue it sees times the path length; UGAL-G
      // sees every queue on the path, so their sum is the estimate itself.
      const bool take_min = mode_ == UgalMode::Local ? q_min * h_min <= q_val * h_val : q_min <= q_val;
      if (take_min) {
        ++n_min_;
      } else {
        ++n_val_;
        start_path(p, path);
      }
    } else {
      ++n_min_;
    }
  }
  return forward(node, p, nullptr);
}

namespace {
using namespace config;
const RegisterRouting kUgal{{{"ugal_l", "UGAL-L (or UGAL-G): minimal unless queue x hops favours a Valiant path ([Spritz] sec. II-A).",
    {text("routing.ugal", "local", "ugal_l: local (UGAL-L, q x h with the source switch's output queues) or global (UGAL-G, queues summed along each path).").one_of({"local", "global"})},
    {}},
    [](const RoutingContext& c) {
      return std::make_unique<UgalRouter>(c.tables, c.net, c.seed, parse_ugal_mode(c.cfg.text("routing.ugal")));
    }}};
}  // namespace

}  // namespace lbsim::routing
