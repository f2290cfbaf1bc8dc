// Forwarding tables on the cabling plan's ports and the OpenSM files ([SlimFly] sec. 3.3, 5.1, 5.2):
// plan q = 5, write the tables, read them back as OpenSM's file routing engine does and route every
// (source, destination LID) pair over the planned (or a discovered) cabling to its destination.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "analysis/cabling.h"
#include "analysis/deadlock.h"
#include "analysis/fabric.h"
#include "analysis/opensm.h"
#include "analysis/switch_graph.h"
#include "core/error.h"
#include "routing/layered.h"
#include "topo/slim_fly.h"

using namespace lbsim;
using namespace lbsim::analysis;

namespace {

routing::RoutingLayers layers_for(const Fabric& f, int n_layers) {
  routing::LayerOptions o;
  o.layers = n_layers;
  return routing::build_layers(f.switch_graph(), o);
}

// What `lbsim layers --tables` does, in memory: tables -> text -> parsed back -> installed.
struct RoundTrip {
  LidPlan lids;
  Lfts lft;
  std::string dump, guid2lid;
  InstalledTables installed;
  WalkReport walk;
};
RoundTrip round_trip(const Fabric& f, const routing::RoutingLayers& r) {
  RoundTrip t;
  t.lids = make_lid_plan(f, r.num_layers());
  t.lft = compute_lfts(r, f, t.lids);
  t.dump = format_lfts_dump(f, t.lids, t.lft);
  t.guid2lid = format_guid2lid(f, t.lids);
  t.installed = install_like_opensm(f, parse_lfts_dump(t.dump, "lfts.dump"), parse_guid2lid(t.guid2lid, "guid2lid"));
  t.walk = walk_routes(f, t.installed);
  return t;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size())
    s.replace(at, from.size(), to);
  return s;
}

// Removes the link line of `port` in the block of the switch whose GUID (short form) is `guid`.
std::string drop_port_line(const std::string& text, const std::string& guid, int port) {
  std::istringstream in(text);
  std::string out, line;
  bool in_block = false;
  while (std::getline(in, line)) {
    if (line.rfind("switchguid=", 0) == 0) in_block = line.find("0x" + guid + "(") != std::string::npos;
    if (line.rfind("Ca", 0) == 0) in_block = false;
    if (in_block && line.rfind(fmt::format("[{}]\t", port), 0) == 0) continue;
    out += line + "\n";
  }
  return out;
}

}  // namespace

TEST(PortModel, FabricOfPlanIsTheTopologysPortOrder) {
  // One port model: the plan's ports, the Fabric of the plan and the Topology's ports (which the
  // packet engine's LayeredRouter uses, physical port = Topology port + 1) agree for every link.
  const CablingPlan plan = make_cabling_plan(5, 4, 36);
  const Fabric fp = fabric_from_plan(plan);
  topo::SlimFlyParams prm;
  prm.q = 5;
  prm.p = 4;
  const Fabric ft = fabric_from_topology(topo::build_slim_fly(prm));
  ASSERT_EQ(fp.num_switches(), 50);
  ASSERT_EQ(fp.num_endpoints(), 200);
  ASSERT_EQ(ft.num_endpoints(), 200);
  long links = 0;
  for (int s = 0; s < 50; ++s)
    for (int x = 0; x < 50; ++x) {
      const int p = plan.port_to(s, x);
      EXPECT_EQ(fp.port_to(s, x), p) << s << "->" << x;
      EXPECT_EQ(ft.port_to(s, x), p) << s << "->" << x;
      if (p > 0) {
        ++links;
        ASSERT_TRUE(plan.peer(s, p).has_value());
        EXPECT_EQ(plan.peer(s, p)->first, x);
      }
    }
  EXPECT_EQ(links, 50 * 7);
  for (int e = 0; e < 200; ++e) {
    EXPECT_EQ(fp.endpoints[static_cast<std::size_t>(e)].sw, ft.endpoints[static_cast<std::size_t>(e)].sw);
    EXPECT_EQ(fp.endpoints[static_cast<std::size_t>(e)].port, ft.endpoints[static_cast<std::size_t>(e)].port);
  }
  // The issue's example: sf-0-1-0 reaches switch 0 via sf-1-0-0 (rack 0), cabled to its port 8.
  const int s010 = *plan.find("sf-0-1-0"), s100 = *plan.find("sf-1-0-0");
  EXPECT_EQ(fp.port_to(s010, s100), 8);
  EXPECT_EQ(plan.port_to_rack(s010, 0), 8);
}

