#include "topo/slim_fly.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>

#include <fmt/core.h>

#include "core/error.h"
#include "topo/registry.h"
#include "topo/galois.h"

namespace lbsim::topo {

namespace {

std::string why_invalid(int q) {
  if (q < 2) return fmt::format("q = {} is too small (the smallest Slim Fly has q = 3)", q);
  std::string why;
  if (!prime_power(q))
    why = fmt::format(
        "q = {} is not a prime power (the MMS construction needs the finite field "
        "GF(q), [SlimFly] App. A.1/A.2)",
        q);
  if (q % 4 == 2)
    why += fmt::format(
        "{}q = {} has q % 4 == 2, so q = 4w + delta has no delta in {{-1, 0, 1}} "
        "(App. A.1)",
        why.empty() ? "" : "; and ", q);
  if (!why.empty()) {
    // Point the user at the nearest valid sizes (App. A.5 wants a prime power near the target).
    int lo = q - 1, hi = q + 1;
    while (lo >= 3 && !(prime_power(lo) && lo % 4 != 2)) --lo;
    while (!(prime_power(hi) && hi % 4 != 2)) ++hi;
    why += lo >= 3 ? fmt::format("; nearest valid q: {} or {}", lo, hi) : fmt::format("; nearest valid q: {}", hi);
  }
  return why;
}

}  // namespace

bool valid_slim_fly_q(int q) { return why_invalid(q).empty(); }

int slim_fly_delta(int q) {
  if (auto w = why_invalid(q); !w.empty()) throw UserError("slim_fly: " + w);
  switch (q % 4) {
    case 0:
      return 0;
    case 1:
      return 1;
    default:
      return -1;  // q % 4 == 3
  }
}

int MmsGraph::degree() const { return (3 * q - delta) / 2; }

std::array<int, 3> MmsGraph::label(int idx) const { return {idx / (q * q), (idx / q) % q, idx % q}; }

int MmsGraph::index(int s, int x, int y) const { return s * q * q + x * q + y; }

// Generator sets (Besta & Hoefler SC'14 sec. 3.1; [SlimFly] App. A.2 shows the
// delta = 1 case). With xi primitive and q = 4w + delta:
//   delta = +1: X = {xi^0, xi^2, ..., xi^(q-3)}                        (even powers)
//               X' = {xi^1, xi^3, ..., xi^(q-2)}                       (odd powers)
//   delta =  0: X = {xi^0, xi^2, ..., xi^(4w-2)}                       (q even, char 2)
//               X' = {xi^1, xi^3, ..., xi^(4w-1)}
//   delta = -1: X = {xi^0, xi^2, ..., xi^(2w-2), xi^(2w-1), xi^(2w+1), ..., xi^(4w-3)}
//               X' = {xi^1, xi^3, ..., xi^(2w-1), xi^(2w), xi^(2w+2), ..., xi^(4w-2)}
// |X| = |X'| = (q - delta)/2, and both sets are closed under negation (-1 = xi^((q-1)/2) for odd q;
// -a = a in characteristic 2), so equations (1) and (2) define undirected edges.
namespace {
// Size limits checked before anything is allocated: the MMS graph's adjacency lists (2q^2 switches
// of degree k' ~ 3q/2) and the simulator topology (switches + hosts as nodes). Beyond them the
// builders would die with std::bad_alloc; `lbsim scale` sizes systems of any q without building them.
constexpr long long kMaxMmsAdjacencyEntries = 1LL << 27;  // ~ q <= 355
constexpr long long kMaxTopologyNodes = 1LL << 22;

long long mms_degree(int q, int delta) { return (3LL * q - delta) / 2; }
}  // namespace

MmsGraph build_mms_graph(int q) {
  MmsGraph g;
  g.delta = slim_fly_delta(q);  // throws with the reason for invalid q
  if (const long long entries = 2LL * q * q * mms_degree(q, g.delta); entries > kMaxMmsAdjacencyEntries)
    throw UserError(
        fmt::format("slim_fly: q = {} gives {} switches of degree {} ({} adjacency entries), more than the "
                    "{} this tool builds in memory; `lbsim scale` sizes such systems without building them",
                    q, 2LL * q * q, mms_degree(q, g.delta), entries, kMaxMmsAdjacencyEntries));
  g.q = q;
  g.w = (q - g.delta) / 4;
  const GaloisField f(q);
  g.xi = f.primitive_element();
  const int w = g.w;
  std::vector<int> ex, exp;  // exponents of xi in X and X'
  if (g.delta == 1) {
    for (int e = 0; e <= q - 3; e += 2) ex.push_back(e);
    for (int e = 1; e <= q - 2; e += 2) exp.push_back(e);
  } else if (g.delta == 0) {
    for (int e = 0; e <= 4 * w - 2; e += 2) ex.push_back(e);
    for (int e = 1; e <= 4 * w - 1; e += 2) exp.push_back(e);
  } else {
    for (int e = 0; e <= 2 * w - 2; e += 2) ex.push_back(e);
    for (int e = 2 * w - 1; e <= 4 * w - 3; e += 2) ex.push_back(e);
    for (int e = 1; e <= 2 * w - 1; e += 2) exp.push_back(e);
    for (int e = 2 * w; e <= 4 * w - 2; e += 2) exp.push_back(e);
  }
  for (int e : ex) g.X.push_back(f.pow(g.xi, e));
  for (int e : exp) g.Xp.push_back(f.pow(g.xi, e));
  std::sort(g.X.begin(), g.X.end());
  std::sort(g.Xp.begin(), g.Xp.end());

  std::vector<char> inX(static_cast<std::size_t>(q), 0), inXp(static_cast<std::size_t>(q), 0);
  for (int a : g.X) inX[static_cast<std::size_t>(a)] = 1;
  for (int a : g.Xp) inXp[static_cast<std::size_t>(a)] = 1;

  g.adj.assign(static_cast<std::size_t>(2 * q * q), {});
  for (int x = 0; x < q; ++x)
    for (int y = 0; y < q; ++y)
      for (int y2 = 0; y2 < q; ++y2) {
        if (y2 == y) continue;
        const int d = f.sub(y, y2);
        if (inX[static_cast<std::size_t>(d)]) g.adj[g.index(0, x, y)].push_back(g.index(0, x, y2));   // eq. (1)
        if (inXp[static_cast<std::size_t>(d)]) g.adj[g.index(1, x, y)].push_back(g.index(1, x, y2));  // eq. (2)
      }
  // Eq. (3): (0,x,y) ~ (1,m,c) iff y = m*x + c, i.e. for every (x, m, c) exactly one y.
  for (int x = 0; x < q; ++x)
    for (int m = 0; m < q; ++m)
      for (int c = 0; c < q; ++c) {
        const int y = f.add(f.mul(m, x), c);
        g.adj[g.index(0, x, y)].push_back(g.index(1, m, c));
        g.adj[g.index(1, m, c)].push_back(g.index(0, x, y));
      }
  for (auto& a : g.adj) std::sort(a.begin(), a.end());
  return g;
}

// Port layout (also the physical port layout of the cabling plan, analysis/cabling.h; physical port
// = topology port + 1): hosts first (ports 0..p-1), then the intra-subgroup links sorted by the
// peer's index in its subgroup, then the link to the other subgroup of the same rack, then one link
// per other rack in increasing rack order (sec. 3.3: "each switch in a rack uses the same port to
// connect to the switches in another rack"). Topology::connect numbers ports in call order, so the
// links are created in three phases whose orders give every switch exactly this sequence:
//  1. intra-subgroup edges in lexicographic (lower index, higher index) order — each switch then
//     sees its neighbours in increasing order;
//  2. the perfect matching between the two subgroups of each rack;
//  3. inter-rack edges ordered by (lower rack, higher rack) — a switch has one edge per other rack,
//     and this order visits its peers' racks in increasing order.
Topology build_slim_fly(const SlimFlyParams& prm) {
  {
    // Size check before building anything (the MMS graph alone can be too large).
    const int delta = slim_fly_delta(prm.q);
    const long long kp = mms_degree(prm.q, delta), ns = 2LL * prm.q * prm.q;
    const long long p = prm.p == -1 ? (kp + 1) / 2 : prm.p;
    if (p >= 0 && ns * (1 + p) > kMaxTopologyNodes)
      throw UserError(
          fmt::format("slim_fly: q = {}, p = {} gives {} switches and {} hosts ({} nodes), more than the {} "
                      "nodes this tool builds in memory; choose a smaller q (`lbsim scale --suggest N`) or "
                      "size the system with `lbsim scale`, which does not build it",
                      prm.q, p, ns, ns * p, ns * (1 + p), kMaxTopologyNodes));
  }
  const MmsGraph g = build_mms_graph(prm.q);
  const int kp = g.degree();
  const int p = prm.p == -1 ? (kp + 1) / 2 : prm.p;
  if (p < 0) throw UserError(fmt::format("slim_fly: p (hosts per switch) must be >= 0 or -1, got {}", prm.p));
  if (prm.rate <= 0) throw UserError("slim_fly: link rate must be positive");
  if (prm.host_latency < 0 || prm.local_latency < 0 || prm.global_latency < 0)
    throw UserError("slim_fly: link latencies must be >= 0");
  const int q = g.q;
  const int ns = g.num_switches();

  Topology t;
  t.kind = "slim_fly";
  for (int h = 0; h < ns * p; ++h) t.add_host(fmt::format("h{}", h));
  for (int s = 0; s < ns; ++s) {
    const auto l = g.label(s);
    t.add_switch(fmt::format("sw({},{},{})", l[0], l[1], l[2]), g.rack(s), 1);
  }
  for (int s = 0; s < ns; ++s)
    for (int j = 0; j < p; ++j) t.connect(s * p + j, t.switch_node(s), prm.rate, prm.host_latency, LinkKind::HostLink);

  // Phase 1: intra-subgroup links (same s, same rack).
  for (int u = 0; u < ns; ++u)
    for (int v : g.adj[u])
      if (v > u && g.label(u)[0] == g.label(v)[0])
        t.connect(t.switch_node(u), t.switch_node(v), prm.rate, prm.local_latency, LinkKind::Local);
  // Phase 2: the subgroup-0 / subgroup-1 link inside each rack.
  for (int u = 0; u < q * q; ++u)
    for (int v : g.adj[u])
      if (v >= q * q && g.rack(v) == g.rack(u))
        t.connect(t.switch_node(u), t.switch_node(v), prm.rate, prm.local_latency, LinkKind::Local);
  // Phase 3: inter-rack links, rack pair by rack pair.
  for (int ra = 0; ra < q; ++ra)
    for (int rb = ra + 1; rb < q; ++rb)
      for (int s = 0; s < 2; ++s)
        for (int i = 0; i < q; ++i) {
          const int u = g.index(s, ra, i);
          for (int v : g.adj[u])
            if (g.rack(v) == rb)
              t.connect(t.switch_node(u), t.switch_node(v), prm.rate, prm.global_latency, LinkKind::Global);
        }

  t.set_param("q", std::to_string(q));
  t.set_param("delta", std::to_string(g.delta));
  t.set_param("w", std::to_string(g.w));
  t.set_param("k'", std::to_string(kp));
  t.set_param("p", std::to_string(p));
  t.set_param("switches", std::to_string(ns));
  t.set_param("hosts", std::to_string(ns * p));
  t.set_param("racks", std::to_string(q));
  t.set_param("link_kinds", "local = intra-rack, global = inter-rack");
  return t;
}

SlimFlySize slim_fly_size(int q, int p) {
  const int delta = slim_fly_delta(q);
  SlimFlySize s{};
  s.q = q;
  s.delta = delta;
  s.k_prime = (3 * q - delta) / 2;
  s.p = p < 0 ? (s.k_prime + 1) / 2 : p;
  s.switches = 2 * q * q;
  s.hosts = s.switches * s.p;
  s.radix = s.k_prime + s.p;
  return s;
}

// App. A.5: N ~ 2q^2 * ceil(k'/2) ~ 3q^3/2, so q ~ cbrt(2N/3); valid q near it are compared by
// how close their endpoint count is to N. We scan every valid q up to a bound past the estimate
// (cheap: only sizes are computed) so that no close candidate is missed.
std::vector<SlimFlySize> suggest_slim_fly(int hosts, int max_candidates) {
  if (hosts < 1) throw UserError(fmt::format("suggest_slim_fly: number of hosts must be >= 1, got {}", hosts));
  if (max_candidates < 1) return {};
  const double est = std::cbrt(2.0 * hosts / 3.0);
  const int qmax = static_cast<int>(std::ceil(est * 2.0)) + 8;
  std::vector<SlimFlySize> all;
  for (int q = 3; q <= qmax; ++q)
    if (valid_slim_fly_q(q)) all.push_back(slim_fly_size(q));
  std::stable_sort(all.begin(), all.end(), [&](const SlimFlySize& a, const SlimFlySize& b) {
    const long long da = std::llabs(static_cast<long long>(a.hosts) - hosts);
    const long long db = std::llabs(static_cast<long long>(b.hosts) - hosts);
    if (da != db) return da < db;
    return a.hosts > b.hosts;
  });
  // Always offer the smallest network with at least `hosts` endpoints, even if a smaller one is
  // closer (App. A.5 looks for sizes "as close to N as possible"; users usually need >= N).
  std::optional<SlimFlySize> at_least;
  for (const auto& c : all)
    if (c.hosts >= hosts && (!at_least || c.hosts < at_least->hosts)) at_least = c;
  if (static_cast<int>(all.size()) > max_candidates) all.resize(static_cast<std::size_t>(max_candidates));
  if (at_least && std::none_of(all.begin(), all.end(), [&](const SlimFlySize& c) { return c.q == at_least->q; }))
    all.back() = *at_least;
  return all;
}

SlimFlyParams slim_fly_params(const config::Config& c) {
  SlimFlyParams p;
  p.q = static_cast<int>(c.integer("topology.q"));
  // An invalid q is the config's error: name the key and where its value came from.
  if (!valid_slim_fly_q(p.q)) {
    try {
      slim_fly_delta(p.q);
    } catch (const UserError& e) {
      throw UserError(fmt::format("{}topology.q: {}", c.where("topology.q"), e.what()));
    }
  }
  p.p = c.integer("topology.p") > 0 ? static_cast<int>(c.integer("topology.p")) : -1;
  read_direct_links(c, p);
  return p;
}

namespace {
// The Slim Fly's size from its keys (the memory guard): 2q^2 switches of degree k' = (3q - delta)/2
// with p hosts each; diameter 2, so most switch pairs have one or two next hops.
TopologySize slim_fly_size(const config::Config& c) {
  const auto prm = slim_fly_params(c);  // an invalid q is an error naming topology.q
  const double q = prm.q, delta = slim_fly_delta(prm.q);
  const double kp = std::floor((3 * q - delta) / 2);
  const double p = prm.p == -1 ? std::floor((kp + 1) / 2) : prm.p;
  TopologySize s;
  s.switches = 2 * q * q;
  s.hosts = s.switches * p;
  s.links = s.hosts + s.switches * kp / 2;
  s.next_hops = 1;
  s.host_rate_bps = static_cast<double>(prm.rate);
  // Valiant paths of at most 4 hops: about one per intermediate switch plus the minimal ones (q = 29:
  // at most 1,694 per pair for 1,682 switches of degree 43).
  s.bounded_paths = s.switches + kp;
  s.keys = c.given("topology.p") ? "topology.q, topology.p" : "topology.q";
  return s;
}

using namespace config;
const RegisterTopology kSlimFly{
    {{"slim_fly",
      "Slim Fly: the MMS graph for a prime power q, diameter 2 ([SlimFly] sec. 2, App. A).",
      {
          integer("topology.q", 5, "", "Slim Fly: the prime power q of the MMS construction (q = 4w + delta).")
              .range(2, 1e4),
      },
      {"topology.q=3", "topology.p=1"}},
     [](const Config& c) { return build_slim_fly(slim_fly_params(c)); },
     &slim_fly_size}};
}  // namespace

}  // namespace lbsim::topo
