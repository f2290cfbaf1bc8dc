#include "routing/valiant.h"

#include "core/error.h"
#include "routing/registry.h"

namespace lbsim::routing {

ValiantMode parse_valiant_mode(const std::string& s) {
  if (s == "per_hop") return ValiantMode::PerHop;
  if (s == "path") return ValiantMode::Path;
  if (s == "per_flow") return ValiantMode::PerFlow;
  throw UserError("routing.valiant_mode: unknown mode '" + s + "' (per_hop, path or per_flow)");
}

ValiantRouter::ValiantRouter(const MinimalTables& tables, std::uint64_t seed, ValiantMode mode, bool minimal_acks)
    : PathRouterBase(tables, seed), mode_(mode), minimal_acks_(minimal_acks) {
  const auto n = tables.topology().num_switches();
  rng_.reserve(static_cast<std::size_t>(n));
  for (std::int32_t s = 0; s < n; ++s) rng_.emplace_back(seed, hash_name("valiant"), static_cast<std::uint64_t>(s));
}

std::int32_t ValiantRouter::route(std::int32_t node, net::Packet& p) {
  const std::int32_t dst_sw = host_switch(p.dst);
  if (node == dst_sw) return tables_.host_port(p.dst);
  Rng& rng = rng_[static_cast<std::size_t>(topo_.switch_index(node))];
  if (p.route_state == 0) {  // at the source switch
    const auto& pr = paths_.pair(node, dst_sw);
    if (pr.count == 0 || (minimal_acks_ && p.type != net::PacketType::Data)) {
      p.route_state = kRouteMinimal;
    } else if (mode_ == ValiantMode::PerFlow) {
      const auto i = static_cast<std::uint32_t>(ecmp_hash(p.src, p.dst, p.flow, p.ev, salt_[node]) % pr.count);
      start_path(p, pr.first + i);
    } else if (mode_ == ValiantMode::Path) {
      const auto i = static_cast<std::uint32_t>(rng.below(pr.count));
      start_path(p, pr.first + i);
    } else {
      start_paths(p, 0, pr.count);
    }
  }
  return forward(node, p, &rng);
}

namespace {
using namespace config;
const RegisterRouting kValiant{
    {{"valiant",
      "Valiant: minimal to a random intermediate switch, then minimal to the destination ([Spritz] sec. II-A, V-A).",
      {text("routing.valiant_mode", "per_hop",
            "valiant: per_hop (next hop drawn uniformly at each switch, the Spritz implementation), path (uniform over "
            "whole Valiant paths per packet, Valiant's definition) or per_flow (one hashed Valiant path per flow); "
            "[Spritz] V-A.")
           .one_of({"per_hop", "path", "per_flow"}),
       text("routing.valiant_acks", "valiant",
            "valiant: how ACKs and NACKs are routed: valiant (like data, a random Valiant path from the receiver's "
            "switch) or minimal (minimal routing; only data is misrouted). docs/spritz.md \"Valiant readings\".")
           .one_of({"valiant", "minimal"})},
      {}},
     [](const RoutingContext& c) {
       return std::make_unique<ValiantRouter>(c.tables, c.seed, parse_valiant_mode(c.cfg.text("routing.valiant_mode")),
                                              c.cfg.text("routing.valiant_acks") == "minimal");
     },
     {},
     {},
     &bounded_path_memory}};
}  // namespace

}  // namespace lbsim::routing