TEST(LidPlan, LmcAlignedBlocksAndSwitchLids) {
  EXPECT_EQ(lmc_for_layers(1), 0);
  EXPECT_EQ(lmc_for_layers(4), 2);
  EXPECT_EQ(lmc_for_layers(5), 3);
  EXPECT_EQ(lmc_for_layers(16), 4);
  const Fabric f = fabric_from_plan(make_cabling_plan(5, 4, 36));
  for (int layers : {1, 3, 4, 8, 16}) {
    const LidPlan p = make_lid_plan(f, layers);
    const int a = p.block();
    std::vector<int> owner(static_cast<std::size_t>(p.max_lid) + 1, 0);
    for (int base : p.endpoint_base) {
      EXPECT_EQ(base % a, 0) << "endpoint base LID " << base << " not aligned to 2^LMC = " << a;
      for (int k = 0; k < a; ++k) ++owner[static_cast<std::size_t>(base + k)];
    }
    for (int lid : p.switch_lid) ++owner[static_cast<std::size_t>(lid)];
    EXPECT_EQ(owner[0], 0);
    for (int l = 1; l <= p.max_lid; ++l)
      EXPECT_EQ(owner[static_cast<std::size_t>(l)], 1) << "LID " << l << " layers " << layers;
    // Table 2's bound: N * 2^LMC + N_r LIDs.
    EXPECT_EQ(p.max_lid, 200 * a + 50) << layers;
  }
  EXPECT_THROW(make_lid_plan(f, 129), UserError);
  // q = 25 (1250 switches, 16 250 endpoints at p = 13) with 4 LIDs per endpoint leaves the unicast range.
  EXPECT_THROW(make_lid_plan(fabric_from_plan(make_cabling_plan(25)), 4), UserError);
}

TEST(Lfts, PlanQ5EveryRouteArrivesOnThePlannedCables) {
  const CablingPlan plan = make_cabling_plan(5, 4, 36);
  const Fabric f = fabric_from_plan(plan);
  for (int nl : {4, 8}) {
    const auto r = layers_for(f, nl);
    const RoundTrip t = round_trip(f, r);
    // Every LFT entry towards another switch's endpoint names the planned port of the layer's next hop.
    for (int s = 0; s < 50; ++s)
      for (int e = 0; e < 200; ++e) {
        const int d = e / 4;
        for (int o = 0; o < t.lids.block(); ++o) {
          const int lid = t.lids.endpoint_base[static_cast<std::size_t>(e)] + o;
          const int want = d == s ? e % 4 + 1 : plan.port_to(s, r.next_hop(o % nl, s, d));
          ASSERT_EQ(t.installed.lft[static_cast<std::size_t>(s)][static_cast<std::size_t>(lid)], want)
              << plan.name(s) << " LID " << lid << " layers " << nl;
        }
      }
    // Sources: 200 endpoints + 50 switches; destinations: every assigned LID.
    const long lids = 200L * t.lids.block() + 50;
    EXPECT_EQ(t.walk.routes, 250L * lids) << nl;
    EXPECT_EQ(t.walk.delivered, t.walk.routes) << t.walk.text();
    EXPECT_EQ(t.walk.failed, 0);
    EXPECT_TRUE(t.walk.ok());
    EXPECT_GE(t.walk.max_switch_hops, 2);
    EXPECT_EQ(t.installed.unknown_switches, 0);
    EXPECT_EQ(t.installed.switches_without_table, 0);
  }
}

