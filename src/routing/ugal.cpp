#include "routing/ugal.h"

#include "core/error.h"
#include "routing/registry.h"

namespace lbsim::routing {

UgalMode parse_ugal_mode(const std::string& s) {
  if (s == "local") return UgalMode::Local;
  if (s == "global") return UgalMode::Global;
  throw UserError("routing.ugal: unknown mode '" + s + "' (local or global)");
}

UgalDecide parse_ugal_decide(const std::string& s) {
  if (s == "source") return UgalDecide::Source;
  if (s == "per_hop") return UgalDecide::PerHop;
  throw UserError("routing.ugal_decide: unknown value '" + s + "' (source or per_hop)");
}

UgalRouter::UgalRouter(const MinimalTables& tables, const net::Network& net, std::uint64_t seed, UgalMode mode,
                       UgalDecide decide)
    : PathRouterBase(tables, seed), net_(net), mode_(mode), decide_(decide) {
  const auto n = tables.topology().num_switches();
  rng_.reserve(static_cast<std::size_t>(n));
  for (std::int32_t s = 0; s < n; ++s) rng_.emplace_back(seed, hash_name("ugal"), static_cast<std::uint64_t>(s));
}

bool UgalRouter::decide(std::int32_t node, std::int32_t dst_sw, net::Packet& p) {
  // The Valiant candidate is a non-minimal bounded path of the pair (node, dst_sw): from the source
  // switch the pair's own, from a later switch (per_hop) the paths that start here.
  const auto& pr = paths_.pair(node, dst_sw);
  std::int32_t h_min = -1;
  const std::int32_t min_port = minimal_port(node, dst_sw, p, &h_min);
  if (pr.nonmin_count == 0 || min_port < 0) return false;
  Rng& rng = rng_[static_cast<std::size_t>(topo_.switch_index(node))];
  const std::uint32_t rel = paths_.nonminimal(pr, static_cast<std::uint32_t>(rng.below(pr.nonmin_count)));
  const std::uint32_t path = pr.first + rel;
  const std::int32_t h_val = paths_.length(path);
  Bytes q_min = 0, q_val = 0;
  if (mode_ == UgalMode::Local) {
    q_min = queue_of(node, min_port);
    q_val = queue_of(node, paths_.port(path, 0));
  } else {
    // The minimal route the packet would take, hop by hop (same hash as minimal_port).
    for (std::int32_t u = node, port = min_port;;) {
      q_min += queue_of(u, port);
      u = topo_.ports[u][port].peer;
      if (u == dst_sw) break;
      port = minimal_port(u, dst_sw, p);
      if (port < 0) break;
    }
    for (std::int32_t i = 0, u = node; i < h_val; ++i) {  // the drawn path starts here
      const std::int32_t port = paths_.port(path, i);
      q_val += queue_of(u, port);
      u = topo_.ports[u][port].peer;
    }
  }
  // UGAL-L estimates the delay of a path from the one queue it sees times the path length; UGAL-G
  // sees every queue on the path, so their sum is the estimate itself.
  const bool take_min = mode_ == UgalMode::Local ? q_min * h_min <= q_val * h_val : q_min <= q_val;
  if (take_min) return false;
  start_path(p, path);
  return true;
}

std::int32_t UgalRouter::route(std::int32_t node, net::Packet& p) {
  const std::int32_t dst_sw = host_switch(p.dst);
  if (node == dst_sw) return tables_.host_port(p.dst);
  const bool at_source = p.route_state == 0;
  if (at_source || (decide_ == UgalDecide::PerHop && p.route_state == kRouteMinimal)) {
    p.route_state = kRouteMinimal;
    const bool data = p.type == net::PacketType::Data;
    if (decide(node, dst_sw, p)) {
      ++n_val_;
      if (data) {
        ++n_data_val_;
        if (!at_source) ++n_data_val_down_;
      }
    } else {
      ++n_min_;
      if (data) ++n_data_min_;
    }
  }
  return forward(node, p, nullptr);
}

nlohmann::json UgalRouter::summary() const {
  const auto share = [](std::uint64_t a, std::uint64_t b) {
    return a + b ? static_cast<double>(b) / static_cast<double>(a + b) : 0.0;
  };
  return {{"mode", mode_ == UgalMode::Local ? "local" : "global"},
          {"decide", decide_ == UgalDecide::Source ? "source" : "per_hop"},
          {"decisions", n_min_ + n_val_},
          {"nonminimal", n_val_},
          {"data_decisions", n_data_min_ + n_data_val_},
          {"data_nonminimal", n_data_val_},
          {"data_nonminimal_downstream", n_data_val_down_},
          {"data_nonminimal_share", share(n_data_min_, n_data_val_)}};
}

namespace {
using namespace config;
const RegisterRouting kUgal{
    {{"ugal_l",
      "UGAL-L (or UGAL-G): minimal unless queue x hops favours a Valiant path ([Spritz] sec. II-A).",
      {text("routing.ugal", "local",
            "ugal_l: local (UGAL-L, q x h with the deciding switch's output queues) or global (UGAL-G, queues summed "
            "along each path).")
           .one_of({"local", "global"}),
       text("routing.ugal_decide", "source",
            "ugal_l: where the minimal/Valiant comparison is made: source (once, at the source switch) or per_hop (at "
            "every switch while the packet is still on its minimal route; docs/spritz.md \"UGAL-L readings\").")
           .one_of({"source", "per_hop"})},
      {}},
     [](const RoutingContext& c) {
       return std::make_unique<UgalRouter>(c.tables, c.net, c.seed, parse_ugal_mode(c.cfg.text("routing.ugal")),
                                           parse_ugal_decide(c.cfg.text("routing.ugal_decide")));
     },
     "ugal",
     [](const net::Router& r, SimTime) -> nlohmann::json { return static_cast<const UgalRouter&>(r).summary(); },
     &bounded_path_memory}};
}  // namespace

}  // namespace lbsim::routing
