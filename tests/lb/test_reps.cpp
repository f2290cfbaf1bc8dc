// REPS state machine, step by step against [REPS] Algorithms 1 and 2 and Table 1.
#include <gtest/gtest.h>

#include "lb/policy.h"
#include "lb/registry.h"
#include "lb/reps.h"

using namespace lbsim;
using lb::Feedback;
using lb::RepsPolicy;

namespace {

lb::PolicyContext context(std::uint32_t bdp_packets, bool trimming = true) {
  lb::PolicyContext c;
  c.flow = 3;
  c.ev_space = 1u << 16;
  c.bdp_packets = bdp_packets;
  c.base_rtt = us(4);
  c.rto = us(70);
  c.trimming = trimming;
  c.rng = Rng(42, hash_name("lb"), 3);
  return c;
}

// The random EVs the policy will draw: a copy of its stream.
struct Oracle {
  Rng rng{42, hash_name("lb"), 3};
  std::uint32_t next() { return static_cast<std::uint32_t>(rng.below(1u << 16)); }
};

void ack(RepsPolicy& r, std::uint32_t ev, SimTime t = us(1)) { r.on_feedback(ev, Feedback::Ack, t); }

}  // namespace

// sec. 3.1: a new connection explores random EVs for its first BDP; l. 16 of Alg. 2 decrements the
// counter once per packet.
TEST(Reps, NewConnectionExploresFirstBdp) {
  lb::RepsParams p;
  RepsPolicy r(context(10), p);
  Oracle o;
  EXPECT_EQ(r.explore_counter(), 10u);
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(r.next_ev(0), o.next()) << i;
    EXPECT_EQ(r.explore_counter(), static_cast<std::uint32_t>(9 - i));
  }
  // Still nothing cached: keep spraying at random (l. 19-20).
  EXPECT_EQ(r.next_ev(0), o.next());
  EXPECT_FALSE(r.freezing());
}

// Alg. 1 l. 9-14 and Alg. 2 l. 3-6: non-ECN ACKs are cached with the validity bit set; the oldest
// valid EV is reused and invalidated; ECN-marked ACKs are discarded.
TEST(Reps, CachesNonEcnAcksAndReusesOldestValid) {
  lb::RepsParams p;
  RepsPolicy r(context(0), p);
  Oracle o;
  ack(r, 100);
  r.on_feedback(555, Feedback::AckEcn, us(1));
  r.on_feedback(556, Feedback::Nack, us(1));
  ack(r, 200);
  EXPECT_EQ(r.head(), 2u);
  EXPECT_EQ(r.valid_evs(), 2u);
  EXPECT_EQ(r.next_ev(us(2)), 100u);  // oldest first
  EXPECT_EQ(r.valid_evs(), 1u);
  EXPECT_EQ(r.buffer()[0].valid, 0u);
  ack(r, 300);
  EXPECT_EQ(r.next_ev(us(2)), 200u);
  EXPECT_EQ(r.next_ev(us(2)), 300u);
  EXPECT_EQ(r.valid_evs(), 0u);
  // No valid EV and not freezing: explore (l. 19-20).
  EXPECT_EQ(r.next_ev(us(2)), o.next());
}

// The buffer is circular: 10 ACKs into 8 elements overwrite the two oldest, head wraps to 2 and the
// valid count saturates at 8 (l. 9-10 only count an element that was invalid).
TEST(Reps, BufferWrapsAround) {
  lb::RepsParams p;
  RepsPolicy r(context(0), p);
  Oracle o;
  for (std::uint32_t ev = 1; ev <= 10; ++ev) ack(r, ev);
  EXPECT_EQ(r.head(), 2u);
  EXPECT_EQ(r.valid_evs(), 8u);
  EXPECT_EQ(r.buffer()[0].ev, 9u);
  EXPECT_EQ(r.buffer()[1].ev, 10u);
  for (std::uint32_t ev = 3; ev <= 10; ++ev) EXPECT_EQ(r.next_ev(us(2)), ev);
  EXPECT_EQ(r.next_ev(us(2)), o.next());
}

// Alg. 1 l. 21-25 and Alg. 2 l. 7-10: in freezing mode the cached EVs are reused round-robin even
// though invalid; the mode ends at the first ACK after the freezing timeout (l. 15-18), which
// restarts exploration: every buffer_size-th packet of the next BDP is random.
TEST(Reps, FreezingEntryReuseAndExit) {
  lb::RepsParams p;
  p.freezing_timeout = us(50);
  RepsPolicy r(context(16), p);
  Oracle o;
  for (int i = 0; i < 16; ++i) o.next(), r.next_ev(0);  // exploration of the first BDP
  ack(r, 1);
  ack(r, 2);
  ack(r, 3);
  for (std::uint32_t ev = 1; ev <= 3; ++ev) EXPECT_EQ(r.next_ev(us(2)), ev);
  EXPECT_EQ(r.valid_evs(), 0u);
  r.on_feedback(77, Feedback::Timeout, us(10));
  ASSERT_TRUE(r.freezing());
  EXPECT_EQ(r.exit_freezing_at(), us(60));
  EXPECT_EQ(r.freeze_entries(), 1u);
  // Round-robin over the three cached (now invalid) EVs; never-filled elements are skipped.
  const std::uint32_t expect[] = {1, 2, 3, 1, 2, 3, 1};
  for (auto e : expect) EXPECT_EQ(r.next_ev(us(11)), e);
  // A second failure while frozen does not extend the timeout.
  r.on_feedback(77, Feedback::Timeout, us(20));
  EXPECT_EQ(r.exit_freezing_at(), us(60));
  // An ACK before the exit time keeps freezing; the buffer takes it at the (moved) head.
  const auto h = r.head();
  ack(r, 9, us(60));
  EXPECT_TRUE(r.freezing());
  EXPECT_EQ(r.buffer()[h].ev, 9u);
  EXPECT_EQ(r.next_ev(us(60)), 9u);  // a valid EV is used first
  ack(r, 10, us(61));
  EXPECT_FALSE(r.freezing());
  EXPECT_EQ(r.explore_counter(), 16u);
  // Exploration after freezing: counter 15..9 recycle (or explore when nothing is valid), 8 is random.
  EXPECT_EQ(r.next_ev(us(62)), 10u);                                          // counter 15
  for (int k = 14; k >= 9; --k) EXPECT_EQ(r.next_ev(us(62)), o.next()) << k;  // no valid EV left
  ack(r, 11, us(63));
  EXPECT_EQ(r.next_ev(us(63)), o.next());  // counter 8: forced random although 11 is valid
  EXPECT_EQ(r.next_ev(us(63)), 11u);       // counter 7
}

