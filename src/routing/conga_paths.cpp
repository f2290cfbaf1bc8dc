// CONGA over source-routed candidate paths ([CONGA] sec. 3 on Rail and the Dragonfly); see conga_paths.h.
#include "routing/conga_paths.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/core.h>

#include "core/error.h"

namespace lbsim::routing {

namespace {
// The overlay header in the packet's routing scratch, as routing/conga.cpp: route_aux = LBTag (path
// index) | CE << 8 | FB_LBTag << 16 | FB_Metric << 24; route_state bit 0 = header, bit 1 = feedback.
constexpr std::uint8_t kHdr = 1, kFb = 2;
std::uint32_t aux(const net::Packet& p) { return static_cast<std::uint32_t>(p.route_aux); }
void set_aux(net::Packet& p, std::uint32_t v) { p.route_aux = static_cast<std::int32_t>(v); }
std::uint64_t pair_key(std::int32_t a, std::int32_t b) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) | static_cast<std::uint32_t>(b);
}
}  // namespace

CongaPathsRouter::CongaPathsRouter(const MinimalTables& tables, const net::Network& net, PathRule rule, int k,
                                   SimTime switch_latency, Bytes wire_bytes, const CongaParams& p, std::uint64_t seed)
    : tables_(tables),
      topo_(tables.topology()),
      net_(net),
      paths_(tables, rule, k, switch_latency, wire_bytes),
      p_(p),
      rng_(seed, hash_name("conga")),
      salt_(static_cast<std::size_t>(topo_.size()), 0),
      dres_(net, p),
      flowlets_(p.flowlet_timeout) {
  if (rule == PathRule::Yen)
    throw UserError(fmt::format(
        "routing.algorithm = \"conga\": the {} topology is neither a 2-tier leaf-spine ([CONGA] sec. 3) nor a Rail or "
        "Dragonfly whose LAPS candidate paths CONGA can tag (routing.source_paths = \"rail\" / \"dragonfly\"); "
        "docs/baselines.md \"CONGA\"",
        topo_.kind));
  Rng srng(seed, hash_name("conga-salt"));
  for (auto& s : salt_) s = srng.next();
  for (std::int32_t s = 0; s < topo_.num_switches(); ++s)
    for (const auto& port : topo_.ports[topo_.switch_node(s)])
      if (topo_.is_host(port.peer)) {
        ++tors_;
        break;
      }
  if (tors_ < 2)
    throw UserError(fmt::format("routing.algorithm = \"conga\": fewer than two switches of the {} topology have hosts",
                                topo_.kind));
}

CongaPathsRouter::Pair& CongaPathsRouter::pair(std::int32_t x, std::int32_t y) {
  const auto key = pair_key(x, y);
  if (auto it = pairs_.find(key); it != pairs_.end()) return it->second;
  Pair pr;
  pr.n_to = static_cast<std::uint16_t>(paths_.paths(x, y).size());
  pr.n_from = static_cast<std::uint16_t>(paths_.paths(y, x).size());
  if (pr.n_to > 255 || pr.n_from > 255)
    throw UserError(
        fmt::format("routing.algorithm = \"conga\": switches {} and {} have more than 255 candidate paths "
                    "(the LBTag is 8 bits)",
                    topo_.nodes[x].label, topo_.nodes[y].label));
  max_paths_ = std::max<std::size_t>({max_paths_, pr.n_to, pr.n_from});
  pr.to = static_cast<std::uint32_t>(table_.size());
  pr.from = pr.to + pr.n_to;
  table_.resize(table_.size() + pr.n_to + pr.n_from, 0);
  changed_.resize(table_.size(), 0);
  return pairs_.emplace(key, pr).first->second;
}

int CongaPathsRouter::to_leaf(std::int32_t tor, std::int32_t dst_tor, std::size_t path) {
  const Pair& pr = pair(tor, dst_tor);
  return path < pr.n_to ? table_[pr.to + path] : -1;
}

int CongaPathsRouter::from_leaf(std::int32_t tor, std::int32_t src_tor, std::size_t path) {
  const Pair& pr = pair(tor, src_tor);
  return path < pr.n_from ? table_[pr.from + path] : -1;
}

std::int32_t CongaPathsRouter::flow_path(std::int32_t tor, std::uint32_t flow) const {
  return flowlets_.current(topo_.switch_index(tor), flow);
}

// [CONGA] sec. 3.4: the path minimising max(local metric of its first port, Congestion-To-Leaf),
// among all candidates or k drawn at random (partial Fisher-Yates); ties at random, the previous
// path kept when it is among the best.
std::int16_t CongaPathsRouter::pick_path(std::int32_t a, std::int32_t b, std::int16_t previous, SimTime now) {
  const auto& list = paths_.paths(a, b);
  const Pair& pr = pair(a, b);
  const std::uint8_t* remote = &table_[pr.to];
  return conga_pick(list.size(), p_.candidates, previous, rng_, scratch_, [&](std::size_t c) {
    return std::max(metric(list[c].nodes[0], list[c].out_ports[0], now), static_cast<int>(remote[c]));
  });
}

std::int16_t CongaPathsRouter::flowlet_path(std::int32_t a, std::int32_t b, net::Packet& p, SimTime now) {
  bool fresh = false;
  const std::int16_t path = flowlets_.choose(topo_.switch_index(a), p.flow, now, [&](std::int16_t previous) {
    fresh = true;
    return pick_path(a, b, previous, now);
  });
  if (fresh) {
    if (per_path_.size() <= static_cast<std::size_t>(path)) per_path_.resize(static_cast<std::size_t>(path) + 1, 0);
    ++per_path_[static_cast<std::size_t>(path)];
  }
  return path;
}

