#include "analysis/cabling.h"

#include <algorithm>
#include <cmath>
#include <cctype>
#include <istream>
#include <set>
#include <sstream>

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

namespace {

const char* cable_kind(const PlannedLink& l) { return l.inter_rack ? "optical" : "copper"; }

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
std::string strip0(const std::string& g) {
  const auto n = g.find_first_not_of('0');
  return n == std::string::npos ? "0" : g.substr(n);
}
}  // namespace

std::string emit_ibnetdiscover(const CablingPlan& plan) {
  const int ns = plan.num_switches();
  auto sw_desc = [&](int s) { return switch_description(plan, s); };
  auto ca_desc = [&](int h) { return endpoint_name(plan, h) + " HCA-1"; };
  auto sw_lid = [](int s) { return s + 1; };
  auto ca_lid = [&](int h) { return ns + 1 + h; };
  std::string out = fmt::format(
      "#\n# Topology file: generated by lbsim cabling plan (Slim Fly q={}) in ibnetdiscover format\n#\n", plan.q);
  if (plan.p > 0) out += fmt::format("# Initiated from node {} port {}\n", ca_node_guid(0), ca_port_guid(0));
  for (int s = 0; s < ns; ++s) {
    const std::string g = switch_guid(s);
    out += fmt::format("\nvendid=0x2c9\ndevid=0xc738\nsysimgguid=0x{}\nswitchguid=0x{}({})\n", strip0(g), strip0(g),
                       strip0(g));
    out += fmt::format("Switch\t{} \"S-{}\"\t\t# \"{}\" enhanced port 0 lid {} lmc 0\n", plan.switch_ports, g,
                       sw_desc(s), sw_lid(s));
    for (int pt = 1; pt <= plan.switch_ports; ++pt) {
      if (pt <= plan.p) {
        const int h = s * plan.p + pt - 1;
        out += fmt::format("[{}]\t\"H-{}\"[1]({}) \t\t# \"{}\" lid {} 4xFDR\n", pt, ca_node_guid(h),
                           strip0(ca_port_guid(h)), ca_desc(h), ca_lid(h));
      } else if (auto pr = plan.peer(s, pt)) {
        out += fmt::format("[{}]\t\"S-{}\"[{}]\t\t# \"{}\" lid {} 4xFDR\n", pt, switch_guid(pr->first), pr->second,
                           sw_desc(pr->first), sw_lid(pr->first));
      }
    }
  }
  for (int h = 0; h < ns * plan.p; ++h) {
    const std::string g = ca_node_guid(h);
    const int s = h / plan.p, pt = h % plan.p + 1;
    out += fmt::format("\nvendid=0x2c9\ndevid=0x1003\nsysimgguid=0x{}\ncaguid=0x{}\n", strip0(g), strip0(g));
    out += fmt::format("Ca\t1 \"H-{}\"\t\t# \"{}\"\n", g, ca_desc(h));
    out += fmt::format("[1]({}) \t\"S-{}\"[{}]\t\t# lid {} lmc 0 \"{}\" lid {} 4xFDR\n", strip0(ca_port_guid(h)),
                       switch_guid(s), pt, ca_lid(h), sw_desc(s), sw_lid(s));
  }
  return out;
}

// ============================================================================ parsing

std::string normalize_guid(std::string_view hex) {
  if (hex.size() >= 2 && hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) hex.remove_prefix(2);
  if (hex.empty() || hex.size() > 16) return {};
  std::string o;
  for (char c : hex) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return {};
    o += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return std::string(16 - o.size(), '0') + o;
}

namespace {

// A cursor over one line with the small lexer the format needs.
struct Cursor {
  std::string_view s;
  std::size_t i = 0;
  void ws() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  }
  bool end() const { return i >= s.size(); }
  bool eat(char c) {
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  }
  bool eat(std::string_view w) {
    if (s.substr(i, w.size()) == w) {
      i += w.size();
      return true;
    }
    return false;
  }
  std::optional<long> integer() {
    std::size_t j = i;
    long v = 0;
    while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j])) && j - i < 9) v = v * 10 + (s[j++] - '0');
    if (j == i || (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j])))) return std::nullopt;
    i = j;
    return v;
  }
  std::string_view until(char c) {
    const std::size_t j = s.find(c, i);
    if (j == std::string_view::npos) return {};
    auto r = s.substr(i, j - i);
    i = j;
    return r;
  }
};

[[noreturn]] void fail(const std::string& src, int line, const std::string& msg) {
  throw UserError(fmt::format("{}:{}: {}", src, line, msg));
}

