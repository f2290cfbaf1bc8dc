// Cabling plan, ibnetdiscover parsing and verification ([SlimFly] sec. 3.2-3.4).
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "analysis/cabling.h"
#include "analysis/path_options.h"
#include "analysis/scale.h"
#include "analysis/switch_graph.h"
#include "config/reader.h"
#include "core/error.h"
#include "topo/paths.h"
#include "topo/registry.h"
#include "topo/slim_fly.h"

using namespace lbsim;
using namespace lbsim::analysis;

namespace {

std::vector<std::string> split_lines(const std::string& t) {
  std::vector<std::string> v;
  std::istringstream in(t);
  for (std::string l; std::getline(in, l);) v.push_back(l);
  return v;
}

std::string join(const std::vector<std::string>& v) {
  std::string o;
  for (const auto& l : v) o += l + "\n";
  return o;
}

// Edits an emitted dump: sets (or with peer_sw < 0 removes) the link line of port `port` in the
// block of switch `sw`.
void set_port(std::vector<std::string>& lines, const CablingPlan& plan, int sw, int port, int peer_sw, int peer_port) {
  const std::string header = fmt::format("\"S-{}\"", switch_guid(sw));
  bool in_block = false;
  std::size_t insert_at = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].rfind("Switch", 0) == 0 || lines[i].rfind("Ca", 0) == 0) {
      if (in_block) break;
      in_block = lines[i].find(header) != std::string::npos;
      insert_at = i + 1;
      continue;
    }
    if (!in_block) continue;
    if (lines[i].rfind(fmt::format("[{}]\t", port), 0) == 0) {
      lines.erase(lines.begin() + static_cast<long>(i));
      insert_at = i;
      break;
    }
    if (!lines[i].empty() && lines[i][0] == '[') insert_at = i + 1;
  }
  ASSERT_GT(insert_at, 0u);
  if (peer_sw >= 0)
    lines.insert(lines.begin() + static_cast<long>(insert_at),
                 fmt::format("[{}]\t\"S-{}\"[{}]\t\t# \"MF0;{}:SX6036/U1\" lid {} 4xFDR", port, switch_guid(peer_sw),
                             peer_port, plan.name(peer_sw), peer_sw + 1));
}

// Connects a:pa with b:pb in both blocks.
void cable(std::vector<std::string>& lines, const CablingPlan& plan, int a, int pa, int b, int pb) {
  set_port(lines, plan, a, pa, b, pb);
  set_port(lines, plan, b, pb, a, pa);
}

VerifyReport verify_text(const CablingPlan& plan, const std::string& dump) {
  return verify_cabling(plan, parse_ibnetdiscover_text(dump, "dump.txt"));
}

bool contains(const std::vector<std::string>& v, const std::string& needle) {
  for (const auto& s : v)
    if (s.find(needle) != std::string::npos) return true;
  return false;
}

std::string all(const std::vector<std::string>& v) {
  std::string o;
  for (const auto& s : v) o += s + "\n";
  return o;
}

}  // namespace

TEST(CablingPlan, EveryMmsLinkOnceWithPortRules) {
  for (int q : {3, 4, 5, 7, 8, 9}) {
    SCOPED_TRACE(q);
    const auto g = topo::build_mms_graph(q);
    const auto plan = make_cabling_plan(q);
    const int kp = g.degree(), p = (kp + 1) / 2, nx = (q - g.delta) / 2;
    EXPECT_EQ(plan.p, p);
    EXPECT_EQ(plan.switch_ports, p + kp);
    ASSERT_EQ(static_cast<int>(plan.links.size()), 2 * q * q * kp / 2);
    std::set<std::pair<int, int>> pairs;
    std::set<std::pair<int, int>> used_ports;
    std::map<std::pair<int, int>, int> rack_pair;
    int step_count[4] = {0, 0, 0, 0};
    int last_step = 1;
    for (std::size_t i = 0; i < plan.links.size(); ++i) {
      const auto& l = plan.links[i];
      EXPECT_EQ(l.id, static_cast<int>(i) + 1);
      EXPECT_LT(l.sw_a, l.sw_b);
      EXPECT_TRUE(pairs.insert({l.sw_a, l.sw_b}).second) << "duplicate link";
      EXPECT_TRUE(used_ports.insert({l.sw_a, l.port_a}).second);
      EXPECT_TRUE(used_ports.insert({l.sw_b, l.port_b}).second);
      // Planned links are exactly the MMS edges.
      const auto& adj = g.adj[static_cast<std::size_t>(l.sw_a)];
      EXPECT_TRUE(std::binary_search(adj.begin(), adj.end(), l.sw_b));
      const auto la = g.label(l.sw_a), lb = g.label(l.sw_b);
      // Wiring order: steps non-decreasing; step 1 = same subgroup+rack, 2 = same rack, 3 = other rack.
      EXPECT_GE(l.step, last_step);
      last_step = l.step;
      ++step_count[l.step];
      EXPECT_EQ(l.step, la[1] != lb[1] ? 3 : (la[0] == lb[0] ? 1 : 2));
      EXPECT_EQ(l.inter_rack, la[1] != lb[1]);
      for (const auto& [sw, port, other] :
           {std::tuple{l.sw_a, l.port_a, l.sw_b}, std::tuple{l.sw_b, l.port_b, l.sw_a}}) {
        EXPECT_GT(port, p);  // endpoint ports 1..p stay free
        EXPECT_LE(port, p + kp);
        const int own = g.label(sw)[1], orack = g.label(other)[1];
        if (own == orack) {
          EXPECT_LE(port, p + nx + 1);  // intra-rack block
          if (g.label(sw)[0] != g.label(other)[0]) {
            EXPECT_EQ(port, p + nx + 1);
          }
        } else {
          // Inter-rack: the same port towards a given rack for every switch of the rack (sec. 3.3).
          EXPECT_EQ(port, p + nx + 2 + (orack < own ? orack : orack - 1));
          EXPECT_EQ(port, plan.port_to_rack(sw, orack));
        }
      }
      if (l.inter_rack) ++rack_pair[{std::min(la[1], lb[1]), std::max(la[1], lb[1])}];
    }
    // Every switch uses all of its ports p+1..p+k'.
    EXPECT_EQ(static_cast<int>(used_ports.size()), 2 * q * q * kp);
    // sec. 3.2: every two racks are joined by 2q cables.
    EXPECT_EQ(static_cast<int>(rack_pair.size()), q * (q - 1) / 2);
    for (const auto& [k, n] : rack_pair) EXPECT_EQ(n, 2 * q);
    EXPECT_EQ(step_count[1], q * q * nx);  // q racks x 2 subgroups x q switches x |X| / 2
    EXPECT_EQ(step_count[2], q * q);       // one per switch pair (0,R,.)-(1,R,.)
    EXPECT_EQ(step_count[3], q * q * (q - 1));
  }
}

