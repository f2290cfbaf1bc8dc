// metrics::ValueLog (a streamed run's per-transfer summary values: one block in memory, the rest on a
// temporary file) and metrics::distribution_of (summary.json's distributions without holding the
// values: exact order statistics by radix selection), against the in-memory metrics::distribution.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/stats.h"
#include "metrics/report.h"
#include "metrics/value_log.h"

namespace lbsim {
namespace {

metrics::ValueSource source(const std::vector<double>& v) {
  return [&v](const std::function<void(double)>& out) {
    for (double x : v) out(x);
  };
}

void expect_same(const std::vector<double>& v, std::size_t collect_limit) {
  const auto a = metrics::distribution(v);
  const auto b = metrics::distribution_of(source(v), collect_limit);
  EXPECT_EQ(a.count, b.count);
  // Exact: the same doubles, not close ones.
  EXPECT_EQ(a.min, b.min);
  EXPECT_EQ(a.max, b.max);
  EXPECT_EQ(a.mean, b.mean);
  EXPECT_EQ(a.p50, b.p50);
  EXPECT_EQ(a.p99, b.p99);
}

TEST(SummaryValues, DistributionEqualsTheSortedOne) {
  std::mt19937_64 rng(7);
  for (const std::size_t limit : {std::size_t{1}, std::size_t{16}, std::size_t{1} << 16}) {
    SCOPED_TRACE(limit);
    expect_same({}, limit);
    expect_same({3.5}, limit);
    expect_same({2.0, 1.0}, limit);
    expect_same(std::vector<double>(1000, 42.125), limit);  // all equal: every digit level
    // FCT-like values (us, lognormal), slowdowns near 1, duplicates, and values that share their top
    // 32 bits (1 + i ulp) so that the radix walks down to the last digit.
    std::lognormal_distribution<double> fct(3.0, 1.5);
    std::vector<double> a, b, c, d;
    for (int i = 0; i < 50001; ++i) a.push_back(fct(rng));
    for (int i = 0; i < 20000; ++i) b.push_back(1.0 + static_cast<double>(rng() % 1000) / 997.0);
    for (int i = 0; i < 30000; ++i) c.push_back(std::nextafter(1.0, 2.0) + static_cast<double>(rng() % 300) * 2.2e-16);
    for (int i = 0; i < 999; ++i) d.push_back(static_cast<double>(static_cast<int>(rng() % 2001) - 1000) / 8.0);
    d.push_back(0.0);
    expect_same(a, limit);
    expect_same(b, limit);
    expect_same(c, limit);
    expect_same(d, limit);  // negatives and zero
  }
}

TEST(SummaryValues, EveryOrderStatisticOfASmallSet) {
  std::mt19937_64 rng(3);
  std::vector<double> v;
  for (int i = 0; i < 65; ++i) v.push_back(static_cast<double>(rng() % 50) - 10.5);
  std::vector<std::uint64_t> ranks;
  for (std::uint64_t r = 0; r < v.size(); ++r) ranks.push_back(r);
  auto sorted = v;
  std::sort(sorted.begin(), sorted.end());
  for (const std::size_t limit : {std::size_t{0}, std::size_t{4}, std::size_t{1000}})
    EXPECT_EQ(metrics::order_statistics(source(v), ranks, limit), sorted) << limit;
  EXPECT_THROW(metrics::order_statistics(source(v), {v.size()}), std::logic_error);
}

TEST(SummaryValues, LogKeepsOneBlockInMemoryAndTheRestOnFile) {
  metrics::ValueLog log(8);
  for (int i = 0; i < 100; ++i) log.push({i * 1000, i * 10, i % 3});
  EXPECT_EQ(log.size(), 100u);
  EXPECT_EQ(log.spilled(), 96u);  // 12 full blocks
  EXPECT_LE(log.bytes(), 8 * sizeof(metrics::TransferValues));
  std::vector<metrics::TransferValues> back;
  log.for_each([&](const metrics::TransferValues& v) { back.push_back(v); });
  ASSERT_EQ(back.size(), 100u);
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(back[static_cast<std::size_t>(i)].fct, i * 1000);
    EXPECT_EQ(back[static_cast<std::size_t>(i)].ideal, i * 10);
    EXPECT_EQ(back[static_cast<std::size_t>(i)].tag, i % 3);
  }
  // Moved, the file goes with it; read twice, the same records.
  metrics::ValueLog moved = std::move(log);
  std::size_t n = 0;
  std::int64_t sum = 0;
  for (int k = 0; k < 2; ++k)
    moved.for_each([&](const metrics::TransferValues& v) {
      ++n;
      sum += v.fct;
    });
  EXPECT_EQ(n, 200u);
  EXPECT_EQ(sum, 2 * 1000 * (99 * 100 / 2));
}

TEST(SummaryValues, UnwritableTemporaryFolderIsAClearError) {
  const char* old = std::getenv("TMPDIR");
  const std::string keep = old ? old : "";
  setenv("TMPDIR", "/nonexistent-lbsim-folder", 1);
  metrics::ValueLog log(2);
  log.push({1, 1, 0});
  try {
    log.push({2, 2, 0});
    ADD_FAILURE() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-lbsim-folder"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("TMPDIR"), std::string::npos) << e.what();
  }
  if (old)
    setenv("TMPDIR", keep.c_str(), 1);
  else
    unsetenv("TMPDIR");
}

}  // namespace
}  // namespace lbsim
