// Flowcut switching ([Flowcut] sec. II): the congestion detector that decides when a flow is
// drained (sec. II-B), shared by the NIC-only load balancer below (sec. II-D) and the switch
// variants (routing/flowcut.h, sec. II-C), and the NIC-only policy itself.
//
// Draining decision (sec. II-B), per device (a switch or a NIC) and per flowcut:
//   - an ACK gives the measured RTT r~ of one data packet of p bytes that crossed h switches;
//   - the device keeps, for every hop count h, r_min(h) = the smallest r~ - p*h*t it has seen (t =
//     the time per byte at the device's port rate), "globally stored and not for each flow";
//   - the normalised RTT is r~ / (r_min(h) + p*h*t), always >= 1;
//   - the flowcut keeps an EWMA r = alpha * norm + (1 - alpha) * r of the normalised RTTs and an EWMA
//     of the change norm - previous norm; r above the RTT ratio (default 4, sec. III-C2) or the change
//     EWMA above its threshold drains the flow.
// The per-flow state belongs to the flowcut entry (Table III counts it in the entry's bytes), so a
// new flowcut starts from r = 1 (the normalised RTT of an empty network) without a previous sample.
//
// The authors' simulator (the fat-tree build) uses a simpler rule, offered as
// `flowcut.reference = "flow_min"`: the EWMA of the raw RTT, started at the base RTT, against the
// flow's own smallest RTT (no hop normalisation, no change trigger). docs/flowcut.md compares them.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/config.h"
#include "core/time.h"
#include "lb/policy.h"

namespace lbsim::lb {

enum class FlowcutReference : std::uint8_t { HopMin, FlowMin };
// NIC-only: which new flowcuts get a new EV (a new ECMP hash). The paper: every flowcut (a flow with
// nothing in flight may take a new path); the authors' code: only the one after a drain.
enum class FlowcutRehash : std::uint8_t { EveryFlowcut, AfterDrain };
// How the ingress switch pauses the source (sec. II-B): FGFC, a per-flow XOFF/XON frame, or PFC,
// a pause of the whole traffic class of the source's NIC.
enum class FlowcutPause : std::uint8_t { Fgfc, Pfc };

struct FlowcutParams {
  double rtt_ratio = 4.0;         // drain when the EWMA of the normalised RTT exceeds this
  double alpha = 0.12;            // EWMA weight of the newest sample (authors' artifact: 0.12)
  double change_threshold = 0.0;  // drain when the EWMA of the change exceeds this; 0 = off
  FlowcutReference reference = FlowcutReference::HopMin;
  FlowcutRehash rehash = FlowcutRehash::EveryFlowcut;
  FlowcutPause pause = FlowcutPause::Fgfc;
  Bytes pause_bytes = 64;       // an FGFC / PFC frame on the wire (minimum Ethernet frame)
  std::string select = "auto";  // switch variants: the adaptive choice of a new flowcut
};

// The [flowcut] keys (declared in flowcut.cpp), read once per run.
FlowcutParams flowcut_params(const config::Config& c);

// Minimum RTT per hop count of one device ([Flowcut] sec. II-B: "a few extra bytes" per device).
class MinRttTable {
 public:
  static constexpr int kMaxHops = 16;  // data center diameters are below ten (sec. II-B); 4-bit counter (III-A1)
  MinRttTable() { min_.fill(kTimeNever); }
  // Records r~ - p*h*t for hop count h and returns r_min(h) (after the update).
  SimTime update(int hops, SimTime sample_minus_tx) {
    SimTime& m = min_[static_cast<std::size_t>(hops < kMaxHops ? hops : kMaxHops - 1)];
    if (sample_minus_tx < m) m = sample_minus_tx;
    return m;
  }
  SimTime get(int hops) const { return min_[static_cast<std::size_t>(hops < kMaxHops ? hops : kMaxHops - 1)]; }
  // 2 bytes per hop count (an RTT of up to 64 us at ns resolution, sec. III-A1).
  static constexpr std::size_t bytes() { return 2 * kMaxHops; }

 private:
  std::array<SimTime, kMaxHops> min_;
};

// The per-flowcut part of the detector (Table III: EWMA 2 B, last normalised RTT and change EWMA 4 B).
struct DrainState {
  double ewma = 1.0;              // EWMA of the normalised RTT (HopMin) or of the raw RTT in ps (FlowMin)
  double last = 0.0;              // previous normalised RTT
  double change = 0.0;            // EWMA of norm - last
  SimTime flow_min = kTimeNever;  // FlowMin: the flow's smallest RTT
  bool have_last = false;

