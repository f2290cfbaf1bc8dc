#include "topo/dragonfly.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include <fmt/core.h>

#include "core/error.h"
#include "topo/registry.h"

namespace lbsim::topo {

namespace {

void check_basic(const DragonflyParams& prm) {
  if (prm.p < 1) throw UserError(fmt::format("dragonfly: p (hosts per switch) must be >= 1, got {}", prm.p));
  if (prm.a < 1) throw UserError(fmt::format("dragonfly: a (switches per group) must be >= 1, got {}", prm.a));
  if (prm.h < 0) throw UserError(fmt::format("dragonfly: h (global links per switch) must be >= 0, got {}", prm.h));
  if (prm.g != -1 && prm.g < 1)
    throw UserError(fmt::format("dragonfly: g (groups) must be >= 1 or -1 for the canonical a*h+1, got {}", prm.g));
  if (prm.rate <= 0) throw UserError("dragonfly: link rate must be positive");
  if (prm.host_latency < 0 || prm.local_latency < 0 || prm.global_latency < 0)
    throw UserError("dragonfly: link latencies must be >= 0");
}

bool is_consecutive(const std::string& s) { return s == "consecutive" || s == "absolute"; }

}  // namespace

int dragonfly_groups(const DragonflyParams& prm) { return prm.g == -1 ? prm.a * prm.h + 1 : prm.g; }

// Built-in arrangements. Group i owns a*h global "slots" k = 0..a*h-1; slot k sits on switch k / h
// (its (k % h)-th global slot). With m = a*h / (g-1) links per group pair, slot k has offset
// o = k % (g-1) and copy r = k / (g-1), so consecutive slots go to different groups and every switch
// spreads its links over as many groups as possible ([Flowcut] sec. III-B: 16 links per pair with
// a = 16, h = 3, g = 4 puts one link to each other group on every switch). The offset names the peer:
//   consecutive / absolute (Kim et al. 2008): peer = o if o < i else o + 1 (groups in increasing
//                                             order, skipping i itself);
//   palmtree (Camarero et al.):               peer = (i - o - 1) mod g.
// Copy r of the (i, j) link joins slot r*(g-1) + o_i(j) of group i with slot r*(g-1) + o_j(i) of j.
std::vector<GlobalLinkSpec> dragonfly_global_links(const DragonflyParams& prm) {
  check_basic(prm);
  const int g = dragonfly_groups(prm);
  if (!is_consecutive(prm.arrangement) && prm.arrangement != "palmtree")
    throw UserError(
        fmt::format("dragonfly: unknown global link arrangement '{}' (valid: consecutive, absolute, palmtree, "
                    "or set global_map_file)",
                    prm.arrangement));
  std::vector<GlobalLinkSpec> out;
  if (g == 1) return out;
  const int ports = prm.a * prm.h;
  if (ports < g - 1)
    throw UserError(
        fmt::format("dragonfly: a*h = {}*{} = {} global ports per group cannot reach the other g-1 = {} groups "
                    "(at most g = {})",
                    prm.a, prm.h, ports, g - 1, ports + 1));
  if (ports % (g - 1) != 0)
    throw UserError(
        fmt::format("dragonfly: a*h = {} global ports per group cannot be distributed evenly over g-1 = {} other "
                    "groups; choose g-1 dividing {} (e.g. g = {}) or give a global_map_file",
                    ports, g - 1, ports, ports + 1));
  const int m = ports / (g - 1);
  auto offset = [&](int i, int j) {  // offset of peer j in group i's slot cycle
    if (is_consecutive(prm.arrangement)) return j < i ? j : j - 1;
    return ((i - j - 1) % g + g) % g;
  };
  // Creation order (r, i, j) with i < j: every switch then gets its global ports in order of
  // (copy, peer group), which is the documented port layout.
  for (int r = 0; r < m; ++r)
    for (int i = 0; i < g; ++i)
      for (int j = i + 1; j < g; ++j) {
        const int ki = r * (g - 1) + offset(i, j);
        const int kj = r * (g - 1) + offset(j, i);
        out.push_back(GlobalLinkSpec{i, ki / prm.h, j, kj / prm.h, 0});
      }
  return out;
}

std::vector<GlobalLinkSpec> parse_global_map(std::istream& in, const std::string& name, const DragonflyParams& prm) {
  check_basic(prm);
  const int g = dragonfly_groups(prm);
  std::vector<GlobalLinkSpec> out;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream ss(line);
    std::vector<std::string> tok;
    for (std::string t; ss >> t;) tok.push_back(t);
    if (tok.empty()) continue;
    if (tok.size() != 4)
      throw UserError(fmt::format("{}:{}: expected 4 fields 'group_a switch_a group_b switch_b', got {}", name, lineno,
                                  tok.size()));
    int v[4];
    for (int f = 0; f < 4; ++f) {
      std::size_t used = 0;
      long long x = 0;
      try {
        x = std::stoll(tok[f], &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used != tok[f].size() || used == 0)
        throw UserError(fmt::format("{}:{}: field {} '{}' is not an integer", name, lineno, f + 1, tok[f]));
      const int limit = (f % 2 == 0) ? g : prm.a;
      if (x < 0 || x >= limit)
        throw UserError(
            fmt::format("{}:{}: {} {} out of range [0, {})", name, lineno, f % 2 == 0 ? "group" : "switch", x, limit));
      v[f] = static_cast<int>(x);
    }
    if (v[0] == v[2])
      throw UserError(
          fmt::format("{}:{}: a global link must join two different groups (both are {})", name, lineno, v[0]));
    out.push_back(GlobalLinkSpec{v[0], v[1], v[2], v[3], lineno});
  }
  return out;
}

std::vector<GlobalLinkSpec> read_global_map(const std::string& path, const DragonflyParams& prm) {
  std::ifstream in(path);
  if (!in) throw UserError(fmt::format("dragonfly: cannot open global link map '{}'", path));
  return parse_global_map(in, path, prm);
}

Topology build_dragonfly(const DragonflyParams& prm) {
  check_basic(prm);
  const int g = dragonfly_groups(prm);
  const bool from_file = !prm.global_map_file.empty();
  std::vector<GlobalLinkSpec> globals =
      from_file ? read_global_map(prm.global_map_file, prm) : dragonfly_global_links(prm);

  // Structural checks shared by both sources: at most h global ports per switch, and every pair of
  // groups joined ([Spritz] sec. III-a: "every group has at least one global link to every other
  // group", which gives the switch diameter 3 the bounded paths rely on).
  std::vector<int> used(static_cast<std::size_t>(g) * prm.a, 0);
  std::vector<int> pair_links(static_cast<std::size_t>(g) * g, 0);
  for (const auto& l : globals) {
    for (auto [grp, sw] : {std::pair{l.group_a, l.switch_a}, std::pair{l.group_b, l.switch_b}})
      if (++used[static_cast<std::size_t>(grp) * prm.a + sw] > prm.h)
        throw UserError(fmt::format("{}:{}: switch {} of group {} has more than h = {} global links",
                                    prm.global_map_file, l.line, sw, grp, prm.h));
    ++pair_links[static_cast<std::size_t>(l.group_a) * g + l.group_b];
    ++pair_links[static_cast<std::size_t>(l.group_b) * g + l.group_a];
  }
  int min_pair = g > 1 ? 1 << 30 : 0, max_pair = 0;
  for (int i = 0; i < g; ++i)
    for (int j = i + 1; j < g; ++j) {
      const int n = pair_links[static_cast<std::size_t>(i) * g + j];
      if (n == 0)
        throw UserError(fmt::format("{}: groups {} and {} are not joined by any global link",
                                    from_file ? prm.global_map_file : std::string("dragonfly"), i, j));
      min_pair = std::min(min_pair, n);
      max_pair = std::max(max_pair, n);
    }

  Topology t;
  t.kind = "dragonfly";
  t.minimal_one_global_hop = true;  // minimal = local-global-local ([Spritz] sec. II-A)
  for (int grp = 0; grp < g; ++grp)
    for (int s = 0; s < prm.a; ++s)
      for (int k = 0; k < prm.p; ++k) t.add_host(fmt::format("g{}s{}h{}", grp, s, k));
  for (int grp = 0; grp < g; ++grp)
    for (int s = 0; s < prm.a; ++s) t.add_switch(fmt::format("g{}s{}", grp, s), grp, 1);
  auto sw = [&](int grp, int s) { return t.switch_node(grp * prm.a + s); };
  // Host links first so that switch ports [0, p) are the hosts (and host port 0 is its switch).
  for (int grp = 0; grp < g; ++grp)
    for (int s = 0; s < prm.a; ++s)
      for (int k = 0; k < prm.p; ++k)
        t.connect(sw(grp, s), (grp * prm.a + s) * prm.p + k, prm.rate, prm.host_latency, LinkKind::HostLink);
  // Local links in (x, y) lexicographic order: each switch sees its peers in increasing index.
  for (int grp = 0; grp < g; ++grp)
    for (int x = 0; x < prm.a; ++x)
      for (int y = x + 1; y < prm.a; ++y)
        t.connect(sw(grp, x), sw(grp, y), prm.rate, prm.local_latency, LinkKind::Local);
  for (const auto& l : globals)
    t.connect(sw(l.group_a, l.switch_a), sw(l.group_b, l.switch_b), prm.rate, prm.global_latency, LinkKind::Global);

  t.set_param("p", std::to_string(prm.p));
  t.set_param("a", std::to_string(prm.a));
  t.set_param("h", std::to_string(prm.h));
  t.set_param("g", std::to_string(g));
  t.set_param("arrangement", from_file ? "map:" + prm.global_map_file : prm.arrangement);
  t.set_param("hosts", std::to_string(t.num_hosts));
  t.set_param("switches", std::to_string(t.num_switches()));
  t.set_param("local_links", std::to_string(g * prm.a * (prm.a - 1) / 2));
  t.set_param("global_links", std::to_string(globals.size()));
  t.set_param("global_links_per_group_pair",
              min_pair == max_pair ? std::to_string(min_pair) : fmt::format("{}..{}", min_pair, max_pair));
  int unused = 0;
  for (int u : used) unused += prm.h - u;
  t.set_param("unused_global_ports", std::to_string(unused));
  return t;
}

DragonflyParams dragonfly_params(const config::Config& c) {
  DragonflyParams p;
  if (c.integer("topology.p") > 0) p.p = static_cast<int>(c.integer("topology.p"));
  p.a = static_cast<int>(c.integer("topology.a"));
  p.h = static_cast<int>(c.integer("topology.h"));
  p.g = c.integer("topology.g") > 0 ? static_cast<int>(c.integer("topology.g")) : -1;
  p.arrangement = c.text("topology.arrangement");
  p.global_map_file = c.path("topology.global_map");
  read_direct_links(c, p);
  return p;
}

namespace {
// The Dragonfly's size from its keys (the memory guard): g groups of a switches with p hosts each,
// a full mesh inside a group and h global links per switch. Minimal routes are mostly unique.
TopologySize dragonfly_size(const config::Config& c) {
  const double a = static_cast<double>(c.integer("topology.a")), h = static_cast<double>(c.integer("topology.h"));
  const double p = c.integer("topology.p") > 0 ? static_cast<double>(c.integer("topology.p")) : DragonflyParams{}.p;
  const double g = c.integer("topology.g") > 0 ? static_cast<double>(c.integer("topology.g")) : a * h + 1;
  TopologySize s;
  s.switches = a * g;
  s.hosts = p * s.switches;
  s.links = s.hosts + g * a * (a - 1) / 2 + s.switches * h / 2;
  s.next_hops = 1;
  s.minimal_one_global_hop = true;
  s.host_rate_bps = static_cast<double>(dragonfly_params(c).rate);
  // Group-level Valiant paths (topo/paths.h "dragonfly"): with L global links per group pair, L
  // minimal paths and L^2 through each of the g - 2 intermediate groups; inside a group 1 + (a - 2).
  const double per_group_pair = g > 1 ? std::ceil(a * h / (g - 1)) : 0;
  s.bounded_paths = std::max(a - 1, per_group_pair + (g - 2) * per_group_pair * per_group_pair);
  s.keys = c.given("topology.g") ? "topology.a, topology.h, topology.g" : "topology.a, topology.h";
  return s;
}

using namespace config;
const RegisterTopology kDragonfly{
    {{"dragonfly",
      "Dragonfly (p, a, h, g) with fully connected groups and a choice of global-link arrangements ([Spritz] sec. "
      "II-A).",
      {
          integer("topology.a", 8, "switches", "Dragonfly: switches per group.").range(1, 4096),
          integer("topology.h", 4, "links", "Dragonfly: global links per switch.").range(1, 4096),
          integer("topology.g", 0, "groups", "Dragonfly: groups; 0 = a*h + 1 (one global link per group pair).")
              .range(0, 1e6),
          text("topology.arrangement", "consecutive", "Dragonfly: global-link arrangement (docs/topologies.md).")
              .one_of({"consecutive", "absolute", "palmtree"}),
          file("topology.global_map",
               "Dragonfly: explicit global-link map file (overrides arrangement), relative to the config file."),
      },
      {"topology.p=1", "topology.a=2", "topology.h=1"}},
     [](const Config& c) { return build_dragonfly(dragonfly_params(c)); },
     &dragonfly_size}};
}  // namespace

}  // namespace lbsim::topo
