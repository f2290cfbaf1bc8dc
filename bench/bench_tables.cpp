// Benchmark (not a test): time to build the per-switch-pair routing state of a run on large
// networks (docs/scale.md "Setup time"): the min-hop tables (routing::MinimalTables), the Dragonfly's
// local-global-local routes (routing::MinimalRoutes) and the base RTT's farthest pair over one host
// per switch (routing::PathModel::farthest_pair, as sim/derived.cpp asks for it).
// `build/bench/bench_tables [fat_tree|dragonfly|slim_fly ...]`; without arguments all three:
// the 65,536-host 3-tier fat tree (k = 64), the 83,232-host Dragonfly (p = 12, a = 24, h = 12) and
// the Slim Fly q = 29 (p = 15) of `make bench BENCH_LARGE=1`. The l-g-l build includes checking
// its routes from the groups (routing::GroupRoutes) against every pair.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "routing/minimal.h"
#include "routing/path_model.h"
#include "topo/dragonfly.h"
#include "topo/fat_tree.h"
#include "topo/slim_fly.h"

namespace {

using namespace lbsim;

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

void run(const std::string& name, const topo::Topology& t) {
  auto t0 = std::chrono::steady_clock::now();
  const routing::MinimalTables tables(t);
  const double ms_tables = ms_since(t0);
  double ms_routes = 0;
  const char* computed = "-";
  if (t.minimal_one_global_hop) {
    t0 = std::chrono::steady_clock::now();
    const routing::MinimalRoutes routes(t);
    ms_routes = ms_since(t0);
    computed = routes.arithmetic() ? "yes" : "no";
  }
  std::vector<std::int32_t> rep;
  for (std::int32_t s = 0; s < t.num_switches(); ++s) {
    const auto hs = t.hosts_of(t.switch_node(s));
    if (!hs.empty()) rep.push_back(hs.front());
  }
  const routing::PathModel pm(tables, ns(300));
  t0 = std::chrono::steady_clock::now();
  const auto far = pm.farthest_pair(rep, 4160, 64);
  const double ms_far = ms_since(t0);
  std::printf(
      "bench tables %s: %d switches, %zu distinct sets; min-hop tables %.0f ms, l-g-l routes %.0f ms, "
      "farthest pair %.0f ms (hosts %d -> %d, %lld ps); l-g-l routes from the groups: %s\n",
      name.c_str(), t.num_switches(), tables.distinct_sets(), ms_tables, ms_routes, ms_far, far.a, far.b,
      static_cast<long long>(far.rtt), computed);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> which(argv + 1, argv + argc);
  if (which.empty()) which = {"fat_tree", "dragonfly", "slim_fly"};
  for (const auto& w : which) {
    if (w == "fat_tree") {
      topo::FatTreeParams p;
      p.hosts = 65536;
      p.tiers = 3;
      p.radix = 64;
      run(w, topo::build_fat_tree(p));
    } else if (w == "dragonfly") {
      topo::DragonflyParams p;
      p.p = 12;
      p.a = 24;
      p.h = 12;
      run(w, topo::build_dragonfly(p));
    } else if (w == "slim_fly") {
      topo::SlimFlyParams p;
      p.q = 29;
      p.p = 15;
      run(w, topo::build_slim_fly(p));
    } else {
      std::fprintf(stderr, "bench_tables: unknown network '%s' (fat_tree, dragonfly, slim_fly)\n", w.c_str());
      return 2;
    }
  }
}
