#include "transport/transport.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>

#include "core/error.h"
#include "core/prefetch.h"

namespace lbsim::transport {

using net::kNil;
using net::Packet;
using net::PacketType;

namespace {

// psn's entry if its latest transmission, the one sent at `sent`, is still in flight; else null
// (acknowledged, declared lost, or superseded by a later transmission).
inline PsnEntry* in_flight_from(FlowLive& L, std::uint32_t psn, SimTime sent) {
  PsnEntry* e = L.sent.find(psn);
  return e && e->state() == PsnState::InFlight && e->sent() == sent ? e : nullptr;
}

// Drop the retransmit queue's stale head entries (PSNs acknowledged after being declared lost); an
// emptied queue is reset.
inline void drop_stale_rtx(FlowLive& L) {
  while (L.rtx_head < L.rtx.size() && L.state_of(L.rtx[L.rtx_head]) != PsnState::Lost) ++L.rtx_head;
  if (L.rtx_head == L.rtx.size() && L.rtx_head) {
    L.rtx.clear();
    L.rtx_head = 0;
  }
}

// Appends a transmission to the RTO's send log (FlowLive::sendlog). A full log is first compacted:
// the entries the RTO walk (Transport::on_rto) would skip whenever it reached them are dropped, i.e.
// those of an acknowledged PSN (Acked is final) and those superseded by a later transmission of their
// PSN (its send time only moves forward); the others keep their order, so the walk acts on the same
// entries in the same order as on the full log. The log grows (doubles) only when the entries kept
// fill more than 3/4 of it, so its capacity stays below 8/3 x the most transmissions not yet
// acknowledged at once, and a compaction of n entries follows at least n / 4 appends since the
// previous one (amortised O(1) per transmission).
inline void log_send(FlowLive& L, std::uint32_t psn, SimTime now) {
  auto& log = L.sendlog;
  if (log.size() == log.capacity() && !log.empty()) {
    std::size_t kept = 0;
    for (std::size_t i = L.log_head; i < log.size(); ++i) {
      const auto [q, sent] = log[i];
      const PsnEntry* e = L.sent.find(q);
      if (!e || e->state() == PsnState::Acked || e->sent() != sent) continue;
      log[kept++] = log[i];
    }
    log.resize(kept);
    L.log_head = 0;
    if (kept * 4 > log.capacity() * 3) log.reserve(log.capacity() * 2);
  }
  log.emplace_back(psn, now);
}

}  // namespace

Transport::Transport(net::Network& net, const TransportParams& params, PolicyFactory policies, PolicyKeep keep,
                     PolicyDone done)
    : net_(net), p_(params), policies_(std::move(policies)), keep_(std::move(keep)), done_(std::move(done)) {
  for (const auto k : {net::kEvEntryStart, net::kEvRto, net::kEvComputeDone, net::kEvAckFlush, net::kEvHoldWake,
                       net::kEvPauseTimeout, net::kEvPaceWake})
    net_.on(k, this);
  p_.cc.mtu = p_.header + p_.mtu;
  const auto hosts = static_cast<std::size_t>(net.topology().num_hosts);
  hosts_.resize(hosts);
  class_paused_.assign(hosts, 0);
}

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

Transport::Transport(net::Network& net, const workload::Workload& wl, const TransportParams& params,
                     PolicyFactory policies, PolicyKeep keep, PolicyDone done)
    : Transport(net, params, std::move(policies), std::move(keep), std::move(done)) {
  const auto n = wl.flows.size();
  flows_.resize(n);
  total_ = n;
  hi_ = static_cast<std::uint32_t>(n);
  peak_records_ = n;
  // The lists of waiting entries exist only in workloads with dependencies.
  const bool deps = std::any_of(wl.flows.begin(), wl.flows.end(), [](const auto& s) { return !s.deps.empty(); });
  const bool start_deps =
      std::any_of(wl.flows.begin(), wl.flows.end(), [](const auto& s) { return !s.start_deps.empty(); });
  if (deps) dependents_.resize(n);
  if (start_deps) start_dependents_.resize(n);
  const auto hosts = static_cast<std::size_t>(net.topology().num_hosts);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& s = wl.flows[i];
    auto& f = at(i);
    f.spec = &s;
    f.id = static_cast<std::uint32_t>(i);
    f.pinned = lb::is_pinned(s.lb);
    const auto check_host = [&](std::int32_t h, const char* what) {
      if (h < 0 || static_cast<std::size_t>(h) >= hosts)
        throw UserError("workload entry " + std::to_string(i) + ": " + what + " host " + std::to_string(h) +
                        " does not exist (the topology has " + std::to_string(hosts) + " hosts)");
    };
    check_host(s.src, "source");
    if (!s.is_compute()) {
      ++senders_pending_;
      check_host(s.dst, "destination");
      if (s.src == s.dst)
        throw UserError("workload entry " + std::to_string(i) +
                        ": source and destination are "
                        "the same host " +
                        std::to_string(s.src));
      if (s.bytes < 0) throw UserError("workload entry " + std::to_string(i) + ": negative size");
      f.npkts = static_cast<std::uint32_t>((s.bytes + p_.mtu - 1) / p_.mtu);
    }
    for (auto d : s.deps) {
      if (d >= n)
        throw UserError("workload entry " + std::to_string(i) + " depends on missing entry " + std::to_string(d));
      dependents_[d].push_back(static_cast<std::uint32_t>(i));
    }
    for (auto d : s.start_deps) {
      if (d >= n)
        throw UserError("workload entry " + std::to_string(i) + " depends on missing entry " + std::to_string(d));
      start_dependents_[d].push_back(static_cast<std::uint32_t>(i));
    }
    f.pending_deps = static_cast<std::uint32_t>(s.deps.size());
    f.pending_start_deps = static_cast<std::uint32_t>(s.start_deps.size());
  }
}

Bytes Transport::packet_bytes(const FlowState& f, std::uint32_t psn) const {
  const Bytes off = static_cast<Bytes>(psn) * p_.mtu;
  return p_.header + std::min<Bytes>(p_.mtu, f.spec->bytes - off);
}