// "X-<hex>" inside quotes; returns (type, normalized guid).
std::pair<char, std::string> node_ref(Cursor& c, const std::string& src, int line, const char* what) {
  if (!c.eat('"'))
    fail(src, line, fmt::format("expected the quoted {} (\"S-<guid>\", \"H-<guid>\" or \"R-<guid>\")", what));
  const auto body = c.until('"');
  if (!c.eat('"')) fail(src, line, fmt::format("unterminated quote in the {}", what));
  if (body.size() < 3 || body[1] != '-' || (body[0] != 'S' && body[0] != 'H' && body[0] != 'R'))
    fail(src, line, fmt::format("the {} '{}' is not of the form S-<guid>, H-<guid> or R-<guid>", what, body));
  const std::string g = normalize_guid(body.substr(2));
  if (g.empty()) fail(src, line, fmt::format("the {} '{}' has an invalid GUID (1-16 hex digits expected)", what, body));
  return {body[0], g};
}

// Optional "(portguid)" and "[ext N]" decorations after a port number; returns the port GUID
// (normalised) or "".
std::string port_decorations(Cursor& c, const std::string& src, int line) {
  std::string guid;
  if (c.eat('(')) {
    const auto g = c.until(')');
    guid = normalize_guid(g);
    if (!c.eat(')') || guid.empty()) fail(src, line, "malformed port GUID in parentheses");
  }
  if (c.eat("[ext ")) {
    if (!c.integer() || !c.eat(']')) fail(src, line, "malformed '[ext N]' external port");
  }
  return guid;
}

std::string_view trim(std::string_view v) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
  return v;
}

// ibnetdiscover -g (chassis grouping) adds lines that carry no cabling: "Chassis N (guid 0x..)",
// "Non-Chassis Nodes" and, for some vendors, "Hostname: ...". Returns true for such a line.
bool grouping_line(std::string_view rest, const std::string& src, int line) {
  if (trim(rest) == "Non-Chassis Nodes") return true;
  if (rest.rfind("Hostname:", 0) == 0) return true;
  if (rest.rfind("Chassis ", 0) == 0) {
    Cursor c{rest};
    c.eat("Chassis ");
    if (!c.integer())
      fail(src, line, fmt::format("malformed chassis line (expected 'Chassis <n> [(guid 0x<guid>)]'): '{}'", rest));
    c.ws();
    if (c.eat("(guid ")) {
      const auto g = c.until(')');
      if (!c.eat(')') || normalize_guid(g).empty()) fail(src, line, fmt::format("malformed chassis GUID: '{}'", rest));
    }
    c.ws();
    if (!c.end()) fail(src, line, fmt::format("unexpected text after the chassis number: '{}'", rest));
    return true;
  }
  return false;
}

}  // namespace

