// The event queue: a calendar queue of small, trivially copyable records.
//
// Events are kept in fixed-width time buckets (2^kShift ps) on a wheel of kBuckets buckets (a
// bitmap of non-empty buckets lets the queue jump over empty ones); later events wait in an
// overflow heap until the wheel reaches them. A bucket's events sit in a chain of fixed-size blocks
// taken from one shared arena: a push appends to the chain's last block (a new block from the
// arena's free list every kBlock events), so nothing is allocated per event or per bucket once the
// arena has grown to the peak number of events queued, and a drained bucket returns its whole chain
// to the free list at once. When the queue reaches a bucket it sorts it once (a one-block bucket
// in its block, a longer chain copied out); events scheduled into the bucket being drained go to a small side heap that
// is merged on the fly. Pops follow exactly the total order (time, insertion sequence), the same as a single binary
// heap would give, so equal-time events run in insertion order and a run is deterministic; but each pop touches a few
// cache lines instead of walking a heap of 10^5 entries (measured: docs/architecture.md, "The event loop";
// docs/scale.md, "Cost per event"). Events carry a kind and a 32-bit object index instead of a callback: the engine
// dispatches with a switch, with no std::function or allocation per event.
#pragma once
#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/time.h"

namespace lbsim {

struct Event {
  SimTime time;
  std::uint64_t seq;
  std::uint32_t obj;   // index of the object the event concerns (packet, port, flow, ...)
  std::uint32_t kind;  // engine-defined event kind
};

inline bool event_before(const Event& a, const Event& b) {
  return a.time < b.time || (a.time == b.time && a.seq < b.seq);
}
struct EventBefore {
  bool operator()(const Event& a, const Event& b) const { return event_before(a, b); }
};

// A binary min-heap on (time, seq); used for the side and overflow parts of the calendar.
class EventHeap {
 public:
  bool empty() const { return h_.empty(); }
  std::size_t size() const { return h_.size(); }
  const Event& top() const { return h_.front(); }
  void push(const Event& e) {
    h_.push_back(e);
    std::size_t i = h_.size() - 1;
    while (i > 0) {
      const std::size_t parent = (i - 1) / 2;
      if (!event_before(e, h_[parent])) break;
      h_[i] = h_[parent];
      i = parent;
    }
    h_[i] = e;
  }
  Event pop() {
    const Event top = h_.front();
    const Event last = h_.back();
    h_.pop_back();
    const std::size_t n = h_.size();
    if (n == 0) return top;
    std::size_t i = 0;
    for (;;) {
      std::size_t c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && event_before(h_[c + 1], h_[c])) ++c;
      if (!event_before(h_[c], last)) break;
      h_[i] = h_[c];
      i = c;
    }
    h_[i] = last;
    return top;
  }

 private:
  std::vector<Event> h_;
};

class EventQueue {
 public:
  // Bucket width 2^7 ps = 128 ps: a few events per bucket on the 128-host demo, ~20 on the 1024-host
  // benchmark, ~100 on the 8192-host one (docs/scale.md, "Cost per event", "Narrower buckets");
  // horizon 2^23 ps = 8.4 us, beyond the link, switch and serialization delays that schedule nearly
  // every event.
  static constexpr int kShift = 7;
  static constexpr std::int64_t kBuckets = 1 << 16;
  static constexpr std::uint32_t kBlock = 8;  // events per arena block (192 B: 3 cache lines)

  EventQueue() : wheel_(static_cast<std::size_t>(kBuckets)), occupied_(static_cast<std::size_t>(kBuckets / 64), 0) {}

  // Not copyable: the read position points into the queue's own storage.
  EventQueue(const EventQueue&) = delete;
  EventQueue& operator=(const EventQueue&) = delete;

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  std::uint64_t pushed() const { return seq_; }
  // Capacity (events) of the block arena, in use or free: the arena grows to the peak number of
  // blocks in use (at most the events on the wheel / kBlock + one partly filled block per non-empty
  // bucket) and never with simulated time.
  std::size_t retained() const { return blocks_.size() * kBlock; }
  SimTime top_time() {
    settle();
    return peek().time;
  }

