#include "routing/failure_mask.h"

#include "core/rng.h"
#include "routing/tables.h"

namespace lbsim::routing {

FailureMaskRouter::FailureMaskRouter(net::Router& inner, const MinimalTables& tables, const net::Network& net,
                                     std::uint64_t seed)
    : inner_(inner), tables_(tables), net_(net), dead_(net.num_ports(), 0), salt_(tables.topology().size(), 0) {
  Rng rng(seed, hash_name("converged-salt"));
  for (auto& s : salt_) s = rng.next();
}

void FailureMaskRouter::set_dead(std::uint32_t port, bool dead) {
  auto& d = dead_[port];
  if (dead) {
    if (d++ == 0) ++dead_count_;
  } else if (d > 0) {
    if (--d == 0) --dead_count_;
  }
}

std::int32_t FailureMaskRouter::route(std::int32_t node, net::Packet& p) {
  const std::int32_t out = inner_.route(node, p);
  if (dead_count_ == 0 || out < 0 || !dead_[net_.port_id(node, out)]) return out;
  const auto& topo = tables_.topology();
  const std::int32_t dst_sw = topo.host_switch(p.dst);
  if (node == dst_sw) return -1;  // the host's own link is dead
  const auto c = tables_.candidates(node, dst_sw);
  std::int16_t alive[256];
  std::size_t n = 0;
  for (const auto port : c)
    if (!dead_[net_.port_id(node, port)] && n < 256) alive[n++] = port;
  if (n == 0) return -1;
  return alive[ecmp_hash(p.src, p.dst, p.flow, p.ev, salt_[node]) % n];
}

}  // namespace lbsim::routing