TEST(CablingPlan, Fig4PortLayoutForDeployedCluster) {
  // Fig. 4 (q = 5, p = 4): ports 1-4 endpoints, 5-7 intra-rack, 8-11 inter-rack.
  const auto plan = make_cabling_plan(5, -1, 36);
  EXPECT_EQ(plan.p, 4);
  EXPECT_EQ(plan.intra_ports(), 3);
  EXPECT_EQ(plan.radix(), 11);
  for (int s = 0; s < plan.num_switches(); ++s) {
    for (int pt = 1; pt <= 36; ++pt) {
      const bool used = plan.peer(s, pt).has_value();
      EXPECT_EQ(used, pt >= 5 && pt <= 11) << plan.name(s) << " port " << pt;
    }
  }
  EXPECT_EQ(plan.name(plan.num_switches() - 1), "sf-1-4-4");
  EXPECT_EQ(plan.find("sf-1-4-4"), plan.num_switches() - 1);
  EXPECT_EQ(plan.find("sf-0-2-3"), 13);
  EXPECT_FALSE(plan.find("sf-2-0-0"));
  EXPECT_FALSE(plan.find("sf-0-5-0"));
  EXPECT_FALSE(plan.find("xx-0-0-0"));
  EXPECT_THROW(make_cabling_plan(5, -1, 10), UserError);  // 10 < 11 ports needed
  EXPECT_THROW(make_cabling_plan(6), UserError);
}

TEST(CablingPlan, WritersDescribeEveryLink) {
  const auto plan = make_cabling_plan(5);
  const auto csv = split_lines(plan_links_csv(plan));
  ASSERT_EQ(csv.size(), 1 + plan.links.size());
  EXPECT_EQ(csv[0], "link,step,cable,a_name,a_S,a_R,a_I,a_port,b_name,b_S,b_R,b_I,b_port");
  const auto& l = plan.links.back();
  EXPECT_EQ(
      csv.back(),
      fmt::format("{},3,optical,{},{},{},{},{},{},{},{},{},{}", l.id, plan.name(l.sw_a),
                  plan.labels[static_cast<std::size_t>(l.sw_a)][0], plan.labels[static_cast<std::size_t>(l.sw_a)][1],
                  plan.labels[static_cast<std::size_t>(l.sw_a)][2], l.port_a, plan.name(l.sw_b),
                  plan.labels[static_cast<std::size_t>(l.sw_b)][0], plan.labels[static_cast<std::size_t>(l.sw_b)][1],
                  plan.labels[static_cast<std::size_t>(l.sw_b)][2], l.port_b));
  const auto ports = split_lines(plan_ports_csv(plan));
  ASSERT_EQ(ports.size(), 1u + 50u * 11u);
  EXPECT_EQ(ports[0], "switch,S,R,I,rack_slot,port,role,peer,peer_port,link");
  EXPECT_EQ(ports[1], "sf-0-0-0,0,0,0,0,1,endpoint,,,");
  EXPECT_EQ(ports[5],
            fmt::format("sf-0-0-0,0,0,0,0,5,intra-rack,{},{},1", plan.name(plan.links[0].sw_b), plan.links[0].port_b));
  EXPECT_EQ(ports.back().substr(0, 22), "sf-1-4-4,1,4,4,9,11,in");  // bottom slot of rack 4, last inter-rack port
  const std::string json = plan_json(plan);
  EXPECT_NE(json.find("\"wiring_steps\""), std::string::npos);
  EXPECT_NE(json.find("\"inter_rack\": \"8-11\""), std::string::npos) << json.substr(0, 400);
  const std::string svg = rack_pair_svg(plan, 0, 2);
  std::size_t lines = 0;
  for (std::size_t at = svg.find("<line"); at != std::string::npos; at = svg.find("<line", at + 1)) ++lines;
  EXPECT_EQ(lines, 10u);  // 2q cables between racks 0 and 2
  EXPECT_NE(svg.find("(1,2,4)"), std::string::npos);
  EXPECT_THROW(rack_pair_svg(plan, 1, 1), UserError);
  const std::string wiring = plan_wiring_text(plan);
  EXPECT_NE(wiring.find("Step 1"), std::string::npos);
  EXPECT_NE(wiring.find("rack 4: sf-0-4-0 sf-0-4-1 sf-0-4-2 sf-0-4-3 sf-0-4-4 sf-1-4-0"), std::string::npos) << wiring;
  EXPECT_NE(wiring.find("Step 3"), std::string::npos);
  EXPECT_LT(wiring.find("Step 2"), wiring.find("Step 3"));
}

