#include "workload/adversarial.h"
#include "workload/patterns.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <vector>

#include <fmt/core.h>

#include "core/error.h"
#include "core/rng.h"
#include "workload/registry.h"

namespace lbsim::workload {

namespace {

Rng make_rng(std::uint64_t seed) { return Rng(seed, hash_name("adversarial"), 0); }

void shuffle(std::vector<std::int32_t>& v, Rng& rng) {
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.below(i)]);
}

void check_params(const AdversarialParams& p, const topo::Topology& t, const char* what) {
  if (p.bytes < 0) throw UserError(fmt::format("{}: bytes = {} is negative", what, p.bytes));
  if (p.start < 0) throw UserError(fmt::format("{}: start time is negative", what));
  if (t.num_hosts < 2)
    throw UserError(fmt::format("{}: needs at least 2 hosts, the topology has {}", what, t.num_hosts));
}

void add_flow(Workload& w, std::int32_t src, std::int32_t dst, const AdversarialParams& p, std::int32_t tag) {
  w.flows.push_back(make_transfer(src, dst, p.bytes, p.start, tag, p.lb));
}

// Hosts attached to each switch (switch index -> host ids in port order). Uses only the port arrays
// so the workload layer needs no topo library code.
std::vector<std::vector<std::int32_t>> hosts_by_switch(const topo::Topology& t) {
  std::vector<std::vector<std::int32_t>> out(static_cast<std::size_t>(t.num_switches()));
  for (std::int32_t s = 0; s < t.num_switches(); ++s)
    for (const auto& port : t.ports[t.switch_node(s)])
      if (t.is_host(port.peer)) out[s].push_back(port.peer);
  return out;
}

// Every host of `from` sends to a distinct host of `to` (seeded bijection).
void match_hosts(Workload& w, const std::vector<std::int32_t>& from, std::vector<std::int32_t> to, Rng& rng,
                 const AdversarialParams& p, std::int32_t tag) {
  shuffle(to, rng);
  for (std::size_t i = 0; i < from.size(); ++i) add_flow(w, from[i], to[i], p, tag);
}

}  // namespace

std::int32_t host_group(const topo::Topology& t, std::int32_t h) {
  const auto sw = t.host_switch(h);
  const auto g = t.nodes[sw].group;
  // Without groups, the switch is the group; offset so the two id spaces cannot collide.
  return g >= 0 ? g : (1 << 24) + t.switch_index(sw);
}

Workload make_dragonfly_group_shift(const topo::Topology& t, const AdversarialParams& p, std::uint64_t seed,
                                    int shift) {
  check_params(p, t, "dragonfly group shift");
  if (t.kind != "dragonfly")
    throw UserError(fmt::format("dragonfly group shift: needs a dragonfly topology, got '{}'", t.kind));
  std::map<std::int32_t, std::vector<std::int32_t>> groups;
  for (std::int32_t h = 0; h < t.num_hosts; ++h) groups[t.nodes[t.host_switch(h)].group].push_back(h);
  const auto g = static_cast<std::int32_t>(groups.size());
  if (g < 2) throw UserError("dragonfly group shift: needs at least 2 groups");
  if (shift % g == 0)
    throw UserError(fmt::format("dragonfly group shift: shift {} maps every group onto itself (g = {})", shift, g));
  for (const auto& [grp, hs] : groups) {
    if (grp < 0 || grp >= g) throw UserError("dragonfly group shift: groups must be numbered 0..g-1");
    if (hs.size() != groups.begin()->second.size())
      throw UserError("dragonfly group shift: every group must have the same number of hosts");
  }
  Workload w;
  const std::int32_t tag = p.tag.empty() ? 0 : w.tag(p.tag);
  Rng rng = make_rng(seed);
  for (std::int32_t i = 0; i < g; ++i) match_hosts(w, groups[i], groups[((i + shift) % g + g) % g], rng, p, tag);
  return w;
}

