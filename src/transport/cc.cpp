#include "transport/cc.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "transport/registry.h"

namespace lbsim::transport {

CongestionControl::CongestionControl(const CcParams& p) : p_(p), cwnd_(static_cast<double>(p.init_cwnd)) {
  period_ = p.quick_adapt_window == QaWindow::TargetRtt
                ? static_cast<SimTime>(std::llround(static_cast<double>(p.base_rtt) * p.quick_adapt_target_factor))
                : p.base_rtt;
  clamp();
}

void CongestionControl::clamp() {
  cwnd_ = std::clamp(cwnd_, static_cast<double>(p_.mtu), static_cast<double>(p_.max_cwnd));
}

void CongestionControl::roll_window(SimTime now) {
  if (period_ <= 0 || first_ack_ < 0) return;
  while (now - win_start_ >= period_) {
    acked_prev_ = acked_cur_;
    acked_cur_ = 0;
    win_start_ += period_;
    if (now - win_start_ >= period_) {  // a whole idle window passed
      acked_prev_ = 0;
      win_start_ = now - (now - win_start_) % period_;
    }
    // measured_rtt: the next window lasts the smoothed RTT measured so far.
    if (p_.quick_adapt_window == QaWindow::MeasuredRtt && srtt_ > 0)
      period_ = std::max<SimTime>(1, static_cast<SimTime>(std::llround(srtt_)));
  }
}

void CongestionControl::on_ack(Bytes acked, Bytes marked, SimTime now, SimTime rtt, std::uint32_t hops) {
  now_ = now;
  rtt_ = rtt;
  hops_ = hops;
  if (p_.quick_adapt_window == QaWindow::MeasuredRtt && rtt > 0)
    srtt_ = srtt_ < 0 ? static_cast<double>(rtt) : srtt_ + (static_cast<double>(rtt) - srtt_) / 8.0;
  if (first_ack_ < 0) {
    first_ack_ = now;
    win_start_ = now;
  }
  roll_window(now);
  acked_cur_ += acked;
  if (marked > 0) {
    clean_bytes_ = 0;
    if (!stale(acked)) ack_marked(acked, marked);
  } else if (acked > 0) {
    stale(acked);
    clean_bytes_ += acked;
    if (p_.fast_increase && static_cast<double>(clean_bytes_) >= cwnd_ && now >= p_.fast_increase_from)
      cwnd_ += p_.fast_increase_gain * static_cast<double>(acked);
    else
      ack_unmarked(acked);
  }
  clamp();
}

// Returns true when QuickAdapt handled (or deliberately ignored) the loss signal.
bool CongestionControl::quick_adapt(SimTime now, Bytes inflight) {
  if (!p_.quick_adapt) return false;
  if (first_ack_ < 0 || now - first_ack_ < period_) return false;  // no full window measured yet
  roll_window(now);
  if (now < qa_quiet_until_) return true;  // already adapted for this episode
  // Bytes delivered over the last window: the current partial window plus the overlapping share
  // of the previous one.
  const double frac_cur = period_ > 0 ? static_cast<double>(now - win_start_) / static_cast<double>(period_) : 1.0;
  const double delivered =
      static_cast<double>(acked_cur_) + static_cast<double>(acked_prev_) * std::max(0.0, 1.0 - frac_cur);
  // The gate: a mild episode (the flow still delivers more than max_cwnd / 2^gate per base RTT)
  // is left to the per-signal decrease.
  if (delivered >= std::ldexp(static_cast<double>(p_.max_cwnd), -p_.quick_adapt_gate)) return false;
  cwnd_ = std::min(cwnd_, delivered);
  to_ignore_ = inflight;
  ignored_ = 0;
  qa_quiet_until_ = now + period_;
  ++quick_adapts_;
  return true;
}

void CongestionControl::on_nack(SimTime now, Bytes bytes, Bytes inflight) {
  now_ = now;
  inflight_ = inflight;
  clean_bytes_ = 0;
  if (!stale(bytes) && !quick_adapt(now, inflight)) loss(p_.nack_decrease);
  clamp();
}

void CongestionControl::on_timeout(SimTime now, Bytes bytes, Bytes inflight) {
  now_ = now;
  inflight_ = inflight;
  clean_bytes_ = 0;
  if (!stale(bytes) && !quick_adapt(now, inflight)) timeout(p_.timeout_decrease);
  clamp();
}

namespace {

class DctcpPerAck final : public CongestionControl {
 public:
  using CongestionControl::CongestionControl;

