#include "topo/fat_tree.h"

#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/core.h>

#include "core/error.h"
#include "topo/registry.h"

namespace lbsim::topo {

Topology build_fat_tree(const FatTreeParams& p) {
  if (p.tiers != 2 && p.tiers != 3)
    throw UserError(fmt::format("topology.tiers = {}: a fat tree has 2 or 3 tiers", p.tiers));
  if (p.radix < 2 || p.radix % 2)
    throw UserError(fmt::format("topology.radix = {}: expected an even number >= 2", p.radix));
  if (p.hosts < 2) throw UserError(fmt::format("topology.hosts = {}: expected at least 2", p.hosts));
  const int hpt = p.hosts_per_tor > 0 ? p.hosts_per_tor : p.radix / 2;
  if (p.oversubscription < 1 || hpt % p.oversubscription)
    throw UserError(fmt::format("topology.oversubscription = {}: must be >= 1 and divide the {} hosts per ToR",
                                p.oversubscription, hpt));
  const int up = hpt / p.oversubscription;
  if (hpt + up > p.radix)
    throw UserError(
        fmt::format("a ToR with {} hosts and {} uplinks needs {} ports, radix is {}", hpt, up, hpt + up, p.radix));
  const int tors = (p.hosts + hpt - 1) / hpt;

  Topology t;
  t.kind = "fat_tree";
  for (int h = 0; h < p.hosts; ++h) t.add_host(fmt::format("h{}", h));

  if (p.tiers == 2) {
    if (tors > p.radix)
      throw UserError(
          fmt::format("{} hosts need {} ToRs, but a spine of radix {} reaches at most {} ToRs (use tiers = 3 or a "
                      "larger radix)",
                      p.hosts, tors, p.radix, p.radix));
    std::vector<std::int32_t> tor(tors), spine(up);
    for (int i = 0; i < tors; ++i) tor[i] = t.add_switch(fmt::format("tor{}", i), i, 1);
    for (int j = 0; j < up; ++j) spine[j] = t.add_switch(fmt::format("spine{}", j), -1, 2);
    for (int h = 0; h < p.hosts; ++h) t.connect(h, tor[h / hpt], p.host_rate, p.host_latency, LinkKind::HostLink);
    for (int i = 0; i < tors; ++i)
      for (int j = 0; j < up; ++j) t.connect(tor[i], spine[j], p.tier1_rate, p.tier1_latency, LinkKind::Tier1);
    t.set_param("spines", std::to_string(up));
  } else {
    const int tors_per_pod = p.radix / 2;
    const int pods = (tors + tors_per_pod - 1) / tors_per_pod;
    const int cores_per_group = p.radix / 2;
    if (pods > p.radix)
      throw UserError(fmt::format("{} hosts need {} pods, but a core switch of radix {} reaches at most {} pods",
                                  p.hosts, pods, p.radix, p.radix));
    if (tors_per_pod + cores_per_group > p.radix)
      throw UserError("aggregation switches need more ports than the radix");
    std::vector<std::int32_t> tor(tors), agg(static_cast<std::size_t>(pods) * up),
        core(static_cast<std::size_t>(up) * cores_per_group);
    for (int i = 0; i < tors; ++i) tor[i] = t.add_switch(fmt::format("tor{}", i), i / tors_per_pod, 1);
    for (int pd = 0; pd < pods; ++pd)
      for (int j = 0; j < up; ++j)
        agg[static_cast<std::size_t>(pd) * up + j] = t.add_switch(fmt::format("agg{}_{}", pd, j), pd, 2);
    for (int j = 0; j < up; ++j)
      for (int c = 0; c < cores_per_group; ++c)
        core[static_cast<std::size_t>(j) * cores_per_group + c] = t.add_switch(fmt::format("core{}_{}", j, c), -1, 3);
    for (int h = 0; h < p.hosts; ++h) t.connect(h, tor[h / hpt], p.host_rate, p.host_latency, LinkKind::HostLink);
    for (int i = 0; i < tors; ++i) {
      const int pd = i / tors_per_pod;
      for (int j = 0; j < up; ++j)
        t.connect(tor[i], agg[static_cast<std::size_t>(pd) * up + j], p.tier1_rate, p.tier1_latency, LinkKind::Tier1);
    }
    for (int pd = 0; pd < pods; ++pd)
      for (int j = 0; j < up; ++j)
        for (int c = 0; c < cores_per_group; ++c)
          t.connect(agg[static_cast<std::size_t>(pd) * up + j], core[static_cast<std::size_t>(j) * cores_per_group + c],
                    p.tier2_rate, p.tier2_latency, LinkKind::Tier2);
    t.set_param("pods", std::to_string(pods));
    t.set_param("aggregation_per_pod", std::to_string(up));
    t.set_param("cores", std::to_string(up * cores_per_group));
  }
  t.set_param("tiers", std::to_string(p.tiers));
  t.set_param("radix", std::to_string(p.radix));
  t.set_param("hosts_per_tor", std::to_string(hpt));
  t.set_param("tor_uplinks", std::to_string(up));
  t.set_param("oversubscription", fmt::format("{}:1", p.oversubscription));
  t.set_param("tors", std::to_string(tors));
  return t;
}

FatTreeParams fat_tree_params(const config::Config& c) {
  FatTreeParams p;
  p.hosts = static_cast<int>(c.integer("topology.hosts"));
  p.tiers = static_cast<int>(c.integer("topology.tiers"));
  p.radix = static_cast<int>(c.integer("topology.radix"));
  p.hosts_per_tor = static_cast<int>(c.integer("topology.hosts_per_tor"));
  p.oversubscription = static_cast<int>(c.integer("topology.oversubscription"));
  p.host_rate = rate_gbps(c.real("topology.host_rate_gbps"));
  p.tier1_rate = rate_gbps(c.real("topology.tier1_rate_gbps"));
  p.tier2_rate = rate_gbps(c.real("topology.tier2_rate_gbps"));
  p.host_latency = from_ns(c.real("topology.host_latency_ns"));
  p.tier1_latency = from_ns(c.real("topology.tier1_latency_ns"));
  p.tier2_latency = from_ns(c.real("topology.tier2_latency_ns"));
  return p;
}

namespace {
// The fat tree's size from its keys (the memory guard; build_fat_tree checks the combination).
TopologySize fat_tree_size(const config::Config& c) {
  const double hosts = static_cast<double>(c.integer("topology.hosts"));
  const double radix = static_cast<double>(c.integer("topology.radix"));
  const double hpt = c.integer("topology.hosts_per_tor") > 0 ? static_cast<double>(c.integer("topology.hosts_per_tor"))
                                                             : std::floor(radix / 2);
  const double up = std::max(1.0, std::floor(hpt / static_cast<double>(c.integer("topology.oversubscription"))));
  const double tors = std::ceil(hosts / std::max(1.0, hpt));
  TopologySize s;
  s.hosts = hosts;
  s.host_rate_bps = static_cast<double>(fat_tree_params(c).host_rate);
  s.keys = "topology.hosts, topology.radix, topology.tiers";
  double row_hops = 0;  // sum over switches of (next hops towards a typical destination)
  if (c.integer("topology.tiers") == 2) {
    s.switches = tors + up;
    s.links = hosts + tors * up;
    row_hops = tors * up + up;  // a ToR spreads over its uplinks, a spine has one way down
  } else {
    const double tpp = std::floor(radix / 2), cpg = std::floor(radix / 2);
    const double pods = std::ceil(tors / std::max(1.0, tpp));
    const double aggs = pods * up, cores = up * cpg;
    s.switches = tors + aggs + cores;
    s.links = hosts + tors * up + aggs * cpg;
    row_hops = tors * up + aggs * cpg + cores;  // up-ports on the way up, one down-port on the way down
  }
  s.next_hops = std::max(1.0, row_hops / std::max(1.0, s.switches));
  return s;
}

using namespace config;
const RegisterTopology kFatTree{
    {{"fat_tree",
      "2- or 3-tier fat tree with r:1 oversubscription and per-tier rates ([REPS] sec. 4.1).",
      {
          integer("topology.hosts", 128, "hosts", "Fat tree: number of hosts (endpoints).").range(2, 1e7),
          integer("topology.tiers", 2, "", "Fat tree: 2 (ToR + spine) or 3 (ToR + aggregation + core, in pods).")
              .range(2, 3),
          integer("topology.radix", 16, "ports", "Fat tree: switch port count k.").range(2, 4096),
          integer("topology.hosts_per_tor", 0, "hosts", "Fat tree: hosts per ToR; 0 = radix/2.").range(0, 4096),
          integer("topology.oversubscription", 1, "r in r:1",
                  "Fat tree: ToR oversubscription; ToR uplinks = hosts_per_tor / r.")
              .range(1, 4096),
          real("topology.host_rate_gbps", 400, "Gb/s", "Fat tree: rate of host links (NIC).").range(1e-3, 1e6),
          real("topology.tier1_rate_gbps", 400, "Gb/s", "Fat tree: rate of ToR-aggregation (T0-T1) links.")
              .range(1e-3, 1e6),
          real("topology.tier2_rate_gbps", 400, "Gb/s", "Fat tree: rate of aggregation-core (T1-T2) links.")
              .range(1e-3, 1e6),
          real("topology.tier1_latency_ns", 500, "ns", "Fat tree: latency of T0-T1 links.").range(0, 1e9),
          real("topology.tier2_latency_ns", 500, "ns", "Fat tree: latency of T1-T2 links.").range(0, 1e9),
      },
      {"topology.hosts=4", "topology.radix=4"}},
     [](const Config& c) { return build_fat_tree(fat_tree_params(c)); },
     &fat_tree_size}};
}  // namespace

}  // namespace lbsim::topo
