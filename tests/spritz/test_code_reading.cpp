// The authors' code's reading of Spritz-Scout / Spritz-Spray (lb.spritz_reading = "code"), option by
// option, step by step, each beside Algorithms 1-3 as written (docs/spritz.md "Paper and code").
#include <gtest/gtest.h>

#include "core/config.h"
#include "lb/endpoint_table.h"
#include "lb/policy.h"
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

lb::PolicyContext ctx(const lb::EvEntryList& paths, Bytes bytes = 4 << 20) { return test::spritz_ctx(paths, bytes); }

// The code reading's Scout options, with the Table II thresholds (explore 44, ECN 8).
lb::SpritzParams code_scout() {
  lb::SpritzParams sp;
  sp.scout_buffered_only = true;
  sp.scout_shared_ecn = true;
  sp.scout_explore_from_buffer = true;
  sp.permanent_timeout = true;
  sp.bias = lb::SpritzParams::Bias::SmallFlows;
  return sp;
}

}  // namespace

// lb.spritz_scout_ecn_count = "shared": one counter for the connection, fed only by marks of buffered
// paths (lb.spritz_scout_feedback = "buffered"); the 9th mark (> 8) removes the path it came on.
// Per path (Alg. 2), the same marks leave both paths below 9 each.
TEST(SpritzCode, SharedEcnCounterRemovesThePathOfTheNinthMark) {
  const auto p = five_paths();
  SpritzPolicy s(ctx(p), code_scout(), K::Scout, W::Uniform);
  s.on_feedback(ev(p, 1), Feedback::Ack, 0);
  s.on_feedback(ev(p, 3), Feedback::Ack, 0);
  ASSERT_EQ(s.buffer(), (std::vector<std::uint32_t>{1, 3}));
  for (int k = 0; k < 5; ++k) s.on_feedback(ev(p, 1), Feedback::AckEcn, 0);
  for (int k = 0; k < 3; ++k) s.on_feedback(ev(p, 3), Feedback::AckEcn, 0);
  EXPECT_EQ(s.shared_ecn_count(), 8u);
  // Marks of a path outside the buffer are not counted.
  for (int k = 0; k < 4; ++k) s.on_feedback(ev(p, 2), Feedback::AckEcn, 0);
  EXPECT_EQ(s.shared_ecn_count(), 8u);
  EXPECT_EQ(s.buffer(), (std::vector<std::uint32_t>{1, 3}));
  s.on_feedback(ev(p, 3), Feedback::AckEcn, 0);  // the 9th: 9 > 8 removes path 3, resets the counter
  EXPECT_EQ(s.buffer(), (std::vector<std::uint32_t>{1}));
  EXPECT_EQ(s.shared_ecn_count(), 0u);
  for (int k = 0; k < 8; ++k) s.on_feedback(ev(p, 1), Feedback::AckEcn, 0);
  EXPECT_EQ(s.buffer(), (std::vector<std::uint32_t>{1}));
  s.on_feedback(ev(p, 1), Feedback::AckEcn, 0);
  EXPECT_TRUE(s.buffer().empty());

  // Alg. 2: ecn_counts[i] per path; 5 + 4 marks remove nothing, marks outside the buffer count.
  SpritzPolicy paper(ctx(p), lb::SpritzParams{}, K::Scout, W::Uniform);
  paper.on_feedback(ev(p, 1), Feedback::Ack, 0);
  paper.on_feedback(ev(p, 3), Feedback::Ack, 0);
  for (int k = 0; k < 5; ++k) paper.on_feedback(ev(p, 1), Feedback::AckEcn, 0);
  for (int k = 0; k < 4; ++k) paper.on_feedback(ev(p, 3), Feedback::AckEcn, 0);
  for (int k = 0; k < 4; ++k) paper.on_feedback(ev(p, 2), Feedback::AckEcn, 0);
  EXPECT_EQ(paper.buffer(), (std::vector<std::uint32_t>{1, 3}));
  EXPECT_EQ(paper.ecn_count(1), 5u);
  EXPECT_EQ(paper.ecn_count(3), 4u);
  EXPECT_EQ(paper.ecn_count(2), 4u);
}

