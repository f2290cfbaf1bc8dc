// The records of the workload's entries (docs/architecture.md "Per-flow state"): what flows.csv and
// summary.json report of an entry (report, report_row), the memory per-flow state holds, and the
// lifecycle of a streamed workload's records: each entry admitted from the stream shortly before its
// start into a pool slot and an id-indexed window (admit_next, grow, grow_pool), released as soon as
// nothing can change it any more (try_release: a compact FlowRow waits for its id, in memory or in
// the spill file), and handed to the run's sink in id order (retire_done).
#include "transport/transport.h"

#include <algorithm>
#include <bit>
#include <cstddef>

#include "core/error.h"

namespace lbsim::transport {

using net::PacketType;

Transport::Transport(net::Network& net, std::size_t entries, std::size_t transfers, EntryFeed feed, RetireSink sink,
                     const TransportParams& params, PolicyFactory policies, PolicyKeep keep, PolicyDone done)
    : Transport(net, params, std::move(policies), std::move(keep), std::move(done)) {
  if (entries >= kSpilledRow) throw UserError("a streamed workload has at most 4,294,967,293 entries");
  stream_ = true;
  feed_ = std::move(feed);
  sink_ = std::move(sink);
  total_ = entries;
  senders_pending_ = transfers;
  mask_ = 63;
  slots_.assign(64, kNoSlot);
  rows_cap_ = std::bit_ceil(std::max<std::size_t>(1, default_rows_in_memory()));
  rows_.resize(std::min<std::size_t>(64, rows_cap_));
  grow_pool();
}

void Transport::admit_rest() {
  while (streaming() && hi_ < total_) admit_next(false);
}

// Streamed workloads: the next entry gets a record slot and a place in the window, and its start is
// queued.
void Transport::admit_next(bool schedule) {
  if (hi_ == total_) return;
  if (static_cast<std::size_t>(hi_ - lo_) == slots_.size()) grow();
  if (free_.empty()) grow_pool();
  const std::uint32_t id = hi_;
  const std::uint32_t slot = free_.back();
  free_.pop_back();
  auto& s = specs_[slot];
  if (!feed_(s)) throw std::logic_error("workload stream ended before its counted entries");
  slots_[id & mask_] = slot;
  ++hi_;
  ++records_;
  peak_records_ = std::max(peak_records_, records_);
  peak_window_ = std::max<std::size_t>(peak_window_, hi_ - lo_);
  auto& f = flows_[slot];
  f.spec = &s;
  f.id = id;
  f.pinned = lb::is_pinned(s.lb);
  if (!s.is_compute()) f.npkts = static_cast<std::uint32_t>((s.bytes + p_.mtu - 1) / p_.mtu);
  if (!schedule) return;
  net_.events().push(std::max(s.start, net_.now()), net::kEvEntryStart, id, seq0_ + id);
  ++timed_pending_;
}

// Twice the window: the slots of ids [lo_, hi_) move to their places under the new mask; the rows in
// memory too, while rows_ is below rows_cap_ (beyond it, the rows of the newer ids go to the file).
void Transport::grow() {
  const std::size_t cap = slots_.size() * 2;
  std::vector<std::uint32_t> slots(cap, kNoSlot);
  const auto mask = static_cast<std::uint32_t>(cap - 1);
  for (std::uint32_t id = lo_; id < hi_; ++id) slots[id & mask] = slots_[id & mask_];
  if (const std::size_t nrows = std::min(cap, rows_cap_); nrows > rows_.size()) {
    std::vector<FlowRow> rows(nrows);
    const std::size_t old = rows_.size();
    for (std::uint32_t id = lo_; id < hi_ && id - lo_ < old; ++id)
      if (slots_[id & mask_] == kNoSlot) rows[id & (nrows - 1)] = rows_[id & (old - 1)];
    rows_.swap(rows);
  }
  slots_.swap(slots);
  mask_ = mask;
}

std::size_t& Transport::default_rows_in_memory() {
  static std::size_t n = std::size_t{1} << 16;
  return n;
}

// Twice the record pool (64 slots at first): the records' spec pointers follow their specs.
void Transport::grow_pool() {
  const std::size_t old = flows_.size(), cap = std::max<std::size_t>(64, old * 2);
  flows_.resize(cap);
  specs_.resize(cap);
  for (std::size_t i = 0; i < old; ++i)
    if (flows_[i].spec) flows_[i].spec = &specs_[i];
  for (std::size_t i = cap; i > old; --i) free_.push_back(static_cast<std::uint32_t>(i - 1));
}

FlowReport Transport::report(const FlowState& f) const {
  const auto& s = *f.spec;
  FlowReport r;
  r.id = f.id;
  r.src = s.src;
  r.dst = s.dst;
  r.tag = s.tag;
  r.bytes = s.bytes;
  r.compute = s.compute;
  r.lb = &s.lb;
  r.finished = f.finished;
  r.npkts = f.npkts;
  r.rcv_count = f.rcv_count;
  r.start_time = f.start_time;
  r.finish_time = f.finish_time;
  r.sender_done_time = f.sender_done_time;
  r.n = f.n;
  return r;
}

FlowRow Transport::row_of(std::uint32_t id) const {
  if (slots_[id & mask_] != kSpilledRow) return rows_[id & (rows_.size() - 1)];
  return rows_file_.get(id);
}

FlowReport Transport::report_row(std::uint32_t id) const { return report_row(id, row_of(id)); }

FlowReport Transport::report_row(std::uint32_t id, const FlowRow& w) const {
  FlowReport r;
  if (w.flags & kRowWide) {
    r = wide_.at(id);
    r.lb = &lb_names_[w.lb];
    return r;
  }
  r.id = id;
  r.src = w.src;
  r.dst = w.dst;
  r.tag = w.tag;
  if (w.flags & kRowCompute)
    r.compute = w.size;
  else
    r.bytes = w.size;
  r.lb = &lb_names_[w.lb];
  r.finished = (w.flags & kRowFinished) != 0;
  r.npkts = w.npkts;
  r.rcv_count = w.rcv_count;
  r.start_time = w.start;
  r.finish_time = w.finish;
  r.sender_done_time = w.sender_done;
  auto& n = r.n;
  n.packets_sent = w.packets_sent;
  n.retransmits = w.retransmits;
  n.nacks = w.nacks;
  n.timeouts = w.timeouts;
  n.ecn_acks = w.ecn_acks;
  n.ooo = w.ooo;
  n.duplicates = w.duplicates;
  n.trimmed_rx = w.trimmed_rx;
  n.max_reorder = w.max_reorder;
  n.overtaken = w.overtaken;
  n.rob_max = w.rob_max;
  n.rewinds = w.rewinds;
  n.pauses = w.pauses;
  n.pause_timeouts = w.pause_timeouts;
  n.held = w.held;
  return r;
}

// Streamed workloads: a record whose entry is over at both ends, whose load balancer is gone and of
// which no data packet or probe is left in the network (nothing can change it any more) is released
// at once, out of id order: its slot goes back to the pool and the values flows.csv and summary.json
// need stay in the window as a FlowRow until every lower id has left (docs/scale-flows.md): in
// memory while its id is within rows_.size() of the lowest, on the temporary file beyond.
void Transport::try_release(std::uint32_t id) {
  if (id < lo_ || id >= hi_) return;
  const std::uint32_t slot = slots_[id & mask_];
  if (slot >= kSpilledRow) return;
  FlowState& f = flows_[slot];
  const auto& s = *f.spec;
  if (!f.finished || f.live || f.lb || f.in_net || !(f.sender_done || s.is_compute())) return;
  FlowRow w{};
  constexpr std::uint64_t k32 = 0xFFFFFFFFu;
  const auto& n = f.n;
  const bool wide = std::max({n.packets_sent, n.retransmits, n.nacks, n.timeouts, n.ecn_acks, n.ooo, n.duplicates,
                              n.trimmed_rx, n.overtaken, n.rewinds, n.pauses, n.pause_timeouts}) > k32 ||
                    (s.is_compute() && s.bytes != 0);
  std::size_t lb = 0;
  while (lb < lb_names_.size() && lb_names_[lb] != s.lb) ++lb;
  if (lb == lb_names_.size()) {
    if (lb > 0xFFFF) throw std::logic_error("more than 65,536 load balancer names in a streamed workload");
    lb_names_.push_back(s.lb);
  }
  w.lb = static_cast<std::uint16_t>(lb);
  if (wide) {
    w.flags = kRowWide;
    wide_.emplace(id, report(f));
  } else {
    w.start = f.start_time;
    w.finish = f.finish_time;
    w.sender_done = f.sender_done_time;
    w.held = n.held;
    w.size = s.is_compute() ? s.compute : s.bytes;
    w.src = s.src;
    w.dst = s.dst;
    w.tag = s.tag;
    w.npkts = f.npkts;
    w.rcv_count = f.rcv_count;
    w.packets_sent = static_cast<std::uint32_t>(n.packets_sent);
    w.retransmits = static_cast<std::uint32_t>(n.retransmits);
    w.nacks = static_cast<std::uint32_t>(n.nacks);
    w.timeouts = static_cast<std::uint32_t>(n.timeouts);
    w.ecn_acks = static_cast<std::uint32_t>(n.ecn_acks);
    w.ooo = static_cast<std::uint32_t>(n.ooo);
    w.duplicates = static_cast<std::uint32_t>(n.duplicates);
    w.trimmed_rx = static_cast<std::uint32_t>(n.trimmed_rx);
    w.overtaken = static_cast<std::uint32_t>(n.overtaken);
    w.rewinds = static_cast<std::uint32_t>(n.rewinds);
    w.pauses = static_cast<std::uint32_t>(n.pauses);
    w.pause_timeouts = static_cast<std::uint32_t>(n.pause_timeouts);
    w.max_reorder = n.max_reorder;
    w.rob_max = n.rob_max;
    w.flags = static_cast<std::uint8_t>((f.finished ? kRowFinished : 0) | (s.is_compute() ? kRowCompute : 0));
  }
  f = FlowState{};
  specs_[slot] = workload::FlowSpec{};
  free_.push_back(slot);
  if (id - lo_ < rows_.size()) {
    rows_[id & (rows_.size() - 1)] = w;
    slots_[id & mask_] = kNoSlot;
  } else {
    rows_file_.put(id, w);
    slots_[id & mask_] = kSpilledRow;
  }
  --records_;
  peak_waiting_ = std::max(peak_waiting_, ++waiting_);
}

// The ids a drop may have released, then the rows at the bottom of the window, to the sink in id order.
void Transport::retire_done() {
  for (std::size_t i = 0; i < recheck_.size(); ++i) try_release(recheck_[i]);
  recheck_.clear();
  while (lo_ < hi_ && slots_[lo_ & mask_] >= kSpilledRow) {
    const FlowRow w = row_of(lo_);
    sink_(report_row(lo_, w));
    if (w.flags & kRowWide) wide_.erase(lo_);
    --waiting_;
    ++lo_;
  }
  rows_file_.discard_below(lo_);  // the file's rows below lo_ have been read
}

void Transport::on_dropped(const net::Packet& p) {
  if (p.type != PacketType::Data || !held(p.flow)) return;
  --at(p.flow).in_net;
  if (streaming()) recheck_.push_back(p.flow);  // released after the current packet or event
}

FlowMemory Transport::memory() const {
  FlowMemory m;
  m.entries = total_;
  m.records = streaming() ? records_ : hi_ - lo_;
  m.peak_records = streaming() ? peak_records_ : total_;
  m.window = hi_ - lo_;
  m.peak_window = streaming() ? peak_window_ : total_;
  m.waiting_rows = waiting_;
  m.peak_waiting_rows = peak_waiting_;
  m.spilled_rows = rows_file_.rows_written();
  m.window_capacity = slots_.size();
  m.window_bytes = slots_.capacity() * sizeof(std::uint32_t) + rows_.capacity() * sizeof(FlowRow) + rows_file_.bytes() +
                   wide_.size() * (sizeof(FlowReport) + 48);  // a map node: the pair and its links
  m.record_capacity = flows_.size();
  m.record_bytes = flows_.capacity() * sizeof(FlowState) + specs_.capacity() * sizeof(workload::FlowSpec) +
                   free_.capacity() * sizeof(std::uint32_t);
  m.live = live_;
  m.peak_live = peak_live_;
  const auto vec = [](const auto& v) { return v.capacity() * sizeof(v[0]); };
  for (std::uint32_t i = lo_; i < hi_; ++i) {
    if (!held(i)) continue;
    const auto& f = at(i);
    if (!dependents_.empty()) m.vector_bytes += vec(dependents_[i]);
    if (!start_dependents_.empty()) m.vector_bytes += vec(start_dependents_[i]);
    if (f.lb) ++m.policies;
    if (!f.live) continue;
    const auto& L = *f.live;
    if (L.cc) ++m.ccs;
    m.vector_bytes += L.sent.bytes() + vec(L.rtx) + vec(L.sendlog) + L.received.bytes();
  }
  for (const auto& q : hosts_) m.scheduler_bytes += vec(q.slots) + q.ready.bytes();
  return m;
}

}  // namespace lbsim::transport