TEST(Ibnetdiscover, ParsesEmittedDumpCompletely) {
  const auto plan = make_cabling_plan(5, -1, 36);
  const auto f = parse_ibnetdiscover_text(emit_ibnetdiscover(plan), "gen.txt");
  int sw = 0, ca = 0;
  for (const auto& n : f.nodes) (n.type == 'S' ? sw : ca)++;
  EXPECT_EQ(sw, 50);
  EXPECT_EQ(ca, 200);
  // Each switch-switch cable in both directions plus each HCA cable in both directions.
  EXPECT_EQ(f.peer.size(), 2 * (175u + 200u));
  for (const auto& l : plan.links) {
    auto it = f.peer.find(IbEnd{switch_guid(l.sw_a), l.port_a});
    ASSERT_NE(it, f.peer.end());
    EXPECT_EQ(it->second.first.guid, switch_guid(l.sw_b));
    EXPECT_EQ(it->second.first.port, l.port_b);
  }
}

TEST(Ibnetdiscover, ParsesRealWorldSyntax) {
  // The shapes printed by infiniband-diags' ibnetdiscover (header comment, attribute lines, port
  // GUIDs in parentheses, CA link lines with "lid .. lmc ..", optional [ext N]).
  const std::string dump =
      "#\n# Topology file: generated on Tue Mar 15 10:13:42 2016\n#\n"
      "# Initiated from node 0002c90300a3b2f0 port 0002c90300a3b2f1\n\n"
      "vendid=0x2c9\ndevid=0xc738\nsysimgguid=0x2c903004e4b00\nswitchguid=0x2c903004e4b00(2c903004e4b00)\n"
      "Switch\t36 \"S-0002c903004e4b00\"\t\t# \"MF0;switch-a:SX6036/U1\" enhanced port 0 lid 5 lmc 0\n"
      "[1]\t\"H-0002c90300a3b2f0\"[1](2c90300a3b2f1) \t\t# \"node01 HCA-1\" lid 3 4xFDR\n"
      "[2][ext 2]\t\"S-0002c903004e4c00\"[7]\t\t# \"MF0;switch-b:SX6036/U1\" lid 6 4xFDR\r\n"
      "\n"
      "Switch\t36 \"S-0002c903004e4c00\"\t\t# \"MF0;switch-b:SX6036/U1\" base port 0 lid 6 lmc 0\n"
      "[7]\t\"S-0002c903004e4b00\"[2]\t\t# \"MF0;switch-a:SX6036/U1\" lid 5 4xFDR\n"
      "\nvendid=0x2c9\ndevid=0x1003\nsysimgguid=0x2c90300a3b2f3\ncaguid=0x2c90300a3b2f0\n"
      "Ca\t2 \"H-0002c90300a3b2f0\"\t\t# \"node01 HCA-1\"\n"
      "[1](2c90300a3b2f1) \t\"S-0002c903004e4b00\"[1]\t\t# lid 3 lmc 0 \"MF0;switch-a:SX6036/U1\" lid 5 4xFDR\n";
  const auto f = parse_ibnetdiscover_text(dump, "real.txt");
  ASSERT_EQ(f.nodes.size(), 3u);
  EXPECT_EQ(f.nodes[0].desc, "MF0;switch-a:SX6036/U1");
  EXPECT_EQ(f.nodes[0].nports, 36);
  EXPECT_EQ(f.nodes[2].type, 'H');
  EXPECT_EQ(f.nodes[2].line, 21);  // the "Ca" header line
  EXPECT_EQ(f.peer.size(), 4u);
  const auto it = f.peer.find(IbEnd{"0002c903004e4c00", 7});
  ASSERT_NE(it, f.peer.end());
  EXPECT_EQ(it->second.first.port, 2);
}

