#include "routing/router.h"

#include "core/error.h"
#include "core/rng.h"

namespace lbsim::routing {

EcmpRouter::EcmpRouter(const MinimalTables& tables, std::uint64_t seed)
    : tables_(tables), topo_(tables.topology()), salt_(tables.topology().size(), 0) {
  Rng rng(seed, hash_name("ecmp-salt"));
  for (auto& s : salt_) s = rng.next();
}

std::int32_t EcmpRouter::route(std::int32_t node, net::Packet& p) {
  const std::int32_t dst_sw = topo_.host_switch(p.dst);
  if (node == dst_sw) return tables_.host_port(p.dst);
  const auto c = tables_.candidates(node, dst_sw);
  if (c.size() == 1) return c[0];
  if (c.empty()) return -1;
  return c[ecmp_hash(p.src, p.dst, p.flow, p.ev, salt_[node]) % c.size()];
}

const std::vector<std::string>& routing_names() {
  static const std::vector<std::string> names{"ecmp", "minimal"};
  return names;
}

std::unique_ptr<net::Router> make_router(const RoutingParams& params, const MinimalTables& tables,
                                         net::Network& net) {
  (void)net;
  if (params.name == "ecmp" || params.name == "minimal")
    return std::make_unique<EcmpRouter>(tables, params.seed);
  throw UserError("unknown routing '" + params.name + "'");
}

}  // namespace lbsim::routing
