// Benchmark (not a test): time to enumerate the bounded simple paths of every switch pair of the
// two Table II networks ([Spritz] Table I/II). `build/bench/bench_paths`.
#include <chrono>
#include <cstdio>

#include "topo/dragonfly.h"
#include "topo/paths.h"
#include "topo/slim_fly.h"

int main() {
  using namespace lbsim::topo;
  Topology df = build_dragonfly(DragonflyParams{});
  SlimFlyParams sp;
  sp.q = 9;
  Topology sf = build_slim_fly(sp);
  for (const Topology* t : {&df, &sf}) {
    PathEnumerator pe(*t);
    const auto t0 = std::chrono::steady_clock::now();
    long long n = 0, maxp = 0;
    for (int s = 0; s < t->num_switches(); ++s)
      for (int d = 0; d < t->num_switches(); ++d) {
        const auto ps = pe.paths(t->switch_node(s), t->switch_node(d));
        n += static_cast<long long>(ps.size());
        if (static_cast<long long>(ps.size()) > maxp) maxp = static_cast<long long>(ps.size());
      }
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::printf("bench paths %s: %lld paths over all switch pairs, max %lld per pair, %.0f ms\n", t->kind.c_str(), n,
                maxp, ms);
  }
}