TEST(Ibnetdiscover, MalformedLinesGiveLineNumbers) {
  const std::string head = "Switch\t36 \"S-0002c903004e4b00\"\t\t# \"MF0;sw:SX6036/U1\" enhanced port 0 lid 5 lmc 0\n";
  struct Case {
    std::string text;
    std::string where;
    std::string what;
  };
  const std::vector<Case> cases = {
      {"# c\n[1]\t\"S-0002c903004e4c00\"[1]\n", "bad.txt:2:", "outside a Switch/Ca/Rt block"},
      {head + "[x]\t\"S-0002c903004e4c00\"[1]\n", "bad.txt:2:", "expected '[<port>]'"},
      {head + "[37]\t\"S-0002c903004e4c00\"[1]\n", "bad.txt:2:", "port 37 out of range"},
      {head + "[3]\t\"Q-0002c903004e4c00\"[1]\n", "bad.txt:2:", "not of the form"},
      {head + "[3]\t\"S-00zz\"[1]\n", "bad.txt:2:", "invalid GUID"},
      {head + "[3]\t\"S-0002c903004e4c00\"\n", "bad.txt:2:", "expected '[<peer port>]'"},
      {head + "[3]\t\"S-0002c903004e4c00\"[1]\n[3]\t\"S-0002c903004e4c01\"[1]\n", "bad.txt:3:", "listed twice"},
      {"\n\nSwitch\tmany \"S-0002c903004e4b00\"\n", "bad.txt:3:", "number of ports"},
      {"Ca\t2 \"S-0002c903004e4b00\"\n", "bad.txt:1:", "must name a \"H-<guid>\""},
      {"vendorid=0x2c9\n", "bad.txt:1:", "unknown attribute 'vendorid'"},
      {"devid=xyz\n", "bad.txt:1:", "malformed hex"},
      {head + "this is not ibnetdiscover output\n", "bad.txt:2:", "unrecognized line"},
      {head + "[3]\t\"S-0002c903004e4c00\"[1] trailing\n", "bad.txt:2:", "unexpected text"},
      // The two sides of a cable disagree.
      {head + "[3]\t\"S-0002c903004e4c00\"[1]\n\nSwitch\t36 \"S-0002c903004e4c00\"\n[1]\t\"S-0002c903004e4b00\"[4]\n",
       "bad.txt:5:", "inconsistent dump"},
      {head + "[3]\t\"S-0002c903004e4c00\"[40]\n\nSwitch\t36 \"S-0002c903004e4c00\"\n",
       "bad.txt:2:", "peer port 40 out of range"},
      {head + head, "bad.txt:2:", "already listed at line 1"},
      {head + "[3]\t\"H-0002c903004e4c00\"[1]\n\nSwitch\t36 \"S-0002c903004e4c00\"\n", "bad.txt:4:", "is named S-"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    try {
      parse_ibnetdiscover_text(c.text, "bad.txt");
      ADD_FAILURE() << "accepted";
    } catch (const UserError& e) {
      const std::string m = e.what();
      EXPECT_EQ(m.rfind(c.where, 0), 0u) << m;
      EXPECT_NE(m.find(c.what), std::string::npos) << m;
    }
  }
}

TEST(CablingVerify, ExactPlanReportsNothing) {
  for (int q : {4, 5}) {
    const auto plan = make_cabling_plan(q, -1, 36);
    const auto rep = verify_text(plan, emit_ibnetdiscover(plan));
    EXPECT_TRUE(rep.ok()) << rep.text();
    EXPECT_EQ(rep.matched, static_cast<int>(plan.links.size()));
    EXPECT_TRUE(rep.missing.empty());
    EXPECT_TRUE(rep.miswired.empty());
    EXPECT_TRUE(rep.unexpected.empty());
    EXPECT_TRUE(rep.warnings.empty()) << all(rep.warnings);
  }
}

TEST(CablingVerify, FindsSwappedInterRackPair) {
  const auto plan = make_cabling_plan(5, -1, 36);
  auto lines = split_lines(emit_ibnetdiscover(plan));
  // Two cables between racks 0 and 1 plugged into each other's far ports: a-b and c-d become a-d and c-b.
  const auto& l1 = plan.links[plan.links.size() - 20];
  const auto& l2 = plan.links[plan.links.size() - 19];
  ASSERT_EQ(l1.step, 3);
  ASSERT_NE(l1.sw_b, l2.sw_b);
  cable(lines, plan, l1.sw_a, l1.port_a, l2.sw_b, l2.port_b);
  cable(lines, plan, l2.sw_a, l2.port_a, l1.sw_b, l1.port_b);
  const auto rep = verify_text(plan, join(lines));
  EXPECT_FALSE(rep.ok());
  EXPECT_EQ(rep.matched, static_cast<int>(plan.links.size()) - 2);
  EXPECT_EQ(rep.missing.size(), 2u) << rep.text();
  ASSERT_EQ(rep.miswired.size(), 1u) << rep.text();
  EXPECT_TRUE(rep.unexpected.empty()) << rep.text();
  EXPECT_NE(rep.miswired[0].find("swap the cable ends at"), std::string::npos) << rep.miswired[0];
  EXPECT_TRUE(contains(rep.missing, fmt::format("{} port {} <-> {} port {}", plan.name(l1.sw_a), l1.port_a,
                                                plan.name(l1.sw_b), l1.port_b)))
      << rep.text();
}

TEST(CablingVerify, SameSwitchWrongPortsGiveMoveAndSwapInstructions) {
  const auto plan = make_cabling_plan(5, -1, 36);
  const int a = plan.links[0].sw_a;  // sf-0-0-0
  // Cable at a: port 5 moved to the unused port 20 -> "move the cable at a port 20 to port 5".
  {
    auto lines = split_lines(emit_ibnetdiscover(plan));
    const auto pr = plan.peer(a, 5);
    ASSERT_TRUE(pr);
    set_port(lines, plan, a, 5, -1, 0);
    cable(lines, plan, a, 20, pr->first, pr->second);
    const auto rep = verify_text(plan, join(lines));
    ASSERT_EQ(rep.miswired.size(), 1u) << rep.text();
    EXPECT_NE(rep.miswired[0].find(fmt::format("move the cable at {} port 20 to port 5", plan.name(a))),
              std::string::npos)
        << rep.miswired[0];
    EXPECT_EQ(rep.missing.size(), 1u);
    EXPECT_TRUE(rep.unexpected.empty());
  }
  // Cables of ports 8 and 9 of switch a exchanged -> "swap the cables at a ports 8 and 9".
  {
    auto lines = split_lines(emit_ibnetdiscover(plan));
    const auto p8 = plan.peer(a, 8), p9 = plan.peer(a, 9);
    cable(lines, plan, a, 8, p9->first, p9->second);
    cable(lines, plan, a, 9, p8->first, p8->second);
    const auto rep = verify_text(plan, join(lines));
    ASSERT_EQ(rep.miswired.size(), 1u) << rep.text();
    const bool ok =
        rep.miswired[0].find(fmt::format("swap the cables at {} ports 8 and 9", plan.name(a))) != std::string::npos ||
        rep.miswired[0].find(fmt::format("swap the cables at {} ports 9 and 8", plan.name(a))) != std::string::npos;
    EXPECT_TRUE(ok) << rep.miswired[0];
    EXPECT_EQ(rep.missing.size(), 2u);
  }
}

TEST(CablingVerify, FindsMissingCable) {
  const auto plan = make_cabling_plan(5, -1, 36);
  auto lines = split_lines(emit_ibnetdiscover(plan));
  const auto& l = plan.links[7];
  set_port(lines, plan, l.sw_a, l.port_a, -1, 0);
  set_port(lines, plan, l.sw_b, l.port_b, -1, 0);
  const auto rep = verify_text(plan, join(lines));
  EXPECT_FALSE(rep.ok());
  ASSERT_EQ(rep.missing.size(), 1u) << rep.text();
  EXPECT_NE(rep.missing[0].find(fmt::format("[link {}, step {}", l.id, l.step)), std::string::npos);
  EXPECT_NE(rep.missing[0].find("both ports are free"), std::string::npos);
  EXPECT_TRUE(rep.miswired.empty());
  EXPECT_TRUE(rep.unexpected.empty());
  EXPECT_EQ(rep.matched, static_cast<int>(plan.links.size()) - 1);
}

TEST(CablingVerify, FindsExtraCableAndStrayEndpoint) {
  const auto plan = make_cabling_plan(5, -1, 36);
  auto lines = split_lines(emit_ibnetdiscover(plan));
  cable(lines, plan, 3, 30, 40, 31);
  const auto rep = verify_text(plan, join(lines));
  EXPECT_FALSE(rep.ok());
  ASSERT_EQ(rep.unexpected.size(), 1u) << rep.text();
  EXPECT_NE(rep.unexpected[0].find(fmt::format("{} port 30 <-> {} port 31", plan.name(3), plan.name(40))),
            std::string::npos)
      << rep.unexpected[0];
  EXPECT_NE(rep.unexpected[0].find("remove the cable"), std::string::npos);
  EXPECT_TRUE(rep.missing.empty());
  EXPECT_TRUE(rep.miswired.empty());
  EXPECT_EQ(rep.matched, static_cast<int>(plan.links.size()));
}

TEST(CablingVerify, EndpointOnInterSwitchPort) {
  const auto plan = make_cabling_plan(5, -1, 36);
  auto lines = split_lines(emit_ibnetdiscover(plan));
  // Replace the cable at sf-0-0-0 port 9 by the HCA that belongs on port 4.
  const auto pr = plan.peer(0, 9);
  set_port(lines, plan, 0, 9, -1, 0);
  set_port(lines, plan, pr->first, pr->second, -1, 0);
  std::string hca_line;
  for (auto& l : lines)
    if (l.rfind("[4]\t\"H-", 0) == 0 && hca_line.empty()) {
      hca_line = l;
      l = "[9]" + l.substr(3);
    }
  for (auto& l : lines)  // the HCA's own block points at port 9 now
    if (l.find("\"S-" + switch_guid(0) + "\"[4]") != std::string::npos) l.replace(l.find("[4]"), 3, "[9]");
  const auto rep = verify_text(plan, join(lines));
  ASSERT_EQ(rep.unexpected.size(), 1u) << rep.text();
  EXPECT_NE(rep.unexpected[0].find("sf-0-0-0 port 9 carries an endpoint"), std::string::npos) << rep.unexpected[0];
  ASSERT_EQ(rep.missing.size(), 1u);
  EXPECT_NE(rep.missing[0].find("a port holds another cable"), std::string::npos) << rep.missing[0];
  EXPECT_TRUE(contains(rep.warnings, "sf-0-0-0 port 4: endpoint port is empty")) << all(rep.warnings);
}

TEST(CablingVerify, CableToSwitchMissingFromDumpIsUnexpected) {
  const auto plan = make_cabling_plan(5, -1, 36);
  auto lines = split_lines(emit_ibnetdiscover(plan));
  // Port 30 of switch 0 reaches a switch whose own block is absent from the dump.
  lines.insert(lines.begin() + 10, "[30]\t\"S-00000000deadbeef\"[2]\t\t# \"MF0;other:SX6036/U1\" lid 900 4xFDR");
  const auto rep = verify_text(plan, join(lines));
  ASSERT_EQ(rep.unexpected.size(), 1u) << rep.text();
  EXPECT_NE(rep.unexpected[0].find("S-00000000deadbeef port 2"), std::string::npos) << rep.unexpected[0];
  EXPECT_EQ(rep.matched, static_cast<int>(plan.links.size()));
  EXPECT_FALSE(rep.ok());
}

TEST(CablingVerify, MappingFileAndUnknownSwitches) {
  auto plan = make_cabling_plan(4, -1, 20);
  std::string dump = emit_ibnetdiscover(plan);
  // Replace every planned name in the descriptions by an opaque one; the map restores the relation.
  std::string map_text = "# guid name\n";
  for (int s = 0; s < plan.num_switches(); ++s) {
    const std::string nm = plan.name(s) + ":";
    for (auto at = dump.find(nm); at != std::string::npos; at = dump.find(nm, at))
      dump.replace(at, nm.size(), fmt::format("box{}:", 100 + s));
    map_text += fmt::format("0x{} \"{}\"\n", switch_guid(s).substr(3), plan.name(s));  // GUIDs without leading zeros
  }
  // Without a map no switch is recognised: an error that points at --map (not "N cables missing").
  const auto fab = parse_ibnetdiscover_text(dump, "opaque.txt");
  try {
    verify_cabling(plan, fab);
    ADD_FAILURE() << "no switch matched, but no error";
  } catch (const UserError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("opaque.txt"), std::string::npos) << m;
    EXPECT_NE(m.find("--map"), std::string::npos) << m;
    EXPECT_NE(m.find("box100"), std::string::npos) << m;
  }
  std::istringstream mm(map_text);
  const auto names = parse_name_map(mm, "names.map");
  EXPECT_EQ(names.size(), static_cast<std::size_t>(plan.num_switches()));
  const auto good = verify_cabling(plan, fab, &names);
  EXPECT_TRUE(good.ok()) << good.text();
  EXPECT_NE(good.mapping[0].find(fmt::format("{} by mapping file", plan.num_switches())), std::string::npos);
  EXPECT_TRUE(good.warnings.empty()) << all(good.warnings);
  auto extra = names;
  extra["00000000000000ff"] = "sf-0-0-0";
  const auto warned = verify_cabling(plan, fab, &extra);
  EXPECT_TRUE(warned.ok());
  EXPECT_TRUE(contains(warned.warnings, "00000000000000ff")) << all(warned.warnings);
  // Two switches claiming the same name is an error.
  auto dup = names;
  dup[switch_guid(1)] = plan.name(0);
  EXPECT_THROW(verify_cabling(plan, fab, &dup), UserError);
}

