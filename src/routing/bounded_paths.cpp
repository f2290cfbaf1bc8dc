#include "routing/bounded_paths.h"

#include <algorithm>

#include <fmt/core.h>

#include "core/error.h"

namespace lbsim::routing {

BoundedPathSet::BoundedPathSet(const topo::Topology& t, const SwitchPairPorts& minimal)
    : t_(t), minimal_(minimal), pe_(t), stride_(static_cast<std::size_t>(pe_.max_hops())), rec_(stride_ + 1) {
  std::size_t most = 1;  // ports of the largest switch
  for (std::int32_t s = 0; s < t.num_switches(); ++s) most = std::max(most, t.ports[t.switch_node(s)].size());
  wide_ = most > 256;
  while ((std::size_t{1} << pack_bits_) < most) ++pack_bits_;
  pack_bits_ = std::max<std::uint32_t>(pack_bits_, 1);
  packable_ = pack_bits_ * stride_ <= 32;
}

std::size_t BoundedPathSet::bytes() const {
  return index_.bytes() + pairs_.bytes() + recs8_.bytes() + recs16_.bytes() + nonmin_.bytes();
}

std::vector<topo::Hop> BoundedPathSet::hops(std::uint32_t path, std::int32_t src_sw) const {
  std::vector<topo::Hop> h;
  for (std::int32_t k = 0, u = src_sw; k < length(path); ++k) {
    h.push_back({u, port(path, k)});
    u = t_.ports[u][h.back().port].peer;
  }
  return h;
}

const BoundedPathSet::Pair& BoundedPathSet::fill(std::int32_t src_sw, std::int32_t dst_sw, std::uint32_t a,
                                                 std::uint32_t b) {
  const std::size_t L = stride_;
  scratch_ports_.clear();
  scratch_len_.clear();
  scratch_global_.clear();
  // Without the classes: the Dragonfly search still gives each path's global hops (all the Table I
  // category below needs), the others are told apart by length.
  pe_.for_each_path(
      src_sw, dst_sw,
      [&](const topo::PathView& v) {
        for (std::int32_t k = 0; k < v.length; ++k) scratch_ports_.push_back(v.hops[k].port);
        scratch_ports_.resize(scratch_ports_.size() + L - static_cast<std::size_t>(v.length), 0);
        scratch_len_.push_back(static_cast<std::uint8_t>(v.length));
        scratch_global_.push_back(static_cast<std::uint8_t>(v.global));
      },
      /*classes=*/false);
  const std::size_t n = scratch_len_.size();
  if (n > 0xFFFF)
    throw UserError(
        fmt::format("routing: {} bounded paths between switches {} and {} (at most 65535 "
                    "are supported by the non-minimal routers)",
                    n, t_.nodes[src_sw].label, t_.nodes[dst_sw].label));
  // Sorted by output-port sequence: paths sharing a prefix are contiguous (per-hop sampling). No
  // two paths from one switch have the same ports, so the order is total.
  order_.resize(n);
  for (std::uint32_t i = 0; i < n; ++i) order_[i] = i;
  std::sort(order_.begin(), order_.end(), [&](std::uint32_t x, std::uint32_t y) {
    const std::int32_t* px = scratch_ports_.data() + x * L;
    const std::int32_t* py = scratch_ports_.data() + y * L;
    return std::lexicographical_compare(px, px + scratch_len_[x], py, py + scratch_len_[y]);
  });
  const bool df = t_.minimal_one_global_hop;
  const std::int32_t dmin = minimal_.distance(src_sw, dst_sw);
  Pair pr;
  pr.first = static_cast<std::uint32_t>((wide_ ? recs16_.size() : recs8_.size()) / rec_);
  pr.count = static_cast<std::uint32_t>(n);
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint32_t j = order_[i];
    const std::int32_t* pj = scratch_ports_.data() + j * L;
    const std::int32_t len = scratch_len_[j];
    // Table I: across groups every path with one global hop is minimal; inside a group only the
    // direct link (the detours through another switch of the group are Valiant paths).
    const bool is_min = df ? scratch_global_[j] == 1 || (scratch_global_[j] == 0 && len == dmin) : len == dmin;
    const auto meta = static_cast<std::uint8_t>(len | (is_min ? kMinimalBit : 0));
    if (wide_) {
      recs16_.push_back(meta);
      recs16_.append(pj, pj + L);
    } else {
      recs8_.push_back(meta);
      recs8_.append(pj, pj + L);
    }
    if (is_min) {
      if (pr.mins < kInlineMins) pr.min_at[pr.mins] = static_cast<std::uint16_t>(i);
      ++pr.mins;
    }
  }
  pr.nonmin_count = static_cast<std::uint32_t>(n) - pr.mins;
  if (pr.mins > kInlineMins) {
    pr.nonmin_first = static_cast<std::uint32_t>(nonmin_.size());
    for (std::uint32_t i = 0; i < n; ++i)
      if (!minimal(pr.first + i)) nonmin_.push_back(static_cast<std::uint16_t>(i));
  }
  index_.put(a, b, static_cast<std::uint32_t>(pairs_.size()));
  pairs_.push_back(pr);
  return pairs_[pairs_.size() - 1];
}

