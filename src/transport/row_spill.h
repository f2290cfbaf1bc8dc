// The rows of released streamed entries that wait for a lower id, kept out of memory (issue 17):
// transport::Transport keeps at most Transport::default_rows_in_memory() of them in memory and hands
// the others to a RowSpill, which stores each at id x sizeof(FlowRow) in a nameless temporary file
// (core/spill_file.h) and reads them back in id order. Rows are put in nearly increasing id order
// and read in increasing id order, so both go through a buffer of kBlock ids: one write per run of
// consecutive ids of a block, one read per block.
#pragma once
#include <cstdint>
#include <vector>

#include "core/spill_file.h"
#include "core/time.h"

namespace lbsim::transport {

// A streamed entry whose record is released (over at both ends, nothing of it in the network) but
// whose id has not come up yet: rows leave in id order (flows.csv, summary.json's sums) while records
// leave as soon as they are done. 32-bit counters; an entry whose counters do not fit keeps its full
// FlowCounters aside (Transport::wide_, rare). The id is the row's place in the window.
struct FlowRow {
  SimTime start = -1, finish = -1, sender_done = -1, held = 0;
  std::int64_t size = 0;  // bytes of a transfer, or the duration of a computation (flag kRowCompute)
  std::int32_t src = -1, dst = -1, tag = 0;
  std::uint32_t npkts = 0, rcv_count = 0;
  std::uint32_t packets_sent = 0, retransmits = 0, nacks = 0, timeouts = 0, ecn_acks = 0, ooo = 0, duplicates = 0,
                trimmed_rx = 0, overtaken = 0, rewinds = 0, pauses = 0, pause_timeouts = 0;
  std::uint32_t max_reorder = 0, rob_max = 0;
  std::uint16_t lb = 0;  // index into the transport's load balancer names (0 = "": the run's default)
  std::uint8_t flags = 0;
};
inline constexpr std::uint8_t kRowFinished = 1, kRowCompute = 2, kRowWide = 4;

class RowSpill {
 public:
  static constexpr std::uint32_t kBlock = 1024;  // ids per buffer (120 KiB each)
  RowSpill();
  void put(std::uint32_t id, const FlowRow& w);
  FlowRow get(std::uint32_t id);
  // The file's space of the ids below `id` goes back (they have been read), a block of 4 MiB at a time.
  void discard_below(std::uint32_t id);
  std::uint64_t rows_written() const { return rows_; }  // rows put so far
  std::size_t bytes() const { return (wbuf_.capacity() + rbuf_.capacity()) * sizeof(FlowRow) + wpresent_.capacity(); }

 private:
  void flush();
  SpillFile file_;
  std::uint64_t rows_ = 0, end_ = 0, discarded_ = 0;  // rows put; bytes of the file written; given back
  // Rows put for ids [wlo_, wlo_ + kBlock) not yet on file (wpresent_), and the rows read of ids
  // [rlo_, rlo_ + kBlock) (kept current by put).
  std::vector<FlowRow> wbuf_, rbuf_;
  std::vector<std::uint8_t> wpresent_;
  std::uint32_t wlo_ = 0, rlo_ = 0;
  bool wany_ = false, rvalid_ = false;
};

}  // namespace lbsim::transport
