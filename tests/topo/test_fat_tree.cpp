// The 3-level fat trees of [Flowcut] sec. III-B1 (examples/flowcut/fat_tree_1024*.toml) from the
// fat_tree generator: switch counts per tier, link counts per class, ports per switch, pods.
#include <gtest/gtest.h>

#include <map>

#include "topo/fat_tree.h"

namespace lbsim::topo {
namespace {

struct Counts {
  std::map<int, int> switches_per_tier;              // tier -> switches
  std::map<LinkKind, int> links;                     // class -> links
  std::map<int, std::map<int, int>> ports_per_tier;  // tier -> port count -> switches
  std::map<int, int> tors_per_pod;
};

Counts count(const Topology& t) {
  Counts c;
  for (std::int32_t n = t.num_hosts; n < t.size(); ++n) {
    const auto& node = t.nodes[static_cast<std::size_t>(n)];
    ++c.switches_per_tier[node.tier];
    ++c.ports_per_tier[node.tier][static_cast<int>(t.ports[static_cast<std::size_t>(n)].size())];
    if (node.tier == 1) ++c.tors_per_pod[node.group];
  }
  for (const auto& l : t.links) ++c.links[l.kind];
  return c;
}

FatTreeParams paper(int oversubscription) {
  FatTreeParams p;
  p.hosts = 1024;
  p.tiers = 3;
  p.radix = 16;
  p.hosts_per_tor = 8;
  p.oversubscription = oversubscription;
  return p;
}

TEST(FatTree, FlowcutNonBlocking) {
  // "16 pods with a total of 128 ToR switches and 128 aggregation switches ... a total of 64 core
  // switches": 8 hosts + 8 uplinks per ToR, 8 ToRs + 8 aggregation switches per pod.
  const auto t = build_fat_tree(paper(1));
  EXPECT_EQ(t.num_hosts, 1024);
  const auto c = count(t);
  EXPECT_EQ(c.switches_per_tier, (std::map<int, int>{{1, 128}, {2, 128}, {3, 64}}));
  EXPECT_EQ(c.links.at(LinkKind::HostLink), 1024);
  EXPECT_EQ(c.links.at(LinkKind::Tier1), 128 * 8);  // every ToR to the 8 aggregation switches of its pod
  EXPECT_EQ(c.links.at(LinkKind::Tier2), 128 * 8);  // every aggregation switch to 8 cores
  // Every switch uses all 16 ports; a core reaches every one of the 16 pods once.
  EXPECT_EQ(c.ports_per_tier.at(1), (std::map<int, int>{{16, 128}}));
  EXPECT_EQ(c.ports_per_tier.at(2), (std::map<int, int>{{16, 128}}));
  EXPECT_EQ(c.ports_per_tier.at(3), (std::map<int, int>{{16, 64}}));
  EXPECT_EQ(c.tors_per_pod.size(), 16u);
  for (const auto& [pod, n] : c.tors_per_pod) EXPECT_EQ(n, 8) << "pod " << pod;
}

TEST(FatTree, FlowcutTwoToOne) {
  // "ToR switches have less (half) up-links": 8 hosts and 4 uplinks per ToR, so 4 aggregation
  // switches per pod and 4 core groups of 8; the upper tiers stay non-blocking.
  const auto t = build_fat_tree(paper(2));
  const auto c = count(t);
  EXPECT_EQ(c.switches_per_tier, (std::map<int, int>{{1, 128}, {2, 64}, {3, 32}}));
  EXPECT_EQ(c.links.at(LinkKind::HostLink), 1024);
  EXPECT_EQ(c.links.at(LinkKind::Tier1), 128 * 4);
  EXPECT_EQ(c.links.at(LinkKind::Tier2), 64 * 8);
  EXPECT_EQ(c.ports_per_tier.at(1), (std::map<int, int>{{12, 128}}));  // 8 down + 4 up
  EXPECT_EQ(c.ports_per_tier.at(2), (std::map<int, int>{{16, 64}}));   // 8 down + 8 up
  EXPECT_EQ(c.ports_per_tier.at(3), (std::map<int, int>{{16, 32}}));   // one per pod
  // Host-to-core capacity is half the host capacity.
  EXPECT_EQ(c.links.at(LinkKind::Tier1) * 2, c.links.at(LinkKind::HostLink));
}

}  // namespace
}  // namespace lbsim::topo
