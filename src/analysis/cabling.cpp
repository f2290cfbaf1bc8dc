// Slim Fly cabling plan ([SlimFly] sec. 3.2, 3.3, Fig. 3, Fig. 4): switch names and ports, the wiring
// order, GUIDs and names of the planned fabric, cable sheets, the plan's CSV / JSON / wiring text and
// the rack-pair diagrams, and the [cabling] keys. See cabling.h.
#include "analysis/cabling.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "core/text.h"

namespace lbsim::analysis {

// ============================================================================ plan

std::string CablingPlan::name(int sw) const {
  const auto& l = labels[static_cast<std::size_t>(sw)];
  return fmt::format("{}-{}-{}-{}", prefix, l[0], l[1], l[2]);
}

std::optional<int> CablingPlan::find(std::string_view nm) const {
  // Names are "<prefix>-S-R-I"; parse instead of searching so lookups stay O(1).
  const std::string pre = prefix + "-";
  if (nm.substr(0, pre.size()) != pre) return std::nullopt;
  std::string_view rest = nm.substr(pre.size());
  int v[3];
  for (int f = 0; f < 3; ++f) {
    std::size_t n = 0;
    while (n < rest.size() && std::isdigit(static_cast<unsigned char>(rest[n]))) ++n;
    if (n == 0 || n > 6) return std::nullopt;
    v[f] = std::stoi(std::string(rest.substr(0, n)));
    rest = rest.substr(n);
    if (f < 2) {
      if (rest.empty() || rest[0] != '-') return std::nullopt;
      rest = rest.substr(1);
    }
  }
  if (!rest.empty() || v[0] > 1 || v[1] >= q || v[2] >= q) return std::nullopt;
  return v[0] * q * q + v[1] * q + v[2];
}

int CablingPlan::port_to_rack(int sw, int rack) const {
  const int own = labels[static_cast<std::size_t>(sw)][1];
  if (rack == own || rack < 0 || rack >= q)
    throw UserError(fmt::format("port_to_rack: rack {} is not another rack of {}", rack, name(sw)));
  return p + intra_ports() + 1 + (rack < own ? rack : rack - 1);
}

std::optional<std::pair<int, int>> CablingPlan::peer(int sw, int port) const {
  if (sw < 0 || sw >= num_switches() || port < 1 || port > switch_ports) return std::nullopt;
  const int li = port_link[static_cast<std::size_t>(sw)][static_cast<std::size_t>(port)];
  if (li < 0) return std::nullopt;
  const auto& l = links[static_cast<std::size_t>(li)];
  if (l.sw_a == sw && l.port_a == port) return std::make_pair(l.sw_b, l.port_b);
  return std::make_pair(l.sw_a, l.port_a);
}

int CablingPlan::port_to(int sw, int neighbour) const {
  if (sw < 0 || sw >= num_switches()) return -1;
  const auto& v = neighbour_port[static_cast<std::size_t>(sw)];
  const auto it = std::lower_bound(v.begin(), v.end(), std::make_pair(neighbour, 0));
  return it != v.end() && it->first == neighbour ? it->second : -1;
}

CablingPlan make_cabling_plan(int q, int p, int switch_ports, const std::string& prefix) {
  topo::SlimFlyParams prm;
  prm.q = q;
  prm.p = p;
  const topo::Topology t = topo::build_slim_fly(prm);  // throws for invalid q
  const auto g = topo::build_mms_graph(q);
  CablingPlan plan;
  plan.q = q;
  plan.delta = g.delta;
  plan.k_prime = g.degree();
  plan.p = t.num_switches() ? t.num_hosts / t.num_switches() : 0;
  plan.prefix = prefix;
  plan.switch_ports = switch_ports < 0 ? plan.radix() : switch_ports;
  if (plan.switch_ports < plan.radix())
    throw UserError(
        fmt::format("cabling: switch_ports = {} is less than the p + k' = {} + {} = {} ports "
                    "every switch needs",
                    switch_ports, plan.p, plan.k_prime, plan.radix()));
  for (int s = 0; s < g.num_switches(); ++s) plan.labels.push_back(g.label(s));
  plan.port_link.assign(static_cast<std::size_t>(g.num_switches()),
                        std::vector<int>(static_cast<std::size_t>(plan.switch_ports) + 1, -1));
  // build_slim_fly creates the switch links in wiring order already (step 1, 2, then rack pairs).
  for (const auto& lk : t.links) {
    if (t.is_host(lk.a) || t.is_host(lk.b)) continue;
    PlannedLink pl;
    pl.id = static_cast<int>(plan.links.size()) + 1;
    int sa = t.switch_index(lk.a), sb = t.switch_index(lk.b);
    int pa = lk.port_a + 1, pb = lk.port_b + 1;
    if (sa > sb) {
      std::swap(sa, sb);
      std::swap(pa, pb);
    }
    pl.sw_a = sa;
    pl.port_a = pa;
    pl.sw_b = sb;
    pl.port_b = pb;
    const auto la = g.label(sa), lb = g.label(sb);
    pl.inter_rack = la[1] != lb[1];
    pl.step = pl.inter_rack ? 3 : (la[0] == lb[0] ? 1 : 2);
    plan.port_link[static_cast<std::size_t>(sa)][static_cast<std::size_t>(pa)] = pl.id - 1;
    plan.port_link[static_cast<std::size_t>(sb)][static_cast<std::size_t>(pb)] = pl.id - 1;
    plan.links.push_back(pl);
  }
  plan.neighbour_port.assign(static_cast<std::size_t>(g.num_switches()), {});
  for (const auto& l : plan.links) {
    plan.neighbour_port[static_cast<std::size_t>(l.sw_a)].emplace_back(l.sw_b, l.port_a);
    plan.neighbour_port[static_cast<std::size_t>(l.sw_b)].emplace_back(l.sw_a, l.port_b);
  }
  for (auto& v : plan.neighbour_port) std::sort(v.begin(), v.end());
  return plan;
}

CablingPlan make_cabling_plan(const config::Config& cfg) {
  const std::string& kind = cfg.text("topology.kind");
  if (kind != "slim_fly")
    throw UserError(
        fmt::format("{}topology.kind = \"{}\"{}: the cabling plan is for a Slim Fly ([SlimFly] sec. 3.2-3.3); "
                    "set topology.kind = \"slim_fly\"",
                    cfg.where("topology.kind"), kind, cfg.given("topology.kind") ? "" : " (the default)"));
  const std::string& prefix = cfg.text("cabling.name_prefix");
  const bool ok = !prefix.empty() && std::all_of(prefix.begin(), prefix.end(), [](char ch) {
    return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.';
  });
  if (!ok)
    throw UserError(
        fmt::format("{}cabling.name_prefix = \"{}\" must be non-empty and use only letters, digits, "
                    "'_' or '.' (it is matched inside node descriptions)",
                    cfg.where("cabling.name_prefix"), prefix));
  const topo::SlimFlyParams sf = topo::slim_fly_params(cfg);  // names topology.q when q is invalid
  const auto ports = static_cast<int>(cfg.integer("cabling.switch_ports"));
  try {
    return make_cabling_plan(sf.q, sf.p, ports > 0 ? ports : -1, prefix);
  } catch (const UserError& e) {
    // Too few ports: point at the key that makes the plan impossible, switch_ports or p.
    throw UserError(cfg.where_any({"cabling.switch_ports", "topology.p"}) + e.what());
  }
}

// ============================================================================ writers

const char* cable_kind(const PlannedLink& l) { return l.inter_rack ? "optical" : "copper"; }

namespace {

std::string port_range(int a, int b) {
  if (a > b) return "none";
  return a == b ? fmt::format("{}", a) : fmt::format("{}-{}", a, b);
}

}  // namespace

std::string plan_links_csv(const CablingPlan& plan) {
  std::string out = "link,step,cable,a_name,a_S,a_R,a_I,a_port,b_name,b_S,b_R,b_I,b_port\n";
  for (const auto& l : plan.links) {
    const auto& a = plan.labels[static_cast<std::size_t>(l.sw_a)];
    const auto& b = plan.labels[static_cast<std::size_t>(l.sw_b)];
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{}\n", l.id, l.step, cable_kind(l), plan.name(l.sw_a), a[0],
                       a[1], a[2], l.port_a, plan.name(l.sw_b), b[0], b[1], b[2], l.port_b);
  }
  return out;
}

