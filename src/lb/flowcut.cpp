#include "lb/flowcut.h"

#include <algorithm>

#include <fmt/core.h>

#include "core/error.h"
#include "lb/registry.h"

namespace lbsim::lb {

FlowcutParams flowcut_params(const config::Config& c) {
  FlowcutParams p;
  p.rtt_ratio = c.real("flowcut.rtt_ratio");
  p.alpha = c.real("flowcut.alpha");
  p.change_threshold = c.real("flowcut.change_threshold");
  p.reference = c.text("flowcut.reference") == "flow_min" ? FlowcutReference::FlowMin : FlowcutReference::HopMin;
  p.rehash = c.text("flowcut.nic_rehash") == "after_drain" ? FlowcutRehash::AfterDrain : FlowcutRehash::EveryFlowcut;
  p.pause = c.text("flowcut.pause") == "pfc" ? FlowcutPause::Pfc : FlowcutPause::Fgfc;
  p.pause_bytes = c.integer("flowcut.pause_bytes");
  p.select = c.text("flowcut.select");
  return p;
}

bool flowcut_sample(const FlowcutParams& p, MinRttTable& rmin, DrainState& s, SimTime rtt, int hops, SimTime tx) {
  if (p.reference == FlowcutReference::FlowMin) {
    // The authors' code: EWMA of the raw RTT against the flow's smallest RTT times the ratio.
    if (rtt < s.flow_min) s.flow_min = rtt;
    s.ewma = p.alpha * static_cast<double>(rtt) + (1 - p.alpha) * s.ewma;
    return s.ewma > p.rtt_ratio * static_cast<double>(s.flow_min);
  }
  // [Flowcut] sec. II-B: subtract the transmission time, keep the minimum per hop count, and compare
  // the measured RTT with that minimum plus this packet's transmission time.
  const SimTime r_min = rmin.update(hops, rtt - tx);
  const double ref = static_cast<double>(r_min + tx);
  const double norm = ref > 0 ? std::max(1.0, static_cast<double>(rtt) / ref) : 1.0;
  s.ewma = p.alpha * norm + (1 - p.alpha) * s.ewma;
  bool drain = s.ewma > p.rtt_ratio;
  if (s.have_last) {
    s.change = p.alpha * (norm - s.last) + (1 - p.alpha) * s.change;
    if (p.change_threshold > 0 && s.change > p.change_threshold) drain = true;
  }
  s.last = norm;
  s.have_last = true;
  return drain;
}

// --- NIC only ----------------------------------------------------------------------------------

FlowcutNicPolicy::FlowcutNicPolicy(PolicyContext ctx, const FlowcutParams& p, SimTime pause_timeout,
                                   std::shared_ptr<FlowcutNicShared> shared)
    : ctx_(std::move(ctx)),
      p_(p),
      pause_timeout_(pause_timeout),
      shared_(std::move(shared)),
      ev_(static_cast<std::uint32_t>(ctx_.rng.below(ctx_.ev_space))),
      ds_(DrainState::initial(p.reference, ctx_.base_rtt)) {
  caps_ = kCapHold | kCapAckDetail;
}

void FlowcutNicPolicy::end_flowcut(SimTime now) {
  active_ = false;
  shared_->usage[static_cast<std::size_t>(ctx_.src)].change(-1, now);
  shared_->end = std::max(shared_->end, now);
}

SimTime FlowcutNicPolicy::hold(SimTime now, const SendView& v) {
  if (draining_) {
    if (v.inflight > 0) {
      // [Flowcut] sec. IV-A: a lost ACK would keep the flow paused forever; resume on the old
      // path when the drain takes longer than the pause timeout.
      if (now - drain_start_ < pause_timeout_) return drain_start_ + pause_timeout_;
      draining_ = false;
      ++drain_timeouts_;
      drain_time_ += now - drain_start_;
      return kSendNow;
    }
    draining_ = false;
    drained_ = true;
    drain_time_ += now - drain_start_;
  }
  if (active_ && v.inflight == 0) end_flowcut(now);  // everything acknowledged (or declared lost)
  if (!active_) {
    // A new flowcut: nothing of the flow is in flight, so a new path cannot reorder it (sec. II-A).
    // The NIC can only change the ECMP hash: a random new EV (sec. II-D).
    if (flowcuts_ > 0 && (p_.rehash == FlowcutRehash::EveryFlowcut || drained_))
      ev_ = static_cast<std::uint32_t>(ctx_.rng.below(ctx_.ev_space));
    if (p_.reference == FlowcutReference::HopMin) ds_ = DrainState::initial(p_.reference, ctx_.base_rtt);
    drained_ = false;
    active_ = true;
    ++flowcuts_;
    shared_->usage[static_cast<std::size_t>(ctx_.src)].change(+1, now);
    shared_->end = std::max(shared_->end, now);
  }
  return kSendNow;
}

void FlowcutNicPolicy::on_ack_detail(const AckDetail& a) {
  if (!active_) return;
  if (a.rtt > 0 && !draining_) {
    // p*h*t at the NIC's rate: the data packet's transmission time over the switches it crossed.
    const SimTime tx = a.tx_per_hop * a.hops;
    if (flowcut_sample(p_, shared_->rmin[static_cast<std::size_t>(ctx_.src)], ds_, a.rtt, a.hops, tx)) {
      draining_ = true;
      drain_start_ = a.now;
      ++drains_;
    }
  }
  if (a.inflight == 0) {
    // Everything acknowledged: the flowcut ends; a drain is complete (sec. II-B) and the next packet
    // starts a new flowcut on a new EV. Ending it here (not at the next send) also frees the entry of
    // a flow that has nothing left to send.
    if (draining_) {
      draining_ = false;
      drained_ = true;
      drain_time_ += a.now - drain_start_;
    }
    end_flowcut(a.now);
  }
}

namespace {
using namespace config;

std::vector<std::string> select_choices() { return {"auto", "least_loaded", "ugal"}; }

[[maybe_unused]] const bool declared = [] {
  declare({
      real("flowcut.rtt_ratio", 4.0, "x",
           "Flowcut: drain a flow when the EWMA of its normalised RTT exceeds this ([Flowcut] sec. II-B; 4 in sec. "
           "III-C2).")
          .range(1.0, 1e6),
      real("flowcut.alpha", 0.12, "", "Flowcut: EWMA weight of the newest normalised RTT (the authors' runs: 0.12).")
          .range(1e-6, 1.0),
      real("flowcut.change_threshold", 0.0, "",
           "Flowcut: drain when the EWMA of the change of the normalised RTT between ACKs exceeds this; 0 = off (sec. "
           "II-B gives no value).")
          .range(0, 1e6),
      text("flowcut.reference", "hop_min",
           "Flowcut: hop_min = normalise by the device's minimum RTT per hop count after subtracting p*h*t (sec. "
           "II-B); flow_min = the authors' code: raw-RTT EWMA against the flow's own minimum.")
          .one_of({"hop_min", "flow_min"}),
      text("flowcut.nic_rehash", "every_flowcut",
           "flowcut_nic: new EV for every new flowcut (a flow with nothing in flight, sec. II-A) or only after a drain "
           "(the authors' code).")
          .one_of({"every_flowcut", "after_drain"}),
      text("flowcut.pause", "fgfc",
           "flowcut_ingress/full: how the ingress switch pauses the source: fgfc = per-flow XOFF/XON frames, pfc = "
           "pause the source NIC's traffic class (sec. II-B).")
          .one_of({"fgfc", "pfc"}),
      bytes("flowcut.pause_bytes", 64,
            "flowcut_ingress/full: wire size of an XOFF/XON frame (a minimum Ethernet frame).")
          .range(1, 1 << 20),
      text("flowcut.select", "auto",
           "flowcut_ingress/full: output port of a new flowcut: least_loaded (up/down, least-loaded shortest-path "
           "port), ugal (UGAL-L at the source switch), auto = ugal on Dragonfly, else least_loaded (sec. II-A).")
          .one_of(&select_choices),
  });
  return true;
}();

const RegisterLb kFlowcutNic{{{"flowcut_nic",
                               "Flowcut, NIC only: one EV per flowcut; drain (hold) the flow when its RTT says "
                               "congestion, then a new random EV ([Flowcut] sec. II-D).",
                               {},
                               {}},
                              [](const Config& c, const PolicyContext& run) -> PolicyMaker {
                                const FlowcutParams p = flowcut_params(c);
                                const SimTime pause = c.real("transport.pause_timeout_us") > 0
                                                          ? from_us(c.real("transport.pause_timeout_us"))
                                                          : run.rto;
                                auto shared = std::make_shared<FlowcutNicShared>(run.hosts);
                                return [p, pause, shared](PolicyContext ctx) {
                                  return std::make_unique<FlowcutNicPolicy>(std::move(ctx), p, pause, shared);
                                };
                              },
                              "flowcut_nic",
                              [](const std::vector<const EntropyPolicy*>& ps) {
                                std::uint64_t flowcuts = 0, drains = 0, timeouts = 0;
                                double drain_us = 0;
                                const FlowcutNicShared* shared = nullptr;
                                for (const auto* e : ps) {
                                  const auto& f = static_cast<const FlowcutNicPolicy&>(*e);
                                  flowcuts += f.flowcuts();
                                  drains += f.drains();
                                  timeouts += f.drain_timeouts();
                                  drain_us += to_us(f.drain_time());
                                  shared = &f.shared();
                                }
                                nlohmann::json j = {{"variant", "nic"},
                                                    {"flowcuts", flowcuts},
                                                    {"drains", drains},
                                                    {"drain_timeouts", timeouts},
                                                    {"drain_us_total", drain_us},
                                                    {"entry_bytes", kFlowcutEntryBytes},
                                                    {"min_rtt_table_bytes", MinRttTable::bytes()}};
                                if (shared) {
                                  std::uint32_t peak = 0;
                                  double peak_sum = 0, mean_max = 0, mean_sum = 0;
                                  std::size_t n = 0;
                                  for (const auto& u : shared->usage) {
                                    if (u.peak == 0) continue;
                                    ++n;
                                    peak = std::max(peak, u.peak);
                                    peak_sum += u.peak;
                                    const double m = u.mean(shared->end);
                                    mean_max = std::max(mean_max, m);
                                    mean_sum += m;
                                  }
                                  const auto b = static_cast<double>(kFlowcutEntryBytes);
                                  j["memory"] = {{"devices", n},
                                                 {"peak_entries_max", peak},
                                                 {"peak_bytes_max", peak * kFlowcutEntryBytes},
                                                 {"peak_bytes_mean", n ? peak_sum * b / static_cast<double>(n) : 0.0},
                                                 {"mean_bytes_max", mean_max * b},
                                                 {"mean_bytes_mean", n ? mean_sum * b / static_cast<double>(n) : 0.0}};
                                }
                                return j;
                              }}};
}  // namespace

}  // namespace lbsim::lb
