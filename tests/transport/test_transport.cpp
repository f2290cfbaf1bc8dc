// Transport unit tests (docs/reliability.md): the RTO walk, stale NACKs, SACK handling and the per-flow state
// freed when a flow is done. One flow from host 0 to host 1 through one switch; the tests hand the
// transport crafted ACKs and NACKs (Transport::on_packet) or black-hole the sender's link, and check
// the sender state against what the algorithm in transport.h / docs/architecture.md prescribes.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>

#include "lb/policy.h"
#include "../net/star.h"
#include "net/network.h"
#include "topo/topology.h"
#include "transport/transport.h"
#include "workload/flow_spec.h"

using namespace lbsim;
using transport::PsnState;

namespace {

constexpr Bytes kMtu = 4096, kHeader = 64, kWire = kMtu + kHeader;
constexpr SimTime kRto = us(10);
// 4160 wire bytes at 400 Gb/s: 83.2 ns between back-to-back packets of the NIC.
constexpr SimTime kSer = kWire * 8 * 1000 / 400;

using test::star;
using test::ToDst;

// One message of `packets` full packets from host 0 to host 1 under a fixed window (cc "none") of
// 1000 packets unless a test says otherwise, so that the window never limits what these tests send.
struct Bench {
  topo::Topology t = star(2);
  ToDst router{t};
  workload::Workload wl;
  std::unique_ptr<net::Network> net;
  std::unique_ptr<transport::Transport> tr;

  explicit Bench(std::uint32_t packets, SimTime rto = kRto, std::uint32_t window = 1000) {
    workload::FlowSpec f;
    f.src = 0;
    f.dst = 1;
    f.bytes = static_cast<Bytes>(packets) * kMtu;
    wl.flows.push_back(f);
    net::NetConfig nc;
    nc.queue.data_limit = 1 << 22;
    nc.queue.ctrl_limit = 1 << 20;
    net = std::make_unique<net::Network>(t, nc, 1);
    transport::TransportParams tp;
    tp.mtu = kMtu;
    tp.header = kHeader;
    tp.rto = rto;
    tp.cc.name = "none";
    tp.cc.init_cwnd = tp.cc.max_cwnd = static_cast<Bytes>(window) * kWire;
    tp.cc.base_rtt = us(1);
    tr = std::make_unique<transport::Transport>(
        *net, wl, tp, [](const workload::FlowSpec&, std::uint32_t) { return std::make_unique<lb::FixedEvPolicy>(7); });
    net->set_router(&router);
    net->set_host_handler(tr.get());
    tr->start();
  }
  const transport::FlowState& flow() const { return tr->flows()[0]; }
  const transport::FlowLive& live() const { return *tr->flows()[0].live; }
  // The sender's link black-holes everything it transmits (a failed link).
  void cut_sender_link() { net->port(net->nic_port(0)).up = false; }
  void run_to(SimTime t) { net->run(t); }
  // Hands the sender an ACK / NACK as if it had come back through the network.
  void ack(std::uint32_t psn, std::uint32_t cum_ack, std::uint64_t sack) {
    const auto i = net->packets().alloc_ack();
    auto& a = net->pkt(i);
    a = net::Packet{};
    a.type = net::PacketType::Ack;
    a.flow = 0;
    a.psn = psn;
    a.cum_ack = cum_ack;
    net->packets().new_ack(i).sack = sack;
    a.src = 1;
    a.dst = 0;
    a.size = kHeader;
    a.sent_time = !flow().live ? 0 : live().sent_time(psn);
    tr->on_packet(i);
  }
  void nack(std::uint32_t psn, SimTime sent_time) {
    const auto i = net->packets().alloc();
    auto& n = net->pkt(i);
    n = net::Packet{};
    n.type = net::PacketType::Nack;
    n.flow = 0;
    n.psn = psn;
    n.src = 1;
    n.dst = 0;
    n.size = kHeader;
    n.sent_time = sent_time;
    tr->on_packet(i);
  }
};

}  // namespace

