// UEC NSCC, the sender's network-signal congestion control (UEC 1.0 sec. 3.6.13); see nscc.h.
#include "transport/nscc.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "transport/registry.h"

namespace lbsim::transport {

namespace {
// The reference network the specification's gains are stated for: 100 Gb/s, 12 us base RTT.
constexpr double kRefRttPs = 12e6;
constexpr double kRefBdpBytes = 100e9 / 8 * 12e-6;
}  // namespace

Nscc::Nscc(const CcParams& p) : CongestionControl(p), q_(p.nscc), base_rtt_(p.base_rtt) {
  // Target queueing delay (UEC 1.0 sec. 3.6.13): 0.75 x the base RTT when the network trims, else
  // the base RTT.
  target_ = q_.target_qdelay > 0
                ? q_.target_qdelay
                : static_cast<SimTime>(std::llround(static_cast<double>(p.base_rtt) * (q_.trimming ? 0.75 : 1.0)));
  target_ = std::max<SimTime>(1, target_);
  adjust_period_ = q_.adjust_period > 0 ? q_.adjust_period : std::max<SimTime>(1, p.base_rtt);
  paced_ = q_.pacing;
}

// Parameter scaling: the gains are stated for the reference network and scaled by the flow's BDP
// (a) and, for the proportional increase, by the target delay (b).
void Nscc::set_line_rate(BitsPerSec r) {
  line_ = static_cast<double>(r);
  const double bdp = line_ / 8 * static_cast<double>(p_.base_rtt) * 1e-12;
  const double a = bdp / kRefBdpBytes;
  const double b = static_cast<double>(target_) / kRefRttPs;
  const double mtu = static_cast<double>(p_.mtu);
  alpha_ = q_.alpha * mtu * a * b / static_cast<double>(target_);  // bytes per (acked byte x ps)
  fi_ = q_.fi * mtu * a;
  eta_ = q_.eta * mtu * a;
  fi_scale_ = q_.fi_scale * a;
}

// The window's rate over one base RTT, never above the line rate.
BitsPerSec Nscc::rate(SimTime) {
  if (base_rtt_ <= 0 || line_ <= 0) return std::max<BitsPerSec>(1, std::llround(line_));
  const double r = std::min(line_, cwnd_ * 8e12 / static_cast<double>(base_rtt_));
  return std::max<BitsPerSec>(1, std::llround(r));
}

void Nscc::ack(Bytes acked, bool ecn) {
  achieved_ += acked;
  received_ += acked;
  ignored_ += acked;
  double delay = avg_delay_;  // no RTT sample (a cumulative ACK of go-back-N): the average stands in
  if (rtt_ >= 0) {
    if (rtt_ < base_rtt_) base_rtt_ = rtt_;  // the base RTT is the smallest RTT seen
    delay = static_cast<double>(rtt_ - base_rtt_);
    avg_delay_ = q_.delay_alpha * delay + (1.0 - q_.delay_alpha) * avg_delay_;
  }
  // A window-limited sender has about a window in flight when QuickAdapt fires on an ACK.
  if (quick_adapt(false, ecn, delay, static_cast<Bytes>(cwnd_))) return;
  const double target = static_cast<double>(target_);
  if (!ecn) {
    if (delay >= target)
      fair_increase(acked);
    else
      proportional_increase(acked, delay);
  } else if (delay >= target) {
    multiplicative_decrease();
  } else {
    ++n_.noop;  // a mark with a short queue: no change (the load balancer may move the flow)
  }
  clamp();
  if (static_cast<double>(received_) > q_.adjust_bytes * static_cast<double>(p_.mtu) ||
      now_ - last_adjust_ > adjust_period_)
    adjust();
}

// QuickAdapt (UEC 1.0 sec. 3.6.13): once per base_rtt + target_qdelay, if a loss or a very large
// delay was seen and the flow delivered less than max_cwnd / 2^qa_gate over that period, the window
// becomes what it delivered. Returns true when the signal was consumed (adapted, or stale feedback).
bool Nscc::quick_adapt(bool loss, bool ecn, double delay, Bytes inflight) {
  if (!q_.quick_adapt) return false;
  bool done = false;
  if (ignored_ < to_ignore_ && ecn) {
    done = true;  // congestion feedback of bytes sent before the last QuickAdapt: already accounted
  } else if (now_ > qa_end_) {
    const bool severe = trigger_qa_ || loss || delay > q_.qa_threshold * static_cast<double>(target_);
    if (qa_end_ != 0 && severe && achieved_ < (p_.max_cwnd >> q_.qa_gate)) {
      cwnd_ = std::max<double>(static_cast<double>(achieved_), static_cast<double>(p_.mtu));
      to_ignore_ = inflight;
      ignored_ = 0;
      trigger_qa_ = false;
      ++n_.quick_adapts;
      done = true;
    }
    achieved_ = 0;
    qa_end_ = now_ + base_rtt_ + target_;
  }
  if (done) {
    inc_ = 0;
    received_ = 0;
  }
  return done;
}

// Fair increase: the same fi' bytes per RTT for every flow, whatever its window (inc / cwnd summed
// over a window of ACKs).
void Nscc::fair_increase(Bytes acked) {
  inc_ += fi_ * static_cast<double>(acked);
  ++n_.fair;
}

// Proportional increase: the further the delay below the target, the faster the growth.
void Nscc::proportional_increase(Bytes acked, double delay) {
  if (fast_increase(acked, delay)) return;
  inc_ += alpha_ * static_cast<double>(acked) * (static_cast<double>(target_) - delay);
  ++n_.proportional;
}

// Fast increase: a whole window acknowledged with (almost) no queueing: grow per ACK.
bool Nscc::fast_increase(Bytes acked, double delay) {
  if (q_.fast_increase_delay > 0 && delay < static_cast<double>(q_.fast_increase_delay)) {
    fi_count_ += acked;
    if (static_cast<double>(fi_count_) > cwnd_ || increasing_) {
      cwnd_ += fi_scale_ * static_cast<double>(acked);
      increasing_ = true;
      ++n_.fast;
      return true;
    }
  } else {
    fi_count_ = 0;
  }
  increasing_ = false;
  return false;
}

// Multiplicative decrease, at most once per base RTT, in proportion to how far the average delay
// is above the target.
void Nscc::multiplicative_decrease() {
  increasing_ = false;
  fi_count_ = 0;
  if (avg_delay_ <= static_cast<double>(target_)) return;
  if (last_dec_ >= 0 && now_ - last_dec_ <= base_rtt_) return;
  const double cut = q_.gamma * (avg_delay_ - static_cast<double>(target_)) / avg_delay_;
  cwnd_ *= std::max(1.0 - cut, 1.0 - q_.max_md_jump);
  last_dec_ = now_;
  ++n_.decreases;
}

// The accumulated increases, applied once per adjust_bytes acknowledged or base RTT; eta' once per
// adjust_period.
void Nscc::adjust() {
  cwnd_ += inc_ / cwnd_;
  if (now_ - last_adjust_ >= adjust_period_) {
    cwnd_ += eta_;
    last_adjust_ = now_;
  }
  inc_ = 0;
  received_ = 0;
}

// A NACK (trimmed packet) or a timeout: a full queue, so the delay sample taken is one base RTT
// (the UEC htsim's estimate of the trimming threshold); QuickAdapt may act, else the window loses
// the configured MTUs (transport.nack_decrease / timeout_decrease; 1 = the lost packet).
void Nscc::loss(double mtus) {
  const double mtu = static_cast<double>(p_.mtu);
  ignored_ += static_cast<Bytes>(mtus * mtu);
  avg_delay_ = q_.delay_alpha * static_cast<double>(p_.base_rtt) + (1.0 - q_.delay_alpha) * avg_delay_;
  trigger_qa_ = true;
  if (quick_adapt(true, true, 0, inflight_)) return;
  cwnd_ -= mtus * mtu;
}

namespace {
using namespace config;
const RegisterCc kNscc{
    {{"nscc",
      "UEC NSCC: window from ECN and queueing delay against a target delay, with QuickAdapt and pacing (UEC 1.0 "
      "sec. 3.6.13; docs/nscc.md).",
      {
          real("transport.nscc_target_qdelay_us", 0, "us",
               "nscc: target queueing delay target_qdelay; 0 = 0.75 x the base RTT when the network trims, else the "
               "base RTT.")
              .range(0, 1e9),
          real("transport.nscc_gamma", 0.8, "", "nscc: multiplicative decrease gain gamma.").range(0, 1),
          real("transport.nscc_max_md_jump", 0.5, "",
               "nscc: the largest fraction of the window one multiplicative decrease removes.")
              .range(0, 1),
          real("transport.nscc_alpha", 4.0, "MTUs",
               "nscc: proportional increase per RTT at zero delay, at the reference network (x a x b).")
              .range(0, 1e6),
          real("transport.nscc_fi", 5.0, "MTUs", "nscc: fair increase per RTT at the reference network (x a).")
              .range(0, 1e6),
          real("transport.nscc_eta", 0.15, "MTUs",
               "nscc: additive increase per adjustment period at the reference network (x a).")
              .range(0, 1e6),
          real("transport.nscc_fi_scale", 0.25, "",
               "nscc: fast increase, window growth per acknowledged byte at the reference network (x a).")
              .range(0, 100),
          real("transport.nscc_fast_increase_delay_us", 1.0, "us",
               "nscc: fast increase after a window of ACKs with a queueing delay below this; 0 = no fast increase.")
              .range(0, 1e9),
          real("transport.nscc_delay_alpha", 0.0125, "", "nscc: EWMA gain of the average queueing delay.")
              .range(1e-9, 1),
          flag("transport.nscc_quick_adapt", true,
               "nscc: QuickAdapt (the window becomes the bytes delivered in the last base_rtt + target_qdelay after a "
               "loss or a delay above nscc_qa_threshold x target)."),
          integer("transport.nscc_qa_gate", 3, "",
                  "nscc: QuickAdapt acts only when the bytes delivered are below max window / 2^gate.")
              .range(0, 30),
          real("transport.nscc_qa_threshold", 4.0, "target delays",
               "nscc: an ACK whose queueing delay exceeds this many target_qdelay triggers QuickAdapt.")
              .range(0, 1e6),
          real("transport.nscc_adjust_bytes_mtus", 8.0, "MTUs",
               "nscc: the accumulated increases are applied after this many acknowledged bytes (or a base RTT).")
              .range(0, 1e6),
          real("transport.nscc_adjust_period_us", 0, "us",
               "nscc: period of the eta increase and the longest time between adjustments; 0 = the base RTT.")
              .range(0, 1e9),
          flag("transport.nscc_pacing", true,
               "nscc: the NIC paces the flow at cwnd / base RTT (at most line rate); false = window only."),
      },
      {}},
     [](const Config& c, CcParams& p) {
       for (const char* k : {"transport.quick_adapt", "transport.fast_increase"})
         if (c.flag(k))
           throw UserError(
               fmt::format("{}{} = true with transport.cc = \"nscc\": NSCC has its own QuickAdapt and "
                           "fast increase (transport.nscc_quick_adapt, "
                           "transport.nscc_fast_increase_delay_us)",
                           c.where(k), k));
       NsccParams& n = p.nscc;
       n.target_qdelay = from_us(c.real("transport.nscc_target_qdelay_us"));
       n.trimming = c.flag("network.trimming") && c.text("network.flow_control") == "lossy";
       n.gamma = c.real("transport.nscc_gamma");
       n.max_md_jump = c.real("transport.nscc_max_md_jump");
       n.alpha = c.real("transport.nscc_alpha");
       n.fi = c.real("transport.nscc_fi");
       n.eta = c.real("transport.nscc_eta");
       n.fi_scale = c.real("transport.nscc_fi_scale");
       n.fast_increase_delay = from_us(c.real("transport.nscc_fast_increase_delay_us"));
       n.delay_alpha = c.real("transport.nscc_delay_alpha");
       n.quick_adapt = c.flag("transport.nscc_quick_adapt");
       n.qa_gate = static_cast<int>(c.integer("transport.nscc_qa_gate"));
       n.qa_threshold = c.real("transport.nscc_qa_threshold");
       n.adjust_bytes = c.real("transport.nscc_adjust_bytes_mtus");
       n.adjust_period = from_us(c.real("transport.nscc_adjust_period_us"));
       n.pacing = c.flag("transport.nscc_pacing");
     },
     [](const CcParams& p) { return std::make_unique<Nscc>(p); }}};
}  // namespace

}  // namespace lbsim::transport