IbFabric parse_ibnetdiscover_text(std::string_view text, const std::string& src) {
  // The LST format (OpenSM's opensm-subnet.lst, ibdiagnet's .lst) starts every line with '{'.
  for (std::size_t at = 0; at < text.size();) {
    std::size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) nl = text.size();
    const auto l = trim(text.substr(at, nl - at));
    at = nl + 1;
    if (l.empty() || l[0] == '#' || l == "\r") continue;
    if (l[0] == '{') return parse_lst_text(text, src);
    break;
  }
  IbFabric f;
  f.source = src;
  f.format = "ibnetdiscover";
  struct Entry {
    IbEnd peer;
    int line;
    bool explicit_line;
  };
  std::map<IbEnd, Entry> ends;
  std::vector<std::pair<IbEnd, int>> port_uses;  // (end, line) to check against nports at the end
  int cur = -1;                                  // current node block
  std::set<int> cur_ports;
  int lineno = 0;
  std::size_t pos = 0;
  std::map<std::string, int> type_line;
  // A GUID keeps its node type everywhere it is mentioned.
  auto note_type = [&](char t, const std::string& g) {
    auto [it, fresh] = f.type.emplace(g, t);
    if (fresh) {
      type_line[g] = lineno;
    } else if (it->second != t) {
      fail(src, lineno,
           fmt::format("GUID {} is named {}-{} here but {}-{} at line {}", g, t, g, it->second, g, type_line[g]));
    }
  };
  while (pos <= text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view raw = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++lineno;
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    Cursor c{raw};
    c.ws();
    if (c.end() || c.s[c.i] == '#') {
      if (nl == text.size()) break;
      continue;
    }
    const std::string_view rest = raw.substr(c.i);
    if (grouping_line(rest, src, lineno)) continue;
    const bool is_switch = rest.rfind("Switch", 0) == 0, is_ca = rest.rfind("Ca", 0) == 0,
               is_rt = rest.rfind("Rt", 0) == 0;
    if (is_switch || is_ca || is_rt) {
      c.eat(is_switch ? "Switch" : (is_ca ? "Ca" : "Rt"));
      if (!c.end() && c.s[c.i] != ' ' && c.s[c.i] != '\t')
        fail(src, lineno, fmt::format("unrecognized line: '{}'", rest));
      c.ws();
      const auto np = c.integer();
      if (!np || *np < 1 || *np > 4096) fail(src, lineno, "expected the number of ports (1..4096) after the node type");
      c.ws();
      const auto [type, guid] = node_ref(c, src, lineno, "node GUID");
      const char want = is_switch ? 'S' : (is_ca ? 'H' : 'R');
      if (type != want)
        fail(src, lineno,
             fmt::format("a {} header must name a \"{}-<guid>\" node, got \"{}-...\"",
                         is_switch ? "Switch" : (is_ca ? "Ca" : "Rt"), want, type));
      IbNode n;
      n.type = type;
      n.guid = guid;
      n.nports = static_cast<int>(*np);
      n.line = lineno;
      c.ws();
      if (c.eat('#')) {
        c.ws();
        if (c.eat('"')) {
          n.desc = std::string(c.until('"'));
          if (!c.eat('"')) fail(src, lineno, "unterminated node description");
        }
      } else if (!c.end()) {
        fail(src, lineno, "unexpected text after the node GUID (expected '# \"<description>\" ...')");
      }
      if (auto it = f.by_guid.find(guid); it != f.by_guid.end())
        fail(src, lineno,
             fmt::format("node {}-{} already listed at line {}", type, guid,
                         f.nodes[static_cast<std::size_t>(it->second)].line));
      note_type(type, guid);
      f.by_guid[guid] = static_cast<int>(f.nodes.size());
      cur = static_cast<int>(f.nodes.size());
      f.nodes.push_back(n);
      cur_ports.clear();
      continue;
    }
    if (rest[0] == '[') {
      if (cur < 0) fail(src, lineno, "port line outside a Switch/Ca/Rt block");
      const IbNode& self = f.nodes[static_cast<std::size_t>(cur)];
      c.eat('[');
      const auto pt = c.integer();
      if (!pt || !c.eat(']')) fail(src, lineno, "expected '[<port>]' at the start of a link line");
      if (*pt < 1 || *pt > self.nports)
        fail(src, lineno,
             fmt::format("port {} out of range: {}-{} has ports 1..{}", *pt, self.type, self.guid, self.nports));
      const std::string own_pg = port_decorations(c, src, lineno);
      c.ws();
      const auto [ptype, pguid] = node_ref(c, src, lineno, "peer");
      if (!c.eat('[')) fail(src, lineno, "expected '[<peer port>]' after the peer GUID");
      const auto pp = c.integer();
      if (!pp || *pp < 1 || !c.eat(']')) fail(src, lineno, "malformed peer port (expected '[<port>]', port >= 1)");
      std::string peer_pg = port_decorations(c, src, lineno);
      c.ws();
      // A CA's link to another CA or router names the peer's port GUID after a blank: " (guid) ".
      if (peer_pg.empty() && c.eat('(')) {
        const auto g = c.until(')');
        peer_pg = normalize_guid(g);
        if (!c.eat(')') || peer_pg.empty()) fail(src, lineno, "malformed peer port GUID in parentheses");
        c.ws();
      }
      if (!c.end() && c.s[c.i] != '#')
        fail(src, lineno, fmt::format("unexpected text '{}' after the peer port", raw.substr(c.i)));
      if (!own_pg.empty() && self.type != 'S') f.port_guid[IbEnd{self.guid, static_cast<int>(*pt)}] = own_pg;
      if (!peer_pg.empty() && ptype != 'S') f.port_guid[IbEnd{pguid, static_cast<int>(*pp)}] = peer_pg;
      if (!cur_ports.insert(static_cast<int>(*pt)).second)
        fail(src, lineno, fmt::format("port {} of {}-{} is listed twice", *pt, self.type, self.guid));
      note_type(ptype, pguid);
      const IbEnd a{self.guid, static_cast<int>(*pt)}, b{pguid, static_cast<int>(*pp)};
      if (a == b) fail(src, lineno, "a port cannot be connected to itself");
      auto record = [&](const IbEnd& from, const IbEnd& to, bool expl) {
        auto it = ends.find(from);
        if (it == ends.end()) {
          ends[from] = Entry{to, lineno, expl};
          return;
        }
        if (!(it->second.peer == to))
          fail(src, lineno,
               fmt::format("inconsistent dump: port {} of {} is connected to {} port {} here, but line {} connects it "
                           "to {} port {}",
                           from.port, from.guid, to.guid, to.port, it->second.line, it->second.peer.guid,
                           it->second.peer.port));
        if (expl) it->second.explicit_line = true;
      };
      record(a, b, true);
      record(b, a, false);
      port_uses.push_back({b, lineno});
      continue;
    }
    if (const auto eq = rest.find('='); eq != std::string_view::npos) {
      const std::string key(rest.substr(0, eq));
      static constexpr std::string_view kKeys[] = {"vendid",     "devid",  "sysimgguid",
                                                   "switchguid", "caguid", "routerguid"};
      if (std::find(std::begin(kKeys), std::end(kKeys), key) == std::end(kKeys))
        fail(src, lineno,
             fmt::format(
                 "unknown attribute '{}' (expected vendid, devid, sysimgguid, switchguid, caguid or routerguid)", key));
      std::string_view val = rest.substr(eq + 1);
      // ibnetdiscover -g appends "# Chassis N ..." / "# <chassis type> <slot>" to these lines.
      if (const auto hash = val.find('#'); hash != std::string_view::npos) val = val.substr(0, hash);
      if (const auto paren = val.find('('); paren != std::string_view::npos) val = val.substr(0, paren);
      while (!val.empty() && (val.back() == ' ' || val.back() == '\t')) val.remove_suffix(1);
      if (normalize_guid(val).empty())
        fail(src, lineno, fmt::format("attribute '{}' has a malformed hex value '{}'", key, val));
      continue;
    }
    fail(src, lineno,
         fmt::format("unrecognized line (expected a 'Switch'/'Ca'/'Rt' header, a '[port] \"peer\"[port]' link line, "
                     "key=value or a # comment): '{}'",
                     rest));
  }
  for (const auto& [e, line] : port_uses)
    if (auto it = f.by_guid.find(e.guid); it != f.by_guid.end()) {
      const auto& n = f.nodes[static_cast<std::size_t>(it->second)];
      if (e.port > n.nports)
        fail(src, line,
             fmt::format("peer port {} out of range: {}-{} (line {}) has ports 1..{}", e.port, n.type, n.guid, n.line,
                         n.nports));
    }
  for (const auto& [from, en] : ends) f.peer[from] = {en.peer, en.line};
  return f;
}

