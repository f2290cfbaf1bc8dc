// DCQCN reaction point ([DCQCN] sec. 3.1, the NIC model of the LAPS artifact); see dcqcn.h.
#include "transport/dcqcn.h"

#include <algorithm>
#include <cmath>

#include "transport/registry.h"

namespace lbsim::transport {

Dcqcn::Dcqcn(const CcParams& p) : CongestionControl(p), d_(p.dcqcn) {
  paced_ = true;
  // The window stays where the transport put it (init_cwnd, clamped to max_cwnd).
}

void Dcqcn::set_line_rate(BitsPerSec r) {
  line_ = static_cast<double>(r);
  rc_ = rt_ = line_;  // a flow starts at line rate ([DCQCN] sec. 3.1)
}

BitsPerSec Dcqcn::rate(SimTime now) {
  advance(now);
  return std::max<BitsPerSec>(1, std::llround(rc_));
}

// Alpha ticks at alpha_next_, alpha_next_ + interval, ... up to and including `upto`. The first one
// sees the CNP flag; the flag is cleared by it, so the rest are plain decays.
void Dcqcn::alpha_ticks(SimTime upto) {
  if (alpha_next_ > upto) return;
  const SimTime n = (upto - alpha_next_) / d_.alpha_interval + 1;  // ticks due
  alpha_ = (1.0 - d_.g) * alpha_ + (alpha_cnp_ ? d_.g : 0.0);      // [DCQCN] Eq. (2)
  alpha_cnp_ = false;
  if (n > 1) alpha_ *= std::pow(1.0 - d_.g, static_cast<double>(n - 1));
  alpha_next_ += n * d_.alpha_interval;
}

// [DCQCN] Eq. (1): RT = RC, RC = RC (1 - alpha / 2); the increase stages start again.
void Dcqcn::decrease(SimTime t) {
  if (d_.clamp_target || stage_ > 0) rt_ = rc_;
  rc_ = std::max(d_.min_rate, rc_ * (1.0 - alpha_ / 2.0));
  stage_ = 0;
  dec_cnp_ = false;
  rp_next_ = t + d_.rp_timer;
  ++decreases_;
}

// [DCQCN] Eq. (3)-(4) and Fig. 6: fast recovery, additive increase, hyper increase.
void Dcqcn::increase() {
  if (stage_ == d_.fast_recovery) {
    rt_ = std::min(line_, rt_ + d_.rate_ai);
  } else if (stage_ > d_.fast_recovery) {
    rt_ = std::min(line_, rt_ + d_.rate_hai);
  }
  rc_ = (rc_ + rt_) / 2.0;
  ++stage_;
}

void Dcqcn::advance(SimTime now) {
  if (!started_) return;
  for (;;) {
    const SimTime td = dec_cnp_ ? dec_next_ : kTimeNever;
    const SimTime t = std::min(rp_next_, td);
    if (t > now) break;
    alpha_ticks(t);
    if (rp_next_ <= td) {  // the increase timer was scheduled before the check due at the same time
      rp_next_ += d_.rp_timer;
      increase();
    } else {
      dec_next_ += d_.decrease_interval;
      decrease(t);
    }
  }
  alpha_ticks(now);
  // Decrease checks without a CNP to act on change nothing: move the grid past `now`.
  if (dec_next_ <= now) dec_next_ += ((now - dec_next_) / d_.decrease_interval + 1) * d_.decrease_interval;
}

void Dcqcn::cnp(SimTime now) {
  advance(now);
  if (d_.cnp_interval > 0 && last_cnp_ >= 0 && now - last_cnp_ < d_.cnp_interval) return;
  last_cnp_ = now;
  ++cnps_;
  alpha_cnp_ = true;
  dec_cnp_ = true;
  if (!started_) {
    started_ = true;
    alpha_ = 1.0;
    alpha_cnp_ = false;
    alpha_next_ = now + d_.alpha_interval;
    dec_next_ = now + d_.decrease_interval + 1000;  // + 1 ns: after the alpha tick of the same time
    rc_ = rt_ = d_.rate_on_first_cnp * rc_;
  }
}

namespace {
using namespace config;
const RegisterCc kDcqcn{
    {{"dcqcn",
      "DCQCN rate control with NIC pacing (Mellanox NIC model, timers only), as the LAPS artifact's baselines run "
      "([DCQCN] sec. 3; docs/baselines.md).",
      {
          real("transport.dcqcn_g", 1.0 / 256, "", "dcqcn: alpha EWMA gain g (artifact 1/256).").range(0, 1),
          real("transport.dcqcn_rate_ai_mbps", 5, "Mb/s",
               "dcqcn: additive increase of the target rate per increase tick (artifact 5).")
              .range(0, 1e7),
          real("transport.dcqcn_rate_hai_mbps", 50, "Mb/s",
               "dcqcn: hyper increase of the target rate per increase tick (artifact 50).")
              .range(0, 1e7),
          real("transport.dcqcn_min_rate_mbps", 100, "Mb/s", "dcqcn: lowest sending rate (artifact 100).")
              .range(1e-3, 1e7),
          real("transport.dcqcn_decrease_interval_us", 4, "us",
               "dcqcn: the rate is cut at most once per interval, at a check that finds a CNP since the last one "
               "(artifact 4).")
              .range(1e-3, 1e9),
          real("transport.dcqcn_rp_timer_us", 300, "us",
               "dcqcn: period of the rate-increase timer, restarted by every decrease (artifact 300; the DCQCN paper "
               "55).")
              .range(1e-3, 1e9),
          real("transport.dcqcn_alpha_interval_us", 1, "us",
               "dcqcn: period of the alpha update (artifact 1; the DCQCN paper 55).")
              .range(1e-3, 1e9),
          integer("transport.dcqcn_fast_recovery", 1, "ticks",
                  "dcqcn: increase ticks of fast recovery before additive increase (F; artifact 1, the DCQCN paper 5).")
              .range(0, 1000),
          flag("transport.dcqcn_clamp_target", false,
               "dcqcn: set the target rate to the current rate on every decrease (else only when the increase stage is "
               "> 0; artifact false)."),
          real("transport.dcqcn_rate_on_first_cnp", 1.0, "",
               "dcqcn: current and target rate on the first CNP, as a fraction of the current rate (artifact 1).")
              .range(1e-6, 1),
          real("transport.dcqcn_cnp_interval_us", 0, "us",
               "dcqcn: at most one CNP per interval per flow (the DCQCN paper's NP: 50); 0 = every ECN-echoing ACK is "
               "a CNP (artifact).")
              .range(0, 1e9),
      },
      {}},
     [](const Config& c, CcParams& p) {
       DcqcnParams& d = p.dcqcn;
       d.g = c.real("transport.dcqcn_g");
       d.rate_ai = c.real("transport.dcqcn_rate_ai_mbps") * 1e6;
       d.rate_hai = c.real("transport.dcqcn_rate_hai_mbps") * 1e6;
       d.min_rate = c.real("transport.dcqcn_min_rate_mbps") * 1e6;
       d.decrease_interval = std::max<SimTime>(1, from_us(c.real("transport.dcqcn_decrease_interval_us")));
       d.rp_timer = std::max<SimTime>(1, from_us(c.real("transport.dcqcn_rp_timer_us")));
       d.alpha_interval = std::max<SimTime>(1, from_us(c.real("transport.dcqcn_alpha_interval_us")));
       d.fast_recovery = static_cast<std::uint32_t>(c.integer("transport.dcqcn_fast_recovery"));
       d.clamp_target = c.flag("transport.dcqcn_clamp_target");
       d.rate_on_first_cnp = c.real("transport.dcqcn_rate_on_first_cnp");
       d.cnp_interval = from_us(c.real("transport.dcqcn_cnp_interval_us"));
     },
     [](const CcParams& p) { return std::make_unique<Dcqcn>(p); }}};
}  // namespace

}  // namespace lbsim::transport
