#include "routing/tables.h"

#include <algorithm>
#include <limits>

#include <fmt/core.h>

#include "core/error.h"
#include "topo/graph.h"

namespace lbsim::routing {

SwitchPairPorts::SwitchPairPorts(const topo::Topology& t)
    : nsw_(static_cast<std::size_t>(t.num_switches())), topo_(t) {}

void SwitchPairPorts::begin() {
  pair_.assign(nsw_ * nsw_, 0);
  build_.assign(nsw_, Builder{});
}

void SwitchPairPorts::set_pair(std::size_t s, std::size_t d, std::int32_t hops, std::span<const std::int16_t> ports) {
  Builder& b = build_[s];
  auto same = [&](const Set& x) {
    return x.dist == hops && x.count == ports.size() &&
           std::equal(ports.begin(), ports.end(), b.ports.begin() + x.offset);
  };
  if (!b.sets.empty() && same(b.sets[b.last])) {
    pair_[s * nsw_ + d] = b.last;
    return;
  }
  std::uint64_t h = splitmix64(static_cast<std::uint64_t>(static_cast<std::uint32_t>(hops)));
  for (const auto p : ports) h = splitmix64(h ^ static_cast<std::uint16_t>(p));
  const auto range = b.by_hash.equal_range(h);
  for (auto it = range.first; it != range.second; ++it)
    if (same(b.sets[it->second])) {
      b.last = it->second;
      pair_[s * nsw_ + d] = b.last;
      return;
    }
  // A switch has at most nsw distinct sets (one per destination), so 16 bits always suffice up to
  // 65,536 switches; more distinct sets than that at one switch would need a wider index.
  if (b.sets.size() > std::numeric_limits<std::uint16_t>::max() || ports.size() > std::numeric_limits<std::uint16_t>::max() ||
      hops > std::numeric_limits<std::int16_t>::max())
    throw UserError(fmt::format("routing tables: switch '{}' has more than 65,536 distinct next-hop sets (or a set or a "
                                "distance beyond 16 bits); the tables support at most 65,536 switches",
                                topo_.nodes[topo_.switch_node(static_cast<std::int32_t>(s))].label));
  b.last = static_cast<std::uint16_t>(b.sets.size());
  b.sets.push_back({static_cast<std::uint32_t>(b.ports.size()), static_cast<std::uint16_t>(ports.size()),
                    static_cast<std::int16_t>(hops)});
  b.ports.insert(b.ports.end(), ports.begin(), ports.end());
  b.by_hash.emplace(h, b.last);
  pair_[s * nsw_ + d] = b.last;
}

void SwitchPairPorts::finish() {
  std::size_t nsets = 0, nports = 0;
  for (const auto& b : build_) {
    nsets += b.sets.size();
    nports += b.ports.size();
  }
  if (nports > std::numeric_limits<std::uint32_t>::max()) throw UserError("routing tables: more than 2^32 next-hop ports");
  set_first_.resize(nsw_);
  sets_.clear();
  sets_.reserve(nsets);
  ports_.clear();
  ports_.reserve(nports);
  for (std::size_t s = 0; s < nsw_; ++s) {
    auto& b = build_[s];
    set_first_[s] = static_cast<std::uint32_t>(sets_.size());
    const auto base = static_cast<std::uint32_t>(ports_.size());
    for (auto x : b.sets) {
      x.offset += base;
      sets_.push_back(x);
    }
    ports_.insert(ports_.end(), b.ports.begin(), b.ports.end());
    b = Builder{};
  }
  build_.clear();
  build_.shrink_to_fit();
}

std::size_t SwitchPairPorts::bytes() const {
  return pair_.capacity() * sizeof(std::uint16_t) + set_first_.capacity() * sizeof(std::uint32_t) +
         sets_.capacity() * sizeof(Set) + ports_.capacity() * sizeof(std::int16_t);
}

MinimalTables::MinimalTables(const topo::Topology& t) : SwitchPairPorts(t) {
  // One BFS per destination switch d gives every switch's hops to d (links are bidirectional);
  // port p of s is a candidate when its peer switch is one hop closer to d.
  const auto n = static_cast<std::int32_t>(nsw_);
  topo::Bfs bfs(n);
  std::vector<std::int16_t> out;
  begin();
  for (std::int32_t d = 0; d < n; ++d) {
    topo::switch_bfs(t, d, bfs, [](const topo::Link&) { return true; });
    const auto hops = bfs.dist();
    for (std::int32_t s = 0; s < n; ++s) {
      out.clear();
      const std::int32_t h = hops[static_cast<std::size_t>(s)];
      if (s != d && h > 0) {
        const auto& ports = t.ports[t.switch_node(s)];
        for (std::size_t p = 0; p < ports.size(); ++p) {
          const std::int32_t peer = ports[p].peer;
          if (t.is_host(peer)) continue;
          if (hops[static_cast<std::size_t>(t.switch_index(peer))] == h - 1) out.push_back(static_cast<std::int16_t>(p));
        }
      }
      set_pair(static_cast<std::size_t>(s), static_cast<std::size_t>(d), h, out);
    }
  }
  finish();
  host_port_.resize(t.num_hosts);
  for (std::int32_t h = 0; h < t.num_hosts; ++h)
    host_port_[h] = static_cast<std::int16_t>(t.ports[h][0].peer_port);
}

std::size_t MinimalTables::bytes() const {
  return SwitchPairPorts::bytes() + host_port_.capacity() * sizeof(std::int16_t);
}

}  // namespace lbsim::routing