TEST(CablingVerify, NameMapErrors) {
  std::istringstream bad1("0xZZ \"a\"\n");
  EXPECT_THROW(parse_name_map(bad1, "m"), UserError);
  std::istringstream bad2("# ok\n0x1 \"a\"\n0x01 \"b\"\n");
  try {
    parse_name_map(bad2, "m");
    ADD_FAILURE();
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("m:3:", 0), 0u) << e.what();
  }
  std::istringstream ok("0x2c9 sf-0-0-0   # comment\n");
  const auto m = parse_name_map(ok, "m");
  EXPECT_EQ(m.at("00000000000002c9"), "sf-0-0-0");
}

namespace {
config::Config parse_cfg(const std::string& text) {
  config::Config c;
  config::load_text(c, text, "t.toml");
  return c;
}
}  // namespace

// The cabling keys are declared keys of the one key table ([cabling] switch_ports, name_prefix);
// the topology comes from the run config's [topology] keys.
TEST(CablingConfig, ReadsKeys) {
  const auto plan = make_cabling_plan(parse_cfg(
      "[topology]\nkind = \"slim_fly\"\nq = 7\np = 5\n[cabling]\nswitch_ports = 36\nname_prefix = \"sf7\"\n"));
  EXPECT_EQ(plan.q, 7);
  EXPECT_EQ(plan.p, 5);
  EXPECT_EQ(plan.switch_ports, 36);
  EXPECT_EQ(plan.name(0), "sf7-0-0-0");
  // Defaults: p = ceil(k'/2), switch_ports = p + k', prefix "sf".
  const auto d = make_cabling_plan(parse_cfg("[topology]\nkind = \"slim_fly\"\nq = 5\n"));
  EXPECT_EQ(d.p, 4);
  EXPECT_EQ(d.switch_ports, 11);
  EXPECT_EQ(d.name(0), "sf-0-0-0");
}