std::string plan_ports_csv(const CablingPlan& plan) {
  std::string out = "switch,S,R,I,rack_slot,port,role,peer,peer_port,link\n";
  for (int s = 0; s < plan.num_switches(); ++s) {
    const auto& l = plan.labels[static_cast<std::size_t>(s)];
    for (int pt = 1; pt <= plan.switch_ports; ++pt) {
      std::string role = "unused", peer, peer_port, link;
      if (pt <= plan.p) {
        role = "endpoint";
      } else if (auto pr = plan.peer(s, pt)) {
        role = pt <= plan.p + plan.intra_ports() ? "intra-rack" : "inter-rack";
        peer = plan.name(pr->first);
        peer_port = std::to_string(pr->second);
        link = std::to_string(plan.port_link[static_cast<std::size_t>(s)][static_cast<std::size_t>(pt)] + 1);
      }
      out += fmt::format("{},{},{},{},{},{},{},{},{},{}\n", plan.name(s), l[0], l[1], l[2], l[0] * plan.q + l[2], pt,
                         role, peer, peer_port, link);
    }
  }
  return out;
}

// ============================================================================ cable sheets

namespace {
constexpr double kStockLengths[] = {0.5, 1, 1.5, 2, 2.5, 3, 5, 7, 10, 15, 20, 30, 50, 100, 150, 200, 300};
double stock_length(double m) {
  for (double l : kStockLengths)
    if (l + 1e-9 >= m) return l;
  return std::ceil(m / 50.0) * 50.0;
}
std::string rack_name(int r) { return fmt::format("rack-{}", r); }
}  // namespace

