// Spritz-Scout / Spritz-Spray buffers step by step against [Spritz] Algorithms 1-3, Eq. 1
// weights, OPS over the entry list and Flicr.
#include <gtest/gtest.h>

#include "core/error.h"
#include "lb/endpoint_table.h"
#include "lb/policy.h"
#include "lb/registry.h"
#include "lb/spritz.h"
#include "policy_helpers.h"

using namespace lbsim;
using lb::Feedback;
using lb::SpritzPolicy;
using K = lb::SpritzPolicy::Kind;
using W = lb::Weighting;

namespace {

using test::ev;
using test::five_paths;
using test::Oracle;

lb::PolicyContext ctx(const lb::EvEntryList& paths) { return test::spritz_ctx(paths); }

}  // namespace

TEST(SpritzWeights, Eq1AndScaling) {
  // sec. IV example: 799.6 ns vs 1491.0 ns -> w = 1.86; longest 1.0.
  EXPECT_NEAR(lb::eq1_weight(from_ns(799.6), from_ns(1491.0), 1.0), 1491.0 / 799.6, 1e-9);
  EXPECT_DOUBLE_EQ(lb::eq1_weight(from_ns(1491.0), from_ns(1491.0), 3.0), 1.0);
  EXPECT_NEAR(lb::eq1_weight(from_ns(799.6), from_ns(1491.0), 3.0), 1 + 3 * (1491.0 / 799.6 - 1), 1e-9);
  const auto p = five_paths(1.0);
  EXPECT_DOUBLE_EQ(p.weight(0), 5.0);
  EXPECT_DOUBLE_EQ(p.weight(4), 1.0);
  // Prefix sums of 500/100, 500/200, ..., 500/500.
  EXPECT_DOUBLE_EQ(p.cumulative()[1], 5.0 + 2.5);
  EXPECT_DOUBLE_EQ(p.cumulative().back(), 5.0 + 2.5 + 5.0 / 3 + 1.25 + 1.0);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(p.index_of(ev(p, i)), i);
  EXPECT_EQ(p.index_of(0xFFFF), -1);
  EXPECT_EQ(p.index_of(0x0101), -1);  // EV1 of entry 0 with the EV2 of another entry
  // The scaled weights (w_scale 3): 1 + 3 x (500 / latency - 1).
  const auto q = five_paths(3.0);
  EXPECT_DOUBLE_EQ(q.weight(0), 13.0);
  EXPECT_DOUBLE_EQ(q.weight(1), 5.5);
  EXPECT_DOUBLE_EQ(q.weight(4), 1.0);
  // 15 B per entry (EV, metadata, latency number, prefix sum, place in EV order) and 8 B per distinct
  // latency (five here): no spare capacity from the caller's push_backs.
  EXPECT_EQ(p.bytes(), 5 * 15 + 5 * sizeof(SimTime));
  EXPECT_EQ(lb::EvEntryList::kBytesPerEntry, 15u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(p[static_cast<std::size_t>(i)].latency, p.latency(static_cast<std::size_t>(i)));
    EXPECT_EQ(p.latency(static_cast<std::size_t>(i)), p.latencies()[static_cast<std::size_t>(i)]);
  }
}

// Entries keep the number of their latency among the list's distinct ones: six paths of three
// latencies hold three latencies, and every entry reads back its EV, metadata, latency and Eq. 1
// weight (lat_longest / lat_i with w_scale 1).
TEST(SpritzWeights, EntriesShareTheirDistinctLatencies) {
  const SimTime lat[6] = {ns(100), ns(100), ns(200), ns(200), ns(200), ns(300)};
  std::vector<lb::EvEntry> e;
  for (int i = 0; i < 6; ++i)
    e.push_back(lb::EvEntry{static_cast<std::uint16_t>((6 - i) << 8 | i), lb::ev_meta(i >= 2, 2 + i / 2), lat[i]});
  const lb::EvEntryList list(e, 1.0);
  EXPECT_EQ(list.latencies(), (std::vector<SimTime>{ns(100), ns(200), ns(300)}));
  EXPECT_EQ(list.bytes(), 6 * lb::EvEntryList::kBytesPerEntry + 3 * sizeof(SimTime));
  double sum = 0;
  for (std::size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(list[i].ev, e[i].ev);
    EXPECT_EQ(list.ev(i), e[i].ev);
    EXPECT_EQ(list[i].meta, e[i].meta);
    EXPECT_EQ(list[i].minimal(), i < 2);
    EXPECT_EQ(list[i].latency, lat[i]);
    EXPECT_DOUBLE_EQ(list.weight(i), 300.0 / static_cast<double>(lat[i] / ns(1)));
    sum += list.weight(i);
    EXPECT_DOUBLE_EQ(list.cumulative()[i], sum);
  }
}

