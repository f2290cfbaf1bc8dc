#include "routing/candidate_hops.h"

#include <algorithm>

#include <fmt/core.h>

#include "core/error.h"
#include "routing/registry.h"

namespace lbsim::routing {

namespace {
std::uint64_t pair_key(std::int32_t a, std::int32_t b) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) | static_cast<std::uint32_t>(b);
}
}  // namespace

CandidateUnionHops::CandidateUnionHops(const MinimalTables& tables, PathRule rule, int k, SimTime switch_latency,
                                       Bytes wire_bytes)
    : paths_(tables, rule, k, switch_latency, wire_bytes) {}

std::unique_ptr<CandidateUnionHops> CandidateUnionHops::from(const RoutingContext& c) {
  return std::make_unique<CandidateUnionHops>(c.tables, CandidatePaths::checked_rule(c),
                                              static_cast<int>(c.cfg.integer("routing.source_paths_k")),
                                              from_ns(c.cfg.real("network.switch_latency_ns")),
                                              c.cfg.integer("network.mtu") + c.cfg.integer("network.header_bytes"));
}

CandidateUnionHops::Pair CandidateUnionHops::build(std::int32_t a, std::int32_t b) {
  const auto& topo = paths_.topology();
  // (node, port) of every hop of every candidate path, then grouped by node.
  std::vector<std::pair<std::int32_t, std::int16_t>> hops;
  for (const auto& path : paths_.paths(a, b))
    for (std::size_t i = 0; i + 1 < path.nodes.size(); ++i) hops.emplace_back(path.nodes[i], path.out_ports[i]);
  std::sort(hops.begin(), hops.end());
  hops.erase(std::unique(hops.begin(), hops.end()), hops.end());
  Pair pr;
  for (const auto& [node, port] : hops) {
    if (pr.entries.empty() || pr.entries.back().node != node)
      pr.entries.push_back({node, static_cast<std::uint32_t>(pr.ports.size()), 0});
    pr.ports.push_back(port);
    ++pr.entries.back().count;
  }
  // Every walk over the union must end at b: no cycle (depth-first search from a, three colours).
  const auto index = [&](std::int32_t node) -> std::ptrdiff_t {
    const auto it = std::lower_bound(pr.entries.begin(), pr.entries.end(), node,
                                     [](const Entry& e, std::int32_t n) { return e.node < n; });
    return it != pr.entries.end() && it->node == node ? it - pr.entries.begin() : -1;
  };
  std::vector<std::uint8_t> colour(pr.entries.size(), 0);  // 0 new, 1 on the stack, 2 done
  std::vector<std::pair<std::ptrdiff_t, std::uint16_t>> stack;
  if (const auto s = index(a); s >= 0) stack.emplace_back(s, 0);
  if (!stack.empty()) colour[static_cast<std::size_t>(stack.back().first)] = 1;
  while (!stack.empty()) {
    auto& [e, next] = stack.back();
    const Entry& en = pr.entries[static_cast<std::size_t>(e)];
    if (next == en.count) {
      colour[static_cast<std::size_t>(e)] = 2;
      stack.pop_back();
      continue;
    }
    const std::int16_t port = pr.ports[en.offset + next++];
    const std::int32_t peer = topo.ports[static_cast<std::size_t>(en.node)][static_cast<std::size_t>(port)].peer;
    const auto v = index(peer);
    if (v < 0) continue;  // b (or a host): the walk ends
    if (colour[static_cast<std::size_t>(v)] == 1)
      throw UserError(fmt::format(
          "routing.next_hops = \"candidates\": the candidate paths ({}) from {} to {} form a cycle through {}: a "
          "packet hashed hop by hop over their next hops could loop; use routing.next_hops = \"shortest\" or the rail "
          "or dragonfly candidate rule",
          CandidatePaths::rule_name(paths_.rule()), topo.nodes[static_cast<std::size_t>(a)].label,
          topo.nodes[static_cast<std::size_t>(b)].label, topo.nodes[static_cast<std::size_t>(peer)].label));
    if (colour[static_cast<std::size_t>(v)] == 0) {
      colour[static_cast<std::size_t>(v)] = 1;
      stack.emplace_back(v, 0);
    }
  }
  return pr;
}

std::span<const std::int16_t> CandidateUnionHops::ports(std::int32_t node, std::int32_t a, std::int32_t b) {
  const auto key = pair_key(a, b);
  auto it = cache_.find(key);
  if (it == cache_.end()) it = cache_.emplace(key, build(a, b)).first;
  const Pair& pr = it->second;
  const auto e = std::lower_bound(pr.entries.begin(), pr.entries.end(), node,
                                  [](const Entry& x, std::int32_t n) { return x.node < n; });
  if (e == pr.entries.end() || e->node != node) return {};
  return {pr.ports.data() + e->offset, e->count};
}

CandidateEcmpRouter::CandidateEcmpRouter(const MinimalTables& tables, std::unique_ptr<CandidateUnionHops> hops,
                                         std::uint64_t seed)
    : tables_(tables), topo_(tables.topology()), hops_(std::move(hops)), salt_(tables.topology().size(), 0) {
  Rng rng(seed, hash_name("ecmp-salt"));
  for (auto& s : salt_) s = rng.next();
}

std::int32_t CandidateEcmpRouter::route(std::int32_t node, net::Packet& p) {
  const std::int32_t b = topo_.host_switch(p.dst);
  if (node == b) return tables_.host_port(p.dst);
  const auto c = hops_->ports(node, topo_.host_switch(p.src), b);
  if (c.empty()) return -1;
  if (c.size() == 1) return c[0];
  return c[ecmp_hash(p.src, p.dst, p.flow, p.ev, salt_[static_cast<std::size_t>(node)]) % c.size()];
}

CandidateRandomRouter::CandidateRandomRouter(const MinimalTables& tables, std::unique_ptr<CandidateUnionHops> hops,
                                             std::uint64_t seed)
    : tables_(tables), topo_(tables.topology()), hops_(std::move(hops)), rng_(seed, hash_name("letflow")) {}

std::int32_t CandidateRandomRouter::route(std::int32_t node, net::Packet& p) {
  const std::int32_t b = topo_.host_switch(p.dst);
  if (node == b) return tables_.host_port(p.dst);
  const auto c = hops_->ports(node, topo_.host_switch(p.src), b);
  if (c.empty()) return -1;
  if (c.size() == 1) return c[0];
  return c[rng_.below(c.size())];
}

bool candidate_next_hops(const RoutingContext& c) { return c.cfg.text("routing.next_hops") == "candidates"; }

namespace {
[[maybe_unused]] const bool declared = [] {
  config::declare(
      {config::text("routing.next_hops", "shortest",
                    "ecmp and letflow (and plb over ecmp): the ports a switch hashes (ecmp) or draws a new flowlet "
                    "from (letflow): shortest = its shortest-path next hops; candidates = the union of the next hops "
                    "at that switch of the packet's switch pair's candidate paths (routing.source_paths), as the "
                    "LAPS artifact's switches route its baselines (docs/laps.md).")
           .one_of({"shortest", "candidates"})});
  config::declare_check([](const config::Config& c) {
    const std::string& r = c.text("routing.algorithm");
    if (c.text("routing.next_hops") != "shortest" && r != "ecmp" && r != "letflow")
      throw UserError(c.where("routing.next_hops") + "routing.next_hops = \"" + c.text("routing.next_hops") +
                      "\" is read by routing.algorithm = \"ecmp\" or \"letflow\" only, not \"" + r + "\"");
  });
  return true;
}();
}  // namespace

}  // namespace lbsim::routing