TEST(Lfts, AdjacencyIndexPortsWouldMisroute) {
  // The tables of the old `lft.txt` (port = p + 1 + index of the next hop in the sorted neighbour
  // list) do not match the cabling: the walk must catch that.
  const Fabric f = fabric_from_plan(make_cabling_plan(5, 4, 36));
  const auto r = layers_for(f, 4);
  RoundTrip t = round_trip(f, r);
  long differ = 0;
  for (int s = 0; s < 50; ++s)
    for (int e = 0; e < 200; ++e) {
      if (e / 4 == s) continue;
      for (int o = 0; o < 4; ++o) {
        const int lid = t.lids.endpoint_base[static_cast<std::size_t>(e)] + o;
        auto& entry = t.installed.lft[static_cast<std::size_t>(s)][static_cast<std::size_t>(lid)];
        const auto old = static_cast<std::uint8_t>(4 + 1 + r.next_port(o, s, e / 4));
        differ += old != entry;
        entry = old;
      }
    }
  EXPECT_GT(differ, 0);
  const WalkReport w = walk_routes(f, t.installed);
  EXPECT_GT(w.failed, 0);
  EXPECT_FALSE(w.ok());
  EXPECT_FALSE(w.failures.empty());
}

TEST(Lfts, WalkCatchesOneWrongEntry) {
  const Fabric f = fabric_from_plan(make_cabling_plan(5, 4, 36));
  RoundTrip t = round_trip(f, layers_for(f, 4));
  // Switch 0 sends LID of endpoint 199 (on switch 49) back to its own first endpoint.
  const int lid = t.lids.endpoint_base[199];
  t.installed.lft[0][static_cast<std::size_t>(lid)] = 1;
  const WalkReport w = walk_routes(f, t.installed);
  EXPECT_GT(w.failed, 0);
  ASSERT_FALSE(w.failures.empty());
  EXPECT_NE(w.failures[0].find("delivered to"), std::string::npos) << w.failures[0];
}

TEST(Lfts, OpenSmAssignsOtherLidsEntriesFollowThePortGuid) {
  // OpenSM may hand out other (aligned) LIDs than guid2lid proposes; the file engine then moves each
  // entry by its port GUID (remap_lid). Rotate every endpoint's block and every switch's LID.
  const Fabric f = fabric_from_plan(make_cabling_plan(5, 4, 36));
  const RoundTrip t = round_trip(f, layers_for(f, 4));
  auto assigned = parse_guid2lid(t.guid2lid, "guid2lid");
  std::map<std::string, std::pair<int, int>> rotated;
  for (int e = 0; e < 200; ++e)
    rotated[f.endpoints[static_cast<std::size_t>(e)].port_guid] =
        assigned.at(f.endpoints[static_cast<std::size_t>((e + 7) % 200)].port_guid);
  for (int s = 0; s < 50; ++s)
    rotated[f.switches[static_cast<std::size_t>(s)].guid] =
        assigned.at(f.switches[static_cast<std::size_t>((s + 3) % 50)].guid);
  ASSERT_NE(rotated, assigned);
  const auto inst = install_like_opensm(f, parse_lfts_dump(t.dump, "lfts.dump"), rotated);
  const WalkReport w = walk_routes(f, inst);
  EXPECT_TRUE(w.ok()) << w.text();
  EXPECT_EQ(w.delivered, 250L * (200 * 4 + 50));
}

