#include "routing/source_route.h"

#include <algorithm>
#include <deque>
#include <set>
#include <stdexcept>

#include <fmt/core.h>

#include "core/error.h"
#include "routing/registry.h"

namespace lbsim::routing {

namespace {
std::uint64_t pair_key(std::int32_t a, std::int32_t b) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) | static_cast<std::uint32_t>(b);
}
SimTime ser(Bytes bytes, BitsPerSec rate) {
  return rate > 0 ? static_cast<SimTime>((static_cast<__int128>(bytes) * 8 * 1'000'000'000'000LL + rate - 1) / rate)
                  : 0;
}
}  // namespace

CandidatePaths::CandidatePaths(const MinimalTables& tables, PathRule rule, int k, SimTime switch_latency,
                               Bytes wire_bytes)
    : tables_(tables), topo_(tables.topology()), rule_(rule), k_(k), sw_lat_(switch_latency), wire_(wire_bytes) {}

PathRule CandidatePaths::rule_of(const std::string& name, const topo::Topology& t) {
  if (name == "dragonfly") return PathRule::Dragonfly;
  if (name == "rail") return PathRule::Rail;
  if (name == "yen") return PathRule::Yen;
  if (t.minimal_one_global_hop) return PathRule::Dragonfly;
  if (t.rail_planes) return PathRule::Rail;
  return PathRule::Yen;
}

PathRule CandidatePaths::checked_rule(const RoutingContext& c) {
  const auto& t = c.tables.topology();
  const PathRule rule = rule_of(c.cfg.text("routing.source_paths"), t);
  if (rule == PathRule::Dragonfly && !t.minimal_one_global_hop)
    throw UserError(c.cfg.where("routing.source_paths") +
                    "routing.source_paths = \"dragonfly\" needs a Dragonfly topology (groups joined by global links)");
  if (rule == PathRule::Rail && !t.rail_planes)
    throw UserError(c.cfg.where("routing.source_paths") +
                    "routing.source_paths = \"rail\" needs topology.kind = \"rail\"");
  return rule;
}

const char* CandidatePaths::rule_name(PathRule r) {
  switch (r) {
    case PathRule::Dragonfly:
      return "dragonfly";
    case PathRule::Rail:
      return "rail";
    case PathRule::Yen:
      return "yen";
  }
  return "?";
}

std::int32_t CandidatePaths::port_to(std::int32_t from, std::int32_t to) const {
  const auto& ps = topo_.ports[static_cast<std::size_t>(from)];
  for (std::size_t i = 0; i < ps.size(); ++i)
    if (ps[i].peer == to) return static_cast<std::int32_t>(i);
  return -1;
}

std::vector<std::int32_t> CandidatePaths::shortest(std::int32_t a, std::int32_t b) const {
  std::vector<std::int32_t> seq{a};
  std::int32_t cur = a;
  while (cur != b) {
    const auto c = tables_.candidates(cur, b);
    if (c.empty()) return {};
    cur = topo_.ports[static_cast<std::size_t>(cur)][static_cast<std::size_t>(c[0])].peer;
    seq.push_back(cur);
  }
  return seq;
}

// Anchors -> switch sequence (shortest path between consecutive anchors); false if it revisits a switch.
bool CandidatePaths::make_path(std::int32_t a, std::int32_t b, const std::vector<std::int32_t>& anchors,
                               SourcePath& out) const {
  std::vector<std::int32_t> stops{a};
  for (auto x : anchors)
    if (x != stops.back()) stops.push_back(x);
  if (stops.back() != b) stops.push_back(b);
  std::vector<std::int32_t> seq{a};
  for (std::size_t i = 0; i + 1 < stops.size(); ++i) {
    const auto part = shortest(stops[i], stops[i + 1]);
    if (part.empty()) return false;
    seq.insert(seq.end(), part.begin() + 1, part.end());
  }
  std::vector<std::int32_t> sorted = seq;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) return false;  // not loopless
  out.nodes = std::move(seq);
  return true;
}

