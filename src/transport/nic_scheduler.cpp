// The NIC scheduler (docs/architecture.md "How a packet moves", step 2): Transport::pull_data, the
// round robin over a host's active flows that picks the next one to send, and the upkeep of the
// active lists and their ready bits (transport/nic_scheduler.h): a flow joins at its start or unpark,
// leaves when parked or done, and its bit is re-evaluated (refresh) after anything that changes its
// packets, window or bytes in flight. What a picked flow sends is the sender's (sender.cpp: send_data).
#include "transport/transport.h"

#include <algorithm>
#include <bit>

namespace lbsim::transport {

using net::kNil;

namespace {

// Drop the retransmit queue's stale head entries (PSNs acknowledged after being declared lost); an
// emptied queue is reset.
inline void drop_stale_rtx(FlowLive& L) {
  while (L.rtx_head < L.rtx.size() && L.state_of(L.rtx[L.rtx_head]) != PsnState::Lost) ++L.rtx_head;
  if (L.rtx_head == L.rtx.size() && L.rtx_head) {
    L.rtx.clear();
    L.rtx_head = 0;
  }
}

}  // namespace

// The host's NIC may send a data packet: the next flow in round-robin order that may send sends one
// (send_data), or kNil.
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
    for (std::uint32_t s = q.next_slot(pass == 0 ? start : 0); s < hi; s = q.next_slot(s + 1)) {
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
      return send_data(f, now);
    }
  }
  return kNil;
}

// Whether pull_data would act on the flow: a packet to send and a window that admits it, or a hold
// to ask about.
bool Transport::sendable(FlowState& f) const {
  auto& L = *f.live;
  drop_stale_rtx(L);  // as pull_data sees it
  std::uint32_t next = 0;
  if (!has_packet(f, next)) return false;
  return (f.caps & lb::kCapHold) || window_allows(f, next);
}

void Transport::refresh_slot(FlowState& f) {
  auto& q = hosts_[static_cast<std::size_t>(f.spec->src)];
  if (!q.bits) return;
  if (sendable(f))
    q.ready.set(f.live->slot);
  else
    q.ready.clear(f.live->slot);
}

// The flow joins its host's active list at the end (start, unpark); from kReadyFrom flows on the
// list keeps its ready bits.
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

// The flow leaves its host's active list (parked, sender done): its slot becomes a hole.
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

// The holes out of a host's list, the flows' order, slots and cursor kept.
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

}  // namespace lbsim::transport
