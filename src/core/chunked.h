// A growing array kept in chunks of 2^Bits elements: appending never moves or copies what is already
// there, where a std::vector grown by doubling holds up to twice its contents (three times while it
// copies). An element costs one more load than a vector's: its chunk's address, from a table small
// enough to stay cached. Used for stores that grow during a run and are read on the hot path (the
// non-minimal routers' bounded paths, routing/bounded_paths.h).
#pragma once
#include <cstddef>
#include <memory>
#include <vector>

namespace lbsim::core {

template <class T, unsigned Bits = 12>
class ChunkedArray {
 public:
  static constexpr std::size_t kChunk = std::size_t{1} << Bits;

  std::size_t size() const { return size_; }
  const T& operator[](std::size_t i) const { return chunks_[i >> Bits][i & (kChunk - 1)]; }
  T& operator[](std::size_t i) { return chunks_[i >> Bits][i & (kChunk - 1)]; }
  void push_back(const T& v) {
    if ((size_ & (kChunk - 1)) == 0) chunks_.push_back(std::make_unique_for_overwrite<T[]>(kChunk));
    chunks_.back()[size_ & (kChunk - 1)] = v;
    ++size_;
  }
  template <class It>
  void append(It first, It last) {
    for (; first != last; ++first) push_back(static_cast<T>(*first));
  }
  // Bytes held: whole chunks (the last one's untouched pages are not resident) and the table.
  std::size_t bytes() const { return chunks_.size() * kChunk * sizeof(T) + chunks_.capacity() * sizeof(T*); }

 private:
  std::vector<std::unique_ptr<T[]>> chunks_;
  std::size_t size_ = 0;
};

}  // namespace lbsim::core
