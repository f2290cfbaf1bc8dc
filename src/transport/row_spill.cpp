#include "transport/row_spill.h"

#include <algorithm>

namespace lbsim::transport {

RowSpill::RowSpill() : file_("the rows of released entries waiting for an older one") {}

void RowSpill::put(std::uint32_t id, const FlowRow& w) {
  ++rows_;
  if (rvalid_ && id - rlo_ < kBlock) rbuf_[id - rlo_] = w;
  if (!wany_ || id - wlo_ >= kBlock) {
    flush();
    if (wbuf_.empty()) {
      wbuf_.resize(kBlock);
      wpresent_.assign(kBlock, 0);
    }
    wlo_ = id / kBlock * kBlock;
    wany_ = true;
  }
  wbuf_[id - wlo_] = w;
  wpresent_[id - wlo_] = 1;
}

// The buffered rows to the file, a write per run of consecutive ids.
void RowSpill::flush() {
  if (!wany_) return;
  for (std::uint32_t i = 0; i < kBlock;) {
    if (!wpresent_[i]) {
      ++i;
      continue;
    }
    std::uint32_t j = i;
    while (j < kBlock && wpresent_[j]) wpresent_[j++] = 0;
    const std::uint64_t off = (std::uint64_t{wlo_} + i) * sizeof(FlowRow);
    file_.write_at(off, &wbuf_[i], (j - i) * sizeof(FlowRow));
    end_ = std::max<std::uint64_t>(end_, off + (j - i) * sizeof(FlowRow));
    i = j;
  }
  wany_ = false;
}

FlowRow RowSpill::get(std::uint32_t id) {
  if (wany_ && id - wlo_ < kBlock && wpresent_[id - wlo_]) return wbuf_[id - wlo_];
  if (!rvalid_ || id - rlo_ >= kBlock) {
    flush();  // the file holds every row put
    rlo_ = id / kBlock * kBlock;
    if (rbuf_.empty()) rbuf_.resize(kBlock);
    const std::uint64_t off = std::uint64_t{rlo_} * sizeof(FlowRow);
    // Up to the end of what was written: the rows of ids not put yet are filled in by put.
    const std::uint64_t n = std::min<std::uint64_t>(kBlock, (end_ - std::min(end_, off)) / sizeof(FlowRow));
    file_.read_at(off, rbuf_.data(), n * sizeof(FlowRow));
    rvalid_ = true;
  }
  return rbuf_[id - rlo_];
}

void RowSpill::discard_below(std::uint32_t id) {
  constexpr std::uint64_t kChunk = std::uint64_t{4} << 20;
  const std::uint64_t done = std::uint64_t{id} * sizeof(FlowRow) / kChunk * kChunk;
  if (rows_ == 0 || done <= discarded_) return;
  file_.discard(discarded_, done - discarded_);
  discarded_ = done;
}

}  // namespace lbsim::transport
