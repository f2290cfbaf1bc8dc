// Property tests of the calendar event queue (core/event_queue.h) against std::priority_queue on
// (time, insertion sequence) ([issue 14]: the older tests stayed inside one bucket). Delays span
// 0 .. 2^40 ps, so the runs exercise the wheel (2^16 buckets of 2^8 ps: a 2^24 ps horizon), the
// bitmap jumps over empty buckets and 64-bucket words, many laps of the wheel (wrap-around), the
// overflow heap beyond the horizon, the side heap for events scheduled into the bucket being
// drained, bursts larger than a slot keeps, and equal-time ties (FIFO by insertion).
// Every run is deterministic: fixed seeds, no clocks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <queue>
#include <vector>

#include "core/event_queue.h"
#include "core/rng.h"

using namespace lbsim;

namespace {

constexpr SimTime kBucket = SimTime{1} << EventQueue::kShift;  // 2^7 ps
constexpr SimTime kHorizon = kBucket * EventQueue::kBuckets;   // 2^23 ps
constexpr SimTime kMaxDelay = SimTime{1} << 40;

struct Later {
  bool operator()(const Event& a, const Event& b) const { return event_before(b, a); }
};
using Reference = std::priority_queue<Event, std::vector<Event>, Later>;

// The queue under test and the reference, fed the same pushes; `now` is the time of the last pop
// (a simulator never schedules into the past).
struct Pair {
  EventQueue q;
  Reference ref;
  std::uint64_t seq = 0;
  SimTime now = 0;
  std::uint64_t pops = 0;
  bool hint = false;  // call prefetch_next_bucket() before every pop, as the far event loop does

  void push(SimTime t, std::uint32_t kind) {
    const auto obj = static_cast<std::uint32_t>(seq);
    q.push(t, kind, obj);
    ref.push(Event{t, seq++, obj, kind});
  }
  // A push with a sequence number reserved earlier (EventQueue::reserve_seqs): it sorts as if pushed
  // then, so a bucket's chain is no longer in sequence order.
  void push_reserved(SimTime t, std::uint32_t kind, std::uint64_t reserved) {
    q.push(t, kind, 1000000u, reserved);
    ref.push(Event{t, reserved, 1000000u, kind});
  }
  std::uint64_t reserve(std::uint64_t n) {
    const std::uint64_t first = q.reserve_seqs(n);
    seq += n;
    return first;
  }
  // Pops one event from both and checks they agree; returns false on the first mismatch.
  ::testing::AssertionResult pop() {
    if (q.empty() != ref.empty() || q.size() != ref.size())
      return ::testing::AssertionFailure() << "size " << q.size() << " vs reference " << ref.size();
    if (hint) q.prefetch_next_bucket();
    const Event want = ref.top();
    ref.pop();
    if (q.top_time() != want.time)
      return ::testing::AssertionFailure() << "top_time " << q.top_time() << " vs " << want.time << " at pop " << pops;
    const Event got = q.pop();
    ++pops;
    if (got.time != want.time || got.seq != want.seq || got.obj != want.obj || got.kind != want.kind)
      return ::testing::AssertionFailure()
             << "pop " << pops << ": (" << got.time << ", seq " << got.seq << ", obj " << got.obj << ") vs reference ("
             << want.time << ", seq " << want.seq << ", obj " << want.obj << ")";
    now = got.time;
    return ::testing::AssertionSuccess();
  }
  ::testing::AssertionResult drain() {
    while (!ref.empty())
      if (auto r = pop(); !r) return r;
    if (!q.empty())
      return ::testing::AssertionFailure() << "queue holds " << q.size() << " events the reference does not";
    return ::testing::AssertionSuccess();
  }
};

// A delay drawn from a mix that hits every part of the calendar.
SimTime delay(Rng& rng) {
  switch (rng.below(10)) {
    case 0:
      return 0;  // same time: FIFO tie
    case 1:
      return static_cast<SimTime>(rng.below(kBucket));  // same or next bucket (side heap)
    case 2:
      return static_cast<SimTime>(rng.below(64 * kBucket));  // within a bitmap word
    case 3:
      return static_cast<SimTime>(rng.below(kHorizon));  // anywhere on the wheel
    case 4:
      return kHorizon - kBucket + static_cast<SimTime>(rng.below(2 * kBucket));  // the horizon's edge
    case 5:
      return static_cast<SimTime>(rng.below(static_cast<std::uint64_t>(kMaxDelay) + 1));  // up to 2^40: overflow
    case 6:
      return static_cast<SimTime>(rng.below(4)) * kBucket;  // bucket boundaries exactly
    case 7:
      return static_cast<SimTime>(rng.below(8)) * kHorizon;  // whole laps ahead (same slot)
    default:
      return static_cast<SimTime>(1) << rng.below(41);  // every power of two up to 2^40
  }
}

}  // namespace

