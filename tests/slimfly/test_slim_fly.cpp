// Slim Fly / MMS construction ([SlimFly] sec. 2, 3.2, App. A; [Spritz] Table II).
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "core/error.h"
#include "topo/galois.h"
#include "topo/slim_fly.h"

using namespace lbsim;
using namespace lbsim::topo;

namespace {

// Max BFS distance over the MMS adjacency (independent of Topology's helpers).
int mms_diameter(const MmsGraph& g) {
  const int n = g.num_switches();
  int diam = 0;
  std::vector<int> dist(static_cast<std::size_t>(n));
  std::vector<int> queue;
  for (int s = 0; s < n; ++s) {
    std::fill(dist.begin(), dist.end(), -1);
    queue.assign(1, s);
    dist[static_cast<std::size_t>(s)] = 0;
    for (std::size_t h = 0; h < queue.size(); ++h)
      for (int v : g.adj[static_cast<std::size_t>(queue[h])])
        if (dist[static_cast<std::size_t>(v)] < 0) {
          dist[static_cast<std::size_t>(v)] = dist[static_cast<std::size_t>(queue[h])] + 1;
          queue.push_back(v);
        }
    for (int d : dist) {
      if (d < 0) return -1;
      diam = std::max(diam, d);
    }
  }
  return diam;
}

// Length of the shortest cycle (BFS from every vertex; undirected simple graph).
int girth(const MmsGraph& g) {
  const int n = g.num_switches();
  int best = 1 << 30;
  for (int s = 0; s < n; ++s) {
    std::vector<int> dist(static_cast<std::size_t>(n), -1), parent(static_cast<std::size_t>(n), -1);
    std::vector<int> queue{s};
    dist[static_cast<std::size_t>(s)] = 0;
    for (std::size_t h = 0; h < queue.size(); ++h) {
      const int u = queue[h];
      for (int v : g.adj[static_cast<std::size_t>(u)]) {
        if (dist[static_cast<std::size_t>(v)] < 0) {
          dist[static_cast<std::size_t>(v)] = dist[static_cast<std::size_t>(u)] + 1;
          parent[static_cast<std::size_t>(v)] = u;
          queue.push_back(v);
        } else if (parent[static_cast<std::size_t>(u)] != v) {
          best = std::min(best, dist[static_cast<std::size_t>(u)] + dist[static_cast<std::size_t>(v)] + 1);
        }
      }
    }
  }
  return best;
}

}  // namespace

TEST(GaloisField, PrimePowerDetection) {
  EXPECT_FALSE(prime_power(0));
  EXPECT_FALSE(prime_power(1));
  EXPECT_FALSE(prime_power(6));
  EXPECT_FALSE(prime_power(12));
  EXPECT_FALSE(prime_power(21));
  ASSERT_TRUE(prime_power(27));
  EXPECT_EQ(prime_power(27)->p, 3);
  EXPECT_EQ(prime_power(27)->n, 3);
  ASSERT_TRUE(prime_power(13));
  EXPECT_EQ(prime_power(13)->p, 13);
  EXPECT_EQ(prime_power(13)->n, 1);
  EXPECT_EQ(prime_power(64)->n, 6);
}

TEST(GaloisField, FieldAxiomsForPrimePowers) {
  for (int q : {2, 3, 4, 5, 8, 9, 16, 25, 27}) {
    SCOPED_TRACE(q);
    const GaloisField f(q);
    for (int a = 0; a < q; ++a) {
      EXPECT_EQ(f.add(a, 0), a);
      EXPECT_EQ(f.mul(a, 1), a);
      EXPECT_EQ(f.add(a, f.neg(a)), 0);
      if (a != 0) {
        // Every non-zero element has an inverse (no zero divisors: the integers mod 4, 8, 9 fail).
        int inverses = 0;
        for (int b = 1; b < q; ++b) inverses += f.mul(a, b) == 1;
        EXPECT_EQ(inverses, 1);
        // Lagrange: the order divides q-1.
        EXPECT_EQ((q - 1) % f.mult_order(a), 0);
      }
      for (int b = 0; b < q; ++b) {
        EXPECT_EQ(f.add(a, b), f.add(b, a));
        EXPECT_EQ(f.mul(a, b), f.mul(b, a));
        for (int c = 0; c < q; c += (q > 9 ? 3 : 1)) EXPECT_EQ(f.mul(a, f.add(b, c)), f.add(f.mul(a, b), f.mul(a, c)));
      }
    }
    EXPECT_EQ(f.mult_order(f.primitive_element()), q - 1);
    // Characteristic: adding 1 to itself p times gives 0.
    int s = 0;
    for (int i = 0; i < f.characteristic(); ++i) s = f.add(s, 1);
    EXPECT_EQ(s, 0);
  }
}

