#include "routing/router.h"

#include "core/error.h"
#include "core/rng.h"
#include "routing/source_guided.h"
#include "routing/adaptive.h"
#include "routing/ecmp_paths.h"
#include "routing/minimal.h"
#include "routing/ugal.h"
#include "routing/valiant.h"

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
  static const std::vector<std::string> names{"ecmp", "minimal", "adaptive", "source_guided", "source_guided_coarse",
                                              "valiant", "ugal_l", "ecmp_paths"};
  return names;
}

std::unique_ptr<net::Router> make_router(const RoutingParams& params, const MinimalTables& tables,
                                         net::Network& net) {
  (void)net;
  if (params.name == "ecmp") return std::make_unique<EcmpRouter>(tables, params.seed);
  // Dragonfly l-g-l minimal routes; identical to ecmp elsewhere (routing/minimal.h).
  if (params.name == "minimal") return std::make_unique<MinimalRouter>(tables, params.seed);
  if (params.name == "valiant")
    return std::make_unique<ValiantRouter>(tables, params.seed, parse_valiant_mode(params.valiant_mode));
  if (params.name == "ugal_l")
    return std::make_unique<UgalRouter>(tables, net, params.seed, parse_ugal_mode(params.ugal));
  if (params.name == "ecmp_paths") return std::make_unique<EcmpPathsRouter>(tables, params.seed);
  if (params.name == "adaptive") return std::make_unique<AdaptiveRouter>(tables, net, params.seed);
  // [Spritz] sec. III: fine-grained (EV1/EV2 identity hash) and coarse-grained (sec. III-D) modes.
  if (params.name == "source_guided") return std::make_unique<SourceGuidedRouter>(tables, false, params.seed);
  if (params.name == "source_guided_coarse") return std::make_unique<SourceGuidedRouter>(tables, true, params.seed);
  throw UserError("unknown routing '" + params.name + "'");
}

}  // namespace lbsim::routing