CableLayout cable_layout(const config::Config& cfg) {
  CableLayout l;
  l.rack_pitch_m = cfg.real("cabling.rack_pitch_m");
  l.row_pitch_m = cfg.real("cabling.row_pitch_m");
  l.tray_m = cfg.real("cabling.tray_m");
  l.slack_m = cfg.real("cabling.slack_m");
  l.host_cable_m = cfg.real("cabling.host_cable_m");
  l.dac_max_m = cfg.real("cabling.dac_max_m");
  l.racks_per_row = static_cast<int>(cfg.integer("cabling.racks_per_row"));
  return l;
}

std::vector<Cable> plan_cables(const CablingPlan& plan, const CableLayout& lay) {
  const int q = plan.q;
  auto slot = [&](int sw) {
    const auto& lb = plan.labels[static_cast<std::size_t>(sw)];
    return lb[0] * q + lb[2];
  };
  auto rack = [&](int sw) { return plan.labels[static_cast<std::size_t>(sw)][1]; };
  const int per_row = lay.racks_per_row > 0 ? lay.racks_per_row : q;
  auto finish = [&](Cable& c, double est) {
    c.estimate_m = est + lay.slack_m;
    c.length_m = stock_length(c.estimate_m);
    c.media = c.length_m <= lay.dac_max_m + 1e-9 ? "DAC" : "AOC";
    const std::string a = fmt::format("{} P{}", c.a_device, c.a_port), b = fmt::format("{} P{}", c.b_device, c.b_port);
    c.label_a = fmt::format("{} | {} -> {}", c.id, a, b);
    c.label_b = fmt::format("{} | {} -> {}", c.id, b, a);
  };
  std::vector<Cable> out;
  for (const auto& l : plan.links) {
    Cable c;
    c.id = fmt::format("L{}", l.id);
    c.a_rack = rack_name(rack(l.sw_a));
    c.b_rack = rack_name(rack(l.sw_b));
    c.a_device = plan.name(l.sw_a);
    c.b_device = plan.name(l.sw_b);
    c.a_port = l.port_a;
    c.b_port = l.port_b;
    const double ua = slot(l.sw_a) * CableLayout::kRackUnitM, ub = slot(l.sw_b) * CableLayout::kRackUnitM;
    double est;
    if (rack(l.sw_a) == rack(l.sw_b)) {
      est = std::abs(ua - ub);
    } else {
      const int ra = rack(l.sw_a), rb = rack(l.sw_b);
      const double horiz = std::abs(ra % per_row - rb % per_row) * lay.rack_pitch_m +
                           std::abs(ra / per_row - rb / per_row) * lay.row_pitch_m;
      est = ua + ub + 2 * lay.tray_m + horiz;
    }
    finish(c, est);
    out.push_back(std::move(c));
  }
  for (int e = 0; e < plan.num_endpoints(); ++e) {
    Cable c;
    const int sw = e / plan.p;
    c.id = fmt::format("E{}", e + 1);
    c.a_rack = c.b_rack = rack_name(rack(sw));
    c.a_device = endpoint_name(plan, e);
    c.a_port = 1;
    c.b_device = plan.name(sw);
    c.b_port = e % plan.p + 1;
    finish(c, lay.host_cable_m);
    out.push_back(std::move(c));
  }
  return out;
}

