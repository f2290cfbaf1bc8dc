// The classic congestion controls (src/transport/cc.h) against their algorithms ([issue 14]):
//   dctcp  alpha <- (1 - g) alpha + g F once per window of acknowledged data (F = marked fraction),
//          cwnd *= 1 - alpha/2 at the end of a window with marks, + MTU * acked / cwnd per unmarked
//          ACK, halved on a loss; alpha starts at 1.
//   none   the window stays at init_cwnd whatever happens.
//   FastIncrease (on dctcp_ack): once a whole window has been acknowledged without a congestion
//          signal, every ACK adds fast_increase_gain x acked (the window doubles per window of ACKs)
//          until the next mark, NACK or timeout.
// Expected values are worked out from those rules, not read back from the implementation.
#include <gtest/gtest.h>

#include <cmath>

#include "transport/cc.h"

using namespace lbsim;
using namespace lbsim::transport;

namespace {

constexpr Bytes kMtu = 4000;  // round numbers: windows are whole MTUs
constexpr double M = kMtu;

CcParams params(const char* name, int init_mtus, int max_mtus) {
  CcParams p;
  p.name = name;
  p.mtu = kMtu;
  p.init_cwnd = init_mtus * kMtu;
  p.max_cwnd = max_mtus * kMtu;
  p.base_rtt = 10'000'000;
  p.dctcp_g = 1.0 / 16;
  return p;
}

}  // namespace

TEST(DctcpClassic, FullyMarkedWindowHalvesTheWindow) {
  // alpha starts at 1; a window with every byte marked keeps it at (1 - g) + g = 1: cwnd x 1/2.
  auto cc = make_cc(params("dctcp", 16, 1000));
  for (int i = 0; i < 15; ++i) cc->on_ack(kMtu, kMtu, i);
  EXPECT_DOUBLE_EQ(cc->cwnd(), 16 * M);  // marked ACKs do not grow the window; the window is not over
  cc->on_ack(kMtu, kMtu, 15);
  EXPECT_DOUBLE_EQ(cc->cwnd(), 8 * M);
  // The next window is 8 MTUs: another fully marked window halves again.
  for (int i = 0; i < 8; ++i) cc->on_ack(kMtu, kMtu, 20 + i);
  EXPECT_DOUBLE_EQ(cc->cwnd(), 4 * M);
}

TEST(DctcpClassic, AlphaIsAnEwmaOfTheMarkedFraction) {
  auto cc = make_cc(params("dctcp", 10, 1000));
  // Window 1: 10 unmarked ACKs. Each adds M * M / cwnd (about one MTU per window in total); at the
  // window's end alpha = 15/16 * 1 + 1/16 * 0 = 15/16, no cut.
  double w = 10 * M;
  for (int i = 0; i < 10; ++i) {
    cc->on_ack(kMtu, 0, i);
    w += M * M / w;
  }
  EXPECT_DOUBLE_EQ(cc->cwnd(), w);
  EXPECT_GT(w, 10.9 * M);
  // Window 2 (target: the window at the end of window 1, i.e. 11 MTUs of ACKs): every byte marked.
  // alpha = 15/16 * 15/16 + 1/16 * 1 = 241/256, cwnd x (1 - 241/512).
  for (int i = 0; i < 11; ++i) cc->on_ack(kMtu, kMtu, 100 + i);
  EXPECT_DOUBLE_EQ(cc->cwnd(), w * (1 - 241.0 / 512));
  // Window 3 with half the bytes marked: alpha = 241/256 * 15/16 + 1/16 * 1/2.
  const double w3 = cc->cwnd();
  const double alpha3 = 241.0 / 256 * 15 / 16 + 0.5 / 16;
  const int acks = static_cast<int>(std::ceil(w3 / M));  // ACKs until the window is acknowledged
  double grown = w3;
  int marked = 0;
  for (int i = 0; i < acks; ++i) {
    const bool mark = i % 2 == 1;
    if (!mark) grown += M * M / grown;
    marked += mark;
    cc->on_ack(kMtu, mark ? kMtu : 0, 200 + i);
  }
  ASSERT_EQ(marked * 2, acks);  // an even number of ACKs: exactly half marked
  EXPECT_NEAR(cc->cwnd(), grown * (1 - alpha3 / 2), 1e-6 * M);
}