// The LST topology format: OpenSM writes it as opensm-subnet.lst (osm_dump.c, dump_topology_node)
// and ibdiagnet as its .lst file. One line per port with a link, the local port first:
//   { SW Ports:24 SystemGUID:... NodeGUID:... PortGUID:... VenID:... DevID:... Rev:... {desc}
//     LID:0006 PN:0A } { CA Ports:02 ... {desc} LID:0004 PN:01 } PHY=4x LOG=ACT SPD=5
// Numbers after Ports:, LID: and PN: are hexadecimal; the type may carry "-SM" (the SM's port).
IbFabric parse_lst_text(std::string_view text, const std::string& src) {
  IbFabric f;
  f.source = src;
  f.format = "lst";
  struct Side {
    char type = 'S';
    std::string node_guid, port_guid, desc;
    int nports = 0, port = 0;
  };
  std::map<std::string, int> type_line;
  auto parse_side = [&](Cursor& c, int lineno) {
    Side sd;
    c.ws();
    if (!c.eat('{')) fail(src, lineno, "expected '{' opening a port description (LST format)");
    c.ws();
    std::size_t j = c.i;
    while (j < c.s.size() && c.s[j] != ' ' && c.s[j] != '\t') ++j;
    std::string type(c.s.substr(c.i, j - c.i));
    c.i = j;
    if (const auto dash = type.find('-'); dash != std::string::npos) type = type.substr(0, dash);  // "SW-SM"
    if (type == "SW")
      sd.type = 'S';
    else if (type == "CA")
      sd.type = 'H';
    else if (type == "Rt" || type == "RT")
      sd.type = 'R';
    else
      fail(src, lineno, fmt::format("unknown node type '{}' (expected SW, CA or Rt)", type));
    std::map<std::string, std::string> kv;
    bool desc_seen = false;
    for (;;) {
      c.ws();
      if (c.end()) fail(src, lineno, "unterminated port description (missing '}')");
      if (c.eat('}')) break;
      if (c.eat('{')) {
        sd.desc = std::string(c.until('}'));
        if (!c.eat('}')) fail(src, lineno, "unterminated node description '{...}'");
        desc_seen = true;
        continue;
      }
      std::size_t k = c.i;
      while (k < c.s.size() && c.s[k] != ' ' && c.s[k] != '\t' && c.s[k] != '}') ++k;
      const std::string_view tok = c.s.substr(c.i, k - c.i);
      c.i = k;
      const auto colon = tok.find(':');
      if (colon == std::string_view::npos) fail(src, lineno, fmt::format("expected KEY:VALUE, got '{}'", tok));
      kv[std::string(tok.substr(0, colon))] = std::string(tok.substr(colon + 1));
    }
    auto hex = [&](const char* key, int lo, int hi) {
      auto it = kv.find(key);
      if (it == kv.end()) fail(src, lineno, fmt::format("missing {}: in a port description", key));
      long v = -1;
      try {
        std::size_t used = 0;
        v = std::stol(it->second, &used, 16);
        if (used != it->second.size()) v = -1;
      } catch (const std::exception&) {
        v = -1;
      }
      if (v < lo || v > hi)
        fail(src, lineno, fmt::format("{}:{} is not a hexadecimal number in {}..{}", key, it->second, lo, hi));
      return static_cast<int>(v);
    };
    auto guid = [&](const char* key) {
      auto it = kv.find(key);
      if (it == kv.end()) fail(src, lineno, fmt::format("missing {}: in a port description", key));
      std::string g = normalize_guid(it->second);
      if (g.empty()) fail(src, lineno, fmt::format("{}:{} is not a GUID", key, it->second));
      return g;
    };
    if (!desc_seen) fail(src, lineno, "missing the node description '{...}'");
    sd.nports = hex("Ports", 1, 4096);
    sd.port = hex("PN", 1, 4096);
    if (sd.port > sd.nports) fail(src, lineno, fmt::format("PN:{:02X} is beyond Ports:{:02X}", sd.port, sd.nports));
    sd.node_guid = guid("NodeGUID");
    sd.port_guid = guid("PortGUID");
    return sd;
  };
  auto add_node = [&](const Side& sd, int lineno) {
    auto [tit, fresh] = f.type.emplace(sd.node_guid, sd.type);
    if (fresh)
      type_line[sd.node_guid] = lineno;
    else if (tit->second != sd.type)
      fail(src, lineno,
           fmt::format("node {} has type {} here but {} at line {}", sd.node_guid, sd.type, tit->second,
                       type_line[sd.node_guid]));
    if (auto it = f.by_guid.find(sd.node_guid); it != f.by_guid.end()) {
      const auto& n = f.nodes[static_cast<std::size_t>(it->second)];
      if (n.nports != sd.nports)
        fail(src, lineno,
             fmt::format("node {} has {} ports here but {} at line {}", sd.node_guid, sd.nports, n.nports, n.line));
      return;
    }
    IbNode n;
    n.type = sd.type;
    n.guid = sd.node_guid;
    n.nports = sd.nports;
    n.desc = sd.desc;
    n.line = lineno;
    f.by_guid[n.guid] = static_cast<int>(f.nodes.size());
    f.nodes.push_back(n);
  };
  int lineno = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view raw = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++lineno;
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    const auto t = trim(raw);
    if (t.empty() || t[0] == '#') continue;
    Cursor c{t};
    const Side a = parse_side(c, lineno);
    const Side b = parse_side(c, lineno);
    add_node(a, lineno);
    add_node(b, lineno);
    const IbEnd ea{a.node_guid, a.port}, eb{b.node_guid, b.port};
    if (ea == eb) fail(src, lineno, "a port cannot be connected to itself");
    for (const auto& [from, to] : {std::make_pair(ea, eb), std::make_pair(eb, ea)}) {
      auto it = f.peer.find(from);
      if (it == f.peer.end()) {
        f.peer[from] = {to, lineno};
      } else if (!(it->second.first == to)) {
        fail(src, lineno,
             fmt::format(
                 "inconsistent dump: port {} of {} is connected to {} port {} here, but line {} connects it to {} "
                 "port {}",
                 from.port, from.guid, to.guid, to.port, it->second.second, it->second.first.guid,
                 it->second.first.port));
      }
    }
    if (a.type != 'S') f.port_guid[ea] = a.port_guid;
    if (b.type != 'S') f.port_guid[eb] = b.port_guid;
  }
  return f;
}

