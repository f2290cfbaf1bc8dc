// The shared breadth-first search (topo/graph.h) on small hand-made graphs.
#include <gtest/gtest.h>

#include <span>
#include <vector>

#include "core/rng.h"
#include "topo/graph.h"

namespace lbsim::topo {
namespace {

std::vector<std::int32_t> vec(std::span<const std::int32_t> s) { return {s.begin(), s.end()}; }

// A square 0-1-3-2-0 with a tail 3-4 (3 is two hops from 0 both through 1 and through 2), and a
// separate component 5-6.
AdjacencyLists sample_graph() { return {{1, 2}, {0, 3}, {0, 3}, {1, 2, 4}, {3}, {6}, {5}}; }

void run_lists(Bfs& bfs, const AdjacencyLists& adj, std::int32_t source) {
  bfs.run(source, [&](std::int32_t u, auto&& reach) {
    for (auto v : adj[static_cast<std::size_t>(u)]) reach(v, u);
  });
}

TEST(Bfs, DistancesParentsAndOrder) {
  const auto adj = sample_graph();
  Bfs bfs(7);
  run_lists(bfs, adj, 0);
  EXPECT_EQ(vec(bfs.dist()), (std::vector<std::int32_t>{0, 1, 1, 2, 3, -1, -1}));
  // 3 ties between 1 and 2; 1 is listed (so dequeued) first and its edge reaches 3 first.
  EXPECT_EQ(vec(bfs.parent()), (std::vector<std::int32_t>{-1, 0, 0, 1, 3, -1, -1}));
  EXPECT_EQ(vec(bfs.order()), (std::vector<std::int32_t>{0, 1, 2, 3, 4}));
}

TEST(Bfs, NeighbourOrderDecidesTies) {
  auto adj = sample_graph();
  adj[0] = {2, 1};
  Bfs bfs(7);
  run_lists(bfs, adj, 0);
  EXPECT_EQ(vec(bfs.order()), (std::vector<std::int32_t>{0, 2, 1, 3, 4}));
  EXPECT_EQ(bfs.parent()[3], 2);
}

TEST(Bfs, UnreachableNodesAndReuse) {
  const auto adj = sample_graph();
  Bfs bfs(7);
  run_lists(bfs, adj, 0);
  // A second run from the other component must not see anything of the first one.
  run_lists(bfs, adj, 6);
  EXPECT_EQ(vec(bfs.dist()), (std::vector<std::int32_t>{-1, -1, -1, -1, -1, 1, 0}));
  EXPECT_EQ(vec(bfs.parent()), (std::vector<std::int32_t>{-1, -1, -1, -1, -1, 6, -1}));
  EXPECT_EQ(vec(bfs.order()), (std::vector<std::int32_t>{6, 5}));
  // Back to the first component: the same answer as a fresh object's.
  run_lists(bfs, adj, 3);
  Bfs fresh(7);
  run_lists(fresh, adj, 3);
  EXPECT_EQ(vec(bfs.dist()), (std::vector<std::int32_t>{2, 1, 1, 0, 1, -1, -1}));
  EXPECT_EQ(vec(bfs.dist()), vec(fresh.dist()));
  EXPECT_EQ(vec(bfs.parent()), vec(fresh.parent()));
  EXPECT_EQ(vec(bfs.order()), vec(fresh.order()));
}

TEST(Bfs, AllPairsDistances) {
  const auto d = all_pairs_distances(sample_graph());
  ASSERT_EQ(d.size(), 49u);
  EXPECT_EQ(d[0 * 7 + 4], 3);
  EXPECT_EQ(d[4 * 7 + 0], 3);
  EXPECT_EQ(d[1 * 7 + 2], 2);
  EXPECT_EQ(d[5 * 7 + 6], 1);
  EXPECT_EQ(d[2 * 7 + 6], -1);
  EXPECT_EQ(d[6 * 7 + 2], -1);
  for (std::size_t i = 0; i < 7; ++i) EXPECT_EQ(d[i * 7 + i], 0);
  EXPECT_TRUE(all_pairs_distances({}).empty());
}

// switch_bfs: switch indices as nodes, ports in port order, hosts skipped, a link filter, and the
// link that reached each switch as parent.
TEST(Bfs, SwitchBfsFollowsPortsAndFilter) {
  Topology t;
  const auto h0 = t.add_host("h0");
  const auto a = t.add_switch("a"), b = t.add_switch("b"), c = t.add_switch("c"), x = t.add_switch("x");
  t.connect(h0, a, 1, 0, LinkKind::HostLink);
  const auto ab = t.connect(a, b, 1, 0, LinkKind::Local);
  const auto ac = t.connect(a, c, 1, 0, LinkKind::Global);
  const auto bc = t.connect(b, c, 1, 0, LinkKind::Local);
  (void)x;  // no links: unreachable
  Bfs bfs(t.num_switches());
  switch_bfs(t, t.switch_index(a), bfs, [](const Link&) { return true; });
  EXPECT_EQ(vec(bfs.dist()), (std::vector<std::int32_t>{0, 1, 1, -1}));
  EXPECT_EQ(vec(bfs.parent()), (std::vector<std::int32_t>{-1, ab, ac, -1}));
  // Without global links c is two local hops away, reached over b-c.
  switch_bfs(t, t.switch_index(a), bfs, [](const Link& l) { return l.kind != LinkKind::Global; });
  EXPECT_EQ(vec(bfs.dist()), (std::vector<std::int32_t>{0, 1, 2, -1}));
  EXPECT_EQ(vec(bfs.parent()), (std::vector<std::int32_t>{-1, ab, bc, -1}));
  // switch_distances is built on it.
  const auto sd = switch_distances(t);
  EXPECT_EQ(sd[0], (std::vector<std::int32_t>{0, 1, 1, -1}));
  EXPECT_EQ(sd[3], (std::vector<std::int32_t>{-1, -1, -1, 0}));
}

// The bit-parallel search of up to 32 sources gives every source's Bfs distances: on the sample
// graph (two components, hand-checked) and on random sparse graphs with isolated switches and
// paths longer than a few hops, with full blocks of 32, partial blocks, repeated sources and a
// stride wider than the block (columns past the sources untouched).
TEST(BlockBfs, SameHopsAsOneBfsPerSource) {
  auto rows_of = [](const AdjacencyLists& adj) {
    SwitchRows g;
    g.off.push_back(0);
    for (const auto& a : adj) {
      g.nbr.insert(g.nbr.end(), a.begin(), a.end());
      g.off.push_back(static_cast<std::int32_t>(g.nbr.size()));
    }
    return g;
  };
  {
    const auto g = rows_of(sample_graph());
    BlockBfs bb(7);
    const std::vector<std::int32_t> src = {0, 5};
    std::vector<std::int32_t> hops(7 * 3, 99);
    bb.run(g, src, hops.data(), 3);
    for (std::size_t u = 0; u < 7; ++u) {
      EXPECT_EQ(hops[u * 3], (std::vector<std::int32_t>{0, 1, 1, 2, 3, -1, -1})[u]) << u;
      EXPECT_EQ(hops[u * 3 + 1], (std::vector<std::int32_t>{-1, -1, -1, -1, -1, 0, 1})[u]) << u;
      EXPECT_EQ(hops[u * 3 + 2], 99) << u;
    }
  }
  Rng rng(11, 3);
  for (int trial = 0; trial < 6; ++trial) {
    const std::size_t n = 40 + rng.next() % 120;
    AdjacencyLists adj(n);
    const std::size_t edges = n + rng.next() % (2 * n);
    for (std::size_t e = 0; e < edges; ++e) {
      const auto a = static_cast<std::int32_t>(rng.next() % (n - 3)),
                 b = static_cast<std::int32_t>(rng.next() % (n - 3));
      adj[static_cast<std::size_t>(a)].push_back(b);  // the last 3 stay isolated
      adj[static_cast<std::size_t>(b)].push_back(a);
    }
    const auto g = rows_of(adj);
    BlockBfs bb(n);
    Bfs bfs(static_cast<std::int32_t>(n));
    for (const std::size_t nb : {std::size_t{32}, std::size_t{1}, std::size_t{17}}) {
      std::vector<std::int32_t> src(nb);
      for (auto& s : src) s = static_cast<std::int32_t>(rng.next() % n);
      if (nb > 1) src[1] = src[0];
      const std::size_t stride = 32;
      std::vector<std::int32_t> hops(n * stride, 99);
      bb.run(g, src, hops.data(), stride);
      for (std::size_t k = 0; k < nb; ++k) {
        run_lists(bfs, adj, src[k]);
        for (std::size_t u = 0; u < n; ++u)
          ASSERT_EQ(hops[u * stride + k], bfs.dist()[u]) << "trial " << trial << " source " << k << " switch " << u;
      }
      for (std::size_t u = 0; u < n; ++u)
        for (std::size_t k = nb; k < stride; ++k) ASSERT_EQ(hops[u * stride + k], 99);
    }
  }
}

}  // namespace
}  // namespace lbsim::topo