TEST(CablingConfig, ErrorsNameKeyAndOrigin) {
  struct Case {
    std::string text, msg;
  };
  const std::vector<Case> cases = {
      {"[topology]\nkind = \"slim_fly\"\n\nqq = 5\n",
       "t.toml:4: unknown key 'topology.qq' (did you mean 'topology.q'?)"},
      {"[topologie]\nq = 5\n", "t.toml:1: unknown section [topologie] (did you mean [topology]?"},
      {"[topology]\nq = \"five\"\n", "t.toml:2: key 'topology.q': expected an integer, got a string"},
      {"[topology]\nkind = \"dragonfly\"\n",
       "t.toml:2: topology.kind = \"dragonfly\": the cabling plan is for a Slim Fly"},
      {"[topology]\nq = 5\n", "topology.kind = \"fat_tree\" (the default): the cabling plan is for a Slim Fly"},
      {"[topology]\nkind = \"slim_fly\"\nq = 6\n", "t.toml:3: topology.q: slim_fly: q = 6 is not a prime power"},
      {"[topology]\nkind = \"slim_fly\"\nq = 5\n[cabling]\nswitch_ports = 10\n",
       "t.toml:5: cabling: switch_ports = 10 is less than the p + k' = 4 + 7 = 11 ports"},
      {"[topology]\nkind = \"slim_fly\"\nq = 5\n[cabling]\nname_prefix = \"s f\"\n",
       "t.toml:5: cabling.name_prefix = \"s f\" must be non-empty"},
      {"[cabling]\nswich_ports = 1\n",
       "t.toml:2: unknown key 'cabling.swich_ports' (did you mean 'cabling.switch_ports'?)"},
      {"[topology]\nq = 5\nq = 7\n", "t.toml:3:"},
  };
  for (const auto& cs : cases) {
    try {
      make_cabling_plan(parse_cfg(cs.text));
      ADD_FAILURE() << cs.text;
    } catch (const UserError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(cs.msg, 0), 0u) << e.what();
    }
  }
}

