// InfiniBand tables for OpenSM from layered routing ([SlimFly] sec. 5.1, 5.2, 5.4): LIDs with LMC, LFTs
// and their dump, guid2lid, the LID CSV, opensm.conf, SLs and SL-to-VL tables and their files. See opensm.h.
#include "analysis/opensm.h"

#include <algorithm>
#include <stdexcept>

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

}  // namespace lbsim::analysis
