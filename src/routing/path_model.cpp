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
  // The tree to switch node y: w[switch index] for every switch on a path from a host of `hosts`,
  // each looked up once (a walk stops at the first switch already done).
  std::vector<SimTime> w(nsw);
  std::vector<std::int32_t> stamp(nsw, -1);  // the tree() call that set w
  std::int32_t calls = 0;
  std::vector<std::pair<std::int32_t, SimTime>> stack;  // (switch index, its link's cost + switch latency)
  auto tree = [&](std::int32_t y, const std::vector<SimTime>& cost) {
    const std::int32_t call = calls++;
    stamp[static_cast<std::size_t>(t_.switch_index(y))] = call;
    w[static_cast<std::size_t>(t_.switch_index(y))] = 0;
    for (const std::int32_t x : sw) {
      std::int32_t v = x;
      bool lost = false;  // no path: the walk's switches get -1
      stack.clear();
      while (stamp[static_cast<std::size_t>(t_.switch_index(v))] != call) {
        const auto cand = tables_.candidates(v, y);
        if (cand.empty()) {
          lost = true;
          stack.emplace_back(t_.switch_index(v), 0);
          break;
        }
        const auto& port = t_.ports[v][cand.front()];
        stack.emplace_back(t_.switch_index(v), cost[static_cast<std::size_t>(port.link)] + sw_lat_);
        v = port.peer;
      }
      SimTime acc = lost ? -1 : w[static_cast<std::size_t>(t_.switch_index(v))];
      for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
        if (acc >= 0) acc += it->second;
        w[static_cast<std::size_t>(it->first)] = acc;
        stamp[static_cast<std::size_t>(it->first)] = call;
      }
    }
  };
  // Pass 1: maxA per source host (the ACK tree of its own switch).
  std::vector<SimTime> max_a(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    tree(sw[i], cost_a);
    for (std::size_t j = 0; j < n; ++j) {
      if (j == i) continue;
      const SimTime a = w[static_cast<std::size_t>(t_.switch_index(sw[j]))];
      if (a < 0) throw_unreachable();
      max_a[i] = std::max(max_a[i], ha[j] + a);
    }
  }
  // Pass 2: the largest rtt, per destination host's data tree; row_ub[i] bounds row i.
  SimTime best = 0;
  std::vector<SimTime> row_ub(n, 0);
  for (std::size_t j = 0; j < n; ++j) {
    tree(sw[j], cost_d);
    for (std::size_t i = 0; i < n; ++i) {
      if (i == j) continue;
      const SimTime base = hd[i] + hd[j] + w[static_cast<std::size_t>(t_.switch_index(sw[i]))] + ha[i] + 2 * sw_lat_;
      const SimTime ub = base + max_a[i];
      row_ub[i] = std::max(row_ub[i], ub);
      if (ub > best) best = std::max(best, base + ha[j] + walk(sw[j], sw[i], cost_a));
    }
  }
  // The first pair in order that attains it: only rows whose bound reaches it can.
  for (std::size_t i = 0; i < n; ++i) {
    if (row_ub[i] < best) continue;
    for (std::size_t j = 0; j < n; ++j)
      if (j != i && hd[i] + hd[j] + walk(sw[i], sw[j], cost_d) + ha[i] + ha[j] + walk(sw[j], sw[i], cost_a) + 2 * sw_lat_ == best)
        return {best, hosts[i], hosts[j]};
  }
  return {};  // fewer than two hosts
}

}  // namespace lbsim::routing
