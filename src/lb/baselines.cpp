#include "lb/baselines.h"

#include <algorithm>

#include "core/error.h"

namespace lbsim::lb {

namespace {
std::uint32_t random_ev(PolicyContext& c) { return static_cast<std::uint32_t>(c.rng.below(c.ev_space)); }
}  // namespace

// --- PLB ---------------------------------------------------------------------------------------

PlbPolicy::PlbPolicy(PolicyContext ctx, const BaselineParams& p)
    : ctx_(std::move(ctx)), threshold_(p.plb_threshold), rounds_needed_(std::max<std::uint32_t>(1, p.plb_rounds)) {
  ev_ = random_ev(ctx_);
}

void PlbPolicy::repath() {
  ev_ = random_ev(ctx_);
  ++repaths_;
  congested_rounds_ = 0;
  acks_ = marked_ = 0;
}

void PlbPolicy::on_feedback(std::uint32_t, Feedback kind, SimTime now) {
  if (kind == Feedback::Timeout) {  // PLB repaths on an RTO
    repath();
    round_start_ = now;
    return;
  }
  if (kind == Feedback::Nack) return;
  if (round_start_ < 0) round_start_ = now;
  // A round is one base RTT of ACKs; it is judged when the first ACK after it arrives.
  if (now - round_start_ >= ctx_.base_rtt && acks_ > 0) {
    const double frac = static_cast<double>(marked_) / static_cast<double>(acks_);
    congested_rounds_ = frac >= threshold_ ? congested_rounds_ + 1 : 0;
    acks_ = marked_ = 0;
    round_start_ = now;
    if (congested_rounds_ >= rounds_needed_) repath();
  }
  ++acks_;
  if (kind == Feedback::AckEcn) ++marked_;
}

// --- Flowlet -----------------------------------------------------------------------------------

FlowletPolicy::FlowletPolicy(PolicyContext ctx, const BaselineParams& p)
    : ctx_(std::move(ctx)), timeout_(p.flowlet_timeout > 0 ? p.flowlet_timeout : ctx_.base_rtt / 2) {}

std::uint32_t FlowletPolicy::next_ev(SimTime now) {
  if (last_ < 0 || now - last_ > timeout_) {
    ev_ = random_ev(ctx_);
    ++flowlets_;
  }
  last_ = now;
  return ev_;
}

// --- MPRDMA ------------------------------------------------------------------------------------

void MprdmaPolicy::on_feedback(std::uint32_t ev, Feedback kind, SimTime) {
  if (kind == Feedback::Ack) {
    ev_ = ev;
    have_ = true;
  } else if (ev == ev_) {
    have_ = false;
  }
}

// --- MPTCP-like --------------------------------------------------------------------------------

MptcpPolicy::MptcpPolicy(PolicyContext ctx, const BaselineParams& p) : ctx_(std::move(ctx)) {
  const std::uint32_t n = std::max<std::uint32_t>(1, p.mptcp_subflows);
  for (std::uint32_t k = 0; k < n; ++k) evs_.push_back(random_ev(ctx_));
  stalled_until_.assign(n, 0);
}

std::uint32_t MptcpPolicy::next_ev(SimTime now) {
  const auto n = static_cast<std::uint32_t>(evs_.size());
  for (std::uint32_t k = 0; k < n; ++k) {
    const std::uint32_t s = (next_ + k) % n;
    if (stalled_until_[s] <= now) {
      next_ = (s + 1) % n;
      return evs_[s];
    }
  }
  // Every subflow stalled: keep striping (the transport must still make progress).
  const std::uint32_t s = next_;
  next_ = (next_ + 1) % n;
  return evs_[s];
}

void MptcpPolicy::on_feedback(std::uint32_t ev, Feedback kind, SimTime now) {
  if (kind != Feedback::Timeout) return;
  for (std::size_t s = 0; s < evs_.size(); ++s)
    if (evs_[s] == ev) stalled_until_[s] = now + ctx_.rto;
}

// --- Bitmap ------------------------------------------------------------------------------------

BitmapPolicy::BitmapPolicy(PolicyContext ctx, const BaselineParams& p) : ctx_(std::move(ctx)), p_(p) {
  const std::uint32_t n = std::clamp<std::uint32_t>(p.bitmap_evs, 1, ctx_.ev_space);
  pen_.assign(n, 0);
  base_ = random_ev(ctx_);
}

std::uint32_t BitmapPolicy::penalty(std::uint32_t ev) const {
  const std::uint32_t i = (ev + ctx_.ev_space - base_) % ctx_.ev_space;
  return i < pen_.size() ? pen_[i] : 0;
}

std::uint32_t BitmapPolicy::next_ev(SimTime) {
  const auto n = static_cast<std::uint32_t>(pen_.size());
  std::uint32_t i = 0;
  for (std::uint32_t tries = 0; tries < 4 * n; ++tries) {  // bounded: all penalized -> take the last
    i = static_cast<std::uint32_t>(ctx_.rng.below(n));
    if (pen_[i] == 0) break;
    --pen_[i];
  }
  return (base_ + i) % ctx_.ev_space;
}

void BitmapPolicy::on_feedback(std::uint32_t ev, Feedback kind, SimTime) {
  const std::uint32_t i = (ev + ctx_.ev_space - base_) % ctx_.ev_space;
  if (i >= pen_.size()) return;
  std::uint32_t add = 0;
  switch (kind) {
    case Feedback::Ack: return;
    case Feedback::AckEcn: add = p_.bitmap_ecn_penalty; break;
    case Feedback::Nack: add = p_.bitmap_nack_penalty; break;
    case Feedback::Timeout: add = p_.bitmap_timeout_penalty; break;
  }
  pen_[i] = static_cast<std::uint8_t>(std::min<std::uint32_t>(255, pen_[i] + add));
}

}  // namespace lbsim::lb
