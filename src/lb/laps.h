// LAPS: latency-aware softmax packet spraying with joint rate control ([LAPS] sec. 3).
//
// The sender keeps, per destination, a Path Search Table entry (PST: the candidate path ids) and a
// Path Information Table entry per path (PIT: valid, time, idleVal, realVal, anchors; Fig. 3). Here
// the PIT of a (source host, destination host) pair is shared by the flows of that pair, created on
// the pair's first flow; the path ids are the EVs that source_route routing maps to anchor lists.
//   sec. 3.4  every ACK refreshes PIT[pid] with the one-way latency (the receiver's arrival time
//             minus the data packet's send time, echoed in the ACK); a path not refreshed for more
//             than 2 x realVal is probed: time = now, realVal doubled and the path excluded until the
//             probe's answer (or another ACK of the path) refreshes it.
//   sec. 3.5  each data packet takes path i with probability Eq. 1 (softmax of -beta * d_i) over the
//             valid paths; d_i is realVal normalised by the pair's largest idle latency (the authors'
//             implementation; lb.laps_normalize = "us" uses microseconds).
//   sec. 3.6  AIMD on the flow's rate (LapsRate), paced at the NIC through hold(); a rate change
//             moves the pending send time to the last packet's size at the new rate (the authors'
//             code).
// lb.laps_sender = "artifact" is the sender of the authors' ns-3 runs (wany16/Laps-ns3 at 4a4be642,
// docs/laps.md "The artifact's sender"): not paced (its queue pair's rate is never set, so a packet's
// pacing gap is 0 ns); a rate change only shifts the next send time once, by the last packet's time at
// the new rate minus at the old; at most 2 x T x the NIC rate of payload in flight (T = the pair's
// largest "theoretical smallest latency"); the rate rule LapsRate::update_ns3; probing and spraying
// as ArtifactProbe below.
//   sec. 3.7  per-path ACK order: an ACK on a path declares every older unacknowledged transmission on
//             that path lost (PathLossDetector); the transport resends those at once, before new data.
#pragma once
#include <algorithm>
#include <cstdint>
#include <deque>
#include <memory>
#include <ostream>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lb/policy.h"

namespace lbsim::lb {

// Eq. 1: P(i) = exp(-beta d_i) / sum_j exp(-beta d_j) over the entries with valid[i] (all if
// `valid` is empty); invalid entries get 0. Computed relative to the smallest d (shift-invariant),
// so a large beta gives argmax (ties share) and never overflows.
std::vector<double> softmax_probabilities(const std::vector<double>& d, double beta,
                                          const std::vector<char>& valid = {});

// [LAPS] sec. 3.6 rate control. update() is called on every ACK with whether all valid paths are
// slower than T (the largest idle latency); at most one adjustment per 2T:
//   all slow:  expRate = curRate, curRate /= 2 (not below the minimum), the hyper phase ends;
//   otherwise: curRate += (expRate - curRate) / 2; after N consecutive increases the Hyper Rate
//              Increase phase begins, in which every increase first doubles expRate (up to the line
//              rate), and lasts until a decrease.
class LapsRate {
 public:
  LapsRate(double line_bps, double min_bps, int hyper_after);
  // -1 decreased, +1 increased, 0 not allowed yet (within 2T of the last adjustment).
  // `all_slow` was decided against T; `interval_T` (default T) spaces the adjustments 2 x interval_T apart.
  int update(SimTime now, bool all_slow, SimTime T, SimTime interval_T = -1);
  // The authors' code at 4a4be642 (lb.laps_rate_rule = "ns3"; wany16/Laps-ns3 rdma-hw.cc
  // UpdateRateForLaps, IncreaseRateForLaps, DecreaseRateForLaps): `all_slow` = every path of the pair
  // above T (its largest theoretical latency). Decrease (timer 2 x cur_max, the largest latency of the
  // pair's paths now): expRate = curRate, curRate halves (not below the minimum), the count restarts.
  // Increase (timer 2T): after more than N increases every increase first doubles expRate (the count is
  // not reset there), then curRate = max(curRate + 1 Gb/s, (curRate + expRate) / 2), at most the line
  // rate, expRate at least curRate. A timer allows an adjustment strictly after it expires.
  int update_ns3(SimTime now, bool all_slow, SimTime cur_max, SimTime T);
  // The same code at 0154ca8 (2025-01-23; lb.laps_rate_rule = "ns3_0154ca8"): both timers 2T; an
  // increase first doubles expRate and restarts the count when more than N increases have passed
  // since the last decrease or doubling; curRate = (curRate + expRate) / 2.
  int update_ns3_0154ca8(SimTime now, bool all_slow, SimTime T);
  double rate() const { return cur_; }
  double expected() const { return exp_; }
  bool hyper() const { return hyper_; }
  std::uint64_t decreases() const { return dec_; }
  std::uint64_t increases() const { return inc_total_; }
  std::uint64_t hyper_phases() const { return hyper_phases_; }