IbFabric parse_ibnetdiscover(std::istream& in, const std::string& source) {
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_ibnetdiscover_text(ss.str(), source);
}

std::map<std::string, std::string> parse_name_map(std::istream& in, const std::string& src) {
  std::map<std::string, std::string> m;
  std::map<std::string, int> line_of;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    Cursor c{line};
    c.ws();
    if (c.end() || c.s[c.i] == '#') continue;
    std::size_t j = c.i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    const std::string g = normalize_guid(std::string_view(line).substr(c.i, j - c.i));
    if (g.empty())
      fail(src, lineno, fmt::format("expected '<guid> \"<name>\"', '{}' is not a GUID", line.substr(c.i, j - c.i)));
    c.i = j;
    c.ws();
    std::string name;
    if (c.eat('"')) {
      name = std::string(c.until('"'));
      if (!c.eat('"')) fail(src, lineno, "unterminated quoted name");
    } else {
      std::size_t k = c.i;
      while (k < line.size() && line[k] != ' ' && line[k] != '\t' && line[k] != '#') ++k;
      name = line.substr(c.i, k - c.i);
      c.i = k;
    }
    if (name.empty()) fail(src, lineno, "missing name after the GUID");
    c.ws();
    if (!c.end() && c.s[c.i] != '#') fail(src, lineno, "unexpected text after the name");
    if (auto it = line_of.find(g); it != line_of.end())
      fail(src, lineno, fmt::format("GUID {} already mapped at line {}", g, it->second));
    line_of[g] = lineno;
    m[g] = name;
  }
  return m;
}