std::string cables_csv(const std::vector<Cable>& cables) {
  std::string out = "cable,a_rack,a_device,a_port,b_rack,b_device,b_port,media,estimate_m,length_m,label_a,label_b\n";
  for (const auto& c : cables)
    out += fmt::format("{},{},{},{},{},{},{},{},{:.2f},{:g},{},{}\n", c.id, c.a_rack, c.a_device, c.a_port, c.b_rack,
                       c.b_device, c.b_port, c.media, c.estimate_m, c.length_m, c.label_a, c.label_b);
  return out;
}

namespace {
// The cables with an end in `rack`, each seen from that rack (local end first).
std::vector<Cable> rack_view(const std::vector<Cable>& cables, const std::string& rack) {
  std::vector<Cable> v;
  for (const auto& c : cables) {
    if (c.a_rack == rack) v.push_back(c);
    if (c.b_rack == rack && c.a_rack != rack) {
      Cable r = c;
      std::swap(r.a_rack, r.b_rack);
      std::swap(r.a_device, r.b_device);
      std::swap(r.a_port, r.b_port);
      std::swap(r.label_a, r.label_b);
      v.push_back(std::move(r));
    }
  }
  return v;
}
}  // namespace

std::string rack_cables_csv(const CablingPlan& plan, const std::vector<Cable>& cables, int rack) {
  if (rack < 0 || rack >= plan.q) throw UserError(fmt::format("rack {} does not exist (q = {})", rack, plan.q));
  std::string out =
      "cable,local_device,local_port,far_rack,far_device,far_port,media,length_m,label_here,label_far_end\n";
  for (const auto& c : rack_view(cables, rack_name(rack)))
    out += fmt::format("{},{},{},{},{},{},{},{:g},{},{}\n", c.id, c.a_device, c.a_port, c.b_rack, c.b_device, c.b_port,
                       c.media, c.length_m, c.label_a, c.label_b);
  return out;
}