  void push(SimTime t, std::uint32_t kind, std::uint32_t obj) { insert(Event{t, seq_++, obj, kind}); }
  // Reserves `n` insertion sequence numbers (returns the first); an event pushed later with one of
  // them is ordered as if it had been pushed at the time of the reservation (a streamed workload's
  // entry starts: the same order as queuing them all at once).
  std::uint64_t reserve_seqs(std::uint64_t n) {
    const std::uint64_t first = seq_;
    seq_ += n;
    return first;
  }
  void push(SimTime t, std::uint32_t kind, std::uint32_t obj, std::uint64_t seq) { insert(Event{t, seq, obj, kind}); }

 private:
  [[gnu::always_inline]] void insert(const Event& e) {
    const SimTime t = e.time;
    ++size_;
    const std::int64_t key = t >> kShift;
    if (key <= cur_key_) [[unlikely]] {
      side_.push(e);  // into the bucket being drained (or, defensively, the past)
    } else if (key - cur_key_ < kBuckets) [[likely]] {
      const auto slot = static_cast<std::size_t>(key & (kBuckets - 1));
      Slot& s = wheel_[slot];
      const std::uint32_t at = s.count % kBlock;
      if (at == 0) {
        const std::uint32_t b = new_block();
        if (s.count == 0) {
          s.head = b;
          occupied_[slot >> 6] |= 1ULL << (slot & 63);
        } else {
          next_[s.tail] = b;
        }
        s.tail = b;
      }
      blocks_[s.tail].ev[at] = e;
      ++s.count;
      ++in_wheel_;
    } else {
      overflow_.push(e);
    }
  }

 public:
  Event pop() {
    settle();
    --size_;
    if (pos_ != end_ && (side_.empty() || event_before(*pos_, side_.top()))) return *pos_++;
    return side_.pop();
  }

  // The event k places after the next one in the bucket being drained (k = 0: the next one), or
  // nullptr past its end. A hint for prefetching (Network's event loop): the side heap is not looked
  // at, so an event scheduled into this bucket meanwhile may come first.
  const Event* ahead(std::ptrdiff_t k) const { return end_ - pos_ > k ? pos_ + k : nullptr; }

  // Hint for the far prefetch schedule (Network::run_events): asks for the blocks of the next
  // occupied bucket, one block (its three lines) per call while this bucket drains, so that they are
  // near when that bucket is ordered (they were written a link delay earlier and have left the
  // near caches). The chain as it is when this bucket's first call comes: blocks appended later
  // are not asked for. No effect on the order of the pops.
  void prefetch_next_bucket() {
    if (pf_key_ != cur_key_) {
      pf_key_ = cur_key_;
      pf_left_ = 0;
      if (in_wheel_ == 0) return;
      const std::int64_t dist = next_occupied(cur_key_);
      const Slot& s = wheel_[static_cast<std::size_t>((cur_key_ + dist) & (kBuckets - 1))];
      if (s.count == 0) return;
      pf_block_ = s.head;
      pf_left_ = (s.count + kBlock - 1) / kBlock;
    }
    if (pf_left_ == 0) return;
    const char* b = reinterpret_cast<const char*>(&blocks_[pf_block_]);
    for (std::size_t off = 0; off < sizeof(Block); off += 64) __builtin_prefetch(b + off);
    if (--pf_left_ > 0) pf_block_ = next_[pf_block_];  // a full block: its link is set
  }

  // The event loop's step: pops the next event into `e` when there is one at or before `until`
  // (one look at the queue instead of top_time() then pop()).
  bool pop_until(SimTime until, Event& e) {
    if (size_ == 0) return false;
    settle();
    if (pos_ != end_ && (side_.empty() || event_before(*pos_, side_.top()))) {
      if (pos_->time > until) return false;
      e = *pos_++;
    } else {
      if (side_.top().time > until) return false;
      e = side_.pop();
    }
    --size_;
    return true;
  }

 private:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  struct alignas(64) Block {
    Event ev[kBlock];
  };
  struct Slot {
    std::uint32_t head = kNone, tail = kNone;  // chain of blocks (next_ links them)
    std::uint32_t count = 0;                   // events; every block but the last is full
  };

