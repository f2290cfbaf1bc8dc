// Small hand-made graphs for the layered-routing, deadlock and MAT tests.
#pragma once
#include <vector>

namespace lbsim::testgraphs {

inline std::vector<std::vector<int>> ring(int n) {
  std::vector<std::vector<int>> a(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    a[static_cast<std::size_t>(i)].push_back((i + 1) % n);
    a[static_cast<std::size_t>((i + 1) % n)].push_back(i);
  }
  return a;
}

inline std::vector<std::vector<int>> complete(int n) {
  std::vector<std::vector<int>> a(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (i != j) a[static_cast<std::size_t>(i)].push_back(j);
  return a;
}

// Petersen graph: outer 5-cycle 0..4, spokes i - i+5, inner pentagram 5+i - 5+(i+2)%5. It is the
// MMS-like Moore graph of degree 3 and diameter 2 (girth 5), a small stand-in for a Slim Fly.
inline std::vector<std::vector<int>> petersen() {
  std::vector<std::vector<int>> a(10);
  auto add = [&](int u, int v) {
    a[static_cast<std::size_t>(u)].push_back(v);
    a[static_cast<std::size_t>(v)].push_back(u);
  };
  for (int i = 0; i < 5; ++i) {
    add(i, (i + 1) % 5);
    add(i, i + 5);
    add(5 + i, 5 + (i + 2) % 5);
  }
  return a;
}

// Complete bipartite graph: leaves 0..m-1, spines m..m+s-1 (a 2-level fat tree / folded Clos).
inline std::vector<std::vector<int>> bipartite(int m, int s) {
  std::vector<std::vector<int>> a(static_cast<std::size_t>(m + s));
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < s; ++j) {
      a[static_cast<std::size_t>(i)].push_back(m + j);
      a[static_cast<std::size_t>(m + j)].push_back(i);
    }
  return a;
}

}  // namespace lbsim::testgraphs