TEST(GaloisField, RejectsNonPrimePowers) {
  EXPECT_THROW(GaloisField(6), UserError);
  EXPECT_THROW(GaloisField(1), UserError);
}

TEST(SlimFly, PaperGeneratorSetsForQ5) {
  // App. A.2: Z_5, xi = 2, X = {1, 4}, X' = {2, 3}.
  const auto g = build_mms_graph(5);
  EXPECT_EQ(g.delta, 1);
  EXPECT_EQ(g.w, 1);
  EXPECT_EQ(g.xi, 2);
  EXPECT_EQ(g.X, (std::vector<int>{1, 4}));
  EXPECT_EQ(g.Xp, (std::vector<int>{2, 3}));
}

TEST(SlimFly, RegularDegreeDiameterTwoAndSize) {
  for (int q : {3, 4, 5, 7, 8, 9, 11, 13, 16, 17, 25, 27}) {
    SCOPED_TRACE(q);
    const auto g = build_mms_graph(q);
    EXPECT_EQ(q, 4 * g.w + g.delta);
    EXPECT_EQ(g.num_switches(), 2 * q * q);
    ASSERT_EQ(static_cast<int>(g.adj.size()), 2 * q * q);
    EXPECT_EQ(static_cast<int>(g.X.size()), (q - g.delta) / 2);
    EXPECT_EQ(static_cast<int>(g.Xp.size()), (q - g.delta) / 2);
    for (int u = 0; u < g.num_switches(); ++u) {
      const auto& a = g.adj[static_cast<std::size_t>(u)];
      EXPECT_EQ(static_cast<int>(a.size()), (3 * q - g.delta) / 2);
      // Simple graph: no loops, no parallel edges, symmetric.
      EXPECT_EQ(std::set<int>(a.begin(), a.end()).size(), a.size());
      for (int v : a) {
        EXPECT_NE(u, v);
        const auto& b = g.adj[static_cast<std::size_t>(v)];
        EXPECT_TRUE(std::binary_search(b.begin(), b.end(), u));
      }
    }
    EXPECT_EQ(g.degree(), (3 * q - g.delta) / 2);
    EXPECT_EQ(mms_diameter(g), 2);
  }
}

TEST(SlimFly, LabelIndexRoundTrip) {
  const auto g = build_mms_graph(7);
  for (int i = 0; i < g.num_switches(); ++i) {
    const auto l = g.label(i);
    EXPECT_EQ(g.index(l[0], l[1], l[2]), i);
  }
  EXPECT_EQ(g.label(g.index(1, 3, 6)), (std::array<int, 3>{1, 3, 6}));
}

TEST(SlimFly, Q5IsHoffmanSingleton) {
  // sec. 3.2 / App. A.1: 50 vertices, degree 7, a Moore graph of diameter 2: girth 5, adjacent
  // vertices share no neighbour and non-adjacent ones exactly one.
  const auto g = build_mms_graph(5);
  ASSERT_EQ(g.num_switches(), 50);
  EXPECT_EQ(g.degree(), 7);
  EXPECT_EQ(girth(g), 5);
  for (int u = 0; u < 50; ++u)
    for (int v = u + 1; v < 50; ++v) {
      const auto& a = g.adj[static_cast<std::size_t>(u)];
      const auto& b = g.adj[static_cast<std::size_t>(v)];
      std::vector<int> common;
      std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(common));
      const bool adjacent = std::binary_search(a.begin(), a.end(), v);
      EXPECT_EQ(common.size(), adjacent ? 0u : 1u) << u << " " << v;
    }
}

