// The Fig. 7 background ([Spritz] sec. V-B b: "all other endpoints ... participate in a permutation
// among themselves using ECMP"): with workload.background_lb = "pinned_ecmp" every background flow
// takes one bounded path drawn from (seed, flow) alone, the same whatever the routing and load
// balancer of the collective (lb/policy.h kPinnedEcmp), so that the rows of Fig. 7 share one background.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../sim/helpers.h"
#include "sim/simulation.h"

using namespace lbsim;

namespace {

// Dragonfly p = 2, a = 4, h = 2 (72 hosts): a 16-rank ring allreduce on random endpoints, the other
// 56 hosts in a background permutation; path_usage.csv records the background flows.
config::Config collective(const std::string& routing, const std::string& lb, const std::string& background_lb) {
  config::Config c;
  for (const char* o : {"topology.kind=\"dragonfly\"", "topology.p=2", "topology.a=4", "topology.h=2",
                        "workload.kind=\"ring_allreduce\"", "workload.ranks=16", "workload.random_subset=true",
                        "workload.size=\"64KiB\"", "workload.background=true", "output.path_usage_tag=\"background\"",
                        "run.progress=\"off\""})
    config::apply_override(c, o);
  c.set("routing.algorithm", routing);
  c.set("lb.algorithm", lb);
  c.set("workload.background_lb", background_lb);
  return c;
}

// (flow, ev, path) of every path_usage.csv row, and the number of data packets per flow.
struct Usage {
  std::set<std::string> paths;
  std::vector<std::string> lines;
};
Usage usage(const std::string& dir) {
  Usage u;
  std::istringstream in(test::read_file(dir + "/path_usage.csv"));
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line.rfind("flow,src,dst,ev,ev1,ev2,entry,latency_ns,switch_hops,category,path,sent", 0), 0u) << line;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    // flow, src, dst, ev, then the path (column 10).
    u.lines.push_back(f[0] + "," + f[1] + "," + f[2] + "," + f[3] + "," + f[10]);
    u.paths.insert(f[10]);
  }
  return u;
}

Usage run(const std::string& name, const std::string& routing, const std::string& lb, const std::string& bg) {
  const std::string dir = test::temp_dir("pinned-bg-" + name);
  auto c = collective(routing, lb, bg);
  sim::Simulation s(c);
  EXPECT_EQ(s.run(), 0) << name;
  EXPECT_TRUE(lbsim::test::conserved(s));
  s.write_outputs(dir);
  return usage(dir);
}

}  // namespace

TEST(PinnedBackground, SamePathsUnderEveryScheme) {
  const auto minimal = run("minimal", "minimal", "ecmp", "pinned_ecmp");
  const auto valiant = run("valiant", "valiant", "ecmp", "pinned_ecmp");
  const auto spray = run("spray", "source_guided", "spritz_spray_u", "pinned_ecmp");
  const auto ecmp = run("ecmp", "ecmp_paths", "ecmp", "pinned_ecmp");
  // 56 background flows, one EV (one row) each, every row naming its switches.
  ASSERT_EQ(minimal.lines.size(), 56u);
  for (const auto& l : minimal.lines) EXPECT_NE(l.back(), ',') << "no path replayed: " << l;
  EXPECT_EQ(valiant.lines, minimal.lines);
  EXPECT_EQ(spray.lines, minimal.lines);
  EXPECT_EQ(ecmp.lines, minimal.lines);
  // ECMP over the bounded paths: some background flows take non-minimal paths (more than the
  // 4 switches of local-global-local), so the background is not simply minimal routing.
  std::size_t longer = 0;
  for (const auto& p : minimal.paths) longer += std::count(p.begin(), p.end(), '>') > 3;
  EXPECT_GT(longer, 0u);
}

TEST(PinnedBackground, PlainEcmpBackgroundFollowsTheRunsRouting) {
  // Control: with background_lb = "ecmp" the background's EV is a hash and its path is whatever the
  // run's routing makes of it - under source-guided routing the fixed EV names a bounded path, which
  // is not in general the pinned one.
  const auto pinned = run("sg-pinned", "source_guided", "spritz_spray_u", "pinned_ecmp");
  const auto plain = run("sg-plain", "source_guided", "spritz_spray_u", "ecmp");
  ASSERT_EQ(plain.lines.size(), 56u);
  EXPECT_NE(plain.lines, pinned.lines);
}