// lb.spritz_scout_feedback = "buffered": a NACK or timeout of a path outside the buffer changes
// nothing (no counter reset, no blocked weight); of a buffered path it removes it and resets the count.
TEST(SpritzCode, ScoutHearsNegativeFeedbackOnlyForBufferedPaths) {
  const auto p = five_paths();
  SpritzPolicy s(ctx(p), code_scout(), K::Scout, W::Uniform);
  s.on_feedback(ev(p, 2), Feedback::Ack, 0);
  for (int k = 0; k < 3; ++k) s.on_feedback(ev(p, 2), Feedback::AckEcn, 0);
  s.on_feedback(ev(p, 4), Feedback::Nack, 0);
  s.on_feedback(ev(p, 4), Feedback::Timeout, 0);
  EXPECT_EQ(s.shared_ecn_count(), 3u);
  EXPECT_EQ(s.weight(4), 1.0);
  EXPECT_EQ(s.buffer(), (std::vector<std::uint32_t>{2}));
  s.on_feedback(ev(p, 2), Feedback::Nack, 0);
  EXPECT_EQ(s.shared_ecn_count(), 0u);
  EXPECT_TRUE(s.buffer().empty());
  EXPECT_EQ(s.weight(2), 1.0);  // a NACK removes, only a timeout blocks

  // Alg. 2: a timeout blocks any path.
  SpritzPolicy paper(ctx(p), lb::SpritzParams{}, K::Scout, W::Uniform);
  paper.on_feedback(ev(p, 4), Feedback::Timeout, 0);
  EXPECT_EQ(paper.weight(4), 0.0);
}

// lb.spritz_timeout = "permanent": a timed-out path's weight stays 0 however long the flow runs
// (the restore timer of sec. IV-A brings it back after spritz_restore_us); the last path with a
// weight is never blocked. Spray blocks any timed-out path, buffered or not.
TEST(SpritzCode, PermanentTimeoutZeroesTheWeightForGood) {
  const auto p = five_paths();
  lb::SpritzParams sp = code_scout();
  sp.restore_interval = us(50);
  SpritzPolicy s(ctx(p), sp, K::Scout, W::Uniform);
  s.on_feedback(ev(p, 1), Feedback::Ack, 0);
  s.on_feedback(ev(p, 1), Feedback::Timeout, us(10));
  EXPECT_TRUE(s.buffer().empty());
  EXPECT_EQ(s.weight(1), 0.0);
  for (int k = 0; k < 400; ++k) EXPECT_NE(s.next_ev(us(100) + ns(k)), ev(p, 1));
  EXPECT_EQ(s.weight(1), 0.0);  // 10x the restore interval later
  s.on_feedback(ev(p, 1), Feedback::Ack, ms(5));
  EXPECT_EQ(s.weight(1), 0.0);  // an ACK of it re-inserts it in the buffer but not in gen(w)
  EXPECT_EQ(s.buffer(), (std::vector<std::uint32_t>{1}));

  lb::SpritzParams paper;
  paper.restore_interval = us(50);
  SpritzPolicy r(ctx(p), paper, K::Scout, W::Uniform);
  r.on_feedback(ev(p, 1), Feedback::Timeout, us(10));
  EXPECT_EQ(r.weight(1), 0.0);
  r.next_ev(us(60));
  EXPECT_EQ(r.weight(1), 1.0);

  // Spray: every timed-out path, down to the last one with a weight, which stays.
  SpritzPolicy spray(ctx(p), sp, K::Spray, W::Uniform);
  for (std::size_t i = 0; i < 5; ++i) spray.on_feedback(ev(p, i), Feedback::Timeout, us(1));
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(spray.weight(i), 0.0) << i;
  EXPECT_EQ(spray.weight(4), 1.0);
  for (int k = 0; k < 50; ++k) EXPECT_EQ(spray.next_ev(us(2)), ev(p, 4));
}

