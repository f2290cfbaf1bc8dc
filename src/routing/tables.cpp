#include "routing/tables.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include <fmt/core.h>

#include "core/error.h"
#include "topo/graph.h"

namespace lbsim::routing {

namespace {
// The dedup tables' open addressing (a set's or a run's number + 1 per slot, 0 empty, linear
// probing by hash): once more than half full, double the slots and re-place every entry.
void grow_if_half_full(std::vector<std::uint32_t>& slots, const std::vector<std::uint64_t>& hash) {
  if (2 * hash.size() <= slots.size()) return;
  slots.assign(2 * slots.size(), 0);
  const std::size_t m = slots.size() - 1;
  for (std::uint32_t x = 0; x < hash.size(); ++x) {
    std::size_t i = hash[x] & m;
    while (slots[i] != 0) i = (i + 1) & m;
    slots[i] = x + 1;
  }
}
}  // namespace

SwitchPairPorts::SwitchPairPorts(const topo::Topology& t)
    : nsw_(static_cast<std::size_t>(t.num_switches())), topo_(t), nruns_((nsw_ + kRun - 1) / kRun) {}

void SwitchPairPorts::begin() {
  run_of_.assign(nsw_ * nruns_, 0);
  runs_.clear();
  run_hash_.clear();
  run_slots_.assign(64, 0);
  build_.assign(nsw_, Builder{});
}

void SwitchPairPorts::intern_run(std::size_t s, std::size_t block, const std::uint16_t* run) {
  std::uint64_t words[kRun / 4];
  std::memcpy(words, run, sizeof(words));
  std::uint64_t h = 0;
  for (const auto w : words) h = splitmix64(h ^ w);
  const std::size_t mask = run_slots_.size() - 1;
  std::size_t slot = h & mask;
  for (; run_slots_[slot] != 0; slot = (slot + 1) & mask) {
    const std::uint32_t x = run_slots_[slot] - 1;
    if (run_hash_[x] == h && std::memcmp(runs_.data() + (std::size_t{x} << kRunBits), run, sizeof(words)) == 0) {
      run_of_[s * nruns_ + block] = x;
      return;
    }
  }
  const std::size_t id = run_hash_.size();
  if (id >= std::numeric_limits<std::uint32_t>::max())
    throw UserError("routing tables: more than 2^32 distinct runs of next-hop sets");
  runs_.insert(runs_.end(), run, run + kRun);
  run_hash_.push_back(h);
  run_slots_[slot] = static_cast<std::uint32_t>(id + 1);
  run_of_[s * nruns_ + block] = static_cast<std::uint32_t>(id);
  grow_if_half_full(run_slots_, run_hash_);
}

std::uint16_t SwitchPairPorts::intern_set(std::size_t s, std::int32_t hops, std::span<const std::int16_t> ports) {
  Builder& b = build_[s];
  auto same = [&](const Set& x) {  // a plain loop: the sets are a few ports, a memcmp call costs more
    if (x.dist != hops || x.count != ports.size()) return false;
    const std::int16_t* q = b.ports.data() + x.offset;
    for (std::size_t i = 0; i < ports.size(); ++i)
      if (q[i] != ports[i]) return false;
    return true;
  };
  if (!b.sets.empty() && same(b.sets[b.last])) return b.last;
  std::uint64_t h = splitmix64(static_cast<std::uint64_t>(static_cast<std::uint32_t>(hops)));
  for (const auto p : ports) h = splitmix64(h ^ static_cast<std::uint16_t>(p));
  if (b.slots.empty()) b.slots.assign(16, 0);
  std::size_t slot = h & (b.slots.size() - 1);
  for (; b.slots[slot] != 0; slot = (slot + 1) & (b.slots.size() - 1)) {
    const std::uint32_t x = b.slots[slot] - 1;
    if (b.hash[x] == h && same(b.sets[x])) {
      b.last = static_cast<std::uint16_t>(x);
      return b.last;
    }
  }
  // A switch has at most nsw distinct sets (one per destination), so 16 bits always suffice up to
  // 65,536 switches; more distinct sets than that at one switch would need a wider index.
  if (b.sets.size() > std::numeric_limits<std::uint16_t>::max() ||
      ports.size() > std::numeric_limits<std::uint16_t>::max() || hops > std::numeric_limits<std::int16_t>::max())
    throw UserError(
        fmt::format("routing tables: switch '{}' has more than 65,536 distinct next-hop sets (or a set or a "
                    "distance beyond 16 bits); the tables support at most 65,536 switches",
                    topo_.nodes[topo_.switch_node(static_cast<std::int32_t>(s))].label));
  b.last = static_cast<std::uint16_t>(b.sets.size());
  b.sets.push_back({static_cast<std::uint32_t>(b.ports.size()), static_cast<std::uint16_t>(ports.size()),
                    static_cast<std::int16_t>(hops)});
  b.hash.push_back(h);
  b.ports.insert(b.ports.end(), ports.begin(), ports.end());
  b.slots[slot] = b.last + 1u;
  grow_if_half_full(b.slots, b.hash);
  return b.last;
}

void SwitchPairPorts::finish() {
  std::size_t nsets = 0, nports = 0;
  for (const auto& b : build_) {
    nsets += b.sets.size();
    nports += b.ports.size();
  }
  if (nports > std::numeric_limits<std::uint32_t>::max())
    throw UserError("routing tables: more than 2^32 next-hop ports");
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
  runs_.shrink_to_fit();
  run_hash_ = {};
  run_slots_ = {};
}

std::size_t SwitchPairPorts::bytes() const {
  return run_of_.capacity() * sizeof(std::uint32_t) + runs_.capacity() * sizeof(std::uint16_t) +
         set_first_.capacity() * sizeof(std::uint32_t) + sets_.capacity() * sizeof(Set) +
         ports_.capacity() * sizeof(std::int16_t);
}

MinimalTables::MinimalTables(const topo::Topology& t) : SwitchPairPorts(t) {
  // Every switch's hops to destination d (links are bidirectional: a search from d); port p of s is
  // a candidate when its peer switch is one hop closer to d. Destinations in blocks (kBuildBlock),
  // one bit-parallel search per block.
  constexpr std::size_t kB = kBuildBlock;
  static_assert(kB <= topo::BlockBfs::kMaxSources);
  const topo::SwitchRows graph = topo::switch_rows(t, [](const topo::Link&) { return true; });
  topo::BlockBfs bfs(nsw_);
  std::vector<std::int32_t> hops(nsw_ * kB);  // [switch * kB + k]: hops to the block's destination k
  std::int32_t dests[kB];
  build(
      [&](std::size_t d0, std::size_t nb) {
        for (std::size_t k = 0; k < nb; ++k) dests[k] = static_cast<std::int32_t>(d0 + k);
        bfs.run(graph, {dests, nb}, hops.data(), kB);
      },
      [&](std::size_t s, std::size_t, std::size_t nb, std::int32_t* dist, std::vector<std::vector<std::int16_t>>& out) {
        const std::int32_t* hs = &hops[s * kB];
        std::copy(hs, hs + nb, dist);
        // A port leads towards destination k when its peer is one hop closer (none for s itself,
        // unreachable destinations and the columns past a short last block).
        alignas(16) std::int32_t want[kB];
        for (std::size_t k = 0; k < kB; ++k) want[k] = k < nb && hs[k] > 0 ? hs[k] - 1 : kNoMatch;
        const auto& ports = t.ports[t.switch_node(static_cast<std::int32_t>(s))];
        for (std::size_t p = 0; p < ports.size(); ++p) {
          const std::int32_t peer = ports[p].peer;
          if (t.is_host(peer)) continue;
          // Ports are appended in increasing order per destination.
          for (std::uint32_t m = equal_mask(want, &hops[static_cast<std::size_t>(t.switch_index(peer)) * kB]); m != 0;
               m &= m - 1)
            out[static_cast<std::size_t>(__builtin_ctz(m))].push_back(static_cast<std::int16_t>(p));
        }
      });
  host_port_.resize(t.num_hosts);
  for (std::int32_t h = 0; h < t.num_hosts; ++h) host_port_[h] = static_cast<std::int16_t>(t.ports[h][0].peer_port);
}

std::size_t MinimalTables::bytes() const {
  return SwitchPairPorts::bytes() + host_port_.capacity() * sizeof(std::int16_t);
}

}  // namespace lbsim::routing