TEST(Lfts, DiscoveredFabricWithOtherGuidsAndMovedCables) {
  // The installed fabric: other GUIDs than the plan, no names in the switch descriptions for half of
  // the switches (a mapping file names them), and on sf-0-0-0 two switch cables swapped between
  // their ports. `cabling verify` reports the swap; the tables follow the discovered ports.
  const CablingPlan plan = make_cabling_plan(5, 4, 36);
  std::string text = emit_ibnetdiscover(plan);
  // Swap ports 5 and 6 of switch 0 (both switch-switch links): in its block and in the peers' lines.
  const auto p5 = plan.peer(0, 5), p6 = plan.peer(0, 6);
  ASSERT_TRUE(p5 && p6);
  const std::string g0 = switch_guid(0);
  text = replace_all(text, fmt::format("\"S-{}\"[5]", g0), "@@A@@");
  text = replace_all(text, fmt::format("\"S-{}\"[6]", g0), fmt::format("\"S-{}\"[5]", g0));
  text = replace_all(text, "@@A@@", fmt::format("\"S-{}\"[6]", g0));
  {
    std::istringstream in(text);
    std::string out, line;
    bool in0 = false;
    while (std::getline(in, line)) {
      if (line.rfind("Switch", 0) == 0 || line.rfind("Ca", 0) == 0)
        in0 = line.find("\"S-" + g0 + "\"") != std::string::npos;
      if (in0 && line.rfind("[5]\t", 0) == 0)
        line = "[6]\t" + line.substr(4);
      else if (in0 && line.rfind("[6]\t", 0) == 0)
        line = "[5]\t" + line.substr(4);
      out += line + "\n";
    }
    text = out;
  }
  // Other GUIDs (both the 16-digit and the short forms contain these prefixes).
  text = replace_all(text, "2c90300a", "8f10500b");
  text = replace_all(text, "2c90300c", "8f10500d");
  // Switches 25..49 lose their names; a mapping file supplies them.
  std::map<std::string, std::string> names;
  for (int s = 25; s < 50; ++s) {
    text = replace_all(text, fmt::format("\"{}\"", switch_description(plan, s)),
                       fmt::format("\"MF0;switch-{}:SX6036/U1\"", s));
    names[replace_all(switch_guid(s), "2c90300a", "8f10500b")] = plan.name(s);
  }
  const IbFabric dump = parse_ibnetdiscover_text(text, "site.ibnet");
  const VerifyReport rep = verify_cabling(plan, dump, &names);
  EXPECT_FALSE(rep.ok());  // the swapped cables are reported
  const Fabric f = fabric_from_discovery(plan, dump, &names);
  ASSERT_EQ(f.num_switches(), 50);
  ASSERT_EQ(f.num_endpoints(), 200);
  EXPECT_EQ(f.switches[0].guid, replace_all(switch_guid(0), "2c90300a", "8f10500b"));
  EXPECT_NE(f.switches[0].guid, switch_guid(0));
  EXPECT_EQ(f.endpoints[5].port_guid, replace_all(ca_port_guid(5), "2c90300c", "8f10500d"));
  EXPECT_EQ(f.port_to(0, p5->first), 6);
  EXPECT_EQ(f.port_to(0, p6->first), 5);
  for (int nl : {4, 8}) {
    const auto r = layers_for(f, nl);
    const RoundTrip t = round_trip(f, r);
    EXPECT_TRUE(t.walk.ok()) << t.walk.text();
    EXPECT_EQ(t.walk.delivered, 250L * (200L * t.lids.block() + 50));
    EXPECT_EQ(t.installed.unknown_switches, 0);
    EXPECT_NE(t.dump.find("guid 0x" + f.switches[7].guid + " "), std::string::npos);
    // The plan's tables do not fit the installed fabric: OpenSM would not find a single switch.
    const Fabric planned = fabric_from_plan(plan);
    const auto other = install_like_opensm(
        f, parse_lfts_dump(format_lfts_dump(planned, t.lids, compute_lfts(r, planned, t.lids)), "x"),
        parse_guid2lid(t.guid2lid, "guid2lid"));
    EXPECT_EQ(other.unknown_switches, 50);
    EXPECT_FALSE(walk_routes(f, other).ok());
  }
  // A discovered fabric that lacks a planned link cannot carry the layers.
  const auto p7 = plan.peer(0, 7);
  ASSERT_TRUE(p7);
  const std::string one_less =
      drop_port_line(drop_port_line(text, "8f10500b00000", 7),
                     fmt::format("{:x}", 0x8f10500b00000ULL + static_cast<unsigned>(p7->first)), p7->second);
  ASSERT_LT(one_less.size(), text.size());
  EXPECT_NO_THROW(parse_ibnetdiscover_text(one_less, "one-less"));
  try {
    fabric_from_discovery(plan, parse_ibnetdiscover_text(one_less, "one-less"), &names);
    FAIL() << "a missing planned link was accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("not cabled"), std::string::npos) << e.what();
  }
}

