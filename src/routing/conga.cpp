// CONGA in 2-tier leaf-spine networks ([CONGA] sec. 3); see conga.h.
#include "routing/conga.h"

#include <algorithm>
#include <cmath>

#include <fmt/core.h>

#include "core/error.h"
#include "routing/conga_paths.h"
#include "routing/registry.h"

namespace lbsim::routing {

namespace {
// The overlay header in the packet's routing scratch: route_aux = LBTag | CE << 8 | FB_LBTag << 16 |
// FB_Metric << 24; route_state bit 0 = header present, bit 1 = feedback present.
constexpr std::uint8_t kHdr = 1, kFb = 2;
std::uint32_t aux(const net::Packet& p) { return static_cast<std::uint32_t>(p.route_aux); }
void set_aux(net::Packet& p, std::uint32_t v) { p.route_aux = static_cast<std::int32_t>(v); }
}  // namespace

CongaRouter::CongaRouter(const MinimalTables& tables, const net::Network& net, const CongaParams& p, std::uint64_t seed)
    : tables_(tables),
      topo_(tables.topology()),
      net_(net),
      p_(p),
      rng_(seed, hash_name("conga")),
      salt_(static_cast<std::size_t>(topo_.size()), 0),
      dres_(net, p),
      flowlets_(p.flowlet_timeout) {
  Rng srng(seed, hash_name("conga-salt"));
  for (auto& s : salt_) s = srng.next();
  const auto fail = [&](const std::string& why) {
    throw UserError(fmt::format(
        "routing.algorithm = \"conga\": CONGA is defined for 2-tier leaf-spine networks ([CONGA] sec. 3; "
        "e.g. topology.kind = \"fat_tree\" with topology.tiers = 2) and, over the LAPS candidate paths, for a "
        "Rail or a Dragonfly (routing.source_paths), but the {} topology is none of them: {} (docs/baselines.md "
        "\"CONGA\")",
        topo_.kind, why));
  };
  const std::int32_t ns = topo_.num_switches();
  leaf_of_.assign(static_cast<std::size_t>(ns), -1);
  for (std::int32_t s = 0; s < ns; ++s) {
    const std::int32_t node = topo_.switch_node(s);
    for (const auto& port : topo_.ports[node])
      if (topo_.is_host(port.peer)) {
        leaf_of_[static_cast<std::size_t>(s)] = static_cast<std::int32_t>(leaf_node_.size());
        leaf_node_.push_back(node);
        break;
      }
  }
  const std::size_t nl = leaf_node_.size();
  if (nl < 2) fail("fewer than two switches have hosts");
  port0_ = dres_.port0();
  uplink_index_.assign(dres_.size(), -1);
  uplinks_.resize(nl);
  for (std::int32_t s = 0; s < ns; ++s) {
    const std::int32_t node = topo_.switch_node(s);
    const bool leaf = leaf_of_[static_cast<std::size_t>(s)] >= 0;
    for (std::int32_t k = 0; k < static_cast<std::int32_t>(topo_.ports[node].size()); ++k) {
      const std::int32_t peer = topo_.ports[node][static_cast<std::size_t>(k)].peer;
      if (topo_.is_host(peer)) continue;
      const bool peer_leaf = leaf_of_[static_cast<std::size_t>(topo_.switch_index(peer))] >= 0;
      if (leaf == peer_leaf)
        fail(fmt::format("switches {} and {} are linked and are both {}", topo_.nodes[node].label,
                         topo_.nodes[peer].label, leaf ? "leaves (they have hosts)" : "spines (no hosts)"));
      if (leaf) {
        auto& up = uplinks_[static_cast<std::size_t>(leaf_of_[static_cast<std::size_t>(s)])];
        uplink_index_[net_.port_id(node, k) - port0_] = static_cast<std::int16_t>(up.size());
        up.push_back(k);
      }
    }
  }
  for (std::size_t a = 0; a < nl; ++a) {
    max_up_ = std::max(max_up_, uplinks_[a].size());
    for (std::size_t b = 0; b < nl; ++b)
      if (a != b && tables_.distance(leaf_node_[a], leaf_node_[b]) != 2)
        fail(fmt::format("leaves {} and {} are not two switch hops apart", topo_.nodes[leaf_node_[a]].label,
                         topo_.nodes[leaf_node_[b]].label));
  }
  if (max_up_ > 255) fail("a leaf has more than 255 uplinks (the LBTag is 8 bits)");
  to_leaf_.assign(nl * nl * max_up_, 0);
  from_leaf_.assign(nl * nl * max_up_, 0);
  from_changed_.assign(nl * nl * max_up_, 0);
  fb_next_.assign(nl * nl, 0);
}

CongaDres::CongaDres(const net::Network& net, const CongaParams& p)
    : net_(net),
      period_(p.dre_period),
      alpha_(p.alpha),
      q_bits_(p.q_bits),
      port0_(net.port_id(net.topology().switch_node(0), 0)),
      dre_(net.num_ports() - port0_) {}

// [CONGA] sec. 3.3: X <- X (1 - alpha) every T_dre (on a global grid of periods).
void CongaDres::decay(Dre& d, SimTime now) const {
  const std::int64_t tick = now / period_;
  if (tick == d.tick) return;
  d.x *= std::pow(1.0 - alpha_, static_cast<double>(tick - d.tick));
  d.tick = tick;
}

// Metric X / (C tau), tau = T_dre / alpha, quantised to Q bits.
int CongaDres::quantise(double x, std::int32_t node, std::int32_t port) const {
  const auto& pt = net_.port(net_.port_id(node, port));
  const double tau_s = static_cast<double>(period_) / alpha_ * 1e-12;
  const double cap_bytes = static_cast<double>(pt.rate) / 8.0 * tau_s;
  const double levels = std::ldexp(1.0, q_bits_);
  return static_cast<int>(std::min(levels - 1.0, std::floor(x / cap_bytes * levels)));
}

double CongaDres::bytes(std::int32_t node, std::int32_t port, SimTime now) {
  Dre& d = dre(node, port);
  decay(d, now);
  return d.x;
}

int CongaDres::count(std::int32_t node, std::int32_t port, Bytes size, SimTime now) {
  Dre& d = dre(node, port);
  decay(d, now);
  d.x += static_cast<double>(size);
  return quantise(d.x, node, port);
}

int CongaRouter::to_leaf(std::int32_t leaf, std::int32_t dst_leaf, std::int32_t uplink) const {
  const std::size_t nl = leaf_node_.size();
  return to_leaf_[(lidx(leaf) * nl + lidx(dst_leaf)) * max_up_ + static_cast<std::size_t>(uplink)];
}

int CongaRouter::from_leaf(std::int32_t leaf, std::int32_t src_leaf, std::int32_t uplink) const {
  const std::size_t nl = leaf_node_.size();
  return from_leaf_[(lidx(leaf) * nl + lidx(src_leaf)) * max_up_ + static_cast<std::size_t>(uplink)];
}

std::int32_t CongaRouter::pick_uplink(std::int32_t node, std::size_t dl, std::int16_t previous, SimTime now) {
  const std::size_t l = lidx(node);
  const auto& up = uplinks_[l];
  const std::size_t nl = leaf_node_.size();
  const std::uint8_t* remote = &to_leaf_[(l * nl + dl) * max_up_];
  const auto cost = [&](std::size_t u) { return std::max(metric(node, up[u], now), static_cast<int>(remote[u])); };
  return conga_pick(up.size(), p_.candidates, previous, rng_, scratch_, cost);
}

std::int32_t CongaRouter::flowlet_uplink(std::int32_t node, std::size_t dl, net::Packet& p, SimTime now) {
  return flowlets_.choose(topo_.switch_index(node), p.flow, now,
                          [&](std::int16_t previous) { return pick_uplink(node, dl, previous, now); });
}

void CongaFlowlets::sweep(SimTime now) {
  for (std::uint32_t i = 0; i < pool_.size(); ++i) {
    Entry& f = pool_[i];
    if (f.key == ~0ULL || now - f.last <= timeout_) continue;
    map_.erase(f.key);
    f.key = ~0ULL;
    free_.push_back(i);
  }
  swept_size_ = map_.size();
}

std::int32_t CongaRouter::route(std::int32_t node, net::Packet& p) {
  const SimTime now = net_.now();
  const std::int32_t src_sw = topo_.host_switch(p.src), dst_sw = topo_.host_switch(p.dst);
  const std::size_t nl = leaf_node_.size();
  if (node == dst_sw) {
    if (node != src_sw && (p.route_state & kHdr)) {
      // Destination leaf: record CE in Congestion-From-Leaf, feedback into Congestion-To-Leaf.
      const std::uint32_t a = aux(p);
      const std::size_t me = lidx(node), from = lidx(src_sw);
      const std::size_t e = (me * nl + from) * max_up_ + (a & 0xFF);
      const auto ce = static_cast<std::uint8_t>((a >> 8) & 0xFF);
      if (from_leaf_[e] != ce) from_changed_[e] = 1;
      from_leaf_[e] = ce;
      if (p.route_state & kFb) {
        to_leaf_[(me * nl + from) * max_up_ + ((a >> 16) & 0xFF)] = static_cast<std::uint8_t>((a >> 24) & 0x7F);
        ++feedback_;
      }
    }
    return tables_.host_port(p.dst);
  }
  if (node == src_sw) {
    // Source leaf: the uplink (a flowlet's choice for data, ECMP for the rest), the header, feedback.
    const std::size_t l = lidx(node), dl = lidx(dst_sw);
    const auto& up = uplinks_[l];
    std::int32_t u;
    if (p.type == net::PacketType::Data)
      u = flowlet_uplink(node, dl, p, now);
    else
      u = static_cast<std::int32_t>(ecmp_hash(p.src, p.dst, p.flow, p.ev, salt_[static_cast<std::size_t>(node)]) %
                                    up.size());
    const std::int32_t port = up[static_cast<std::size_t>(u)];
    const int ce = dres_.count(node, port, p.size, now);
    std::uint32_t a = static_cast<std::uint32_t>(u) | static_cast<std::uint32_t>(ce) << 8;
    std::uint8_t st = kHdr;
    // One Congestion-From-Leaf entry about the destination leaf's uplinks goes back with the packet.
    const std::size_t dl_up = uplinks_[dl].size();
    const std::size_t row = (l * nl + dl) * max_up_;
    std::uint16_t& rr = fb_next_[l * nl + dl];
    std::size_t pick = rr % dl_up;
    for (std::size_t i = 0; i < dl_up; ++i) {
      const std::size_t c = (rr + i) % dl_up;
      if (from_changed_[row + c]) {
        pick = c;
        break;
      }
    }
    from_changed_[row + pick] = 0;
    rr = static_cast<std::uint16_t>((pick + 1) % dl_up);
    a |= static_cast<std::uint32_t>(pick) << 16 | static_cast<std::uint32_t>(from_leaf_[row + pick]) << 24;
    st |= kFb;
    set_aux(p, a);
    p.route_state = st;
    return port;
  }
  // Spine: towards the destination leaf.
  const auto c = tables_.candidates(node, dst_sw);
  if (c.empty()) return -1;
  const std::int32_t port =
      c.size() == 1 ? c[0] : c[ecmp_hash(p.src, p.dst, p.flow, p.ev, salt_[static_cast<std::size_t>(node)]) % c.size()];
  const int m = dres_.count(node, port, p.size, now);
  if (p.route_state & kHdr) {
    const std::uint32_t a = aux(p);
    const int ce = std::max(m, static_cast<int>((a >> 8) & 0xFF));
    set_aux(p, (a & ~0xFF00u) | static_cast<std::uint32_t>(ce) << 8);
  }
  return port;
}

nlohmann::json CongaRouter::summary() const {
  return {{"flowlets", flowlets_.flowlets()},
          {"flowlet_moves", flowlets_.moves()},
          {"feedback", feedback_},
          {"leaves", leaf_node_.size()},
          {"dre_period_us", to_us(p_.dre_period)},
          {"alpha", p_.alpha},
          {"q_bits", p_.q_bits},
          {"flowlet_timeout_us", to_us(p_.flowlet_timeout)},
          {"candidates", p_.candidates}};
}

namespace {
using namespace config;
const RegisterRouting kConga{
    {{"conga",
      "CONGA: leaf-to-leaf congestion feedback (DRE per fabric port, quantised, piggybacked) and flowlets sent to the "
      "uplink minimising max(local, remote) metric, on a 2-tier leaf-spine; on a Rail or a Dragonfly the same over the "
      "LAPS candidate paths of routing.source_paths (LBTag = path index, the path is source-routed) ([CONGA] sec. 3; "
      "docs/baselines.md, docs/laps.md).",
      {
          real("routing.conga_dre_period_us", 200, "us", "conga: DRE decay period T_dre (the LAPS artifact: 200).")
              .range(1e-3, 1e9),
          real("routing.conga_alpha", 0.2, "",
               "conga: DRE decay factor alpha per period; tau = T_dre / alpha (the LAPS artifact: 0.2).")
              .range(1e-6, 1),
          integer("routing.conga_q_bits", 3, "bits",
                  "conga: quantisation of the congestion metric ([CONGA] and the LAPS artifact: 3).")
              .range(1, 7),
          real("routing.conga_flowlet_timeout_us", 10, "us",
               "conga: idle gap of a flow at its source leaf (ToR) that starts a new flowlet (the LAPS artifact: 10).")
              .range(1e-6, 1e9),
          integer(
              "routing.conga_candidates", 0, "uplinks",
              "conga: uplinks (on a Rail or Dragonfly: candidate paths) compared for a new flowlet: 0 = all ([CONGA]); "
              "k = k drawn at random, all when fewer (the LAPS artifact compares up to 4 candidate paths).")
              .range(0, 255),
      },
      {}},
     [](const RoutingContext& c) -> std::unique_ptr<net::Router> {
       CongaParams p;
       p.dre_period = std::max<SimTime>(1, from_us(c.cfg.real("routing.conga_dre_period_us")));
       p.alpha = c.cfg.real("routing.conga_alpha");
       p.q_bits = static_cast<int>(c.cfg.integer("routing.conga_q_bits"));
       p.flowlet_timeout = from_us(c.cfg.real("routing.conga_flowlet_timeout_us"));
       p.candidates = static_cast<std::uint32_t>(c.cfg.integer("routing.conga_candidates"));
       // A Rail or a Dragonfly (the candidate rule of routing.source_paths): CONGA over the candidate
       // paths (routing/conga_paths.h); anything else: the leaf-spine design, which checks the topology.
       if (CandidatePaths::rule_of(c.cfg.text("routing.source_paths"), c.tables.topology()) != PathRule::Yen)
         return std::make_unique<CongaPathsRouter>(c.tables, c.net, CandidatePaths::checked_rule(c),
                                                   static_cast<int>(c.cfg.integer("routing.source_paths_k")),
                                                   from_ns(c.cfg.real("network.switch_latency_ns")),
                                                   c.cfg.integer("network.mtu") + c.cfg.integer("network.header_bytes"),
                                                   p, c.seed);
       return std::make_unique<CongaRouter>(c.tables, c.net, p, c.seed);
     },
     "conga",
     [](const net::Router& r, SimTime) -> nlohmann::json {
       if (const auto* cp = dynamic_cast<const CongaPathsRouter*>(&r)) return cp->summary();
       return static_cast<const CongaRouter&>(r).summary();
     }}};
}  // namespace

}  // namespace lbsim::routing
