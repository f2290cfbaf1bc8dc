// Install-and-walk check of the OpenSM tables ([SlimFly] sec. 5.1, 5.2): installs a parsed LFT dump as
// OpenSM's file routing engine would, walks every route hop by hop and checks the SL-to-VL lanes. See opensm.h.
#include "analysis/opensm.h"

#include <algorithm>
#include <cstdlib>
#include <unordered_map>

#include <fmt/core.h>
#include <fmt/format.h>

namespace lbsim::analysis {

// ============================================================================ install and walk

OpenSmInstaller::OpenSmInstaller(const Fabric& f, const std::map<std::string, std::pair<int, int>>& assigned) {
  for (const auto& [g, r] : assigned) top_ = std::max(top_, r.second);
  auto range_of = [&](const std::string& guid) {
    const auto it = assigned.find(guid);
    return it == assigned.end() ? std::make_pair(0, -1) : it->second;
  };
  for (const auto& s : f.switches) t_.switch_lids.push_back(range_of(s.guid));
  for (const auto& e : f.endpoints) t_.endpoint_lids.push_back(range_of(e.port_guid));
  for (int s = 0; s < f.num_switches(); ++s) sw_of_[f.switches[static_cast<std::size_t>(s)].guid] = s;
  // The LID ranges by numeric GUID (an entry names its port GUID as a number); the keys of
  // `assigned` are GUIDs as hex text.
  for (const auto& [g, r] : assigned) range_by_guid_[std::strtoull(g.c_str(), nullptr, 16)] = r;
  t_.lft.assign(static_cast<std::size_t>(f.num_switches()), {});
}

void OpenSmInstaller::add(const LftDumpSwitch& blk) {
  const auto it = sw_of_.find(blk.guid);
  if (it == sw_of_.end()) {
    ++t_.unknown_switches;  // OpenSM: "cannot find switch", the block is skipped
    return;
  }
  auto& lft = t_.lft[static_cast<std::size_t>(it->second)];
  lft.assign(static_cast<std::size_t>(top_) + 1, kNoPort);  // memset(new_lft, OSM_NO_PATH) per block
  for (const auto& e : blk.entries) {
    int lid = e.lid;
    if (e.has_port_guid) {
      // remap_lid (osm_ucast_file.c): keep the LID if the port owns it, otherwise the same offset
      // inside the port's block. (Consecutive entries mostly name the same port.)
      if (!have_last_ || e.port_guid != last_guid_) {
        const auto rit = range_by_guid_.find(e.port_guid);
        last_range_ = rit == range_by_guid_.end() ? std::make_pair(0, -1) : rit->second;
        last_guid_ = e.port_guid;
        have_last_ = true;
      }
      const auto r = last_range_;
      if (r.second >= r.first && (lid < r.first || lid > r.second)) {
        int lmc = 0;
        while ((1 << (lmc + 1)) <= r.second - r.first + 1) ++lmc;
        lid = r.first + (lid & ((1 << lmc) - 1));
      }
    }
    if (lid >= 0 && lid <= top_) lft[static_cast<std::size_t>(lid)] = static_cast<std::uint8_t>(e.port);
  }
}

InstalledTables OpenSmInstaller::finish() {
  for (const auto& l : t_.lft) t_.switches_without_table += l.empty();
  return std::move(t_);
}

InstalledTables install_like_opensm(const Fabric& f, const std::vector<LftDumpSwitch>& dump,
                                    const std::map<std::string, std::pair<int, int>>& assigned) {
  OpenSmInstaller ins(f, assigned);
  for (const auto& blk : dump) ins.add(blk);
  return ins.finish();
}

std::string WalkReport::text() const {
  std::string o = fmt::format("routes {} delivered {} failed {} (max {} switch hops)\n", routes, delivered, failed,
                              max_switch_hops);
  for (const auto& f : failures) o += "  " + f + "\n";
  return o;
}

namespace {

// Destination of each assigned LID: ('S', switch) or ('H', endpoint).
std::vector<std::pair<char, int>> owners_of(const Fabric& f, const InstalledTables& t, int& top) {
  top = 0;
  for (const auto& r : t.switch_lids) top = std::max(top, r.second);
  for (const auto& r : t.endpoint_lids) top = std::max(top, r.second);
  std::vector<std::pair<char, int>> o(static_cast<std::size_t>(top) + 1, {0, -1});
  for (int s = 0; s < f.num_switches(); ++s)
    for (int l = t.switch_lids[static_cast<std::size_t>(s)].first;
         l <= t.switch_lids[static_cast<std::size_t>(s)].second; ++l)
      o[static_cast<std::size_t>(l)] = {'S', s};
  for (int e = 0; e < f.num_endpoints(); ++e)
    for (int l = t.endpoint_lids[static_cast<std::size_t>(e)].first;
         l <= t.endpoint_lids[static_cast<std::size_t>(e)].second; ++l)
      o[static_cast<std::size_t>(l)] = {'H', e};
  return o;
}

}  // namespace

WalkReport walk_routes(const Fabric& f, const InstalledTables& t) {
  WalkReport rep;
  int top = 0;
  const auto owner = owners_of(f, t, top);
  const int n = f.num_switches();
  std::vector<long> sources(static_cast<std::size_t>(n), 1);  // the switch itself (port 0)
  for (const auto& e : f.endpoints) ++sources[static_cast<std::size_t>(e.sw)];
  auto failure = [&](long count, const std::string& msg) {
    rep.failed += count;
    if (rep.failures.size() < 10) rep.failures.push_back(msg);
  };
  for (int s = 0; s < n; ++s) {
    // Every source on switch s (its endpoints and the switch) enters the LFTs at s; forwarding
    // depends on the destination LID only, so one walk per (s, LID) decides all of them.
    const long k = sources[static_cast<std::size_t>(s)];
    for (int lid = 1; lid <= top; ++lid) {
      const auto [kind, idx] = owner[static_cast<std::size_t>(lid)];
      if (!kind) continue;
      rep.routes += k;
      int x = s, hops = 0;
      for (;;) {
        const auto& lft = t.lft[static_cast<std::size_t>(x)];
        if (lft.empty() || lft[static_cast<std::size_t>(lid)] == kNoPort) {
          failure(k, fmt::format(
                         "from {}: LID {:#06x} has no entry at {}{}", f.switches[static_cast<std::size_t>(s)].name, lid,
                         f.switches[static_cast<std::size_t>(x)].name, lft.empty() ? " (no table loaded)" : ""));
          break;
        }
        const int pt = lft[static_cast<std::size_t>(lid)];
        const auto& sw = f.switches[static_cast<std::size_t>(x)];
        if (pt == 0) {
          if (kind == 'S' && idx == x) {
            rep.delivered += k;
          } else {
            failure(k, fmt::format("from {}: LID {:#06x} ends at {} port 0, not at its owner",
                                   f.switches[static_cast<std::size_t>(s)].name, lid, sw.name));
          }
          break;
        }
        if (pt > sw.nports() || sw.ports[static_cast<std::size_t>(pt)].kind == FabricPort::None) {
          failure(k, fmt::format("from {}: LID {:#06x} leaves {} through port {}, which has no cable",
                                 f.switches[static_cast<std::size_t>(s)].name, lid, sw.name, pt));
          break;
        }
        const auto& fp = sw.ports[static_cast<std::size_t>(pt)];
        if (fp.kind == FabricPort::Endpoint) {
          if (kind == 'H' && idx == fp.peer) {
            rep.delivered += k;
            rep.max_switch_hops = std::max(rep.max_switch_hops, hops);
          } else {
            failure(k, fmt::format("from {}: LID {:#06x} delivered to {} at {} port {}",
                                   f.switches[static_cast<std::size_t>(s)].name, lid,
                                   f.endpoints[static_cast<std::size_t>(fp.peer)].name, sw.name, pt));
          }
          break;
        }
        x = fp.peer;
        if (++hops > n) {
          failure(k, fmt::format("from {}: LID {:#06x} loops", f.switches[static_cast<std::size_t>(s)].name, lid));
          break;
        }
      }
    }
  }
  return rep;
}

VlCheck check_vls(const Fabric& f, const InstalledTables& t, const PathSlTable& sls, const Sl2VlDump& sl2vl) {
  VlCheck c;
  int top = 0;
  const auto owner = owners_of(f, t, top);
  const int n = f.num_switches();
  int maxp = 0;
  for (const auto& s : f.switches) maxp = std::max(maxp, s.nports());
  const std::size_t stride = static_cast<std::size_t>(maxp) + 1;
  // Per switch: its SL2VL rows as a dense array [out][sl][in] (-1 = missing): bytes, and the
  // injection ports of one (out, SL) side by side, so the walk below touches few cache lines.
  std::vector<std::vector<std::int8_t>> rows(static_cast<std::size_t>(n));
  for (int s = 0; s < n; ++s) {
    const auto& sw = f.switches[static_cast<std::size_t>(s)];
    auto& r = rows[static_cast<std::size_t>(s)];
    r.assign(stride * stride * 16, -1);
    const auto it = sl2vl.by_guid.find(sw.guid);
    if (it == sl2vl.by_guid.end()) continue;
    for (const auto& [io, vls] : it->second)
      if (io.first <= maxp && io.second <= maxp)
        for (int v = 0; v < 16; ++v)
          r[(static_cast<std::size_t>(io.second) * 16 + static_cast<std::size_t>(v)) * stride +
            static_cast<std::size_t>(io.first)] =
              static_cast<std::int8_t>(vls[static_cast<std::size_t>(v)]);  // 0..15 (parse_sl2vl_dump)
  }
  std::vector<char> vl_seen(16, 0);
  // VLs the rows use (0..nv-1): the (channel, VL) nodes below have nv VLs per channel, not 16.
  int nv = 1;
  for (const auto& r : rows)
    for (const std::int8_t v : r) nv = std::max(nv, v + 1);
  const std::uint64_t nvl = static_cast<std::uint64_t>(nv);
  auto vc = [&](int sw, int port, int vl) {
    return (static_cast<std::uint64_t>(sw) * stride + static_cast<std::uint64_t>(port)) * nvl +
           static_cast<std::uint64_t>(vl);
  };
  // The (channel, VL) dependency edges. The head b of an edge a -> b sits on the switch at the far
  // end of a's channel, so b is one of that switch's (port, VL) pairs: a bitmap of stride * nv bits
  // per node a holds the edge set without duplicates (a route per LID and injection port repeats
  // most edges). Falls back to a sorted list when the bitmap would be large.
  const std::uint64_t nodes = stride * nvl * static_cast<std::uint64_t>(n);
  const std::uint64_t heads = stride * nvl;
  const bool use_bits = nodes * heads <= (std::uint64_t{1} << 31);  // <= 256 MB
  std::vector<std::uint64_t> bits(use_bits ? (nodes * heads + 63) / 64 : 0, 0);
  std::vector<std::uint64_t> edges;
  auto add_edge = [&](std::uint64_t from, int head_port, int head_vl, std::uint64_t to) {
    if (use_bits) {
      const std::uint64_t i =
          from * heads + static_cast<std::uint64_t>(head_port) * nvl + static_cast<std::uint64_t>(head_vl);
      bits[i >> 6] |= std::uint64_t{1} << (i & 63);
    } else {
      edges.push_back(from * nodes + to);
    }
  };
  // Per source switch: its SL row and injection ports (endpoint ports, each with its own SL2VL rows).
  std::vector<const std::vector<int>*> sl_row(static_cast<std::size_t>(n), nullptr);
  std::vector<std::vector<int>> ins(static_cast<std::size_t>(n));
  for (int s = 0; s < n; ++s) {
    const auto& sw = f.switches[static_cast<std::size_t>(s)];
    const auto sit = sls.by_switch.find(sw.guid);
    if (sit == sls.by_switch.end()) {
      c.problem = fmt::format("path-sl has no table for {} (0x{})", sw.name, sw.guid);
      return c;
    }
    sl_row[static_cast<std::size_t>(s)] = &sit->second;
    for (int pt = 1; pt <= sw.nports(); ++pt)
      if (sw.ports[static_cast<std::size_t>(pt)].kind == FabricPort::Endpoint)
        ins[static_cast<std::size_t>(s)].push_back(pt);
  }
  // Forwarding depends on the destination LID only and the SL is fixed along a route, so for one
  // LID the walk from state (switch, in port, SL) on is the same for every route reaching it: each
  // state is walked once per LID; later routes add their edge into it and its remaining hop count.
  // The routes from the other injection ports of a switch leave it through the same port into the
  // same state, so only their first hop (its VL) is looked at.
  std::vector<int> seen(static_cast<std::size_t>(n) * stride * 16, 0);  // LID that last walked the state
  std::vector<long> rem(seen.size(), -1);  // hops counted from the state on (-1: walk in progress)
  std::vector<std::size_t> trail;
  // LIDs whose walks are the same: the LIDs of the endpoints of one switch in one layer are
  // forwarded alike up to their last switch, where each leaves through its own HCA port (a sink) and
  // carries the same SLs. A LID whose tables read back as another's (per switch: the same cable out,
  // or a stop; per source: the same SL) adds that LID's routes and hops and no new dependency, so
  // it is looked up (hash of its column, then compared entry by entry) instead of walked again.
  auto lid_out = [&](int x, int lid) {  // next switch-to-switch port of LID at switch x; -1 = the walk stops
    const auto& lft = t.lft[static_cast<std::size_t>(x)];
    if (lft.empty()) return -1;
    const int out = lft[static_cast<std::size_t>(lid)];
    if (out == kNoPort || out == 0) return -1;
    const auto& xs = f.switches[static_cast<std::size_t>(x)];
    if (out > xs.nports() || xs.ports[static_cast<std::size_t>(out)].kind != FabricPort::Switch) return -1;
    return out;
  };
  auto sl_of = [&](int s, int lid) {
    const auto& slv = *sl_row[static_cast<std::size_t>(s)];
    return lid < static_cast<int>(slv.size()) ? slv[static_cast<std::size_t>(lid)] : -1;
  };
  std::unordered_map<std::uint64_t, std::vector<int>> walked;  // column hash -> LIDs walked
  std::vector<long> lid_routes(static_cast<std::size_t>(top) + 1, 0), lid_hops(static_cast<std::size_t>(top) + 1, 0);
  for (int lid = 1; lid <= top && c.problem.empty(); ++lid) {
    if (!owner[static_cast<std::size_t>(lid)].first) continue;
    std::uint64_t h = 1469598103934665603ULL;
    for (int x = 0; x < n; ++x) h = (h ^ static_cast<std::uint64_t>(lid_out(x, lid) + 2)) * 1099511628211ULL;
    for (int s = 0; s < n; ++s) h = (h ^ static_cast<std::uint64_t>(sl_of(s, lid) + 2)) * 1099511628211ULL;
    auto& same_hash = walked[h];
    int like = -1;
    for (const int a : same_hash) {
      bool same = true;
      for (int x = 0; x < n && same; ++x) same = lid_out(x, lid) == lid_out(x, a) && sl_of(x, lid) == sl_of(x, a);
      if (same) {
        like = a;
        break;
      }
    }
    if (like >= 0) {
      c.routes += lid_routes[static_cast<std::size_t>(like)];
      c.hops += lid_hops[static_cast<std::size_t>(like)];
      continue;
    }
    same_hash.push_back(lid);
    const long routes_before = c.routes, hops_before = c.hops;
    for (int s = 0; s < n && c.problem.empty(); ++s) {
      const auto& sw = f.switches[static_cast<std::size_t>(s)];
      const auto& slv = *sl_row[static_cast<std::size_t>(s)];
      // What the first route from s (first injection port) found, for the others.
      bool first_walked = false, first_hop_ok = false, has_second = false;
      int first_out = 0, second_port = 0, second_vl = 0;
      std::uint64_t second_node = 0;
      long first_hops = 0;
      for (int in0 : ins[static_cast<std::size_t>(s)]) {
        const int sl = lid < static_cast<int>(slv.size()) ? slv[static_cast<std::size_t>(lid)] : -1;
        if (sl < 0) {
          c.problem = fmt::format("path-sl gives no SL for LID {:#06x} from {}", lid, sw.name);
          break;
        }
        ++c.routes;
        if (first_walked) {
          if (first_hop_ok) {
            const int vl = rows[static_cast<std::size_t>(s)]
                               [(static_cast<std::size_t>(first_out) * 16 + static_cast<std::size_t>(sl)) * stride +
                                static_cast<std::size_t>(in0)];
            if (vl < 0) {
              c.problem = fmt::format("sl2vl has no row ({} {}) for {}", in0, first_out, sw.name);
              break;
            }
            vl_seen[static_cast<std::size_t>(vl)] = 1;
            if (has_second) add_edge(vc(s, first_out, vl), second_port, second_vl, second_node);
          }
          c.hops += first_hops;
          continue;
        }
        first_walked = true;
        int x = s, in = in0, hops = 0;
        std::uint64_t prev = 0;
        bool have_prev = false;
        long tail = 0;
        trail.clear();
        for (;;) {
          const auto& lft = t.lft[static_cast<std::size_t>(x)];
          if (lft.empty() || lft[static_cast<std::size_t>(lid)] == kNoPort || lft[static_cast<std::size_t>(lid)] == 0)
            break;
          const int out = lft[static_cast<std::size_t>(lid)];
          const auto& xs = f.switches[static_cast<std::size_t>(x)];
          if (out > xs.nports()) break;
          const auto& fp = xs.ports[static_cast<std::size_t>(out)];
          if (fp.kind != FabricPort::Switch) break;  // the last hop into an HCA: a sink, no dependency
          const int vl = rows[static_cast<std::size_t>(x)]
                             [(static_cast<std::size_t>(out) * 16 + static_cast<std::size_t>(sl)) * stride +
                              static_cast<std::size_t>(in)];
          if (vl < 0) {
            c.problem = fmt::format("sl2vl has no row ({} {}) for {}", in, out, xs.name);
            break;
          }
          vl_seen[static_cast<std::size_t>(vl)] = 1;
          const std::uint64_t node = vc(x, out, vl);
          if (have_prev) add_edge(prev, out, vl, node);
          if (hops == 0) first_hop_ok = true, first_out = out;
          if (hops == 1) has_second = true, second_port = out, second_vl = vl, second_node = node;
          const std::size_t st =
              (static_cast<std::size_t>(x) * stride + static_cast<std::size_t>(in)) * 16 + static_cast<std::size_t>(sl);
          if (seen[st] == lid) {
            // Walked before for this LID (or a loop within this route, rem -1: the cycle's edges are in).
            tail = rem[st] < 0 ? 0 : rem[st];
            break;
          }
          seen[st] = lid;
          rem[st] = -1;
          trail.push_back(st);
          prev = node;
          have_prev = true;
          in = fp.peer_port;
          x = fp.peer;
          if (++hops > n) break;
        }
        for (std::size_t i = 0; i < trail.size(); ++i) rem[trail[i]] = static_cast<long>(trail.size() - i) + tail;
        first_hops = static_cast<long>(trail.size()) + tail;
        c.hops += first_hops;
        if (!c.problem.empty()) break;
      }
    }
    lid_routes[static_cast<std::size_t>(lid)] = c.routes - routes_before;
    lid_hops[static_cast<std::size_t>(lid)] = c.hops - hops_before;
  }
  for (char v : vl_seen) c.vls_used += v;
  if (!c.problem.empty()) return c;
  // Cycle check on the (channel, VL) dependency graph (sec. 5.2): Kahn's algorithm.
  if (use_bits) {
    // Far-end switch of every node's channel.
    std::vector<int> far(static_cast<std::size_t>(nodes), -1);
    for (int x = 0; x < n; ++x) {
      const auto& xs = f.switches[static_cast<std::size_t>(x)];
      for (int pt = 1; pt <= xs.nports(); ++pt)
        if (xs.ports[static_cast<std::size_t>(pt)].kind == FabricPort::Switch)
          for (int v = 0; v < nv; ++v)
            far[static_cast<std::size_t>(vc(x, pt, v))] = xs.ports[static_cast<std::size_t>(pt)].peer;
    }
    auto for_heads = [&](std::uint64_t a, auto&& fn) {
      const std::uint64_t lo = a * heads, hi = lo + heads;
      for (std::uint64_t i = lo; i < hi;) {
        const std::uint64_t word = bits[i >> 6] >> (i & 63);
        if (word == 0) {
          i = (i | 63) + 1;
          continue;
        }
        i += static_cast<std::uint64_t>(__builtin_ctzll(word));
        if (i >= hi) break;
        const std::uint64_t h = i - lo;
        fn(vc(far[static_cast<std::size_t>(a)], static_cast<int>(h / nvl), static_cast<int>(h % nvl)));
        ++i;
      }
    };
    std::vector<long> indeg(static_cast<std::size_t>(nodes), 0);
    std::vector<char> in_graph(static_cast<std::size_t>(nodes), 0);
    for (std::uint64_t a = 0; a < nodes; ++a)
      for_heads(a, [&](std::uint64_t b) {
        ++indeg[static_cast<std::size_t>(b)];
        in_graph[static_cast<std::size_t>(a)] = in_graph[static_cast<std::size_t>(b)] = 1;
      });
    std::vector<std::uint64_t> ready;
    std::size_t total = 0, done = 0;
    for (std::uint64_t v = 0; v < nodes; ++v)
      if (in_graph[static_cast<std::size_t>(v)]) {
        ++total;
        if (indeg[static_cast<std::size_t>(v)] == 0) ready.push_back(v);
      }
    while (!ready.empty()) {
      const auto v = ready.back();
      ready.pop_back();
      ++done;
      for_heads(v, [&](std::uint64_t w) {
        if (--indeg[static_cast<std::size_t>(w)] == 0) ready.push_back(w);
      });
    }
    c.acyclic = done == total;
    if (!c.acyclic) c.problem = "the (channel, VL) dependency graph has a cycle";
    return c;
  }
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  std::unordered_map<std::uint64_t, std::vector<std::uint64_t>> out_of;
  std::unordered_map<std::uint64_t, long> indeg;
  for (auto e : edges) {
    const std::uint64_t a = e / nodes, b = e % nodes;
    out_of[a].push_back(b);
    ++indeg[b];
    indeg.emplace(a, 0);
  }
  std::vector<std::uint64_t> ready;
  for (const auto& [v, d] : indeg)
    if (d == 0) ready.push_back(v);
  std::size_t done = 0;
  while (!ready.empty()) {
    const auto v = ready.back();
    ready.pop_back();
    ++done;
    if (auto it = out_of.find(v); it != out_of.end())
      for (auto w : it->second)
        if (--indeg[w] == 0) ready.push_back(w);
  }
  c.acyclic = done == indeg.size();
  if (!c.acyclic) c.problem = "the (channel, VL) dependency graph has a cycle";
  return c;
}

}  // namespace lbsim::analysis