SlimFlyAdversarialPlan slim_fly_adversarial_plan(const topo::Topology& t, std::uint64_t seed) {
  const std::int32_t n = t.num_switches();
  if (n < 5) throw UserError("slim fly adversarial: needs at least 5 switches");
  std::vector<std::vector<std::int32_t>> adj(static_cast<std::size_t>(n));
  std::vector<char> is_adj(static_cast<std::size_t>(n) * n, 0);
  for (std::int32_t s = 0; s < n; ++s)
    for (const auto& port : t.ports[t.switch_node(s)])
      if (!t.is_host(port.peer)) {
        const auto v = t.switch_index(port.peer);
        if (!is_adj[static_cast<std::size_t>(s) * n + v]) adj[s].push_back(v);
        is_adj[static_cast<std::size_t>(s) * n + v] = 1;
      }
  auto adjacent = [&](std::int32_t a, std::int32_t b) { return is_adj[static_cast<std::size_t>(a) * n + b] != 0; };
  auto common = [&](std::int32_t a, std::int32_t b) {
    int c = 0;
    for (auto x : adj[a]) c += adjacent(x, b);
    return c;
  };
  auto dist2 = [&](std::int32_t a, std::int32_t b) { return a != b && !adjacent(a, b) && common(a, b) > 0; };
  // (a, mid, b) is a good triple: a and b at distance 2 with mid as their only common neighbour, so
  // the minimal path a -> mid -> b is unique.
  auto good = [&](std::int32_t a, std::int32_t mid, std::int32_t b) {
    return a != b && !adjacent(a, b) && adjacent(a, mid) && adjacent(mid, b) && common(a, b) == 1;
  };
  Rng rng = make_rng(seed);
  std::vector<std::int32_t> path, best_path;
  std::vector<char> used(static_cast<std::size_t>(n));
  std::vector<std::int32_t> free_deg(static_cast<std::size_t>(n));
  // Randomised Warnsdorff search for a Hamiltonian cycle with good consecutive triples: extend to the
  // admissible neighbour with the fewest unused neighbours (random tie-break). Small Slim Flies
  // (q <= 16) close a full cycle within a few attempts; for larger ones the end game rarely closes,
  // so the longest path found is kept and completed below.
  const int attempts = std::max(64, 40000 / n);  // cheap for small graphs, bounded for large ones
  for (int attempt = 0; attempt < attempts; ++attempt) {
    std::fill(used.begin(), used.end(), 0);
    for (std::int32_t s = 0; s < n; ++s) free_deg[s] = static_cast<std::int32_t>(adj[s].size());
    path.clear();
    auto take = [&](std::int32_t v) {
      used[v] = 1;
      path.push_back(v);
      for (auto x : adj[v]) --free_deg[x];
    };
    take(static_cast<std::int32_t>(rng.below(static_cast<std::uint64_t>(n))));
    while (static_cast<std::int32_t>(path.size()) < n) {
      const auto u = path.back();
      std::int32_t best = -1, best_deg = 0, ties = 0;
      for (auto w : adj[u]) {
        if (used[w]) continue;
        if (path.size() >= 2 && !good(path[path.size() - 2], u, w)) continue;
        if (best < 0 || free_deg[w] < best_deg) {
          best = w;
          best_deg = free_deg[w];
          ties = 1;
        } else if (free_deg[w] == best_deg && rng.below(static_cast<std::uint64_t>(++ties)) == 0) {
          best = w;
        }
      }
      if (best < 0) break;
      take(best);
    }
    if (static_cast<std::int32_t>(path.size()) == n && good(path[n - 2], path[n - 1], path[0]) &&
        good(path[n - 1], path[0], path[1])) {
      SlimFlyAdversarialPlan plan;
      plan.cycle = path;
      plan.closed = true;
      plan.target.assign(static_cast<std::size_t>(n), -1);
      for (std::int32_t i = 0; i < n; ++i) plan.target[path[i]] = path[(i + 2) % n];
      return plan;
    }
    if (path.size() > best_path.size()) best_path = path;
  }
  // Open path v_0 .. v_{L-1}: v_i -> v_{i+2} for i < L-2 (unique minimal paths, shared links as in a
  // cycle). The senders left (v_{L-2}, v_{L-1} and the switches off the path) are matched to the
  // receivers left (v_0, v_1 and the switches off the path) by a bipartite matching over pairs at
  // distance 2 (Kuhn's augmenting paths, seeded order).
  // If the leftovers cannot be matched, the path's tail joins the leftovers, one switch at a time.
  std::vector<std::int32_t> match_of_receiver, senders, receivers;
  std::vector<char> seen;
  for (auto L = static_cast<std::int32_t>(best_path.size()); L >= 0; --L) {
    std::vector<char> on_path(static_cast<std::size_t>(n), 0);
    for (std::int32_t i = 0; i < L; ++i) on_path[best_path[i]] = 1;
    senders.clear();
    receivers.clear();
    for (std::int32_t i = std::max(0, L - 2); i < L; ++i) senders.push_back(best_path[i]);
    for (std::int32_t i = 0; i < std::min(2, L); ++i) receivers.push_back(best_path[i]);
    for (std::int32_t s = 0; s < n; ++s)
      if (!on_path[s]) {
        senders.push_back(s);
        receivers.push_back(s);
      }
    shuffle(receivers, rng);
    match_of_receiver.assign(receivers.size(), -1);  // receiver slot -> sender slot
    auto try_sender = [&](auto&& self, std::size_t si) -> bool {
      for (std::size_t ri = 0; ri < receivers.size(); ++ri) {
        if (seen[ri] || !dist2(senders[si], receivers[ri])) continue;
        seen[ri] = 1;
        if (match_of_receiver[ri] < 0 || self(self, static_cast<std::size_t>(match_of_receiver[ri]))) {
          match_of_receiver[ri] = static_cast<std::int32_t>(si);
          return true;
        }
      }
      return false;
    };
    bool ok = true;
    for (std::size_t si = 0; si < senders.size() && ok; ++si) {
      seen.assign(receivers.size(), 0);
      ok = try_sender(try_sender, si);
    }
    if (!ok) continue;
    SlimFlyAdversarialPlan plan;
    plan.cycle.assign(best_path.begin(), best_path.begin() + L);
    plan.closed = false;
    plan.target.assign(static_cast<std::size_t>(n), -1);
    for (std::int32_t i = 0; i + 2 < L; ++i) plan.target[best_path[i]] = best_path[i + 2];
    for (std::size_t ri = 0; ri < receivers.size(); ++ri) plan.target[senders[match_of_receiver[ri]]] = receivers[ri];
    return plan;
  }
  throw UserError(
      fmt::format("slim fly adversarial: cannot give every switch a target at distance 2 ({} switches)", n));
}