// Interleaved pushes and pops with delays from 0 to 2^40 ps: every pop equals the reference's.
static void random_delays(bool hint) {
  for (std::uint64_t seed : {1, 2, 3, 4, 5}) {
    Pair p;
    p.hint = hint;
    Rng rng(seed, hash_name("event-queue-property"));
    for (int step = 0; step < 60000; ++step) {
      // Slightly more pushes than pops so the queue holds a few thousand events at times.
      if (p.ref.empty() || rng.below(100) < 52) {
        p.push(p.now + delay(rng), static_cast<std::uint32_t>(rng.below(8)));
      } else {
        ASSERT_TRUE(p.pop()) << "seed " << seed;
      }
    }
    ASSERT_TRUE(p.drain()) << "seed " << seed;
    EXPECT_GT(p.now, 8 * kHorizon) << "the run must lap the wheel many times (seed " << seed << ")";
  }
}
TEST(EventQueueProperty, MatchesPriorityQueueOnRandomDelays) { random_delays(false); }

// Equal times pop in insertion order, across the wheel, the side heap and the overflow heap.
TEST(EventQueueProperty, EqualTimesPopInInsertionOrder) {
  Pair p;
  for (SimTime t :
       {SimTime{0}, SimTime{5}, kBucket - 1, kBucket, kHorizon - 1, kHorizon, kHorizon + 1, 3 * kHorizon, kMaxDelay})
    for (std::uint32_t i = 0; i < 5; ++i) p.push(t, i);
  // Interleave: pop some, then schedule more at the current time (into the bucket being drained).
  for (int i = 0; i < 12; ++i) ASSERT_TRUE(p.pop());
  for (std::uint32_t i = 0; i < 5; ++i) p.push(p.now, 9);
  ASSERT_TRUE(p.drain());
}

// Only far events: everything starts in the overflow heap and moves to the wheel lap by lap.
TEST(EventQueueProperty, OverflowOnly) {
  Pair p;
  Rng rng(11, hash_name("overflow"));
  for (int i = 0; i < 5000; ++i)
    p.push(kHorizon + static_cast<SimTime>(rng.below(static_cast<std::uint64_t>(kMaxDelay))), 0);
  // While draining, schedule follow-ups at short and long delays, as timers do.
  for (int i = 0; i < 5000; ++i) {
    ASSERT_TRUE(p.pop());
    p.push(p.now + (i % 2 ? static_cast<SimTime>(rng.below(kHorizon))
                          : static_cast<SimTime>(rng.below(static_cast<std::uint64_t>(kMaxDelay)))),
           1);
  }
  ASSERT_TRUE(p.drain());
}

// Sparse events: one per 2^k buckets, so settle() jumps over runs of empty buckets and whole
// 64-bucket bitmap words, including the jump across the end of the wheel.
TEST(EventQueueProperty, BitmapSkipsAndWrapAround) {
  for (SimTime gap :
       {kBucket, 63 * kBucket, 64 * kBucket, 65 * kBucket, 1000 * kBucket, kHorizon - kBucket, kHorizon + kBucket}) {
    Pair p;
    p.push(kBucket / 2, 0);
    for (int i = 0; i < 300; ++i) {
      ASSERT_TRUE(p.pop()) << "gap " << gap;
      p.push(p.now + gap, 0);
      p.push(p.now + gap, 1);  // a tie in the same far bucket
      ASSERT_TRUE(p.pop()) << "gap " << gap;
    }
    ASSERT_TRUE(p.drain()) << "gap " << gap;
  }
}

// A burst of thousands of events in one bucket (more than a slot keeps), then the next lap uses
// the same slot again.
TEST(EventQueueProperty, BurstInOneBucket) {
  Pair p;
  Rng rng(5, hash_name("burst"));
  for (int lap = 0; lap < 4; ++lap) {
    const SimTime base = p.now + kHorizon - kBucket;  // same slot every lap
    for (int i = 0; i < 3000; ++i)
      p.push(base + static_cast<SimTime>(rng.below(kBucket)), static_cast<std::uint32_t>(lap));
    for (int i = 0; i < 2000; ++i) {
      ASSERT_TRUE(p.pop());
      if (i % 3 == 0) p.push(p.now + static_cast<SimTime>(rng.below(3)), 7);  // into the bucket being drained
    }
  }
  ASSERT_TRUE(p.drain());
}

// Buckets as the engine fills them: one block or many, nearly sorted (a few events earlier than
// the ones pushed before them) or in reverse, popped while pushes into the bucket being drained
// and into later buckets make the block arena grow under the bucket read in place.
static void in_place(bool hint) {
  Pair p;
  p.hint = hint;
  Rng rng(17, hash_name("in-place"));
  for (int round = 0; round < 400; ++round) {
    const SimTime base = p.now + kBucket * static_cast<SimTime>(1 + rng.below(4)) - (p.now % kBucket);
    const std::uint32_t n = static_cast<std::uint32_t>(1 + rng.below(round % 3 == 0 ? 8 : 120));
    const bool reverse = rng.below(8) == 0;
    for (std::uint32_t i = 0; i < n; ++i) {
      const SimTime off = reverse ? (n - i) % kBucket : (rng.below(10) == 0 ? 0 : kBucket / 2);
      p.push(base + off, 2);
    }
    const std::uint32_t pops = static_cast<std::uint32_t>(rng.below(n + 1));
    for (std::uint32_t i = 0; i < pops && !p.ref.empty(); ++i) {
      ASSERT_TRUE(p.pop()) << "round " << round;
      if (rng.below(3) == 0)
        p.push(p.now + static_cast<SimTime>(rng.below(2 * kBucket)), 3);  // this bucket or the next
      if (rng.below(4) == 0)
        for (int k = 0; k < 20; ++k)
          p.push(p.now + kBucket * static_cast<SimTime>(2 + rng.below(64)), 4);  // new blocks
    }
  }
  ASSERT_TRUE(p.drain());
}
TEST(EventQueueProperty, BucketsReadInPlaceAndNearlySorted) { in_place(false); }

