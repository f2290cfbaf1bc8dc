// Swift's window rules ([Swift] sec. 3, Algorithm 1) and its keys; see swift.h.
#include "transport/swift.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "transport/registry.h"

namespace lbsim::transport {

Swift::Swift(const CcParams& p)
    : CongestionControl(p),
      s_(p.swift),
      base_target_(p.swift.base_target > 0 ? p.swift.base_target : p.base_rtt),
      max_w_(static_cast<double>(p.max_cwnd) / static_cast<double>(p.mtu)) {
  paced_ = true;
  // [Swift] sec. 3.5: alpha and beta of flow-based scaling, so that fs(fs_min_cwnd) = fs_range and
  // fs(fs_max_cwnd) = 0 (fs_range in seconds: a multiple of the base target).
  const double range = s_.fs_range * static_cast<double>(base_target_);
  fs_alpha_ = range / (1.0 / std::sqrt(s_.fs_min_cwnd) - 1.0 / std::sqrt(s_.fs_max_cwnd));
  fs_beta_ = -fs_alpha_ / std::sqrt(s_.fs_max_cwnd);
  set(static_cast<double>(p.init_cwnd) / static_cast<double>(p.mtu));
}

void Swift::set(double w) {
  w_ = std::clamp(w, s_.min_cwnd, std::max(s_.min_cwnd, max_w_));
  cwnd_ = std::max(w_, 1.0) * static_cast<double>(p_.mtu);  // below one packet: one packet, paced
}

SimTime Swift::target(std::uint32_t hops) const {
  const double range = s_.fs_range * static_cast<double>(base_target_);
  const double fs = std::clamp(fs_alpha_ / std::sqrt(w_) + fs_beta_, 0.0, range);  // [Swift] sec. 3.5
  return base_target_ + static_cast<SimTime>(hops) * s_.per_hop + static_cast<SimTime>(std::llround(fs));
}

// [Swift] Algorithm 1, on receiving an ACK.
void Swift::on_delay(Bytes acked) {
  retx_ = 0;
  if (rtt_ <= 0) {  // no sample (a go-back-N NACK's cumulative part): nothing to compare
    set(w_);
    return;
  }
  last_rtt_ = rtt_;
  const double n = static_cast<double>(acked) / static_cast<double>(p_.mtu);
  const SimTime tgt = target(hops_);
  if (rtt_ < tgt) {
    set(w_ >= 1.0 ? w_ + s_.ai * n / w_ : w_ + s_.ai * n);
  } else {
    const double d = static_cast<double>(rtt_);
    decrease_once(std::max(1.0 - s_.beta * (d - static_cast<double>(tgt)) / d, 1.0 - s_.max_mdf));
  }
}

void Swift::decrease_once(double factor) {
  if (!can_decrease()) {
    set(w_);
    return;
  }
  set(w_ * factor);
  last_decrease_ = now_;
  ++decreases_;
}

// A NACK: Swift's fast-recovery loss, at most one cut per RTT.
void Swift::loss(double) {
  retx_ = 0;
  decrease_once(1.0 - s_.max_mdf);
}

// A retransmission timeout: retx_reset in a row (RTO events, not packets: the packets one RTO walk
// declares lost count once) reset the window, else a cut at most once per RTT.
void Swift::timeout(double) {
  if (now_ != last_timeout_) {
    ++retx_;
    last_timeout_ = now_;
  }
  if (retx_ >= s_.retx_reset) {
    set(s_.min_cwnd);
    last_decrease_ = now_;
    ++decreases_;
  } else {
    decrease_once(1.0 - s_.max_mdf);
  }
}

// [Swift] sec. 3.3: below one packet of window, one packet per rtt / cwnd.
BitsPerSec Swift::rate(SimTime) {
  if (w_ >= 1.0 || line_ <= 0) return line_ > 0 ? line_ : 1;
  const double bits = static_cast<double>(p_.mtu) * 8.0 * w_;
  const double r = bits * 1e12 / static_cast<double>(rtt_now());
  return std::clamp<BitsPerSec>(std::llround(r), 1, line_);
}

namespace {
using namespace config;
const RegisterCc kSwift{
    {{"swift",
      "Swift: delay-based window with hop- and flow-scaled target delay, AI per RTT, MD bounded by max_mdf once per "
      "RTT, pacing below one packet of window ([Swift] sec. 3; docs/baselines.md).",
      {
          real("transport.swift_base_target_us", 0, "us",
               "swift: base target delay (an RTT); 0 = the run's base RTT (the unloaded RTT of its longest path).")
              .range(0, 1e9),
          real("transport.swift_per_hop_us", 1.0, "us",
               "swift: target delay added per switch the data packet crossed (topology scaling, [Swift] sec. 3.1).")
              .range(0, 1e9),
          real("transport.swift_fs_range", 5.0, "base targets",
               "swift: flow scaling's largest addition to the target, in base targets ([Swift] sec. 3.5).")
              .range(0, 1e6),
          real("transport.swift_fs_min_cwnd", 0.1, "packets",
               "swift: window at (and below) which flow scaling adds fs_range.")
              .range(1e-6, 1e9),
          real("transport.swift_fs_max_cwnd", 100, "packets",
               "swift: window at and above which flow scaling adds nothing.")
              .range(1e-6, 1e9),
          real("transport.swift_ai", 1.0, "packets", "swift: additive increase per RTT.").range(0, 1e6),
          real("transport.swift_beta", 0.8, "", "swift: multiplicative decrease factor beta.").range(0, 1),
          real("transport.swift_max_mdf", 0.5, "", "swift: largest fraction of the window one decrease removes.")
              .range(0, 1),
          real("transport.swift_min_cwnd", 0.001, "packets", "swift: smallest window (below 1: paced).")
              .range(1e-9, 1e6),
          integer("transport.swift_retx_reset", 5, "timeouts",
                  "swift: consecutive retransmission timeouts that reset the window to swift_min_cwnd.")
              .range(1, 1000000),
      },
      {}},
     [](const Config& c, CcParams& p) {
       SwiftParams& s = p.swift;
       s.base_target = from_us(c.real("transport.swift_base_target_us"));
       s.per_hop = from_us(c.real("transport.swift_per_hop_us"));
       s.fs_range = c.real("transport.swift_fs_range");
       s.fs_min_cwnd = c.real("transport.swift_fs_min_cwnd");
       s.fs_max_cwnd = c.real("transport.swift_fs_max_cwnd");
       s.ai = c.real("transport.swift_ai");
       s.beta = c.real("transport.swift_beta");
       s.max_mdf = c.real("transport.swift_max_mdf");
       s.min_cwnd = c.real("transport.swift_min_cwnd");
       s.retx_reset = static_cast<std::uint32_t>(c.integer("transport.swift_retx_reset"));
     },
     [](const CcParams& p) { return std::make_unique<Swift>(p); }}};

[[maybe_unused]] const bool checked = [] {
  declare_check([](const Config& c) {
    if (c.text("transport.cc") != "swift") return;
    if (c.real("transport.swift_fs_min_cwnd") >= c.real("transport.swift_fs_max_cwnd"))
      throw UserError(fmt::format("{}transport.swift_fs_min_cwnd ({}) must be below transport.swift_fs_max_cwnd ({})",
                                  c.where_any({"transport.swift_fs_min_cwnd", "transport.swift_fs_max_cwnd"}),
                                  c.real("transport.swift_fs_min_cwnd"), c.real("transport.swift_fs_max_cwnd")));
    // The SMaRTT options act on the byte window of the DCTCP-style controls; Swift keeps its own.
    for (const char* k : {"transport.quick_adapt", "transport.fast_increase"})
      if (c.flag(k))
        throw UserError(
            fmt::format("{}{} is a dctcp_ack / dctcp option; transport.cc = \"swift\" does not use it", c.where(k), k));
  });
  return true;
}();
}  // namespace

}  // namespace lbsim::transport
