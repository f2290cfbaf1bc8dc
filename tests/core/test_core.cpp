#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

#include "core/event_queue.h"
#include "core/huge_pages.h"
#include "core/pair_map.h"
#include "core/rng.h"
#include "core/stats.h"
#include "core/time.h"

using namespace lbsim;

TEST(Time, SerializationIsExact) {
  // 400 Gb/s and a 4160-byte packet: 4160 * 8 / 400e9 s = 83.2 ns (docs/architecture.md "Design decisions").
  EXPECT_EQ(serialization_ps(4160, gbps(400)), 83'200);
  EXPECT_EQ(serialization_ps(64, gbps(400)), 1'280);
  EXPECT_EQ(serialization_ps(4160, gbps(200)), 166'400);
  // 100 Gb/s, 1500 B: 120 ns.
  EXPECT_EQ(serialization_ps(1500, gbps(100)), 120'000);
  // Rounds up when inexact: 1 byte at 3 Gb/s = 2666.67 ps.
  EXPECT_EQ(serialization_ps(1, 3'000'000'000), 2'667);
  EXPECT_EQ(bytes_in(us(1), gbps(400)), 50'000);
}

// Out-of-range conversions saturate instead of the undefined behaviour of the cast (issue 14).
TEST(Time, ConversionsSaturate) {
  EXPECT_EQ(from_us(1.5), 1'500'000);
  EXPECT_EQ(from_ns(-2.0), -2'000);
  EXPECT_EQ(from_us(1e300), kTimeNever);
  EXPECT_EQ(from_us(9.3e12), kTimeNever);
  EXPECT_EQ(from_us(-1e300), -kTimeNever);
  EXPECT_EQ(from_ns(std::nan("")), kTimeNever);
  EXPECT_TRUE(fits_sim_time(9e18));
  EXPECT_FALSE(fits_sim_time(9.1e18));
  EXPECT_FALSE(fits_sim_time(-1));
}

TEST(EventQueue, OrdersByTimeThenInsertion) {
  EventQueue q;
  q.push(50, 1, 0);
  q.push(10, 1, 1);
  q.push(50, 1, 2);
  q.push(10, 1, 3);
  q.push(30, 1, 4);
  std::vector<std::uint32_t> order;
  while (!q.empty()) order.push_back(q.pop().obj);
  EXPECT_EQ(order, (std::vector<std::uint32_t>{1, 3, 4, 0, 2}));
}

TEST(EventQueue, RandomisedAgainstStableSort) {
  EventQueue q;
  Rng rng(7, 1);
  std::vector<std::pair<SimTime, std::uint32_t>> ref;
  for (std::uint32_t i = 0; i < 20000; ++i) {
    const SimTime t = static_cast<SimTime>(rng.below(500));
    q.push(t, 0, i);
    ref.emplace_back(t, i);
  }
  std::stable_sort(ref.begin(), ref.end(), [](auto& a, auto& b) { return a.first < b.first; });
  for (const auto& [t, i] : ref) {
    const Event e = q.pop();
    ASSERT_EQ(e.time, t);
    ASSERT_EQ(e.obj, i);
  }
}

// The queue's kept capacity is bounded by the events queued, not by the time simulated: a long run
// whose few events come in bursts (a burst of 200 events every 8 buckets, drained before the next,
// lap after lap of the wheel) reuses the same arena blocks, so it keeps 200 events' worth of blocks.
TEST(EventQueue, KeptCapacityDoesNotGrowWithSimulatedTime) {
  EventQueue q;
  const SimTime width = SimTime{1} << EventQueue::kShift;
  SimTime now = 0;
  std::size_t max_retained = 0;
  for (std::int64_t lap = 0; lap < 3; ++lap) {
    for (std::int64_t b = 0; b < EventQueue::kBuckets; b += 8) {
      for (int i = 0; i < 200; ++i) q.push(now + 8 * width, 0, static_cast<std::uint32_t>(i));
      while (!q.empty()) now = q.pop().time;
      max_retained = std::max(max_retained, q.retained());
    }
  }
  // 200 events fill 25 blocks; the arena never holds more than one burst plus one block.
  EXPECT_GE(max_retained, std::size_t{200});
  EXPECT_LE(max_retained, std::size_t{200} + EventQueue::kBlock);
}

TEST(Rng, StreamsAreReproducibleAndIndependent) {
  Rng a(42, hash_name("ecn"), 3), b(42, hash_name("ecn"), 3), c(42, hash_name("ecn"), 4), d(43, hash_name("ecn"), 3);
  for (int i = 0; i < 100; ++i) {
    const auto x = a.next();
    EXPECT_EQ(x, b.next());
    EXPECT_NE(x, c.next());
    EXPECT_NE(x, d.next());
  }
}

TEST(Rng, BelowIsUniform) {
  Rng r(1, 2);
  std::vector<int> counts(10, 0);
  const int n = 100000;
  for (int i = 0; i < n; ++i) ++counts[r.below(10)];
  // Chi-square with 9 degrees of freedom; 27.9 is the 99.9% quantile.
  double chi = 0;
  for (int c : counts) chi += (c - n / 10.0) * (c - n / 10.0) / (n / 10.0);
  EXPECT_LT(chi, 27.9);
}

TEST(Stats, Percentiles) {
  std::vector<double> v{5, 1, 4, 2, 3};
  EXPECT_DOUBLE_EQ(percentile(v, 50), 3);
  EXPECT_DOUBLE_EQ(percentile(v, 0), 1);
  EXPECT_DOUBLE_EQ(percentile(v, 100), 5);
  EXPECT_DOUBLE_EQ(percentile(v, 25), 2);
  EXPECT_DOUBLE_EQ(percentile({}, 50), 0);
}

// PairMap (core/pair_map.h) against std::map over random ordered pairs, with overwrites, growth
// through many doublings and pairs that differ only in order or in one id.
TEST(PairMap, AgreesWithAnOrderedMap) {
  PairMap m;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> ref;
  EXPECT_EQ(m.find(0, 0), PairMap::kMissing);
  Rng rng(7, 1, 2);
  for (std::uint32_t i = 0; i < 20'000; ++i) {
    const auto a = static_cast<std::uint32_t>(rng.below(300)), b = static_cast<std::uint32_t>(rng.below(300));
    m.put(a, b, i);
    ref[{a, b}] = i;
  }
  EXPECT_EQ(m.size(), ref.size());
  EXPECT_GT(ref.size(), 16'000u);  // most of the 90,000 pairs drawn once, some twice (overwritten)
  for (std::uint32_t a = 0; a < 300; ++a)
    for (std::uint32_t b = 0; b < 300; ++b) {
      const auto it = ref.find({a, b});
      ASSERT_EQ(m.find(a, b), it == ref.end() ? PairMap::kMissing : it->second) << a << " " << b;
    }
  // Large ids (a switch index near 2^16 and beyond) and the two orders of one pair.
  m.put(65'535, 1, 5);
  m.put(1, 65'535, 6);
  m.put(0xFFFF'FFFEu, 0, 7);
  EXPECT_EQ(m.find(65'535, 1), 5u);
  EXPECT_EQ(m.find(1, 65'535), 6u);
  EXPECT_EQ(m.find(0xFFFF'FFFEu, 0), 7u);
  EXPECT_EQ(m.find(0, 0xFFFF'FFFEu), PairMap::kMissing);
  // At most half full: the table holds between 2x and 4x the pairs (16-byte entries).
  EXPECT_GE(m.bytes(), 2 * m.size() * 16);
  EXPECT_LE(m.bytes(), 4 * m.size() * 16);
  m.clear();
  EXPECT_EQ(m.size(), 0u);
  EXPECT_EQ(m.find(65'535, 1), PairMap::kMissing);
}

// The heap on transparent huge pages (core/huge_pages.h): when lbsim re-executes itself, with what.
TEST(HugePages, TunablesToSetAndTheKernelMode) {
  using namespace lbsim::huge_pages;
  // The bracketed word of /sys/kernel/mm/transparent_hugepage/enabled is the mode in force.
  EXPECT_EQ(thp_mode("always [madvise] never\n"), "madvise");
  EXPECT_EQ(thp_mode("[always] madvise never\n"), "always");
  EXPECT_EQ(thp_mode("always madvise [never]\n"), "never");
  EXPECT_EQ(thp_mode(""), "");  // no such file: no THP
  EXPECT_EQ(thp_mode("always madvise never"), "");
  // Only on request ("madvise") does the heap need glibc's request.
  EXPECT_EQ(tunables_to_set(nullptr, nullptr, "madvise"), "glibc.malloc.hugetlb=1");
  EXPECT_EQ(tunables_to_set("", nullptr, "madvise"), "glibc.malloc.hugetlb=1");
  EXPECT_EQ(tunables_to_set(nullptr, nullptr, "always"), "");
  EXPECT_EQ(tunables_to_set(nullptr, nullptr, "never"), "");
  EXPECT_EQ(tunables_to_set(nullptr, nullptr, ""), "");
  // The user's own tunables are kept; their own hugetlb setting wins (and ends the re-execution).
  EXPECT_EQ(tunables_to_set("glibc.malloc.mmap_threshold=4096", nullptr, "madvise"),
            "glibc.malloc.mmap_threshold=4096:glibc.malloc.hugetlb=1");
  EXPECT_EQ(tunables_to_set("glibc.malloc.hugetlb=0", nullptr, "madvise"), "");
  EXPECT_EQ(tunables_to_set("glibc.malloc.hugetlb=1", nullptr, "madvise"), "");
  // LBSIM_HUGEPAGES=0 turns it off; any other value leaves it on.
  EXPECT_EQ(tunables_to_set(nullptr, "0", "madvise"), "");
  EXPECT_EQ(tunables_to_set(nullptr, "1", "madvise"), "glibc.malloc.hugetlb=1");
}
