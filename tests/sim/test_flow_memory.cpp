// Per-flow memory over a whole run (issue 17, docs/scale-flows.md): what a Poisson trace holds while
// it runs and after its flows are over, counted with the transport's container counters
// (Transport::memory()), not RSS.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "core/error.h"
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
  EXPECT_TRUE(lbsim::test::conserved(s));
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
  EXPECT_TRUE(lbsim::test::conserved(folded));
  c.set("output.path_usage_tag", "default");
  sim::Simulation kept(c);
  ASSERT_EQ(kept.run(), 0);
  EXPECT_TRUE(lbsim::test::conserved(kept));
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
  EXPECT_TRUE(lbsim::test::conserved(s));
  std::size_t started = 0, held = 0;
  for (const auto& f : s.transport().flows()) {
    started += f.started;
    held += f.lb != nullptr;
  }
  ASSERT_GT(held, 0u);
  ASSERT_LT(held, started);
  EXPECT_EQ(s.summary()["reps"]["flows"].get<std::size_t>(), started);
}

// workload.stream (docs/scale-flows.md): the entries are made during the run and each record leaves
// the transport once nothing can change it. The outputs are those of the eager run, byte for byte.
namespace {

struct RunFiles {
  std::string flows;
  nlohmann::json summary;
  transport::FlowMemory memory;
};

RunFiles run_files(config::Config c, bool stream, const std::string& name) {
  c.set("workload.stream", stream);
  sim::Simulation s(c);
  EXPECT_EQ(s.streamed(), stream);
  s.run();
  EXPECT_TRUE(lbsim::test::conserved(s));
  const auto dir = test::temp_dir(name + (stream ? "-stream" : "-eager"));
  s.write_outputs(dir);
  RunFiles r{test::read_file(dir + "/flows.csv"), s.summary(), s.transport().memory()};
  r.summary.erase("perf");  // wall time and RSS
  std::filesystem::remove_all(dir);
  return r;
}

}  // namespace

// Same flows.csv and summary.json, with incast events, warm-up and monitored tags and an ECMP
// background fraction (the coins drawn again entry by entry) in the mix, and with a run cut short
// (records still held at the end are written after the retired rows).
TEST(FlowMemory, StreamedTraceWritesTheFilesOfTheEagerRun) {
  auto c = websearch(300, 0.5);
  c.set("workload.incast_interval_us", 40.0);
  c.set("workload.incast_senders", 4);
  c.set("workload.warmup_us", 50.0);
  c.set("workload.monitored_fraction", 0.2);
  c.set("workload.ecmp_fraction", 0.3);
  const auto eager = run_files(c, false, "stream-same");
  const auto streamed = run_files(c, true, "stream-same");
  ASSERT_GT(std::count(eager.flows.begin(), eager.flows.end(), '\n'), 200);
  EXPECT_EQ(streamed.flows, eager.flows);
  EXPECT_EQ(streamed.summary, eager.summary);
  EXPECT_EQ(streamed.memory.records, 0u);  // every entry retired
  EXPECT_EQ(streamed.memory.window, 0u);
  EXPECT_GT(streamed.memory.peak_waiting_rows, 0u);  // rows did wait for lower ids: released out of order
  EXPECT_LT(streamed.memory.peak_records, streamed.memory.peak_window);

  c.set("run.end_us", 150.0);
  const auto cut_eager = run_files(c, false, "stream-cut");
  const auto cut_streamed = run_files(c, true, "stream-cut");
  EXPECT_EQ(cut_streamed.flows, cut_eager.flows);
  EXPECT_EQ(cut_streamed.summary, cut_eager.summary);
  EXPECT_GT(cut_streamed.memory.records, 0u);
  EXPECT_GT(cut_streamed.memory.waiting_rows, 0u);  // reported from both records and waiting rows
}

