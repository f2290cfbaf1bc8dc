// The physical fabric of the forwarding tables (see fabric.h).
#include "analysis/fabric.h"

#include <algorithm>

#include <fmt/core.h>

#include "core/error.h"

namespace lbsim::analysis {

void Fabric::index() {
  neighbour_port_.assign(switches.size(), {});
  for (std::size_t s = 0; s < switches.size(); ++s) {
    auto& v = neighbour_port_[s];
    const auto& ports = switches[s].ports;
    for (int pt = 1; pt < static_cast<int>(ports.size()); ++pt)
      if (ports[static_cast<std::size_t>(pt)].kind == FabricPort::Switch)
        v.emplace_back(ports[static_cast<std::size_t>(pt)].peer, pt);
    std::sort(v.begin(), v.end());  // (neighbour, port): the lowest port per neighbour comes first
  }
}

int Fabric::port_to(int s, int neighbour) const {
  if (s < 0 || static_cast<std::size_t>(s) >= neighbour_port_.size()) return -1;
  const auto& v = neighbour_port_[static_cast<std::size_t>(s)];
  const auto it = std::lower_bound(v.begin(), v.end(), std::make_pair(neighbour, 0));
  return it != v.end() && it->first == neighbour ? it->second : -1;
}

routing::Adjacency Fabric::switch_graph() const {
  routing::Adjacency adj(switches.size());
  for (std::size_t s = 0; s < switches.size(); ++s) {
    for (const auto& [nb, pt] : neighbour_port_[s])
      if (adj[s].empty() || adj[s].back() != nb) adj[s].push_back(nb);
  }
  return adj;
}

Fabric fabric_from_plan(const CablingPlan& plan) {
  Fabric f;
  f.source = "plan";
  const int ns = plan.num_switches();
  f.switches.resize(static_cast<std::size_t>(ns));
  for (int s = 0; s < ns; ++s) {
    auto& sw = f.switches[static_cast<std::size_t>(s)];
    sw.name = plan.name(s);
    sw.guid = switch_guid(s);
    sw.desc = switch_description(plan, s);
    sw.ports.assign(static_cast<std::size_t>(plan.switch_ports) + 1, {});
    for (int pt = 1; pt <= plan.switch_ports; ++pt) {
      auto& port = sw.ports[static_cast<std::size_t>(pt)];
      if (pt <= plan.p) {
        port = {FabricPort::Endpoint, s * plan.p + pt - 1, 1};
      } else if (const auto pr = plan.peer(s, pt)) {
        port = {FabricPort::Switch, pr->first, pr->second};
      }
    }
  }
  for (int e = 0; e < plan.num_endpoints(); ++e)
    f.endpoints.push_back({endpoint_name(plan, e), ca_node_guid(e), ca_port_guid(e), endpoint_name(plan, e) + " HCA-1",
                           e / plan.p, e % plan.p + 1});
  f.index();
  return f;
}

Fabric fabric_from_topology(const topo::Topology& t) {
  Fabric f;
  f.source = "topology";
  const int ns = t.num_switches();
  f.switches.resize(static_cast<std::size_t>(ns));
  std::vector<int> endpoint_of_host(static_cast<std::size_t>(t.num_hosts), -1);
  for (int s = 0; s < ns; ++s) {
    const auto node = t.switch_node(s);
    auto& sw = f.switches[static_cast<std::size_t>(s)];
    sw.name = t.nodes[static_cast<std::size_t>(node)].label;
    sw.guid = switch_guid(s);
    sw.desc = sw.name;
    const auto& ports = t.ports[static_cast<std::size_t>(node)];
    sw.ports.assign(ports.size() + 1, {});
    for (std::size_t i = 0; i < ports.size(); ++i) {
      const auto& p = ports[i];
      auto& port = sw.ports[i + 1];
      if (t.is_host(p.peer)) {
        const int e = f.num_endpoints();
        endpoint_of_host[static_cast<std::size_t>(p.peer)] = e;
        const std::string host = t.nodes[static_cast<std::size_t>(p.peer)].label;
        f.endpoints.push_back({host, ca_node_guid(e), ca_port_guid(e), host + " HCA-1", s, static_cast<int>(i) + 1});
        port = {FabricPort::Endpoint, e, p.peer_port + 1};
      } else {
        port = {FabricPort::Switch, t.switch_index(p.peer), p.peer_port + 1};
      }
    }
  }
  f.index();
  return f;
}

Fabric fabric_from_discovery(const CablingPlan& plan, const IbFabric& dump,
                             const std::map<std::string, std::string>* name_map) {
  const SwitchMapping sm = map_switches(plan, dump, name_map);
  const int ns = plan.num_switches();
  std::vector<std::string> absent;
  for (int s = 0; s < ns; ++s)
    if (sm.sw_node[static_cast<std::size_t>(s)] < 0) absent.push_back(plan.name(s));
  auto listing = [](const std::vector<std::string>& v) {
    std::string o;
    for (std::size_t i = 0; i < v.size() && i < 6; ++i) o += (i ? ", " : "") + v[i];
    if (v.size() > 6) o += fmt::format(", ... ({} in all)", v.size());
    return o;
  };
  if (!absent.empty())
    throw UserError(
        fmt::format("{}: {} planned switch(es) not found in the dump: {}; the tables need every switch "
                    "(run `lbsim cabling verify` and fix the fabric or the mapping file)",
                    dump.source, absent.size(), listing(absent)));
  Fabric f;
  f.source = dump.source;
  f.switches.resize(static_cast<std::size_t>(ns));
  for (int s = 0; s < ns; ++s) {
    const auto& node = dump.nodes[static_cast<std::size_t>(sm.sw_node[static_cast<std::size_t>(s)])];
    auto& sw = f.switches[static_cast<std::size_t>(s)];
    sw.name = plan.name(s);
    sw.guid = node.guid;
    sw.desc = node.desc;
    sw.ports.assign(static_cast<std::size_t>(node.nports) + 1, {});
  }
  // CA ports on mapped switches become the endpoints, in (switch, port) order.
  for (int s = 0; s < ns; ++s) {
    auto& sw = f.switches[static_cast<std::size_t>(s)];
    for (int pt = 1; pt <= sw.nports(); ++pt) {
      const auto it = dump.peer.find(IbEnd{sw.guid, pt});
      if (it == dump.peer.end()) continue;
      const IbEnd& far = it->second.first;
      const auto ti = dump.type.find(far.guid);
      const char type = ti == dump.type.end() ? 'S' : ti->second;
      if (type == 'S') {
        if (const auto m = sm.guid_sw.find(far.guid); m != sm.guid_sw.end())
          sw.ports[static_cast<std::size_t>(pt)] = {FabricPort::Switch, m->second, far.port};
      } else if (type == 'H') {
        const auto pg = dump.port_guid.find(far);
        if (pg == dump.port_guid.end())
          throw UserError(
              fmt::format("{}:{}: the dump does not name the port GUID of H-{} port {} (needed for its LIDs)",
                          dump.source, it->second.second, far.guid, far.port));
        const auto ni = dump.by_guid.find(far.guid);
        std::string desc = ni == dump.by_guid.end() ? "" : dump.nodes[static_cast<std::size_t>(ni->second)].desc;
        std::string host = desc.substr(0, desc.find(' '));
        if (host.empty()) host = "H-" + far.guid;
        const int e = f.num_endpoints();
        f.endpoints.push_back({host, far.guid, pg->second, desc, s, pt});
        sw.ports[static_cast<std::size_t>(pt)] = {FabricPort::Endpoint, e, far.port};
      }
    }
  }
  f.index();
  std::vector<std::string> missing;
  for (const auto& l : plan.links)
    if (f.port_to(l.sw_a, l.sw_b) < 0)
      missing.push_back(fmt::format("{} <-> {}", plan.name(l.sw_a), plan.name(l.sw_b)));
  if (!missing.empty())
    throw UserError(
        fmt::format("{}: {} planned switch-switch link(s) are not cabled: {}; the layers route over every "
                    "planned link (run `lbsim cabling verify` for the fixes)",
                    dump.source, missing.size(), listing(missing)));
  return f;
}

}  // namespace lbsim::analysis