// Fills the anchors (the fewest that expand back into `nodes`), ports and base latency.
void CandidatePaths::finish(SourcePath& p, std::int32_t a, std::int32_t b) const {
  const auto& n = p.nodes;
  p.anchors.clear();
  std::size_t i = 0;
  while (i + 1 < n.size()) {
    std::size_t j = n.size() - 1;
    for (; j > i + 1; --j) {
      const auto s = shortest(n[i], n[j]);
      if (s.size() == j - i + 1 && std::equal(s.begin(), s.end(), n.begin() + static_cast<std::ptrdiff_t>(i))) break;
    }
    if (j < n.size() - 1) p.anchors.push_back(n[j]);
    i = j;
  }
  p.out_ports.clear();
  p.back_ports.clear();
  SimTime lat = 0;
  const auto host_link = [&](std::int32_t sw) -> const topo::Link* {
    for (const auto& port : topo_.ports[static_cast<std::size_t>(sw)])
      if (topo_.is_host(port.peer)) return &topo_.links[static_cast<std::size_t>(port.link)];
    return nullptr;
  };
  BitsPerSec slowest = 0;
  std::size_t links = 0;
  double per_byte = 0;
  const auto count = [&](BitsPerSec rate) {
    slowest = links == 0 ? rate : std::min(slowest, rate);
    ++links;
    per_byte += 8e12 / static_cast<double>(rate);
  };
  if (const auto* l = host_link(a)) {
    lat += ser(wire_, l->rate) + l->latency;
    count(l->rate);
  }
  for (std::size_t h = 0; h + 1 < n.size(); ++h) {
    const std::int32_t o = port_to(n[h], n[h + 1]);
    const auto& port = topo_.ports[static_cast<std::size_t>(n[h])][static_cast<std::size_t>(o)];
    p.out_ports.push_back(static_cast<std::int16_t>(o));
    p.back_ports.push_back(static_cast<std::int16_t>(port.peer_port));
    const auto& l = topo_.links[static_cast<std::size_t>(port.link)];
    lat += ser(wire_, l.rate) + l.latency;
    count(l.rate);
  }
  if (const auto* l = host_link(b)) {
    lat += ser(wire_, l->rate) + l->latency;
    count(l->rate);
  }
  lat += sw_lat_ * static_cast<SimTime>(n.size());
  p.base_latency = lat;
  // wany16/Laps-ns3 cal_metadata_on_PIT_from_laps: the idle latency plus, per link, one packet at the
  // path's smallest rate.
  p.theoretical = lat + static_cast<SimTime>(links) * ser(wire_, slowest);
  p.ps_per_byte = per_byte;
}

// Yen's k shortest loopless paths by switch hops; spur paths by breadth-first search in port order.
std::vector<std::vector<std::int32_t>> CandidatePaths::yen(std::int32_t a, std::int32_t b) const {
  const auto bfs = [&](std::int32_t from, const std::vector<char>& banned_node,
                       const std::set<std::pair<std::int32_t, std::int32_t>>& banned_edge) {
    std::vector<std::int32_t> parent(static_cast<std::size_t>(topo_.size()), -2);
    std::deque<std::int32_t> q{from};
    parent[static_cast<std::size_t>(from)] = -1;
    while (!q.empty()) {
      const auto u = q.front();
      q.pop_front();
      if (u == b) break;
      for (const auto& port : topo_.ports[static_cast<std::size_t>(u)]) {
        const auto v = port.peer;
        if (topo_.is_host(v) || parent[static_cast<std::size_t>(v)] != -2 || banned_node[static_cast<std::size_t>(v)])
          continue;
        if (banned_edge.count({u, v})) continue;
        parent[static_cast<std::size_t>(v)] = u;
        q.push_back(v);
      }
    }
    std::vector<std::int32_t> path;
    if (parent[static_cast<std::size_t>(b)] == -2) return path;
    for (std::int32_t v = b; v != -1; v = parent[static_cast<std::size_t>(v)]) path.push_back(v);
    std::reverse(path.begin(), path.end());
    return path;
  };
  std::vector<std::vector<std::int32_t>> found;
  const std::vector<char> none(static_cast<std::size_t>(topo_.size()), 0);
  auto first = bfs(a, none, {});
  if (first.empty()) return found;
  found.push_back(std::move(first));
  const auto shorter = [](const std::vector<std::int32_t>& x, const std::vector<std::int32_t>& y) {
    return x.size() != y.size() ? x.size() < y.size() : x < y;
  };
  std::set<std::vector<std::int32_t>, decltype(shorter)> pending(shorter);
  while (static_cast<int>(found.size()) < k_) {
    const auto last = found.back();
    for (std::size_t i = 0; i + 1 < last.size(); ++i) {
      std::vector<char> banned(none);
      for (std::size_t j = 0; j < i; ++j) banned[static_cast<std::size_t>(last[j])] = 1;
      std::set<std::pair<std::int32_t, std::int32_t>> cut;
      for (const auto& f : found)
        if (f.size() > i + 1 && std::equal(last.begin(), last.begin() + static_cast<std::ptrdiff_t>(i + 1), f.begin()))
          cut.insert({f[i], f[i + 1]});
      const auto spur = bfs(last[i], banned, cut);
      if (spur.empty()) continue;
      std::vector<std::int32_t> total(last.begin(), last.begin() + static_cast<std::ptrdiff_t>(i));
      total.insert(total.end(), spur.begin(), spur.end());
      if (std::find(found.begin(), found.end(), total) == found.end()) pending.insert(std::move(total));
    }
    if (pending.empty()) break;
    found.push_back(*pending.begin());
    pending.erase(pending.begin());
  }
  return found;
}

