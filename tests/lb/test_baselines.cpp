// The REPS baselines ([REPS] sec. 4.1, src/lb/baselines.h), driven step by step.
#include <gtest/gtest.h>

#include <set>

#include "lb/baselines.h"
#include "lb/registry.h"
#include "lb/policy.h"

using namespace lbsim;
using lb::Feedback;

namespace {
lb::PolicyContext context() {
  lb::PolicyContext c;
  c.ev_space = 1u << 16;
  c.bdp_packets = 16;
  c.base_rtt = us(4);
  c.rto = us(70);
  c.rng = Rng(9, hash_name("lb"), 1);
  return c;
}
}  // namespace

// PLB with threshold 0.25: a round with 1 of 4 ACKs marked is congested -> repath at the next round
// boundary; 1 of 5 (0.2) is not. A timeout repaths at once.
TEST(Baselines, PlbRepathsOnCongestedRoundsAndTimeouts) {
  lb::BaselineParams p;
  p.plb_threshold = 0.25;
  lb::PlbPolicy r(context(), p);
  const auto ev0 = r.next_ev(0);
  EXPECT_EQ(r.next_ev(us(1)), ev0);
  // Round 1 (0..4 us): 5 ACKs, 1 marked = 0.2 < 0.25.
  for (int i = 0; i < 4; ++i) r.on_feedback(ev0, Feedback::Ack, us(1));
  r.on_feedback(ev0, Feedback::AckEcn, us(2));
  r.on_feedback(ev0, Feedback::Ack, us(5));  // closes round 1: not congested
  EXPECT_EQ(r.repaths(), 0u);
  EXPECT_EQ(r.next_ev(us(5)), ev0);
  // Round 2 (5..9 us): this ACK + 2 more + 1 marked = 1 of 4.
  r.on_feedback(ev0, Feedback::Ack, us(6));
  r.on_feedback(ev0, Feedback::Ack, us(6));
  r.on_feedback(ev0, Feedback::AckEcn, us(7));
  r.on_feedback(ev0, Feedback::Ack, us(9));  // closes round 2: 0.25 >= 0.25
  EXPECT_EQ(r.repaths(), 1u);
  const auto ev1 = r.next_ev(us(9));
  EXPECT_NE(ev1, ev0);
  r.on_feedback(ev1, Feedback::Timeout, us(10));
  EXPECT_EQ(r.repaths(), 2u);
  EXPECT_NE(r.next_ev(us(10)), ev1);
}

TEST(Baselines, PlbNeedsConsecutiveRounds) {
  lb::BaselineParams p;
  p.plb_threshold = 0.25;
  p.plb_rounds = 2;
  lb::PlbPolicy r(context(), p);
  r.on_feedback(1, Feedback::AckEcn, us(0));
  r.on_feedback(1, Feedback::AckEcn, us(4));  // round 1 congested (1/1)
  EXPECT_EQ(r.repaths(), 0u);
  r.on_feedback(1, Feedback::AckEcn, us(8));  // round 2 congested -> repath
  EXPECT_EQ(r.repaths(), 1u);
}

// PLB as Linux's tcp_plb and the LAPS artifact run it: 50% threshold, repath after 3 congested
// rounds if the round ends with nothing in flight, after 12 in any case.
TEST(Baselines, PlbIdleAndForcedRepath) {
  lb::BaselineParams p;
  p.plb_threshold = 0.5;
  p.plb_rounds = 12;
  p.plb_idle_rounds = 3;
  lb::PlbPolicy r(context(), p);
  EXPECT_TRUE(r.caps() & lb::kCapAckDetail);
  const auto ack = [&](SimTime t, bool ecn, Bytes inflight) {
    lb::AckDetail d;
    d.now = t;
    d.inflight = inflight;
    r.on_ack_detail(d);
    r.on_feedback(1, ecn ? Feedback::AckEcn : Feedback::Ack, t);
  };
  // Rounds of 4 us, half the ACKs marked (congested), always something in flight: 12 rounds to repath.
  SimTime t = 0;
  for (int round = 0; round < 12; ++round) {
    ack(t, true, 1000);
    ack(t + us(1), false, 1000);
    t += us(4);
  }
  EXPECT_EQ(r.repaths(), 0u);
  ack(t, false, 1000);  // closes round 12
  EXPECT_EQ(r.repaths(), 1u);
  // Again, but round 3 ends with an ACK that leaves nothing in flight: repath there.
  for (int round = 0; round < 3; ++round) {
    t += us(4);
    ack(t, true, 1000);
    ack(t + us(1), false, 1000);
  }
  EXPECT_EQ(r.repaths(), 1u);  // (the first of these ACKs closed the round of the forced repath, uncongested): 2
                               // congested rounds so far, always with bytes in flight
  t += us(4);
  ack(t, true, 0);  // closes round 3 (congested) with nothing in flight
  EXPECT_EQ(r.repaths(), 2u);
  // 1 of 3 marked (< 50%) is not congested.
  lb::PlbPolicy q(context(), p);
  const auto ev = q.next_ev(0);
  for (int round = 0; round < 20; ++round) {
    q.on_feedback(1, Feedback::AckEcn, us(4 * round));
    q.on_feedback(1, Feedback::Ack, us(4 * round + 1));
    q.on_feedback(1, Feedback::Ack, us(4 * round + 2));
  }
  EXPECT_EQ(q.repaths(), 0u);
  EXPECT_EQ(q.next_ev(us(100)), ev);
}