 private:
  double line_, min_, cur_, exp_;
  int n_;
  int consecutive_ = 0;
  bool hyper_ = false;
  SimTime last_ = -1;
  SimTime next_dec_ = 0, next_inc_ = 0;  // ns3 variant's timers
  std::uint64_t dec_ = 0, inc_total_ = 0, hyper_phases_ = 0;
};

// [LAPS] sec. 3.7: the unacknowledged transmissions per path in send order. Packets (and their ACKs,
// on the reverse path) of one path stay in order, so an ACK for (psn, sent) means every transmission
// sent before it on that path and not yet acknowledged was lost.
class PathLossDetector {
 public:
  explicit PathLossDetector(std::size_t paths) : q_(paths) {}
  void sent(std::uint32_t path, std::uint32_t psn, SimTime t) { q_[path].emplace_back(psn, t); }
  // Appends the lost (psn, sent) to `out`; an ACK of a transmission not in the list changes nothing.
  void acked(std::uint32_t path, std::uint32_t psn, SimTime t, std::vector<std::pair<std::uint32_t, SimTime>>& out);
  std::size_t outstanding(std::uint32_t path) const { return q_[path].size(); }

 private:
  std::vector<std::deque<std::pair<std::uint32_t, SimTime>>> q_;
};

enum class LapsSender : std::uint8_t { Paper, Artifact };
enum class LapsRateRule : std::uint8_t { Paper, Ns3, Ns3Early };

struct LapsParams {
  double beta = 1.0;
  bool normalize_max_base = true;  // d_i = realVal / largest idle latency; false: microseconds
  bool idle_measured = false;      // idleVal = smallest one-way latency seen on the path (else the model's)
  int hyper_after = 5;             // N
  double min_rate_bps = 1e8;
  bool probing = true;
  bool loss_detection = true;
  double clock_offset_us = 0;  // per-host clock offsets drawn uniformly in [-x, x]
  // lb.laps_rate_rule: paper (sec. 3.6), ns3 (the authors' code at 4a4be642: every path, pending or
  // not, against T = the pair's largest theoretical latency; LapsRate::update_ns3) or ns3_0154ca8 (at
  // 0154ca8: every path against its own theoretical latency, T = the largest of those;
  // LapsRate::update_ns3_0154ca8).
  LapsRateRule rate_rule = LapsRateRule::Paper;
  bool spray_all = false;       // lb.laps_spray_paths = "all": Eq. 1 over every path (the ns-3 code)
  bool probe_artifact = false;  // lb.laps_probe_rule = "artifact" (ArtifactProbe)
  bool header = true;           // lb.laps_header = "paper": the sec. 3.2 header's bytes on the wire
  LapsSender sender = LapsSender::Paper;
  // The artifact sender's window check: payload per full packet, its wire size, and the transport's
  // window (transport.cwnd_packets), which must not bind before LAPS's own.
  Bytes mtu = 1000, wire = 1048;
  std::int64_t transport_cwnd_packets = 0;
};

// The artifact's probing (wany16/Laps-ns3 rdma-smartflow-routing.cc CheckProbePathAmoungPitEntries,
// lb.laps_probe_rule = "artifact"), once per data packet after its path is chosen (and marked as sent
// on): a path is expired when not measured for more than 2 x the largest realVal of the pair's paths;
// an expired path is probed when nothing (data or probe) was sent on it for more than 2 x the largest
// realVal of the expired paths; one of those, drawn at random, gets a probe sent behind the data
// packet. realVal is not doubled and the path stays in Eq. 1.
struct ArtifactProbe {
  // Index of the path to probe, or -1. `time` = last measurement, `last_sent` = last packet on it.
  template <class Pit, class Pick>
  static std::int64_t choose(const Pit& pit, SimTime now, Pick&& pick) {
    SimTime max_all = 0;
    for (const auto& e : pit) max_all = std::max(max_all, e.real);
    SimTime max_expired = -1;
    for (const auto& e : pit)
      if (now - e.time > 2 * max_all) max_expired = std::max(max_expired, e.real);
    if (max_expired < 0) return -1;
    std::vector<std::uint32_t> ready;
    for (std::uint32_t i = 0; i < pit.size(); ++i)
      if (now - pit[i].time > 2 * max_all && now - pit[i].last_sent > 2 * max_expired) ready.push_back(i);
    if (ready.empty()) return -1;
    return ready[pick(ready.size())];
  }
};

// Bytes of LAPS's custom header ([LAPS] sec. 3.2) on a packet whose path has `anchors` anchor
// switches: Type (1 bit) + INT (16-bit pid, 48-bit time), 65 bits rounded up to 9 bytes, and SR: a
// 1-byte path length, a 1-byte node pointer and a 32-bit node ID per anchor. Two anchors give 19 B,
// the paper's "about 20 bytes per packet".
constexpr Bytes laps_header_bytes(std::uint32_t anchors) { return 9 + 2 + 4 * static_cast<Bytes>(anchors); }

// One ACK (or probe answer) as a LAPS sender saw it, with its rate decision (output.laps_trace,
// docs/outputs.md laps_trace.csv): for measuring the rate control of sec. 3.6 over time.
struct LapsTraceRow {
  SimTime now = 0, sent = 0;
  SimTime one_way = 0;    // as the network delivered it (arrival at the receiver - send time)
  SimTime read = 0;       // as LAPS read it (with the hosts' clock offsets)
  SimTime T = 0;          // the threshold of the decision
  SimTime min_valid = 0;  // the smallest realVal over the valid paths (-1: none valid)
  std::uint32_t flow = 0, path = 0;
  std::int32_t src = -1, dst = -1;
  Bytes bytes = 0;
  std::uint8_t valid = 0, slow = 0;  // valid paths, and those of them above T
  std::int8_t action = 0;            // LapsRate::update: -1 decrease, +1 increase, 0 none
  bool probe = false, hyper = false;
  double cur_bps = 0, exp_bps = 0;  // after the decision
};

struct PitEntry {
  bool pending = false;  // a probe is out: excluded from spraying ("valid" = !pending)
  bool measured = false;
  SimTime time = 0;       // latest measurement (or, paper rule, probe) time
  SimTime idle = 0;       // idleVal
  SimTime real = 0;       // realVal
  SimTime last_sent = 0;  // artifact probe rule: the last data packet or probe sent on the path
};

// Run-wide state of the plug-in: the PITs by host pair, the hosts' clock offsets, counters.
struct LapsShared {
  LapsParams p;
  std::unordered_map<std::uint64_t, std::vector<PitEntry>> pits;
  std::unordered_map<std::uint64_t, std::uint8_t> max_anchors;  // per pair, for the table sizes
  std::vector<SimTime> clock_offset;                            // per host
  std::uint64_t probes = 0, probe_answers = 0, path_losses = 0, flows = 0;
  std::uint64_t decreases = 0, increases = 0, hyper_phases = 0;
  bool trace = false;  // output.laps_trace
  std::vector<LapsTraceRow> trace_rows;
};

// laps_trace.csv (docs/outputs.md), rows in the order the ACKs arrived.
void write_laps_trace(std::ostream& os, const LapsShared& sh);

class LapsPolicy final : public EntropyPolicy {
 public:
  LapsPolicy(PolicyContext ctx, std::shared_ptr<LapsShared> shared);
  ~LapsPolicy() override;
  std::uint32_t next_ev(SimTime now) override;
  SimTime hold(SimTime now, const SendView& v) override;
  // The artifact sender's window in payload bytes (0 with the paper's sender).
  Bytes artifact_window() const { return window_; }
  void on_ack_detail(const AckDetail& a) override;
  void on_sent(std::uint32_t psn, std::uint32_t ev, SimTime now, Bytes bytes) override;
  bool take_probe(std::uint32_t& ev, SimTime now) override;
  void take_lost(std::vector<std::pair<std::uint32_t, SimTime>>& out) override;
  // The sec. 3.2 header of a packet on path `ev`, from the shared candidate set's anchors (0 with
  // lb.laps_header = "none").
  Bytes extra_header(std::uint32_t ev) const override {
    const auto& anchors = cand_->anchors;
    return sh_->p.header && ev < anchors.size() ? laps_header_bytes(anchors[ev]) : 0;
  }
  std::size_t state_bits() const override;
  const LapsShared& shared() const { return *sh_; }
  const LapsRate& rate() const { return rate_; }
  // The normalised latencies d_i and validity of the PIT entries, as Eq. 1 sees them now.
  void inputs(std::vector<double>& d, std::vector<char>& valid) const;
  SimTime largest_idle() const;