TEST(SpritzWeights, IndexOfFindsEveryEvOfALongList) {
  // EVs in an order unrelated to the latency order (the list is sorted by latency), some EV1
  // values shared: the EV index must still map every EV to its entry.
  std::vector<lb::EvEntry> e;
  for (int i = 0; i < 600; ++i)
    e.push_back(lb::EvEntry{static_cast<std::uint16_t>(((i * 37) % 600 / 3) << 8 | (i % 3)), 0, ns(1) * (i + 1)});
  const lb::EvEntryList list(std::move(e), 1.0);
  for (int i = 0; i < 600; ++i) EXPECT_EQ(list.index_of(list[static_cast<std::size_t>(i)].ev), i);
  EXPECT_EQ(list.index_of(0xFF00), -1);
}

TEST(SpritzScout, EmptyBufferSamplesThenReusesBestGoodPath) {
  const auto p = five_paths();
  lb::SpritzParams sp;
  sp.explore_threshold = 1000;
  SpritzPolicy s(ctx(p), sp, K::Scout, W::Weighted);
  Oracle o;
  const std::vector<double> w{5, 2.5, 5.0 / 3, 1.25, 1};
  for (int k = 0; k < 5; ++k) EXPECT_EQ(s.next_ev(0), ev(p, o.next(w)));  // Alg. 1 l. 8-10
  // Alg. 2 l. 2-5: insert by latency, no duplicates.
  s.on_feedback(ev(p, 3), Feedback::Ack, 0);
  s.on_feedback(ev(p, 1), Feedback::Ack, 0);
  s.on_feedback(ev(p, 3), Feedback::Ack, 0);
  s.on_feedback(ev(p, 2), Feedback::Ack, 0);
  EXPECT_EQ(s.buffer(), (std::vector<std::uint32_t>{1, 2, 3}));
  // Scout keeps the front path until negative feedback.
  for (int k = 0; k < 10; ++k) EXPECT_EQ(s.next_ev(0), ev(p, 1));
  EXPECT_EQ(s.buffer().size(), 3u);
  s.on_feedback(ev(p, 1), Feedback::Nack, 0);  // l. 14-17
  EXPECT_EQ(s.buffer(), (std::vector<std::uint32_t>{2, 3}));
  EXPECT_EQ(s.next_ev(0), ev(p, 2));
}

// lb.spritz_scout_order = "measured": Alg. 2 l. 4 inserts by the RTT each path's latest ACK
// measured (on_rtt comes just before the ACK's on_feedback), so a path of Table I rank 0 whose ACKs
// come back slowly (queueing) goes behind a longer path that answers fast; "table1" keeps the
// Table I order whatever the RTTs.
TEST(SpritzScout, MeasuredOrderInsertsByTheLatestRtt) {
  const auto p = five_paths();
  for (const bool measured : {true, false}) {
    lb::SpritzParams sp;
    sp.scout_order_measured = measured;
    SpritzPolicy s(ctx(p), sp, K::Scout, W::Uniform);
    s.on_rtt(us(20), 0);
    s.on_feedback(ev(p, 0), Feedback::Ack, 0);  // shortest path, 20 us RTT (loaded)
    s.on_rtt(us(8), 0);
    s.on_feedback(ev(p, 4), Feedback::Ack, 0);  // longest path, 8 us
    s.on_rtt(us(12), 0);
    s.on_feedback(ev(p, 2), Feedback::Ack, 0);  // 12 us
    EXPECT_EQ(s.buffer(), measured ? (std::vector<std::uint32_t>{4, 2, 0}) : (std::vector<std::uint32_t>{0, 2, 4}));
    // A marked ACK inserts nothing; the next unmarked one goes to its place by RTT.
    s.on_rtt(us(9), 0);
    s.on_feedback(ev(p, 1), Feedback::AckEcn, 0);
    s.on_rtt(us(10), 0);
    s.on_feedback(ev(p, 3), Feedback::Ack, 0);
    EXPECT_EQ(s.buffer(),
              measured ? (std::vector<std::uint32_t>{4, 3, 2, 0}) : (std::vector<std::uint32_t>{0, 2, 3, 4}));
    EXPECT_EQ(s.next_ev(0), ev(p, measured ? 4 : 0));  // Scout sends on the front path
  }
}