  // HopMin: a new flowcut starts with the state of an empty path. FlowMin (the authors' code): the
  // raw-RTT EWMA and the minimum start at the base RTT once per flow and are never reset.
  static DrainState initial(FlowcutReference ref, SimTime base_rtt) {
    DrainState s;
    if (ref == FlowcutReference::FlowMin) {
      s.ewma = static_cast<double>(base_rtt);
      s.flow_min = base_rtt > 0 ? base_rtt : kTimeNever;
    }
    return s;
  }
};

// One ACK's sample: returns true when the flow must be drained. `rtt` = r~, `hops` = switches the
// data packet crossed, `tx` = p*h*t (its transmission time over those hops).
bool flowcut_sample(const FlowcutParams& p, MinRttTable& rmin, DrainState& s, SimTime rtt, int hops, SimTime tx);

// Memory accounting of one device's flowcut table: entries now, the peak, and the time integral
// (for the mean over the run).
struct TableUsage {
  std::uint32_t entries = 0, peak = 0;
  SimTime last = 0;
  double integral = 0;  // entries x ps
  void change(int delta, SimTime now) {
    integral += static_cast<double>(entries) * static_cast<double>(now - last);
    last = now;
    entries = static_cast<std::uint32_t>(static_cast<int>(entries) + delta);
    if (entries > peak) peak = entries;
  }
  double mean(SimTime end) const {
    const double total = integral + static_cast<double>(entries) * static_cast<double>(end - last);
    return end > 0 ? total / static_cast<double>(end) : 0.0;
  }
};

// Per-flow bytes of the Flowcut table (Table III): full switch 11, ingress only and NIC only 10 (no
// input port).
inline constexpr std::size_t kFlowcutEntryBytesFull = 11;
inline constexpr std::size_t kFlowcutEntryBytes = 10;

// State every NIC-only policy of one run shares: per host, the minimum-RTT table and the table usage.
struct FlowcutNicShared {
  std::vector<MinRttTable> rmin;
  std::vector<TableUsage> usage;
  SimTime end = 0;  // last time any policy saw (for the mean)
  explicit FlowcutNicShared(std::size_t hosts) : rmin(hosts), usage(hosts) {}
};

// NIC-only Flowcut ([Flowcut] sec. II-D, Table II "NIC only"): the source NIC keeps the flow on one EV
// (one ECMP hash, i.e. one path) while it has data in flight. When the ACKs say the path is congested
// it stops sending the flow (a hold, lb/policy.h) until every byte in flight is acknowledged, then
// starts a new flowcut on a new random EV ("congestion oblivious"). A flow with nothing in flight
// starts a new flowcut at its next packet (flowcut.nic_rehash). If the drain does not finish within
// the transport's pause timeout (lost ACKs, sec. IV-A) the flow resumes on its old EV.
class FlowcutNicPolicy final : public EntropyPolicy {
 public:
  FlowcutNicPolicy(PolicyContext ctx, const FlowcutParams& p, SimTime pause_timeout,
                   std::shared_ptr<FlowcutNicShared> shared);
  std::uint32_t next_ev(SimTime) override { return ev_; }
  SimTime hold(SimTime now, const SendView& v) override;
  void on_ack_detail(const AckDetail& a) override;
  std::size_t state_bits() const override { return kFlowcutEntryBytes * 8; }

  std::uint64_t flowcuts() const { return flowcuts_; }
  std::uint64_t drains() const { return drains_; }
  std::uint64_t drain_timeouts() const { return drain_timeouts_; }
  SimTime drain_time() const { return drain_time_; }
  bool draining() const { return draining_; }
  std::uint32_t ev() const { return ev_; }
  const FlowcutNicShared& shared() const { return *shared_; }

 private:
  void end_flowcut(SimTime now);
  PolicyContext ctx_;
  FlowcutParams p_;
  SimTime pause_timeout_;
  std::shared_ptr<FlowcutNicShared> shared_;
  std::uint32_t ev_;
  DrainState ds_;
  bool active_ = false;  // a flowcut is open (something was sent and not all of it acknowledged)
  bool draining_ = false;
  bool drained_ = false;  // the last flowcut ended by a drain (AfterDrain rehash)
  SimTime drain_start_ = 0;
  std::uint64_t flowcuts_ = 0, drains_ = 0, drain_timeouts_ = 0;
  SimTime drain_time_ = 0;
};

}  // namespace lbsim::lb
