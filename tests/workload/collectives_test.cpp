#include "workload/collectives.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <numeric>
#include <set>

#include "core/error.h"
#include "workload/validate.h"

namespace lbsim::workload {
namespace {

std::vector<std::int32_t> iota_hosts(int k, int first = 0) {
  std::vector<std::int32_t> v(k);
  std::iota(v.begin(), v.end(), first);
  return v;
}

// Entries grouped by their "step<s>" tag.
std::map<int, std::vector<std::uint32_t>> by_step(const Workload& w) {
  std::map<int, std::vector<std::uint32_t>> m;
  for (std::uint32_t i = 0; i < w.flows.size(); ++i) {
    const auto& name = w.tags[w.flows[i].tag];
    if (name.rfind("step", 0) == 0) m[std::stoi(name.substr(4))].push_back(i);
  }
  return m;
}

TEST(RingAllreduce, StepsSizesAndDependencies) {
  const int k = 8;
  Workload w;
  append_ring_allreduce(w, iota_hosts(k, 10), 8 << 20, us(1), "reps");
  validate_workload(w, 64);
  auto steps = by_step(w);
  ASSERT_EQ(steps.size(), static_cast<std::size_t>(2 * (k - 1)));  // 2(k-1) steps
  for (auto& [s, entries] : steps) {
    ASSERT_EQ(entries.size(), static_cast<std::size_t>(k)) << s;
    for (auto e : entries) {
      const auto& f = w.flows[e];
      EXPECT_EQ(f.bytes, (8 << 20) / k);  // size/k
      EXPECT_EQ(f.dst - 10, (f.src - 10 + 1) % k);
      EXPECT_EQ(f.start, us(1));
      EXPECT_EQ(f.lb, "reps");
      if (s == 0) {
        EXPECT_TRUE(f.deps.empty());
        continue;
      }
      // Depends on exactly the message this rank received in the previous step.
      ASSERT_EQ(f.deps.size(), 1u);
      const auto& d = w.flows[f.deps[0]];
      EXPECT_EQ(w.tags[d.tag], fmt::format("step{}", s - 1));
      EXPECT_EQ(d.dst, f.src);
    }
  }
}

TEST(RingAllreduce, UnevenSizesStillMoveTheWholeVectorPerStep) {
  const int k = 6;
  const Bytes bytes = 1000003;
  Workload w;
  append_ring_allreduce(w, iota_hosts(k), bytes, 0, "");
  for (auto& [s, entries] : by_step(w)) {
    Bytes sum = 0;
    for (auto e : entries) {
      sum += w.flows[e].bytes;
      EXPECT_TRUE(w.flows[e].bytes == bytes / k || w.flows[e].bytes == bytes / k + 1);
    }
    EXPECT_EQ(sum, bytes) << s;  // the k ranks send k distinct chunks in every step
  }
}

TEST(ButterflyAllreduce, HalvingDoublingStructure) {
  const int k = 16;  // log2 k = 4
  const Bytes bytes = 1 << 20;
  Workload w;
  append_butterfly_allreduce(w, iota_hosts(k), bytes, 0, "", ButterflyVariant::kHalvingDoubling);
  validate_workload(w, k);
  // 2 log2 k steps of k messages: 2 k log2 k = 128 messages.
  EXPECT_EQ(w.flows.size(), 128u);
  auto steps = by_step(w);
  ASSERT_EQ(steps.size(), 8u);
  const Bytes sizes[8] = {bytes / 2, bytes / 4, bytes / 8, bytes / 16, bytes / 16, bytes / 8, bytes / 4, bytes / 2};
  const int dist[8] = {8, 4, 2, 1, 1, 2, 4, 8};
  Bytes per_rank = 0;
  for (auto& [s, entries] : steps) {
    ASSERT_EQ(entries.size(), 16u);
    for (auto e : entries) {
      const auto& f = w.flows[e];
      EXPECT_EQ(f.bytes, sizes[s]) << s;
      EXPECT_EQ(f.dst, f.src ^ dist[s]) << s;
      if (f.src == 0) per_rank += f.bytes;
      if (s > 0) {
        ASSERT_EQ(f.deps.size(), 1u);
        const auto& d = w.flows[f.deps[0]];
        EXPECT_EQ(d.dst, f.src);
        EXPECT_EQ(d.src, f.src ^ dist[s - 1]);
      }
    }
  }
  // Rabenseifner: each rank sends 2 (k-1)/k of the vector.
  EXPECT_EQ(per_rank, 2 * bytes * (k - 1) / k);
}

TEST(ButterflyAllreduce, RecursiveDoublingAndPowerOfTwoCheck) {
  Workload w;
  append_butterfly_allreduce(w, iota_hosts(8), 4096, 0, "", ButterflyVariant::kRecursiveDoubling);
  EXPECT_EQ(w.flows.size(), 8u * 3u);  // k log2 k
  for (const auto& f : w.flows) EXPECT_EQ(f.bytes, 4096);
  Workload bad;
  EXPECT_THROW(append_butterfly_allreduce(bad, iota_hosts(12), 4096, 0, "", ButterflyVariant::kHalvingDoubling),
               UserError);
}

TEST(Alltoall, WindowLimitsParallelConnections) {
  const int k = 8, n = 2;
  Workload w;
  append_alltoall(w, iota_hosts(k), 65536, n, 0, "");
  validate_workload(w, k);
  EXPECT_EQ(w.flows.size(), static_cast<std::size_t>(k * (k - 1)));
  // Every ordered pair exactly once.
  std::set<std::pair<int, int>> pairs;
  for (const auto& f : w.flows) pairs.insert({f.src, f.dst});
  EXPECT_EQ(pairs.size(), static_cast<std::size_t>(k * (k - 1)));
  // The first n sends of each rank start freely, each later one waits for the send n before it:
  // k * (k-1-n) dependent messages.
  std::size_t dependent = 0;
  for (const auto& f : w.flows) {
    if (f.deps.empty()) continue;
    ++dependent;
    ASSERT_EQ(f.deps.size(), 1u);
    const auto& d = w.flows[f.deps[0]];
    EXPECT_EQ(d.src, f.src);
    EXPECT_EQ((f.dst - d.dst + k) % k, n);  // its n-th predecessor in the destination order
  }
  EXPECT_EQ(dependent, static_cast<std::size_t>(k * (k - 1 - n)));
  Workload all;
  append_alltoall(all, iota_hosts(k), 1, k - 1, 0, "");
  for (const auto& f : all.flows) EXPECT_TRUE(f.deps.empty());
  EXPECT_THROW(append_alltoall(all, iota_hosts(k), 1, 0, 0, ""), UserError);
}

TEST(LapsPatterns, ParameterServerAndAllscatter) {
  Workload w;
  append_ps_allreduce(w, iota_hosts(6), 2, 1000, true, 0, "");
  ASSERT_EQ(w.flows.size(), 10u);  // 5 to the root, 5 back
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(w.flows[i].dst, 2);
    EXPECT_TRUE(w.flows[i].deps.empty());
  }
  for (int i = 5; i < 10; ++i) {
    EXPECT_EQ(w.flows[i].src, 2);
    EXPECT_EQ(w.flows[i].deps.size(), 5u);
  }
  Workload s;
  append_allscatter(s, iota_hosts(6), 0, 1000, 0, "");
  ASSERT_EQ(s.flows.size(), 5u);
  for (const auto& f : s.flows) EXPECT_EQ(f.src, 0);
}

TEST(MakeCollective, SubsetWithEcmpBackgroundPermutation) {
  CollectiveParams p;
  p.kind = CollectiveKind::kRingAllreduce;
  p.ranks = 128;
  p.random_subset = true;
  p.bytes = 1 << 20;
  auto w = make_collective(p, 1056, 3);
  validate_workload(w, 1056);
  const auto bg = w.tag("background");
  std::set<int> coll, back_src, back_dst;
  std::size_t n_bg = 0;
  for (const auto& f : w.flows) {
    if (f.tag == bg) {
      ++n_bg;
      EXPECT_EQ(f.lb, "ecmp");
      back_src.insert(f.src);
      back_dst.insert(f.dst);
    } else {
      coll.insert(f.src);
      coll.insert(f.dst);
    }
  }
  EXPECT_EQ(coll.size(), 128u);
  EXPECT_EQ(n_bg, 1056u - 128u);
  EXPECT_EQ(back_src.size(), 928u);
  EXPECT_EQ(back_dst.size(), 928u);
  for (int h : coll) EXPECT_FALSE(back_src.count(h) || back_dst.count(h));
  const auto first128 = iota_hosts(128);
  EXPECT_FALSE(coll == std::set<int>(first128.begin(), first128.end()));  // random, not 0..127

  p.random_subset = false;
  p.first_host = 64;
  auto c = make_collective(p, 1056, 3);
  for (const auto& f : c.flows)
    if (f.tag != c.tag("background")) {
      EXPECT_TRUE(f.src >= 64 && f.src < 192);
    }

  p.ranks = 2000;
  EXPECT_THROW(make_collective(p, 1056, 3), UserError);
}

}  // namespace
}  // namespace lbsim::workload