TEST(SpritzScout, BufferHoldsAtMostBufferSize) {
  const auto p = five_paths();
  lb::SpritzParams sp;
  sp.buffer_size = 2;
  SpritzPolicy s(ctx(p), sp, K::Scout, W::Uniform);
  s.on_feedback(ev(p, 4), Feedback::Ack, 0);
  s.on_feedback(ev(p, 2), Feedback::Ack, 0);
  s.on_feedback(ev(p, 0), Feedback::Ack, 0);  // full: "if size of buffer_paths < 8" fails
  EXPECT_EQ(s.buffer(), (std::vector<std::uint32_t>{2, 4}));
}

TEST(SpritzScout, EcnCountingRemovesAfterThreshold) {
  const auto p = five_paths();
  lb::SpritzParams sp;
  sp.ecn_threshold = 2;
  SpritzPolicy s(ctx(p), sp, K::Scout, W::Uniform);
  s.on_feedback(ev(p, 1), Feedback::Ack, 0);
  s.on_feedback(ev(p, 1), Feedback::AckEcn, 0);
  s.on_feedback(ev(p, 1), Feedback::AckEcn, 0);
  EXPECT_EQ(s.ecn_count(1), 2u);
  EXPECT_EQ(s.buffer(), (std::vector<std::uint32_t>{1}));  // 2 > 2 is false
  s.on_feedback(ev(p, 1), Feedback::AckEcn, 0);            // 3 > 2: remove, reset
  EXPECT_EQ(s.ecn_count(1), 0u);
  EXPECT_TRUE(s.buffer().empty());
  s.on_feedback(ev(p, 2), Feedback::AckEcn, 0);
  s.on_feedback(ev(p, 2), Feedback::Nack, 0);  // NACK resets the count
  EXPECT_EQ(s.ecn_count(2), 0u);
}

TEST(SpritzScout, ReinsertHoldoffKeepsARemovedPathOutForItsInFlightAcks) {
  const auto p = five_paths();
  lb::SpritzParams sp;
  sp.reinsert_holdoff_rtts = 2;  // base RTT 1 us: out for 2 us after a removal
  SpritzPolicy s(ctx(p), sp, K::Scout, W::Uniform);
  s.on_feedback(ev(p, 1), Feedback::Ack, 0);
  s.on_feedback(ev(p, 1), Feedback::Nack, us(1));  // removed at 1 us
  s.on_feedback(ev(p, 1), Feedback::Ack, us(2));   // an ACK of a packet still in flight: ignored
  EXPECT_TRUE(s.buffer().empty());
  s.on_feedback(ev(p, 2), Feedback::Ack, us(2));  // other paths are unaffected
  EXPECT_EQ(s.buffer(), (std::vector<std::uint32_t>{2}));
  s.on_feedback(ev(p, 1), Feedback::Ack, us(3));  // 2 us later it may come back, in latency order
  EXPECT_EQ(s.buffer(), (std::vector<std::uint32_t>{1, 2}));
  // Off (Alg. 2 as written), the in-flight ACK puts it straight back.
  SpritzPolicy plain(ctx(p), lb::SpritzParams{}, K::Scout, W::Uniform);
  plain.on_feedback(ev(p, 1), Feedback::Ack, 0);
  plain.on_feedback(ev(p, 1), Feedback::Nack, us(1));
  plain.on_feedback(ev(p, 1), Feedback::Ack, us(2));
  EXPECT_EQ(plain.buffer(), (std::vector<std::uint32_t>{1}));
}