std::string rack_cables_html(const CablingPlan& plan, const std::vector<Cable>& cables, int rack) {
  if (rack < 0 || rack >= plan.q) throw UserError(fmt::format("rack {} does not exist (q = {})", rack, plan.q));
  const auto v = rack_view(cables, rack_name(rack));
  int dac = 0, aoc = 0;
  for (const auto& c : v) (c.media == "DAC" ? dac : aoc)++;
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{0} "
      "cables</title>\n<style>body{{font-family:sans-serif;"
      "font-size:11px}} table{{border-collapse:collapse}} td,th{{border:1px solid #888;padding:2px 5px}} "
      "tr.AOC td{{background:#f7e6d5}} @media print{{tr{{page-break-inside:avoid}}}}</style></head><body>\n"
      "<h1>{0}: {1} cables ({2} DAC, {3} AOC)</h1>\n<p>Slim Fly q = {4}, switches {5}-*-{6}-*; tick each cable when "
      "plugged "
      "and labelled at both ends.</p>\n<table><tr><th>&#10003;</th><th>cable</th><th>here</th><th>port</th><th>far "
      "rack</th>"
      "<th>far device</th><th>port</th><th>media</th><th>length</th><th>label here</th><th>label far end</th></tr>\n",
      rack_name(rack), v.size(), dac, aoc, plan.q, xml_escape(plan.prefix), rack);
  for (const auto& c : v)
    out += fmt::format(
        "<tr class=\"{}\"><td></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{:g} m</td><td>{}</td><td>{}</td></tr>\n",
        c.media, c.id, xml_escape(c.a_device), c.a_port, c.b_rack, xml_escape(c.b_device), c.b_port, c.media,
        c.length_m, xml_escape(c.label_a), xml_escape(c.label_b));
  out += "</table></body></html>\n";
  return out;
}

std::string plan_json(const CablingPlan& plan) {
  using nlohmann::json;
  json j;
  j["format"] = "lbsim-slimfly-cabling/1";
  j["q"] = plan.q;
  j["delta"] = plan.delta;
  j["k_prime"] = plan.k_prime;
  j["p"] = plan.p;
  j["radix"] = plan.radix();
  j["switch_ports"] = plan.switch_ports;
  j["prefix"] = plan.prefix;
  j["port_layout"] = {
      {"endpoint", port_range(1, plan.p)},
      {"intra_rack", port_range(plan.p + 1, plan.p + plan.intra_ports())},
      {"inter_rack", port_range(plan.p + plan.intra_ports() + 1, plan.radix())},
      {"unused", port_range(plan.radix() + 1, plan.switch_ports)},
  };
  json racks = json::array();
  for (int r = 0; r < plan.q; ++r) {
    json s0 = json::array(), s1 = json::array();
    for (int i = 0; i < plan.q; ++i) {
      s0.push_back(plan.name(r * plan.q + i));
      s1.push_back(plan.name(plan.q * plan.q + r * plan.q + i));
    }
    json ports = json::object();
    for (int o = 0; o < plan.q; ++o)
      if (o != r) ports[std::to_string(o)] = plan.port_to_rack(r * plan.q, o);
    racks.push_back({{"rack", r}, {"subgroup0", s0}, {"subgroup1", s1}, {"port_to_rack", ports}});
  }
  j["racks"] = racks;
  json sws = json::array();
  for (int s = 0; s < plan.num_switches(); ++s) {
    const auto& l = plan.labels[static_cast<std::size_t>(s)];
    json ports = json::array();
    for (int pt = 1; pt <= plan.switch_ports; ++pt) {
      json e{{"port", pt}};
      if (pt <= plan.p) {
        e["role"] = "endpoint";
      } else if (auto pr = plan.peer(s, pt)) {
        e["role"] = pt <= plan.p + plan.intra_ports() ? "intra-rack" : "inter-rack";
        e["peer"] = plan.name(pr->first);
        e["peer_port"] = pr->second;
        e["link"] = plan.port_link[static_cast<std::size_t>(s)][static_cast<std::size_t>(pt)] + 1;
      } else {
        e["role"] = "unused";
      }
      ports.push_back(e);
    }
    sws.push_back({{"name", plan.name(s)},
                   {"S", l[0]},
                   {"R", l[1]},
                   {"I", l[2]},
                   {"index", s},
                   {"rack_slot", l[0] * plan.q + l[2]},
                   {"ports", ports}});
  }
  j["switches"] = sws;
  json links = json::array();
  json steps = json::array(
      {json{{"step", 1}, {"description", "intra-subgroup cables (identical in every rack)"}, {"links", json::array()}},
       json{{"step", 2}, {"description", "subgroup 0 to subgroup 1 inside each rack"}, {"links", json::array()}},
       json{{"step", 3}, {"description", "inter-rack cables, rack pair by rack pair"}, {"links", json::array()}}});
  for (const auto& l : plan.links) {
    links.push_back({{"link", l.id},
                     {"step", l.step},
                     {"cable", cable_kind(l)},
                     {"a", {{"name", plan.name(l.sw_a)}, {"port", l.port_a}}},
                     {"b", {{"name", plan.name(l.sw_b)}, {"port", l.port_b}}}});
    steps[static_cast<std::size_t>(l.step - 1)]["links"].push_back(l.id);
  }
  j["links"] = links;
  j["wiring_steps"] = steps;
  return j.dump(1) + "\n";
}