// One run config serves every toolkit command whose topology kind fits: `lbsim paths` (bounded
// paths), `lbsim layers` / `lbsim mat` (switch graph) and `lbsim cabling plan` (Slim Fly only).
TEST(CablingConfig, RunConfigServesTheToolkit) {
  const std::string ex = std::string(LBSIM_SOURCE_DIR) + "/examples/";
  const auto sf = config::load(ex + "spritz/slim_fly_table2.toml", {});
  const auto t = topo::build_topology(sf);
  topo::PathEnumerator pe(t, path_options(sf));
  EXPECT_EQ(pe.rule(), topo::PathRule::Valiant);
  EXPECT_EQ(pe.count(t.switch_node(0), t.switch_node(1)),
            static_cast<std::int64_t>(pe.paths(t.switch_node(0), t.switch_node(1)).size()));
  const auto g = switch_graph(sf);
  EXPECT_EQ(g.description, "slim_fly q=9: 162 switches, k'=13, p=7");
  const auto plan = make_cabling_plan(sf);
  EXPECT_EQ(plan.q, 9);
  EXPECT_EQ(plan.p, 7);
  EXPECT_EQ(plan.num_switches(), 162);
  const auto df = config::load(ex + "spritz/dragonfly_table2.toml", {});
  EXPECT_EQ(topo::PathEnumerator(topo::build_topology(df), path_options(df)).rule(), topo::PathRule::Dragonfly);
  EXPECT_EQ(switch_graph(df).adj.size(), 264u);
  EXPECT_THROW(make_cabling_plan(df), UserError);  // not a Slim Fly
}

// Every toolkit example loads with the commands it is documented for.
TEST(CablingConfig, ExamplesLoadWithTheirCommands) {
  const std::string ex = std::string(LBSIM_SOURCE_DIR) + "/examples/";
  for (const char* f : {"slimfly/sf-q5-cscs.toml", "slimfly/sf-q9-spritz.toml"}) {
    const auto c = config::load(ex + f, {});
    EXPECT_GT(make_cabling_plan(c).num_switches(), 0) << f;
    EXPECT_GT(switch_graph(c).adj.size(), 0u) << f;
    EXPECT_EQ(configured_prices(c), default_prices()) << f;
  }
  for (const char* f : {"layered/sf-q5.toml", "layered/sf-q7.toml", "layered/ring8.toml"})
    EXPECT_GT(switch_graph(config::load(ex + f, {})).adj.size(), 0u) << f;
  EXPECT_EQ(configured_prices(config::load(ex + "slimfly/prices.toml", {})), default_prices());
}

TEST(CablingVerify, EmptyDumpIsAnError) {
  auto plan = make_cabling_plan(5, 4, 36);
  for (const char* text : {"", "# only a comment\n\n"}) {
    const auto fab = parse_ibnetdiscover_text(text, "empty.txt");
    try {
      verify_cabling(plan, fab);
      ADD_FAILURE() << "empty dump accepted";
    } catch (const UserError& e) {
      EXPECT_NE(std::string(e.what()).find("lists no switch"), std::string::npos) << e.what();
    }
  }
}

