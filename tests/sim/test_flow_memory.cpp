// Per-flow memory over a whole run (issue 17, docs/scale-flows.md): what a Poisson trace holds while
// it runs and after its flows are over, counted with the transport's container counters
// (Transport::memory()), not RSS.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "helpers.h"

using namespace lbsim;

namespace {

// A WebSearch trace (cdf_trace, Poisson arrivals) on the 128-host fat tree at load `load`, REPS.
config::Config websearch(double duration_us, double load) {
  auto c = test::small_fat_tree();
  c.set("workload.kind", "cdf_trace");
  c.set("workload.cdf", "websearch");
  c.set("workload.load", load);
  c.set("workload.duration_us", duration_us);
  c.set("lb.algorithm", "reps");
  c.set("output.fct_at", "sender");  // the run goes on until every sender has its final ACK
  c.set("run.seed", 7);
  return c;
}

// The most flows whose transfer [start, last ACK at the sender] overlaps one instant.
std::size_t max_overlap(const std::vector<transport::FlowState>& flows) {
  std::vector<std::pair<SimTime, int>> ev;
  for (const auto& f : flows) {
    if (!f.started || f.spec->is_compute()) continue;
    ev.emplace_back(f.start_time, 1);
    ev.emplace_back(std::max(f.finish_time, f.sender_done_time), -1);
  }
  std::sort(ev.begin(), ev.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : a.second > b.second;  // a start before an end at the same time
  });
  std::size_t cur = 0, peak = 0;
  for (const auto& [t, d] : ev) {
    cur = static_cast<std::size_t>(static_cast<long long>(cur) + d);
    peak = std::max(peak, cur);
  }
  return peak;
}

}  // namespace

// A trace some 80 times longer than a WebSearch flow of mean size (1.6 MB: 32 us at the 400 Gb/s of
// the fat tree) at load 0.3: the transfers in progress follow the load, not the trace. Each sending
// host is a processor-sharing queue of its own flows at utilisation rho = 0.3, which holds
// rho / (1 - rho) = 0.43 flows on average, so the 128 hosts hold some 55 transfers at a time (a few
// times that at the peak), while the trace has rate x duration = 0.3 x 400 Gb/s / 1.6 MB x 128 hosts
// x 2.5 ms ~ 3,000 entries. Once the flows are over nothing of a transfer is left: no live state, no
// congestion control, no per-PSN vector and no load balancer (REPS folds its summary at the final
// ACK).
TEST(FlowMemory, PoissonTraceHoldsTheFlowsInFlightAndNothingAfter) {
  sim::Simulation s(websearch(2500, 0.3));
  ASSERT_EQ(s.run(), 0);
  const auto& tr = s.transport();
  const auto m = tr.memory();
  const std::size_t entries = s.workload().flows.size();
  ASSERT_GT(entries, 2000u);
  ASSERT_EQ(tr.completed(), entries);
  // The counter is the overlap of the transfers' lifetimes (from the flows' own times)...
  EXPECT_EQ(m.peak_live, max_overlap(tr.flows()));
  // ... bounded by the load (at most 4 x the mean of the queueing model), not the trace's length.
  const double mean_in_flight = 128 * 0.3 / (1 - 0.3);
  EXPECT_LT(static_cast<double>(m.peak_live), 4 * mean_in_flight) << "peak " << m.peak_live << " of " << entries;
  EXPECT_LT(m.peak_live * 10, entries) << "peak " << m.peak_live << " of " << entries;
  // Back to the baseline: nothing per transfer remains.
  EXPECT_EQ(m.live, 0u);
  EXPECT_EQ(m.ccs, 0u);
  EXPECT_EQ(m.policies, 0u);
  EXPECT_EQ(m.vector_bytes, 0u);
}

// REPS' summary block is folded policy by policy at each final ACK (lb::SummaryFold) instead of read
// from policies kept to the end: it equals the block over kept policies (recording every flow's path
// usage keeps them), and it counts every transfer.
TEST(FlowMemory, RepsSummaryFoldedAtTheFinalAckEqualsTheKeptPolicies) {
  auto c = websearch(300, 0.5);
  sim::Simulation folded(c);
  ASSERT_EQ(folded.run(), 0);
  c.set("output.path_usage_tag", "default");
  sim::Simulation kept(c);
  ASSERT_EQ(kept.run(), 0);
  const std::size_t entries = folded.workload().flows.size();
  ASSERT_GT(entries, 10u);
  EXPECT_EQ(folded.transport().memory().policies, 0u);
  EXPECT_EQ(kept.transport().memory().policies, entries);
  const auto a = folded.summary(), b = kept.summary();
  ASSERT_TRUE(a.contains("reps"));
  EXPECT_EQ(a["reps"], b["reps"]);
  EXPECT_EQ(a["reps"]["flows"].get<std::uint64_t>(), entries);
  // Recording changes nothing in the run itself.
  EXPECT_EQ(a["events"], b["events"]);
}

// A run stopped before its flows are over (run.end_us) still reports every REPS connection: the
// folded ones and those whose policy is still held.
TEST(FlowMemory, RepsSummaryCountsFlowsStillInProgressAtTheEnd) {
  auto c = websearch(300, 0.5);
  c.set("run.end_us", 200.0);
  sim::Simulation s(c);
  EXPECT_EQ(s.run(), 3);
  std::size_t started = 0, held = 0;
  for (const auto& f : s.transport().flows()) {
    started += f.started;
    held += f.lb != nullptr;
  }
  ASSERT_GT(held, 0u);
  ASSERT_LT(held, started);
  EXPECT_EQ(s.summary()["reps"]["flows"].get<std::size_t>(), started);
}