 protected:
  void ack_unmarked(Bytes acked) override { cwnd_ += static_cast<double>(p_.mtu) * static_cast<double>(acked) / cwnd_; }
  void ack_marked(Bytes acked, Bytes marked) override {
    (void)acked;
    cwnd_ -= p_.ecn_decrease * static_cast<double>(marked);
  }
  void loss(double mtus) override { cwnd_ -= mtus * static_cast<double>(p_.mtu); }
};

class DctcpClassic final : public CongestionControl {
 public:
  using CongestionControl::CongestionControl;

 protected:
  void ack_unmarked(Bytes acked) override {
    cwnd_ += static_cast<double>(p_.mtu) * static_cast<double>(acked) / cwnd_;
    account(acked, 0);
  }
  void ack_marked(Bytes acked, Bytes marked) override { account(acked, marked); }
  void loss(double) override { cwnd_ /= 2.0; }

 private:
  // Once per window of acknowledged data: update alpha with the fraction of marked bytes, and cut
  // the window by alpha/2 if anything was marked.
  void account(Bytes acked, Bytes marked) {
    win_acked_ += acked;
    win_marked_ += marked;
    if (static_cast<double>(win_acked_) < win_target_) return;
    const double f = static_cast<double>(win_marked_) / static_cast<double>(win_acked_);
    alpha_ = (1.0 - p_.dctcp_g) * alpha_ + p_.dctcp_g * f;
    if (win_marked_ > 0) cwnd_ *= (1.0 - alpha_ / 2.0);
    win_acked_ = win_marked_ = 0;
    win_target_ = cwnd_;
  }
  double alpha_ = 1.0;
  Bytes win_acked_ = 0, win_marked_ = 0;
  double win_target_ = static_cast<double>(p_.init_cwnd);
};

class FixedWindow final : public CongestionControl {
 public:
  using CongestionControl::CongestionControl;

 protected:
  void ack_unmarked(Bytes) override {}
  void ack_marked(Bytes, Bytes) override {}
  void loss(double) override {}
};

using namespace config;
const RegisterCc kDctcpAck{
    {{"dctcp_ack",
      "Per-ACK DCTCP variant of MPRDMA and the REPS/Spritz evaluations ([REPS] sec. 4.1, [Spritz] sec. IV-C).",
      {real("transport.ecn_decrease", 0.5, "fraction of acked bytes", "dctcp_ack: window decrease per ECN-marked ACK.")
           .range(0, 100)},
      {}},
     [](const Config& c, CcParams& p) { p.ecn_decrease = c.real("transport.ecn_decrease"); },
     [](const CcParams& p) { return std::make_unique<DctcpPerAck>(p); }}};
const RegisterCc kDctcp{{{"dctcp",
                          "Classic DCTCP: alpha updated once per window, window cut by alpha/2 (Alizadeh et al.).",
                          {real("transport.dctcp_g", 0.0625, "", "dctcp: EWMA gain g of alpha.").range(0, 1)},
                          {}},
                         [](const Config& c, CcParams& p) { p.dctcp_g = c.real("transport.dctcp_g"); },
                         [](const CcParams& p) { return std::make_unique<DctcpClassic>(p); }}};
const RegisterCc kNone{{{"none", "A fixed window (init_cwnd): for analytic tests and open-loop studies.", {}, {}},
                        nullptr,
                        [](const CcParams& p) { return std::make_unique<FixedWindow>(p); }}};

}  // namespace

}  // namespace lbsim::transport
