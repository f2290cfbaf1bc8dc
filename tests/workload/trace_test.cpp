#include "workload/trace.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "core/error.h"
#include "workload/validate.h"

namespace lbsim::workload {
namespace {

const std::string kData = LBSIM_SOURCE_DIR "/data/flow-size-cdf/";

// Offered load = bytes sent * 8 / (sending hosts * rate * duration).
double offered_load(const Workload& w, std::int32_t senders, BitsPerSec rate, SimTime duration) {
  double bits = 0;
  for (const auto& f : w.flows) bits += 8.0 * static_cast<double>(f.bytes);
  return bits / (static_cast<double>(senders) * static_cast<double>(rate) * to_s(duration));
}

TEST(CdfTrace, LoadWithinTwoPercentOverALongRun) {
  // WebSearch has sd/mean ~ 2.5; with ~250k flows the relative sd of the offered bytes is
  // 2.5 / sqrt(250k) = 0.5%, so 2% is a 4-sigma bound.
  const auto cdf = read_cdf_file(kData + "WebSearch_distribution.txt").cdf;
  CdfTraceParams p;
  p.load = 0.6;
  p.host_rate = gbps(100);
  p.duration = ms(1500);
  const std::int32_t n = 64;
  auto w = make_cdf_trace(p, cdf, n, 11);
  const double expected_flows = p.load * 100e9 * 1.5 * n / (cdf.mean() * 8);
  EXPECT_NEAR(static_cast<double>(w.flows.size()), expected_flows, 4 * std::sqrt(expected_flows));
  // The offered bytes are a compound Poisson sum: Var = n E[X^2], so the relative sd of the load is
  // sqrt(E[X^2] / (n mean^2)). Check that 2% is at least a 4-sigma bound, then check 2%.
  const double rel_sd = std::sqrt(cdf.second_moment() / (expected_flows * cdf.mean() * cdf.mean()));
  ASSERT_LT(4 * rel_sd, 0.02);
  EXPECT_NEAR(offered_load(w, n, p.host_rate, p.duration), 0.6, 0.02 * 0.6);
  for (const auto& f : w.flows) {
    ASSERT_NE(f.src, f.dst);
    ASSERT_GE(f.start, 0);
    ASSERT_LT(f.start, p.duration);
  }
  validate_workload(w, n);

  // Per host (each host is its own Poisson process): within 4 sigma of the same compound-Poisson sd.
  const auto str = builtin_cdf("alistorage");
  p.duration = ms(100);
  auto v = make_cdf_trace(p, str, 8, 3);
  std::vector<double> bytes(8, 0);
  for (const auto& f : v.flows) bytes[f.src] += static_cast<double>(f.bytes);
  const double per_host = p.load * 100e9 * 0.1 / (str.mean() * 8);
  const double host_sd = 0.6 * std::sqrt(str.second_moment() / (per_host * str.mean() * str.mean()));
  for (int h = 0; h < 8; ++h) EXPECT_NEAR(bytes[h] * 8 / (100e9 * 0.1), 0.6, 4 * host_sd) << h;
}

TEST(CdfTrace, MeanFlowSizeMatchesTheCdf) {
  const auto cdf = builtin_cdf("hadoop");
  CdfTraceParams p;
  p.load = 0.8;
  p.host_rate = gbps(100);
  p.duration = ms(20);
  auto w = make_cdf_trace(p, cdf, 32, 5);
  double sum = 0;
  for (const auto& f : w.flows) sum += static_cast<double>(f.bytes);
  const double n = static_cast<double>(w.flows.size());
  const double sigma = std::sqrt(cdf.second_moment() - cdf.mean() * cdf.mean());
  EXPECT_NEAR(sum / n, cdf.mean(), 5 * sigma / std::sqrt(n));
}

TEST(CdfTrace, DeterministicPerSeed) {
  CdfTraceParams p;
  p.duration = us(200);
  auto a = make_cdf_trace(p, 16, 1);
  auto b = make_cdf_trace(p, 16, 1);
  auto c = make_cdf_trace(p, 16, 2);
  ASSERT_EQ(a.flows.size(), b.flows.size());
  for (std::size_t i = 0; i < a.flows.size(); ++i) {
    EXPECT_EQ(a.flows[i].src, b.flows[i].src);
    EXPECT_EQ(a.flows[i].dst, b.flows[i].dst);
    EXPECT_EQ(a.flows[i].bytes, b.flows[i].bytes);
    EXPECT_EQ(a.flows[i].start, b.flows[i].start);
  }
  bool differ = a.flows.size() != c.flows.size();
  for (std::size_t i = 0; !differ && i < a.flows.size(); ++i) differ = a.flows[i].start != c.flows[i].start;
  EXPECT_TRUE(differ);
}

// Max number of distinct *other* senders active towards f.dst when f starts, recomputed from the
// workload with the same estimate the generator documents.
int max_simultaneous_senders(const Workload& w, BitsPerSec rate, double slowdown) {
  int worst = 0;
  for (std::size_t i = 0; i < w.flows.size(); ++i) {
    const auto& f = w.flows[i];
    std::set<int> s{f.src};
    for (std::size_t j = 0; j < i; ++j) {
      const auto& g = w.flows[j];
      if (g.dst == f.dst && g.start + estimated_active_time(g.bytes, rate, slowdown) > f.start) s.insert(g.src);
    }
    worst = std::max(worst, static_cast<int>(s.size()));
  }
  return worst;
}

TEST(CdfTrace, CapsSimultaneousSendersPerReceiver) {
  CdfTraceParams p;
  p.load = 1.0;  // [Spritz] sec. V-B c): full load
  p.host_rate = gbps(100);
  p.duration = ms(10);
  const auto cdf = builtin_cdf("websearch");
  auto uncapped = make_cdf_trace(p, cdf, 16, 4);
  EXPECT_GT(max_simultaneous_senders(uncapped, p.host_rate, 1.0), 2);  // the cap below matters
  p.max_senders_per_receiver = 2;
  std::vector<std::string> warn;
  auto capped = make_cdf_trace(p, cdf, 16, 4, &warn);
  EXPECT_TRUE(warn.empty());
  EXPECT_LE(max_simultaneous_senders(capped, p.host_rate, 1.0), 2);
  EXPECT_EQ(capped.flows.size(), uncapped.flows.size());  // the cap moves flows, never drops them
}

TEST(CdfTrace, WarmupAndMonitoredTags) {
  CdfTraceParams p;
  p.duration = ms(5);
  p.warmup = us(500);
  p.monitored_fraction = 0.25;
  p.monitored_hosts = {3};
  auto w = make_cdf_trace(p, 16, 9);
  const auto warm = w.tag("warmup");
  const auto mon = w.tag("monitored");
  int n_mon = 0, n_after = 0, n_other_mon = 0, n_other = 0;
  for (const auto& f : w.flows) {
    if (f.start < us(500)) {
      EXPECT_EQ(f.tag, warm);
      continue;
    }
    EXPECT_NE(f.tag, warm);
    ++n_after;
    if (f.src == 3) {
      EXPECT_EQ(f.tag, mon);
    } else {
      ++n_other;
      if (f.tag == mon) ++n_other_mon;
    }
    if (f.tag == mon) ++n_mon;
  }
  ASSERT_GT(n_other, 200);
  // Binomial(n_other, 0.25): within 5 standard deviations.
  EXPECT_NEAR(n_other_mon, 0.25 * n_other, 5 * std::sqrt(n_other * 0.25 * 0.75));
  EXPECT_GT(n_mon, n_other_mon);
  EXPECT_GT(n_after, 0);
}

TEST(CdfTrace, IncastEventsOnTopOfBackground) {
  CdfTraceParams p;
  p.load = 0.3;
  p.duration = ms(2);
  p.incast_mean_interval = us(20);  // ~100 events
  p.incast_senders = 5;
  p.incast_bytes = 32768;
  auto w = make_cdf_trace(p, 32, 6);
  const auto inc = w.tag("incast");
  std::map<SimTime, std::vector<const FlowSpec*>> events;
  for (const auto& f : w.flows)
    if (f.tag == inc) events[f.start].push_back(&f);
  EXPECT_NEAR(static_cast<double>(events.size()), 100.0, 5 * 10.0);  // Poisson(100): sd 10
  for (const auto& [t, flows] : events) {
    ASSERT_EQ(flows.size(), 5u);
    std::set<int> s;
    for (const auto* f : flows) {
      EXPECT_EQ(f->dst, flows[0]->dst);
      EXPECT_NE(f->src, f->dst);
      EXPECT_EQ(f->bytes, 32768);
      s.insert(f->src);
    }
    EXPECT_EQ(s.size(), 5u);
  }
  EXPECT_TRUE(std::is_sorted(w.flows.begin(), w.flows.end(),
                             [](const FlowSpec& a, const FlowSpec& b) { return a.start < b.start; }));
}

TEST(CdfTrace, LapsPatterns) {
  CdfTraceParams p;
  p.duration = us(300);
  p.root = 5;
  p.destinations = TraceDestinations::kAllToOne;  // parameter-server AllReduce ([LAPS] sec. 4.1)
  auto a = make_cdf_trace(p, 16, 1);
  ASSERT_FALSE(a.flows.empty());
  std::set<int> srcs;
  for (const auto& f : a.flows) {
    EXPECT_EQ(f.dst, 5);
    srcs.insert(f.src);
  }
  EXPECT_EQ(srcs.size(), 15u);
  p.destinations = TraceDestinations::kOneToAll;  // AllScatter
  auto b = make_cdf_trace(p, 16, 1);
  ASSERT_FALSE(b.flows.empty());
  for (const auto& f : b.flows) {
    EXPECT_EQ(f.src, 5);
    EXPECT_NE(f.dst, 5);
  }
}

TEST(CdfTrace, BadParametersAreErrors) {
  CdfTraceParams p;
  p.load = 0;
  EXPECT_THROW(make_cdf_trace(p, 8, 1), UserError);
  p.load = 0.5;
  EXPECT_THROW(make_cdf_trace(p, 1, 1), UserError);
  p.cdf = "nosuchdistribution";
  EXPECT_THROW(make_cdf_trace(p, 8, 1), UserError);
}

}  // namespace
}  // namespace lbsim::workload