// The rows of released entries waiting for a lower id: at most Transport::default_rows_in_memory()
// of them in memory (the ids within that many of the lowest), the rest on a temporary file, read
// back when their id comes up. With 16 rows in memory (the default is 65,536) the run above writes
// most of its waiting rows to the file and still writes the eager run's flows.csv and summary.json,
// also cut short (rows read back for the report at the end); the window's memory is then its 4-byte
// slot per id, the 16 rows and the file's two buffers, whatever the number of waiting rows.
TEST(FlowMemory, WaitingRowsBeyondTheMemoryCapGoToAFile) {
  auto c = websearch(400, 0.3);
  c.set("workload.cdf", "alistorage");  // short transfers behind long ones: thousands of waiting rows
  c.set("workload.incast_interval_us", 40.0);
  c.set("workload.incast_senders", 4);
  c.set("workload.monitored_fraction", 0.2);
  const auto eager = run_files(c, false, "rows-file");
  auto& cap = transport::Transport::default_rows_in_memory();
  const std::size_t before = cap;
  cap = 16;
  const auto streamed = run_files(c, true, "rows-file");
  c.set("run.end_us", 150.0);
  const auto cut_streamed = run_files(c, true, "rows-file-cut");
  cap = before;
  const auto cut_eager = run_files(c, false, "rows-file-cut");
  EXPECT_EQ(streamed.flows, eager.flows);
  EXPECT_EQ(streamed.summary, eager.summary);
  EXPECT_EQ(cut_streamed.flows, cut_eager.flows);
  EXPECT_EQ(cut_streamed.summary, cut_eager.summary);
  const auto& m = streamed.memory;
  // Rows through the file's buffers of RowSpill::kBlock ids: several blocks written and read back.
  constexpr std::size_t block = transport::RowSpill::kBlock;
  EXPECT_GT(m.peak_waiting_rows, 4 * block);
  EXPECT_GT(m.spilled_rows, 4 * block);
  // The slots, the 16 rows and the file's write and read buffers.
  EXPECT_EQ(m.window_bytes, m.window_capacity * sizeof(std::uint32_t) + 16 * sizeof(transport::FlowRow) +
                                2 * block * sizeof(transport::FlowRow) + block);
  EXPECT_GT(cut_streamed.memory.waiting_rows, 16u);  // the report at the end read rows back from the file
  std::printf("peak waiting rows %zu, %zu written to the file; window %zu B for %zu ids\n", m.peak_waiting_rows,
              m.spilled_rows, m.window_bytes, m.window_capacity);
}