// ============================================================================ verification

namespace {

struct End {
  int sw = -1, port = 0;
  bool operator<(const End& o) const { return sw != o.sw ? sw < o.sw : port < o.port; }
  bool operator==(const End& o) const { return sw == o.sw && port == o.port; }
};

// Splits a node description into name-like tokens ("MF0;sf-0-1-2:SX6036/U1" -> MF0, sf-0-1-2, ...).
std::vector<std::string> desc_tokens(const std::string& d) {
  std::vector<std::string> t;
  std::string cur;
  for (char ch : d) {
    if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.') {
      cur += ch;
    } else if (!cur.empty()) {
      t.push_back(cur);
      cur.clear();
    }
  }
  if (!cur.empty()) t.push_back(cur);
  return t;
}

}  // namespace

std::string VerifyReport::text() const {
  std::string out;
  for (const auto& m : mapping) out += m + "\n";
  out += fmt::format("matched {} of {} planned switch-switch cables\n", matched, planned);
  auto section = [&](const char* title, const std::vector<std::string>& v) {
    out += fmt::format("{} ({}):\n", title, v.size());
    for (const auto& s : v) out += "  " + s + "\n";
  };
  section("MISSING", missing);
  section("MISWIRED", miswired);
  section("UNEXPECTED", unexpected);
  if (!warnings.empty()) section("WARNINGS", warnings);
  out += ok() ? "RESULT: the fabric matches the plan\n"
              : fmt::format("RESULT: the fabric differs from the plan ({} missing, {} miswired, {} unexpected)\n",
                            missing.size(), miswired.size(), unexpected.size());
  return out;
}

SwitchMapping map_switches(const CablingPlan& plan, const IbFabric& fab,
                           const std::map<std::string, std::string>* name_map) {
  SwitchMapping m;
  const int ns = plan.num_switches();
  m.sw_node.assign(static_cast<std::size_t>(ns), -1);
  std::vector<std::string> unmatched_desc;
  for (std::size_t ni = 0; ni < fab.nodes.size(); ++ni) {
    const auto& n = fab.nodes[ni];
    if (n.type != 'S') continue;
    ++m.discovered;
    std::optional<int> sw;
    if (name_map) {
      if (auto it = name_map->find(n.guid); it != name_map->end()) {
        sw = plan.find(it->second);
        if (!sw)
          m.warnings.push_back(fmt::format("mapping file names switch S-{} '{}', which is not a planned switch name",
                                           n.guid, it->second));
        else
          ++m.by_file;
      }
    }
    if (!sw)
      for (const auto& tok : desc_tokens(n.desc))
        if ((sw = plan.find(tok))) break;
    if (!sw) {
      m.unexpected.push_back(
          fmt::format("switch S-{} \"{}\" ({}:{}) matches no planned switch; all its cables are "
                      "unexpected (add it to the mapping file or set its node description)",
                      n.guid, n.desc, fab.source, n.line));
      if (unmatched_desc.size() < 3) unmatched_desc.push_back(fmt::format("S-{} \"{}\"", n.guid, n.desc));
      continue;
    }
    if (const int prev = m.sw_node[static_cast<std::size_t>(*sw)]; prev >= 0)
      throw UserError(
          fmt::format("{}:{}: switch S-{} maps to {} but so does S-{} (line {}); fix the node "
                      "descriptions or the mapping file",
                      fab.source, n.line, n.guid, plan.name(*sw), fab.nodes[static_cast<std::size_t>(prev)].guid,
                      fab.nodes[static_cast<std::size_t>(prev)].line));
    m.sw_node[static_cast<std::size_t>(*sw)] = static_cast<int>(ni);
    m.guid_sw[n.guid] = *sw;
    ++m.mapped;
  }
  if (m.discovered == 0)
    throw UserError(
        fmt::format("{}: the dump lists no switch ({} nodes, {} links): is it empty or not the output of "
                    "ibnetdiscover (or an LST file)?",
                    fab.source, fab.nodes.size(), fab.peer.size() / 2));
  if (m.mapped == 0) {
    std::string eg;
    for (const auto& d : unmatched_desc) eg += (eg.empty() ? "" : ", ") + d;
    throw UserError(fmt::format(
        "{}: none of the {} discovered switches matches a planned switch name ({}-S-R-I, e.g. {}) in its node "
        "description (found {}{}); give a mapping file with --map (one '0x<guid> \"{}\"' line per switch, the "
        "node-name-map format)",
        fab.source, m.discovered, plan.prefix, plan.name(0), eg, m.discovered > 3 ? ", ..." : "", plan.name(0)));
  }
  if (name_map)
    for (const auto& [guid, nm] : *name_map)
      if (!fab.by_guid.count(guid))
        m.warnings.push_back(fmt::format("mapping file entry {} \"{}\": no such node in the dump", guid, nm));
  return m;
}