// Flowlet: same EV inside a burst, a new one after an idle gap longer than base RTT / 2 = 2 us.
TEST(Baselines, FlowletNewEvAfterIdleGap) {
  lb::FlowletPolicy r(context(), lb::BaselineParams{});
  const auto a = r.next_ev(0);
  EXPECT_EQ(r.next_ev(ns(1500)), a);
  EXPECT_EQ(r.next_ev(ns(3400)), a);   // gaps of 1.5 and 1.9 us
  const auto b = r.next_ev(ns(5500));  // gap 2.1 us
  EXPECT_NE(b, a);
  EXPECT_EQ(r.flowlets(), 2u);
}

// MPRDMA-style: reuse the EV of the last good ACK; a bad signal on it drops it.
TEST(Baselines, MprdmaReusesLastGoodAck) {
  lb::MprdmaPolicy r(context());
  const auto x = r.next_ev(0), y = r.next_ev(0);
  EXPECT_NE(x, y);  // no good ACK yet: spraying
  r.on_feedback(777, Feedback::Ack, us(1));
  EXPECT_EQ(r.next_ev(us(1)), 777u);
  EXPECT_EQ(r.next_ev(us(1)), 777u);
  r.on_feedback(555, Feedback::AckEcn, us(2));  // another EV's mark does not matter
  EXPECT_EQ(r.next_ev(us(2)), 777u);
  r.on_feedback(777, Feedback::AckEcn, us(2));
  EXPECT_NE(r.next_ev(us(2)), 777u);
}

// MPTCP-like: 8 subflows on 8 EVs, striped round-robin; a timed-out subflow sits out one RTO.
TEST(Baselines, MptcpStripesOverSubflows) {
  lb::MptcpPolicy r(context(), lb::BaselineParams{});
  const auto evs = r.subflow_evs();
  ASSERT_EQ(evs.size(), 8u);
  for (int round = 0; round < 2; ++round)
    for (int k = 0; k < 8; ++k) EXPECT_EQ(r.next_ev(0), evs[k]);
  r.on_feedback(evs[2], Feedback::Timeout, us(1));
  std::set<std::uint32_t> used;
  for (int k = 0; k < 14; ++k) used.insert(r.next_ev(us(2)));
  EXPECT_EQ(used.size(), 7u);
  EXPECT_FALSE(used.count(evs[2]));
  bool back = false;
  for (int k = 0; k < 8; ++k) back |= r.next_ev(us(72)) == evs[2];
  EXPECT_TRUE(back);
}

// Bitmap: a penalized EV is skipped (and its penalty decays by one per skip).
TEST(Baselines, BitmapSkipsPenalizedEvs) {
  lb::BaselineParams p;
  p.bitmap_evs = 4;
  p.bitmap_timeout_penalty = 200;
  lb::BitmapPolicy r(context(), p);
  std::set<std::uint32_t> evs;
  for (int i = 0; i < 64; ++i) evs.insert(r.next_ev(0));
  ASSERT_EQ(evs.size(), 4u);
  const auto bad = *evs.begin();
  r.on_feedback(bad, Feedback::Timeout, us(1));
  EXPECT_EQ(r.penalty(bad), 200u);
  int hits = 0;
  for (int i = 0; i < 100; ++i) hits += r.next_ev(us(1)) == bad;
  EXPECT_EQ(hits, 0);
  EXPECT_LT(r.penalty(bad), 200u);
  r.on_feedback(bad, Feedback::AckEcn, us(2));
  r.on_feedback(bad, Feedback::Nack, us(2));
  EXPECT_GT(r.penalty(bad), 0u);
}

// The REPS paper's baselines are registered with their own keys (tests/registry checks every
// plug-in end to end).
TEST(Baselines, RegisteredWithTheirKeys) {
  for (const auto& [name, key] : std::vector<std::pair<std::string, std::string>>{{"plb", "lb.plb_threshold"},
                                                                                  {"flowlet", "lb.flowlet_timeout_us"},
                                                                                  {"mptcp", "lb.mptcp_subflows"},
                                                                                  {"bitmap", "lb.bitmap_evs"}}) {
    const auto& e = lb::balancers().get(name);
    EXPECT_TRUE(std::any_of(e.keys.begin(), e.keys.end(), [&](const auto& k) { return k.key == key; })) << name;
    EXPECT_NE(e.make(config::Config{}, context())(context()), nullptr) << name;
  }
  EXPECT_NE(lb::balancers().get("mprdma").make(config::Config{}, context())(context()), nullptr);
}