TEST(SpritzScout, TimeoutDisablesAndGlobalTimerRestores) {
  const auto p = five_paths();
  lb::SpritzParams sp;
  sp.restore_interval = us(50);
  sp.explore_threshold = 1000;
  SpritzPolicy s(ctx(p), sp, K::Scout, W::Weighted);
  s.on_feedback(ev(p, 0), Feedback::Ack, 0);
  s.on_feedback(ev(p, 0), Feedback::Timeout, us(10));  // Alg. 2 l. 18-22
  EXPECT_TRUE(s.buffer().empty());
  EXPECT_EQ(s.weight(0), 0.0);
  // While disabled, gen(w) never returns path 0 ...
  for (int k = 0; k < 300; ++k) EXPECT_NE(s.next_ev(us(20)), ev(p, 0));
  s.on_feedback(ev(p, 1), Feedback::Timeout, us(30));  // the timer is already running
  EXPECT_EQ(s.weight(1), 0.0);
  // ... and the global timer (armed at 10 us) brings both back to Eq. 1 at 60 us.
  s.next_ev(us(59));
  EXPECT_EQ(s.weight(0), 0.0);
  s.next_ev(us(60));
  EXPECT_DOUBLE_EQ(s.weight(0), 5.0);
  EXPECT_DOUBLE_EQ(s.weight(1), 2.5);
}

TEST(SpritzScout, ExploresPerAlgorithm1) {
  // Alg. 1: with packet_count > explore_threshold the packet is sampled and the count resets; the
  // other packets increment it. Starting from 0, packets T+2, 2T+4, ... explore.
  const auto p = five_paths();
  lb::SpritzParams sp;
  sp.explore_threshold = 3;
  SpritzPolicy s(ctx(p), sp, K::Scout, W::Uniform);
  Oracle o;
  const std::vector<double> w(5, 1.0);
  s.on_feedback(ev(p, 4), Feedback::Ack, 0);
  for (int round = 0; round < 3; ++round) {
    for (int k = 0; k < 4; ++k) EXPECT_EQ(s.next_ev(0), ev(p, 4)) << round << " " << k;
    EXPECT_EQ(s.packet_count(), 4u);
    EXPECT_EQ(s.next_ev(0), ev(p, o.next(w)));  // the explore packet
    EXPECT_EQ(s.packet_count(), 0u);
  }
}

TEST(SpritzSpray, ConsumesEachCachedEvOnceAndAllowsDuplicates) {
  const auto p = five_paths();
  lb::SpritzParams sp;
  sp.explore_threshold = 1000;
  SpritzPolicy s(ctx(p), sp, K::Spray, W::Uniform);
  // Alg. 3 l. 2-5: push at the back, even if already present.
  s.on_feedback(ev(p, 3), Feedback::Ack, 0);
  s.on_feedback(ev(p, 1), Feedback::Ack, 0);
  s.on_feedback(ev(p, 3), Feedback::Ack, 0);
  EXPECT_EQ(s.buffer(), (std::vector<std::uint32_t>{3, 1, 3}));
  // ECN marks and NACKs are ignored.
  s.on_feedback(ev(p, 3), Feedback::AckEcn, 0);
  s.on_feedback(ev(p, 3), Feedback::Nack, 0);
  EXPECT_EQ(s.buffer().size(), 3u);
  // Alg. 1 l. 12-15: front element, removed.
  EXPECT_EQ(s.next_ev(0), ev(p, 3));
  EXPECT_EQ(s.next_ev(0), ev(p, 1));
  EXPECT_EQ(s.next_ev(0), ev(p, 3));
  EXPECT_TRUE(s.buffer().empty());
  Oracle o;
  EXPECT_EQ(s.next_ev(0), ev(p, o.next(std::vector<double>(5, 1.0))));  // empty: sample
  // The ring wraps: 8 pushes after consumption keep FIFO order.
  for (int k = 0; k < 10; ++k) s.on_feedback(ev(p, static_cast<std::size_t>(k % 5)), Feedback::Ack, 0);
  EXPECT_EQ(s.buffer(), (std::vector<std::uint32_t>{0, 1, 2, 3, 4, 0, 1, 2}));
  // Timeout blocks the weight (Alg. 3 l. 7-9) but leaves the buffer alone.
  s.on_feedback(ev(p, 2), Feedback::Timeout, 0);
  EXPECT_EQ(s.weight(2), 0.0);
  EXPECT_EQ(s.buffer().size(), 8u);
}

