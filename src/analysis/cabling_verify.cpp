// Cabling verification ([SlimFly] sec. 3.4 "Correctness verification"): maps the discovered
// switches to the planned ones and reports missing, miswired and unexpected cables. See cabling.h.
#include "analysis/cabling.h"

#include <cctype>
#include <set>

#include <fmt/core.h>

#include "core/error.h"

namespace lbsim::analysis {

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

}  // namespace lbsim::analysis