TEST(IbnetdiscoverParse, ChassisGroupingOfDashG) {
  // ibnetdiscover -g groups nodes by chassis: "Chassis N (guid ...)" headers, a "Non-Chassis Nodes"
  // line, "Hostname:" lines and "# Chassis ..." comments after the attributes.
  auto plan = make_cabling_plan(5, 4, 36);
  std::string dump = emit_ibnetdiscover(plan);
  std::string g;
  std::istringstream in(dump);
  bool first = true;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("vendid=", 0) == 0 && first) {
      g += "\nChassis 1 (guid 0x2c90300a00000)\n\nNon-Chassis Nodes\n\nHostname: sf-0-0-0\n";
      first = false;
    }
    if (line.rfind("switchguid=", 0) == 0) line += "\t\t# Chassis 1 Spine 1";
    g += line + "\n";
  }
  ASSERT_NE(g.find("Non-Chassis Nodes"), std::string::npos);
  const auto fab = parse_ibnetdiscover_text(g, "g.txt");
  const auto rep = verify_cabling(plan, fab);
  EXPECT_TRUE(rep.ok()) << rep.text();
  EXPECT_EQ(rep.matched, static_cast<int>(plan.links.size()));
  EXPECT_THROW(parse_ibnetdiscover_text("Chassis x\n", "bad.txt"), UserError);
}

TEST(CableSheets, EveryCableWithLabelsMediaAndLength) {
  auto plan = make_cabling_plan(5, 4, 36);
  CableLayout lay;
  lay.racks_per_row = 3;  // racks 0-2 in row 0, racks 3-4 in row 1
  const auto cables = plan_cables(plan, lay);
  ASSERT_EQ(cables.size(), plan.links.size() + 200u);  // 175 switch cables + 200 endpoint cables
  std::set<std::string> ids;
  int dac = 0, aoc = 0;
  for (const auto& c : cables) {
    EXPECT_TRUE(ids.insert(c.id).second) << c.id;
    EXPECT_NE(c.label_a.find(c.id), std::string::npos);
    EXPECT_NE(c.label_b.find(c.id), std::string::npos);
    EXPECT_GE(c.length_m, c.estimate_m);
    EXPECT_EQ(c.media, c.length_m <= lay.dac_max_m ? "DAC" : "AOC") << c.id;
    (c.media == "DAC" ? dac : aoc)++;
  }
  EXPECT_GT(dac, 0);
  EXPECT_GT(aoc, 0);
  // Endpoint cable 1: host sf-0-0-0-n1 to sf-0-0-0 port 1, host_cable_m + slack = 3 m, copper.
  const auto& e1 = cables[plan.links.size()];
  EXPECT_EQ(e1.id, "E1");
  EXPECT_EQ(e1.a_device, "sf-0-0-0-n1");
  EXPECT_EQ(e1.b_device, "sf-0-0-0");
  EXPECT_EQ(e1.b_port, 1);
  EXPECT_DOUBLE_EQ(e1.length_m, 3.0);
  // A cable between rows is longer than the same cable within a row.
  auto longest_between = [&](int ra, int rb) {
    double m = 0;
    for (const auto& c : cables)
      if ((c.a_rack == fmt::format("rack-{}", ra) && c.b_rack == fmt::format("rack-{}", rb)) ||
          (c.a_rack == fmt::format("rack-{}", rb) && c.b_rack == fmt::format("rack-{}", ra)))
        m = std::max(m, c.estimate_m);
    return m;
  };
  EXPECT_GT(longest_between(0, 3), longest_between(0, 1));
  // Per-rack sheet: every cable with an end in rack 0, local end first.
  const auto sheet = split_lines(rack_cables_csv(plan, cables, 0));
  EXPECT_EQ(sheet.size(), 1u + 40 + 15 + 40);  // header, endpoints, intra-rack, 10 per other rack
  for (std::size_t i = 1; i < sheet.size(); ++i) {
    const auto local = sheet[i].substr(sheet[i].find(',') + 1, 7);  // local device: sf-S-0-...
    EXPECT_TRUE(local == "sf-0-0-" || local == "sf-1-0-") << sheet[i];
  }
  const auto html = rack_cables_html(plan, cables, 0);
  EXPECT_NE(html.find("rack-0: 95 cables"), std::string::npos);
  EXPECT_THROW(rack_cables_csv(plan, cables, 5), lbsim::UserError);
}

TEST(CablingPlan, SvgPortNumbersDoNotOverlapLabels) {
  // Every box has a label "(S,R,I) name" and a bold port number at the edge facing the other rack;
  // with ~7.5 px per character (12 px monospace) the two must not overlap (the right-hand rack once
  // printed "10" over the label's "(").
  for (int q : {5, 11}) {
    auto plan = make_cabling_plan(q, -1, 36);
    const std::string svg = rack_pair_svg(plan, 0, q - 1);
    const std::regex box(
        R"re(<text x="(\d+)" y="(\d+)">([^<]*)</text>\n<text x="(\d+)" y="\d+" font-weight="bold">(\d+)</text>)re");
    int boxes = 0;
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), box); it != std::sregex_iterator(); ++it, ++boxes) {
      const double lx = std::stod((*it)[1]), px = std::stod((*it)[4]);
      const double lw = 7.5 * static_cast<double>((*it)[3].length()), pw = 7.5 * static_cast<double>((*it)[5].length());
      EXPECT_TRUE(px >= lx + lw || px + pw <= lx)
          << "q " << q << ": label '" << (*it)[3] << "' at " << lx << " and port " << (*it)[5] << " at " << px;
    }
    EXPECT_EQ(boxes, 4 * q) << q;
  }
}
