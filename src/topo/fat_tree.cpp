#include "topo/fat_tree.h"

#include <string>

#include <fmt/core.h>

#include "core/error.h"

namespace lbsim::topo {

Topology build_fat_tree(const FatTreeParams& p) {
  if (p.tiers != 2 && p.tiers != 3)
    throw UserError(fmt::format("topology.tiers = {}: a fat tree has 2 or 3 tiers", p.tiers));
  if (p.radix < 2 || p.radix % 2)
    throw UserError(fmt::format("topology.radix = {}: expected an even number >= 2", p.radix));
  if (p.hosts < 2) throw UserError(fmt::format("topology.hosts = {}: expected at least 2", p.hosts));
  const int hpt = p.hosts_per_tor > 0 ? p.hosts_per_tor : p.radix / 2;
  if (p.oversubscription < 1 || hpt % p.oversubscription)
    throw UserError(fmt::format(
        "topology.oversubscription = {}: must be >= 1 and divide the {} hosts per ToR",
        p.oversubscription, hpt));
  const int up = hpt / p.oversubscription;
  if (hpt + up > p.radix)
    throw UserError(fmt::format("a ToR with {} hosts and {} uplinks needs {} ports, radix is {}",
                                hpt, up, hpt + up, p.radix));
  const int tors = (p.hosts + hpt - 1) / hpt;

  Topology t;
  t.kind = "fat_tree";
  for (int h = 0; h < p.hosts; ++h) t.add_host(fmt::format("h{}", h));

  if (p.tiers == 2) {
    if (tors > p.radix)
      throw UserError(fmt::format(
          "{} hosts need {} ToRs, but a spine of radix {} reaches at most {} ToRs (use tiers = 3 or a "
          "larger radix)", p.hosts, tors, p.radix, p.radix));
    std::vector<std::int32_t> tor(tors), spine(up);
    for (int i = 0; i < tors; ++i) tor[i] = t.add_switch(fmt::format("tor{}", i), i, 1);
    for (int j = 0; j < up; ++j) spine[j] = t.add_switch(fmt::format("spine{}", j), -1, 2);
    for (int h = 0; h < p.hosts; ++h)
      t.connect(h, tor[h / hpt], p.host_rate, p.host_latency, LinkKind::HostLink);
    for (int i = 0; i < tors; ++i)
      for (int j = 0; j < up; ++j) t.connect(tor[i], spine[j], p.tier1_rate, p.tier1_latency, LinkKind::Tier1);
    t.set_param("spines", std::to_string(up));
  } else {
    const int tors_per_pod = p.radix / 2;
    const int pods = (tors + tors_per_pod - 1) / tors_per_pod;
    const int cores_per_group = p.radix / 2;
    if (pods > p.radix)
      throw UserError(fmt::format(
          "{} hosts need {} pods, but a core switch of radix {} reaches at most {} pods",
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
        core[static_cast<std::size_t>(j) * cores_per_group + c] =
            t.add_switch(fmt::format("core{}_{}", j, c), -1, 3);
    for (int h = 0; h < p.hosts; ++h)
      t.connect(h, tor[h / hpt], p.host_rate, p.host_latency, LinkKind::HostLink);
    for (int i = 0; i < tors; ++i) {
      const int pd = i / tors_per_pod;
      for (int j = 0; j < up; ++j)
        t.connect(tor[i], agg[static_cast<std::size_t>(pd) * up + j], p.tier1_rate, p.tier1_latency,
                  LinkKind::Tier1);
    }
    for (int pd = 0; pd < pods; ++pd)
      for (int j = 0; j < up; ++j)
        for (int c = 0; c < cores_per_group; ++c)
          t.connect(agg[static_cast<std::size_t>(pd) * up + j],
                    core[static_cast<std::size_t>(j) * cores_per_group + c], p.tier2_rate,
                    p.tier2_latency, LinkKind::Tier2);
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

}  // namespace lbsim::topo