// A streamed run holds a full record (FlowState + FlowSpec) only for the entries in progress: made
// and not started (the next one), started and not over at both ends, or over with a late copy of a
// packet still in the network. A record is released as soon as nothing can change it, out of id
// order; what waits for the lower ids to leave is a compact FlowRow in the id window. The window
// spans the ids from the lowest entry not yet over (at both ends) to the highest started, plus the
// next one made ahead: computed from the eager run's own times, it bounds the streamed run's window
// from below (a row cannot leave before every lower entry is over); late copies of packets may hold
// it a little longer. Here the slowest entries take over 100 us, so the window spans thousands of ids
// while a few hundred transfers are in progress: the records follow the transfers, not the window.
TEST(FlowMemory, StreamedTraceHoldsRecordsOnlyForTheEntriesInProgress) {
  auto c = websearch(250, 0.3);
  c.set("workload.cdf", "alistorage");
  sim::Simulation eager(c);
  ASSERT_EQ(eager.run(), 0);
  EXPECT_TRUE(lbsim::test::conserved(eager));
  const auto& flows = eager.transport().flows();
  // Window at each start time (the peak is reached when an entry is made): ids [lo, i] + 1 ahead.
  std::size_t window = 0, lo = 0;
  for (std::size_t i = 0; i < flows.size(); ++i) {
    const SimTime t = flows[i].start_time;
    // ids below lo are over (at both ends) by t
    while (lo < i && std::max(flows[lo].finish_time, flows[lo].sender_done_time) <= t) ++lo;
    window = std::max(window, i - lo + 1 + (i + 1 < flows.size() ? 1 : 0));
  }
  const std::size_t in_progress = max_overlap(flows);
  c.set("workload.stream", true);
  sim::Simulation streamed(c);
  ASSERT_EQ(streamed.run(), 0);
  EXPECT_TRUE(lbsim::test::conserved(streamed));
  const auto m = streamed.transport().memory();
  ASSERT_EQ(m.entries, flows.size());
  ASSERT_GT(m.entries, 2000u);
  EXPECT_GE(m.peak_window, window);
  EXPECT_LE(m.peak_window, window + window / 10 + 4) << "window " << window;
  // Records: the transfers in progress at once (each from its start to the later of its two ends),
  // the entry made ahead, and a few over but with a late copy of a packet in the network.
  EXPECT_GE(m.peak_records, in_progress);
  EXPECT_LE(m.peak_records, in_progress + 1 + in_progress / 10) << "in progress " << in_progress;
  EXPECT_LT(m.peak_records * 10, m.peak_window) << "records must not follow the id window";
  EXPECT_GT(m.peak_waiting_rows, m.peak_window / 2);  // most of the window is compact rows
  EXPECT_EQ(m.peak_live, eager.transport().memory().peak_live);
  // Bytes per waiting entry, from the window's containers: a 120-byte FlowRow and a 4-byte slot index
  // (against 344 B of FlowState + FlowSpec, and their strings, for a held record).
  ASSERT_GT(m.window_capacity, 0u);
  EXPECT_EQ(m.window_bytes % m.window_capacity, 0u);  // no entry needed its wide counters
  EXPECT_LE(m.window_bytes / m.window_capacity, 124u);
  EXPECT_LE(m.window_capacity, 2 * m.peak_window);  // doubled only when full
  // The record pool (FlowState + FlowSpec + a free-list index per slot) is sized by the records.
  EXPECT_LE(m.record_capacity, std::max<std::size_t>(64, 2 * m.peak_records));
  EXPECT_LE(m.record_bytes, m.record_capacity * (sizeof(transport::FlowState) + sizeof(workload::FlowSpec) + 8));
  // Back to the baseline: no record, waiting row, live state, congestion control, vector or load
  // balancer.
  EXPECT_EQ(m.records, 0u);
  EXPECT_EQ(m.window, 0u);
  EXPECT_EQ(m.waiting_rows, 0u);
  EXPECT_EQ(m.live, 0u);
  EXPECT_EQ(m.ccs, 0u);
  EXPECT_EQ(m.policies, 0u);
  EXPECT_EQ(m.vector_bytes, 0u);
  std::printf("entries %zu window %zu (eager %zu) records %zu (in progress %zu) waiting %zu, %zu B per waiting row\n",
              m.entries, m.peak_window, window, m.peak_records, in_progress, m.peak_waiting_rows,
              m.window_bytes / m.window_capacity);
}

// Flat after warm-up: the same AliStorage trace (load 0.3, 128 hosts) streamed for 4 times as long
// holds about as many full records, and as large a window, at its peak; only the summary values of
// each finished transfer (sim::FlowTotals, outside the transport) grow with the trace.
TEST(FlowMemory, StreamedTraceIsFlatAfterWarmUp) {
  const auto run = [](double duration_us) {
    auto c = websearch(duration_us, 0.3);
    c.set("workload.cdf", "alistorage");
    c.set("workload.stream", true);
    sim::Simulation s(c);
    EXPECT_EQ(s.run(), 0);
    EXPECT_TRUE(lbsim::test::conserved(s));
    return s.transport().memory();
  };
  const auto a = run(300), b = run(1200);
  std::printf(
      "300 us: entries %zu records %zu window %zu bytes %zu+%zu; 1200 us: entries %zu records %zu window %zu bytes "
      "%zu+%zu\n",
      a.entries, a.peak_records, a.peak_window, a.window_bytes, a.record_bytes, b.entries, b.peak_records,
      b.peak_window, b.window_bytes, b.record_bytes);
  ASSERT_GT(b.entries, 3 * a.entries);
  // Measured: 14,088 -> 56,364 entries; records 478 -> 504; window 8,889 -> 14,784 ids in the same
  // 16,384-id ring (2,031,616 B) and the same 704-slot record pool (178,176 B).
  EXPECT_LE(b.peak_records, a.peak_records + a.peak_records / 5);
  EXPECT_LT(b.peak_window, b.entries / 3);
  EXPECT_LE(b.window_bytes + b.record_bytes, 2 * (a.window_bytes + a.record_bytes));  // at most one doubling
}