 private:
  void measure(std::uint32_t path, SimTime one_way, SimTime now);
  SimTime gap(double rate_bps) const;      // the last packet's time on the wire at rate_bps
  SimTime gap_ns3(double rate_bps) const;  // the same in whole ns, as the artifact's Time computes it
  void repace(double old_bps);             // curRate changed from old_bps: move the pending send time
  PolicyContext ctx_;
  std::shared_ptr<LapsShared> sh_;
  const CandidateSet* cand_;  // the candidate paths of the flow's switch pair (ctx_.pair_paths)
  std::vector<PitEntry>* pit_;
  SimTime model_T_ = 0;
  std::vector<SimTime> threshold_;  // ns3 rules: per path, the theoretical latency (idle + one packet per link)
  SimTime ns3_T_ = 0;               // the largest of those (the artifact's m_tgtDelayInNs)
  Bytes window_ = 0;                // artifact sender: 2 x ns3_T_ x the NIC rate, payload bytes
  LapsRate rate_;
  PathLossDetector loss_;
  SimTime next_send_ = 0;
  Bytes last_bytes_ = 0;  // size of the last data packet sent
  std::vector<std::uint32_t> probes_;
  std::vector<std::pair<std::uint32_t, SimTime>> lost_;
  std::vector<double> d_, w_;
  std::vector<char> valid_;
};

}  // namespace lbsim::lb
