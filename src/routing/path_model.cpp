#include "routing/path_model.h"

#include <algorithm>

#include <fmt/core.h>

#include "core/error.h"

namespace lbsim::routing {

PathModel::PathModel(const MinimalTables& tables, SimTime switch_latency)
    : tables_(tables), t_(tables.topology()), sw_lat_(switch_latency) {}

std::vector<std::int32_t> PathModel::path_links(std::int32_t a, std::int32_t b) const {
  const std::int32_t sa = t_.host_switch(a), sb = t_.host_switch(b);
  std::vector<std::int32_t> links;
  links.push_back(t_.ports[a][0].link);
  if (sa != sb && tables_.distance(sa, sb) < 0) throw UserError(fmt::format("host {} cannot reach host {}", a, b));
  // Why the first candidate gives the BFS tree path: a BFS from sa visits the nodes of one level in
  // the order of their tree paths' port sequences (by induction: the level before is in that order
  // and each node scans its ports in order, the first discovery winning), so the tree path to any
  // node is the smallest port sequence among its shortest paths; every candidate port continues
  // some shortest path, so taking the smallest at every switch builds exactly that sequence.
  for (std::int32_t n = sa; n != sb;) {
    const std::int16_t p = tables_.candidates(n, sb).front();
    const auto& port = t_.ports[n][p];
    links.push_back(port.link);
    n = port.peer;
  }
  links.push_back(t_.ports[b][0].link);
  return links;
}

SimTime PathModel::ideal_fct(std::int32_t a, std::int32_t b, Bytes bytes, Bytes mtu, Bytes header) const {
  const Bytes n = (bytes + mtu - 1) / mtu;
  if (n <= 0) return 0;
  const Bytes full = mtu + header;
  const Bytes last = header + bytes - (n - 1) * mtu;
  if (n == 1) return one_way(a, b, last);
  // The NIC sends the n-1 full packets back to back; the last (possibly shorter) packet then trails
  // the previous full packet at every later hop, so it leaves each hop one full-packet time after
  // its predecessor started there, and is serialized itself only on the final link.
  const auto links = path_links(a, b);
  SimTime t = serialization_ps((n - 1) * full, t_.links[links.front()].rate);
  for (std::size_t i = 1; i < links.size(); ++i) t += serialization_ps(full, t_.links[links[i]].rate);
  t += serialization_ps(last, t_.links[links.back()].rate);
  for (auto l : links) t += t_.links[l].latency;
  return t + static_cast<SimTime>(links.size() - 1) * sw_lat_;
}

SimTime PathModel::one_way(std::int32_t a, std::int32_t b, Bytes bytes) const {
  const auto links = path_links(a, b);
  SimTime t = 0;
  for (auto l : links) t += serialization_ps(bytes, t_.links[l].rate) + t_.links[l].latency;
  return t + static_cast<SimTime>(links.size() - 1) * sw_lat_;
}

PathModel::Farthest PathModel::farthest_pair(std::span<const std::int32_t> hosts, Bytes data, Bytes ack) const {
  // rtt(a, b) = one_way(a, b, data) + one_way(b, a, ack). With D_y(x) (resp. A_y(x)) the data
  // (resp. ACK) cost of the switch links from switch x to switch y along the path of path_links(),
  // each link's serialization + propagation + the switch latency, and H(h) a host's link:
  //   rtt(a, b) = Hd(a) + Hd(b) + D_sb(sa) + Ha(b) + Ha(a) + A_sa(sb) + 2 x switch latency.
  // The paths to one destination y form a tree (the first candidate port at every switch), so one
  // pass per destination gives D_y or A_y at every switch with one table lookup each. D_sb(sa) and
  // A_sa(sb) belong to different destinations, so the pair's exact value needs a walk; a bound
  // avoids nearly all of them: with maxA(a) = max over b of Ha(b) + A_sa(sb) (a first pass),
  // rtt(a, b) <= ub(a, b) = Hd(a) + Hd(b) + D_sb(sa) + Ha(a) + maxA(a) + 2 x switch latency, and a
  // pair is walked only when ub exceeds the best value so far. Integer sums: exact, any order.
  const std::size_t n = hosts.size();
  const auto nsw = static_cast<std::size_t>(t_.num_switches());
  std::vector<SimTime> cost_d(t_.links.size()), cost_a(t_.links.size());
  for (std::size_t l = 0; l < t_.links.size(); ++l) {
    cost_d[l] = serialization_ps(data, t_.links[l].rate) + t_.links[l].latency;
    cost_a[l] = serialization_ps(ack, t_.links[l].rate) + t_.links[l].latency;
  }
  std::vector<std::int32_t> sw(n);
  std::vector<SimTime> hd(n), ha(n);
  for (std::size_t i = 0; i < n; ++i) {
    sw[i] = t_.host_switch(hosts[i]);
    hd[i] = cost_d[static_cast<std::size_t>(t_.ports[hosts[i]][0].link)];
    ha[i] = cost_a[static_cast<std::size_t>(t_.ports[hosts[i]][0].link)];
  }
  // The pairs in order, walking path_links(): the error of the first unreachable pair.
  auto throw_unreachable = [&] {
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j)
        if (i != j) path_links(hosts[i], hosts[j]);
    throw UserError("routing tables: a pair of hosts cannot reach each other");  // not reached
  };
  // Switch-link cost from switch node `x` to switch node `y` along the path (-1: unreachable).
  auto walk = [&](std::int32_t x, std::int32_t y, const std::vector<SimTime>& cost) -> SimTime {
    SimTime c = 0;
    for (std::int32_t v = x; v != y;) {
      const auto cand = tables_.candidates(v, y);
      if (cand.empty()) return -1;
      const auto& port = t_.ports[v][cand.front()];
      c += cost[static_cast<std::size_t>(port.link)] + sw_lat_;
      v = port.peer;
    }
    return c;
  };
  // The trees towards the switches of one run of destination switches at once (d0 .. d0 + nb - 1,
  // SwitchPairPorts::kRun of them): every switch's distance and first candidate port towards each
  // (run_first_ports: one run id and the switch's set records, instead of a lookup per pair), the
  // (switch, destination) entries sorted by distance (counting sort), and then in that order each
  // entry's cost: its port's link + the switch latency + the cost of the entry of the switch it
  // leads to, already done. wt[v * kR + k]: switch index v to destination d0 + k (-1 unreachable).
  constexpr std::size_t kR = SwitchPairPorts::kRun;
  std::vector<std::int16_t> first(nsw * kR), dist(nsw * kR);
  std::vector<std::uint32_t> order(nsw * kR), at;  // entries v * kR + k by distance; level starts
  std::vector<SimTime> wt(nsw * kR);
  std::size_t ordered = 0;
  auto load_run = [&](std::size_t d0, std::size_t nb) {
    std::int32_t maxd = 0;
    for (std::size_t v = 0; v < nsw; ++v) {
      tables_.run_first_ports(v, d0, nb, &first[v * kR], &dist[v * kR]);
      for (std::size_t k = 0; k < nb; ++k) maxd = std::max<std::int32_t>(maxd, dist[v * kR + k]);
    }
    at.assign(static_cast<std::size_t>(maxd) + 2, 0);
    for (std::size_t v = 0; v < nsw; ++v)
      for (std::size_t k = 0; k < nb; ++k)
        if (dist[v * kR + k] > 0) ++at[static_cast<std::size_t>(dist[v * kR + k]) + 1];
    for (std::size_t l = 1; l < at.size(); ++l) at[l] += at[l - 1];
    ordered = at.back();
    for (std::size_t v = 0; v < nsw; ++v)
      for (std::size_t k = 0; k < nb; ++k)
        if (dist[v * kR + k] > 0)
          order[at[static_cast<std::size_t>(dist[v * kR + k])]++] = static_cast<std::uint32_t>(v * kR + k);
  };
  auto trees = [&](std::size_t nb, const std::vector<SimTime>& cost) {
    for (std::size_t v = 0; v < nsw; ++v)
      for (std::size_t k = 0; k < nb; ++k) wt[v * kR + k] = dist[v * kR + k] == 0 ? 0 : -1;
    for (std::size_t i = 0; i < ordered; ++i) {
      const std::uint32_t e = order[i];
      const std::int16_t p = first[e];
      if (p < 0) continue;  // no candidate: -1, and so are the entries that lead here
      const auto& port = t_.ports[t_.switch_node(static_cast<std::int32_t>(e / kR))][static_cast<std::size_t>(p)];
      const SimTime next = wt[static_cast<std::size_t>(t_.switch_index(port.peer)) * kR + e % kR];
      wt[e] = next < 0 ? -1 : next + cost[static_cast<std::size_t>(port.link)] + sw_lat_;
    }
  };
  // The entries of `hosts` by the run of their switch (the runs with a host, in increasing order).
  std::vector<std::size_t> swi(n);
  for (std::size_t i = 0; i < n; ++i) swi[i] = static_cast<std::size_t>(t_.switch_index(sw[i]));
  std::vector<std::size_t> by_run(n);
  for (std::size_t i = 0; i < n; ++i) by_run[i] = i;
  std::stable_sort(by_run.begin(), by_run.end(),
                   [&](std::size_t x, std::size_t y) { return swi[x] / kR < swi[y] / kR; });
  auto for_each_run = [&](auto&& fn) {  // fn(d0, nb, the entries whose switch is in the run)
    for (std::size_t b = 0; b < n;) {
      std::size_t e = b;
      while (e < n && swi[by_run[e]] / kR == swi[by_run[b]] / kR) ++e;
      const std::size_t d0 = swi[by_run[b]] / kR * kR;
      fn(d0, std::min(kR, nsw - d0), std::span<const std::size_t>(by_run.data() + b, e - b));
      b = e;
    }
  };
  // Pass 1: maxA per source host i, the ACK trees of the run of its switch: the largest and the
  // second largest ha[j] + A over all j (the largest with the first j attaining it), since only
  // j = i is left out and A is 0 at i's own switch (so an unreachable j is never i).
  std::vector<SimTime> max_a(n, 0);
  for_each_run([&](std::size_t d0, std::size_t nb, std::span<const std::size_t> rows) {
    load_run(d0, nb);
    trees(nb, cost_a);
    SimTime m1[kR] = {}, m2[kR] = {};
    std::size_t j1[kR];
    std::fill(j1, j1 + kR, n);
    bool lost = false;
    for (std::size_t j = 0; j < n; ++j) {
      const SimTime* w = &wt[swi[j] * kR];
      for (std::size_t k = 0; k < nb; ++k) {
        if (w[k] < 0) {
          lost = true;
          continue;
        }
        const SimTime a = ha[j] + w[k];
        if (j1[k] == n || a > m1[k]) {
          m2[k] = std::max(m2[k], m1[k]);
          m1[k] = a;
          j1[k] = j;
        } else {
          m2[k] = std::max(m2[k], a);
        }
      }
    }
    if (lost) throw_unreachable();
    for (const std::size_t i : rows) {
      const std::size_t k = swi[i] - d0;
      max_a[i] = j1[k] == i ? m2[k] : m1[k];
    }
  });
  // Pass 2: the largest rtt, per destination host's data tree; row_ub[i] bounds row i. Any order of
  // the destinations gives the same: a pair is walked unless its bound is below a value already
  // attained, and the row bounds are maxima.
  SimTime best = 0;
  std::vector<SimTime> row_ub(n, 0);
  for_each_run([&](std::size_t d0, std::size_t nb, std::span<const std::size_t> cols) {
    load_run(d0, nb);
    trees(nb, cost_d);
    for (std::size_t i = 0; i < n; ++i) {
      const SimTime* w = &wt[swi[i] * kR];
      for (const std::size_t j : cols) {
        if (i == j) continue;
        const SimTime base = hd[i] + hd[j] + w[swi[j] - d0] + ha[i] + 2 * sw_lat_;
        const SimTime ub = base + max_a[i];
        row_ub[i] = std::max(row_ub[i], ub);
        if (ub > best) best = std::max(best, base + ha[j] + walk(sw[j], sw[i], cost_a));
      }
    }
  });
  // The first pair in order that attains it: only rows whose bound reaches it can.
  for (std::size_t i = 0; i < n; ++i) {
    if (row_ub[i] < best) continue;
    for (std::size_t j = 0; j < n; ++j)
      if (j != i &&
          hd[i] + hd[j] + walk(sw[i], sw[j], cost_d) + ha[i] + ha[j] + walk(sw[j], sw[i], cost_a) + 2 * sw_lat_ == best)
        return {best, hosts[i], hosts[j]};
  }
  return {};  // fewer than two hosts
}

}  // namespace lbsim::routing