// What a streamed run keeps per finished transfer once its entry has left the transport: its FCT,
// ideal FCT and tag for summary.json's distributions (sim::FlowTotals' metrics::ValueLog), one block
// of them in memory and the rest on a temporary file, so the heap they take does not grow with the
// trace. Here with a block of 1,024 records (the default is 65,536): a trace and a 1.5x longer one
// keep the same bytes in memory and the rest on file, and summary.json's distributions (exact
// percentiles selected from the file) equal those of the same run with every value in memory.
// Before (FCT and ideal FCT in growing vectors, 16 B per transfer, and a tag each once a second tag
// was seen) the bytes grew with the transfers.
TEST(FlowMemory, StreamedTraceKeepsItsSummaryValuesInBoundedMemory) {
  const auto run = [](double duration_us, std::size_t block) {
    auto c = websearch(duration_us, 0.3);
    c.set("workload.cdf", "alistorage");
    c.set("workload.stream", true);
    c.set("workload.incast_interval_us", 40.0);  // background and incast tags
    c.set("workload.incast_senders", 4);
    auto& def = metrics::ValueLog::default_memory_records();
    const std::size_t before = def;
    def = block;
    sim::Simulation s(c);
    def = before;
    EXPECT_EQ(s.run(), 0);
    EXPECT_TRUE(lbsim::test::conserved(s));
    const auto& t = s.retired_totals();
    const std::size_t n = t.finished();
    EXPECT_EQ(s.transport().memory().records, 0u);  // every entry retired into the totals
    EXPECT_EQ(n, s.transport().completed());
    EXPECT_EQ(t.transfers, n);
    std::printf("%.0f us, block %zu: %zu finished transfers, %zu B of summary values in memory, %zu on file\n",
                duration_us, block, n, t.bytes(), t.values.spilled());
    auto j = s.summary();
    nlohmann::json d = {{"fct_us", j["fct_us"]},
                        {"ideal", j["ideal_fct_us"]},
                        {"slowdown", j["slowdown"]},
                        {"tags", j["fct_us_by_tag"]}};
    return std::make_tuple(n, t.bytes(), t.values.spilled(), d);
  };
  const std::size_t block = 1024, rec = sizeof(metrics::TransferValues);
  const auto [n1, b1, f1, d1] = run(400, block);
  const auto [n2, b2, f2, d2] = run(600, block);
  ASSERT_GT(n1, 10 * block);
  ASSERT_GT(n2, n1 + n1 / 3);
  EXPECT_LE(b1, block * rec);
  EXPECT_EQ(b2, b1);  // one block either way
  EXPECT_GE(f1, n1 - block);
  EXPECT_GE(f2, n2 - block);
  EXPECT_EQ(d2["tags"].size(), 2u) << d2.dump();
  // The same run with every value in memory (more than the transfers fit in the block).
  const auto [n3, b3, f3, d3] = run(600, 4 * n2);
  EXPECT_EQ(n3, n2);
  EXPECT_EQ(f3, 0u);
  EXPECT_GT(b3, b2);
  EXPECT_EQ(d3, d2) << d3.dump() << "\n" << d2.dump();
}
// Only generators that can stream may be asked to.
TEST(FlowMemory, StreamOfAWorkloadThatCannotStreamIsAnError) {
  auto c = test::small_fat_tree();
  c.set("workload.kind", "permutation");
  c.set("workload.stream", true);
  try {
    sim::Simulation s(c);
    FAIL() << "accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("workload.stream"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("permutation"), std::string::npos) << e.what();
  }
}