TEST(SpritzScout, HighEcnRateBiasesTowardsMinimalPath) {
  const auto p = five_paths();
  lb::SpritzParams sp;
  sp.min_bias_factor = 1000;
  SpritzPolicy s(ctx(p), sp, K::Scout, W::Uniform);
  // One base RTT (1 us) with 10 of 10 ACKs marked: rate 100% > 90% -> w[0] = min_bias_factor.
  for (int k = 0; k < 9; ++k) s.on_feedback(ev(p, 2), Feedback::AckEcn, ns(100) * k);
  EXPECT_FALSE(s.min_biased());
  s.on_feedback(ev(p, 2), Feedback::AckEcn, us(1));
  EXPECT_TRUE(s.min_biased());
  EXPECT_EQ(s.weight(0), 1000.0);
  // 9 of 10 marked is exactly 90%: not above, the bias ends.
  for (int k = 0; k < 9; ++k) s.on_feedback(ev(p, 2), Feedback::AckEcn, us(1) + ns(10) * k);
  s.on_feedback(ev(p, 3), Feedback::Ack, us(2));
  EXPECT_FALSE(s.min_biased());
  EXPECT_EQ(s.weight(0), 1.0);
}

TEST(SpritzOps, UniformAndWeightedFrequencies) {
  const auto p = five_paths(3.0);  // weights 13, 5.5, 3, 1.75, 1 (sum 24.25)
  lb::OpsEntryPolicy u(ctx(p), W::Uniform), w(ctx(p), W::Weighted);
  std::vector<int> cu(5), cw(5);
  const int n = 40000;
  for (int k = 0; k < n; ++k) {
    ++cu[static_cast<std::size_t>(p.index_of(u.next_ev(0)))];
    ++cw[static_cast<std::size_t>(p.index_of(w.next_ev(0)))];
  }
  for (int i = 0; i < 5; ++i) EXPECT_NEAR(cu[i] / double(n), 0.2, 0.01);
  EXPECT_NEAR(cw[0] / double(n), 13 / 24.25, 0.01);
  EXPECT_NEAR(cw[4] / double(n), 1 / 24.25, 0.01);
}

TEST(SpritzFlicr, StickyUntilNackOrHighEcnFraction) {
  const auto p = five_paths();
  lb::SpritzParams sp;
  lb::FlicrPolicy f(ctx(p), sp, W::Uniform);
  const auto first = f.next_ev(0);
  for (int k = 0; k < 20; ++k) EXPECT_EQ(f.next_ev(0), first);
  f.on_feedback(first ^ 1, Feedback::Nack, 0);  // another path's NACK: stays
  EXPECT_EQ(f.repaths(), 0u);
  f.on_feedback(first, Feedback::Nack, 0);
  EXPECT_EQ(f.repaths(), 1u);
  // A base RTT with 6 of 10 ACKs marked (> 0.5) repaths; 5 of 10 does not.
  for (int k = 0; k < 5; ++k) f.on_feedback(f.current(), Feedback::AckEcn, ns(10) * k);
  for (int k = 0; k < 4; ++k) f.on_feedback(f.current(), Feedback::Ack, ns(60) + ns(10) * k);
  f.on_feedback(f.current(), Feedback::Ack, us(1));
  EXPECT_EQ(f.repaths(), 1u);
  for (int k = 0; k < 5; ++k) f.on_feedback(f.current(), Feedback::AckEcn, us(1) + ns(10) * k);
  for (int k = 0; k < 4; ++k) f.on_feedback(f.current(), Feedback::Ack, us(1) + ns(60) + ns(10) * k);
  f.on_feedback(f.current(), Feedback::AckEcn, us(2));
  EXPECT_EQ(f.repaths(), 2u);
}

