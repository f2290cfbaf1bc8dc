#include "routing/ecmp.h"

#include "core/rng.h"
#include "routing/candidate_hops.h"
#include "routing/registry.h"

namespace lbsim::routing {

EcmpRouter::EcmpRouter(const MinimalTables& tables, std::uint64_t seed)
    : tables_(tables), topo_(tables.topology()), salt_(tables.topology().size(), 0) {
  Rng rng(seed, hash_name("ecmp-salt"));
  for (auto& s : salt_) s = rng.next();
  host_sw_.resize(static_cast<std::size_t>(topo_.num_hosts));
  for (std::int32_t h = 0; h < topo_.num_hosts; ++h)
    host_sw_[static_cast<std::size_t>(h)] =
        topo_.ports[static_cast<std::size_t>(h)].empty() ? -1 : topo_.host_switch(h);
}

std::int32_t EcmpRouter::pick(std::int32_t node, const net::Packet& p) const {
  const std::int32_t dst_sw = host_sw_[static_cast<std::size_t>(p.dst)];
  if (node == dst_sw) return tables_.host_port(p.dst);
  const auto c = tables_.candidates(node, dst_sw);
  if (c.size() == 1) return c[0];
  if (c.empty()) return -1;
  return c[ecmp_hash(p.src, p.dst, p.flow, p.ev, salt_[node]) % c.size()];
}

std::int32_t EcmpRouter::route(std::int32_t node, net::Packet& p) { return pick(node, p); }

// The pick is a function of the packet and the tables alone, so the hint can make it ahead of time
// (net::Router::prefetch_route): stage 0 asks for the pair's index entry, stage 1 picks.
std::int32_t EcmpRouter::prefetch_route(std::int32_t node, const net::Packet& p, int stage) const {
  if (stage == 0) {
    const std::int32_t dst_sw = host_sw_[static_cast<std::size_t>(p.dst)];
    if (node != dst_sw) tables_.prefetch(node, dst_sw);
    return -1;
  }
  return pick(node, p);
}

namespace {
const RegisterRouting kEcmp{
    {{"ecmp",
      "ECMP: hash of (src, dst, flow, EV, switch salt) over the shortest-path next hops ([REPS] sec. 2.2), or over "
      "the union of the candidate paths' next hops (routing.next_hops = candidates, the LAPS artifact's).",
      {},
      {}},
     [](const RoutingContext& c) -> std::unique_ptr<net::Router> {
       if (candidate_next_hops(c))
         return std::make_unique<CandidateEcmpRouter>(c.tables, CandidateUnionHops::from(c), c.seed);
       return std::make_unique<EcmpRouter>(c.tables, c.seed);
     }}};
}  // namespace

}  // namespace lbsim::routing
