// The event queue: a 4-ary min-heap of small, trivially copyable records.
// Equal-time events run in insertion order (a global sequence number breaks ties), which makes a
// run deterministic for a given seed. Events carry a kind and a 32-bit object index instead of a
// callback: the engine dispatches with a switch, with no std::function or allocation per event.
#pragma once
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

class EventQueue {
 public:
  void reserve(std::size_t n) { heap_.reserve(n); }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  std::uint64_t pushed() const { return seq_; }
  SimTime top_time() const { return heap_.front().time; }

  void push(SimTime t, std::uint32_t kind, std::uint32_t obj) {
    Event e{t, seq_++, obj, kind};
    heap_.push_back(e);
    sift_up(heap_.size() - 1);
  }

  Event pop() {
    Event top = heap_.front();
    Event last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(last);
    return top;
  }

 private:
  static bool before(const Event& a, const Event& b) {
    return a.time < b.time || (a.time == b.time && a.seq < b.seq);
  }
  void sift_up(std::size_t i) {
    Event e = heap_[i];
    while (i > 0) {
      std::size_t parent = (i - 1) >> 2;
      if (!before(e, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = e;
  }
  // Place `e` (the former last element) starting from the root.
  void sift_down(Event e) {
    const std::size_t n = heap_.size();
    std::size_t i = 0;
    for (;;) {
      std::size_t first = 4 * i + 1;
      if (first >= n) break;
      std::size_t best = first;
      std::size_t end = first + 4 < n ? first + 4 : n;
      for (std::size_t c = first + 1; c < end; ++c)
        if (before(heap_[c], heap_[best])) best = c;
      if (!before(heap_[best], e)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = e;
  }

  std::vector<Event> heap_;
  std::uint64_t seq_ = 0;
};

}  // namespace lbsim