// lb.spritz_scout_explore = "from_buffer": Scout's packet_count advances only on packets it sends from
// its buffer; while the buffer is empty every packet is a plain sample and the count stands still.
// Alg. 1 (every_packet) counts those packets too and explores at packet T + 2. Spray counts every
// packet under either setting.
TEST(SpritzCode, ExploreCounterStandsStillWhileTheBufferIsEmpty) {
  const auto p = five_paths();
  lb::SpritzParams sp = code_scout();
  sp.explore_threshold = 3;
  SpritzPolicy s(ctx(p), sp, K::Scout, W::Uniform);
  for (int k = 0; k < 7; ++k) s.next_ev(0);
  EXPECT_EQ(s.packet_count(), 0u);  // Alg. 1 would stand at 2 (it explored at the 5th)
  s.on_feedback(ev(p, 2), Feedback::Ack, 0);
  Oracle o;
  for (int k = 0; k < 7; ++k) o.next(std::vector<double>(5, 1.0));  // the seven samples above
  for (int k = 0; k < 4; ++k) EXPECT_EQ(s.next_ev(0), ev(p, 2));
  EXPECT_EQ(s.packet_count(), 4u);
  EXPECT_EQ(s.next_ev(0), ev(p, o.next(std::vector<double>(5, 1.0))));  // 4 > 3: explore
  EXPECT_EQ(s.packet_count(), 0u);

  lb::SpritzParams paper;
  paper.explore_threshold = 3;
  SpritzPolicy a(ctx(p), paper, K::Scout, W::Uniform);
  for (int k = 0; k < 4; ++k) a.next_ev(0);
  EXPECT_EQ(a.packet_count(), 4u);
  a.next_ev(0);
  EXPECT_EQ(a.packet_count(), 0u);

  SpritzPolicy spray(ctx(p), sp, K::Spray, W::Uniform);
  for (int k = 0; k < 4; ++k) spray.next_ev(0);
  EXPECT_EQ(spray.packet_count(), 4u);
}

// The same with Table II's threshold of 44 and a buffer that empties mid-flow: 20 packets from the
// buffer, a NACK empties it, 30 samples leave the count at 20, the path comes back, and 25 more from
// the buffer make 45 > 44: the next packet explores. Alg. 1 counts the 30 samples and explores at 45
// packets, while the buffer is still empty.
TEST(SpritzCode, ExploreAfterMoreThan44BufferedPacketsAcrossAnEmptyBuffer) {
  const auto p = five_paths();
  for (const bool from_buffer : {true, false}) {
    lb::SpritzParams sp = code_scout();
    sp.scout_explore_from_buffer = from_buffer;
    ASSERT_EQ(sp.explore_threshold, 44u);
    SpritzPolicy s(ctx(p), sp, K::Scout, W::Uniform);
    s.on_feedback(ev(p, 3), Feedback::Ack, 0);
    for (int k = 0; k < 20; ++k) ASSERT_EQ(s.next_ev(0), ev(p, 3));
    s.on_feedback(ev(p, 3), Feedback::Nack, 0);
    ASSERT_TRUE(s.buffer().empty());
    for (int k = 0; k < 30; ++k) s.next_ev(0);
    if (!from_buffer) {  // Alg. 1: 50 > 44 explored at the 46th packet, then counted 4 more
      EXPECT_EQ(s.packet_count(), 4u);
      continue;
    }
    EXPECT_EQ(s.packet_count(), 20u);
    s.on_feedback(ev(p, 3), Feedback::Ack, 0);
    for (int k = 0; k < 25; ++k) ASSERT_EQ(s.next_ev(0), ev(p, 3));
    EXPECT_EQ(s.packet_count(), 45u);
    s.next_ev(0);  // 45 > 44: a sample, not the buffer's front
    EXPECT_EQ(s.packet_count(), 0u);
    EXPECT_EQ(s.next_ev(0), ev(p, 3));
    EXPECT_EQ(s.packet_count(), 1u);
  }
}

