#include "lb/baselines.h"

#include <algorithm>

#include "core/error.h"
#include "lb/registry.h"

namespace lbsim::lb {

namespace {
std::uint32_t random_ev(PolicyContext& c) { return static_cast<std::uint32_t>(c.rng.below(c.ev_space)); }
}  // namespace

// --- PLB ---------------------------------------------------------------------------------------

PlbPolicy::PlbPolicy(PolicyContext ctx, const BaselineParams& p)
    : ctx_(std::move(ctx)),
      threshold_(p.plb_threshold),
      rounds_needed_(std::max<std::uint32_t>(1, p.plb_rounds)),
      idle_rounds_(p.plb_idle_rounds) {
  ev_ = random_ev(ctx_);
  if (idle_rounds_ > 0) caps_ |= kCapAckDetail;
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
    if (congested_rounds_ >= rounds_needed_ ||
        (idle_rounds_ > 0 && congested_rounds_ >= idle_rounds_ && inflight_ == 0))
      repath();
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
    case Feedback::Ack:
      return;
    case Feedback::AckEcn:
      add = p_.bitmap_ecn_penalty;
      break;
    case Feedback::Nack:
      add = p_.bitmap_nack_penalty;
      break;
    case Feedback::Timeout:
      add = p_.bitmap_timeout_penalty;
      break;
  }
  pen_[i] = static_cast<std::uint8_t>(std::min<std::uint32_t>(255, pen_[i] + add));
}

namespace {
using namespace config;

BaselineParams baseline_params(const Config& c) {
  BaselineParams p;
  p.plb_threshold = c.real("lb.plb_threshold");
  p.plb_rounds = static_cast<std::uint32_t>(c.integer("lb.plb_rounds"));
  p.plb_idle_rounds = static_cast<std::uint32_t>(c.integer("lb.plb_idle_rounds"));
  p.flowlet_timeout = from_us(c.real("lb.flowlet_timeout_us"));
  p.mptcp_subflows = static_cast<std::uint32_t>(c.integer("lb.mptcp_subflows"));
  p.bitmap_evs = static_cast<std::uint32_t>(c.integer("lb.bitmap_evs"));
  p.bitmap_ecn_penalty = static_cast<std::uint32_t>(c.integer("lb.bitmap_ecn_penalty"));
  p.bitmap_nack_penalty = static_cast<std::uint32_t>(c.integer("lb.bitmap_nack_penalty"));
  p.bitmap_timeout_penalty = static_cast<std::uint32_t>(c.integer("lb.bitmap_timeout_penalty"));
  return p;
}

// A baseline whose policy takes (context, BaselineParams).
template <class P>
std::function<PolicyMaker(const Config&, const PolicyContext&)> baseline_maker() {
  return [](const Config& c, const PolicyContext&) -> PolicyMaker {
    const BaselineParams p = baseline_params(c);
    return [p](PolicyContext ctx) { return std::make_unique<P>(std::move(ctx), p); };
  };
}

const RegisterLb kPlb{
    {{"plb",
      "PLB: re-hash to a new EV after consecutive congested rounds ([REPS] sec. 4.1; docs/reps.md).",
      {
          real("lb.plb_threshold", 0.25, "fraction of ACKs",
               "plb: a round (one base RTT) is congested when at least this fraction of its ACKs is ECN-marked.")
              .range(0, 1),
          integer("lb.plb_rounds", 1, "rounds",
                  "plb: repath after this many consecutive congested rounds ([REPS] 4.1: aggressive, FlowBender-like; "
                  "PLB / the LAPS artifact: 12, forced).")
              .range(1, 1000),
          integer("lb.plb_idle_rounds", 0, "rounds",
                  "plb: also repath after this many consecutive congested rounds when the round ends with nothing in "
                  "flight (Linux tcp_plb default 3; the LAPS paper sec. 4.2 describes its PLB repathing when congested "
                  "with nothing in flight); 0 = off.")
              .range(0, 1000),
      },
      {}},
     baseline_maker<PlbPolicy>()}};
const RegisterLb kFlowlet{
    {{"flowlet",
      "Flowlet switching at the sender: a new EV after an idle gap ([REPS] sec. 4.1).",
      {real("lb.flowlet_timeout_us", 0, "us",
            "flowlet: idle gap that starts a new flowlet on a new EV; 0 = half the base RTT ([REPS] 4.1).")
           .range(0, 1e12)},
      {}},
     baseline_maker<FlowletPolicy>()}};
const RegisterLb kMprdma{
    {{"mprdma",
      "MPRDMA-style: a new random EV for every packet whose ACK came back ECN-marked ([REPS] sec. 4.1); optional "
      "reordering cap lb.mprdma_delta.",
      {integer("lb.mprdma_delta", 0, "packets",
               "mprdma: reordering cap delta: send a new packet only while its PSN is < delta above the lowest "
               "unacknowledged PSN, else hold the flow until its next ACK (MP-RDMA; [Flowcut] sec. III-C); 0 = no cap.")
           .range(0, 1 << 24)},
      {}},
     [](const Config& c, const PolicyContext&) -> PolicyMaker {
       const auto delta = static_cast<std::uint32_t>(c.integer("lb.mprdma_delta"));
       return [delta](PolicyContext ctx) { return std::make_unique<MprdmaPolicy>(std::move(ctx), delta); };
     }}};
const RegisterLb kMptcp{{{"mptcp",
                          "MPTCP-like: packets spread over a fixed set of subflow EVs ([REPS] sec. 4.1).",
                          {integer("lb.mptcp_subflows", 8, "subflows",
                                   "mptcp: subflows per connection, each on its own fixed EV ([REPS] 4.1: 8).")
                               .range(1, 1024)},
                          {}},
                         baseline_maker<MptcpPolicy>()}};
const RegisterLb kBitmap{
    {{"bitmap",
      "Bitmap: per-EV penalty counters for ECN, NACKs and timeouts ([REPS] sec. 4.1).",
      {
          integer("lb.bitmap_evs", 256, "EVs", "bitmap: EVs per connection with a penalty counter.").range(1, 1 << 24),
          integer("lb.bitmap_ecn_penalty", 1, "draws", "bitmap: penalty added to an EV per ECN-marked ACK.")
              .range(0, 255),
          integer("lb.bitmap_nack_penalty", 4, "draws", "bitmap: penalty added to an EV per NACK.").range(0, 255),
          integer("lb.bitmap_timeout_penalty", 16, "draws", "bitmap: penalty added to an EV per timeout.")
              .range(0, 255),
      },
      {}},
     baseline_maker<BitmapPolicy>()}};
}  // namespace

}  // namespace lbsim::lb