// summary.json `peaks` (docs/outputs.md; scripts/bench.sh divides memory by them): the transfers in
// progress at once and the packet records in existence at once.
namespace {

// One transfer of 1 MiB from host 0 to host 100 (another ToR of the 128-host fat tree: 4 links of
// 500 ns and 3 switches of 500 ns each way, a round trip of some 7 us, about 85 packets of 4 KiB at
// 400 Gb/s) under a fixed window of `window` packets (cc = none), far below that bandwidth-delay
// product: every packet of the window is either its data packet or its ACK on the way.
nlohmann::json one_windowed_flow(int window) {
  auto c = test::small_fat_tree();
  const auto dir = test::temp_dir("peaks-" + std::to_string(window));
  c.set("workload.kind", "flows_csv");
  c.set("workload.file", test::write_file(dir + "/flows.csv", "src,dst,bytes,start_us\n0,100,1048576,0\n"));
  c.set("transport.cc", "none");
  c.set("transport.cwnd_packets", window);
  sim::Simulation s(c);
  EXPECT_EQ(s.run(), 0);
  EXPECT_TRUE(lbsim::test::conserved(s));
  EXPECT_EQ(s.transport().completed(), 1u);
  auto j = s.summary();
  std::filesystem::remove_all(dir);
  return j;
}

}  // namespace

TEST(Peaks, PacketsInExistenceAreTheWindowOfTheFlow) {
  for (const int w : {8, 32}) {
    const auto j = one_windowed_flow(w);
    const auto packets = j.at("peaks").at("packets").get<std::uint64_t>();
    // The window, plus at most the ACK made while its data packet is still held.
    EXPECT_GE(packets, static_cast<std::uint64_t>(w)) << "window " << w;
    EXPECT_LE(packets, static_cast<std::uint64_t>(w) + 1) << "window " << w;
    EXPECT_EQ(j.at("peaks").at("live_transfers").get<std::uint64_t>(), 1u);
    // The pool made a record for each data packet and each ACK of the most at once of their kind.
    EXPECT_GE(j.at("perf").at("packet_pool").get<std::uint64_t>(), packets);
    EXPECT_EQ(j.at("peaks").at("packet_record_bytes").get<std::size_t>(), sizeof(net::Packet));
    EXPECT_EQ(j.at("peaks").at("ack_record_bytes").get<std::size_t>(), sizeof(net::Packet) + sizeof(net::AckFields));
    // The setup's memory, read as the loop starts: resident then <= the peak up to then <= the run's
    // peak (the kernel's resident counters are synced in per-thread batches: 1 MiB of slack).
    const auto& perf = j.at("perf");
    EXPECT_GT(perf.at("setup_rss_mb").get<double>(), 1.0);
    EXPECT_LE(perf.at("setup_rss_mb").get<double>(), perf.at("setup_peak_rss_mb").get<double>());
    EXPECT_LE(perf.at("setup_peak_rss_mb").get<double>(), perf.at("peak_rss_mb").get<double>() + 1.0);
  }
}

// A permutation starts every transfer at t = 0: all 128 are in progress at once. A Poisson trace
// holds the overlap of its transfers' lifetimes (computed from the flows' own times), a small part
// of the trace.
TEST(Peaks, LiveTransfersAreTheTransfersInProgressAtOnce) {
  {
    sim::Simulation s(test::small_fat_tree());
    s.run();
    EXPECT_TRUE(lbsim::test::conserved(s));
    EXPECT_EQ(s.summary().at("peaks").at("live_transfers").get<std::size_t>(), 128u);
  }
  sim::Simulation s(websearch(600, 0.3));
  ASSERT_EQ(s.run(), 0);
  EXPECT_TRUE(lbsim::test::conserved(s));
  const auto peak = s.summary().at("peaks").at("live_transfers").get<std::size_t>();
  EXPECT_EQ(peak, max_overlap(s.transport().flows()));
  EXPECT_LT(peak * 4, s.workload().flows.size()) << "peak " << peak << " of " << s.workload().flows.size();
}