Workload make_slim_fly_adversarial(const topo::Topology& t, const AdversarialParams& p, std::uint64_t seed) {
  check_params(p, t, "slim fly adversarial");
  if (t.kind != "slim_fly")
    throw UserError(fmt::format("slim fly adversarial: needs a slim_fly topology, got '{}'", t.kind));
  const auto hosts = hosts_by_switch(t);
  for (const auto& hs : hosts)
    if (hs.size() != hosts[0].size())
      throw UserError("slim fly adversarial: every switch must have the same number of hosts");
  const auto plan = slim_fly_adversarial_plan(t, seed);
  // A separate stream index keeps the host matching independent of how many cycle attempts ran.
  Rng rng(seed, hash_name("adversarial"), 1);
  Workload w;
  const std::int32_t tag = p.tag.empty() ? 0 : w.tag(p.tag);
  for (std::int32_t s = 0; s < t.num_switches(); ++s) match_hosts(w, hosts[s], hosts[plan.target[s]], rng, p, tag);
  return w;
}

Workload make_permutation_outside_group(const topo::Topology& t, const AdversarialParams& p, std::uint64_t seed) {
  check_params(p, t, "permutation outside group");
  const std::int32_t n = t.num_hosts;
  std::vector<std::int32_t> grp(static_cast<std::size_t>(n));
  std::map<std::int32_t, std::int32_t> sizes;
  for (std::int32_t h = 0; h < n; ++h) ++sizes[grp[h] = host_group(t, h)];
  std::int32_t largest = 0;
  for (const auto& [g, s] : sizes) largest = std::max(largest, s);
  const bool feasible = 2 * largest <= n;  // else some receivers must share the sender's group

  Rng rng = make_rng(seed);
  std::vector<std::int32_t> to(static_cast<std::size_t>(n));
  std::iota(to.begin(), to.end(), 0);
  shuffle(to, rng);
  auto same_group = [&](std::int32_t a, std::int32_t b) { return grp[a] == grp[b]; };
  // Repair by swaps: sender i with a forbidden receiver swaps receivers with a sender j such that both
  // become allowed; random candidates first, then a scan from a random offset. `strict` forbids the
  // sender's group, otherwise only the sender itself.
  auto repair = [&](bool strict) {
    auto bad = [&](std::int32_t s, std::int32_t r) { return s == r || (strict && same_group(s, r)); };
    for (std::int32_t i = 0; i < n; ++i) {
      if (!bad(i, to[i])) continue;
      bool fixed = false;
      for (int tries = 0; tries < 64 && !fixed; ++tries) {
        const auto j = static_cast<std::int32_t>(rng.below(static_cast<std::uint64_t>(n)));
        if (!bad(i, to[j]) && !bad(j, to[i])) {
          std::swap(to[i], to[j]);
          fixed = true;
        }
      }
      const auto off = static_cast<std::int32_t>(rng.below(static_cast<std::uint64_t>(n)));
      for (std::int32_t k = 0; k < n && !fixed; ++k) {
        const auto j = (off + k) % n;
        if (!bad(i, to[j]) && !bad(j, to[i])) {
          std::swap(to[i], to[j]);
          fixed = true;
        }
      }
    }
  };
  repair(true);
  bool clean = true;
  for (std::int32_t i = 0; i < n; ++i) clean = clean && !same_group(i, to[i]);
  if (feasible && !clean) {
    // Swap repair got stuck (rare): use the classic construction that always works when no group
    // exceeds half: hosts listed group by group (random group and host order), shifted by the
    // largest group size, so a sender and its receiver are never in the same contiguous block.
    std::vector<std::int32_t> order;
    std::map<std::int32_t, std::vector<std::int32_t>> members;
    for (std::int32_t h = 0; h < n; ++h) members[grp[h]].push_back(h);
    std::vector<std::int32_t> keys;
    for (auto& [g, hs] : members) {
      shuffle(hs, rng);
      keys.push_back(g);
    }
    shuffle(keys, rng);
    for (auto g : keys) order.insert(order.end(), members[g].begin(), members[g].end());
    for (std::int32_t i = 0; i < n; ++i) to[order[i]] = order[(i + largest) % n];
  }
  if (!feasible) repair(false);  // keep the outside placements, remove any self-send left
  Workload w;
  const std::int32_t tag = p.tag.empty() ? 0 : w.tag(p.tag);
  for (std::int32_t i = 0; i < n; ++i) add_flow(w, i, to[i], p, tag);
  return w;
}

namespace {
using namespace config;
const RegisterWorkload kAdversarial{
    {{"adversarial",
      "The topology's worst case: Dragonfly group shift, Slim Fly distance-2 pattern (docs/topologies.md).",
      {integer("workload.shift", 1, "groups", "adversarial on a Dragonfly: group i sends to group i + shift.")
           .range(1, 1e6)},
      {"topology.kind=dragonfly", "topology.p=1", "topology.a=2", "topology.h=1"}},
     [](const WorkloadContext& c) {
       AdversarialParams p;
       p.bytes = c.cfg.integer("workload.size");
       p.start = start_time(c.cfg);
       if (c.topo.kind == "dragonfly")
         return make_dragonfly_group_shift(c.topo, p, c.seed, static_cast<int>(c.cfg.integer("workload.shift")));
       if (c.topo.kind == "slim_fly") return make_slim_fly_adversarial(c.topo, p, c.seed);
       throw UserError(
           "workload.kind = \"adversarial\" is defined for dragonfly and slim_fly topologies; use "
           "tornado for a fat tree's worst case");
     },
     [](const WorkloadSizeContext& c) { return messages_of_size(c.cfg, c.topo.hosts); }}};
}  // namespace

}  // namespace lbsim::workload