// l. 22: a failure during exploration does not freeze; with an empty buffer a frozen connection
// still has to draw random EVs (Alg. 2 l. 19).
TEST(Reps, NoFreezeWhileExploringAndEmptyBufferWhenFrozen) {
  lb::RepsParams p;
  RepsPolicy r(context(4), p);
  Oracle o;
  r.on_feedback(1, Feedback::Timeout, us(1));
  EXPECT_FALSE(r.freezing());
  for (int i = 0; i < 4; ++i) EXPECT_EQ(r.next_ev(us(1)), o.next());
  r.on_feedback(1, Feedback::Timeout, us(2));
  EXPECT_TRUE(r.freezing());
  EXPECT_EQ(r.next_ev(us(3)), o.next());
  EXPECT_EQ(r.next_ev(us(3)), o.next());
}

TEST(Reps, FreezingCanBeDisabled) {
  lb::RepsParams p;
  p.freezing = false;
  RepsPolicy r(context(0), p);
  r.on_feedback(1, Feedback::Timeout, us(1));
  EXPECT_FALSE(r.freezing());
  EXPECT_EQ(r.failures_detected(), 1u);
}

// App. A without trimming: a timeout after high RTTs is congestion, after low RTTs a failure.
TEST(Reps, MaxRttHeuristicWithoutTrimming) {
  lb::RepsParams p;  // failure when max RTT < 2 x base RTT (8 us)
  {
    RepsPolicy r(context(0, false), p);
    r.on_rtt(us(5), us(1));
    r.on_rtt(us(30), us(2));  // deep queues recently
    r.on_feedback(1, Feedback::Timeout, us(40));
    EXPECT_FALSE(r.freezing());
    EXPECT_EQ(r.failures_detected(), 0u);
  }
  {
    RepsPolicy r(context(0, false), p);
    r.on_rtt(us(5), us(1));
    r.on_rtt(us(6), us(2));
    r.on_feedback(1, Feedback::Timeout, us(40));
    EXPECT_TRUE(r.freezing());
  }
  {  // high RTTs long ago (more than two RTOs) no longer count, but no recent sample is no evidence
    RepsPolicy r(context(0, false), p);
    r.on_rtt(us(30), us(1));
    r.on_feedback(1, Feedback::Timeout, us(400));
    EXPECT_FALSE(r.freezing());
    r.on_rtt(us(5), us(401));
    r.on_feedback(1, Feedback::Timeout, us(402));
    EXPECT_TRUE(r.freezing());
  }
}

// sec. 3.1: an idle connection counts as new again.
TEST(Reps, IdleConnectionExploresAgain) {
  lb::RepsParams p;
  p.idle_timeout = us(100);
  RepsPolicy r(context(4), p);
  for (int i = 0; i < 4; ++i) r.next_ev(0);
  ack(r, 5, us(1));
  EXPECT_EQ(r.next_ev(us(50)), 5u);
  EXPECT_EQ(r.explore_counter(), 0u);
  r.next_ev(us(200));
  EXPECT_EQ(r.explore_counter(), 3u);
}

// sec. 4.5.1 ACK + Reuse EVs: each cached EV serves n packets, spread round-robin over the valid
// elements (not n back-to-back packets on one path).
TEST(Reps, ReuseModeUsesEachEvNTimes) {
  lb::RepsParams p;
  p.ack_mode = lb::RepsAckMode::Reuse;
  p.reuse = 3;
  RepsPolicy r(context(0), p);
  Oracle o;
  ack(r, 7);
  ack(r, 8);
  EXPECT_EQ(r.valid_evs(), 2u);
  for (std::uint32_t e : {7u, 8u, 7u, 8u, 7u, 8u}) EXPECT_EQ(r.next_ev(us(2)), e);
  EXPECT_EQ(r.next_ev(us(2)), o.next());
}

// Table 1: 193 bits for 8 elements and 74 bits for one, with 16-bit EVs.
TEST(Reps, StateBitsMatchTable1) {
  lb::RepsParams p;
  EXPECT_EQ(RepsPolicy(context(0), p).state_bits(), 193u);
  p.buffer_size = 1;
  EXPECT_EQ(RepsPolicy(context(0), p).state_bits(), 74u);
  // Through the registry with the default keys (lb.reps_buffer_size = 8).
  EXPECT_EQ(lb::balancers().get("reps").make(config::Config{}, context(0))(context(0))->state_bits(), 193u);
}
