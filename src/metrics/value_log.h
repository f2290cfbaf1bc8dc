// Per finished transfer the values summary.json's distributions are computed from, in id order, in
// bounded memory (issue 17: a streamed trace's memory flat after warm-up), and the distributions
// computed from them exactly, to the same doubles as metrics::distribution over the values in memory.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/spill_file.h"
#include "core/time.h"
#include "metrics/report.h"

namespace lbsim::metrics {

// One finished transfer: its FCT and ideal FCT in ps and its workload tag (24 B with the padding).
struct TransferValues {
  SimTime fct = 0, ideal = 0;
  std::int32_t tag = 0;
};

// An append-only list of TransferValues. The first `memory_records` stay in memory; from then on
// every full block of that many is appended to an unnamed temporary file (in $TMPDIR, else /tmp;
// removed when the log is destroyed or the process ends) and read back block by block by
// for_each. So the heap holds at most one block whatever the number of transfers; the file grows by
// 24 B per transfer. A run with fewer transfers than one block never creates the file.
class ValueLog {
 public:
  static constexpr std::size_t kDefaultMemoryRecords = std::size_t{1} << 16;  // 1.5 MiB of records
  // The block of logs made without a size (kDefaultMemoryRecords; tests lower it to make a small
  // run use the file).
  static std::size_t& default_memory_records();
  explicit ValueLog(std::size_t memory_records = default_memory_records());

  // Throws UserError when the temporary file cannot be created or written (e.g. the disk is full).
  void push(const TransferValues& v);
  std::size_t size() const { return spilled_ + mem_.size(); }
  bool empty() const { return size() == 0; }
  std::size_t spilled() const { return spilled_; }  // records on file
  // Heap bytes: the in-memory block at capacity (for_each adds a read buffer of at most 4,096 records
  // while it runs); neither grows with the records on file.
  std::size_t bytes() const { return mem_.capacity() * sizeof(TransferValues); }
  // Every record in push order.
  void for_each(const std::function<void(const TransferValues&)>& fn) const;

 private:
  void spill();
  std::size_t cap_;
  std::vector<TransferValues> mem_;
  std::size_t spilled_ = 0;
  SpillFile file_;
};

// A sequence of doubles that can be walked more than once, each time in the same order: calls its
// argument once per value.
using ValueSource = std::function<void(const std::function<void(double)>&)>;

// count, min, max, mean (summed in the source's order) and p50 / p99 (core/stats.h percentile:
// linear interpolation between the order statistics around rank p / 100 x (n - 1)) of the source's
// values, equal to distribution() of the same values in a vector. Up to `collect_limit` values are
// held and sorted; beyond, the order statistics are selected
// exactly without holding the values: by radix on the bits of the doubles, 16 at a time, one walk
// of the source per digit, until at most `collect_limit` values share the selected prefix; those
// are then collected and the rank picked among them. Memory: 512 KiB of counters per order
// statistic still open and at most `collect_limit` doubles; walks: one for the sums and usually two
// for the order statistics.
Distribution distribution_of(const ValueSource& each, std::size_t collect_limit = std::size_t{1} << 16);

// The values at the given 0-based ranks of the sorted sequence (every rank below the count).
std::vector<double> order_statistics(const ValueSource& each, const std::vector<std::uint64_t>& ranks,
                                     std::size_t collect_limit = std::size_t{1} << 16);

}  // namespace lbsim::metrics