  std::uint32_t new_block() {
    if (free_ != kNone) [[likely]] {
      const std::uint32_t b = free_;
      free_ = next_[b];
      return b;
    }
    return grow_arena();
  }
  // The free list is empty: a new block at the end of the arena (only while the arena grows to the
  // peak number of blocks in use; kept out of line so that push() stays small enough to inline).
  [[gnu::noinline]] std::uint32_t grow_arena() {
    // The bucket being drained may be read in place from its block (advance()): keep the read
    // position when the arena moves.
    const std::ptrdiff_t at = drained_ != kNone ? pos_ - blocks_[drained_].ev : 0;
    const std::ptrdiff_t len = drained_ != kNone ? end_ - blocks_[drained_].ev : 0;
    blocks_.emplace_back();
    next_.push_back(kNone);
    if (drained_ != kNone) {
      pos_ = blocks_[drained_].ev + at;
      end_ = blocks_[drained_].ev + len;
    }
    return static_cast<std::uint32_t>(blocks_.size() - 1);
  }
  const Event& peek() const {
    if (pos_ != end_ && (side_.empty() || event_before(*pos_, side_.top()))) return *pos_;
    return side_.top();
  }
  // Distance (1..kBuckets) from slot of `key` to the next occupied slot, cyclically.
  std::int64_t next_occupied(std::int64_t key) const {
    constexpr std::size_t words = kBuckets / 64;  // a power of two: the wrap is a mask
    std::size_t slot = static_cast<std::size_t>((key + 1) & (kBuckets - 1));
    std::size_t w = slot >> 6;
    std::uint64_t bits = occupied_[w] & (~0ULL << (slot & 63));
    std::int64_t dist = 1 - static_cast<std::int64_t>(slot & 63);
    for (std::size_t n = 0; n <= words; ++n) {
      if (bits) return dist + std::countr_zero(bits);
      dist += 64;
      w = (w + 1) & (words - 1);
      bits = occupied_[w];
    }
    return kBuckets;  // unreachable while in_wheel_ > 0
  }
  // Make the current bucket non-empty (requires size_ > 0).
  void settle() {
    if (pos_ == end_ && side_.empty()) [[unlikely]]
      advance();
  }
  // Jumps straight to the next occupied wheel slot or the first overflow event, whichever comes
  // first, until the current bucket is non-empty. A bucket of one block (the common case) is sorted
  // and read in place, and its block goes back to the free list when the next bucket is reached;
  // longer chains (and buckets with overflow events) are copied out into cur_.
  [[gnu::noinline]] void advance() {
    while (pos_ == end_ && side_.empty()) {
      if (drained_ != kNone) {
        next_[drained_] = free_;
        free_ = drained_;
        drained_ = kNone;
      }
      cur_.clear();
      std::int64_t next = std::numeric_limits<std::int64_t>::max();
      if (in_wheel_ > 0) next = cur_key_ + next_occupied(cur_key_);
      if (!overflow_.empty()) next = std::min(next, overflow_.top().time >> kShift);
      cur_key_ = next;
      // Overflow events of this bucket were pushed before any wheel event of it (they were pushed
      // while the bucket was beyond the horizon), so they go first: cur_ is then in seq order.
      while (!overflow_.empty() && (overflow_.top().time >> kShift) == cur_key_) cur_.push_back(overflow_.pop());
      const auto si = static_cast<std::size_t>(cur_key_ & (kBuckets - 1));
      Slot& s = wheel_[si];
      if (s.count > 0 && s.count <= kBlock && cur_.empty()) {
        in_wheel_ -= s.count;
        Event* a = blocks_[s.head].ev;
        sort_events(a, s.count);
        pos_ = a;
        end_ = a + s.count;
        drained_ = s.head;
        s = Slot{};
        occupied_[si >> 6] &= ~(1ULL << (si & 63));
        continue;  // non-empty now: the loop ends
      }
      if (s.count > 0 && cur_.empty() && try_distribute(s)) {
        in_wheel_ -= s.count;
        pos_ = buf_.data();
        end_ = pos_ + s.count;
        free_chain(s, si);
        continue;  // non-empty now: the loop ends
      }
      if (s.count > 0) {
        in_wheel_ -= s.count;
        for_each_block(s, [&](const Event* ev, std::uint32_t n) { cur_.insert(cur_.end(), ev, ev + n); });
        free_chain(s, si);
      }
      sort_events(cur_.data(), cur_.size());
      pos_ = cur_.data();
      end_ = pos_ + cur_.size();
    }
  }
  // The whole chain of slot `si` back to the free list; the slot is empty again.
  void free_chain(Slot& s, std::size_t si) {
    next_[s.tail] = free_;
    free_ = s.head;
    s = Slot{};
    occupied_[si >> 6] &= ~(1ULL << (si & 63));
  }
  // A chain of more than kCountingMin events: distribute_by_offset(). A shorter one: distribute()
  // unless that failed on three or more times lately: after such a failure the next kSkipAfterMiss
  // chains are copied and sorted without the look (the order is the same either way; only the time
  // spent differs).
  bool try_distribute(const Slot& s) {
    if (s.count > kCountingMin) return distribute_by_offset(s);
    if (skip_ > 0) {
      --skip_;
      return false;
    }
    if (distribute(s)) return true;
    skip_ = kSkipAfterMiss;
    return false;
  }
  static constexpr std::uint32_t kSkipAfterMiss = 16;
  // Orders a chain of more than one block of one or two distinct times into buf_ without comparing
  // events. A chain is filled in push order, that is in insertion-sequence order (a push with a
  // reserved sequence number may break that: checked), so a stable split by time gives the (time,
  // seq) order. The fat-tree benchmark's buckets are such chains: ~47 events of 1.5 distinct times
  // on average, the two times interleaved, which insertion sort moved ~3 places per event and
  // handed to std::sort for one bucket in five (docs/scale.md "Cost per event"). Returns false,
  // having written nothing, for a chain out of sequence order or of three or more times (the
  // Dragonfly's buckets, links of two latencies: 3-16 times in ~27 events, milder interleaving,
  // where the copy and insertion sort are faster: measured); the caller then copies and sorts it.
  bool distribute(const Slot& s) {
    // One pass over the blocks (the one that waits for their cache lines): how many events have the
    // first event's time t0, the earliest and the latest of the other times, and whether the sequence
    // numbers rise along the chain (they are unique: >= is >).
    constexpr SimTime kMax = std::numeric_limits<SimTime>::max(), kMin = std::numeric_limits<SimTime>::min();
    const SimTime t0 = blocks_[s.head].ev[0].time;
    SimTime lo = kMax, hi = kMin;  // of the times other than t0
    std::uint32_t n0 = 0;
    std::uint64_t last_seq = 0;
    bool in_order = true;
    for_each_in_chain(s, [&](const Event& e) {
      const bool same = e.time == t0;
      n0 += same;
      lo = std::min(lo, same ? kMax : e.time);
      hi = std::max(hi, same ? kMin : e.time);
      in_order &= e.seq >= last_seq;
      last_seq = e.seq;
    });
    const bool one = n0 == s.count;
    if (!in_order || (!one && lo != hi)) return false;
    if (buf_.size() < s.count) buf_.resize(s.count);
    Event* out = buf_.data();
    if (one) {  // in order already
      for_each_block(s, [&](const Event* ev, std::uint32_t n) { out = std::copy(ev, ev + n, out); });
      return true;
    }
    // Two times: each in chain order, the earlier first.
    Event* to[2] = {t0 < lo ? out : out + (s.count - n0), t0 < lo ? out + n0 : out};
    for_each_in_chain(s, [&](const Event& e) { *to[e.time != t0]++ = e; });
    return true;
  }
  // A chain of more than kCountingMin events in any number of distinct times: a stable counting
  // sort on the time's offset in the bucket (kShift bits), so no event is compared with another.
  // Stable on a chain in sequence order, so the (time, seq) order; false, having written nothing,
  // for a chain out of sequence order (a reserved sequence number). At 8,192 hosts a 128 ps bucket
  // holds ~80-200 events of tens of distinct times, which the copy and sort ordered with std::sort.
  static constexpr std::uint32_t kCountingMin = 32;
  bool distribute_by_offset(const Slot& s) {
    constexpr std::uint32_t kWidth = 1u << kShift;
    // Ask for every block of the chain first (the links are in next_, a few hundred KB): the
    // blocks were written about a link delay ago and have left the near caches; read in the pass
    // below they would come one after another. (Asking for the next bucket's chain when this one
    // is set up was slower: 1.05x on ft8192.)
    for (std::uint32_t b = s.head, left = s.count;;) {
      const char* l = reinterpret_cast<const char*>(&blocks_[b]);
      __builtin_prefetch(l);
      __builtin_prefetch(l + 64);
      __builtin_prefetch(l + 128);
      if (left <= kBlock) break;
      left -= kBlock;
      b = next_[b];
    }
    std::uint32_t at[kWidth + 1] = {};
    std::uint64_t last_seq = 0;
    bool in_order = true;
    for_each_in_chain(s, [&](const Event& e) {
      ++at[(static_cast<std::uint64_t>(e.time) & (kWidth - 1)) + 1];
      in_order &= e.seq >= last_seq;
      last_seq = e.seq;
    });
    if (!in_order) return false;
    for (std::uint32_t i = 1; i < kWidth; ++i) at[i] += at[i - 1];
    if (buf_.size() < s.count) buf_.resize(s.count);
    Event* out = buf_.data();
    for_each_in_chain(s, [&](const Event& e) { out[at[static_cast<std::uint64_t>(e.time) & (kWidth - 1)]++] = e; });
    return true;
  }
  // f(first event, count) for each block of a non-empty chain, in order; f(event) for each event.
  template <class F>
  [[gnu::always_inline]] void for_each_block(const Slot& s, F&& f) const {
    std::uint32_t left = s.count;
    for (std::uint32_t b = s.head;; b = next_[b]) {
      const std::uint32_t n = std::min(left, kBlock);
      f(blocks_[b].ev, n);
      left -= n;
      if (left == 0) break;
    }
  }
  template <class F>
  [[gnu::always_inline]] void for_each_in_chain(const Slot& s, F&& f) const {
    for_each_block(s, [&](const Event* ev, std::uint32_t n) {
      for (std::uint32_t i = 0; i < n; ++i) f(ev[i]);
    });
  }

