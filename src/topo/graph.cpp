#include "topo/graph.h"

#include <algorithm>

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
    std::copy(bfs.dist().begin(), bfs.dist().end(), dist.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(s) * un));
  }
  return dist;
}

}  // namespace lbsim::topo