// A packet that vanishes is declared lost rto after its latest transmission and resent at once;
// the RTO walks the send log in send order and re-arms for the oldest packet still in flight.
// There is no exponential backoff (hence no cap): a packet that keeps vanishing times out every
// rto, so after t each of the 4 packets has timed out floor(t / rto) times.
TEST(Transport, RtoWalkDeclaresEachPacketLostOneRtoAfterItsLatestTransmission) {
  Bench b(4);
  b.cut_sender_link();
  b.run_to(kRto - 1);
  EXPECT_EQ(b.flow().n.packets_sent, 4u);  // the window holds all four: sent back to back
  EXPECT_EQ(b.live().sent_time(3), 3 * kSer);
  EXPECT_EQ(b.flow().n.timeouts, 0u);
  // The first RTO fires at rto: only PSN 0 (sent at 0) has expired; the timer moves to PSN 1's.
  b.run_to(kRto);
  EXPECT_EQ(b.flow().n.timeouts, 1u);
  EXPECT_EQ(b.live().rto_armed, kSer + kRto);
  EXPECT_EQ(b.flow().n.retransmits, 1u);  // resent at once: the NIC was idle
  EXPECT_EQ(b.live().sent_time(0), kRto);
  b.run_to(kRto + 3 * kSer);
  EXPECT_EQ(b.flow().n.timeouts, 4u);
  // Second and third rounds: one rto later each (a backoff would double the gap).
  b.run_to(2 * kRto + 3 * kSer + kSer / 2);
  EXPECT_EQ(b.flow().n.timeouts, 8u);
  b.run_to(3 * kRto + 4 * kSer);
  EXPECT_EQ(b.flow().n.timeouts, 12u);
  EXPECT_EQ(b.flow().n.retransmits, 12u);
  EXPECT_EQ(b.flow().n.packets_sent, 16u);
  EXPECT_EQ(b.live().inflight, 4 * kWire);  // every resent copy is in flight again
}

// Only the NACK of a PSN's latest transmission triggers a retransmission; a NACK of an older copy
// (one a timeout already resent) or of an acknowledged PSN changes nothing but the NACK counter.
TEST(Transport, StaleNackIsIgnored) {
  Bench b(4);
  b.cut_sender_link();
  b.run_to(us(1));
  ASSERT_EQ(b.flow().n.packets_sent, 4u);
  const SimTime sent2 = b.live().sent_time(2);
  // A NACK echoing a different send time: an older copy of PSN 2.
  b.nack(2, sent2 - 1);
  EXPECT_EQ(b.flow().n.nacks, 1u);
  EXPECT_EQ(b.live().state_of(2), PsnState::InFlight);
  EXPECT_EQ(b.live().inflight, 4 * kWire);
  EXPECT_TRUE(b.live().rtx.empty());
  // PSN 0 acknowledged, then a NACK of it arrives late.
  b.ack(0, 1, 1);
  EXPECT_EQ(b.live().state_of(0), PsnState::Acked);
  b.nack(0, b.live().sent_time(0));
  EXPECT_EQ(b.flow().n.nacks, 2u);
  EXPECT_EQ(b.live().state_of(0), PsnState::Acked);
  EXPECT_EQ(b.live().inflight, 3 * kWire);
  EXPECT_TRUE(b.live().rtx.empty());
  // The NACK of the latest transmission: lost and resent at once (the NIC is idle), so in flight
  // again with a new send time.
  b.nack(2, sent2);
  EXPECT_EQ(b.flow().n.retransmits, 1u);
  EXPECT_EQ(b.live().state_of(2), PsnState::InFlight);
  EXPECT_EQ(b.live().sent_time(2), b.net->now());
  EXPECT_GT(b.live().sent_time(2), sent2);
  EXPECT_EQ(b.live().inflight, 3 * kWire);
  // The first copy's NACK is now stale too.
  b.nack(2, sent2);
  EXPECT_EQ(b.live().state_of(2), PsnState::InFlight);
  b.run_to(us(3));
  EXPECT_EQ(b.flow().n.retransmits, 1u);
}

