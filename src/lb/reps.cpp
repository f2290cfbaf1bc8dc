#include "lb/reps.h"

#include <algorithm>
#include <bit>

#include "core/error.h"
#include "core/prefetch.h"
#include "lb/registry.h"

#include <fmt/core.h>

namespace lbsim::lb {

RepsPolicy::RepsPolicy(PolicyContext ctx, const RepsParams& params) : p_(params), ctx_(std::move(ctx)) {
  if (p_.buffer_size == 0) throw UserError("lb.reps_buffer_size must be at least 1");
  buf_.resize(p_.buffer_size);
  if (p_.freezing_timeout <= 0) p_.freezing_timeout = ctx_.rto;
  reuse_uses_ = p_.ack_mode == RepsAckMode::Reuse ? std::max<std::uint32_t>(1, p_.reuse) : 1;
  // sec. 3.1: the first BDP worth of packets of a new connection explores.
  explore_ = ctx_.bdp_packets;
  caps_ |= kCapPrefetch;
}

std::uint32_t RepsPolicy::ev_field_bits(std::uint32_t ev_space) {
  return ev_space <= 1 ? 1 : static_cast<std::uint32_t>(std::bit_width(ev_space - 1));
}

std::size_t RepsPolicy::state_bits() const {
  // Table 1: per element cachedEV + isValid; head 8, numberOfValidEVs 8, exitFreezingMode 32,
  // isFreezingMode 1, exploreCounter 8. 8 elements of 16+1 bits: 193 bits; 1 element: 74 bits.
  // In Reuse mode the validity bit becomes a use counter.
  const std::uint32_t valid_bits = reuse_uses_ <= 1 ? 1 : static_cast<std::uint32_t>(std::bit_width(reuse_uses_));
  return static_cast<std::size_t>(p_.buffer_size) * (ev_field_bits(ctx_.ev_space) + valid_bits) + 8 + 8 + 32 + 1 + 8;
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
    case Feedback::Ack:
      cache(ev, now);
      break;
    case Feedback::AckEcn:
      break;  // Alg. 1 l. 6-8: ECN-marked ACKs are not recycled
    case Feedback::Nack:
      break;  // a trimmed packet is congestion, not a failure (App. A)
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

// The object (a send reads its first two lines, an ACK the third, an exploring send the RNG in the
// context) and the circular buffer.
void RepsPolicy::prefetch() const {
  prefetch_range(this, sizeof(*this));
  prefetch_range(buf_.data(), buf_.size() * sizeof(Element));
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

namespace {
using namespace config;

RepsParams reps_params(const Config& c, const PolicyContext& run) {
  RepsParams p;
  p.buffer_size = static_cast<std::uint32_t>(c.integer("lb.reps_buffer_size"));
  p.freezing = c.flag("lb.reps_freezing");
  p.freezing_timeout =
      c.real("lb.reps_freezing_timeout_us") > 0 ? from_us(c.real("lb.reps_freezing_timeout_us")) : run.rto;
  p.idle_timeout = from_us(c.real("lb.reps_idle_us"));
  const auto& mode = c.text("lb.reps_ack_mode");
  p.ack_mode = mode == "carry" ? RepsAckMode::Carry : mode == "reuse" ? RepsAckMode::Reuse : RepsAckMode::Plain;
  p.reuse = static_cast<std::uint32_t>(c.integer("lb.reps_reuse") > 0 ? c.integer("lb.reps_reuse")
                                                                      : c.integer("transport.ack_every"));
  p.failure_rtt_factor = c.real("lb.reps_failure_rtt_factor");
  return p;
}

// summary.json "reps": per-connection state ([REPS] Table 1) and freezing-mode activity (sec. 3.2),
// folded connection by connection (lb::SummaryFold) so that a finished connection's state is freed.
class RepsFold final : public SummaryFold {
 public:
  void add(const EntropyPolicy& e) override {
    const auto* r = dynamic_cast<const RepsPolicy*>(&e);
    if (!r) return;
    ++flows_;
    bits_ = r->state_bits();  // the same for every connection of a run
    entries_ += r->freeze_entries();
    failures_ += r->failures_detected();
    if (r->freeze_entries()) ++frozen_;
    if (r->first_freeze_time() >= 0 && (first_ < 0 || r->first_freeze_time() < first_)) first_ = r->first_freeze_time();
  }
  std::unique_ptr<SummaryFold> clone() const override { return std::make_unique<RepsFold>(*this); }
  nlohmann::json json() const override {
    return {{"state_bits", bits_},
            {"state_bytes", (bits_ + 7) / 8},
            {"flows", flows_},
            {"failures_detected", failures_},
            {"freeze_entries", entries_},
            {"flows_frozen", frozen_},
            {"first_freeze_us", first_ < 0 ? nlohmann::json(nullptr) : nlohmann::json(to_us(first_))}};
  }

 private:
  std::uint64_t flows_ = 0, frozen_ = 0, entries_ = 0, failures_ = 0;
  std::size_t bits_ = 0;
  SimTime first_ = -1;
};

// ACK + Carry EVs ([REPS] sec. 4.5.1): the receivers' coalesced ACKs carry the non-ECN EVs they
// cover, and the transport feeds each back to the policy.
void reps_transport(const Config& c, TransportNeeds& n) {
  if (c.text("lb.reps_ack_mode") == "carry") n.ack_carry_evs = true;
}

nlohmann::json reps_summary(const std::vector<const EntropyPolicy*>& policies) {
  RepsFold fold;
  for (const auto* e : policies) fold.add(*e);
  return fold.json();
}

const RegisterLb kReps{
    {{"reps",
      "REPS: recycled entropies with freezing mode on failures ([REPS] Alg. 1-2, sec. 3).",
      {
          integer("lb.reps_buffer_size", 8, "EVs",
                  "REPS: circular buffer elements ([REPS] sec. 3.1: 8; Table 1 sizes the state for 1 and 8).")
              .range(1, 255),
          flag("lb.reps_freezing", true,
               "REPS: enter freezing mode on a detected failure ([REPS] sec. 3.2; off = App. C.4)."),
          real("lb.reps_freezing_timeout_us", 0, "us",
               "REPS: time in freezing mode before exploring again; 0 = the RTO.")
              .range(0, 1e12),
          real("lb.reps_idle_us", 0, "us",
               "REPS: a connection that sent nothing for this long counts as new and explores its first BDP again; 0 = "
               "never.")
              .range(0, 1e12),
          text("lb.reps_ack_mode", "plain",
               "REPS with ACK coalescing ([REPS] sec. 4.5.1): plain (the ACK's own EV), carry (ACK + Carry EVs: the "
               "ACK carries every non-ECN EV it covers, at most 8; needs ev_bits <= 16), reuse (ACK + Reuse EVs: each "
               "cached EV is used reps_reuse times).")
              .one_of({"plain", "carry", "reuse"}),
          integer("lb.reps_reuse", 0, "uses", "REPS reuse mode: uses per cached EV; 0 = transport.ack_every.")
              .range(0, 255),
          real("lb.reps_failure_rtt_factor", 2.0, "x min RTT",
               "REPS without trimming (App. A): a timeout is a failure when the ACKs of the preceding one to two RTOs "
               "had RTTs all below this multiple of the connection's smallest RTT (no recent ACK: not a failure).")
              .range(0, 1e6),
      },
      {}},
     [](const Config& c, const PolicyContext& run) -> PolicyMaker {
       const RepsParams p = reps_params(c, run);
       return [p](PolicyContext ctx) { return std::make_unique<RepsPolicy>(std::move(ctx), p); };
     },
     "reps",
     &reps_summary,
     [] { return std::unique_ptr<SummaryFold>(std::make_unique<RepsFold>()); },
     {},
     {},
     &reps_transport}};

[[maybe_unused]] const bool checked = [] {
  declare_check([](const Config& c) {
    if (c.text("lb.reps_ack_mode") == "carry" && c.integer("network.ev_bits") > 16)
      throw UserError(fmt::format("{}lb.reps_ack_mode = \"carry\" carries 16-bit EVs; network.ev_bits = {} is too wide",
                                  c.where_any({"lb.reps_ack_mode", "network.ev_bits"}), c.integer("network.ev_bits")));
  });
  return true;
}();
}  // namespace

}  // namespace lbsim::lb
