// The NIC scheduler's per-host structures (docs/architecture.md "How a packet moves", step 2): the
// list of a host's active flows in round-robin order and the bitmap (SlotBits) of those that can
// send, so that Transport::pull_data (transport/nic_scheduler.cpp) visits only those and costs O(1)
// per packet however many flows wait for ACKs.
#pragma once
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "net/packet.h"

namespace lbsim::transport {

// A set of small integers with O(1) insert and erase and a find-next that costs one step per 64x
// level (3 levels cover 262,144 slots): the NIC scheduler's ready slots.
class SlotBits {
 public:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  // Fast paths inline: the word of slot i already has (keeps) another member, so the levels above
  // do not change; the rest in set_slow / clear_slow / find.
  void set(std::uint32_t i) {
    if ((i >> 6) < lv_[0].size()) {
      std::uint64_t& w = lv_[0][i >> 6];
      if (w) {
        w |= 1ULL << (i & 63);
        return;
      }
    }
    set_slow(i);
  }
  void clear(std::uint32_t i) {
    if ((i >> 6) >= lv_[0].size()) return;
    std::uint64_t& w = lv_[0][i >> 6];
    const std::uint64_t bit = 1ULL << (i & 63);
    if (!(w & bit)) return;
    if (w != bit) {
      w &= ~bit;
      return;
    }
    clear_slow(i);
  }
  bool test(std::uint32_t i) const { return (i >> 6) < lv_[0].size() && (lv_[0][i >> 6] >> (i & 63) & 1); }
  // The smallest member >= i, or kNone.
  std::uint32_t next(std::uint32_t i) const {
    if ((i >> 6) < lv_[0].size())
      if (const std::uint64_t m = lv_[0][i >> 6] & (~0ULL << (i & 63)))
        return (i & ~63u) + static_cast<std::uint32_t>(std::countr_zero(m));
    return find(0, i);
  }
  void reset();  // empty, keeping the capacity
  std::size_t bytes() const;

 private:
  std::uint32_t find(std::size_t level, std::uint32_t i) const;
  void grow(std::uint32_t i);
  void set_slow(std::uint32_t i);
  void clear_slow(std::uint32_t i);
  std::vector<std::vector<std::uint64_t>> lv_{1};  // lv_[0]: one bit per slot; lv_[k + 1]: non-zero words of lv_[k]
};

// One host's NIC scheduler: the active flows (not parked, sender not done) in round-robin order,
// one slot each (net::kNil = a flow that left; trailing ones are trimmed, the rest compacted when
// they outnumber the flows), the slots of the flows that can send, and the round-robin position (the
// next flow considered is the first ready one at or after it, wrapping).
// A host with few active flows is scanned slot by slot (cheaper than keeping the bits, and the
// same order); `ready` is kept from kReadyFrom flows on until they drop below kReadyFrom / 2.
struct HostQueue {
  std::vector<std::uint32_t> slots;
  SlotBits ready;
  std::uint32_t active = 0;
  std::uint32_t cursor = 0;
  bool bits = false;  // `ready` is in use

  // The first slot at or after s that may be picked (ready, or any occupied slot while the bits are
  // off), or SlotBits::kNone.
  std::uint32_t next_slot(std::uint32_t s) const {
    if (bits) return ready.next(s);
    while (s < slots.size() && slots[s] == net::kNil) ++s;
    return s < slots.size() ? s : SlotBits::kNone;
  }
};
inline constexpr std::uint32_t kReadyFrom = 16;

}  // namespace lbsim::transport