// lb.spritz_bias = "small_flows": a flow below 512 KiB gets w = (100, 1, 1, 1, 1) for its whole life,
// even under Eq. 1 weights; a flow of 512 KiB or more keeps Eq. 1; neither reacts to the ECN rate
// (no Alg. 2 l. 23-24), which with "ecn_rate" sets w[0] to 100 after one fully marked base RTT.
TEST(SpritzCode, SmallFlowBiasBySize) {
  const auto p = five_paths();
  const lb::SpritzParams sp = code_scout();
  SpritzPolicy small(ctx(p, 512 * 1024 - 1), sp, K::Spray, W::Weighted);
  EXPECT_TRUE(small.small_flow_biased());
  const std::vector<double> biased{100, 1, 1, 1, 1};
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(small.weight(i), biased[i]) << i;
  Oracle o;
  int shortest = 0;
  for (int k = 0; k < 500; ++k) {
    const std::uint32_t e = small.next_ev(0);
    EXPECT_EQ(e, ev(p, o.next(biased)));
    shortest += e == ev(p, 0);
  }
  EXPECT_GT(shortest, 450);  // 100 / 104 of the samples

  SpritzPolicy large(ctx(p, 512 * 1024), sp, K::Spray, W::Weighted);
  EXPECT_FALSE(large.small_flow_biased());
  EXPECT_EQ(large.weight(0), 5.0);  // Eq. 1: 500 / 100
  EXPECT_EQ(large.weight(1), 2.5);
  for (int k = 0; k <= 10; ++k) large.on_feedback(ev(p, 2), Feedback::AckEcn, ns(100) * k);
  EXPECT_FALSE(large.min_biased());
  EXPECT_EQ(large.weight(0), 5.0);

  lb::SpritzParams paper;
  SpritzPolicy rate(ctx(p, 512 * 1024 - 1), paper, K::Spray, W::Weighted);
  EXPECT_FALSE(rate.small_flow_biased());
  for (int k = 0; k <= 10; ++k) rate.on_feedback(ev(p, 2), Feedback::AckEcn, ns(100) * k);
  EXPECT_TRUE(rate.min_biased());
  EXPECT_EQ(rate.weight(0), 100.0);
}

// lb.spritz_w_scale_rule = "multiply" (the code: w_scale x lat_longest / lat_i, the longest 1.0) vs
// "stretch" (1 + w_scale (lat_longest / lat_i - 1)); the paper's example 799.6 / 1491.0 ns.
TEST(SpritzCode, MultiplyRuleScalesEveryWeightButTheLongest) {
  using lb::WeightScale;
  EXPECT_NEAR(lb::eq1_weight(from_ns(799.6), from_ns(1491.0), 3, WeightScale::Multiply), 3 * 1491.0 / 799.6, 1e-9);
  EXPECT_DOUBLE_EQ(lb::eq1_weight(from_ns(1491.0), from_ns(1491.0), 3, WeightScale::Multiply), 1.0);
  EXPECT_DOUBLE_EQ(lb::eq1_weight(from_ns(799.6), from_ns(1491.0), 0, WeightScale::Multiply), 1.0);
  const auto m = five_paths(3, WeightScale::Multiply);
  const auto st = five_paths(3, WeightScale::Stretch);
  const double want_m[] = {15, 7.5, 5, 3.75, 1};
  const double want_s[] = {13, 5.5, 3, 1.75, 1};
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_DOUBLE_EQ(m.weight(i), want_m[i]) << i;
    EXPECT_DOUBLE_EQ(st.weight(i), want_s[i]) << i;
  }
  EXPECT_DOUBLE_EQ(m.cumulative().back(), 32.25);
}

