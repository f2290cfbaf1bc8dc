// An index from ordered pairs (a, b) of 32-bit ids to 32-bit values that holds only the pairs put
// into it: what a routing table keeps for the (source switch, destination switch) pairs a run
// actually routes, instead of a slot per pair of the network (issue 17: memory linear in the network
// and the traffic, not in the square of the switches; docs/scale.md).
//
// Open addressing with linear probing over a power-of-two table at most half full: a lookup is one
// multiply and, nearly always, one or two adjacent 16-byte entries. The table of the pairs in use is
// small (a permutation routes about one pair per host), so it stays in cache where a dense
// per-pair array of a large network would not. Values are whatever the caller numbers its records
// with; iteration order is never exposed, so results do not depend on the hash.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace lbsim {

class PairMap {
 public:
  static constexpr std::uint32_t kMissing = 0xFFFFFFFFu;
  // Memory per pair held, for estimates before anything is built (sim/memory.h): 16-byte entries,
  // the table a quarter to half full.
  static constexpr double kEstimatedBytesPerPair = 48;

  // The value of (a, b), or kMissing when it was never put.
  std::uint32_t find(std::uint32_t a, std::uint32_t b) const {
    if (entries_.empty()) return kMissing;
    const std::uint64_t key = pack(a, b);
    for (std::size_t i = slot(key);; i = (i + 1) & mask_) {
      const Entry& e = entries_[i];
      if (e.key == key) return e.value;
      if (e.key == kEmpty) return kMissing;
    }
  }
  // Sets the value of (a, b) (inserting the pair or overwriting its value). `value` != kMissing.
  void put(std::uint32_t a, std::uint32_t b, std::uint32_t value) {
    if (2 * (size_ + 1) > entries_.size()) grow();
    const std::uint64_t key = pack(a, b);
    std::size_t i = slot(key);
    while (entries_[i].key != kEmpty && entries_[i].key != key) i = (i + 1) & mask_;
    if (entries_[i].key == kEmpty) ++size_;
    entries_[i] = {key, value};
  }
  std::size_t size() const { return size_; }
  void clear() {
    entries_.clear();
    size_ = 0;
    mask_ = 0;
    shift_ = 64;
  }
  // Bytes held (the table's capacity).
  std::size_t bytes() const { return entries_.capacity() * sizeof(Entry); }

 private:
  // No pair packs to this: ids are below 2^32 - 1 in every use (switch indices).
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  struct Entry {
    std::uint64_t key = kEmpty;
    std::uint32_t value = kMissing;
  };
  static std::uint64_t pack(std::uint32_t a, std::uint32_t b) { return (std::uint64_t{a} << 32) | b; }
  // Fibonacci hashing: the top bits of key x 2^64 / phi.
  std::size_t slot(std::uint64_t key) const {
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  void grow() {
    std::vector<Entry> old;
    old.swap(entries_);
    const std::size_t n = old.empty() ? 16 : 2 * old.size();
    entries_.assign(n, Entry{});
    mask_ = n - 1;
    shift_ = 64;
    for (std::size_t m = n; m > 1; m >>= 1) --shift_;
    for (const Entry& e : old) {
      if (e.key == kEmpty) continue;
      std::size_t i = slot(e.key);
      while (entries_[i].key != kEmpty) i = (i + 1) & mask_;
      entries_[i] = e;
    }
  }

  std::vector<Entry> entries_;
  std::size_t size_ = 0;
  std::size_t mask_ = 0;
  int shift_ = 64;
};

}  // namespace lbsim