PathRouterBase::PathRouterBase(const MinimalTables& tables, std::uint64_t seed)
    : tables_(tables),
      topo_(tables.topology()),
      routes_(minimal_routes(tables, own_routes_)),
      groups_(own_routes_ ? own_routes_->arithmetic() : nullptr),
      paths_(tables.topology(), routes_),
      salt_(ecmp_salts(static_cast<std::size_t>(tables.topology().size()), seed)) {
  host_sw_.resize(static_cast<std::size_t>(topo_.num_hosts));
  for (std::int32_t h = 0; h < topo_.num_hosts; ++h) host_sw_[static_cast<std::size_t>(h)] = topo_.host_switch(h);
}

// Whether a packet that follows a path and has taken k >= 1 of its hops is at the path's k-th
// switch: it arrived at `node` from switch u = the far end of its in-port, where it was on the path
// (checked there; at k = 1 u is the path's source), so it is on the path when hop k - 1's port of u
// (`prev_port`) leads to `node` - unless something (e.g. a failure-masking wrapper) sent it
// elsewhere. Most often it left u by that very port, which the in-port's record tells.
bool PathRouterBase::on_path(std::int32_t node, const net::Packet& p, std::int32_t prev_port) const {
  const topo::Port& in = topo_.ports[node][p.in_port];
  return in.peer_port == prev_port || topo_.ports[in.peer][prev_port].peer == node;
}

std::int32_t PathRouterBase::forward(std::int32_t node, net::Packet& p, Rng* rng) {
  const std::int32_t dst_sw = host_switch(p.dst);
  if (node == dst_sw) return tables_.host_port(p.dst);
  if (p.route_state & kRouteFollow) {
    const std::uint32_t k = p.route_state & kRouteHopMask;
    const auto& pr = paths_.pair(host_switch(p.src), dst_sw);
    const auto aux = static_cast<std::uint32_t>(p.route_aux);
    std::uint32_t lo = aux & 0xFFFF, hi = aux >> 16;
    const auto kp = static_cast<std::int32_t>(k);
    if (hi - lo > 1 && rng) {
      // Per-hop Valiant: the range shares the first k hops; its paths' k-th ports form runs.
      std::uint32_t runs = 0;
      for (std::uint32_t i = lo; i < hi; ++i)
        if (i == lo || paths_.port(pr.first + i, kp) != paths_.port(pr.first + i - 1, kp)) ++runs;
      const auto pick = static_cast<std::uint32_t>(rng->below(runs));
      std::uint32_t i = lo;
      for (std::uint32_t r = 0; r < pick; ++r) {
        const auto port = paths_.port(pr.first + i, kp);
        while (paths_.port(pr.first + i, kp) == port) ++i;
      }
      lo = i;
      const auto port = paths_.port(pr.first + lo, kp);
      const std::uint32_t old_hi = hi;
      for (hi = lo + 1; hi < old_hi && paths_.port(pr.first + hi, kp) == port; ++hi) {}
    }
    if (hi - lo == 1) {
      // One path left: from here it is followed like a path drawn at the source, k hops taken.
      const std::uint32_t path = pr.first + lo;
      if (k > 0 && !on_path(node, p, paths_.port(path, kp - 1))) {
        p.route_state = kRouteMinimal;
        return minimal_port(node, dst_sw, p);
      }
      start_path(p, path);
      p.route_state = static_cast<std::uint8_t>(kRouteFixed | (k + 1));
      return paths_.port(path, kp);
    }
    p.route_aux = static_cast<std::int32_t>(lo | (hi << 16));
    if (k == 0 || on_path(node, p, paths_.port(pr.first + lo, kp - 1))) {
      p.route_state = static_cast<std::uint8_t>(kRouteFollow | (k + 1));
      return paths_.port(pr.first + lo, kp);
    }
    p.route_state = kRouteMinimal;
  }
  if (p.route_state & kRouteFixed) {
    const std::uint32_t k = p.route_state & kRouteHopMask;
    // The packet is where the path says unless something (e.g. a failure-masking wrapper) moved
    // it; then it continues minimally. On the path, k is below its length: the path ends at dst_sw.
    if (k == 0 || on_path(node, p, fixed_port(p, k - 1))) {
      p.route_state = static_cast<std::uint8_t>(kRouteFixed | (k + 1));
      return fixed_port(p, k);
    }
    p.route_state = kRouteMinimal;
  }
  return minimal_port(node, dst_sw, p);
}

}  // namespace lbsim::routing

