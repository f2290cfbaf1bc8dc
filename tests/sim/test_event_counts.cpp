// Event counts per kind (summary.json "events_by_kind", docs/scale.md "Events per data packet"):
// counts derived from the packet walk of docs/architecture.md, RTO timing on a planted loss.
#include <gtest/gtest.h>

#include <fmt/core.h>

#include "helpers.h"
#include "net/events.h"

using namespace lbsim;

namespace {

config::Config flows(const std::string& name, const std::string& rows, const std::string& failures = "") {
  auto c = test::small_fat_tree();
  const auto dir = test::temp_dir("evc-" + name);
  c.set("workload.kind", "flows_csv");
  c.set("workload.file", test::write_file(dir + "/flows.csv", "src,dst,bytes,start_us\n" + rows));
  if (!failures.empty()) c.set("failures.file", test::write_file(dir + "/failures.txt", failures));
  c.set("lb.algorithm", "ecmp");
  c.set("transport.rto_us", 70);
  // The run ends when the senders have every ACK, so each ACK's walk is in the counts.
  c.set("output.fct_at", "sender");
  return c;
}

std::uint64_t count(const nlohmann::json& j, const char* k) {
  const auto& c = j["events_by_kind"]["counts"];
  return c.contains(k) ? c[k].get<std::uint64_t>() : 0;
}

}  // namespace

// A lone flow of n full packets between two hosts of one ToR (h0 -> tor0 -> h1), inside its first
// window, one ACK per packet; the run ends when the last ACK reaches h0 (output.fct_at = sender).
// Walk: the entry starts (1 event); the first packet leaves at once (the NIC is idle when the flow
// starts), each later one from the NIC's TX_NEXT (n - 1), and one more TX_NEXT after the last finds
// nothing to send (the flow waits for its ACKs: 1). Every data packet arrives at tor0 and at h1
// (2n); tor0's port to h1 is free when each arrives (packets come one serialization apart), so no
// TX_NEXT there. h1 answers each with an ACK that leaves its idle NIC at once; h1 has no flow of its
// own, so the TX_NEXT after it finds nothing to send (n idle). Each ACK arrives at tor0 and at h0
// (2n); ACKs reaching h0 start nothing (nothing left to send). The RTO (70 us) never expires.
// Total 1 + 4n + (n - 1) + (n + 1) = 6n + 1.
TEST(EventCounts, LoneFlowOnOneTorFromFirstPrinciples) {
  for (const std::uint64_t n : {1u, 4u, 10u}) {
    sim::Simulation s(flows(fmt::format("lone{}", n), fmt::format("0,1,{},0\n", n * 4096)));
    ASSERT_EQ(s.run(), 0);
    EXPECT_TRUE(lbsim::test::conserved(s));
    const auto j = s.summary();
    EXPECT_EQ(count(j, "entry_start"), 1u);
    EXPECT_EQ(count(j, "arrive_switch"), 2 * n);
    EXPECT_EQ(count(j, "arrive_host"), 2 * n);
    EXPECT_EQ(count(j, "tx_next_sent"), n - 1);
    EXPECT_EQ(count(j, "tx_next_idle"), n + 1);
    EXPECT_EQ(count(j, "rto"), 0u);
    EXPECT_EQ(j["events"].get<std::uint64_t>(), 6 * n + 1) << n << " packets";
    EXPECT_EQ(j["events_by_kind"]["data_packets_sent"].get<std::uint64_t>(), n);
    EXPECT_DOUBLE_EQ(j["events_by_kind"]["total_per_data_packet"].get<double>(),
                     static_cast<double>(6 * n + 1) / static_cast<double>(n));
  }
}

// The per-kind counts add up to the events processed, on a run with queueing at switches (8-to-1
// incast across the spines, plus a flow back from the receiver).
TEST(EventCounts, KindsAddUpAndArrivalsMatchHops) {
  std::string rows;
  for (int i = 0; i < 8; ++i) rows += fmt::format("{},64,200000,0\n", 8 + i);
  rows += "64,0,200000,0\n";
  sim::Simulation s(flows("incast", rows));
  ASSERT_EQ(s.run(), 0);
  EXPECT_TRUE(lbsim::test::conserved(s));
  const auto j = s.summary();
  std::uint64_t sum = 0;
  for (std::uint32_t k = 0; k < net::kNumEventKinds; ++k) sum += count(j, net::event_kind_name(k));
  EXPECT_EQ(sum, j["events"].get<std::uint64_t>());
  EXPECT_EQ(count(j, "arrive"), count(j, "arrive_host") + count(j, "arrive_switch"));
  EXPECT_EQ(count(j, "tx_next"), count(j, "tx_next_sent") + count(j, "tx_next_idle"));
  // Every data packet and every ACK reaches its host (nothing is dropped in this incast: trimmed
  // headers come back as NACKs, so each packet sent is answered once): 2 host arrivals per packet.
  const auto sent = j["events_by_kind"]["data_packets_sent"].get<std::uint64_t>();
  EXPECT_EQ(count(j, "arrive_host"), 2 * sent);
  // Host 64 ... h8-h15 (tor1) to h64 (tor8) cross a spine: 3 switches each way.
  EXPECT_EQ(count(j, "arrive_switch"), 6 * sent);
}

// A planted loss: h0's only packet is black-holed on tor0 -> h1 (down from t = 0 for 30 us). The
// RTO fires exactly rto_us after the send and the retransmission leaves at that instant, so the FCT
// is 70 us + the ideal single-packet time: 2 x 1064 B x 20 ps + 2 x 500 ns links + 500 ns switch.
// The retransmission arms a second RTO (at 140 us), after the run's end: 1 RTO event.
TEST(EventCounts, RtoRetransmitsAtTheSameInstant) {
  sim::Simulation s(flows("rto", "0,1,1000,0\n", "0 down tor0-h1 for_us=30 from=tor0\n"));
  ASSERT_EQ(s.run(), 0);
  EXPECT_TRUE(lbsim::test::conserved(s));
  const auto r = s.flow_results().at(0);
  const SimTime ideal = 2 * 1064 * 20 + 2 * 500'000 + 500'000;
  EXPECT_EQ(r.ideal, ideal);
  EXPECT_EQ(r.timeouts, 1u);
  EXPECT_EQ(r.retransmits, 1u);
  EXPECT_EQ(r.fct(), us(70) + ideal);
  EXPECT_EQ(count(s.summary(), "rto"), 1u);
}