TEST(OpenSmFiles, ParseBackGrammar) {
  const Fabric f = fabric_from_plan(make_cabling_plan(5, 4, 36));
  const auto r = layers_for(f, 4);
  const RoundTrip t = round_trip(f, r);
  const auto dump = parse_lfts_dump(t.dump, "lfts.dump");
  ASSERT_EQ(dump.size(), 50u);
  EXPECT_EQ(dump[0].guid, switch_guid(0));
  EXPECT_EQ(dump[0].entries.size(), static_cast<std::size_t>(t.lids.max_lid));  // every LID has an entry
  for (const auto& e : dump[3].entries) EXPECT_TRUE(e.has_port_guid);
  const auto g2l = parse_guid2lid(t.guid2lid, "guid2lid");
  EXPECT_EQ(g2l.size(), 250u);
  EXPECT_EQ(g2l.at(f.endpoints[0].port_guid), std::make_pair(4, 7));
  const auto conf = parse_opensm_conf(format_opensm_conf(t.lids, "/abs/lfts.dump", "", 0), "opensm.conf");
  EXPECT_EQ(conf.at("lmc"), "2");
  EXPECT_EQ(conf.at("routing_engine"), "file");
  EXPECT_EQ(conf.at("lfts_file"), "/abs/lfts.dump");
  EXPECT_EQ(conf.at("reassign_lids"), "FALSE");
  // Grammar errors carry file and line.
  try {
    parse_lfts_dump("Unicast lids [0x0-0x3] of switch Lid 1 guid 0x0002c90300a00000 (x):\n0x0001 abc : x\n", "t.dump");
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("t.dump:2:"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_lfts_dump("Unicast lids [0x0-0x3] of switch Lid 1 (x):\n", "t"), UserError);
  EXPECT_THROW(parse_guid2lid("0x0002c90300a00000 0x0004\n\n", "g"), UserError);
  EXPECT_THROW(parse_guid2lid("zz 0x4 0x7\n\n", "g"), UserError);
  EXPECT_THROW(parse_opensm_conf("lmc\n", "c"), UserError);
}

TEST(SlVl, DeadlockFreeLanesOnThePlan) {
  const Fabric f = fabric_from_plan(make_cabling_plan(5, 4, 36));
  const auto r = layers_for(f, 4);
  const RoundTrip t = round_trip(f, r);
  const auto routes = collect_routes(r);
  for (const std::string scheme : {"dfsssp", "three-lane"}) {
    const VlAssignment v =
        scheme == "dfsssp" ? assign_dfsssp(r.adjacency(), routes, 8) : assign_three_lane(r.adjacency(), routes, 3, 16);
    const SlTables sl = make_sl_tables(r, f, v, routes);
    const auto paths = parse_path_sl(format_path_sl(f, t.lids, sl), "path-sl.txt");
    const auto sl2vl = parse_sl2vl_dump(format_sl2vl_dump(f, t.lids, sl), "sl2vl.dump");
    EXPECT_EQ(paths.scheme, scheme);
    EXPECT_EQ(paths.by_switch.size(), 50u);
    EXPECT_EQ(sl2vl.by_guid.size(), 250u);  // 50 switches + 200 HCA ports
    const VlCheck c = check_vls(f, t.installed, paths, sl2vl);
    EXPECT_TRUE(c.problem.empty()) << scheme << ": " << c.problem;
    EXPECT_TRUE(c.acyclic) << scheme;
    EXPECT_EQ(c.routes, 200L * (200 * 4 + 50)) << scheme;
    EXPECT_GE(c.vls_used, 2) << scheme;
    // With every SL forced onto VL 0 the same routes must show a cycle (the check can fail).
    SlTables flat = sl;
    for (auto& tab : flat.sl2vl) std::fill(tab.begin(), tab.end(), 0);
    const VlCheck bad = check_vls(f, t.installed, paths, parse_sl2vl_dump(format_sl2vl_dump(f, t.lids, flat), "flat"));
    EXPECT_FALSE(bad.acyclic) << scheme;
  }
}

// check_vls walks one LID per class of LIDs whose tables read back alike (the endpoints of one switch
// in one layer): its route and hop counts must still be those of every route, and a LID that differs
// from its class in one entry must be walked on its own.
TEST(SlVl, CheckCountsEveryRouteAndWalksADifferingLidOnItsOwn) {
  const Fabric f = fabric_from_plan(make_cabling_plan(5, 4, 36));
  const auto r = layers_for(f, 4);
  RoundTrip t = round_trip(f, r);
  const auto routes = collect_routes(r);
  const VlAssignment v = assign_three_lane(r.adjacency(), routes, 3, 16);
  const SlTables sl = make_sl_tables(r, f, v, routes);
  const auto paths = parse_path_sl(format_path_sl(f, t.lids, sl), "path-sl.txt");
  const auto sl2vl = parse_sl2vl_dump(format_sl2vl_dump(f, t.lids, sl), "sl2vl.dump");
  const int n = f.num_switches();
  std::vector<long> eps(static_cast<std::size_t>(n), 0);  // injection ports per switch
  for (const auto& ep : f.endpoints) ++eps[static_cast<std::size_t>(ep.sw)];
  // Every endpoint injects one route per LID; its switch-to-switch hops are those of the layer's path
  // (endpoint LID base + o: layer o mod |L|; switch LIDs: layer 0).
  long hops = 0;
  for (int s = 0; s < n; ++s) {
    for (const auto& ep : f.endpoints)
      for (int o = 0; o < t.lids.block(); ++o)
        if (ep.sw != s) hops += eps[static_cast<std::size_t>(s)] * r.hops(o % t.lids.layers, s, ep.sw);
    for (int d = 0; d < n; ++d)
      if (d != s) hops += eps[static_cast<std::size_t>(s)] * r.hops(0, s, d);
  }
  const VlCheck c = check_vls(f, t.installed, paths, sl2vl);
  ASSERT_TRUE(c.problem.empty()) << c.problem;
  EXPECT_EQ(c.routes, 200L * (200 * 4 + 50));
  EXPECT_EQ(c.hops, hops);
  // Endpoint 0's LID of layer 1 loses its entry at switch x (the second switch of some 2-hop route):
  // the routes through x stop there, those of the other endpoints of its switch do not.
  const int d0 = f.endpoints[0].sw, lid = t.lids.endpoint_base[0] + 1;
  int x = -1;
  for (int s = 0; s < n && x < 0; ++s)
    if (s != d0 && r.hops(1, s, d0) == 2) x = r.path(1, s, d0)[1];
  ASSERT_GE(x, 0);
  long lost = 0;
  for (int s = 0; s < n; ++s) {
    if (s == d0) continue;
    const auto p = r.path(1, s, d0);
    for (std::size_t i = 0; i + 1 < p.size(); ++i)
      if (p[i] == x) lost += eps[static_cast<std::size_t>(s)] * static_cast<long>(p.size() - 1 - i);
  }
  ASSERT_GT(lost, 0);
  t.installed.lft[static_cast<std::size_t>(x)][static_cast<std::size_t>(lid)] = kNoPort;
  const VlCheck cut = check_vls(f, t.installed, paths, sl2vl);
  EXPECT_TRUE(cut.problem.empty()) << cut.problem;
  EXPECT_EQ(cut.routes, c.routes);
  EXPECT_EQ(cut.hops, hops - lost);
}

TEST(Lfts, LstDumpOfThePlanGivesTheSameTables) {
  // The LST format (opensm-subnet.lst / ibdiagnet .lst), one line per link, with other GUIDs.
  const CablingPlan plan = make_cabling_plan(5, 4, 36);
  auto sw = [&](int s) {
    const std::string g = fmt::format("0x0008f10500b{:05x}", s);
    return fmt::format(
        "SW Ports:24 SystemGUID:{0} NodeGUID:{0} PortGUID:{0} VenID:000002C9 DevID:C738 Rev:000000A1 {{{1}}} "
        "LID:{2:04X}",
        g, switch_description(plan, s), s + 1);
  };
  std::string lst;
  for (const auto& l : plan.links)
    lst += fmt::format("{{ {} PN:{:02X} }} {{ {} PN:{:02X} }} PHY=4x LOG=ACT SPD=5\n", sw(l.sw_a), l.port_a, sw(l.sw_b),
                       l.port_b);
  for (int e = 0; e < plan.num_endpoints(); ++e)
    lst += fmt::format(
        "{{ CA Ports:01 SystemGUID:0x0008f10500d{0:05x} NodeGUID:0x0008f10500d{0:05x} PortGUID:0x0008f10500d{1:05x} "
        "VenID:000002C9 "
        "DevID:1003 Rev:00000000 {{{2} HCA-1}} LID:{3:04X} PN:01 }} {{ {4} PN:{5:02X} }} PHY=4x LOG=ACT SPD=5\n",
        2 * e, 2 * e + 1, endpoint_name(plan, e), 100 + e, sw(e / 4), e % 4 + 1);
  const IbFabric dump = parse_ibnetdiscover_text(lst, "subnet.lst");
  EXPECT_EQ(dump.format, "lst");
  EXPECT_TRUE(verify_cabling(plan, dump).ok());
  const Fabric f = fabric_from_discovery(plan, dump);
  ASSERT_EQ(f.num_endpoints(), 200);
  EXPECT_EQ(f.endpoints[3].port_guid, "0008f10500d00007");
  const RoundTrip t = round_trip(f, layers_for(f, 4));
  EXPECT_TRUE(t.walk.ok()) << t.walk.text();
  EXPECT_EQ(t.walk.delivered, 250L * (200 * 4 + 50));
  // Same ports as the plan: the LFTs equal the plan's entry for entry.
  const Fabric fp = fabric_from_plan(plan);
  const RoundTrip tp = round_trip(fp, layers_for(fp, 4));
  EXPECT_EQ(t.lft, tp.lft);
}

TEST(Lfts, BlockByBlockWriteAndInstallEqualsTheWholeDump) {
  // `lbsim layers --tables` writes lfts.dump one switch block at a time and installs each block as
  // it is parsed back: the bytes must be format_lfts_dump's and the tables install_like_opensm's,
  // also when OpenSM hands out other LIDs (remap by port GUID across blocks).
  const Fabric f = fabric_from_plan(make_cabling_plan(5, 4, 36));
  const RoundTrip t = round_trip(f, layers_for(f, 4));
  auto assigned = parse_guid2lid(t.guid2lid, "guid2lid");
  std::map<std::string, std::pair<int, int>> rotated;
  for (int e = 0; e < 200; ++e)
    rotated[f.endpoints[static_cast<std::size_t>(e)].port_guid] =
        assigned.at(f.endpoints[static_cast<std::size_t>((e + 7) % 200)].port_guid);
  for (int s = 0; s < 50; ++s)
    rotated[f.switches[static_cast<std::size_t>(s)].guid] = assigned.at(f.switches[static_cast<std::size_t>(s)].guid);
  for (const auto& lids_given : {assigned, rotated}) {
    const LftsDumpFormatter fm(f, t.lids);
    OpenSmInstaller ins(f, lids_given);
    std::string all, buf;
    long lines = 0;
    lines += fm.header(all);
    int blocks = 0;
    for (int s = 0; s < f.num_switches(); ++s) {
      buf.clear();
      const long n = fm.block(s, t.lft[static_cast<std::size_t>(s)], buf);
      EXPECT_EQ(n, static_cast<long>(std::count(buf.begin(), buf.end(), '\n')));
      EXPECT_LE(buf.size(), fm.block_size(t.lft[static_cast<std::size_t>(s)]));
      const auto parsed = parse_lfts_dump(buf, "lfts.dump", lines);
      ASSERT_EQ(parsed.size(), 1u);
      EXPECT_EQ(parsed[0].line, lines + 1);  // the block's header line, numbered as in the whole file
      for (const auto& b : parsed) ins.add(b), ++blocks;
      lines += n;
      all += buf;
    }
    EXPECT_EQ(blocks, 50);
    EXPECT_EQ(all, t.dump);
    const InstalledTables got = ins.finish();
    const InstalledTables want = install_like_opensm(f, parse_lfts_dump(t.dump, "lfts.dump"), lids_given);
    EXPECT_EQ(got.lft, want.lft);
    EXPECT_EQ(got.switch_lids, want.switch_lids);
    EXPECT_EQ(got.endpoint_lids, want.endpoint_lids);
    EXPECT_TRUE(walk_routes(f, got).ok());
  }
}
