// InfiniBand tables for OpenSM from layered routing ([SlimFly] sec. 5.1, 5.2, 5.4). See opensm.h.
#include "analysis/opensm.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iterator>
#include <limits>
#include <sstream>
#include <unordered_map>

#include <fmt/core.h>
#include <fmt/format.h>

#include "core/error.h"

namespace lbsim::analysis {

// ============================================================================ LIDs

int lmc_for_layers(int layers) {
  int lmc = 0;
  while ((1 << lmc) < layers) ++lmc;
  return lmc;
}

LidPlan make_lid_plan(const Fabric& f, int layers) {
  if (layers < 1 || layers > 128)
    throw UserError(
        fmt::format("{} layers: InfiniBand addresses at most 2^7 = 128 LIDs per port (LMC <= 7, "
                    "[SlimFly] sec. 5.1)",
                    layers));
  LidPlan p;
  p.layers = layers;
  p.lmc = lmc_for_layers(layers);
  const long a = p.block();
  const long n = f.num_endpoints(), ns = f.num_switches();
  long top = 0;
  if (n == 0) {
    // No endpoints: address the switches themselves, one aligned block each (enhanced port 0).
    p.switch_blocks = true;
    top = (ns + 1) * a - 1;
  } else {
    // Endpoint blocks from LID 2^LMC (the first aligned block; LID 0 is reserved); switch LIDs fill
    // the 2^LMC - 1 LIDs below it and then continue after the last block.
    top = std::max((n + 1) * a - 1, ns <= a - 1 ? 0L : (n + 1) * a + (ns - (a - 1)) - 1);
  }
  if (top > kMaxUnicastLid)
    throw UserError(fmt::format(
        "{} endpoints x 2^LMC = {} LIDs ({} layers) + {} switch LIDs need LIDs up to {:#06x}, beyond the unicast range "
        "0x0001-0xbfff ([SlimFly] sec. 5.4, Table 2: N * 2^LMC + N_r <= 49151); use fewer layers or fewer endpoints "
        "per switch (topology.p)",
        n, a, layers, ns, top));
  p.max_lid = static_cast<int>(top);
  if (p.switch_blocks) {
    for (long s = 0; s < ns; ++s) p.switch_lid.push_back(static_cast<int>((s + 1) * a));
  } else {
    for (long e = 0; e < n; ++e) p.endpoint_base.push_back(static_cast<int>((e + 1) * a));
    for (long s = 0; s < ns; ++s)
      p.switch_lid.push_back(static_cast<int>(s < a - 1 ? s + 1 : (n + 1) * a + (s - (a - 1))));
  }
  return p;
}

// ============================================================================ LFTs

Lfts compute_lfts(const routing::RoutingLayers& r, const Fabric& f, const LidPlan& lids) {
  const int n = f.num_switches();
  if (r.num_switches() != n)
    throw UserError(fmt::format("the layers were built for {} switches but the fabric has {}", r.num_switches(), n));
  if (lids.layers > r.num_layers())
    throw UserError(fmt::format("the LID plan has {} layers but the routing only {}", lids.layers, r.num_layers()));
  const int nl = lids.layers;
  // port[l][s][d] of sec. 5.1 on the fabric's physical ports (the one port model, fabric.h).
  std::vector<std::uint8_t> port(
      static_cast<std::size_t>(nl) * static_cast<std::size_t>(n) * static_cast<std::size_t>(n), 0);
  auto at = [&](int l, int s, int d) -> std::uint8_t& {
    return port[(static_cast<std::size_t>(l) * static_cast<std::size_t>(n) + static_cast<std::size_t>(s)) *
                    static_cast<std::size_t>(n) +
                static_cast<std::size_t>(d)];
  };
  for (int l = 0; l < nl; ++l)
    for (int s = 0; s < n; ++s)
      for (int d = 0; d < n; ++d) {
        if (s == d) continue;
        const int nh = r.next_hop(l, s, d);
        const int pt = f.port_to(s, nh);
        if (pt < 1)
          throw UserError(
              fmt::format("layer {} routes {} -> {} through {}, but the fabric has no cable between {} and {}", l,
                          f.switches[static_cast<std::size_t>(s)].name, f.switches[static_cast<std::size_t>(d)].name,
                          f.switches[static_cast<std::size_t>(nh)].name, f.switches[static_cast<std::size_t>(s)].name,
                          f.switches[static_cast<std::size_t>(nh)].name));
        if (pt > 254)
          throw UserError(
              fmt::format("{} port {}: InfiniBand switches have at most 254 ports (an LFT entry is one byte)",
                          f.switches[static_cast<std::size_t>(s)].name, pt));
        at(l, s, d) = static_cast<std::uint8_t>(pt);
      }
  Lfts lft(static_cast<std::size_t>(n), std::vector<std::uint8_t>(static_cast<std::size_t>(lids.max_lid) + 1, kNoPort));
  const int a = lids.block();
  for (int s = 0; s < n; ++s) {
    auto& t = lft[static_cast<std::size_t>(s)];
    for (int e = 0; e < f.num_endpoints(); ++e) {
      const auto& ep = f.endpoints[static_cast<std::size_t>(e)];
      const int base = lids.endpoint_base[static_cast<std::size_t>(e)];
      for (int o = 0; o < a; ++o)
        t[static_cast<std::size_t>(base + o)] = ep.sw == s ? static_cast<std::uint8_t>(ep.port) : at(o % nl, s, ep.sw);
    }
    for (int d = 0; d < n; ++d) {
      const int base = lids.switch_lid[static_cast<std::size_t>(d)];
      for (int o = 0; o < lids.switch_lids(); ++o)
        t[static_cast<std::size_t>(base + o)] = d == s ? 0 : at(lids.switch_blocks ? o % nl : 0, s, d);
    }
  }
  return lft;
}

namespace {

// What a LID names, for the dump's destination column and lids.csv.
struct LidOwner {
  char kind = 0;  // 'S' switch, 'H' endpoint, 0 none
  int index = -1;
};
std::vector<LidOwner> lid_owners(const Fabric& f, const LidPlan& lids) {
  std::vector<LidOwner> o(static_cast<std::size_t>(lids.max_lid) + 1);
  for (int e = 0; e < f.num_endpoints(); ++e)
    for (int k = 0; k < lids.block(); ++k)
      o[static_cast<std::size_t>(lids.endpoint_base[static_cast<std::size_t>(e)] + k)] = {'H', e};
  for (int s = 0; s < f.num_switches(); ++s)
    for (int k = 0; k < lids.switch_lids(); ++k)
      o[static_cast<std::size_t>(lids.switch_lid[static_cast<std::size_t>(s)] + k)] = {'S', s};
  return o;
}

// Descriptions go between quotes in the dumps; keep them on one line and free of quotes.
std::string clean(const std::string& d) {
  std::string o;
  for (char c : d) o += (c == '\'' || c == '"' || c == '\n' || c == '\r') ? '_' : c;
  return o;
}

}  // namespace

LftsDumpFormatter::LftsDumpFormatter(const Fabric& f, const LidPlan& lids) : f_(&f), lids_(&lids) {
  for (const auto& o : lid_owners(f, lids)) owner_.emplace_back(o.kind, o.index);
  // One destination text per owner, " : (<info>)\n", reused for every switch.
  for (const auto& s : f.switches)
    sw_text_.push_back(fmt::format(" : (Switch portguid 0x{}: '{}')\n", s.guid, clean(s.desc)));
  for (const auto& e : f.endpoints)
    ep_text_.push_back(fmt::format(" : (Channel Adapter portguid 0x{}: '{}')\n", e.port_guid, clean(e.desc)));
}

long LftsDumpFormatter::header(std::string& out) const {
  out += fmt::format(
      "# lbsim layered routing: linear forwarding tables in the ibroute / dump_lfts format (docs/layered-routing.md)\n"
      "# load with: opensm -R file -U <this file> (LMC {}, {} layers); every LID line names its port GUID\n",
      lids_->lmc, lids_->layers);
  return 2;
}

std::size_t LftsDumpFormatter::block_size(const std::vector<std::uint8_t>& t) const {
  std::size_t size = 256;
  for (int lid = 1; lid <= lids_->max_lid; ++lid) {
    if (t[static_cast<std::size_t>(lid)] == kNoPort) continue;
    const auto& ow = owner_[static_cast<std::size_t>(lid)];
    size += 10 + (ow.first == 'S' ? sw_text_ : ep_text_)[static_cast<std::size_t>(ow.second)].size();
  }
  return size;
}

long LftsDumpFormatter::block(int s, const std::vector<std::uint8_t>& t, std::string& out) const {
  // The LID lines by hand, the same text as fmt's "0x{:04x} {:03d}" (a LID is at most 0xbfff, a
  // port at most 254): the dump has switches x LIDs lines.
  static constexpr char kHex[] = "0123456789abcdef";
  const auto& sw = f_->switches[static_cast<std::size_t>(s)];
  out += fmt::format("Unicast lids [0x0-0x{:x}] of switch Lid {} guid 0x{} ({}):\n", lids_->max_lid,
                     lids_->switch_lid[static_cast<std::size_t>(s)], sw.guid, clean(sw.desc));
  out += "  Lid  Out   Destination\n       Port     Info \n";
  char line[16];
  long valid = 0;
  for (int lid = 1; lid <= lids_->max_lid; ++lid) {
    const std::uint8_t pt = t[static_cast<std::size_t>(lid)];
    if (pt == kNoPort) continue;
    const auto& ow = owner_[static_cast<std::size_t>(lid)];
    const std::string& dest =
        ow.first == 'S' ? sw_text_[static_cast<std::size_t>(ow.second)] : ep_text_[static_cast<std::size_t>(ow.second)];
    std::size_t k = 0;
    line[k++] = '0';
    line[k++] = 'x';
    if (lid > 0xffff) line[k++] = kHex[(lid >> 16) & 15];
    for (int sh = 12; sh >= 0; sh -= 4) line[k++] = kHex[(lid >> sh) & 15];
    line[k++] = ' ';
    line[k++] = static_cast<char>('0' + pt / 100);
    line[k++] = static_cast<char>('0' + pt / 10 % 10);
    line[k++] = static_cast<char>('0' + pt % 10);
    out.append(line, k);
    out += dest;
    ++valid;
  }
  out += fmt::format("{} valid lids dumped \n", valid);
  return valid + 4;
}

std::string format_lfts_dump(const Fabric& f, const LidPlan& lids, const Lfts& lft) {
  const LftsDumpFormatter fm(f, lids);
  // The file is large (switches x LIDs lines): size it once.
  std::size_t size = 256;
  for (int s = 0; s < f.num_switches(); ++s) size += fm.block_size(lft[static_cast<std::size_t>(s)]);
  std::string out;
  out.reserve(size);
  fm.header(out);
  for (int s = 0; s < f.num_switches(); ++s) fm.block(s, lft[static_cast<std::size_t>(s)], out);
  return out;
}

std::string format_guid2lid(const Fabric& f, const LidPlan& lids) {
  // osm_db format (osm_db_files.c: "%s %s\n\n"): no comment lines, the file is read back as data.
  std::string out;
  for (int s = 0; s < f.num_switches(); ++s) {
    const int lid = lids.switch_lid[static_cast<std::size_t>(s)];
    out += fmt::format("0x{} 0x{:04x} 0x{:04x}\n\n", f.switches[static_cast<std::size_t>(s)].guid, lid,
                       lid + lids.switch_lids() - 1);
  }
  for (int e = 0; e < f.num_endpoints(); ++e) {
    const int base = lids.endpoint_base[static_cast<std::size_t>(e)];
    out += fmt::format("0x{} 0x{:04x} 0x{:04x}\n\n", f.endpoints[static_cast<std::size_t>(e)].port_guid, base,
                       base + lids.block() - 1);
  }
  return out;
}

std::string format_lid_csv(const Fabric& f, const LidPlan& lids) {
  std::string out = "lid_min,lid_max,kind,name,node_guid,port_guid,switch,switch_port\n";
  for (int s = 0; s < f.num_switches(); ++s) {
    const auto& sw = f.switches[static_cast<std::size_t>(s)];
    const int lid = lids.switch_lid[static_cast<std::size_t>(s)];
    out += fmt::format("{:#06x},{:#06x},switch,{},0x{},0x{},{},0\n", lid, lid + lids.switch_lids() - 1, sw.name,
                       sw.guid, sw.guid, sw.name);
  }
  for (int e = 0; e < f.num_endpoints(); ++e) {
    const auto& ep = f.endpoints[static_cast<std::size_t>(e)];
    const int base = lids.endpoint_base[static_cast<std::size_t>(e)];
    out += fmt::format("{:#06x},{:#06x},endpoint,{},0x{},0x{},{},{}\n", base, base + lids.block() - 1, ep.name,
                       ep.node_guid, ep.port_guid, f.switches[static_cast<std::size_t>(ep.sw)].name, ep.port);
  }
  return out;
}

int op_vls_code(int vls) {
  if (vls <= 1) return 1;
  if (vls <= 2) return 2;
  if (vls <= 4) return 3;
  if (vls <= 8) return 4;
  return 5;
}

std::string format_opensm_conf(const LidPlan& lids, const std::string& lfts_file, const std::string& scheme, int vls) {
  std::string out = fmt::format(
      "# OpenSM options for the lbsim layered-routing tables (docs/layered-routing.md, \"Loading into OpenSM\").\n"
      "# Use: copy guid2lid to OpenSM's cache directory (OSM_CACHE_DIR, default /var/cache/opensm/guid2lid),\n"
      "# then run: opensm -F <this file>\n"
      "# {} layers: every endpoint port gets 2^LMC LIDs (one per layer, [SlimFly] sec. 5.1)\n"
      "lmc {}\n"
      "lmc_esp0 {}\n"
      "# keep the LIDs of guid2lid (reassigning would move them away from the tables)\n"
      "reassign_lids FALSE\n"
      "honor_guid2lid_file TRUE\n"
      "# the file routing engine installs lfts_file as it is\n"
      "routing_engine file\n"
      "lfts_file {}\n",
      lids.layers, lids.lmc, lids.switch_blocks ? "TRUE" : "FALSE", lfts_file);
  if (vls > 0) {
    out += fmt::format(
        "# deadlock avoidance: {} ({} data VLs, [SlimFly] sec. 5.2)\nmax_op_vls {}\nqos TRUE\nqos_max_vls {}\n", scheme,
        vls, op_vls_code(vls), vls);
    if (scheme == "dfsssp") {
      // SL i travels on VL i everywhere: a single template expresses it.
      std::string tmpl;
      for (int sl = 0; sl < 16; ++sl) tmpl += fmt::format("{}{}", sl ? "," : "", sl < vls ? sl : sl % vls);
      out += fmt::format(
          "# SL = the route's lane, VL = SL (identity); the per-route SLs are in path-sl.txt\n"
          "qos_sl2vl {}\nqos_ca_sl2vl {}\nqos_swe_sl2vl {}\n",
          tmpl, tmpl, tmpl);
    } else {
      out +=
          "# The three-lane scheme needs a different SL-to-VL table per switch and (in port, out port)\n"
          "# (sl2vl.dump); OpenSM's qos_*_sl2vl options set one table for all ports, so these tables must\n"
          "# be programmed by a routing engine that sets SL2VL (see the docs); path-sl.txt holds the SLs.\n";
    }
  }
  return out;
}

// ============================================================================ SLs and VLs

SlTables make_sl_tables(const routing::RoutingLayers& r, const Fabric& f, const VlAssignment& a,
                        const std::vector<Route>& routes) {
  const int n = r.num_switches();
  SlTables t;
  t.scheme = a.scheme;
  t.vls = a.vls_available;
  t.layers = r.num_layers();
  t.switches = n;
  t.route_sl.assign(static_cast<std::size_t>(t.layers) * static_cast<std::size_t>(n) * static_cast<std::size_t>(n), 0);
  const bool three = a.scheme == "three-lane";
  auto& sl = t.route_sl;
  for (int l = 0; l < t.layers; ++l)
    for (int s = 0; s < n; ++s)
      for (int d = 0; d < n; ++d) {
        if (s == d) continue;
        std::uint8_t v = 0;
        if (three) {
          // SL = colour of the route's second switch (sec. 5.2); 1-hop routes never need it.
          const int second = r.next_hop(l, s, d);
          v = second == d ? 0 : static_cast<std::uint8_t>(a.color[static_cast<std::size_t>(second)]);
        } else {
          const auto p = r.path(l, s, d);
          const auto it = std::lower_bound(routes.begin(), routes.end(), p);
          if (it == routes.end() || *it != p)
            throw std::logic_error("make_sl_tables: route missing from the lane assignment");
          v = static_cast<std::uint8_t>(a.route_vl[static_cast<std::size_t>(it - routes.begin())]);
        }
        sl[(static_cast<std::size_t>(l) * static_cast<std::size_t>(n) + static_cast<std::size_t>(s)) *
               static_cast<std::size_t>(n) +
           static_cast<std::size_t>(d)] = v;
      }
  // Lane subsets of the three-lane scheme, as in assign_three_lane: hop class h uses {v : v mod 3 = h}.
  std::vector<std::vector<int>> subset(3);
  for (int v = 0; v < t.vls; ++v) subset[static_cast<std::size_t>(v % 3)].push_back(v);
  auto lane = [&](int cls, int s) {
    const auto& sub = subset[static_cast<std::size_t>(cls)];
    return static_cast<std::uint8_t>(sub[static_cast<std::size_t>(s) % sub.size()]);
  };
  for (int s = 0; s < 16; ++s)
    t.ca_sl2vl[static_cast<std::size_t>(s)] = three ? lane(0, s) : static_cast<std::uint8_t>(s < t.vls ? s : s % t.vls);
  t.sl2vl.resize(static_cast<std::size_t>(n));
  for (int s = 0; s < n; ++s) {
    const auto& sw = f.switches[static_cast<std::size_t>(s)];
    const int np = sw.nports() + 1;
    auto& tab = t.sl2vl[static_cast<std::size_t>(s)];
    tab.assign(static_cast<std::size_t>(np) * static_cast<std::size_t>(np) * 16, 0);
    for (int in = 0; in < np; ++in) {
      // What the switch can see (sec. 5.2): a packet from an endpoint (or from itself) is on its first
      // hop; otherwise the SL tells second (SL = own colour) from third hop.
      const bool from_switch = in > 0 && sw.ports[static_cast<std::size_t>(in)].kind == FabricPort::Switch;
      for (int out = 0; out < np; ++out)
        for (int v = 0; v < 16; ++v) {
          std::uint8_t vl;
          if (three)
            vl = lane(!from_switch ? 0 : (v == a.color[static_cast<std::size_t>(s)] ? 1 : 2), v);
          else
            vl = static_cast<std::uint8_t>(v < t.vls ? v : v % t.vls);
          tab[(static_cast<std::size_t>(in) * static_cast<std::size_t>(np) + static_cast<std::size_t>(out)) * 16 +
              static_cast<std::size_t>(v)] = vl;
        }
    }
  }
  return t;
}

namespace {

// Number output for the large tables (path-sl.txt: one line per (switch, destination port), ~0.8 M
// lines for q = 13): the bytes fmt writes for "{:#06x}", "{}" and "{:<W}", without parsing a format
// string per number.
void put_lid_hex(std::string& out, unsigned v) {  // fmt "{:#06x}"
  char d[16];
  int k = 0;
  do {
    d[k++] = "0123456789abcdef"[v & 15u];
    v >>= 4;
  } while (v != 0);
  out += "0x";
  for (int i = k; i < 4; ++i) out += '0';
  while (k > 0) out += d[--k];
}
void put_uint(std::string& out, unsigned v, int width = 0) {  // fmt "{}" / "{:<width}"
  char d[16];
  int k = 0;
  do {
    d[k++] = static_cast<char>('0' + v % 10u);
    v /= 10u;
  } while (v != 0);
  for (int i = k - 1; i >= 0; --i) out += d[i];
  for (int i = k; i < width; ++i) out += ' ';
}

}  // namespace

std::string format_path_sl(const Fabric& f, const LidPlan& lids, const SlTables& t) {
  std::string out = fmt::format(
      "# lbsim path SLs v1 (docs/layered-routing.md): the SL that packets from the endpoints of a switch (and from\n"
      "# the switch itself) carry towards each destination LID; one line per destination port: LID range and\n"
      "# one SL per LID of the range ([SlimFly] sec. 5.2)\n"
      "scheme {} vls {} layers {} lmc {}\n",
      t.scheme, t.vls, lids.layers, lids.lmc);
  const int n = f.num_switches();
  for (int s = 0; s < n; ++s) {
    const auto& sw = f.switches[static_cast<std::size_t>(s)];
    out += fmt::format("switch 0x{} \"{}\"\n", sw.guid, clean(sw.name));
    for (int d = 0; d < n; ++d) {
      const int base = lids.switch_lid[static_cast<std::size_t>(d)];
      const int k = lids.switch_lids();
      put_lid_hex(out, static_cast<unsigned>(base));
      out += '-';
      put_lid_hex(out, static_cast<unsigned>(base + k - 1));
      for (int o = 0; o < k; ++o) {
        out += ' ';
        put_uint(out, static_cast<unsigned>(d == s ? 0 : t.sl(lids.switch_blocks ? o % lids.layers : 0, s, d)));
      }
      out += '\n';
    }
    for (int e = 0; e < f.num_endpoints(); ++e) {
      const auto& ep = f.endpoints[static_cast<std::size_t>(e)];
      const int base = lids.endpoint_base[static_cast<std::size_t>(e)];
      put_lid_hex(out, static_cast<unsigned>(base));
      out += '-';
      put_lid_hex(out, static_cast<unsigned>(base + lids.block() - 1));
      for (int o = 0; o < lids.block(); ++o) {
        out += ' ';
        put_uint(out, static_cast<unsigned>(ep.sw == s ? 0 : t.sl(o % lids.layers, s, ep.sw)));
      }
      out += '\n';
    }
  }
  return out;
}

std::string format_sl2vl_dump(const Fabric& f, const LidPlan& lids, const SlTables& t) {
  // The layout of OpenSM's opensm-sl2vl.dump (osm_dump.c, dump_sl2vl_tbl).
  static const char* header = "#in out : 0  1  2  3  4  5  6  7  8  9  10 11 12 13 14 15";
  static const char* sep = "#--------------------------------------------------------";
  std::string out;
  for (int s = 0; s < f.num_switches(); ++s) {
    const auto& sw = f.switches[static_cast<std::size_t>(s)];
    out += fmt::format("Switch 0x{}, base LID {}, \"{}\"\n{}\n{}\n", sw.guid,
                       lids.switch_lid[static_cast<std::size_t>(s)], clean(sw.desc), header, sep);
    const int np = sw.nports() + 1;
    const auto& tab = t.sl2vl[static_cast<std::size_t>(s)];
    for (int o = 1; o < np; ++o) {
      if (sw.ports[static_cast<std::size_t>(o)].kind == FabricPort::None) continue;  // no table for a port that is down
      for (int in = 0; in < np; ++in) {
        put_uint(out, static_cast<unsigned>(in), 3);  // "{:<3} {:<3} :"
        out += ' ';
        put_uint(out, static_cast<unsigned>(o), 3);
        out += " :";
        for (int v = 0; v < 16; ++v) {
          out += ' ';  // " {:<2}"
          put_uint(
              out,
              tab[(static_cast<std::size_t>(in) * static_cast<std::size_t>(np) + static_cast<std::size_t>(o)) * 16 +
                  static_cast<std::size_t>(v)],
              2);
        }
        out += '\n';
      }
    }
    out += fmt::format("{}\n\n", sep);
  }
  for (int e = 0; e < f.num_endpoints(); ++e) {
    const auto& ep = f.endpoints[static_cast<std::size_t>(e)];
    out += fmt::format("Channel Adapter 0x{}, base LID {}, \"{}\"\n{}\n{}\n{:<3} {:<3} :", ep.port_guid,
                       lids.endpoint_base[static_cast<std::size_t>(e)], clean(ep.desc), header, sep, 0, 0);
    for (int v = 0; v < 16; ++v) {
      out += ' ';
      put_uint(out, t.ca_sl2vl[static_cast<std::size_t>(v)], 2);
    }
    out += fmt::format("\n{}\n\n", sep);
  }
  return out;
}

// ============================================================================ parsers

namespace {

[[noreturn]] void fail(const std::string& src, long line, const std::string& msg) {
  throw UserError(fmt::format("{}:{}: {}", src, line, msg));
}

// Calls fn(line_number, line) for every line (without '\n'; a trailing '\r' removed).
template <class Fn>
void for_lines(std::string_view text, Fn fn, long first = 0) {
  long ln = first;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view l = text.substr(pos, nl - pos);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    fn(++ln, l);
    pos = nl + 1;
  }
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// strtoull-like: digits of `base` from position i (no sign, no "0x" here); returns chars consumed.
std::size_t read_number(std::string_view s, std::size_t i, int base, unsigned long long& v) {
  // Digit values by character (-1: not a digit); hex letters in either case.
  static const auto kDigit = [] {
    std::array<signed char, 256> d{};
    d.fill(-1);
    for (int c = '0'; c <= '9'; ++c) d[static_cast<std::size_t>(c)] = static_cast<signed char>(c - '0');
    for (int c = 'a'; c <= 'f'; ++c)
      d[static_cast<std::size_t>(c)] = d[static_cast<std::size_t>(c - 'a' + 'A')] =
          static_cast<signed char>(10 + c - 'a');
    return d;
  }();
  const unsigned long long b = static_cast<unsigned long long>(base);
  std::size_t j = i;
  v = 0;
  while (j < s.size()) {
    const int d = kDigit[static_cast<unsigned char>(s[j])];
    if (d < 0 || d >= base) break;
    // 0 (no number) when the value does not fit.
    if (__builtin_mul_overflow(v, b, &v) || __builtin_add_overflow(v, static_cast<unsigned long long>(d), &v)) return 0;
    ++j;
  }
  return j - i;
}

std::string guid_hex(unsigned long long v) { return fmt::format("{:016x}", v); }

}  // namespace

std::vector<LftDumpSwitch> parse_lfts_dump(std::string_view text, const std::string& src, long line_offset) {
  std::vector<LftDumpSwitch> out;
  for_lines(
      text,
      [&](long ln, std::string_view l) {
        std::size_t p = 0;
        while (p < l.size() && is_space(l[p])) ++p;
        const std::string_view r = l.substr(p);
        if (r.empty() || r[0] == '#') return;
        if (r.rfind("Multicast mlids", 0) == 0)
          fail(src, ln, "multicast dump detected (OpenSM ERR 6303: not an LFT file)");
        if (r.rfind("Unicast lids", 0) == 0) {
          const auto g = r.find(" guid 0x");
          if (g == std::string_view::npos) fail(src, ln, "cannot parse switch definition (no ' guid 0x<hex>')");
          unsigned long long v = 0;
          const std::size_t used = read_number(r, g + 8, 16, v);
          if (used == 0 || g + 8 + used >= r.size() || !is_space(r[g + 8 + used]))
            fail(src, ln, "cannot parse switch guid (hex digits followed by a blank expected)");
          out.push_back({guid_hex(v), static_cast<int>(ln), {}});
          return;
        }
        if (out.empty() || r.rfind("0x", 0) != 0) return;  // OpenSM ignores every other line
        unsigned long long lid = 0, port = 0;
        std::size_t i = 2;
        std::size_t used = read_number(r, i, 16, lid);
        if (used == 0 || i + used >= r.size() || !is_space(r[i + used])) fail(src, ln, "cannot parse lid");
        i += used;
        while (i < r.size() && is_space(r[i])) ++i;
        used = read_number(r, i, 10, port);
        if (used == 0 || i + used >= r.size() || !is_space(r[i + used])) fail(src, ln, "cannot parse port");
        i += used;
        if (lid > 0xFFFF) fail(src, ln, fmt::format("LID {:#x} is beyond 16 bits", lid));
        if (port > 255) fail(src, ln, fmt::format("port {} is beyond 8 bits", port));
        LftEntry e;
        e.lid = static_cast<int>(lid);
        e.port = static_cast<std::uint16_t>(port);
        const auto pg = r.find(" portguid 0x", i);
        if (pg != std::string_view::npos) {
          unsigned long long g = 0;
          const std::size_t gu = read_number(r, pg + 12, 16, g);
          // OpenSM takes the GUID when it ends at a blank or ':' and ignores it (warning) otherwise.
          if (gu > 0 && pg + 12 + gu < r.size() && (is_space(r[pg + 12 + gu]) || r[pg + 12 + gu] == ':')) {
            e.port_guid = g;
            e.has_port_guid = true;
          }
        }
        out.back().entries.push_back(e);
      },
      line_offset);
  return out;
}

std::map<std::string, std::pair<int, int>> parse_guid2lid(std::string_view text, const std::string& src) {
  std::map<std::string, std::pair<int, int>> out;
  std::map<std::string, long> line_of;
  bool in_key = false;
  std::string key, value;
  long key_line = 0;
  auto finish = [&]() {
    // The key must be a number (osm_db_restore), here a GUID; the value "<min> <max>" (unpack_lids).
    std::string_view k = key;
    if (k.rfind("0x", 0) == 0 || k.rfind("0X", 0) == 0) k.remove_prefix(2);
    unsigned long long g = 0;
    if (k.empty() || read_number(k, 0, 16, g) != k.size())
      fail(src, key_line, fmt::format("key '{}' is not a GUID", key));
    std::istringstream vs(value);
    std::string a, b;
    vs >> a >> b;
    auto num = [&](const std::string& t) {
      char* end = nullptr;
      const unsigned long v = std::strtoul(t.c_str(), &end, 0);
      if (t.empty() || *end != '\0' || v > 0xFFFF) fail(src, key_line, fmt::format("'{}' is not a LID", t));
      return static_cast<int>(v);
    };
    if (b.empty()) fail(src, key_line, fmt::format("entry {} needs '<min lid> <max lid>', got '{}'", key, value));
    const int mn = num(a), mx = num(b);
    if (mn < 1 || mx < mn || mx > kMaxUnicastLid)
      fail(src, key_line, fmt::format("LID range {:#x}-{:#x} of {} is not a unicast range", mn, mx, key));
    const std::string gk = guid_hex(g);
    if (auto it = line_of.find(gk); it != line_of.end())
      fail(src, key_line, fmt::format("GUID {} is listed twice (first at line {})", gk, it->second));
    line_of[gk] = key_line;
    out[gk] = {mn, mx};
    in_key = false;
  };
  for_lines(text, [&](long ln, std::string_view l) {
    if (!in_key) {
      if (l.empty()) return;
      if (l[0] == ' ' || l[0] == '\t') fail(src, ln, "an entry must start at column 0 (osm_db format)");
      const auto sp = l.find_first_of(" \t");
      key = std::string(l.substr(0, sp));
      value = sp == std::string_view::npos ? "" : std::string(l.substr(sp + 1));
      key_line = ln;
      in_key = true;
      return;
    }
    if (l.empty()) {
      finish();
      return;
    }
    value += " " + std::string(l);
  });
  if (in_key) finish();
  return out;
}

std::map<std::string, std::string> parse_opensm_conf(std::string_view text, const std::string& src) {
  std::map<std::string, std::string> out;
  for_lines(text, [&](long ln, std::string_view l) {
    std::size_t p = 0;
    while (p < l.size() && is_space(l[p])) ++p;
    if (p == l.size() || l[p] == '#') return;
    std::size_t q = p;
    while (q < l.size() && !is_space(l[q])) ++q;
    const std::string key(l.substr(p, q - p));
    while (q < l.size() && is_space(l[q])) ++q;
    std::string val(l.substr(q));
    while (!val.empty() && is_space(val.back())) val.pop_back();
    if (val.empty()) fail(src, ln, fmt::format("option '{}' has no value", key));
    if (out.count(key)) fail(src, ln, fmt::format("option '{}' is set twice", key));
    out[key] = val;
  });
  return out;
}

namespace {

// The next blank-separated word of l from position i on (empty at the end), as istream >> string.
std::string_view next_word(std::string_view l, std::size_t& i) {
  while (i < l.size() && is_space(l[i])) ++i;
  const std::size_t b = i;
  while (i < l.size() && !is_space(l[i])) ++i;
  return l.substr(b, i - b);
}

// A whole word as a (small) decimal int with an optional sign; false if it is not one.
bool small_int(std::string_view w, int& v) {
  std::size_t k = 0;
  const bool neg = !w.empty() && w[0] == '-';
  if (!w.empty() && (w[0] == '-' || w[0] == '+')) k = 1;
  if (k == w.size() || w.size() - k > 9) return false;
  long x = 0;
  for (; k < w.size(); ++k) {
    if (w[k] < '0' || w[k] > '9') return false;
    x = x * 10 + (w[k] - '0');
  }
  v = static_cast<int>(neg ? -x : x);
  return true;
}

}  // namespace

PathSlTable parse_path_sl(std::string_view text, const std::string& src) {
  PathSlTable t;
  std::vector<int>* cur = nullptr;
  for_lines(text, [&](long ln, std::string_view l) {
    if (l.empty() || l[0] == '#') return;
    std::size_t i = 0;
    const std::string_view w = next_word(l, i);
    if (w == "scheme") {
      t.scheme = std::string(next_word(l, i));
      return;
    }
    if (w == "switch") {
      const std::string_view g = next_word(l, i);
      unsigned long long v = 0;
      if (g.rfind("0x", 0) != 0 || read_number(g, 2, 16, v) != g.size() - 2)
        fail(src, ln, fmt::format("bad switch GUID '{}'", g));
      cur = &t.by_switch[guid_hex(v)];
      return;
    }
    if (!cur) fail(src, ln, "LID range before the first 'switch' line");
    const auto dash = w.find('-');
    // Named strings: strtol's end pointer must point into a string that is still alive when read.
    const std::string lo(w.substr(0, dash)),
        hi = dash == std::string_view::npos ? std::string() : std::string(w.substr(dash + 1));
    char* end = nullptr;
    const long a = std::strtol(lo.c_str(), &end, 0);
    if (lo.empty() || *end != '\0') fail(src, ln, fmt::format("bad LID range '{}'", w));
    const long b = dash == std::string_view::npos ? a : std::strtol(hi.c_str(), &end, 0);
    if ((dash != std::string_view::npos && hi.empty()) || *end != '\0' || a < 1 || b < a || b > kMaxUnicastLid)
      fail(src, ln, fmt::format("bad LID range '{}'", w));
    if (static_cast<long>(cur->size()) <= b) cur->resize(static_cast<std::size_t>(b) + 1, -1);
    for (long lid = a; lid <= b; ++lid) {
      int sl = -1;
      if (!small_int(next_word(l, i), sl) || sl < 0 || sl > 15)
        fail(src, ln, fmt::format("expected {} SLs (0..15) for {}", b - a + 1, w));
      (*cur)[static_cast<std::size_t>(lid)] = sl;
    }
    if (const std::string_view extra = next_word(l, i); !extra.empty())
      fail(src, ln, fmt::format("more SLs than LIDs in {}", extra));
  });
  return t;
}

Sl2VlDump parse_sl2vl_dump(std::string_view text, const std::string& src) {
  Sl2VlDump d;
  std::map<std::pair<int, int>, std::array<int, 16>>* cur = nullptr;
  for_lines(text, [&](long ln, std::string_view l) {
    if (l.empty() || l[0] == '#') return;
    if (l.rfind("Switch 0x", 0) == 0 || l.rfind("Channel Adapter 0x", 0) == 0 || l.rfind("Router 0x", 0) == 0) {
      const auto at = l.find("0x");
      unsigned long long v = 0;
      const std::size_t used = read_number(l, at + 2, 16, v);
      if (used == 0 || at + 2 + used >= l.size() || l[at + 2 + used] != ',')
        fail(src, ln, "expected '<type> 0x<guid>, base LID ...'");
      cur = &d.by_guid[guid_hex(v)];
      return;
    }
    if (!cur) fail(src, ln, "table row before the first port header");
    std::istringstream in{std::string(l)};
    int a = -1, b = -1;
    std::string colon;
    if (!(in >> a >> b >> colon) || colon != ":" || a < 0 || b < 0 || a > 255 || b > 255)
      fail(src, ln, "expected '<in port> <out port> : <16 VLs>'");
    std::array<int, 16> vl{};
    for (auto& v : vl)
      if (!(in >> v) || v < 0 || v > 15) fail(src, ln, "expected 16 VLs (0..15)");
    if (!cur->emplace(std::make_pair(a, b), vl).second) fail(src, ln, fmt::format("row {} {} listed twice", a, b));
  });
  return d;
}

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
