#include "routing/source_guided.h"

#include <algorithm>

#include <fmt/core.h>

#include "core/error.h"
#include "core/rng.h"
#include "routing/registry.h"

namespace lbsim::routing {

namespace {
constexpr int kMaxWalk = 32;  // hops; bounded paths are at most 5 (Dragonfly) / 4 (Slim Fly)

bool is_global(const topo::Topology& t, std::int32_t node, std::int32_t port) {
  return t.links[t.ports[node][port].link].kind == topo::LinkKind::Global;
}
}  // namespace

void PairHopTables::add_pair(std::vector<std::pair<std::int16_t, std::int16_t>>& hops) {
  std::sort(hops.begin(), hops.end());
  hops.erase(std::unique(hops.begin(), hops.end()), hops.end());
  const auto first = static_cast<std::uint32_t>(t1_.size());
  std::size_t i = 0;
  while (i < hops.size()) {
    const std::int16_t h1 = hops[i].first;
    t1_.push_back(h1);
    for (; i < hops.size() && hops[i].first == h1; ++i)
      if (hops[i].second >= 0) t2_.push_back(hops[i].second);
    t2_off_.push_back(static_cast<std::uint32_t>(t2_.size()));
  }
  recs_.push_back({first, static_cast<std::uint32_t>(t1_.size()) - first});
}

std::size_t PairHopTables::bytes() const {
  return recs_.capacity() * sizeof(Rec) + t2_off_.capacity() * sizeof(std::uint32_t) +
         (t1_.capacity() + t2_.capacity()) * sizeof(std::int16_t);
}

SourceGuidedTables::SourceGuidedTables(const MinimalTables& min, bool coarse, topo::PathOptions opt)
    : t_(min.topology()), pe_(min.topology(), std::move(opt)), min_(min) {
  nsw_ = static_cast<std::size_t>(t_.num_switches());
  // The group rules (same-group ECMP 2, l-g-l default routes, categories by global hops) follow the
  // enumerator's path rule, so the tables always match the paths the sender can pick; the rule in
  // turn comes from Topology::minimal_one_global_hop unless the options name one.
  dragonfly_ = pe_.rule() == topo::PathRule::Dragonfly;
  build_default(min);
  has_coarse_ = coarse;
}

std::size_t SourceGuidedTables::build_pair(std::int32_t s, std::int32_t d, std::uint32_t a, std::uint32_t b) const {
  const std::size_t pi = fine_.built_pairs();
  // Fine-grained ECMP tables: the first two hops of every bounded simple path (sec. III: "by
  // controlling up to the first two hops, the source can reach all bounded simple paths").
  std::vector<std::pair<std::int16_t, std::int16_t>> hops;
  if (s != d) {
    const bool same = same_group(s, d);
    pe_.for_each_path(
        s, d,
        [&](const topo::PathView& v) {
          if (v.length == 0) return;
          // Same-group Dragonfly traffic: ECMP 2 uses the default table (sec. III-B).
          const std::int16_t h2 = (v.length >= 2 && !same) ? static_cast<std::int16_t>(v.hops[1].port) : -1;
          hops.emplace_back(static_cast<std::int16_t>(v.hops[0].port), h2);
        },
        /*classes=*/false, /*prune=*/2);  // only the distinct first two hops matter
  }
  fine_.add_pair(hops);
  // Numbered before the coarse tables are made: they walk this pair's fine tables (entries()).
  index_.put(a, b, static_cast<std::uint32_t>(pi));
  if (fine_.first(pi).size() > 256)
    throw UserError(fmt::format("source_guided: switch '{}' has {} first hops; EV1 has 8 bits (256)", t_.nodes[s].label,
                                fine_.first(pi).size()));
  for (std::size_t i1 = 0; i1 < fine_.first(pi).size(); ++i1)
    if (fine_.second(pi, i1).size() > 256) throw UserError("source_guided: more than 256 second hops; EV2 has 8 bits");
  if (!has_coarse_) return pi;
  // Coarse-grained tables (sec. III-D): per category, the first two hops of the paths the
  // fine-grained EVs realize, so any (hash, hash) choice inside a category stays in it.
  std::vector<std::pair<std::int16_t, std::int16_t>> cat_hops[kNumCategories];
  if (s != d) {
    const bool same = same_group(s, d);
    for (const auto& p : entries(s, d)) {
      const std::int16_t h2 = (p.hops.size() >= 2 && !same) ? static_cast<std::int16_t>(p.hops[1].port) : -1;
      cat_hops[static_cast<int>(p.category)].emplace_back(static_cast<std::int16_t>(p.hops[0].port), h2);
    }
  }
  for (int c = 0; c < kNumCategories; ++c) coarse_[c].add_pair(cat_hops[c]);
  return pi;
}

void SourceGuidedTables::build_default(const MinimalTables& min) {
  // The default forwarding table holds one static minimal route per destination (sec. III-A). In a
  // Dragonfly "minimal" is group-minimal (local, global, local): hop-minimal routes may cross a
  // second group through two global links and would break the one-intermediate-group bound.
  default_.assign(nsw_ * nsw_, -1);
  for (std::size_t xi = 0; xi < nsw_; ++xi) {
    const std::int32_t x = t_.switch_node(static_cast<std::int32_t>(xi));
    const auto& ports = t_.ports[x];
    for (std::size_t di = 0; di < nsw_; ++di) {
      const std::int32_t d = t_.switch_node(static_cast<std::int32_t>(di));
      if (x == d) continue;
      std::int16_t out = -1;
      if (dragonfly_) {
        const std::int32_t gd = t_.nodes[d].group;
        auto port_to = [&](auto pred) -> std::int16_t {
          for (std::size_t p = 0; p < ports.size(); ++p)
            if (!t_.is_host(ports[p].peer) && pred(static_cast<std::int32_t>(p))) return static_cast<std::int16_t>(p);
          return -1;
        };
        if (t_.nodes[x].group == gd) {
          out = port_to([&](std::int32_t p) { return ports[p].peer == d; });
        } else {
          // A global link of x into the destination group (preferring one that lands on d).
          out = port_to([&](std::int32_t p) { return is_global(t_, x, p) && ports[p].peer == d; });
          if (out < 0)
            out = port_to([&](std::int32_t p) { return is_global(t_, x, p) && t_.nodes[ports[p].peer].group == gd; });
          if (out < 0) {
            // A local hop to a gateway switch of the own group (preferring one landing on d).
            auto gateway = [&](std::int32_t y, bool exact) {
              for (std::size_t q = 0; q < t_.ports[y].size(); ++q) {
                const std::int32_t z = t_.ports[y][q].peer;
                if (t_.is_host(z) || !is_global(t_, y, static_cast<std::int32_t>(q))) continue;
                if (exact ? z == d : t_.nodes[z].group == gd) return true;
              }
              return false;
            };
            for (bool exact : {true, false}) {
              if (out >= 0) break;
              out = port_to([&](std::int32_t p) {
                const std::int32_t y = ports[p].peer;
                return !is_global(t_, x, p) && t_.nodes[y].group == t_.nodes[x].group && gateway(y, exact);
              });
            }
          }
        }
      }
      if (out < 0) {
        // Hop-minimal next hop, one fixed choice per (switch, destination) spread by a hash.
        const auto c = min.candidates(x, d);
        if (!c.empty())
          out = c[splitmix64((static_cast<std::uint64_t>(x) << 32) ^ static_cast<std::uint64_t>(d)) % c.size()];
      }
      default_[di * nsw_ + xi] = out;
    }
  }
}

PathCategory SourceGuidedTables::category(std::int32_t s, std::int32_t d, std::int32_t hops,
                                          std::int32_t global) const {
  // Table I: in a Dragonfly every same-group path and every path with one global hop is minimal;
  // elsewhere a path is minimal when it has as many hops as the switch distance.
  if (dragonfly_) return (same_group(s, d) || global <= 1) ? PathCategory::Minimal : PathCategory::NonMinimal;
  return hops == min_.distance(s, d) ? PathCategory::Minimal : PathCategory::NonMinimal;
}

std::vector<topo::Hop> SourceGuidedTables::walk(std::int32_t s, std::int32_t d, std::uint32_t ev) const {
  std::vector<topo::Hop> out;
  if (s != d) walk_into(s, d, ev, pair(s, d), out);
  return out;
}

// walk() with the pair number of (s, d) already known: the ECMP 1 role (hop 1, at s) and the ECMP 2
// role (hop 2, whose previous switch is s) both read the tables of that pair.
void SourceGuidedTables::walk_into(std::int32_t s, std::int32_t d, std::uint32_t ev, std::size_t pi,
                                   std::vector<topo::Hop>& out) const {
  out.clear();
  std::int32_t node = s;
  // The ECMP 2 switch finds the entry of the port the packet left s by in the pair's first hops;
  // they are distinct (PairHopTables::add_pair), so that entry is the one EV1 picked at s.
  std::size_t i1 = 0;
  bool from_table = false;
  for (int hops = 1; node != d && hops <= kMaxWalk; ++hops) {
    std::int32_t port = -1;
    if (hops == 1) {
      const auto t1 = fine_.first(pi);
      from_table = !t1.empty();
      if (from_table) {
        i1 = ((ev >> 8) & 0xFF) % t1.size();
        port = t1[i1];
      } else {
        port = default_port(node, d);
      }
    } else if (hops == 2) {
      port = default_port(node, d);
      if (from_table && !same_group(s, d)) {
        const auto t2 = fine_.second(pi, i1);
        if (!t2.empty()) port = t2[(ev & 0xFF) % t2.size()];
      }
    } else {
      port = default_port(node, d);
    }
    if (port < 0) break;
    out.push_back(topo::Hop{node, port});
    node = t_.ports[node][port].peer;
  }
}

std::vector<SgPath> SourceGuidedTables::entries(std::int32_t s, std::int32_t d, bool with_hops) const {
  std::vector<SgPath> out;
  if (s == d) return out;
  const std::size_t pi = pair(s, d);
  const auto t1 = fine().first(pi);
  // Every (EV1, EV2) walk that stays simple and reaches d becomes a candidate; their hops go into one
  // flat buffer (a pair has up to ~1,900 walks in a Slim Fly q = 29, and a vector per walk plus the
  // sort of SgPath objects was a third of a Spritz run's setup).
  struct Cand {
    SimTime latency;
    std::uint32_t off;  // first hop in buf
    std::uint16_t ev;
    std::uint8_t len, global;
  };
  std::vector<Cand> cands;
  std::vector<topo::Hop> buf, hops;
  std::int32_t seen[kMaxWalk + 1];
  for (std::size_t i1 = 0; i1 < t1.size(); ++i1) {
    const std::size_t n2 = std::max<std::size_t>(1, fine_.second(pi, i1).size());
    for (std::size_t i2 = 0; i2 < n2; ++i2) {
      const auto ev = static_cast<std::uint16_t>((i1 << 8) | i2);
      walk_into(s, d, ev, pi, hops);
      // Keep simple paths that reach d (a default-table tail could revisit a switch).
      if (hops.empty()) continue;
      Cand c{0, static_cast<std::uint32_t>(buf.size()), ev, static_cast<std::uint8_t>(hops.size()), 0};
      int n = 0;
      seen[n++] = s;
      bool ok = true;
      std::int32_t node = s;
      for (const auto& h : hops) {
        const auto& port = t_.ports[h.node][h.port];
        c.latency += pe_.link_latency(port.link);
        c.global += t_.links[port.link].kind == topo::LinkKind::Global;
        node = port.peer;
        ok = ok && std::find(seen, seen + n, node) == seen + n;
        seen[n++] = node;
      }
      if (!ok || node != d) continue;
      buf.insert(buf.end(), hops.begin(), hops.end());
      cands.push_back(c);
    }
  }
  // Order by (latency, hop sequence, EV) like PathEnumerator::paths; a path's latency follows from
  // its hops, so the walks of one path are neighbours and the first of them has the smallest EV.
  const auto hop_order = [&](const Cand& a, const Cand& b) {  // <0, 0, >0: a's hops vs b's
    const std::size_t n = std::min(a.len, b.len);
    for (std::size_t i = 0; i < n; ++i) {
      const auto& x = buf[a.off + i];
      const auto& y = buf[b.off + i];
      if (x.node != y.node) return x.node < y.node ? -1 : 1;
      if (x.port != y.port) return x.port < y.port ? -1 : 1;
    }
    return a.len == b.len ? 0 : a.len < b.len ? -1 : 1;
  };
  std::sort(cands.begin(), cands.end(), [&](const Cand& a, const Cand& b) {
    if (a.latency != b.latency) return a.latency < b.latency;
    const int c = hop_order(a, b);
    if (c != 0) return c < 0;
    return a.ev < b.ev;
  });
  out.reserve(cands.size());
  for (std::size_t i = 0; i < cands.size(); ++i) {
    const Cand& c = cands[i];
    if (i > 0 && hop_order(cands[i - 1], c) == 0) continue;  // the same path, a larger EV
    SgPath p;
    p.ev = c.ev;
    p.latency = c.latency;
    p.global = c.global;
    p.local = c.len - c.global;
    if (with_hops) p.hops.assign(buf.begin() + c.off, buf.begin() + c.off + c.len);
    p.category = category(s, d, c.len, p.global);
    out.push_back(std::move(p));
  }
  return out;
}

std::size_t SourceGuidedTables::table_bytes() const {
  std::size_t b = index_.bytes() + fine_.bytes() + default_.size() * sizeof(std::int16_t);
  if (has_coarse_)
    for (const auto& c : coarse_) b += c.bytes();
  return b;
}

SourceGuidedRouter::SourceGuidedRouter(const MinimalTables& min, bool coarse, std::uint64_t seed, double w_scale,
                                       lb::WeightScale rule)
    : sg_(min, coarse),
      min_(min),
      topo_(min.topology()),
      coarse_(coarse),
      salt_(min.topology().size(), 0),
      w_scale_(w_scale),
      w_rule_(rule) {
  Rng rng(seed, hash_name("source-guided-salt"));
  for (auto& s : salt_) s = rng.next();
}

std::int32_t SourceGuidedRouter::route(std::int32_t node, net::Packet& p) {
  const std::int32_t d = topo_.host_switch(p.dst);
  if (node == d) return min_.host_port(p.dst);
  if (coarse_) return route_coarse(node, d, p);
  if (p.hops == 1) {  // ECMP 1: EV1 picks the first hop (identity hash modulo table size)
    const std::size_t pi = sg_.pair(node, d);
    const auto t1 = sg_.fine().first(pi);
    if (!t1.empty()) return t1[((p.ev >> 8) & 0xFF) % t1.size()];
  } else if (p.hops == 2) {  // ECMP 2: EV2 picks the second hop
    const auto& in = topo_.ports[node][p.in_port];
    if (!sg_.same_group(in.peer, d)) {
      const std::size_t pi = sg_.pair(in.peer, d);
      const auto t1 = sg_.fine().first(pi);
      for (std::size_t i1 = 0; i1 < t1.size(); ++i1)
        if (t1[i1] == in.peer_port) {
          const auto t2 = sg_.fine().second(pi, i1);
          if (!t2.empty()) return t2[(p.ev & 0xFF) % t2.size()];
          break;
        }
    }
  }
  return sg_.default_port(node, d);  // intermediate location (or no role): static minimal route
}

std::int32_t SourceGuidedRouter::route_coarse(std::int32_t node, std::int32_t d, net::Packet& p) {
  if (p.hops == 1) {
    if (p.route_aux < 0) {  // the sender's tag travels in EV1 (see the header)
      const std::uint32_t e1 = (p.ev >> 8) & 0xFF;
      p.route_aux = (e1 == 1 || e1 == 2) ? static_cast<std::int32_t>(e1 - 1) : -1;
    }
    if (p.route_aux < 0 || p.route_aux >= kNumCategories) {
      p.route_aux = -1;
      return sg_.default_port(node, d);
    }
    const std::size_t pi = sg_.pair(node, d);
    const auto t1 = sg_.coarse(static_cast<PathCategory>(p.route_aux)).first(pi);
    if (t1.empty()) {
      p.route_aux = -1;
      return sg_.default_port(node, d);
    }
    const std::int16_t out = t1[ecmp_hash(p.src, p.dst, p.flow, p.ev, salt_[node]) % t1.size()];
    if (topo_.ports[node][out].peer == d) p.route_aux = -1;  // no ECMP 2 role follows
    return out;
  }
  if (p.hops == 2 && p.route_aux >= 0) {
    const auto c = static_cast<PathCategory>(p.route_aux);
    p.route_aux = -1;  // sec. III-D: cleared so the rest of the path uses the default table
    const auto& in = topo_.ports[node][p.in_port];
    if (!sg_.same_group(in.peer, d)) {
      const std::size_t pi = sg_.pair(in.peer, d);
      const auto t1 = sg_.coarse(c).first(pi);
      for (std::size_t i1 = 0; i1 < t1.size(); ++i1)
        if (t1[i1] == in.peer_port) {
          const auto t2 = sg_.coarse(c).second(pi, i1);
          if (!t2.empty()) return t2[ecmp_hash(p.src, p.dst, p.flow, p.ev, salt_[node]) % t2.size()];
          break;
        }
    }
  }
  return sg_.default_port(node, d);
}

namespace {
std::uint64_t pair_key(std::int32_t a, std::int32_t b) {
  return (static_cast<std::uint64_t>(a) << 32) | static_cast<std::uint32_t>(b);
}
}  // namespace

const lb::PairPaths& SourceGuidedRouter::pair_paths(std::int32_t a, std::int32_t b) {
  const std::uint64_t key = pair_key(a, b);
  if (const auto it = ev_lists_.find(key); it != ev_lists_.end()) return it->second;
  const auto paths = sg_.entries(a, b, /*with_hops=*/false);
  std::vector<lb::EvEntry> entries;
  entries.reserve(paths.size());
  for (const auto& p : paths)
    entries.push_back(
        lb::EvEntry{p.ev, lb::ev_meta(p.category == PathCategory::NonMinimal, p.local + p.global), p.latency});
  if (entries.empty()) entries.push_back(lb::EvEntry{0, lb::ev_meta(false, 0), 0});  // same switch
  return ev_lists_.emplace(key, lb::EvEntryList(entries, w_scale_, w_rule_)).first->second;
}

PairPathSource::EvPath SourceGuidedRouter::describe_ev(std::int32_t a, std::int32_t b, std::uint32_t ev) const {
  EvPath d;
  if (const auto it = ev_lists_.find(pair_key(a, b)); it != ev_lists_.end()) {
    const lb::EvEntryList& list = it->second;
    d.entry = list.index_of(ev);
    if (d.entry >= 0) {
      const auto e = list[static_cast<std::size_t>(d.entry)];
      d.latency = e.latency;
      d.category = e.minimal() ? "minimal" : "non_minimal";
    }
  }
  if (!coarse_) {  // an EV names one path only in the fine-grained mode
    d.walked = true;
    for (const auto& h : sg_.walk(a, b, ev)) d.switches.push_back(h.node);
  }
  return d;
}

// Spritz endpoint table ([Spritz] sec. III-C, Fig. 3): one EV entry list (24 bits per entry) per
// destination switch, shared by the endpoints of a source switch. Measured exactly for up to 8 of
// the source switches the workload uses (the tables of Table II networks are near-symmetric), at
// most ~4,096 switch pairs in all: one source switch in networks of more than 2,048 switches
// (each pair's paths are enumerated; Slim Fly q = 29: ~1,800 paths for each of 1,682 pairs).
nlohmann::json SourceGuidedRouter::endpoint_summary() const {
  if (ev_lists_.empty()) return nullptr;
  // What the run built, read before the sample below builds the tables of every destination of
  // the sampled source switches.
  const std::size_t table_bytes = sg_.table_bytes(), table_pairs = sg_.built_pairs();
  const std::size_t max_srcs =
      std::clamp<std::size_t>(4096 / static_cast<std::size_t>(std::max(1, topo_.num_switches())), 1, 8);
  std::vector<std::int32_t> srcs;
  for (const auto& [key, list] : ev_lists_) {
    const auto a = static_cast<std::int32_t>(key >> 32);
    if (std::find(srcs.begin(), srcs.end(), a) == srcs.end() && srcs.size() < max_srcs) srcs.push_back(a);
  }
  std::int64_t max_bytes = 0, max_paths = 0;
  for (auto a : srcs) {
    std::int64_t bits = 0;
    for (std::int32_t b = 0; b < topo_.num_switches(); ++b) {
      const auto n = static_cast<std::int64_t>(sg_.entries(a, topo_.switch_node(b), /*with_hops=*/false).size());
      bits += n * lb::kEvEntryBits;
      max_paths = std::max(max_paths, n);
    }
    max_bytes = std::max(max_bytes, (bits + 7) / 8);
  }
  std::size_t lists_bytes = 0, lists_memory = 0;
  for (const auto& [key, list] : ev_lists_) {
    lists_bytes += (list.bits() + 7) / 8;
    lists_memory += list.bytes();
  }
  return {{"endpoint_table_bytes_per_endpoint", max_bytes},
          {"max_paths_per_destination", max_paths},
          {"sampled_source_switches", srcs.size()},
          {"ev_lists", ev_lists_.size()},
          {"ev_lists_bytes", lists_bytes},
          {"ev_lists_memory_bytes", lists_memory},
          {"w_scale", w_scale_},
          {"switch_table_bytes", table_bytes},
          {"switch_table_pairs", table_pairs}};
}

namespace {
// The memory guard (sim/memory.h), fine-grained routing: per switch pair the path enumerator's 16-bit
// distance and the default port (2 B); per pair the workload uses its index entry and, per bounded
// path, its EV entry (lb::EvEntryList::kBytesPerEntry) and its share of the pair's ECMP 1 / 2 tables,
// fine and per category (~8 B per path, measured at q = 29: 311 MB for 25,131 pairs of <= 1,694
// paths). Each connection gets its pair's list (path_lists): a load balancer may keep state per path.
config::MemoryShare endpoint_memory(const config::Config&, const config::MemorySizes& s) {
  config::MemoryShare m;
  m.tables = s.switches * s.switches * (2 + 2);
  if (s.bounded_paths <= 0) return m;
  m.path_pairs = std::min(s.entries, s.switches * s.switches);
  const double list_entry = static_cast<double>(lb::EvEntryList::kBytesPerEntry);
  m.paths = m.path_pairs * (PairMap::kEstimatedBytesPerPair + s.bounded_paths * (list_entry + 8));
  m.path_lists = true;
  return m;
}

nlohmann::json summarize(const net::Router& r, SimTime) {
  return static_cast<const SourceGuidedRouter&>(r).endpoint_summary();
}

lb::WeightScale weight_rule(const config::Config& c) {
  return c.text("lb.spritz_w_scale_rule") == "multiply" ? lb::WeightScale::Multiply : lb::WeightScale::Stretch;
}

const RegisterRouting kSourceGuided{
    {{"source_guided",
      "Spritz fine-grained source-guided routing: EV1/EV2 select the path hop by hop ([Spritz] sec. III).",
      {},
      {"topology.kind=dragonfly", "topology.p=1", "topology.a=2", "topology.h=1"}},
     [](const RoutingContext& c) {
       return std::make_unique<SourceGuidedRouter>(c.tables, false, c.seed, c.cfg.real("lb.spritz_w_scale"),
                                                   weight_rule(c.cfg));
     },
     "spritz",
     &summarize,
     &endpoint_memory}};
const RegisterRouting kSourceGuidedCoarse{
    {{"source_guided_coarse",
      "Spritz coarse-grained source-guided routing ([Spritz] sec. III-D).",
      {},
      {"topology.kind=dragonfly", "topology.p=1", "topology.a=2", "topology.h=1"}},
     [](const RoutingContext& c) {
       return std::make_unique<SourceGuidedRouter>(c.tables, true, c.seed, c.cfg.real("lb.spritz_w_scale"),
                                                   weight_rule(c.cfg));
     },
     "spritz",
     &summarize}};
}  // namespace

}  // namespace lbsim::routing