std::string plan_wiring_text(const CablingPlan& plan) {
  const int q = plan.q;
  std::string out = fmt::format(
      "Slim Fly cabling plan ([SlimFly] sec. 3.2-3.3): q = {}, delta = {}, k' = {}, p = {}\n"
      "{} racks x {} switches (subgroup 0 at the top, subgroup 1 below), {} switch-switch cables, "
      "{} endpoint cables\n"
      "Ports: {} endpoints, {} intra-rack, {} inter-rack (one per other rack, same port in the whole rack)",
      q, plan.delta, plan.k_prime, plan.p, q, 2 * q, plan.links.size(), plan.num_switches() * plan.p,
      port_range(1, plan.p), port_range(plan.p + 1, plan.p + plan.intra_ports()),
      port_range(plan.p + plan.intra_ports() + 1, plan.radix()));
  if (plan.switch_ports > plan.radix())
    out += fmt::format(", {} unused", port_range(plan.radix() + 1, plan.switch_ports));
  out += "\n\nRack placement (slot 0 = top; subgroup 0 above subgroup 1, sec. 3.2):\n";
  for (int r = 0; r < q; ++r) {
    out += fmt::format("  rack {}:", r);
    for (int s = 0; s < 2; ++s)
      for (int i = 0; i < q; ++i) out += " " + plan.name(s * q * q + r * q + i);
    out += "\n";
  }
  const char* titles[3] = {"Step 1: intra-subgroup cables (the same pattern in every rack)",
                           "Step 2: subgroup 0 <-> subgroup 1 inside each rack",
                           "Step 3: inter-rack cables (2q per rack pair)"};
  int step = 0, group = -1;
  for (const auto& l : plan.links) {
    if (l.step != step) {
      step = l.step;
      group = -1;
      out += fmt::format("\n{}\n", titles[step - 1]);
    }
    const int ra = plan.labels[static_cast<std::size_t>(l.sw_a)][1];
    const int rb = plan.labels[static_cast<std::size_t>(l.sw_b)][1];
    const int sa = plan.labels[static_cast<std::size_t>(l.sw_a)][0];
    const int key = step == 3 ? ra * q + rb : (step == 1 ? sa * q + ra : ra);
    if (key != group) {
      group = key;
      out += step == 3   ? fmt::format("  racks {} and {}:\n", ra, rb)
             : step == 1 ? fmt::format("  rack {}, subgroup {}:\n", ra, sa)
                         : fmt::format("  rack {}:\n", ra);
    }
    out += fmt::format("    [{:>4}] {} port {:>2} <-> {} port {:>2}  ({})\n", l.id, plan.name(l.sw_a), l.port_a,
                       plan.name(l.sw_b), l.port_b, cable_kind(l));
  }
  return out;
}

