// The event queue: a calendar queue of small, trivially copyable records.
//
// Events are kept in fixed-width time buckets (2^11 ps = 2.048 ns) on a wheel of 2^14 buckets
// (a 33.5 us horizon; a bitmap of non-empty buckets lets the queue jump over empty ones); later events wait in an overflow heap until the wheel reaches them. When the
// queue reaches a bucket it sorts it once; events scheduled into the bucket being drained go to a
// small side heap that is merged on the fly. Pops follow exactly the total order (time, insertion
// sequence), the same as a single binary heap would give, so equal-time events run in insertion
// order and a run is deterministic; but each pop touches a few cache lines instead of walking a
// heap of 10^5 entries (measured: docs/architecture.md, "The event loop").
// Events carry a kind and a 32-bit object index instead of a callback: the engine dispatches with a
// switch, with no std::function or allocation per event.
#pragma once
#include <algorithm>
#include <bit>
#include <limits>
#include <cstdint>
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
  static constexpr int kShift = 11;                  // bucket width 2^11 ps = 2.048 ns
  static constexpr std::int64_t kBuckets = 1 << 14;  // horizon 2^25 ps = 33.5 us
  // A slot that once held a large burst gives its memory back instead of keeping it for the next
  // lap of the wheel (synchronised flows put thousands of events into one bucket).
  static constexpr std::size_t kSlotKeep = 256;
  // The slots together keep at most kRetainMin + 4 x (events queued) events of spare capacity: over
  // a long run every slot sees its own largest burst, and without this bound the kept capacity
  // grows with simulated time (a run with stuck flows grew ~1 MB/s; docs/reliability.md).
  static constexpr std::size_t kRetainMin = std::size_t{1} << 16;

  EventQueue()
      : wheel_(static_cast<std::size_t>(kBuckets)), occupied_(static_cast<std::size_t>(kBuckets / 64), 0) {}

  void reserve(std::size_t) {}
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  std::uint64_t pushed() const { return seq_; }
  // Capacity (events) the wheel's slots hold, in use or spare: bounded by kSlotKeep per slot and
  // by kRetainMin + 4 x size() of spare in total.
  std::size_t retained() const { return retained_; }
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
  void insert(const Event& e) {
    const SimTime t = e.time;
    ++size_;
    const std::int64_t key = t >> kShift;
    if (key <= cur_key_) {
      side_.push(e);  // into the bucket being drained (or, defensively, the past)
    } else if (key - cur_key_ < kBuckets) {
      const auto slot = static_cast<std::size_t>(key & (kBuckets - 1));
      auto& v = wheel_[slot];
      if (v.size() == v.capacity()) [[unlikely]] {
        const std::size_t before = v.capacity();
        v.push_back(e);
        retained_ += v.capacity() - before;
      } else {
        v.push_back(e);
      }
      occupied_[slot >> 6] |= 1ULL << (slot & 63);
      ++in_wheel_;
    } else {
      overflow_.push(e);
    }
  }

 public:
  Event pop() {
    settle();
    --size_;
    if (pos_ < cur_.size() && (side_.empty() || event_before(cur_[pos_], side_.top()))) return cur_[pos_++];
    return side_.pop();
  }

 private:
  const Event& peek() const {
    if (pos_ < cur_.size() && (side_.empty() || event_before(cur_[pos_], side_.top()))) return cur_[pos_];
    return side_.top();
  }
  // Distance (1..kBuckets) from slot of `key` to the next occupied slot, cyclically.
  std::int64_t next_occupied(std::int64_t key) const {
    const std::size_t words = occupied_.size();
    std::size_t slot = static_cast<std::size_t>((key + 1) & (kBuckets - 1));
    std::size_t w = slot >> 6;
    std::uint64_t bits = occupied_[w] & (~0ULL << (slot & 63));
    std::int64_t dist = 1 - static_cast<std::int64_t>(slot & 63);
    for (std::size_t n = 0; n <= words; ++n) {
      if (bits) return dist + std::countr_zero(bits);
      dist += 64;
      w = (w + 1) % words;
      bits = occupied_[w];
    }
    return kBuckets;  // unreachable while in_wheel_ > 0
  }
  // Make the current bucket non-empty (requires size_ > 0). Jumps straight to the next occupied
  // wheel slot or the first overflow event, whichever comes first.
  void settle() {
    while (pos_ == cur_.size() && side_.empty()) {
      cur_.clear();
      pos_ = 0;
      std::int64_t next = std::numeric_limits<std::int64_t>::max();
      if (in_wheel_ > 0) next = cur_key_ + next_occupied(cur_key_);
      if (!overflow_.empty()) next = std::min(next, overflow_.top().time >> kShift);
      cur_key_ = next;
      const auto si = static_cast<std::size_t>(cur_key_ & (kBuckets - 1));
      auto& slot = wheel_[si];
      if (!slot.empty()) {
        in_wheel_ -= slot.size();
        cur_.insert(cur_.end(), slot.begin(), slot.end());
        if (slot.capacity() > kSlotKeep || retained_ > kRetainMin + 4 * size_) {
          retained_ -= slot.capacity();
          std::vector<Event>().swap(slot);
        } else {
          slot.clear();
        }
        occupied_[si >> 6] &= ~(1ULL << (si & 63));
      }
      while (!overflow_.empty() && (overflow_.top().time >> kShift) == cur_key_) cur_.push_back(overflow_.pop());
      if (cur_.size() > 1) std::sort(cur_.begin(), cur_.end(), EventBefore{});
    }
  }

  std::vector<std::vector<Event>> wheel_;
  std::vector<std::uint64_t> occupied_;  // bit per wheel slot: non-empty
  std::vector<Event> cur_;  // the bucket being drained, sorted
  std::size_t pos_ = 0;
  EventHeap side_;          // events pushed into the bucket being drained
  EventHeap overflow_;      // events beyond the horizon
  std::int64_t cur_key_ = 0;
  std::size_t in_wheel_ = 0;
  std::size_t retained_ = 0;  // sum of the wheel slots' capacities (events)
  std::size_t size_ = 0;
  std::uint64_t seq_ = 0;
};

}  // namespace lbsim