VerifyReport verify_cabling(const CablingPlan& plan, const IbFabric& fab,
                            const std::map<std::string, std::string>* name_map) {
  VerifyReport rep;
  rep.planned = static_cast<int>(plan.links.size());
  const int ns = plan.num_switches();

  // 1. Map discovered switches to planned switches: mapping file first, then node description.
  const SwitchMapping sm = map_switches(plan, fab, name_map);
  const auto& guid_sw = sm.guid_sw;
  const auto& sw_node = sm.sw_node;
  for (const auto& u : sm.unexpected) rep.unexpected.push_back(u);
  for (const auto& w : sm.warnings) rep.warnings.push_back(w);
  rep.mapping.push_back(
      fmt::format("plan: Slim Fly q = {}, {} switches, {} switch-switch cables; fabric {}: {} "
                  "switches mapped ({} by mapping file, {} by node description)",
                  plan.q, ns, plan.links.size(), fab.source, sm.mapped, sm.by_file, sm.mapped - sm.by_file));
  for (int s = 0; s < ns; ++s)
    if (sw_node[static_cast<std::size_t>(s)] < 0)
      rep.missing.push_back(
          fmt::format("switch {} was not discovered (all its cables are listed as missing)", plan.name(s)));

  auto node_of = [&](const std::string& guid) -> const IbNode* {
    auto it = fab.by_guid.find(guid);
    return it == fab.by_guid.end() ? nullptr : &fab.nodes[static_cast<std::size_t>(it->second)];
  };
  auto type_of = [&](const std::string& guid) {
    auto it = fab.type.find(guid);
    return it == fab.type.end() ? 'S' : it->second;
  };
  auto end_name = [&](const End& e) { return fmt::format("{} port {}", plan.name(e.sw), e.port); };
  auto ib_name = [&](const IbEnd& e) {
    if (auto it = guid_sw.find(e.guid); it != guid_sw.end()) return end_name(End{it->second, e.port});
    const IbNode* n = node_of(e.guid);
    return fmt::format("{}-{}{} port {}", type_of(e.guid), e.guid, n && !n->desc.empty() ? " \"" + n->desc + "\"" : "",
                       e.port);
  };

  // 2. Discovered switch-switch cables between mapped switches, and the rest.
  std::map<End, End> disc;  // both directions
  for (const auto& [a, val] : fab.peer) {
    const IbEnd& b = val.first;
    if (b < a) continue;  // each cable once
    const char ta = type_of(a.guid), tb = type_of(b.guid);
    const auto ia = guid_sw.find(a.guid), ib = guid_sw.find(b.guid);
    if (ta != 'H' && tb != 'H') {  // switch (or router) to switch
      if (ia != guid_sw.end() && ib != guid_sw.end()) {
        const End ea{ia->second, a.port}, eb{ib->second, b.port};
        disc[ea] = eb;
        disc[eb] = ea;
      } else {
        rep.unexpected.push_back(fmt::format("cable {} <-> {} (line {}): involves a {} that is not in the plan",
                                             ib_name(a), ib_name(b), val.second,
                                             ta == 'R' || tb == 'R' ? "router or switch" : "switch"));
      }
      continue;
    }
    // Endpoint (CA) cables: must sit on ports 1..p of a planned switch.
    const IbEnd& se = ta == 'S' ? a : b;
    const auto is = guid_sw.find(se.guid);
    if ((ta == 'S') == (tb == 'S') || is == guid_sw.end()) continue;  // CA-CA/CA-router or unmapped switch
    if (se.port > plan.p)
      rep.unexpected.push_back(
          fmt::format("{} carries an endpoint ({}), but endpoints use ports 1-{}; move it to a free "
                      "endpoint port",
                      end_name(End{is->second, se.port}), ib_name(ta == 'S' ? b : a), plan.p));
  }
  for (int s = 0; s < ns; ++s) {
    if (sw_node[static_cast<std::size_t>(s)] < 0) continue;
    const std::string& g = fab.nodes[static_cast<std::size_t>(sw_node[static_cast<std::size_t>(s)])].guid;
    for (int pt = 1; pt <= plan.p; ++pt) {
      auto it = fab.peer.find(IbEnd{g, pt});
      if (it == fab.peer.end())
        rep.warnings.push_back(fmt::format("{}: endpoint port is empty (no HCA discovered)", end_name(End{s, pt})));
    }
  }

  // 3. Compare.
  auto planned = [&](const End& e) -> std::optional<End> {
    auto pr = plan.peer(e.sw, e.port);
    if (!pr) return std::nullopt;
    return End{pr->first, pr->second};
  };
  auto found = [&](const End& e) -> std::optional<End> {
    auto it = disc.find(e);
    if (it == disc.end()) return std::nullopt;
    return it->second;
  };
  // Any cable (switch or HCA) at a planned switch port.
  auto occupied = [&](const End& e) {
    const int ni = sw_node[static_cast<std::size_t>(e.sw)];
    return ni >= 0 && fab.peer.count(IbEnd{fab.nodes[static_cast<std::size_t>(ni)].guid, e.port}) > 0;
  };
  std::set<std::pair<End, End>> handled;
  auto key = [](End a, End b) { return a < b ? std::make_pair(a, b) : std::make_pair(b, a); };
  for (const auto& [a, b] : disc) {
    if (b < a) continue;
    if (auto pa = planned(a); pa && *pa == b) {
      ++rep.matched;
      continue;
    }
    if (handled.count(key(a, b))) continue;
    handled.insert(key(a, b));
    const std::string what = fmt::format("cable {} <-> {}", end_name(a), end_name(b));
    // Try both orientations: keep end `fixed`, move end `moving` to the planned peer `target` of `fixed`.
    bool done = false;
    for (int pass = 0; pass < 2 && !done; ++pass) {
      for (int orient = 0; orient < 2 && !done; ++orient) {
        const End fixed = orient == 0 ? a : b, moving = orient == 0 ? b : a;
        const auto target = planned(fixed);
        if (!target) continue;
        // First pass: only same-switch fixes ("move the cable at X port a to port b").
        if (pass == 0 && target->sw != moving.sw) continue;
        const auto occupant = found(*target);
        std::string fix;
        if (!occupant) {
          fix = target->sw == moving.sw
                    ? fmt::format("move the cable at {} port {} to port {}", plan.name(moving.sw), moving.port,
                                  target->port)
                    : fmt::format("move its end from {} to {}", end_name(moving), end_name(*target));
        } else if (auto po = planned(*occupant); po && *po == moving) {
          handled.insert(key(*target, *occupant));
          fix = target->sw == moving.sw
                    ? fmt::format("swap the cables at {} ports {} and {}", plan.name(moving.sw), moving.port,
                                  target->port)
                    : fmt::format("swap the cable ends at {} and {}", end_name(moving), end_name(*target));
          rep.miswired.push_back(fmt::format(
              "{} and cable {} <-> {} are crossed (planned {} <-> {} and {} <-> {}); fix: {}", what, end_name(*target),
              end_name(*occupant), end_name(fixed), end_name(*target), end_name(*occupant), end_name(moving), fix));
          done = true;
          break;
        } else {
          fix = fmt::format("move its end from {} to {} (that port holds the cable to {}, see its entry)",
                            end_name(moving), end_name(*target), end_name(*occupant));
        }
        rep.miswired.push_back(
            fmt::format("{} (planned {} <-> {}); fix: {}", what, end_name(fixed), end_name(*target), fix));
        done = true;
      }
    }
    if (!done)
      rep.unexpected.push_back(fmt::format("{}: neither port is used by the plan; fix: remove the cable", what));
  }
  for (const auto& l : plan.links) {
    const End a{l.sw_a, l.port_a}, b{l.sw_b, l.port_b};
    if (auto fa = found(a); fa && *fa == b) continue;
    const bool gone = sw_node[static_cast<std::size_t>(l.sw_a)] < 0 || sw_node[static_cast<std::size_t>(l.sw_b)] < 0;
    std::string note;
    if (gone)
      note = "switch not discovered";
    else if (!occupied(a) && !occupied(b))
      note = "both ports are free: connect a new cable";
    else
      note = "a port holds another cable, see MISWIRED/UNEXPECTED";
    rep.missing.push_back(fmt::format("[link {}, step {}, {}] {} <-> {} ({})", l.id, l.step, cable_kind(l), end_name(a),
                                      end_name(b), note));
  }
  return rep;
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
