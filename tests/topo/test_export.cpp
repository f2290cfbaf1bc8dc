// `lbsim topo CONFIG --edges FILE [--format csv|graphml|dot] [--nodes FILE]` (src/topo/export.*):
// the exported graph, parsed back, has the node and link counts and degrees that follow from each
// topology's construction (fat tree k, Dragonfly p/a/h, Slim Fly q, ring, complete graph).
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../sim/helpers.h"

namespace lbsim::test {
namespace {

struct Edge {
  int a, a_port, b, b_port;
  std::string kind, b_label;
  double rate_gbps, latency_ns;
};

// One CSV line; fields in double quotes may hold commas (Slim Fly labels "sw(0,1,4)"), "" is a quote.
std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      out.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

std::vector<Edge> parse_edges(const std::string& text) {
  std::stringstream ss(text);
  std::string line;
  std::getline(ss, line);
  EXPECT_EQ(line, "link,a,a_label,a_port,b,b_label,b_port,kind,rate_gbps,latency_ns");
  std::vector<Edge> out;
  while (std::getline(ss, line)) {
    const auto f = split(line);
    EXPECT_EQ(f.size(), 10u) << line;
    if (f.size() != 10) continue;
    EXPECT_EQ(std::stoi(f[0]), static_cast<int>(out.size()));
    out.push_back({std::stoi(f[1]), std::stoi(f[3]), std::stoi(f[4]), std::stoi(f[6]), f[7], f[5], std::stod(f[8]),
                   std::stod(f[9])});
  }
  return out;
}

struct Graph {
  int hosts = 0, switches = 0;
  std::vector<Edge> edges;
  std::map<int, std::map<std::string, int>> degree;  // node -> link kind -> links
  std::vector<int> node_ports;                       // from --nodes
};

// Exports the topology of `cfg` (edges + nodes CSV) and checks what holds for every topology: each
// port of each node appears in exactly one link, numbered 0..ports-1, and --nodes agrees.
Graph export_graph(const std::string& name, const std::string& cfg) {
  const auto dir = temp_dir("export-" + name);
  const auto file = write_file(dir + "/t.toml", cfg);
  const auto r = run_lbsim("topo " + file + " --edges " + dir + "/e.csv --nodes " + dir + "/n.csv");
  EXPECT_EQ(r.code, 0) << r.out;
  Graph g;
  g.edges = parse_edges(read_file(dir + "/e.csv"));
  std::stringstream ns(read_file(dir + "/n.csv"));
  std::string line;
  std::getline(ns, line);
  EXPECT_EQ(line, "id,label,kind,group,tier,ports");
  while (std::getline(ns, line)) {
    const auto f = split(line);
    EXPECT_EQ(std::stoi(f[0]), static_cast<int>(g.node_ports.size()));
    (f[2] == "host" ? g.hosts : g.switches) += 1;
    g.node_ports.push_back(std::stoi(f[5]));
  }
  std::map<int, std::set<int>> ports;
  for (const auto& e : g.edges) {
    EXPECT_TRUE(ports[e.a].insert(e.a_port).second) << "port used twice";
    EXPECT_TRUE(ports[e.b].insert(e.b_port).second) << "port used twice";
    ++g.degree[e.a][e.kind];
    ++g.degree[e.b][e.kind];
    ++g.degree[e.a]["all"];
    ++g.degree[e.b]["all"];
  }
  for (int n = 0; n < static_cast<int>(g.node_ports.size()); ++n) {
    EXPECT_EQ(static_cast<int>(ports[n].size()), g.node_ports[n]) << "node " << n;
    if (!ports[n].empty()) {
      EXPECT_EQ(*ports[n].rbegin(), g.node_ports[n] - 1) << "node " << n;
    }
  }
  return g;
}

int count(const Graph& g, int node, const std::string& kind) {
  const auto it = g.degree.find(node);
  if (it == g.degree.end()) return 0;
  const auto k = it->second.find(kind);
  return k == it->second.end() ? 0 : k->second;
}
int links_of(const Graph& g, const std::string& kind) {
  int n = 0;
  for (const auto& e : g.edges) n += e.kind == kind;
  return n;
}

TEST(TopoExport, FatTreeThreeTiersK8) {
  // k = 8: k^3/4 = 128 hosts, k pods of k/2 ToRs and k/2 aggregation switches, (k/2)^2 = 16 cores;
  // k^3/4 links on each tier; every switch has k ports.
  const auto g = export_graph("ft",
                              "[topology]\nkind = \"fat_tree\"\nhosts = 128\ntiers = 3\nradix = 8\n"
                              "tier1_latency_ns = 700\n");
  EXPECT_EQ(g.hosts, 128);
  EXPECT_EQ(g.switches, 8 * 4 + 8 * 4 + 16);
  EXPECT_EQ(links_of(g, "host"), 128);
  EXPECT_EQ(links_of(g, "tier1"), 128);
  EXPECT_EQ(links_of(g, "tier2"), 128);
  EXPECT_EQ(g.edges.size(), 384u);
  for (int n = 0; n < 128; ++n) EXPECT_EQ(count(g, n, "all"), 1);
  for (int n = 128; n < 128 + g.switches; ++n) EXPECT_EQ(count(g, n, "all"), 8) << n;
  for (const auto& e : g.edges)
    if (e.kind == "tier1") {
      EXPECT_DOUBLE_EQ(e.latency_ns, 700);
    }
}

TEST(TopoExport, DragonflyP2A4H2) {
  // g = a h + 1 = 9 groups of a = 4 switches: 72 hosts, 36 switches, g a (a-1) / 2 = 54 local links,
  // g (g-1) / 2 = 36 global links (one per group pair); switch degree p + (a-1) + h = 7.
  const auto g = export_graph("df",
                              "[topology]\nkind = \"dragonfly\"\np = 2\na = 4\nh = 2\nlink_rate_gbps = 400\n"
                              "local_latency_ns = 25\nglobal_latency_ns = 500\n");
  EXPECT_EQ(g.hosts, 72);
  EXPECT_EQ(g.switches, 36);
  EXPECT_EQ(links_of(g, "host"), 72);
  EXPECT_EQ(links_of(g, "local"), 54);
  EXPECT_EQ(links_of(g, "global"), 36);
  for (int n = 72; n < 108; ++n) {
    EXPECT_EQ(count(g, n, "host"), 2);
    EXPECT_EQ(count(g, n, "local"), 3);
    EXPECT_EQ(count(g, n, "global"), 2);
  }
  for (const auto& e : g.edges) {
    EXPECT_DOUBLE_EQ(e.rate_gbps, 400);
    EXPECT_DOUBLE_EQ(e.latency_ns, e.kind == "global" ? 500 : e.kind == "local" ? 25 : e.latency_ns);
  }
}

TEST(TopoExport, SlimFlyQ5) {
  // MMS graph, q = 5 = 4w + 1 (delta = 1): 2 q^2 = 50 switches of network degree (3q - delta) / 2 = 7.
  // A rack holds the two subgroups of one index (q = 5 racks of 10 switches); local = inside the rack:
  // (q - delta) / 2 = 2 links in the switch's subgroup + 1 to the rack's other subgroup; global = one
  // link to every other rack, q - 1 = 4.
  const auto g = export_graph("sf", "[topology]\nkind = \"slim_fly\"\nq = 5\np = 3\n");
  // Labels with commas come back quoted and whole.
  EXPECT_EQ(std::count_if(g.edges.begin(), g.edges.end(), [](const Edge& e) { return e.b_label == "sw(0,0,0)"; }), 3);
  EXPECT_EQ(g.hosts, 150);
  EXPECT_EQ(g.switches, 50);
  EXPECT_EQ(links_of(g, "host"), 150);
  EXPECT_EQ(static_cast<int>(g.edges.size()) - 150, 50 * 7 / 2);
  for (int n = 150; n < 200; ++n) {
    EXPECT_EQ(count(g, n, "host"), 3);
    EXPECT_EQ(count(g, n, "all") - 3, 7) << n;
    EXPECT_EQ(count(g, n, "local"), 3) << n;
    EXPECT_EQ(count(g, n, "global"), 4) << n;
  }
}

TEST(TopoExport, RingAndComplete) {
  const auto r = export_graph("ring", "[topology]\nkind = \"ring\"\nn = 6\np = 1\n");
  EXPECT_EQ(r.switches, 6);
  EXPECT_EQ(links_of(r, "host"), 6);
  EXPECT_EQ(r.edges.size(), 12u);
  for (int n = 6; n < 12; ++n) EXPECT_EQ(count(r, n, "all"), 3);
  const auto c = export_graph("complete", "[topology]\nkind = \"complete\"\nn = 5\np = 2\n");
  EXPECT_EQ(c.switches, 5);
  EXPECT_EQ(static_cast<int>(c.edges.size()), 10 + 5 * 4 / 2);
  for (int n = 10; n < 15; ++n) EXPECT_EQ(count(c, n, "all"), 2 + 4);
}

TEST(TopoExport, GraphMlAndDotHoldEveryNodeAndLink) {
  // Dragonfly p=2 a=4 h=2: 108 nodes, 162 links, in all three formats.
  const auto dir = temp_dir("export-formats");
  const auto file = write_file(dir + "/t.toml", "[topology]\nkind = \"dragonfly\"\np = 2\na = 4\nh = 2\n");
  ASSERT_EQ(run_lbsim("topo " + file + " --edges " + dir + "/g.graphml --format graphml").code, 0);
  ASSERT_EQ(run_lbsim("topo " + file + " --edges " + dir + "/g.dot --format dot").code, 0);
  const auto ml = read_file(dir + "/g.graphml");
  const auto n_of = [](const std::string& s, const std::regex& re) {
    return std::distance(std::sregex_iterator(s.begin(), s.end(), re), std::sregex_iterator());
  };
  EXPECT_EQ(n_of(ml, std::regex("<node id=\"n[0-9]+\">")), 108);
  EXPECT_EQ(n_of(ml, std::regex("<edge id=\"e[0-9]+\" source=\"n[0-9]+\" target=\"n[0-9]+\">")), 162);
  EXPECT_EQ(n_of(ml, std::regex("<data key=\"lkind\">global</data>")), 36);
  EXPECT_NE(ml.find("edgedefault=\"undirected\""), std::string::npos);
  const auto dot = read_file(dir + "/g.dot");
  EXPECT_EQ(dot.rfind("graph \"dragonfly\" {", 0), 0u);
  EXPECT_EQ(n_of(dot, std::regex("\n  n[0-9]+ \\[label=")), 108);
  EXPECT_EQ(n_of(dot, std::regex("\n  n[0-9]+ -- n[0-9]+ \\[")), 162);
  EXPECT_EQ(n_of(dot, std::regex("kind=global")), 36);
}

TEST(TopoExport, BadFormatAndUnwritableFileAreUserErrors) {
  const auto dir = temp_dir("export-bad");
  const auto file = write_file(dir + "/t.toml", "[topology]\nkind = \"ring\"\nn = 4\n");
  const auto r = run_lbsim("topo " + file + " --edges " + dir + "/e.x --format gml");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("--format: 'gml'"), std::string::npos) << r.out;
  const auto w = run_lbsim("topo " + file + " --edges " + dir + "/no/such/dir/e.csv");
  EXPECT_EQ(w.code, 2);
  EXPECT_NE(w.out.find("--edges"), std::string::npos) << w.out;
  const auto n = run_lbsim("topo " + file + " --edges " + dir + "/e.dot --format dot --nodes " + dir + "/n.csv");
  EXPECT_EQ(n.code, 2);
  EXPECT_NE(n.out.find("--nodes"), std::string::npos) << n.out;
}

}  // namespace
}  // namespace lbsim::test