TEST(DctcpClassic, LossHalvesTheWindowDownToOneMtu) {
  auto cc = make_cc(params("dctcp", 16, 1000));
  cc->on_nack(1, kMtu, 0);
  EXPECT_DOUBLE_EQ(cc->cwnd(), 8 * M);
  cc->on_timeout(2, kMtu, 0);
  EXPECT_DOUBLE_EQ(cc->cwnd(), 4 * M);
  for (int i = 0; i < 10; ++i) cc->on_timeout(3 + i, kMtu, 0);
  EXPECT_DOUBLE_EQ(cc->cwnd(), M);  // floor: one MTU
}

TEST(DctcpClassic, WindowNeverExceedsMax) {
  auto cc = make_cc(params("dctcp", 10, 11));
  for (int i = 0; i < 1000; ++i) cc->on_ack(kMtu, 0, i);
  EXPECT_DOUBLE_EQ(cc->cwnd(), 11 * M);
}

TEST(NoneCc, WindowIsFixed) {
  auto cc = make_cc(params("none", 12, 100));
  EXPECT_DOUBLE_EQ(cc->cwnd(), 12 * M);
  for (int i = 0; i < 100; ++i) cc->on_ack(kMtu, i % 2 ? kMtu : 0, i);
  cc->on_nack(200, kMtu, 5 * kMtu);
  cc->on_timeout(300, kMtu, 5 * kMtu);
  EXPECT_DOUBLE_EQ(cc->cwnd(), 12 * M);
  // init_cwnd is clamped into [MTU, max_cwnd] like every window.
  EXPECT_DOUBLE_EQ(make_cc(params("none", 50, 20))->cwnd(), 20 * M);
  EXPECT_DOUBLE_EQ(make_cc(params("none", 0, 20))->cwnd(), M);
}

TEST(FastIncrease, DoublesPerWindowAfterACleanWindow) {
  auto p = params("dctcp_ack", 10, 10000);
  p.fast_increase = true;
  auto cc = make_cc(p);
  // Additive increase (M * acked / cwnd per ACK) until the unmarked bytes since the last signal
  // reach the window; from then on every ACK adds its bytes.
  double w = 10 * M, clean = 0;
  int i = 0;
  for (; clean + M < w; ++i) {  // the ACK that brings `clean` to the window is the first fast one
    cc->on_ack(kMtu, 0, i);
    clean += M;
    w += M * M / w;
    ASSERT_DOUBLE_EQ(cc->cwnd(), w) << "ACK " << i;
  }
  cc->on_ack(kMtu, 0, i++);
  w += M;
  EXPECT_DOUBLE_EQ(cc->cwnd(), w);
  // One more window of ACKs doubles it.
  const double start = cc->cwnd();
  const int window = static_cast<int>(start / M);
  for (int k = 0; k < window; ++k) cc->on_ack(kMtu, 0, i++);
  EXPECT_DOUBLE_EQ(cc->cwnd(), start + window * M);
  EXPECT_NEAR(cc->cwnd(), 2 * start, M);
  // A mark ends it: -ecn_decrease x marked bytes, then additive increase again.
  const double before = cc->cwnd();
  cc->on_ack(kMtu, kMtu, i++);
  EXPECT_DOUBLE_EQ(cc->cwnd(), before - 0.5 * M);
  const double after_mark = cc->cwnd();
  cc->on_ack(kMtu, 0, i++);
  EXPECT_DOUBLE_EQ(cc->cwnd(), after_mark + M * M / after_mark);
  // A NACK ends it too (-nack_decrease MTU).
  for (int k = 0; k < 200; ++k) cc->on_ack(kMtu, 0, i++);
  const double fast = cc->cwnd();
  cc->on_nack(i++, kMtu, 0);
  EXPECT_DOUBLE_EQ(cc->cwnd(), fast - M);
  cc->on_ack(kMtu, 0, i++);
  EXPECT_DOUBLE_EQ(cc->cwnd(), fast - M + M * M / (fast - M));
}

TEST(FastIncrease, OffMeansAdditiveOnly) {
  auto cc = make_cc(params("dctcp_ack", 10, 10000));
  double w = 10 * M;
  for (int i = 0; i < 100; ++i) {
    cc->on_ack(kMtu, 0, i);
    w += M * M / w;
  }
  EXPECT_DOUBLE_EQ(cc->cwnd(), w);
  EXPECT_LT(w, 20 * M);  // about +1 MTU per window: 100 ACKs of ~10-18 MTU windows add < 10 MTUs
}