// Buckets of more than one block as a symmetric network fills them: many events of few distinct
// times, interleaved. The queue orders a chain of more than 32 events by a counting sort on the
// time (EventQueue::distribute_by_offset) and splits a shorter one of one or two times by time
// (EventQueue::distribute); other short chains, and chains out of sequence order through pushes
// with reserved sequence numbers, take the copy-and-sort path, and a short chain after such a miss
// may take it too (the queue skips the look for a while): every mix must pop in (time, seq) order.
static void few_distinct_times(bool hint) {
  Pair p;
  p.hint = hint;
  Rng rng(23, hash_name("few-times"));
  std::uint64_t reserved = p.reserve(400);
  SimTime last = 0;  // the latest time pushed: every round fills a bucket of its own
  for (int round = 0; round < 600; ++round) {
    const SimTime from = std::max(p.now, last);
    const SimTime base = from - (from % kBucket) + kBucket * static_cast<SimTime>(1 + rng.below(3));
    last = base + kBucket - 1;
    const std::uint32_t times = round % 7 == 6 ? 17 + static_cast<std::uint32_t>(rng.below(40))
                                               : 1 + static_cast<std::uint32_t>(rng.below(round % 2 ? 2 : 16));
    std::vector<SimTime> offs;
    for (std::uint32_t k = 0; k < times; ++k) offs.push_back(static_cast<SimTime>(rng.below(kBucket)));
    const std::uint32_t n = 9 + static_cast<std::uint32_t>(rng.below(150));
    for (std::uint32_t i = 0; i < n; ++i) p.push(base + offs[rng.below(times)], static_cast<std::uint32_t>(i % 5));
    if (round % 5 == 4 && reserved < 400) p.push_reserved(base + offs[0], 6, reserved++);
    const std::uint32_t pops = static_cast<std::uint32_t>(rng.below(n + 1));
    for (std::uint32_t i = 0; i < pops && !p.ref.empty(); ++i) {
      ASSERT_TRUE(p.pop()) << "round " << round;
      if (rng.below(8) == 0) p.push(p.now + static_cast<SimTime>(rng.below(2 * kBucket)), 3);
    }
  }
  ASSERT_TRUE(p.drain());
}
TEST(EventQueueProperty, BucketsOfFewDistinctTimes) { few_distinct_times(false); }

// The far event loop's hint (EventQueue::prefetch_next_bucket, called before every pop) walks the
// next occupied bucket's chain while this one drains, the arena growing and chains being appended
// and freed meanwhile: the pops are those of the reference all the same.
TEST(EventQueueProperty, PrefetchingTheNextBucketChangesNoPop) {
  random_delays(true);
  in_place(true);
  few_distinct_times(true);
}

// ahead(k) shows the event that the (k+1)-th next pop returns while the bucket being drained has
// it, and nullptr past the bucket's end (the event loop prefetches with it).
TEST(EventQueueProperty, AheadShowsTheComingEventsOfTheBucket) {
  EventQueue q;
  const SimTime base = 10 * kBucket;
  for (std::uint32_t i = 0; i < 20; ++i)
    q.push(base + static_cast<SimTime>((i * 7) % 20), 0, i);  // one bucket, unsorted
  q.push(base + 3 * kBucket, 0, 99);                          // a later bucket
  EXPECT_EQ(q.ahead(0), nullptr) << "nothing is drained before the first pop";
  std::vector<Event> popped{q.pop()};
  std::vector<const Event*> seen;
  for (std::ptrdiff_t k = 0; k < 19; ++k) {
    const Event* a = q.ahead(k);
    ASSERT_NE(a, nullptr) << "k " << k;
    seen.push_back(a);
  }
  EXPECT_EQ(q.ahead(19), nullptr) << "the bucket holds 19 more events, the later bucket is not shown";
  std::vector<Event> want;
  for (const Event* a : seen) want.push_back(*a);
  for (int i = 0; i < 19; ++i) popped.push_back(q.pop());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(popped[i + 1].obj, want[i].obj) << "ahead(" << i << ")";
    EXPECT_EQ(popped[i + 1].time, want[i].time) << "ahead(" << i << ")";
  }
  for (std::size_t i = 1; i < popped.size(); ++i) EXPECT_LT(popped[i - 1].time, popped[i].time);
  EXPECT_EQ(q.pop().obj, 99u);
}
