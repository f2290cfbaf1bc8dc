// HPCC's window rules ([HPCC] sec. 3, Algorithm 1) and its keys; see hpcc.h.
#include "transport/hpcc.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "transport/registry.h"

namespace lbsim::transport {

Hpcc::Hpcc(const CcParams& p)
    : CongestionControl(p), h_(p.hpcc), t_(static_cast<double>(p.hpcc.t > 0 ? p.hpcc.t : p.base_rtt)) {
  paced_ = true;
  // [HPCC] sec. 3: W_init = B x T (transport.init_cwnd_bdp = 1); Wc starts there too.
  w_ = wc_ = static_cast<double>(p.init_cwnd);
  wai_ = h_.wai_bytes;
  set(w_);
}

void Hpcc::set_line_rate(BitsPerSec r) {
  line_ = r;
  // The authors' run.py: rate AI 10 Mb/s per 25 Gb/s of line rate, W_AI = that rate x T; the paper's
  // W_init (1 - eta) / N with W_init = B x T and N = 125 flows.
  if (h_.wai_bytes <= 0) wai_ = static_cast<double>(r) / 2500.0 * t_ * 1e-12 / 8.0;
}

void Hpcc::set(double w) {
  w_ = std::clamp(w, std::max(wai_, 1.0), static_cast<double>(p_.max_cwnd));
  cwnd_ = std::max(w_, static_cast<double>(p_.mtu));  // below one packet: one packet, paced at W / T
}

// [HPCC] Algorithm 1, MeasureInflight.
bool Hpcc::measure(const net::IntStack& s) {
  double u = 0;
  double tau = 0;
  bool any = false;
  for (std::uint32_t i = 0; i < s.n && i < prev_.n; ++i) {
    const net::IntHop& a = s.hop[i];
    const net::IntHop& l = prev_.hop[i];
    // Another port at this hop (the packet took another path), or no time between the two records:
    // no rate sample from this hop.
    if (a.port != l.port || a.ts <= l.ts || a.rate <= 0) continue;
    const double dt = static_cast<double>(a.ts - l.ts);                        // ps
    const double b = static_cast<double>(a.rate) / 8.0 * 1e-12;                // bytes per ps
    const double tx_rate = static_cast<double>(a.tx_bytes - l.tx_bytes) / dt;  // bytes per ps
    const double up = static_cast<double>(std::min(a.qlen, l.qlen)) / (b * t_) + tx_rate / b;
    if (!any || up > u) {
      u = up;
      tau = dt;
    }
    any = true;
  }
  if (!any) return false;
  tau = std::min(tau, t_);
  u_ = (1.0 - tau / t_) * u_ + tau / t_ * u;
  return true;
}

// [HPCC] Algorithm 1, ComputeWind.
void Hpcc::compute_wind(bool update_wc) {
  double w;
  if (u_ >= h_.eta || inc_stage_ >= h_.max_stage) {
    w = wc_ / (u_ / h_.eta) + wai_;
    if (update_wc) inc_stage_ = 0;
  } else {
    w = wc_ + wai_;
    if (update_wc) ++inc_stage_;
  }
  set(w);
  if (update_wc) {
    wc_ = w_;
    ++updates_;
  }
}

// [HPCC] Algorithm 1, NewACK.
void Hpcc::on_int(const net::IntStack& s, SimTime sent, SimTime now) {
  if (!have_prev_) {  // the first ACK: its records are the reference of the next one
    prev_ = s;
    have_prev_ = true;
    last_update_ = now;
    return;
  }
  const bool update_wc = sent >= last_update_;  // a full RTT of feedback since the last update
  if (measure(s)) compute_wind(update_wc);
  if (update_wc) last_update_ = now;
  prev_ = s;
}

// The NIC paces at W / T ([HPCC] Algorithm 1, R = W / T), at most the line rate.
BitsPerSec Hpcc::rate(SimTime) {
  if (line_ <= 0) return 1;
  const double r = w_ * 8.0 * 1e12 / t_;
  return std::clamp<BitsPerSec>(std::llround(r), 1, line_);
}

namespace {
using namespace config;
const RegisterCc kHpcc{
    {{"hpcc",
      "HPCC: INT-driven window, U = EWMA of the most loaded hop's inflight bytes over B x T, multiplicative "
      "update to eta once per RTT or after max_stage additive steps ([HPCC] sec. 3, Algorithm 1; docs/hpcc.md).",
      {
          real("transport.hpcc_eta", 0.95, "", "hpcc: target utilisation eta of the most loaded link.")
              .range(0.01, 1.0),
          integer("transport.hpcc_max_stage", 5, "updates",
                  "hpcc: additive-increase stages (per-RTT Wc updates) before a multiplicative update (maxStage).")
              .range(0, 1000000),
          real("transport.hpcc_wai_bytes", 0, "bytes",
               "hpcc: additive increase W_AI per update; 0 = NIC line rate x T / 2500 (the authors' 10 Mb/s of rate "
               "increase per 25 Gb/s of line rate; the paper's W_init (1 - eta) / N with N = 125).")
              .range(0, 1e12),
          real("transport.hpcc_t_us", 0, "us",
               "hpcc: T, the base RTT of the window and the EWMA; 0 = the run's base RTT.")
              .range(0, 1e9),
          integer("transport.hpcc_int_hops", 5, "hops",
                  "hpcc: switch records the INT header has room for; every data packet and ACK carries 2 + 8 x this "
                  "many bytes more on the wire (the authors' fixed-size header: 5 hops, 42 bytes). A packet that "
                  "crosses more switches keeps the first ones' records.")
              .range(1, net::kIntMaxHops),
      },
      {}},
     [](const Config& c, CcParams& p) {
       HpccParams& h = p.hpcc;
       h.eta = c.real("transport.hpcc_eta");
       h.max_stage = static_cast<std::uint32_t>(c.integer("transport.hpcc_max_stage"));
       h.wai_bytes = c.real("transport.hpcc_wai_bytes");
       h.t = from_us(c.real("transport.hpcc_t_us"));
       h.int_hops = static_cast<std::uint32_t>(c.integer("transport.hpcc_int_hops"));
       p.uses_int = true;
     },
     [](const CcParams& p) { return std::make_unique<Hpcc>(p); }}};

[[maybe_unused]] const bool checked = [] {
  declare_check([](const Config& c) {
    if (c.text("transport.cc") != "hpcc") return;
    // The SMaRTT options act on the byte window of the DCTCP-style controls; HPCC keeps its own.
    for (const char* k : {"transport.quick_adapt", "transport.fast_increase"})
      if (c.flag(k))
        throw UserError(
            fmt::format("{}{} is a dctcp_ack / dctcp option; transport.cc = \"hpcc\" does not use it", c.where(k), k));
  });
  return true;
}();
}  // namespace

}  // namespace lbsim::transport
