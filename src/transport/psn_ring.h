// Per-PSN state of the PSNs a transfer has in play, not of its whole message (issue 17: memory
// follows the traffic in flight, not the message size; docs/scale.md "Per-PSN state in a ring").
//
// A PsnRing covers the PSNs of the 64-PSN blocks [lo / 64, lo / 64 + blocks), blocks a power of two,
// in a ring: PSN psn lives at entry psn % (64 x blocks) and in bit psn % 64 of word (psn / 64) % blocks.
// Below lo every bit is set (the owner advances lo only past a cumulative point: every PSN below it
// acknowledged, or received); beyond the ring every bit is clear and every entry is its default (the
// PSN has not been sent, or not received). The ring doubles when a PSN beyond it is claimed, so its
// size follows the widest range the transfer has had in play at once, between its cumulative point
// and its highest PSN (a sender: the PSNs sent and not yet cumulatively acknowledged).
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace lbsim::transport {

struct NoPsnEntry {};

template <class Entry = NoPsnEntry>
class PsnRing {
  static constexpr bool kEntries = !std::is_empty_v<Entry>;

 public:
  // Whether psn is in the ring (its bit and entry may be read and written).
  bool covers(std::uint32_t psn) const { return psn >= lo_ && ((psn - lo_) >> 6) < blocks(); }
  bool test(std::uint32_t psn) const {
    if (psn < lo_) return true;
    if (!covers(psn)) return false;
    return bits_[(psn >> 6) & mask_] >> (psn & 63) & 1;
  }
  // The bits of PSNs [64 w, 64 w + 64) (w = psn / 64 of a 32-bit PSN).
  std::uint64_t word(std::uint32_t w) const {
    const std::uint32_t psn = w << 6;
    if (psn < lo_) return ~0ULL;
    return covers(psn) ? bits_[w & mask_] : 0;
  }
  // The word holding psn's bit, the ring grown to cover psn first; psn must not be below lo.
  std::uint64_t& word_ref(std::uint32_t psn) {
    if (!covers(psn)) grow(psn);
    return bits_[(psn >> 6) & mask_];
  }
  void set(std::uint32_t psn) { word_ref(psn) |= 1ULL << (psn & 63); }
  // psn's entry, the ring grown to cover psn first; psn must not be below lo.
  Entry& entry(std::uint32_t psn) requires kEntries {
    if (!covers(psn)) grow(psn);
    return entries_[psn & entry_mask()];
  }
  // psn's entry when the ring covers psn, else null (below lo or never claimed).
  const Entry* find(std::uint32_t psn) const requires kEntries {
    return covers(psn) ? &entries_[psn & entry_mask()] : nullptr;
  }
  Entry* find(std::uint32_t psn) requires kEntries { return covers(psn) ? &entries_[psn & entry_mask()] : nullptr; }
  // Where psn's entry and word live, or would (for prefetches: no check, no growth).
  const void* entry_addr(std::uint32_t psn) const requires kEntries {
    return entries_.empty() ? nullptr : &entries_[psn & entry_mask()];
  }
  const void* word_addr(std::uint32_t psn) const { return bits_.empty() ? nullptr : &bits_[(psn >> 6) & mask_]; }
  // Every PSN below `cum` is set: the blocks wholly below it leave the ring (cleared for reuse).
  void advance(std::uint32_t cum) {
    const std::uint32_t to = cum & ~63u;
    if (to <= lo_) return;
    if (bits_.empty()) {
      lo_ = to;
      return;
    }
    if (((to - lo_) >> 6) >= blocks()) {
      std::fill(bits_.begin(), bits_.end(), 0);
      if constexpr (kEntries) std::fill(entries_.begin(), entries_.end(), Entry{});
      lo_ = to;
      return;
    }
    for (; lo_ < to; lo_ += 64) {
      const std::uint32_t b = (lo_ >> 6) & mask_;
      bits_[b] = 0;
      if constexpr (kEntries) std::fill_n(entries_.begin() + static_cast<std::ptrdiff_t>(b) * 64, 64, Entry{});
    }
  }
  // Sizes the ring for PSNs [lo, lo + psns) up front (a ring grown by doubling leaves its smaller
  // copies behind in the heap).
  void reserve(std::uint32_t psns) {
    if (psns > 0 && !covers(lo_ + psns - 1)) grow(lo_ + psns - 1);
  }
  void release() {
    std::vector<std::uint64_t>().swap(bits_);
    if constexpr (kEntries) std::vector<Entry>().swap(entries_);
    mask_ = 0;
  }
  bool empty() const { return bits_.empty(); }
  std::uint32_t lo() const { return lo_; }
  std::uint32_t blocks() const { return static_cast<std::uint32_t>(bits_.size()); }
  std::size_t bytes() const {
    std::size_t b = bits_.capacity() * sizeof(std::uint64_t);
    if constexpr (kEntries) b += entries_.capacity() * sizeof(Entry);
    return b;
  }

 private:
  std::uint32_t entry_mask() const { return (mask_ << 6) | 63u; }
  // Doubles the ring until it covers psn (>= lo), keeping every block it held at its new place.
  void grow(std::uint32_t psn) {
    const std::uint32_t need = ((psn - lo_) >> 6) + 1;
    std::uint32_t n = std::max<std::uint32_t>(1, blocks());
    while (n < need) n *= 2;
    std::vector<std::uint64_t> bits(n, 0);
    decltype(entries_) entries{};
    if constexpr (kEntries) entries.resize(static_cast<std::size_t>(n) * 64);
    for (std::uint32_t i = 0; i < blocks(); ++i) {
      const std::uint32_t blk = (lo_ >> 6) + i, from = blk & mask_, to = blk & (n - 1);
      bits[to] = bits_[from];
      if constexpr (kEntries)
        std::copy_n(entries_.begin() + static_cast<std::ptrdiff_t>(from) * 64, 64,
                    entries.begin() + static_cast<std::ptrdiff_t>(to) * 64);
    }
    bits_ = std::move(bits);
    entries_ = std::move(entries);
    mask_ = n - 1;
  }

  std::uint32_t lo_ = 0;    // first PSN of the ring's first block (a multiple of 64)
  std::uint32_t mask_ = 0;  // blocks - 1
  std::vector<std::uint64_t> bits_;
  // 64 entries per block (nothing without entries)
  [[no_unique_address]] std::conditional_t<kEntries, std::vector<Entry>, NoPsnEntry> entries_;
};

}  // namespace lbsim::transport
