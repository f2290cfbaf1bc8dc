#include "topo/graph.h"

#include <algorithm>
#include <stdexcept>

namespace lbsim::topo {

std::vector<std::int32_t> all_pairs_distances(const AdjacencyLists& adj) {
  const auto n = static_cast<std::int32_t>(adj.size());
  const auto un = static_cast<std::size_t>(n);
  std::vector<std::int32_t> dist(un * un);
  Bfs bfs(n);
  for (std::int32_t s = 0; s < n; ++s) {
    bfs.run(s, [&](std::int32_t u, auto&& reach) {
      for (const auto v : adj[static_cast<std::size_t>(u)]) reach(v, u);
    });
    std::copy(bfs.dist().begin(), bfs.dist().end(),
              dist.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(s) * un));
  }
  return dist;
}

void BlockBfs::run(const SwitchRows& g, std::span<const std::int32_t> sources, std::int32_t* hops, std::size_t stride) {
  const std::size_t n = g.size(), nb = sources.size();
  if (nb > kMaxSources || seen_.size() < n) throw std::logic_error("BlockBfs: more than 32 sources or a larger graph");
  const std::uint32_t all = nb == 32 ? ~0u : (1u << nb) - 1;
  for (std::size_t u = 0; u < n; ++u) {
    seen_[u] = front_[u] = 0;
    std::fill(hops + u * stride, hops + u * stride + nb, -1);
  }
  for (std::size_t k = 0; k < nb; ++k) {
    const auto s = static_cast<std::size_t>(sources[k]);
    seen_[s] |= 1u << k;
    front_[s] |= 1u << k;
    hops[s * stride + k] = 0;
  }
  for (std::int32_t level = 1;; ++level) {
    bool any = false;
    for (std::size_t u = 0; u < n; ++u) {
      next_[u] = seen_[u] == all ? 0 : g.gather(u, front_) & ~seen_[u];
    }
    for (std::size_t u = 0; u < n; ++u) {
      std::uint32_t w = next_[u];
      if (w == 0) continue;
      any = true;
      seen_[u] |= w;
      for (; w != 0; w &= w - 1) hops[u * stride + static_cast<std::size_t>(__builtin_ctz(w))] = level;
    }
    if (!any) break;
    front_.swap(next_);
  }
}

}  // namespace lbsim::topo