// Fig. 4 style: rack A on the left, rack B on the right, 2q switches each (subgroup 0 on top), the
// port each switch uses towards the other rack at the facing box edge, and one line per cable.
std::string rack_pair_svg(const CablingPlan& plan, int ra, int rb) {
  const int q = plan.q;
  if (ra < 0 || rb < 0 || ra >= q || rb >= q || ra == rb)
    throw UserError(fmt::format("rack_pair_svg: invalid rack pair ({}, {}) for q = {}", ra, rb, q));
  // Each box holds the label "(S,R,I) name" and, at the edge facing the other rack, the bold port
  // number (up to 3 digits, ~24 px at 12 px monospace). The label starts after the port column on
  // the right-hand rack, so the two never overlap; the width follows the longest label (~7.3 px per
  // character).
  std::size_t longest = 0;
  for (int sw : {ra * q, q * q + ra * q + q - 1, rb * q, q * q + rb * q + q - 1})
    longest = std::max(longest, fmt::format("({},{},{}) {}", 1, q - 1, q - 1, plan.name(sw)).size());
  const int port_col = 28;
  const int box_w = std::max(150, static_cast<int>(longest) * 15 / 2 + port_col + 12);
  const int box_h = 24, gap = 8, sub_gap = 24, top = 70, left = 40, mid = 260;
  const int width = left * 2 + box_w * 2 + mid;
  auto y_of = [&](int s, int i) { return top + s * (q * (box_h + gap) + sub_gap) + i * (box_h + gap); };
  const int height = y_of(1, q) + 56;
  const int xa = left, xb = left + box_w + mid;
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" "
      "font-family=\"monospace\" font-size=\"12\">\n"
      "<title>Slim Fly q={} racks {} and {}: {} cables</title>\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{}\" y=\"24\" font-size=\"15\">Racks {} and {}: {} inter-rack cables (switch labels "
      "(S,R,I))</text>\n"
      "<text x=\"{}\" y=\"52\">rack {} (port {})</text>\n<text x=\"{}\" y=\"52\">rack {} (port {})</text>\n",
      width, height, width, height, q, ra, rb, 2 * q, left, ra, rb, 2 * q, xa, ra, plan.port_to_rack(ra * q, rb), xb,
      rb, plan.port_to_rack(rb * q, ra));
  for (int side = 0; side < 2; ++side) {
    const int r = side == 0 ? ra : rb, other = side == 0 ? rb : ra, x = side == 0 ? xa : xb;
    for (int s = 0; s < 2; ++s)
      for (int i = 0; i < q; ++i) {
        const int sw = s * q * q + r * q + i;
        const int y = y_of(s, i);
        out += fmt::format(
            "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"black\"/>\n"
            "<text x=\"{}\" y=\"{}\">({},{},{}) {}</text>\n",
            x, y, box_w, box_h, s == 0 ? "#dde8f7" : "#f7e6d5", side == 0 ? x + 6 : x + port_col, y + 16, s, r, i,
            xml_escape(plan.name(sw)));
        const int px = side == 0 ? x + box_w - port_col + 4 : x + 4;
        out += fmt::format("<text x=\"{}\" y=\"{}\" font-weight=\"bold\">{}</text>\n", px, y + 16,
                           plan.port_to_rack(sw, other));
      }
  }
  for (const auto& l : plan.links) {
    const int la = plan.labels[static_cast<std::size_t>(l.sw_a)][1],
              lb = plan.labels[static_cast<std::size_t>(l.sw_b)][1];
    if (!((la == ra && lb == rb) || (la == rb && lb == ra))) continue;
    const int swl = la == ra ? l.sw_a : l.sw_b, swr = la == ra ? l.sw_b : l.sw_a;
    const auto& L = plan.labels[static_cast<std::size_t>(swl)];
    const auto& R = plan.labels[static_cast<std::size_t>(swr)];
    out += fmt::format(
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"1.5\"><title>link {}: {} "
        "port {} - {} port {}</title></line>\n",
        xa + box_w, y_of(L[0], L[2]) + box_h / 2, xb, y_of(R[0], R[2]) + box_h / 2, L[0] == 0 ? "#d95f02" : "#1b9e77",
        l.id, plan.name(swl), plan.port_to_rack(swl, rb), plan.name(swr), plan.port_to_rack(swr, ra));
  }
  out += fmt::format(
      "<text x=\"{}\" y=\"{}\" fill=\"#d95f02\">orange: rack {} subgroup 0 - rack {} subgroup 1</text>\n"
      "<text x=\"{}\" y=\"{}\" fill=\"#1b9e77\">green: rack {} subgroup 1 - rack {} subgroup 0</text>\n",
      left, height - 30, ra, rb, left, height - 12, ra, rb);
  out += "</svg>\n";
  return out;
}

