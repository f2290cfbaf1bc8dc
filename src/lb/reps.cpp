#include "lb/reps.h"

#include <algorithm>
#include <bit>

#include "core/error.h"

namespace lbsim::lb {

RepsPolicy::RepsPolicy(PolicyContext ctx, const RepsParams& params)
    : ctx_(std::move(ctx)), p_(params) {
  if (p_.buffer_size == 0) throw UserError("lb.reps_buffer_size must be at least 1");
  buf_.resize(p_.buffer_size);
  if (p_.freezing_timeout <= 0) p_.freezing_timeout = ctx_.rto;
  reuse_uses_ = p_.ack_mode == RepsAckMode::Reuse ? std::max<std::uint32_t>(1, p_.reuse) : 1;
  // sec. 3.1: the first BDP worth of packets of a new connection explores.
  explore_ = ctx_.bdp_packets;
}

std::uint32_t RepsPolicy::ev_field_bits(std::uint32_t ev_space) {
  return ev_space <= 1 ? 1 : static_cast<std::uint32_t>(std::bit_width(ev_space - 1));
}

std::size_t RepsPolicy::state_bits() const {
  // Table 1: per element cachedEV + isValid; head 8, numberOfValidEVs 8, exitFreezingMode 32,
  // isFreezingMode 1, exploreCounter 8. 8 elements of 16+1 bits: 193 bits; 1 element: 74 bits.
  // In Reuse mode the validity bit becomes a use counter.
  const std::uint32_t valid_bits =
      reuse_uses_ <= 1 ? 1 : static_cast<std::uint32_t>(std::bit_width(reuse_uses_));
  return static_cast<std::size_t>(p_.buffer_size) * (ev_field_bits(ctx_.ev_space) + valid_bits) + 8 + 8 +
         32 + 1 + 8;
}

// Alg. 1 ONACK, lines 9-14 (the ECN check of l. 6 is done by the caller).
void RepsPolicy::cache(std::uint32_t ev, SimTime now) {
  Element& e = buf_[head_];
  if (!e.valid) ++valid_;
  if (!e.written) {
    e.written = true;
    ++written_;
  }
  e.ev = ev;
  e.valid = reuse_uses_;
  head_ = (head_ + 1) % p_.buffer_size;
  // l. 15-18: leave freezing mode once its time is up, and explore again.
  if (freezing_ && now > exit_freezing_) {
    freezing_ = false;
    explore_ = ctx_.bdp_packets;
  }
}

void RepsPolicy::on_feedback(std::uint32_t ev, Feedback kind, SimTime now) {
  switch (kind) {
    case Feedback::Ack: cache(ev, now); break;
    case Feedback::AckEcn: break;  // Alg. 1 l. 6-8: ECN-marked ACKs are not recycled
    case Feedback::Nack: break;    // a trimmed packet is congestion, not a failure (App. A)
    case Feedback::Timeout:
      if (is_failure(now)) {
        ++failures_;
        on_failure_detection(now);
      }
      break;
  }
}

// App. A: with trimming every congestion loss is NACKed, so a timeout means a failure. Without
// trimming, a timeout while the recent RTTs were low (no deep queues) is taken as a failure.
bool RepsPolicy::is_failure(SimTime now) const {
  if (ctx_.trimming) return true;
  const SimTime window = std::max<SimTime>(ctx_.rto, 1);
  const SimTime recent = now - rtt_window_start_ < 2 * window ? std::max(rtt_max_cur_, rtt_max_prev_) : 0;
  // No ACK at all recently says nothing about the paths (e.g. a sender starved by an incast whose
  // every packet was tail-dropped): only low RTTs that were actually measured point to a failure.
  if (recent == 0) return false;
  // Compared with the connection's own unloaded RTT (its smallest sample): the network-wide base
  // RTT would make every short (same-switch) path look uncongested.
  return static_cast<double>(recent) < p_.failure_rtt_factor * static_cast<double>(rtt_min_);
}

void RepsPolicy::on_rtt(SimTime rtt, SimTime now) {
  const SimTime window = std::max<SimTime>(ctx_.rto, 1);
  if (now - rtt_window_start_ >= window) {
    rtt_max_prev_ = now - rtt_window_start_ < 2 * window ? rtt_max_cur_ : 0;
    rtt_max_cur_ = 0;
    rtt_window_start_ = now;
  }
  rtt_max_cur_ = std::max(rtt_max_cur_, rtt);
  if (rtt > 0 && (rtt_min_ == 0 || rtt < rtt_min_)) rtt_min_ = rtt;
}

// Alg. 1 ONFAILUREDETECTION.
void RepsPolicy::on_failure_detection(SimTime now) {
  if (!p_.freezing) return;  // App. C.4: REPS without freezing mode
  if (!freezing_ && explore_ == 0) {
    freezing_ = true;
    exit_freezing_ = now + p_.freezing_timeout;
    ++freeze_entries_;
    if (first_freeze_ < 0) first_freeze_ = now;
  }
}

// Alg. 2 GETNEXTEV.
std::uint32_t RepsPolicy::get_next_ev() {
  std::uint32_t offset;
  const std::uint32_t n = p_.buffer_size;
  if (valid_ > 0 && reuse_uses_ > 1) {
    // ACK + Reuse EVs (sec. 4.5.1): each cached EV serves `reuse` packets. Taking the oldest valid
    // element until it is used up would send `reuse` back-to-back packets down one path, so the
    // uses are spread round-robin over the valid elements instead.
    offset = reuse_cursor_ % n;
    while (!buf_[offset].valid) offset = (offset + 1) % n;
    reuse_cursor_ = (offset + 1) % n;
    if (--buf_[offset].valid == 0) --valid_;
  } else if (valid_ > 0) {
    offset = (head_ + n - valid_) % n;  // the oldest valid element
    buf_[offset].valid = 0;
    --valid_;
  } else {  // must be in freezing mode: reuse the cached EVs round-robin even though invalid
    offset = head_;
    head_ = (head_ + 1) % n;
    // A partly filled buffer: skip elements that never held an EV (hardware would hold a stale
    // value there; the simulator has none to give).
    for (std::uint32_t k = 0; k < n && !buf_[offset].written; ++k) {
      offset = head_;
      head_ = (head_ + 1) % n;
    }
  }
  return buf_[offset].ev;
}

// Alg. 2 ONSEND.
std::uint32_t RepsPolicy::next_ev(SimTime now) {
  // sec. 3.1: an idle connection counts as new and explores its first BDP again.
  if (p_.idle_timeout > 0 && last_send_ >= 0 && now - last_send_ > p_.idle_timeout)
    explore_ = std::max(explore_, ctx_.bdp_packets);
  last_send_ = now;
  if (explore_ > 0) {
    if (--explore_ % p_.buffer_size == 0) return random_ev();
  }
  if (buffer_empty() || (valid_ == 0 && !freezing_)) return random_ev();
  return get_next_ev();
}

}  // namespace lbsim::lb