// lb.spritz_reading = "code" fills in the code's values for the keys the config does not give (and
// names itself as their origin); "paper" changes nothing.
TEST(SpritzCode, ReadingPresetSetsTheCodesValuesUnlessGiven) {
  config::Config c;
  c.set("lb.spritz_reading", "code", "test");
  c.set("lb.spritz_timeout", "restore", "test");
  lb::apply_spritz_reading(c);
  EXPECT_EQ(c.integer("lb.spritz_buffer_size"), 9);
  EXPECT_EQ(c.text("lb.spritz_scout_feedback"), "buffered");
  EXPECT_EQ(c.text("lb.spritz_scout_ecn_count"), "shared");
  EXPECT_EQ(c.text("lb.spritz_scout_explore"), "from_buffer");
  EXPECT_EQ(c.text("lb.spritz_bias"), "small_flows");
  EXPECT_EQ(c.text("lb.spritz_w_scale_rule"), "multiply");
  EXPECT_EQ(c.text("lb.spritz_timeout"), "restore");  // given: kept
  EXPECT_EQ(c.origin("lb.spritz_bias"), "lb.spritz_reading = \"code\"");
  config::Config paper;
  lb::apply_spritz_reading(paper);
  EXPECT_EQ(paper.integer("lb.spritz_buffer_size"), 8);
  EXPECT_FALSE(paper.given("lb.spritz_bias"));
}

// lb.spritz_buffer_scope = "pair": the connections of one (source, destination) host pair share one
// buffer: what one flow's ACK inserts another sends on, and a timeout blocks the path for a
// connection made later too; another pair's buffer is its own.
TEST(SpritzCode, PairScopeSharesTheBufferAndTheBlockedPaths) {
  const auto p = five_paths();
  lb::SpritzParams sp = code_scout();
  sp.pair_buffer = true;
  auto shared = std::make_shared<lb::SpritzBuffer>();
  auto at = [&](std::int32_t src, std::int32_t dst, std::uint32_t flow) {
    lb::PolicyContext c = ctx(p);
    c.src = src;
    c.dst = dst;
    c.flow = flow;
    return c;
  };
  SpritzPolicy a(at(0, 9, 1), sp, K::Scout, W::Uniform, shared);
  SpritzPolicy b(at(0, 9, 2), sp, K::Scout, W::Uniform, shared);
  a.on_feedback(ev(p, 3), Feedback::Ack, 0);
  EXPECT_EQ(b.buffer(), (std::vector<std::uint32_t>{3}));
  EXPECT_EQ(b.next_ev(0), ev(p, 3));  // b sends on the path a's ACK found
  b.on_feedback(ev(p, 3), Feedback::Timeout, us(5));
  EXPECT_TRUE(a.buffer().empty());
  EXPECT_EQ(b.weight(3), 0.0);
  EXPECT_EQ(a.weight(3), 1.0);  // a's weights change at its own timeouts (as in the code) ...
  SpritzPolicy c(at(0, 9, 3), sp, K::Scout, W::Uniform, shared);
  EXPECT_EQ(c.weight(3), 0.0);  // ... and a connection made later starts without the blocked path
  // The ECN counter stays per connection: a's marks do not count for b.
  a.on_feedback(ev(p, 1), Feedback::Ack, us(6));
  for (int k = 0; k < 5; ++k) a.on_feedback(ev(p, 1), Feedback::AckEcn, us(6));
  EXPECT_EQ(a.shared_ecn_count(), 5u);
  EXPECT_EQ(b.shared_ecn_count(), 0u);

  // Per connection (the default), nothing is shared.
  SpritzPolicy d(at(0, 9, 4), code_scout(), K::Scout, W::Uniform);
  SpritzPolicy e(at(0, 9, 5), code_scout(), K::Scout, W::Uniform);
  d.on_feedback(ev(p, 3), Feedback::Ack, 0);
  EXPECT_TRUE(e.buffer().empty());
}