TEST(SlimFly, RejectsInvalidQ) {
  for (int q : {6, 10, 12, 14, 0, 1, 2, -5, 21}) {
    SCOPED_TRACE(q);
    try {
      build_mms_graph(q);
      ADD_FAILURE() << "q = " << q << " accepted";
    } catch (const UserError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("q = " + std::to_string(q)), std::string::npos) << msg;
    }
  }
  try {
    build_mms_graph(12);
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("not a prime power"), std::string::npos) << e.what();
  }
  try {
    build_mms_graph(10);
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("q % 4 == 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(build_slim_fly(SlimFlyParams{.q = 6}), UserError);
}

TEST(SlimFly, SpritzTableIIConfiguration) {
  // [Spritz] Table II: Slim Fly p = 7, q = 9 -> 1134 endpoints, 162 switches.
  SlimFlyParams prm;
  prm.q = 9;
  prm.p = 7;
  const Topology t = build_slim_fly(prm);
  EXPECT_EQ(t.num_switches(), 162);
  EXPECT_EQ(t.num_hosts, 1134);
  const auto st = graph_stats(t);
  EXPECT_EQ(st.min_degree, 13);
  EXPECT_EQ(st.max_degree, 13);
  EXPECT_EQ(st.diameter, 2);
  EXPECT_EQ(st.host_diameter, 4);  // host-switch, <= 2 switch hops, switch-host
}

TEST(SlimFly, DeployedClusterDefaults) {
  // sec. 3.1/3.2: q = 5, p = ceil(7/2) = 4 -> 50 switches, 200 endpoints.
  const Topology t = build_slim_fly(SlimFlyParams{});
  EXPECT_EQ(t.kind, "slim_fly");
  EXPECT_EQ(t.num_switches(), 50);
  EXPECT_EQ(t.num_hosts, 200);
  auto param = [&](const std::string& k) {
    for (const auto& kv : t.params)
      if (kv.first == k) return kv.second;
    return std::string("<missing>");
  };
  EXPECT_EQ(param("q"), "5");
  EXPECT_EQ(param("delta"), "1");
  EXPECT_EQ(param("w"), "1");
  EXPECT_EQ(param("k'"), "7");
  EXPECT_EQ(param("p"), "4");
  EXPECT_EQ(param("switches"), "50");
  EXPECT_EQ(param("hosts"), "200");
}

TEST(SlimFly, TopologyMatchesMmsAndPortLayout) {
  for (int q : {4, 5, 7, 9}) {
    SCOPED_TRACE(q);
    const auto g = build_mms_graph(q);
    SlimFlyParams prm;
    prm.q = q;
    const Topology t = build_slim_fly(prm);
    const int p = (g.degree() + 1) / 2;
    const int nx = (q - g.delta) / 2;  // |X| = |X'|
    ASSERT_EQ(t.num_switches(), 2 * q * q);
    ASSERT_EQ(t.num_hosts, 2 * q * q * p);
    std::vector<int> per_rack_pair(static_cast<std::size_t>(q * q), 0);
    for (int s = 0; s < t.num_switches(); ++s) {
      const int node = t.switch_node(s);
      const auto l = g.label(s);
      EXPECT_EQ(t.nodes[static_cast<std::size_t>(node)].label,
                "sw(" + std::to_string(l[0]) + "," + std::to_string(l[1]) + "," + std::to_string(l[2]) + ")");
      EXPECT_EQ(t.nodes[static_cast<std::size_t>(node)].group, l[1]);  // rack
      const auto& ports = t.ports[static_cast<std::size_t>(node)];
      ASSERT_EQ(static_cast<int>(ports.size()), p + g.degree());
      // Hosts first, in switch order.
      for (int j = 0; j < p; ++j) EXPECT_EQ(ports[static_cast<std::size_t>(j)].peer, s * p + j);
      // Switch neighbours are exactly the MMS neighbours.
      std::vector<int> nb;
      for (int j = p; j < static_cast<int>(ports.size()); ++j)
        nb.push_back(t.switch_index(ports[static_cast<std::size_t>(j)].peer));
      std::vector<int> sorted = nb;
      std::sort(sorted.begin(), sorted.end());
      EXPECT_EQ(sorted, g.adj[static_cast<std::size_t>(s)]);
      // Intra-subgroup block (same s, same rack) sorted by peer, then the same-rack cross link.
      for (int j = 0; j < nx; ++j) {
        const auto pl = g.label(nb[static_cast<std::size_t>(j)]);
        EXPECT_EQ(pl[0], l[0]);
        EXPECT_EQ(pl[1], l[1]);
        if (j > 0) {
          EXPECT_LT(nb[static_cast<std::size_t>(j - 1)], nb[static_cast<std::size_t>(j)]);
        }
      }
      const auto cross = g.label(nb[static_cast<std::size_t>(nx)]);
      EXPECT_NE(cross[0], l[0]);
      EXPECT_EQ(cross[1], l[1]);
      // Then one port per other rack, in increasing rack order.
      int expect_rack = 0;
      for (int j = nx + 1; j < g.degree(); ++j) {
        if (expect_rack == l[1]) ++expect_rack;
        const auto pl = g.label(nb[static_cast<std::size_t>(j)]);
        EXPECT_EQ(pl[1], expect_rack);
        EXPECT_NE(pl[0], l[0]);
        ++expect_rack;
      }
    }
    for (const auto& lk : t.links) {
      if (t.is_host(lk.a) || t.is_host(lk.b)) {
        EXPECT_EQ(lk.kind, LinkKind::HostLink);
        EXPECT_EQ(lk.latency, ns(25));
        continue;
      }
      const int ra = t.nodes[static_cast<std::size_t>(lk.a)].group;
      const int rb = t.nodes[static_cast<std::size_t>(lk.b)].group;
      EXPECT_EQ(lk.kind, ra == rb ? LinkKind::Local : LinkKind::Global);
      EXPECT_EQ(lk.latency, ra == rb ? ns(25) : ns(500));
      EXPECT_EQ(lk.rate, gbps(400));
      if (ra != rb) ++per_rack_pair[static_cast<std::size_t>(std::min(ra, rb) * q + std::max(ra, rb))];
    }
    // sec. 3.2: every two racks are joined by 2q cables.
    for (int a = 0; a < q; ++a)
      for (int b = a + 1; b < q; ++b) EXPECT_EQ(per_rack_pair[static_cast<std::size_t>(a * q + b)], 2 * q);
  }
}

TEST(SlimFly, SuggestSizes) {
  // App. A.5. 200 endpoints -> the deployed q = 5 cluster; 1134 -> Table II's q = 9.
  auto s = suggest_slim_fly(200);
  ASSERT_FALSE(s.empty());
  EXPECT_EQ(s[0].q, 5);
  EXPECT_EQ(s[0].hosts, 200);
  EXPECT_EQ(s[0].switches, 50);
  EXPECT_EQ(s[0].k_prime, 7);
  EXPECT_EQ(s[0].p, 4);
  EXPECT_EQ(s[0].radix, 11);
  s = suggest_slim_fly(1134, 3);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].q, 9);
  EXPECT_EQ(s[0].hosts, 1134);
  for (const auto& c : s) {
    EXPECT_TRUE(valid_slim_fly_q(c.q));
    EXPECT_EQ(c.hosts, c.switches * c.p);
  }
  // 2048 endpoints (Table 4's fixed cluster): q = 11 gives 2178, the closest valid size.
  s = suggest_slim_fly(2048);
  EXPECT_EQ(s[0].q, 11);
  EXPECT_EQ(s[0].hosts, 2178);
  // Sorted by distance to the request.
  for (std::size_t i = 1; i < s.size(); ++i) EXPECT_LE(std::abs(s[i - 1].hosts - 2048), std::abs(s[i].hosts - 2048));
  // 1000 endpoints: q = 9 (1134) is closest; q = 4 (96) is closer than q = 11 (2178) but the
  // smallest network with >= 1000 endpoints (q = 9) is always included.
  s = suggest_slim_fly(1000, 2);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].q, 9);
  EXPECT_EQ(s[1].q, 8);
  s = suggest_slim_fly(1200, 2);  // closest are 9 (1134) and 8 (768); 11 (2178) is the first >= 1200
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].q, 9);
  EXPECT_EQ(s[1].q, 11);
  EXPECT_THROW(suggest_slim_fly(0), UserError);
}

TEST(SlimFly, TooLargeIsAUserErrorBeforeAllocating) {
  // q = 1021 is a valid prime (1021 % 4 = 1) but 2 million switches with 1.6 billion hosts cannot be
  // built: a clear error instead of std::bad_alloc.
  lbsim::topo::SlimFlyParams prm;
  prm.q = 1021;
  try {
    lbsim::topo::build_slim_fly(prm);
    FAIL() << "no error";
  } catch (const lbsim::UserError& e) {
    EXPECT_NE(std::string(e.what()).find("lbsim scale"), std::string::npos) << e.what();
  }
  EXPECT_THROW(lbsim::topo::build_mms_graph(1021), lbsim::UserError);
  prm.q = 5;
  EXPECT_EQ(lbsim::topo::build_slim_fly(prm).num_switches(), 50);
}