std::vector<SourcePath> CandidatePaths::build(std::int32_t a, std::int32_t b) const {
  std::vector<SourcePath> out;
  const auto add = [&](const std::vector<std::int32_t>& anchors) {
    SourcePath p;
    if (!make_path(a, b, anchors, p)) return;
    for (const auto& q : out)
      if (q.nodes == p.nodes) return;  // the same switches twice: one candidate
    finish(p, a, b);
    out.push_back(std::move(p));
  };
  const auto group = [&](std::int32_t n) { return topo_.nodes[static_cast<std::size_t>(n)].group; };
  if (a == b) {
    add({});
  } else if (rule_ == PathRule::Yen) {
    for (auto& nodes : yen(a, b)) {
      SourcePath p;
      p.nodes = std::move(nodes);
      finish(p, a, b);
      out.push_back(std::move(p));
    }
  } else if (rule_ == PathRule::Rail) {
    add({});  // inside a cluster: the shortest path (the NVLink switch)
    if (group(a) != group(b) && group(a) >= 0 && group(b) >= 0) {
      out.clear();
      for (std::int32_t s = 0; s < topo_.num_switches(); ++s)
        if (group(topo_.switch_node(s)) == -1) add({topo_.switch_node(s)});
    }
  } else {  // Dragonfly ([LAPS] sec. 4.1)
    // The global link between groups x and y (its end in x, its end in y), or {-1, -1}.
    const auto gateway = [&](std::int32_t x, std::int32_t y) -> std::pair<std::int32_t, std::int32_t> {
      for (const auto& l : topo_.links) {
        if (l.kind != topo::LinkKind::Global) continue;
        if (group(l.a) == x && group(l.b) == y) return {l.a, l.b};
        if (group(l.b) == x && group(l.a) == y) return {l.b, l.a};
      }
      return {-1, -1};
    };
    const std::int32_t ga = group(a), gb = group(b);
    if (ga == gb) {
      add({});  // the direct local link
      for (std::int32_t s = 0; s < topo_.num_switches(); ++s) {
        const auto m = topo_.switch_node(s);
        if (m != a && m != b && group(m) == ga) add({m});
      }
    } else {
      const auto [x, y] = gateway(ga, gb);
      add({x, y});  // minimal: local-global-local
      std::int32_t groups = 0;
      for (const auto& nd : topo_.nodes) groups = std::max(groups, nd.group + 1);
      for (std::int32_t gc = 0; gc < groups; ++gc) {
        if (gc == ga || gc == gb) continue;
        const auto [x1, y1] = gateway(ga, gc);
        const auto [x2, y2] = gateway(gc, gb);
        if (x1 < 0 || x2 < 0) continue;
        add({x1, y1, x2, y2});  // through group gc: minimal to it, minimal from it
      }
    }
  }
  if (out.empty()) add({});
  return out;
}

const std::vector<SourcePath>& CandidatePaths::paths(std::int32_t a, std::int32_t b) {
  const auto key = pair_key(a, b);
  auto it = cache_.find(key);
  if (it != cache_.end()) return it->second;
  auto list = build(a, b);
  paths_ += list.size();
  for (const auto& p : list)
    bytes_ += sizeof(SourcePath) + p.anchors.size() * 4 + p.nodes.size() * 4 + p.out_ports.size() * 4;
  bytes_ += sizeof(std::vector<SourcePath>) + 32;
  return cache_.emplace(key, std::move(list)).first->second;
}

