// Congestion control unit tests: the SMaRTT QuickAdapt gate, its measurement window and the stale-feedback window after
// a QuickAdapt (src/transport/cc.h), on the per-ACK DCTCP variant ([Spritz] sec. IV-C, V-A).
#include <gtest/gtest.h>

#include "transport/cc.h"

using namespace lbsim;
using namespace lbsim::transport;

namespace {

constexpr Bytes kMtu = 4160;
constexpr SimTime kRtt = 10'000'000;  // 10 us

CcParams params(int gate) {
  CcParams p;
  p.name = "dctcp_ack";
  p.mtu = kMtu;
  p.init_cwnd = 100 * kMtu;
  p.max_cwnd = 160 * kMtu;  // the gate at 3 is 20 MTUs delivered per base RTT
  p.base_rtt = kRtt;
  p.quick_adapt = true;
  p.quick_adapt_gate = gate;
  return p;
}

// `n` unmarked ACKs of one MTU each, spread evenly over [t, t + span).
void acks(CongestionControl& cc, int n, SimTime t, SimTime span) {
  for (int i = 0; i < n; ++i) cc.on_ack(kMtu, 0, t + span * i / n);
}

}  // namespace

TEST(QuickAdapt, SevereEpisodeSetsTheWindowToTheDeliveredBytes) {
  auto cc = make_cc(params(3));
  // One base RTT delivering 10 MTUs (below 160 / 2^3 = 20), then a NACK.
  acks(*cc, 10, 0, kRtt);
  const double before = cc->cwnd();
  cc->on_nack(kRtt + 1, kMtu, 50 * kMtu);
  EXPECT_EQ(cc->quick_adapts(), 1u);
  EXPECT_LT(cc->cwnd(), before);
  // The delivered bytes of the last base RTT: the window is about 10 MTUs (the partial-window
  // estimate counts the ACKs of [1, 10] us).
  EXPECT_NEAR(cc->cwnd() / kMtu, 10.0, 1.0);
}

TEST(QuickAdapt, MildEpisodeIsLeftToThePerSignalDecrease) {
  auto cc = make_cc(params(3));
  // 40 MTUs per base RTT is above the gate (20): a NACK costs nack_decrease = 1 MTU only.
  acks(*cc, 40, 0, kRtt);
  const double before = cc->cwnd();
  cc->on_nack(kRtt + 1, kMtu, 50 * kMtu);
  EXPECT_EQ(cc->quick_adapts(), 0u);
  EXPECT_DOUBLE_EQ(cc->cwnd(), before - kMtu);
  // With the gate at 0 (every episode) the same history triggers QuickAdapt.
  auto open = make_cc(params(0));
  acks(*open, 40, 0, kRtt);
  open->on_nack(kRtt + 1, kMtu, 50 * kMtu);
  EXPECT_EQ(open->quick_adapts(), 1u);
}

TEST(QuickAdapt, FeedbackOfPacketsInFlightAtTheAdaptIsStale) {
  auto cc = make_cc(params(3));
  acks(*cc, 10, 0, kRtt);
  // QuickAdapt with 6 MTUs still in flight.
  const SimTime t = kRtt + 1;
  cc->on_nack(t, kMtu, 6 * kMtu);
  const double adapted = cc->cwnd();
  // Their marks and NACKs arrive next: none of them shrinks the window again.
  for (int i = 0; i < 3; ++i) cc->on_ack(kMtu, kMtu, t + 10 + i);
  cc->on_nack(t + 20, kMtu, 2 * kMtu);
  cc->on_nack(t + 30, kMtu, 1 * kMtu);
  EXPECT_DOUBLE_EQ(cc->cwnd(), adapted);
  // An unmarked stale ACK still grows it (the sixth in-flight MTU).
  cc->on_ack(kMtu, 0, t + 40);
  const double grown = cc->cwnd();
  EXPECT_GT(grown, adapted);
  // The first mark after the in-flight bytes are accounted for is fresh: -0.5 MTU (ecn_decrease).
  cc->on_ack(kMtu, kMtu, t + 50);
  EXPECT_DOUBLE_EQ(cc->cwnd(), grown - 0.5 * kMtu);
}

// transport.quick_adapt_window: the same delivery history (one MTU acknowledged per microsecond
// for 30 us, every ACK's RTT sample 18 us) measured over a base RTT (10 us), a target RTT (1.5 base
// RTTs = 15 us) and the smoothed measured RTT (18 us): the window QuickAdapt sets is the bytes of
// one such window, ~10 / ~15 / ~18 MTUs (all below the gate of 20 MTUs).
TEST(QuickAdapt, WindowIsTheBytesDeliveredOverTheChosenPeriod) {
  const auto adapted = [](QaWindow w) {
    CcParams p = params(3);
    p.quick_adapt_window = w;
    p.quick_adapt_target_factor = 1.5;
    auto cc = make_cc(p);
    for (int i = 0; i < 30; ++i) cc->on_ack(kMtu, 0, i * kRtt / 10, 18 * kRtt / 10);
    cc->on_nack(3 * kRtt + 1, kMtu, 50 * kMtu);
    EXPECT_EQ(cc->quick_adapts(), 1u);
    return cc->cwnd() / kMtu;
  };
  EXPECT_NEAR(adapted(QaWindow::BaseRtt), 10.0, 1.0);
  EXPECT_NEAR(adapted(QaWindow::TargetRtt), 15.0, 1.0);
  EXPECT_NEAR(adapted(QaWindow::MeasuredRtt), 18.0, 1.0);
}

// The gate compares the bytes of the chosen window: 12 MTUs per 10 us is 18 per target RTT of
// 15 us (QuickAdapt, below 20) but 24 per 20 us (factor 2: above the gate, a 1-MTU decrease).
TEST(QuickAdapt, GateAppliesToTheChosenWindow) {
  const auto run = [](double factor) {
    CcParams p = params(3);
    p.quick_adapt_window = QaWindow::TargetRtt;
    p.quick_adapt_target_factor = factor;
    auto cc = make_cc(p);
    acks(*cc, 48, 0, 4 * kRtt);
    cc->on_nack(4 * kRtt + 1, kMtu, 50 * kMtu);
    return cc->quick_adapts();
  };
  EXPECT_EQ(run(1.5), 1u);
  EXPECT_EQ(run(2.0), 0u);
}
