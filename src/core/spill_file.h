// A nameless temporary file for state a run keeps out of memory (issue 17: memory that does not grow
// with the flows already finished): metrics::ValueLog's summary values, the transport's rows of
// released entries that wait for their id to come up. Created at the first write in $TMPDIR (else
// /tmp) and unlinked at once, so it is gone with the descriptor, also when the process dies.
#pragma once
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>

namespace lbsim {

class SpillFile {
 public:
  // `what` names the contents in error messages ("the summary values of the finished transfers").
  explicit SpillFile(std::string what);
  ~SpillFile();
  SpillFile(const SpillFile&) = delete;
  SpillFile& operator=(const SpillFile&) = delete;
  SpillFile(SpillFile&& o) noexcept;
  SpillFile& operator=(SpillFile&& o) noexcept;

  // Throw UserError (naming the folder and the contents) when the file cannot be created, written or
  // read back.
  void write_at(std::uint64_t offset, const void* data, std::size_t bytes);
  void read_at(std::uint64_t offset, void* data, std::size_t bytes) const;
  // After the last byte written so far (size()).
  void append(const void* data, std::size_t bytes) { write_at(size_, data, bytes); }
  std::uint64_t size() const { return size_; }
  // Bytes [0, size()) into `os`, 64 KiB at a time.
  void copy_to(std::ostream& os) const;
  // Gives the disk space of [offset, offset + bytes) back (a hole; best effort: a file system without
  // holes keeps it).
  void discard(std::uint64_t offset, std::uint64_t bytes);
  bool created() const { return fd_ >= 0; }

 private:
  std::string what_;
  int fd_ = -1;
  std::uint64_t size_ = 0;  // one past the last byte written
};

}  // namespace lbsim