SourceRouteRouter::SourceRouteRouter(const MinimalTables& tables, PathRule rule, int k, SimTime switch_latency,
                                     Bytes wire_bytes)
    : tables_(tables), topo_(tables.topology()), paths_(tables, rule, k, switch_latency, wire_bytes) {}

const lb::PairPaths& SourceRouteRouter::pair_paths(std::int32_t a, std::int32_t b) {
  const std::uint64_t key = (static_cast<std::uint64_t>(a) << 32) | static_cast<std::uint32_t>(b);
  if (const auto it = sets_.find(key); it != sets_.end()) return it->second;
  lb::CandidateSet set;
  for (const auto& p : paths_.paths(a, b)) {
    set.base_latency.push_back(p.base_latency);
    set.theoretical.push_back(p.theoretical);
    set.ps_per_byte.push_back(p.ps_per_byte);
    set.anchors.push_back(static_cast<std::uint8_t>(std::min<std::size_t>(p.anchors.size(), 255)));
  }
  return sets_.emplace(key, std::move(set)).first->second;
}

std::int32_t SourceRouteRouter::route(std::int32_t node, net::Packet& p) {
  const bool forward = p.type == net::PacketType::Data;
  // The data direction of the packet's path: ACKs and NACKs walk it backwards.
  const std::int32_t from_host = forward ? p.src : p.dst, to_host = forward ? p.dst : p.src;
  const std::int32_t a = topo_.host_switch(from_host), b = topo_.host_switch(to_host);
  const auto& list = paths_.paths(a, b);
  const auto& path = list[p.ev % list.size()];
  const std::size_t len = path.nodes.size();
  const std::size_t k = static_cast<std::size_t>(p.hops) - 1;  // switches before this one on the walk
  if (k >= len) throw std::logic_error(fmt::format("source_route: packet of flow {} walked past its path", p.flow));
  const std::size_t at = forward ? k : len - 1 - k;
  if (path.nodes[at] != node)
    throw std::logic_error(fmt::format("source_route: packet of flow {} at switch {} left its path (expected {})",
                                       p.flow, node, path.nodes[at]));
  if (forward) return at + 1 == len ? tables_.host_port(p.dst) : path.out_ports[at];
  return at == 0 ? tables_.host_port(p.dst) : path.back_ports[at - 1];
}

namespace {
using namespace config;
const RegisterRouting kSourceRoute{
    {{"source_route",
      "Source routing ([LAPS] sec. 3.2-3.5): the EV indexes the candidate path of the packet's switch pair (anchor "
      "switches, shortest path between them); ACKs and NACKs take the reverse path (docs/laps.md).",
      {
          text("routing.source_paths", "auto",
               "source_route: candidate paths per switch pair: dragonfly (each other group / switch of the group as a "
               "midpoint, [LAPS] sec. 4.1), rail (one per rail switch), yen (k shortest loopless), auto (dragonfly on "
               "a Dragonfly, rail on a Rail, else yen).")
              .one_of({"auto", "dragonfly", "rail", "yen"})
              .read_by("routing.algorithm", {"conga", "conweave"})  // their candidate paths
              .read_by("routing.next_hops", {"candidates"}),        // ecmp / letflow over them
          integer("routing.source_paths_k", 8, "paths",
                  "source_route with yen: candidate paths per switch pair (k of Yen's k shortest paths).")
              .range(1, 1024)
              .read_by("routing.algorithm", {"conga", "conweave"})
              .read_by("routing.next_hops", {"candidates"}),
      },
      {}},
     [](const RoutingContext& c) {
       const PathRule rule = CandidatePaths::checked_rule(c);
       return std::make_unique<SourceRouteRouter>(c.tables, rule,
                                                  static_cast<int>(c.cfg.integer("routing.source_paths_k")),
                                                  from_ns(c.cfg.real("network.switch_latency_ns")),
                                                  c.cfg.integer("network.mtu") + c.cfg.integer("network.header_bytes"));
     },
     "source_route",
     [](const net::Router& r, SimTime) -> nlohmann::json {
       const auto& sr = dynamic_cast<const SourceRouteRouter&>(r).candidates();
       return {{"rule", CandidatePaths::rule_name(sr.rule())},
               {"pairs_built", sr.pairs()},
               {"paths_built", sr.total_paths()},
               {"cache_bytes", sr.bytes()}};
     }}};
}  // namespace

}  // namespace lbsim::routing