namespace lbsim::routing {

namespace {
// The largest `cost(link)` over switch-to-switch links (an upper bound per hop of a bounded path).
template <class Cost>
SimTime max_switch_link_cost(const topo::Topology& t, Cost cost) {
  SimTime m = 0;
  for (const auto& l : t.links)
    if (!t.is_host(l.a) && !t.is_host(l.b)) m = std::max(m, static_cast<SimTime>(cost(l)));
  return m;
}
}  // namespace

config::MemoryShare bounded_path_memory(const config::Config&, const config::MemorySizes& s) {
  config::MemoryShare m;
  m.tables = own_minimal_bytes(s) + s.switches * s.switches * 2;
  if (s.bounded_paths <= 0) return m;
  // Per (source switch, destination switch) pair in use: its index entry and a 28-byte record, per
  // path a length byte and its output ports (at most 5: a Dragonfly's l-g-l-g-l; 1 byte each, 2 on
  // switches of more than 256 ports - the generators' switches are alike, so their mean port count
  // tells), and a 2-byte non-minimal index per path where a pair may have more minimal paths than its
  // record names (BoundedPathSet::kInlineMins): not on the Dragonfly (one per pair).
  m.path_pairs = std::min(s.entries, s.switches * s.switches);
  const double switch_ports = s.switches > 0 ? (2 * s.links - s.hosts) / s.switches : 0;
  const double port_bytes = switch_ports > 256 ? 2 : 1;
  const double index_bytes = s.minimal_one_global_hop ? 0 : 2;
  m.paths =
      m.path_pairs * (PairMap::kEstimatedBytesPerPair + 28 + s.bounded_paths * (1 + index_bytes + 5 * port_bytes));
  return m;
}

SimTime longest_bounded_rtt(const topo::Topology& t, SimTime switch_latency, Bytes data_bytes, Bytes ack_bytes) {
  topo::PathEnumerator pe(t);
  auto both_ways = [&](const topo::Link& l) {
    return serialization_ps(data_bytes, l.rate) + serialization_ps(ack_bytes, l.rate) + 2 * l.latency;
  };
  std::vector<std::int32_t> sw;  // switches with hosts, and their first host link's round trip
  std::vector<SimTime> host_rt;
  for (std::int32_t s = 0; s < t.num_switches(); ++s) {
    const auto hs = t.hosts_of(t.switch_node(s));
    if (hs.empty()) continue;
    sw.push_back(t.switch_node(s));
    host_rt.push_back(both_ways(t.links[t.ports[hs.front()][0].link]));
  }
  // Branch and bound: a pair's round trip is at most its host links plus max_hops links of the
  // costliest kind; pairs that cannot beat the best so far are not enumerated (exact, and on
  // uniform networks it stops enumerating after the first pair whose longest path has the bound).
  const SimTime link_max = max_switch_link_cost(t, both_ways);
  const SimTime path_max = 2 * static_cast<SimTime>(pe.max_hops() + 1) * switch_latency + pe.max_hops() * link_max;
  SimTime best = 0;
  for (std::size_t i = 0; i < sw.size(); ++i)
    for (std::size_t j = 0; j < sw.size(); ++j) {
      const SimTime ends = host_rt[i] + host_rt[j];
      if (i == j) {
        best = std::max(best, ends + 2 * switch_latency);
        continue;
      }
      if (ends + path_max <= best) continue;
      pe.for_each_path(sw[i], sw[j], [&](const topo::PathView& v) {
        SimTime rt = ends + 2 * static_cast<SimTime>(v.length + 1) * switch_latency;
        for (std::int32_t k = 0; k < v.length; ++k)
          rt += both_ways(t.links[t.ports[v.hops[k].node][v.hops[k].port].link]);
        best = std::max(best, rt);
      });
    }
  return best;
}

SimTime longest_bounded_minimal_ack_rtt(const topo::Topology& t, SimTime switch_latency, Bytes data_bytes,
                                        Bytes ack_bytes) {
  topo::PathEnumerator pe(t);
  const auto dist = topo::switch_distances(t);
  const auto one_way = [&](const topo::Link& l, Bytes bytes) { return serialization_ps(bytes, l.rate) + l.latency; };
  std::vector<std::int32_t> sw;  // switches with hosts, and their first host link
  std::vector<const topo::Link*> host_link;
  for (std::int32_t s = 0; s < t.num_switches(); ++s) {
    const auto hs = t.hosts_of(t.switch_node(s));
    if (hs.empty()) continue;
    sw.push_back(t.switch_node(s));
    host_link.push_back(&t.links[t.ports[hs.front()][0].link]);
  }
  // Branch and bound as in longest_bounded_rtt: data over at most max_hops links, the ACK over a
  // minimal path of at most `d` links (Dragonfly: at most local, global, local), each link at most
  // the costliest switch-to-switch link; pairs that cannot beat the best so far are skipped.
  const SimTime data_link_max = max_switch_link_cost(t, [&](const topo::Link& l) { return one_way(l, data_bytes); });
  const SimTime ack_link_max = max_switch_link_cost(t, [&](const topo::Link& l) { return one_way(l, ack_bytes); });
  SimTime best = 0;
  for (std::size_t i = 0; i < sw.size(); ++i)
    for (std::size_t j = 0; j < sw.size(); ++j) {
      const auto& hi = *host_link[i];
      const auto& hj = *host_link[j];
      const SimTime ends =
          one_way(hi, data_bytes) + one_way(hj, data_bytes) + one_way(hj, ack_bytes) + one_way(hi, ack_bytes);
      if (i == j) {
        best = std::max(best, ends + 2 * switch_latency);
        continue;
      }
      const std::int32_t d = dist[t.switch_index(sw[i])][t.switch_index(sw[j])];
      const SimTime ack_hops = t.minimal_one_global_hop ? std::min(3, pe.max_hops()) : d;
      if (ends + static_cast<SimTime>(pe.max_hops() + 1) * switch_latency + pe.max_hops() * data_link_max +
              (ack_hops + 1) * switch_latency + ack_hops * ack_link_max <=
          best)
        continue;
      SimTime data = 0, ack = 0;
      pe.for_each_path(sw[i], sw[j], [&](const topo::PathView& v) {
        SimTime x =
            one_way(hi, data_bytes) + one_way(hj, data_bytes) + static_cast<SimTime>(v.length + 1) * switch_latency;
        SimTime y =
            one_way(hj, ack_bytes) + one_way(hi, ack_bytes) + static_cast<SimTime>(v.length + 1) * switch_latency;
        for (std::int32_t k = 0; k < v.length; ++k) {
          const auto& l = t.links[t.ports[v.hops[k].node][v.hops[k].port].link];
          x += one_way(l, data_bytes);
          y += one_way(l, ack_bytes);
        }
        data = std::max(data, x);
        // Minimal (Table I categories): at most one global hop in a Dragonfly, else as many hops as
        // the switch distance. Links are full duplex with equal rates, so the way back costs the same.
        const bool minimal = t.minimal_one_global_hop ? v.global <= 1 : v.length == d;
        if (minimal) ack = std::max(ack, y);
      });
      best = std::max(best, data + ack);
    }
  return best;
}

}  // namespace lbsim::routing