Bytes Transport::control_bytes(const FlowState& f, std::uint32_t ev) const {
  return p_.header + (f.lb && (f.caps & lb::kCapPaths) ? f.lb->extra_header(ev) : 0);
}

void Transport::start() {
  if (streaming()) {
    // The entry starts keep the insertion order they have when every start is queued at once (the
    // eager path): equal-time events run in the same order, so the run is the same.
    seq0_ = net_.events().reserve_seqs(total_);
    admit_next();
    return;
  }
  for (auto& f : flows_)
    if (f.pending_deps == 0 && f.pending_start_deps == 0) {
      net_.events().push(std::max(f.spec->start, net_.now()), net::kEvEntryStart, f.id);
      ++timed_pending_;
    }
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

void Transport::make_ready(std::uint32_t id) {
  auto& f = at(id);
  if (f.pending_deps || f.pending_start_deps) return;
  net_.events().push(std::max({f.spec->start, f.ready_time, net_.now()}), net::kEvEntryStart, id);
  ++timed_pending_;
}

void Transport::begin(std::uint32_t id) {
  auto& f = at(id);
  if (f.started) return;
  f.started = true;
  f.start_time = net_.now();
  if (!start_dependents_.empty()) {
    for (auto d : start_dependents_[id]) {
      auto& g = at(d);
      g.ready_time = std::max(g.ready_time, net_.now());
      --g.pending_start_deps;
      make_ready(d);
    }
    std::vector<std::uint32_t>().swap(start_dependents_[id]);
  }
  const auto& s = *f.spec;
  if (s.is_compute()) {
    net_.events().push(net_.now() + s.compute, net::kEvComputeDone, id);
    ++timed_pending_;
    return;
  }
  if (f.npkts == 0) {  // an empty message is delivered the moment it starts
    f.sender_done = true;
    f.sender_done_time = net_.now();
    --senders_pending_;
    complete(id);
    return;
  }
  f.live = std::make_unique<FlowLive>();
  if (++live_ > peak_live_) peak_live_ = live_;
  auto& L = *f.live;
  L.cc = make_cc(p_.cc);
  L.cc->set_line_rate(net_.port(net_.nic_port(s.src)).rate);
  L.paced = L.cc->paced();
  f.lb = policies_(s, id);
  f.caps = f.lb->caps();
  // The sender's ring sized at once for what the initial window puts in play (its PSNs and the rest
  // of the first block; never more than the message), so that it does not grow through 1, 2, 4 ...
  // blocks at the start of every transfer.
  const double window = std::ceil(L.cc->cwnd() / static_cast<double>(p_.mtu + p_.header));
  L.sent.reserve(static_cast<std::uint32_t>(std::min(static_cast<double>(f.npkts), std::max(1.0, window) + 63)));
  add_active(f);
  net_.kick_nic(s.src);
}

void Transport::complete(std::uint32_t id) {
  auto& f = at(id);
  if (f.finished) return;
  f.finished = true;
  f.finish_time = net_.now();
  ++completed_;
  if (f.sender_done) release(f);
  if (!dependents_.empty()) {
    for (auto d : dependents_[id]) {
      auto& g = at(d);
      g.ready_time = std::max(g.ready_time, net_.now() + g.spec->delay);
      --g.pending_deps;
      make_ready(d);
    }
    std::vector<std::uint32_t>().swap(dependents_[id]);
  }
  if (all_done() && (!p_.wait_senders || senders_pending_ == 0)) net_.stop();
}

bool Transport::has_packet(const FlowState& f, std::uint32_t& psn) const {
  if (f.sender_done) return false;
  if (f.live->rtx_head < f.live->rtx.size())
    psn = f.live->rtx[f.live->rtx_head];
  else if (f.live->next_new < f.npkts)
    psn = f.live->next_new;
  else
    return false;
  return true;
}

bool Transport::window_allows(const FlowState& f, std::uint32_t psn) const {
  return f.live->inflight == 0 || static_cast<double>(f.live->inflight + packet_bytes(f, psn)) <= f.live->cc->cwnd();
}

lb::SendView Transport::send_view(const FlowState& f, std::uint32_t psn) const {
  lb::SendView v;
  v.inflight = f.live->inflight;
  v.psn = psn;
  v.snd_una = f.live->snd_cum;
  v.retransmit = f.live->state_of(psn) == PsnState::Lost;
  return v;
}

std::uint32_t Transport::next_psn(FlowState& f) {
  if (f.live->rtx_head < f.live->rtx.size()) {
    const std::uint32_t psn = f.live->rtx[f.live->rtx_head++];
    if (f.live->rtx_head == f.live->rtx.size()) {
      f.live->rtx.clear();
      f.live->rtx_head = 0;
    } else if (f.live->rtx_head >= 1024 && f.live->rtx_head * 2 >= f.live->rtx.size()) {
      // A flow that loses a packet per RTO and resends one never empties the queue: drop the
      // consumed prefix, or the queue grows with simulated time (a stuck flow, docs/reliability.md).
      f.live->rtx.erase(f.live->rtx.begin(), f.live->rtx.begin() + static_cast<std::ptrdiff_t>(f.live->rtx_head));
      f.live->rtx_head = 0;
    }
    return psn;
  }
  return f.live->next_new++;
}

// The chain pull_data walks, one link per stage (HostHandler::prefetch_pull): the host's flow list,
// the slot at its cursor, the flow's record, its live state (with the spec and the policy's first
// line), then what the send reads and writes (the window, the per-PSN arrays at the next new PSN,
// the send log, the policy's own lines: EntropyPolicy::prefetch).
// Hints only; a stage whose link is not there yet (or a streamed entry not held) asks for nothing.
void Transport::prefetch_pull(std::int32_t host, int stage) {
  const HostQueue& q = hosts_[static_cast<std::size_t>(host)];
  if (stage == 0) {
    __builtin_prefetch(&q);
    return;
  }
  if (q.bits || q.cursor >= q.slots.size()) return;
  if (stage == 1) {
    __builtin_prefetch(&q.slots[q.cursor]);
    return;
  }
  const std::uint32_t id = q.slots[q.cursor];
  if (id == net::kNil || !held(id)) return;
  const FlowState& f = at(id);
  if (stage == 2) {
    prefetch_range(&f, kFlowStateHotBytes);
    return;
  }
  const FlowLive* L = f.live.get();
  if (L == nullptr) return;
  if (stage == 3) {
    prefetch_range(L, offsetof(FlowLive, received));  // the sender's fields
    __builtin_prefetch(f.spec);
    __builtin_prefetch(f.lb.get());
    return;
  }
  if (L->cc) L->cc->prefetch();
  const std::uint32_t psn = L->next_new;
  if (const void* e = L->sent.entry_addr(psn)) __builtin_prefetch(e);
  if (L->sendlog.size() < L->sendlog.capacity()) __builtin_prefetch(L->sendlog.data() + L->sendlog.size());
  if (f.caps & lb::kCapPrefetch) f.lb->prefetch();
}

// The chain on_packet walks for packet pkt at its host (HostHandler::prefetch_arrival): the flow's
// record (and an ACK's fields beside the packet), its live state (and an ACK's policy's first line),
// then the receiver's bitmap word of a data packet or the sender's per-PSN entries, window and policy
// of an ACK.
void Transport::prefetch_arrival(std::uint32_t pkt, int stage) {
  const Packet& p = net_.pkt(pkt);
  if (!held(p.flow)) return;
  const FlowState& f = at(p.flow);
  if (stage == 0) {
    prefetch_range(&f, kFlowStateHotBytes);
    if (p.type == PacketType::Ack) __builtin_prefetch(&net_.packets().ack(pkt));
    return;
  }
  const FlowLive* L = f.live.get();
  if (L == nullptr) return;
  if (stage == 1) {
    if (p.type == PacketType::Data)
      prefetch_range(&L->received,
                     offsetof(FlowLive, parked_since) - offsetof(FlowLive, received));  // the receiver's fields
    else {
      prefetch_range(L, offsetof(FlowLive, received));
      __builtin_prefetch(f.lb.get());
    }
    return;
  }
  const std::uint32_t psn = p.psn;
  if (p.type == PacketType::Data) {
    if (const void* w = L->received.word_addr(psn)) __builtin_prefetch(w);
  } else if (const void* e = L->sent.entry_addr(psn)) {
    __builtin_prefetch(e);
    __builtin_prefetch(L->sent.word_addr(psn));
    if (L->cc) L->cc->prefetch();
    if (f.caps & lb::kCapPrefetch) f.lb->prefetch();
  }
}

std::uint32_t Transport::pull_data(std::int32_t host) {
  // A PFC class pause stops every data packet of the NIC (the ACKs it sends are another class).
  if (class_pauses_ && class_paused_[host]) return kNil;
  auto& q = hosts_[static_cast<std::size_t>(host)];
  const SimTime now = net_.now();
  // Round robin over the host's active flows from the cursor, wrapping once; only the flows that can
  // send (or whose load balancer may hold them, or that wait for their pacing slot) are in `ready`,
  // the others would be passed over without effect. A hold parks the flow and starts over from it.
restart:
  const auto start = q.cursor;
  for (int pass = 0; pass < 2; ++pass) {
    const std::uint32_t hi = pass == 0 ? static_cast<std::uint32_t>(q.slots.size()) : start;
    for (std::uint32_t s = next_slot(q, pass == 0 ? start : 0); s < hi; s = next_slot(q, s + 1)) {
      auto& f = at(q.slots[s]);
      auto& L = *f.live;
      drop_stale_rtx(L);
      std::uint32_t next = 0;
      if (!has_packet(f, next)) {
        if (q.bits) q.ready.clear(s);
        continue;
      }
      if (f.caps & lb::kCapHold) {
        // The load balancer may hold the flow (e.g. a Flowcut drain): park it until its wake time or
        // its next feedback, and look at the other flows.
        const SimTime until = f.lb->hold(now, send_view(f, next));
        // kTimeNever (until the next feedback) or a future time holds; kSendNow or a past time sends.
        if (until == kTimeNever || until > now) {
          q.cursor = s;
          park(f, kParkHold);
          if (until != kTimeNever) {
            L.hold_wake = until;
            net_.events().push(until, net::kEvHoldWake, f.id);
          }
          if (q.active == 0) return kNil;
          goto restart;
        }
      }
      if (!window_allows(f, next)) {
        if (q.bits && !(f.caps & lb::kCapHold)) q.ready.clear(s);
        continue;
      }
      if (L.next_tx > now) {
        // Paced (rate-based CC): not before its slot; the NIC looks again then.
        if (L.pace_wake != L.next_tx) {
          L.pace_wake = L.next_tx;
          net_.events().push(L.next_tx, net::kEvPaceWake, f.id);
        }
        continue;
      }
      q.cursor = s + 1 < q.slots.size() ? s + 1 : 0;
      const std::uint32_t psn = next_psn(f);
      const std::uint32_t pi = net_.packets().alloc();
      Packet& p = net_.pkt(pi);
      p.type = PacketType::Data;
      p.flow = f.id;
      ++f.in_net;
      p.psn = psn;
      p.src = f.spec->src;
      p.dst = f.spec->dst;
      const Bytes wire = packet_bytes(f, psn);
      p.size = static_cast<std::uint32_t>(wire);
      p.payload = p.size - static_cast<std::uint32_t>(p_.header);
      p.sent_time = now;
      p.ev = f.lb->next_ev(now);
      if (f.caps & lb::kCapPaths) {
        // A policy's own header fields ride on the wire (not in the window: that counts packet_bytes).
        p.size += static_cast<std::uint32_t>(f.lb->extra_header(p.ev));
        f.lb->on_sent(psn, p.ev, now, p.size);
        std::uint32_t probe_ev = 0;
        while (f.lb->take_probe(probe_ev, now)) send_probe(f, probe_ev);
      }
      if (f.pinned) p.flags |= net::kFlagPinned;
      PsnEntry& e = L.sent.entry(psn);
      if (e.state() == PsnState::Lost) {
        p.flags |= net::kFlagRetransmit;
        ++f.n.retransmits;
      }
      ++f.n.packets_sent;
      e.set_sent(now, PsnState::InFlight);
      e.ev = p.ev;
      L.inflight += wire;
      log_send(L, psn, now);
      if (L.rto_armed == kTimeNever) arm_rto(f, now + p_.rto);
      // NIC pacing at the CC's rate: the next packet starts size x 8 / rate after this one.
      if (L.paced) L.next_tx = now + serialization_ps(p.size, L.cc->rate(now));
      refresh(f);
      return pi;
    }
  }
  return kNil;
}

bool Transport::sendable(FlowState& f) const {
  auto& L = *f.live;
  drop_stale_rtx(L);  // as pull_data sees it
  std::uint32_t next = 0;
  if (!has_packet(f, next)) return false;
  return (f.caps & lb::kCapHold) || window_allows(f, next);
}

void Transport::refresh(FlowState& f) {
  if (!f.live || f.live->slot == SlotBits::kNone) return;
  auto& q = hosts_[static_cast<std::size_t>(f.spec->src)];
  if (!q.bits) return;
  if (sendable(f))
    q.ready.set(f.live->slot);
  else
    q.ready.clear(f.live->slot);
}

void Transport::add_active(FlowState& f) {
  auto& q = hosts_[static_cast<std::size_t>(f.spec->src)];
  if (q.slots.size() >= 2 * static_cast<std::size_t>(q.active) + 8) compact(f.spec->src);
  f.live->slot = static_cast<std::uint32_t>(q.slots.size());
  q.slots.push_back(f.id);
  ++q.active;
  if (q.bits)
    refresh(f);
  else if (q.active >= kReadyFrom && !p_.scan_all)
    use_bits(q);
}

void Transport::use_bits(HostQueue& q) {
  q.bits = true;
  q.ready.reset();
  for (const auto id : q.slots)
    if (id != kNil) refresh(at(id));
}

void Transport::remove_active(FlowState& f) {
  if (!f.live || f.live->slot == SlotBits::kNone) return;
  auto& q = hosts_[static_cast<std::size_t>(f.spec->src)];
  const std::uint32_t s = f.live->slot;
  f.live->slot = SlotBits::kNone;
  q.slots[s] = kNil;
  q.ready.clear(s);
  --q.active;
  if (q.bits && q.active < kReadyFrom / 2) q.bits = false;
  while (!q.slots.empty() && q.slots.back() == kNil) q.slots.pop_back();
  // The cursor keeps pointing at the same flow, or at the one after the flow that left; past the
  // last flow it wraps to the first.
  if (q.cursor >= q.slots.size()) q.cursor = 0;
  if (q.slots.empty()) q.ready.reset();
}

void Transport::compact(std::int32_t host) {
  auto& q = hosts_[static_cast<std::size_t>(host)];
  std::uint32_t out = 0, cursor = 0;
  q.ready.reset();
  for (std::uint32_t s = 0; s < q.slots.size(); ++s) {
    if (s == q.cursor) cursor = out;
    const std::uint32_t id = q.slots[s];
    if (id == kNil) continue;
    at(id).live->slot = out;
    q.slots[out] = id;
    ++out;
  }
  if (q.cursor >= q.slots.size()) cursor = 0;
  q.slots.resize(out);
  q.cursor = cursor;
  if (q.bits)
    for (std::uint32_t s = 0; s < out; ++s) refresh(at(q.slots[s]));
}

void SlotBits::grow(std::uint32_t i) {
  std::size_t need = (static_cast<std::size_t>(i) >> 6) + 1;
  for (std::size_t k = 0;; ++k) {
    if (k == lv_.size()) {
      // A new level above: the non-zero words of the one below.
      lv_.emplace_back((lv_[k - 1].size() + 63) / 64, 0);
      for (std::size_t w = 0; w < lv_[k - 1].size(); ++w)
        if (lv_[k - 1][w]) lv_[k][w >> 6] |= 1ULL << (w & 63);
    }
    if (lv_[k].size() < need) lv_[k].resize(need, 0);
    if (lv_[k].size() <= 1) break;
    need = (lv_[k].size() + 63) / 64;
  }
}

void SlotBits::set_slow(std::uint32_t i) {
  if ((i >> 6) >= lv_[0].size()) grow(i);
  std::size_t idx = i;
  for (auto& words : lv_) {
    std::uint64_t& w = words[idx >> 6];
    const bool was = w != 0;
    w |= 1ULL << (idx & 63);
    if (was) return;
    idx >>= 6;
  }
}

void SlotBits::clear_slow(std::uint32_t i) {
  if ((i >> 6) >= lv_[0].size()) return;
  std::size_t idx = i;
  for (auto& words : lv_) {
    std::uint64_t& w = words[idx >> 6];
    w &= ~(1ULL << (idx & 63));
    if (w) return;
    idx >>= 6;
  }
}

std::uint32_t SlotBits::find(std::size_t level, std::uint32_t i) const {
  const auto& words = lv_[level];
  std::size_t w = i >> 6;
  if (w >= words.size()) return kNone;
  if (const std::uint64_t m = words[w] & (~0ULL << (i & 63)))
    return static_cast<std::uint32_t>(w * 64 + static_cast<std::size_t>(std::countr_zero(m)));
  // The next non-zero word of this level: from the level above, or by looking (top level, one word).
  if (level + 1 < lv_.size()) {
    const std::uint32_t nw = find(level + 1, static_cast<std::uint32_t>(w + 1));
    if (nw == kNone) return kNone;
    w = nw;
  } else {
    do {
      if (++w >= words.size()) return kNone;
    } while (!words[w]);
  }
  return static_cast<std::uint32_t>(w * 64 + static_cast<std::size_t>(std::countr_zero(words[w])));
}

void SlotBits::reset() {
  for (auto& words : lv_) std::fill(words.begin(), words.end(), 0);
}

std::size_t SlotBits::bytes() const {
  std::size_t b = 0;
  for (const auto& words : lv_) b += words.capacity() * sizeof(std::uint64_t);
  return b;
}

void Transport::arm_rto(FlowState& f, SimTime at) {
  f.live->rto_armed = at;
  net_.events().push(at, net::kEvRto, f.id);
}

void Transport::on_rto(std::uint32_t id) {
  auto& f = at(id);
  f.live->rto_armed = kTimeNever;
  if (f.sender_done) return;
  const SimTime now = net_.now();
  bool lost_any = false;
  while (f.live->log_head < f.live->sendlog.size()) {
    const auto [psn, sent] = f.live->sendlog[f.live->log_head];
    PsnEntry* e = in_flight_from(*f.live, psn, sent);
    if (!e) {
      ++f.live->log_head;  // acknowledged, or superseded by a later transmission
      continue;
    }
    if (sent + p_.rto > now) {
      arm_rto(f, sent + p_.rto);
      break;
    }
    ++f.live->log_head;
    // Lost silently (e.g. a black-holed link): retransmit and tell CC and LB.
    e->set_state(PsnState::Lost);
    f.live->inflight -= packet_bytes(f, psn);
    f.live->rtx.push_back(psn);
    ++f.n.timeouts;
    f.live->cc->on_timeout(now, packet_bytes(f, psn), f.live->inflight);
    f.lb->on_feedback(e->ev, lb::Feedback::Timeout, now);
    lost_any = true;
  }
  // Everything walked: start the log over (a full log is compacted by log_send).
  if (f.live->log_head == f.live->sendlog.size()) {
    f.live->sendlog.clear();
    f.live->log_head = 0;
  }
  if (lost_any) {
    refresh(f);
    if (f.park & kParkHold) unpark(f, kParkHold);
    net_.kick_nic(f.spec->src);
  }
}

void Transport::on_packet(std::uint32_t pkt) {
  const Packet& p = net_.pkt(pkt);
  const std::uint32_t flow = p.flow;
  if (!held(flow)) [[unlikely]] {
    // A streamed entry already released: its sender was done, so an ACK, NACK or pause changes
    // nothing; no data packet of it was left in the network.
    if (p.type == PacketType::Data) throw std::logic_error("a data packet of a retired workload entry arrived");
    net_.packets().release(pkt);
    return;
  }
  switch (p.type) {
    case PacketType::Data:
      on_data(pkt);
      break;
    case PacketType::Ack:
      on_ack(pkt);
      break;
    case PacketType::Nack:
      on_nack(pkt);
      break;
    case PacketType::Pause:
      on_pause(pkt);
      break;
  }
  net_.packets().release(pkt);
  if (streaming()) {
    try_release(flow);
    retire_done();
  }
}

void Transport::send_ack(FlowState& f, FlowLive& R, std::int32_t from_host, std::int32_t to_host) {
  const std::uint32_t ai = net_.packets().alloc_ack();
  Packet& a = net_.pkt(ai);
  a.type = PacketType::Ack;
  a.flow = f.id;
  a.psn = R.ack_last_psn;
  a.cum_ack = R.rcv_cum;
  net::AckFields& ax = net_.packets().new_ack(ai);
  ax.sack = received_word(f, R.ack_last_psn >> 6);
  a.ev = R.ack_last_ev;
  a.src = from_host;
  a.dst = to_host;
  a.size = static_cast<std::uint32_t>(control_bytes(f, a.ev));
  a.sent_time = R.ack_last_sent_time;
  a.payload = R.ack_pending_bytes;
  a.echo_hops = R.ack_last_hops;
  if (f.pinned && p_.pin_acks) a.flags |= net::kFlagPinned;
  a.ecn_count = static_cast<std::uint16_t>(std::min<std::uint32_t>(R.ack_pending_ecn, 0xFFFF));
  if (R.ack_pending_ecn) a.flags |= net::kFlagEcn;
  if (R.carry_n) {
    a.carry_n = R.carry_n;
    std::copy(R.carry_ev, R.carry_ev + R.carry_n, ax.carry_ev);
    R.carry_n = 0;
  } else {
    ax.rx_time = R.ack_last_rx;
  }
  R.ack_pending = 0;
  R.ack_pending_ecn = 0;
  R.ack_pending_bytes = 0;
  net_.send_control(from_host, ai);
}

void Transport::send_nack(FlowState& f, FlowLive& R, const Packet& p, std::uint32_t psn, bool go_back_n) {
  const std::uint32_t ni = net_.packets().alloc();
  Packet& n = net_.pkt(ni);
  n.type = PacketType::Nack;
  n.flow = p.flow;
  n.psn = psn;
  n.ev = p.ev;
  n.src = p.dst;
  n.dst = p.src;
  n.size = static_cast<std::uint32_t>(control_bytes(f, n.ev));
  n.sent_time = p.sent_time;
  n.cum_ack = R.rcv_cum;
  n.payload = static_cast<std::uint32_t>(packet_bytes(f, p.psn));  // the data packet it answers
  n.echo_hops = p.hops;
  if (go_back_n) n.flags |= net::kFlagGoBackN;
  if (f.pinned && p_.pin_acks) n.flags |= net::kFlagPinned;
  net_.send_control(p.dst, ni);
}

void Transport::send_probe(FlowState& f, std::uint32_t ev) {
  const std::uint32_t pi = net_.packets().alloc();
  Packet& q = net_.pkt(pi);
  q.type = PacketType::Data;
  q.flags = net::kFlagProbe;
  q.flow = f.id;
  ++f.in_net;
  q.src = f.spec->src;
  q.dst = f.spec->dst;
  q.size = static_cast<std::uint32_t>(control_bytes(f, ev));
  q.sent_time = net_.now();
  q.ev = ev;
  net_.send_control(f.spec->src, pi);
}

void Transport::answer_probe(FlowState& f, FlowLive& R, const Packet& p) {
  const std::uint32_t ai = net_.packets().alloc_ack();
  Packet& a = net_.pkt(ai);
  a.type = PacketType::Ack;
  a.flags = net::kFlagProbe;
  a.flow = p.flow;
  a.ev = p.ev;
  a.src = p.dst;
  a.dst = p.src;
  a.size = static_cast<std::uint32_t>(control_bytes(f, a.ev));
  a.sent_time = p.sent_time;
  net_.packets().new_ack(ai).rx_time = net_.now();
  a.echo_hops = p.hops;
  a.cum_ack = R.rcv_cum;
  net_.send_control(p.dst, ai);
}

void Transport::on_probe_ack(FlowState& f, const Packet& a, const net::AckFields& ax) {
  if (!f.lb || !(f.caps & lb::kCapPaths)) return;
  lb::AckDetail d;
  d.now = net_.now();
  d.rtt = d.now - a.sent_time;
  d.ev = a.ev;
  d.hops = a.echo_hops;
  d.one_way = ax.rx_time - a.sent_time;
  d.sent = a.sent_time;
  d.probe = true;
  d.inflight = f.live ? f.live->inflight : 0;  // released: every byte was acknowledged
  f.lb->on_ack_detail(d);
}

void Transport::resend_lost(FlowState& f) {
  lost_buf_.clear();
  f.lb->take_lost(lost_buf_);
  for (const auto& [psn, sent] : lost_buf_) {
    PsnEntry* e = psn < f.npkts ? in_flight_from(*f.live, psn, sent) : nullptr;
    if (!e) continue;
    e->set_state(PsnState::Lost);
    f.live->inflight -= packet_bytes(f, psn);
    f.live->rtx.push_back(psn);
  }
}

void Transport::count_rob(FlowState& f, std::int32_t host, std::uint32_t before) {
  if (rob_host_.empty()) {
    rob_host_.assign(static_cast<std::size_t>(net_.topology().num_hosts), 0);
    rob_hist_.assign(1025, 0);
  }
  auto& h = rob_host_[static_cast<std::size_t>(host)];
  h = h - before + (f.rcv_count - f.live->rcv_cum);
  ++rob_hist_[std::min<std::size_t>(h, rob_hist_.size() - 1)];
}

void Transport::on_data(std::uint32_t pkt) {
  Packet& p = net_.pkt(pkt);
  auto& f = at(p.flow);
  --f.in_net;
  FlowLive& R = receiver(f);
  if (p.flags & net::kFlagProbe) {
    if (!p.trimmed()) answer_probe(f, R, p);  // a trimmed probe is lost: the path stays excluded
    return;
  }
  if (p.trimmed()) {
    // The payload was cut in the network: ask for a retransmission right away.
    ++f.n.trimmed_rx;
    send_nack(f, R, p, p.psn, false);
    return;
  }
  // Did the network reorder this packet: was a packet sent after it received before it?
  if (p.sent_time < f.rcv_latest_sent)
    ++f.n.overtaken;
  else
    f.rcv_latest_sent = p.sent_time;
  const std::uint32_t psn = p.psn;
  bool newly_complete = false;
  if (f.finished || R.received.test(psn)) {  // a finished receiver has freed its bitmap: all held
    ++f.n.duplicates;
  } else {
    if (psn != R.rcv_cum) {
      // Out of order ([Flowcut] sec. III-C2: the expected PSN does not match the received one).
      ++f.n.ooo;
      f.n.max_reorder = std::max(f.n.max_reorder, psn - R.rcv_cum);
      if (p_.delivery == Delivery::InOrder && p_.recovery == Recovery::GoBackN) {
        // RoCE go-back-N: discard it and tell the sender where to resume.
        send_nack(f, R, p, R.rcv_cum, true);
        return;
      }
    }
    const std::uint32_t rob_before = f.rcv_count - R.rcv_cum;
    R.received.set(psn);
    ++f.rcv_count;
    ++delivered_;
    last_progress_ = net_.now();
    while (R.rcv_cum < f.npkts && R.received.test(R.rcv_cum)) ++R.rcv_cum;
    R.received.advance(R.rcv_cum);
    if (p_.delivery == Delivery::InOrder) {  // packets above the first gap wait in the reorder buffer
      f.n.rob_max = std::max(f.n.rob_max, f.rcv_count - R.rcv_cum);
      count_rob(f, p.dst, rob_before);
    }
    newly_complete = f.rcv_count == f.npkts;
  }
  R.ack_last_psn = psn;
  R.ack_last_ev = p.ev;
  R.ack_last_sent_time = p.sent_time;
  R.ack_last_rx = net_.now();
  R.ack_last_hops = p.hops;
  R.ack_pending_bytes += p.size;
  ++R.ack_pending;
  if (p.ecn())
    ++R.ack_pending_ecn;
  else if (p_.ack_carry_evs && R.carry_n < net::kMaxCarriedEvs)
    R.carry_ev[R.carry_n++] = static_cast<std::uint16_t>(p.ev);
  if (R.ack_pending >= p_.ack_every || newly_complete || f.finished) {
    send_ack(f, R, p.dst, p.src);
  } else if (!R.ack_flush_armed) {
    R.ack_flush_armed = true;
    net_.events().push(net_.now() + p_.ack_delay, net::kEvAckFlush, f.id);
  }
  if (newly_complete) {
    R.received.release();  // every PSN is held: received_word() answers
    complete(f.id);
  }
}

FlowLive& Transport::receiver(FlowState& f) {
  if (f.live) return *f.live;
  // Released: every PSN is held and no ACK is pending (a finished receiver ACKs every arrival).
  scratch_ = FlowLive{};
  scratch_.rcv_cum = f.npkts;
  return scratch_;
}

std::uint64_t Transport::received_word(const FlowState& f, std::uint32_t w) const {
  if (f.live && !f.finished) return f.live->received.word(w);
  // Freed on completion: the PSNs of word w below npkts are all held.
  const std::uint32_t in_word = f.npkts - std::min(f.npkts, w * 64);
  return in_word >= 64 ? ~0ULL : (1ULL << in_word) - 1;
}

void Transport::mark_acked(FlowState& f, std::uint32_t psn, Bytes& acked_bytes, std::uint32_t& newly) {
  auto& ring = f.live->sent;
  if (psn < ring.lo()) return;  // below the ring: acknowledged
  std::uint64_t& w = ring.word_ref(psn);
  const std::uint64_t bit = 1ULL << (psn & 63);
  if (w & bit) return;
  w |= bit;
  const Bytes b = packet_bytes(f, psn);
  PsnEntry& e = ring.entry(psn);
  if (e.state() == PsnState::InFlight) f.live->inflight -= b;
  e.set_state(PsnState::Acked);
  ++f.live->acked;
  ++newly;
  acked_bytes += b;
}

void Transport::on_ack(std::uint32_t pkt) {
  const Packet& a = net_.pkt(pkt);
  const net::AckFields& ax = net_.packets().ack(pkt);
  auto& f = at(a.flow);
  if (a.flags & net::kFlagProbe) {
    on_probe_ack(f, a, ax);
    return;
  }
  if (f.sender_done) return;
  const SimTime now = net_.now();
  Bytes acked_bytes = 0;
  std::uint32_t newly = 0;
  // Selective part: the 64-PSN word holding a.psn.
  const std::uint32_t base = a.psn & ~63u;
  std::uint64_t fresh = ax.sack & ~f.live->sent.word(base >> 6);
  while (fresh) {
    const int b = std::countr_zero(fresh);
    fresh &= fresh - 1;
    mark_acked(f, base + static_cast<std::uint32_t>(b), acked_bytes, newly);
  }
  // Cumulative part.
  while (f.live->snd_cum < a.cum_ack) mark_acked(f, f.live->snd_cum++, acked_bytes, newly);
  while (f.live->snd_cum < f.npkts && f.live->sent.test(f.live->snd_cum)) ++f.live->snd_cum;
  f.live->sent.advance(f.live->snd_cum);

  Bytes marked = 0;
  if (a.ecn()) {
    ++f.n.ecn_acks;
    // With coalescing, the share of the covered packets that were marked.
    marked = newly <= 1 ? acked_bytes : acked_bytes * std::min<Bytes>(a.ecn_count, newly) / newly;
  }
  f.live->cc->on_ack(acked_bytes, marked, now, now - a.sent_time);
  f.lb->on_rtt(now - a.sent_time, now);
  if (f.caps & lb::kCapAckDetail) {
    lb::AckDetail d;
    d.now = now;
    d.rtt = now - a.sent_time;
    d.ev = a.ev;
    d.psn = a.psn;
    d.hops = a.echo_hops;
    d.bytes = a.payload;
    d.tx_per_hop = net_.port(net_.nic_port(f.spec->src)).serialization(a.payload);
    d.inflight = f.live->inflight;
    d.ecn = a.ecn();
    d.sent = a.sent_time;
    d.one_way = a.carry_n ? 0 : ax.rx_time - a.sent_time;
    f.lb->on_ack_detail(d);
    if (f.caps & lb::kCapPaths) resend_lost(f);
  }
  if (a.carry_n) {  // ACK + Carry EVs: every non-ECN EV the coalesced ACK covers
    for (std::uint32_t k = 0; k < a.carry_n; ++k) f.lb->on_feedback(ax.carry_ev[k], lb::Feedback::Ack, now);
  } else {
    f.lb->on_feedback(a.ev, a.ecn() ? lb::Feedback::AckEcn : lb::Feedback::Ack, now);
  }
  if (f.live->acked == f.npkts) {
    sender_finished(f);
  } else {
    refresh(f);
    if (f.park & kParkHold) unpark(f, kParkHold);
    net_.kick_nic(f.spec->src);
  }
}

void Transport::on_nack(std::uint32_t pkt) {
  const Packet& n = net_.pkt(pkt);
  auto& f = at(n.flow);
  if (f.sender_done) return;
  const SimTime now = net_.now();
  ++f.n.nacks;
  f.lb->on_feedback(n.ev, lb::Feedback::Nack, now);
  if (n.flags & net::kFlagGoBackN) {
    on_go_back_n(f, n);
  } else {
    const std::uint32_t psn = n.psn;
    // Only the NACK of the latest transmission triggers a retransmission (an older copy's NACK may
    // arrive after a timeout already resent it).
    if (PsnEntry* e = in_flight_from(*f.live, psn, n.sent_time)) {
      e->set_state(PsnState::Lost);
      f.live->inflight -= packet_bytes(f, psn);
      f.live->rtx.push_back(psn);
      f.live->cc->on_nack(now, packet_bytes(f, psn), f.live->inflight);
    }
  }
  if (f.sender_done) return;
  refresh(f);
  if (f.park & kParkHold) unpark(f, kParkHold);
  net_.kick_nic(f.spec->src);
}

void Transport::on_go_back_n(FlowState& f, const Packet& n) {
  const SimTime now = net_.now();
  // The NACK is also a cumulative ACK: the receiver holds every PSN below the one it expects.
  Bytes acked_bytes = 0;
  std::uint32_t newly = 0;
  while (f.live->snd_cum < n.cum_ack) mark_acked(f, f.live->snd_cum++, acked_bytes, newly);
  while (f.live->snd_cum < f.npkts && f.live->sent.test(f.live->snd_cum)) ++f.live->snd_cum;
  f.live->sent.advance(f.live->snd_cum);
  if (acked_bytes) f.live->cc->on_ack(acked_bytes, 0, now);
  if (f.live->acked == f.npkts) {
    sender_finished(f);
    return;
  }
  const std::uint32_t expected = n.psn;
  // One rewind per gap: a NACK caused by a packet sent before the last rewind is already answered
  // by it (the rewind resent everything from a PSN at or below this one).
  if (expected >= f.npkts || f.live->state_of(expected) == PsnState::Acked || n.sent_time < f.live->last_rewind) return;
  f.live->last_rewind = now;
  ++f.n.rewinds;
  // Go back N: everything from the expected PSN on is sent again, in order.
  f.live->rtx.clear();
  f.live->rtx_head = 0;
  for (std::uint32_t psn = expected; psn < f.live->next_new; ++psn) {
    PsnEntry& e = f.live->sent.entry(psn);
    if (e.state() == PsnState::InFlight) {
      e.set_state(PsnState::Lost);
      f.live->inflight -= packet_bytes(f, psn);
    }
    if (e.state() == PsnState::Lost) f.live->rtx.push_back(psn);
  }
  f.live->cc->on_nack(now, packet_bytes(f, expected), f.live->inflight);
}

void Transport::on_pause(std::uint32_t pkt) {
  const Packet& q = net_.pkt(pkt);
  auto& f = at(q.flow);
  const bool resume = q.flags & net::kFlagResume;
  if (q.flags & net::kFlagClassPause) {
    // PFC: the drained flow's switch pauses every data packet of the source NIC.
    if (resume) {
      if (f.class_paused) end_class_pause(f);
    } else if (!f.class_paused && !f.sender_done && f.started) {
      ++f.n.pauses;
      f.class_paused = true;
      f.live->class_since = net_.now();
      ++class_paused_[f.spec->src];
      ++class_pauses_;
      f.live->pause_deadline = net_.now() + p_.pause_timeout;
      net_.events().push(f.live->pause_deadline, net::kEvPauseTimeout, f.id);
    }
    return;
  }
  // FGFC: this flow only.
  if (resume) {
    if (f.park & kParkPause) unpark(f, kParkPause);
    return;
  }
  if (f.sender_done || !f.started || (f.park & kParkPause)) return;
  ++f.n.pauses;
  park(f, kParkPause);
  f.live->pause_deadline = net_.now() + p_.pause_timeout;
  net_.events().push(f.live->pause_deadline, net::kEvPauseTimeout, f.id);
}

void Transport::end_class_pause(FlowState& f) {
  f.class_paused = false;
  f.n.held += net_.now() - f.live->class_since;
  --class_pauses_;
  if (--class_paused_[f.spec->src] == 0) net_.kick_nic(f.spec->src);
}

void Transport::park(FlowState& f, std::uint8_t reason) {
  if (f.park == 0) {
    remove_active(f);
    f.live->parked_since = net_.now();
  }
  f.park |= reason;
}

void Transport::unpark(FlowState& f, std::uint8_t reason) {
  if (!(f.park & reason)) return;
  f.park &= static_cast<std::uint8_t>(~reason);
  if (f.park) return;
  f.n.held += net_.now() - f.live->parked_since;
  add_active(f);
  net_.kick_nic(f.spec->src);
}

void Transport::sender_finished(FlowState& f) {
  f.sender_done = true;
  f.sender_done_time = net_.now();
  --senders_pending_;
  // output.fct_at = "sender": the run goes on until the last sender has its final ACK.
  if (p_.wait_senders && senders_pending_ == 0 && all_done()) net_.stop();
  if (f.park) {
    f.n.held += net_.now() - f.live->parked_since;
    f.park = 0;
  } else {
    remove_active(f);
  }
  if (f.class_paused) end_class_pause(f);
  // Per-packet state is no longer needed (every sender path checks sender_done first); keep
  // counters and times only.
  std::vector<std::uint32_t>().swap(f.live->rtx);
  std::vector<std::pair<std::uint32_t, SimTime>>().swap(f.live->sendlog);
  f.live->sent.release();
  f.live->log_head = f.live->rtx_head = 0;
  f.live->cc.reset();
  // The load balancer goes too unless the run's summary reads it or it answers probes that may
  // still come back (lb::kCapPaths: on_probe_ack).
  // (A summary that folds policies one by one gets this one first: PolicyDone.)
  if (!(f.caps & lb::kCapPaths) && !(keep_ && keep_(*f.spec, f.id))) {
    if (done_ && f.lb) done_(*f.spec, f.id, f.lb->inner());
    f.lb.reset();
  }
  if (f.finished) release(f);
}

// The transfer is over at both ends: only the FlowState (what flows.csv reports) stays. Late packets
// of the flow (duplicates, probes) are answered from scratch_ (on_data).
void Transport::release(FlowState& f) {
  if (!f.live) return;
  f.live.reset();
  --live_;
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

void Transport::on_event(const Event& e) {
  if (e.kind != net::kEvEntryStart && !held(e.obj)) return;  // a timer of a released streamed entry
  switch (e.kind) {
    case net::kEvEntryStart:
      --timed_pending_;
      last_progress_ = net_.now();
      if (streaming()) admit_next();  // the next entry, shortly before its start
      begin(e.obj);
      break;
    case net::kEvRto: {
      auto& f = at(e.obj);
      if (f.live && f.live->rto_armed == e.time) on_rto(e.obj);  // otherwise a stale, superseded timer
      break;
    }
    case net::kEvComputeDone:
      --timed_pending_;
      last_progress_ = net_.now();
      complete(e.obj);
      break;
    case net::kEvAckFlush: {
      auto& f = at(e.obj);
      if (!f.live) break;  // over: nothing was pending (a finished receiver ACKs every arrival)
      f.live->ack_flush_armed = false;
      if (f.live->ack_pending) send_ack(f, *f.live, f.spec->dst, f.spec->src);
      break;
    }
    case net::kEvHoldWake: {
      auto& f = at(e.obj);
      if (f.live && f.live->hold_wake == e.time && (f.park & kParkHold)) {
        f.live->hold_wake = kTimeNever;
        unpark(f, kParkHold);
      }
      break;
    }
    case net::kEvPaceWake: {
      auto& f = at(e.obj);
      if (f.live && f.live->pace_wake == e.time) {
        f.live->pace_wake = kTimeNever;
        if (!f.sender_done) net_.kick_nic(f.spec->src);
      }
      break;
    }
    case net::kEvPauseTimeout: {
      // [Flowcut] sec. IV-A: no XON came (e.g. an ACK was lost and the switch never drained the
      // flow): the source resumes on its own; the switches keep routing it on its old path.
      auto& f = at(e.obj);
      if (!f.live || f.live->pause_deadline != e.time) break;
      f.live->pause_deadline = kTimeNever;
      if (f.park & kParkPause) {
        ++f.n.pause_timeouts;
        unpark(f, kParkPause);
      }
      if (f.class_paused) {
        ++f.n.pause_timeouts;
        end_class_pause(f);
      }
      break;
    }
    default:
      break;
  }
  if (streaming()) {
    try_release(e.obj);
    retire_done();
  }
}

}  // namespace lbsim::transport
