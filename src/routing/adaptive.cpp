#include "routing/adaptive.h"

#include "core/rng.h"
#include "routing/registry.h"

namespace lbsim::routing {

AdaptiveRouter::AdaptiveRouter(const MinimalTables& tables, const net::Network& net, std::uint64_t seed)
    : tables_(tables), topo_(tables.topology()), net_(net), salt_(tables.topology().size(), 0) {
  Rng rng(seed, hash_name("adaptive-salt"));
  for (auto& s : salt_) s = rng.next();
}

std::int32_t AdaptiveRouter::route(std::int32_t node, net::Packet& p) {
  const std::int32_t dst_sw = topo_.host_switch(p.dst);
  if (node == dst_sw) return tables_.host_port(p.dst);
  const auto c = tables_.candidates(node, dst_sw);
  if (c.size() <= 1) return c.empty() ? -1 : c[0];
  // Per-packet tie-break position: the PSN varies per packet, so ties do not pin a flow to a port.
  const std::size_t n = c.size();
  const std::size_t start = ecmp_hash(p.src, p.dst, p.flow, p.psn ^ (p.ev << 8), salt_[node]) % n;
  std::int32_t best = c[start];
  Bytes best_q = net_.queued_bytes(net_.port_id(node, best));
  for (std::size_t k = 1; k < n && best_q > 0; ++k) {
    const std::int32_t cand = c[(start + k) % n];
    const Bytes q = net_.queued_bytes(net_.port_id(node, cand));
    if (q < best_q) {
      best_q = q;
      best = cand;
    }
  }
  return best;
}

namespace {
const RegisterRouting kAdaptive{
    {{"adaptive",
      "Adaptive switches: the least-loaded shortest-path next hop, ties broken per packet (the RoCE-like baseline of "
      "docs/reps.md).",
      {},
      {}},
     [](const RoutingContext& c) { return std::make_unique<AdaptiveRouter>(c.tables, c.net, c.seed); }}};
}  // namespace

}  // namespace lbsim::routing
