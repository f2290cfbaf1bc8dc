#include "workload/goal.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "core/error.h"
#include "workload/validate.h"

namespace lbsim::workload {
namespace {

Workload parse(const std::string& text, GoalParams p = {}, std::int32_t hosts = 8,
               std::vector<std::string>* warn = nullptr) {
  std::istringstream in(text);
  return parse_goal(in, "s.goal", p, hosts, warn);
}

std::string error_of(const std::string& text, GoalParams p = {}, std::int32_t hosts = 8) {
  try {
    parse(text, p, hosts);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

// Longest chain of network transfers along deps (computations add no hop).
int transfer_depth(const Workload& w) {
  const auto order = topological_order(w);
  std::vector<int> depth(w.flows.size(), 0);
  int best = 0;
  for (auto i : order) {
    int d = 0;
    for (auto j : w.flows[i].deps) d = std::max(d, depth[j]);
    for (auto j : w.flows[i].start_deps) d = std::max(d, depth[j]);
    depth[i] = d + (w.flows[i].is_compute() ? 0 : 1);
    best = std::max(best, depth[i]);
  }
  return best;
}

TEST(Goal, BinaryTree32FromLogGOPSim) {
  GoalParams p;
  p.path = LBSIM_SOURCE_DIR "/data/goal/binary_tree_32.goal";
  std::vector<std::string> warn;
  auto w = read_goal(p, 32, &warn);  // throws if any recv were unmatched
  EXPECT_TRUE(warn.empty());
  // 31 sends (every rank but the root receives once) -> 31 transfers + 31 recv computations.
  const auto s = workload_stats(w);
  EXPECT_EQ(s.transfers, 31u);
  EXPECT_EQ(s.computations, 31u);
  EXPECT_EQ(s.total_bytes, 31);
  validate_workload(w, 32);  // includes acyclicity
  // Every rank but 0 receives exactly once, and every recv waits on a transfer into its own host.
  std::vector<int> received(32, 0);
  for (const auto& f : w.flows) {
    if (!f.is_compute()) continue;
    ASSERT_EQ(f.deps.size(), 1u);
    const auto& t = w.flows[f.deps[0]];
    EXPECT_FALSE(t.is_compute());
    EXPECT_EQ(t.dst, f.src);
    ++received[f.src];
  }
  EXPECT_EQ(received[0], 0);
  for (int r = 1; r < 32; ++r) EXPECT_EQ(received[r], 1) << r;
  // A binomial-tree broadcast over 32 ranks is log2(32) = 5 messages deep (0->1->3->7->15->31).
  EXPECT_EQ(transfer_depth(w), 5);
}

TEST(Goal, RequiresIrequiresCalcAndRecvSemantics) {
  auto w = parse(R"(
    num_ranks 2
    // rank 0 computes, then sends; a second send may start as soon as the first started
    rank 0 {
      c: calc 250 cpu 0
      s1: send 1000b to 1 tag 7
      s2: send 64b to 1
      s1 requires c
      s2 irequires s1
    }
    rank 1 {
      r1: recv 1000b from 0 tag 7   # matched with s1 by tag
      r2: recv 64b from 0 tag 0
      x: calc 10
      x requires r1
      x requires r2
    }
  )");
  ASSERT_EQ(w.flows.size(), 6u);
  const auto& c = w.flows[0];
  const auto& s1 = w.flows[1];
  const auto& s2 = w.flows[2];
  const auto& r1 = w.flows[3];
  const auto& r2 = w.flows[4];
  const auto& x = w.flows[5];
  EXPECT_EQ(c.compute, ns(250));  // 1 calc unit = 1 ns by default
  EXPECT_EQ(s1.src, 0);
  EXPECT_EQ(s1.dst, 1);
  EXPECT_EQ(s1.bytes, 1000);
  EXPECT_EQ(s1.deps, (std::vector<std::uint32_t>{0}));
  EXPECT_EQ(s2.start_deps, (std::vector<std::uint32_t>{1}));
  EXPECT_TRUE(s2.deps.empty());
  EXPECT_EQ(r1.compute, 0);
  EXPECT_EQ(r1.deps, (std::vector<std::uint32_t>{1}));
  EXPECT_EQ(r2.deps, (std::vector<std::uint32_t>{2}));
  EXPECT_EQ(x.deps, (std::vector<std::uint32_t>{3, 4}));
  EXPECT_EQ(x.compute, ns(10));
}

TEST(Goal, RecvWaitsForItsOwnDepsAndCalcUnitIsConfigurable) {
  GoalParams p;
  p.calc_unit = us(1);
  auto w =
      parse("num_ranks 2\nrank 0 { a: send 8b to 1 }\nrank 1 { c: calc 3\n r: recv 8b from 0\n r requires c }\n", p);
  ASSERT_EQ(w.flows.size(), 3u);
  EXPECT_EQ(w.flows[1].compute, us(3));
  // The recv completes after the transfer (entry 0) and after its own requirement (entry 1).
  EXPECT_EQ(w.flows[2].deps, (std::vector<std::uint32_t>{0, 1}));
}

TEST(Goal, MatchingIsInOrderPerSourceAndTag) {
  auto w = parse(
      "num_ranks 2\n"
      "rank 0 { a: send 10b to 1 tag 1\n b: send 20b to 1 tag 1\n }\n"
      "rank 1 { x: recv 10b from 0 tag 1\n y: recv 20b from 0 tag 1\n }\n");
  EXPECT_EQ(w.flows[2].deps, (std::vector<std::uint32_t>{0}));
  EXPECT_EQ(w.flows[3].deps, (std::vector<std::uint32_t>{1}));
}

TEST(Goal, RankToHostMapping) {
  GoalParams p;
  p.rank_to_host = {5, 2, 2};
  auto w = parse(
      "num_ranks 3\n"
      "rank 0 { a: send 10b to 1 }\n"
      "rank 1 { b: recv 10b from 0\n c: send 4b to 2\n c requires b }\n"
      "rank 2 { d: recv 4b from 1 }\n",
      p);
  EXPECT_EQ(w.flows[0].src, 5);
  EXPECT_EQ(w.flows[0].dst, 2);
  EXPECT_FALSE(w.flows[0].is_compute());
  // Ranks 1 and 2 share host 2: their message does not use the network.
  EXPECT_TRUE(w.flows[2].is_compute());
  EXPECT_EQ(w.flows[2].compute, 0);
  validate_workload(w, 8);
  p.rank_to_host = {0, 1};
  EXPECT_NE(error_of("num_ranks 3\n", p).find("mapping has 2 entries"), std::string::npos);
}

TEST(Goal, UnmatchedRecvNamesRankAndLabel) {
  const std::string e = error_of("num_ranks 2\nrank 0 {\n}\nrank 1 {\n  l7: recv 8b from 0 tag 3\n}\n");
  EXPECT_NE(e.find("s.goal:5: rank 1 label 'l7': recv of 8 bytes from rank 0 tag 3 has no matching send"),
            std::string::npos)
      << e;
  // A tag mismatch is unmatched too.
  EXPECT_NE(error_of("num_ranks 2\nrank 0 { a: send 8b to 1 tag 1 }\nrank 1 { b: recv 8b from 0 tag 2 }\n")
                .find("s.goal:3: rank 1 label 'b'"),
            std::string::npos);
}

TEST(Goal, UnmatchedSendIsAWarning) {
  std::vector<std::string> warn;
  auto w = parse("num_ranks 2\nrank 0 { a: send 8b to 1 }\nrank 1 { }\n", {}, 8, &warn);
  ASSERT_EQ(warn.size(), 1u);
  EXPECT_NE(warn[0].find("s.goal:2: 1 send(s) have no matching recv"), std::string::npos);
  EXPECT_EQ(w.flows.size(), 1u);
}

TEST(Goal, MalformedInputGivesTheRightLine) {
  // sPIN / one-sided operations are named as unsupported, not as typos (issue 18).
  for (const char* op : {"put", "get", "append"})
    EXPECT_NE(
        error_of(std::string("num_ranks 2\nrank 0 {\n  l1: ") + op + " 8b to 1\n}\n")
            .find(std::string("s.goal:3: operation '") + op + "' (sPIN / one-sided GOAL extension) is not supported"),
        std::string::npos)
        << op;
  EXPECT_NE(error_of("num_ranks 2\nrank 0 {\n  l1: sned 8b to 1\n}\n").find("s.goal:3: unknown operation 'sned'"),
            std::string::npos);
  EXPECT_NE(error_of("num_ranks 2\nrank 0 {\n  l1: send 8x to 1\n}\n").find("s.goal:3:"), std::string::npos);
  EXPECT_NE(error_of("num_ranks 2\nrank 0 {\n\n  l1: send 8b to 2\n}\n").find("s.goal:4: peer rank 2 is outside 0..1"),
            std::string::npos);
  EXPECT_NE(error_of("num_ranks 2\nrank 0 {\n  l1: calc 5\n  l1 requires l9\n}\n")
                .find("s.goal:4: unknown label 'l9' in rank 0"),
            std::string::npos);
  EXPECT_NE(
      error_of("num_ranks 2\nrank 0 {\n  l1: calc 5\n  l1: calc 6\n}\n").find("s.goal:4: label 'l1' defined twice"),
      std::string::npos);
  EXPECT_NE(error_of("num_ranks 2\nrank 2 {\n}\n").find("s.goal:2: rank 2 is outside"), std::string::npos);
  EXPECT_NE(error_of("num_ranks 2\nrank 0 {\n  l1 calc 5\n}\n").find("s.goal:3: expected ':' after label 'l1'"),
            std::string::npos);
  EXPECT_NE(error_of("num_ranks 2\nrank 0 {\n  l1: calc 5\n").find("unexpected end of file"), std::string::npos);
  EXPECT_NE(error_of("num_ranks 2\n/* open\n\n").find("s.goal:2: unterminated"), std::string::npos);
  EXPECT_NE(error_of("// header comment\n\nnum_ranks 20\n").find("s.goal:3: num_ranks 20 exceeds the 8 hosts"),
            std::string::npos);
  EXPECT_NE(error_of("ranks 2\n").find("s.goal:1: expected 'num_ranks'"), std::string::npos);
  // calc 1e17 units of 1 ns = 1e26 ps overflowed int64 and the run ended "0 flow(s) unfinished".
  EXPECT_NE(error_of("num_ranks 1\nrank 0 {\n  l1: calc 100000000000000000\n}\n")
                .find("s.goal:3: calc 100000000000000000 x calc_unit is beyond the largest simulated time"),
            std::string::npos);
}

TEST(Goal, CyclesAreErrors) {
  EXPECT_NE(error_of("num_ranks 1\nrank 0 {\n a: calc 1\n b: calc 1\n a requires b\n b requires a\n}\n").find("cycle"),
            std::string::npos);
}

}  // namespace
}  // namespace lbsim::workload