// An ACK's SACK word covers the 64 PSNs of the word holding its PSN (bit i = PSN base + i); the
// cumulative ACK covers every PSN below it. Both mark exactly those PSNs, once.
TEST(Transport, SackAndCumulativeAckMarkExactlyTheirPsns) {
  const SimTime rto = us(100);  // longer than sending all 130 (10.8 us)
  Bench b(130, rto);            // three SACK words: PSNs 0-63, 64-127, 128-129
  b.cut_sender_link();
  b.run_to(us(12));
  ASSERT_EQ(b.flow().n.packets_sent, 130u);
  // PSNs 64, 66 and 70 arrived (word 1), nothing below 64.
  b.ack(70, 0, (1ULL << 0) | (1ULL << 2) | (1ULL << 6));
  EXPECT_EQ(b.live().acked, 3u);
  EXPECT_EQ(b.live().snd_cum, 0u);
  EXPECT_EQ(b.live().state_of(64), PsnState::Acked);
  EXPECT_EQ(b.live().state_of(65), PsnState::InFlight);
  EXPECT_EQ(b.live().state_of(66), PsnState::Acked);
  EXPECT_EQ(b.live().state_of(70), PsnState::Acked);
  EXPECT_EQ(b.live().inflight, 127 * kWire);
  // A cumulative ACK of 2 with PSN 1's word (bits 0 and 1).
  b.ack(1, 2, 0b11);
  EXPECT_EQ(b.live().acked, 5u);
  EXPECT_EQ(b.live().snd_cum, 2u);
  // The same ACK again: nothing new.
  b.ack(1, 2, 0b11);
  EXPECT_EQ(b.live().acked, 5u);
  EXPECT_EQ(b.live().inflight, 125 * kWire);
  // The last word holds only PSNs 128 and 129.
  b.ack(129, 2, 0b11);
  EXPECT_EQ(b.live().acked, 7u);
  // The RTO walk skips acknowledged PSNs: the other 123 time out.
  b.run_to(rto + us(12));
  EXPECT_EQ(b.flow().n.timeouts, 123u);
  EXPECT_EQ(b.live().state_of(64), PsnState::Acked);
  // A cumulative ACK of everything finishes the sender.
  b.ack(129, 130, 0b11);
  EXPECT_TRUE(b.flow().sender_done);
}

// Per-PSN state is allocated as PSNs come into play and freed when the flow is done: the receiver's
// bitmap when every PSN is held, the sender's ring, congestion control and load balancer at the
// final ACK, and the whole FlowLive then (docs/architecture.md). A late duplicate is still counted
// and acknowledged after that.
TEST(Transport, PerFlowStateIsFreedWhenTheFlowFinishes) {
  Bench b(200);
  b.run_to(us(1));
  // The sender's ring is sized at the start for the initial window (1,000 packets) capped at the
  // message: 200 PSNs, 4 blocks. 1 us: 12 packets of 83.2 ns on the wire, the first few received:
  // the receiver's ring holds one 64-PSN block.
  EXPECT_EQ(b.live().sent.blocks(), 4u);
  EXPECT_EQ(b.live().sent_time(11), 11 * kSer);
  EXPECT_EQ(b.live().received.blocks(), 1u);
  EXPECT_EQ(b.tr->memory().live, 1u);
  // The run stops when the last entry completes at its receiver; run on to deliver the last ACKs.
  b.run_to(kTimeNever);
  const auto& f = b.flow();
  ASSERT_TRUE(f.finished);
  ASSERT_TRUE(f.live);
  EXPECT_EQ(f.live->received.bytes(), 0u);  // the receiver's bitmap goes at completion
  b.run_to(kTimeNever);
  ASSERT_TRUE(f.sender_done);
  EXPECT_EQ(f.n.packets_sent, 200u);
  EXPECT_FALSE(f.live);  // both ends are done: the transfer's state is released
  EXPECT_FALSE(f.lb);    // no summary reads this flow's load balancer
  const auto m = b.tr->memory();
  EXPECT_EQ(m.live, 0u);
  EXPECT_EQ(m.peak_live, 1u);
  EXPECT_EQ(m.policies, 0u);
  EXPECT_EQ(m.ccs, 0u);
  EXPECT_EQ(m.vector_bytes, 0u);
  EXPECT_EQ(b.tr->completed(), 1u);
  // A duplicate of PSN 5 arrives after the receiver is done (a retransmission overtaken by the
  // original, say): counted, acknowledged (the sender, done, ignores the ACK).
  const auto i = b.net->packets().alloc();
  auto& p = b.net->pkt(i);
  p = net::Packet{};
  p.type = net::PacketType::Data;
  p.flow = 0;
  p.psn = 5;
  p.src = 0;
  p.dst = 1;
  p.size = kWire;
  p.payload = kMtu;
  p.sent_time = b.net->now();
  b.tr->on_packet(i);
  EXPECT_EQ(f.n.duplicates, 1u);
  b.run_to(kTimeNever);
  EXPECT_EQ(f.n.packets_sent, 200u);
  EXPECT_EQ(b.tr->completed(), 1u);
}