TEST(SpritzPolicies, NeedSourceGuidedRouting) {
  lb::PolicyContext c;  // no EV entry list: not under source-guided routing
  for (const char* n : {"ops_u", "spritz_scout_w", "spritz_spray_u", "flicr_w"})
    EXPECT_THROW(lb::balancers().get(n).make(config::Config{}, c)(c), UserError) << n;
}

TEST(SpritzSpray, SharesTheListsPrefixSumsUntilAWeightChanges) {
  // A connection samples from the shared list's prefix sums while its weights are the base ones
  // and holds its own only while a timeout or the w[0] bias changed one; every draw is the one the
  // connection's own prefix sums of its current weights give (Oracle), to the bit. 150 paths: the
  // timed-out bits span three 64-bit words.
  std::vector<lb::EvEntry> e;
  for (int i = 0; i < 150; ++i)
    e.push_back(lb::EvEntry{static_cast<std::uint16_t>((i / 10) << 8 | (i % 10)), 0, ns(100) + ns(7) * i});
  const lb::EvEntryList p(std::move(e), 3.0);
  for (const auto weighting : {W::Weighted, W::Uniform}) {
    lb::SpritzParams sp;
    sp.explore_threshold = 1'000'000;
    sp.restore_interval = us(50);
    sp.min_bias_factor = 40;
    SpritzPolicy s(ctx(p), sp, K::Spray, weighting);
    Oracle o;
    auto draws = [&](int n, SimTime now) {
      for (int k = 0; k < n; ++k) {
        std::vector<double> w(p.size());
        for (std::size_t i = 0; i < w.size(); ++i) w[i] = s.weight(i);
        ASSERT_EQ(s.next_ev(now), ev(p, o.next(w)))
            << "draw " << k << " at " << now << (weighting == W::Weighted ? " weighted" : " uniform");
      }
    };
    draws(300, 0);
    EXPECT_FALSE(s.own_weights());
    s.on_feedback(ev(p, 70), Feedback::Timeout, us(1));
    s.on_feedback(ev(p, 149), Feedback::Timeout, us(2));
    EXPECT_EQ(s.weight(70), 0.0);
    EXPECT_FALSE(s.own_weights());  // made at the next draw
    draws(300, us(3));
    EXPECT_TRUE(s.own_weights());
    // One base RTT (1 us) of marked ACKs: w[0] = min_bias_factor. Spray pushes each ACKed EV into
    // its buffer: drain it (no draws) before sampling again.
    for (int k = 0; k <= 10; ++k) s.on_feedback(ev(p, 5), Feedback::AckEcn, us(4) + ns(100) * k);
    EXPECT_TRUE(s.min_biased());
    EXPECT_EQ(s.weight(0), 40.0);
    while (!s.buffer().empty()) EXPECT_EQ(s.next_ev(us(6)), ev(p, 5));
    draws(300, us(6));
    // The restore timer (armed at 1 us) gives the timed-out paths back; w[0] stays biased. (Any
    // call runs the timer first: a NACK, which Spray otherwise ignores.)
    s.on_feedback(ev(p, 5), Feedback::Nack, us(51));
    EXPECT_EQ(s.weight(70), weighting == W::Weighted ? p.weight(70) : 1.0);
    EXPECT_EQ(s.weight(0), 40.0);
    draws(300, us(51));
    EXPECT_TRUE(s.own_weights());
    // A base RTT of unmarked ACKs ends the bias: every weight is its base one again.
    for (int k = 0; k <= 10; ++k) s.on_feedback(ev(p, 7), Feedback::Ack, us(52) + ns(100) * k);
    EXPECT_FALSE(s.min_biased());
    EXPECT_FALSE(s.own_weights());
    while (!s.buffer().empty()) EXPECT_EQ(s.next_ev(us(54)), ev(p, 7));
    draws(300, us(54));
  }
}