// Non-data packets: ECMP among the candidates with the fewest switches.
std::int16_t CongaPathsRouter::minimal_path(std::int32_t a, std::int32_t b, const net::Packet& p) {
  const auto& list = paths_.paths(a, b);
  std::size_t least = list[0].nodes.size(), n = 0;
  for (const auto& sp : list) least = std::min(least, sp.nodes.size());
  for (const auto& sp : list) n += sp.nodes.size() == least;
  std::size_t want = ecmp_hash(p.src, p.dst, p.flow, p.ev, salt_[static_cast<std::size_t>(a)]) % n;
  for (std::size_t i = 0; i < list.size(); ++i)
    if (list[i].nodes.size() == least && want-- == 0) return static_cast<std::int16_t>(i);
  return 0;
}

std::int32_t CongaPathsRouter::route(std::int32_t node, net::Packet& p) {
  const SimTime now = net_.now();
  const std::int32_t a = topo_.host_switch(p.src), b = topo_.host_switch(p.dst);
  if (a == b) return tables_.host_port(p.dst);
  if (node == a) {
    // Source ToR: the path (a flowlet's choice for data, a minimal one for the rest), the header
    // with the first port's metric as CE, one Congestion-From-Leaf entry about b's paths to a.
    const std::int16_t path = p.type == net::PacketType::Data ? flowlet_path(a, b, p, now) : minimal_path(a, b, p);
    const std::int32_t port = paths_.paths(a, b)[static_cast<std::size_t>(path)].out_ports[0];
    const int ce = dres_.count(node, port, p.size, now);
    Pair& pr = pair(a, b);
    std::size_t fb = pr.rr % pr.n_from;
    for (std::size_t i = 0; i < pr.n_from; ++i) {
      const std::size_t c = (pr.rr + i) % pr.n_from;
      if (changed_[pr.from + c]) {
        fb = c;
        break;
      }
    }
    changed_[pr.from + fb] = 0;
    pr.rr = static_cast<std::uint16_t>((fb + 1) % pr.n_from);
    set_aux(p, static_cast<std::uint32_t>(path) | static_cast<std::uint32_t>(ce) << 8 |
                   static_cast<std::uint32_t>(fb) << 16 | static_cast<std::uint32_t>(table_[pr.from + fb]) << 24);
    p.route_state = kHdr | kFb;
    return port;
  }
  if (!(p.route_state & kHdr))
    throw std::logic_error(fmt::format("conga: packet of flow {} at switch {} without its header", p.flow, node));
  const std::uint32_t h = aux(p);
  const auto& path = paths_.paths(a, b)[h & 0xFF];
  std::size_t at = 0;
  while (at < path.nodes.size() && path.nodes[at] != node) ++at;
  if (at == path.nodes.size())
    throw std::logic_error(
        fmt::format("conga: packet of flow {} at switch {} left its path {}", p.flow, node, h & 0xFF));
  if (at + 1 == path.nodes.size()) {
    // Destination ToR: CE into Congestion-From-Leaf [a][path], the feedback into Congestion-To-Leaf [a][FB_LBTag].
    Pair& pr = pair(node, a);
    const std::size_t e = pr.from + (h & 0xFF);
    const auto ce = static_cast<std::uint8_t>((h >> 8) & 0xFF);
    if (table_[e] != ce) changed_[e] = 1;
    table_[e] = ce;
    if (p.route_state & kFb) {
      const std::size_t tag = (h >> 16) & 0xFF;
      if (tag < pr.n_to) table_[pr.to + tag] = static_cast<std::uint8_t>((h >> 24) & 0x7F);
      ++feedback_;
    }
    return tables_.host_port(p.dst);
  }
  // A switch behind the source ToR: the route's next hop; CE = max(CE, this port's metric).
  const std::int32_t port = path.out_ports[at];
  const int m = dres_.count(node, port, p.size, now);
  set_aux(p, (h & ~0xFF00u) | static_cast<std::uint32_t>(std::max(m, static_cast<int>((h >> 8) & 0xFF))) << 8);
  return port;
}

nlohmann::json CongaPathsRouter::summary() const {
  // CONGA's switch tables at the candidate count seen: per ToR, Congestion-To-Leaf and
  // -From-Leaf of (ToRs - 1) x candidates entries of Q bits each.
  const std::size_t entries = (tors_ - 1) * max_paths_;
  return {{"flowlets", flowlets_.flowlets()},
          {"flowlet_moves", flowlets_.moves()},
          {"feedback", feedback_},
          {"flowlets_per_path", per_path_},
          {"tors", tors_},
          {"path_rule", CandidatePaths::rule_name(paths_.rule())},
          {"max_candidates", max_paths_},
          {"tor_pairs_used", pairs_.size()},
          {"table_bits_per_tor", 2 * entries * static_cast<std::size_t>(p_.q_bits)},
          {"table_bytes_all_tors", (2 * entries * static_cast<std::size_t>(p_.q_bits) * tors_ + 7) / 8},
          {"dre_registers", dres_.size()},
          {"dre_period_us", to_us(p_.dre_period)},
          {"alpha", p_.alpha},
          {"q_bits", p_.q_bits},
          {"flowlet_timeout_us", to_us(p_.flowlet_timeout)},
          {"candidates", p_.candidates}};
}

}  // namespace lbsim::routing