// The RTO's send log holds what the RTO walk can still act on: the transmissions not yet
// acknowledged nor superseded by a later transmission of their PSN. A long flow under a small window
// keeps it within a few windows (a log kept until the RTO walk consumed it grew with every
// transmission: 4,096 entries for this flow), and the flow is sent exactly as before: under a window
// of W packets, each ACK releases the next packet, so packet k leaves at floor(k / W) round trips
// plus (k mod W) serializations (the window is below the path's BDP).
TEST(Transport, SendLogStaysWithinTheWindow) {
  constexpr std::uint32_t kPackets = 3000, kWindow = 4;
  Bench b(kPackets, kRto, kWindow);
  std::size_t most = 0;
  std::uint32_t steps = 0, most_sent_blocks = 0, most_received_blocks = 0;
  for (SimTime t = ns(500); !b.flow().sender_done && t < ms(10); t += ns(500)) {
    b.run_to(t);
    if (b.flow().live && !b.flow().sender_done) {
      most = std::max(most, b.live().sendlog.capacity());
      most_sent_blocks = std::max(most_sent_blocks, b.live().sent.blocks());
      most_received_blocks = std::max(most_received_blocks, b.live().received.blocks());
    }
    ++steps;
  }
  ASSERT_GT(steps, 100u);  // checked all along the flow
  ASSERT_TRUE(b.flow().finished);
  ASSERT_TRUE(b.flow().sender_done);
  EXPECT_GE(most, kWindow);
  EXPECT_LE(most, 3 * kWindow);
  // The per-PSN state follows the PSNs in play, not the message: at most kWindow PSNs past the
  // cumulative point span at most two 64-PSN blocks at each end (the whole message is 47 blocks).
  EXPECT_GE(most_sent_blocks, 1u);
  EXPECT_LE(most_sent_blocks, 2u);
  EXPECT_GE(most_received_blocks, 1u);
  EXPECT_LE(most_received_blocks, 2u);
  EXPECT_EQ(b.flow().n.packets_sent, kPackets);
  EXPECT_EQ(b.flow().n.retransmits, 0u);
  EXPECT_EQ(b.flow().n.timeouts, 0u);
  // Round trip of one packet: data serialized at the NIC and the switch (2 x 83.2 ns), the ACK
  // (64 B: 1.28 ns) likewise, four 100 ns links and the switch's latency (500 ns, NetConfig) each way.
  constexpr SimTime kAckSer = kHeader * 8 * 1000 / 400;
  constexpr SimTime kOneWay = kSer + ns(100) + ns(500) + kSer + ns(100);
  constexpr SimTime kRtt = kOneWay + 2 * kAckSer + 2 * ns(100) + ns(500);
  static_assert(kWindow * kSer < kRtt);  // the window, not the link, limits the flow
  constexpr SimTime kLastSent = (kPackets - 1) / kWindow * kRtt + (kPackets - 1) % kWindow * kSer;
  EXPECT_EQ(b.flow().finish_time, kLastSent + kOneWay);
}

// While packets keep vanishing (the sender's link down for 20 RTOs) every RTO resends the window,
// adding W entries to the log; the superseded ones are dropped, so the log stays within a few
// windows, and the flow completes once the link is back.
TEST(Transport, SendLogStaysWithinTheWindowWhileTimeoutsResend) {
  constexpr std::uint32_t kPackets = 400, kWindow = 8;
  Bench b(kPackets, kRto, kWindow);
  b.run_to(us(2));
  b.cut_sender_link();
  std::size_t most = 0;
  std::uint32_t most_blocks = 0;
  for (SimTime t = us(2); t < us(2) + 20 * kRto; t += us(1)) {
    b.run_to(t);
    most = std::max(most, b.live().sendlog.capacity());
    most_blocks = std::max(most_blocks, b.live().sent.blocks());
  }
  EXPECT_GE(b.flow().n.timeouts, 19u * kWindow);
  EXPECT_EQ(b.flow().n.retransmits, b.flow().n.timeouts);  // each timeout resent at once
  EXPECT_LE(most, 3 * kWindow);
  EXPECT_LE(most_blocks, 2u);  // the same kWindow PSNs resent: the sender's ring does not grow
  b.net->port(b.net->nic_port(0)).up = true;
  b.run_to(kTimeNever);
  b.run_to(kTimeNever);
  EXPECT_TRUE(b.flow().finished);
  EXPECT_TRUE(b.flow().sender_done);
}