std::string switch_guid(int sw) { return fmt::format("{:016x}", 0x0002c90300a00000ULL + static_cast<unsigned>(sw)); }
std::string ca_node_guid(int e) {
  return fmt::format("{:016x}", 0x0002c90300c00000ULL + 2ULL * static_cast<unsigned>(e));
}
std::string ca_port_guid(int e) {
  return fmt::format("{:016x}", 0x0002c90300c00001ULL + 2ULL * static_cast<unsigned>(e));
}
std::string switch_description(const CablingPlan& plan, int sw) {
  return fmt::format("MF0;{}:SX6036/U1", plan.name(sw));
}
std::string endpoint_name(const CablingPlan& plan, int e) {
  return fmt::format("{}-n{}", plan.name(e / plan.p), e % plan.p + 1);
}

namespace {
[[maybe_unused]] const bool declared = [] {
  using namespace config;
  declare({
      integer("cabling.switch_ports", 0, "ports", "lbsim cabling: physical ports per switch (>= p + k'); 0 = p + k'.")
          .range(0, 4096),
      text("cabling.name_prefix", "sf",
           "lbsim cabling: switch names are PREFIX-S-R-I (the (S, R, I) label of [SlimFly] Fig. 4); letters, digits, "
           "'_' or '.'."),
      real("cabling.rack_pitch_m", 0.6, "m",
           "lbsim cabling plan, cable sheets: distance between neighbouring racks of a row.")
          .range(0, 100),
      real("cabling.row_pitch_m", 2.4, "m", "lbsim cabling plan, cable sheets: distance between rows of racks.")
          .range(0, 1000),
      integer("cabling.racks_per_row", 0, "",
              "lbsim cabling plan, cable sheets: racks per row (rack R in row R / racks_per_row); 0 = all racks in one "
              "row.")
          .range(0, 4096),
      real("cabling.tray_m", 0.5, "m",
           "lbsim cabling plan, cable sheets: from the top of a rack to the overhead cable tray (added at both ends of "
           "an inter-rack cable).")
          .range(0, 100),
      real("cabling.slack_m", 1.0, "m",
           "lbsim cabling plan, cable sheets: slack added to every estimated cable length before rounding up to a "
           "stock length.")
          .range(0, 100),
      real("cabling.host_cable_m", 2.0, "m",
           "lbsim cabling plan, cable sheets: run of an endpoint (HCA to switch) cable before slack.")
          .range(0, 1000),
      real("cabling.dac_max_m", 3.0, "m",
           "lbsim cabling plan, cable sheets: longest copper (DAC) cable; longer cables are optical (AOC).")
          .range(0, 1000),
  });
  return true;
}();
}  // namespace

}  // namespace lbsim::analysis