  // Sorts a[0..n) on (time, seq). A bucket is filled in push order, so it is sorted already except for
  // the few events scheduled after a later-timed one of the same bucket: insertion sort costs about
  // one comparison per event then, whatever the bucket's size (the 1024-host benchmark's buckets hold
  // ~40 events, beyond the former insertion-sort limit of 32; docs/scale.md "Cost per event"). A
  // bucket that needs more than kMoveBudget moves per event is handed to std::sort instead.
  static void sort_events(Event* a, std::size_t n) {
    if (n < 2) return;
    std::size_t budget = kMoveBudget * n + 64;
    for (std::size_t i = 1; i < n; ++i) {
      if (!event_before(a[i], a[i - 1])) continue;
      const Event x = a[i];
      std::size_t j = i;
      do {
        a[j] = a[j - 1];
        --j;
        if (--budget == 0) [[unlikely]] {
          a[j] = x;  // a[0..n) is a permutation of the bucket again
          std::sort(a, a + n, EventBefore{});
          return;
        }
      } while (j > 0 && event_before(x, a[j - 1]));
      a[j] = x;
    }
  }
  static constexpr std::size_t kMoveBudget = 4;

  std::vector<Slot> wheel_;
  std::vector<std::uint64_t> occupied_;  // bit per wheel slot: non-empty
  std::vector<Block> blocks_;            // the arena
  std::vector<std::uint32_t> next_;      // next block of a chain / of the free list
  std::uint32_t free_ = kNone;
  std::vector<Event> cur_;      // the bucket being drained when it is copied out (see advance())
  std::vector<Event> buf_;      // the bucket being drained when distribute() ordered it (only grows)
  std::uint32_t skip_ = 0;      // chains left to copy and sort without trying distribute()
  const Event* pos_ = nullptr;  // next event of the bucket being drained (in cur_ or in block drained_)
  const Event* end_ = nullptr;
  std::uint32_t drained_ = kNone;  // the block read in place, returned to the free list at the next bucket
  EventHeap side_;                 // events pushed into the bucket being drained
  EventHeap overflow_;             // events beyond the horizon
  std::int64_t cur_key_ = 0;
  std::int64_t pf_key_ = -1;    // prefetch_next_bucket(): the bucket it last looked ahead from,
  std::uint32_t pf_block_ = 0;  // the next block it asks for
  std::uint32_t pf_left_ = 0;   // and how many blocks of that chain are left
  std::size_t in_wheel_ = 0;
  std::size_t size_ = 0;
  std::uint64_t seq_ = 0;
};

}  // namespace lbsim
