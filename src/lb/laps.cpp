#include "lb/laps.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <fmt/core.h>

#include "core/error.h"
#include "lb/registry.h"

namespace lbsim::lb {

std::vector<double> softmax_probabilities(const std::vector<double>& d, double beta, const std::vector<char>& valid) {
  std::vector<double> p(d.size(), 0.0);
  const auto ok = [&](std::size_t i) { return valid.empty() || valid[i]; };
  double lo = INFINITY;
  for (std::size_t i = 0; i < d.size(); ++i)
    if (ok(i)) lo = std::min(lo, d[i]);
  if (lo == INFINITY) return p;
  double sum = 0;
  for (std::size_t i = 0; i < d.size(); ++i)
    if (ok(i)) sum += p[i] = std::exp(-beta * (d[i] - lo));  // Eq. 1, shifted by the smallest d
  for (auto& x : p) x /= sum;
  return p;
}

LapsRate::LapsRate(double line_bps, double min_bps, int hyper_after)
    : line_(line_bps), min_(std::min(min_bps, line_bps)), cur_(line_bps), exp_(line_bps), n_(hyper_after) {}

// [LAPS] sec. 3.6.
int LapsRate::update(SimTime now, bool all_slow, SimTime T, SimTime interval_T) {
  if (interval_T < 0) interval_T = T;
  if (last_ >= 0 && now - last_ < 2 * interval_T) return 0;  // "only allowed once in 2T"
  last_ = now;
  if (all_slow) {
    exp_ = cur_;
    cur_ = std::max(min_, cur_ / 2);
    consecutive_ = 0;
    hyper_ = false;  // "Otherwise, HAI is terminated"
    ++dec_;
    return -1;
  }
  if (hyper_) exp_ = std::min(line_, exp_ * 2);  // HAI: expRate doubles
  cur_ = std::min(line_, cur_ + (exp_ - cur_) / 2);
  ++inc_total_;
  if (!hyper_ && ++consecutive_ >= n_) {  // "expRate will be doubled after N consecutive linear increases"
    hyper_ = true;
    ++hyper_phases_;
  }
  return 1;
}

// The authors' ns-3 code at 4a4be642 (rdma-hw.cc UpdateRateForLaps, IncreaseRateForLaps,
// DecreaseRateForLaps; the minimum rate is AddQueuePairForLaps's 1 Gb/s, lb.laps_min_rate_gbps here).
int LapsRate::update_ns3(SimTime now, bool all_slow, SimTime cur_max, SimTime T) {
  if (all_slow) {
    if (!(next_dec_ < now)) return 0;
    next_dec_ = now + 2 * cur_max;
    exp_ = std::max(min_, cur_);
    cur_ = std::max(min_, cur_ / 2);
    consecutive_ = 0;
    ++dec_;
    return -1;
  }
  if (!(next_inc_ < now)) return 0;
  if (consecutive_ > n_) {  // the reset of the count is commented out there: every further increase doubles
    if (consecutive_ == n_ + 1) ++hyper_phases_;
    exp_ = std::max(min_, std::min(line_, exp_ * 2));
  }
  constexpr double kStep = 1e9;  // IncreaseRateForLaps's tmp_minRate
  cur_ = std::min(line_, std::max(cur_ + kStep, (exp_ + cur_) / 2));
  exp_ = std::max(cur_, exp_);
  next_inc_ = now + 2 * T;
  ++consecutive_;
  ++inc_total_;
  return 1;
}

// The same functions at 0154ca8 (2025-01-23).
int LapsRate::update_ns3_0154ca8(SimTime now, bool all_slow, SimTime T) {
  if (all_slow) {
    if (now <= next_dec_) return 0;
    next_dec_ = now + 2 * T;
    exp_ = std::max(min_, cur_);
    cur_ = std::max(min_, cur_ / 2);
    consecutive_ = 0;
    ++dec_;
    return -1;
  }
  if (now <= next_inc_) return 0;
  next_inc_ = now + 2 * T;
  if (consecutive_ > n_) {
    exp_ = std::min(line_, exp_ * 2);
    consecutive_ = 0;
    ++hyper_phases_;
  }
  cur_ = std::min(line_, (cur_ + exp_) / 2);
  ++consecutive_;
  ++inc_total_;
  return 1;
}

void PathLossDetector::acked(std::uint32_t path, std::uint32_t psn, SimTime t,
                             std::vector<std::pair<std::uint32_t, SimTime>>& out) {
  auto& q = q_[path];
  const auto it = std::find(q.begin(), q.end(), std::make_pair(psn, t));
  if (it == q.end()) return;
  out.insert(out.end(), q.begin(), it);  // sent earlier on this path, never acknowledged: lost
  q.erase(q.begin(), it + 1);
}

namespace {
std::uint64_t host_pair(std::int32_t a, std::int32_t b) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) | static_cast<std::uint32_t>(b);
}
}  // namespace

LapsPolicy::LapsPolicy(PolicyContext ctx, std::shared_ptr<LapsShared> shared)
    : ctx_(std::move(ctx)),
      sh_(std::move(shared)),
      cand_(dynamic_cast<const CandidateSet*>(ctx_.pair_paths)),
      rate_(ctx_.host_rate_bps, sh_->p.min_rate_bps, sh_->p.hyper_after),
      loss_(cand_ ? cand_->base_latency.size() : 1) {
  if (!cand_ || cand_->base_latency.empty())
    throw UserError(
        "lb.algorithm = \"laps\" needs routing.algorithm = \"source_route\" (its candidate paths are the EVs)");
  caps_ = kCapHold | kCapAckDetail | kCapPaths;
  // The idle latencies are those of a full data packet; with the sec. 3.2 header each packet is
  // extra_header(path) longer, which every link of the path serialises (store and forward).
  std::vector<SimTime> base = cand_->base_latency;
  const auto& per_byte = cand_->ps_per_byte;
  for (std::size_t i = 0; i < base.size() && i < per_byte.size(); ++i)
    base[i] += static_cast<SimTime>(
        std::llround(static_cast<double>(extra_header(static_cast<std::uint32_t>(i))) * per_byte[i]));
  model_T_ = *std::max_element(base.begin(), base.end());
  // The artifact's theoretical latencies (with the header's bytes, as the idle ones) and T, their largest.
  const auto& theo = cand_->theoretical;
  threshold_.resize(base.size());
  for (std::size_t i = 0; i < base.size(); ++i)
    threshold_[i] = i < theo.size() ? theo[i] + (base[i] - cand_->base_latency[i]) : base[i];
  ns3_T_ = *std::max_element(threshold_.begin(), threshold_.end());
  if (sh_->p.sender == LapsSender::Artifact) {
    // AddQueuePairForLaps: window = 2 x m_tgtDelayInNs x the NIC rate, in bytes of payload (whole ns).
    const auto t_ns = static_cast<double>(ns3_T_ / 1000);
    window_ = static_cast<Bytes>(t_ns * 2 * ctx_.host_rate_bps / 8 / 1e9);
    const std::int64_t need = window_ / sh_->p.mtu;
    if (sh_->p.transport_cwnd_packets < need)
      throw UserError(fmt::format(
          "lb.laps_sender = \"artifact\" keeps its own window (2 x T x the NIC rate = {} bytes, {} full packets, on "
          "host pair {} -> {}); transport.cwnd_packets = {} would bind first: set it to at least {}",
          window_, need, ctx_.src, ctx_.dst, sh_->p.transport_cwnd_packets, need));
  }
  const auto key = host_pair(ctx_.src, ctx_.dst);
  auto it = sh_->pits.find(key);
  if (it == sh_->pits.end()) {
    // A new PST entry and its PIT entries: idleVal = realVal = the path's idle latency, time = now.
    std::vector<PitEntry> pit(base.size());
    for (std::size_t i = 0; i < base.size(); ++i) pit[i].idle = pit[i].real = base[i];
    it = sh_->pits.emplace(key, std::move(pit)).first;
    sh_->max_anchors[key] = *std::max_element(cand_->anchors.begin(), cand_->anchors.end());
  }
  pit_ = &it->second;
  ++sh_->flows;
}

LapsPolicy::~LapsPolicy() {
  sh_->decreases += rate_.decreases();
  sh_->increases += rate_.increases();
  sh_->hyper_phases += rate_.hyper_phases();
}

SimTime LapsPolicy::largest_idle() const {
  if (!sh_->p.idle_measured) return model_T_;
  SimTime t = 0;
  for (const auto& e : *pit_) t = std::max(t, e.idle);
  return t;
}

void LapsPolicy::inputs(std::vector<double>& d, std::vector<char>& valid) const {
  const auto& pit = *pit_;
  d.resize(pit.size());
  valid.resize(pit.size());
  const double scale = sh_->p.normalize_max_base ? static_cast<double>(std::max<SimTime>(1, model_T_)) : 1e6;
  for (std::size_t i = 0; i < pit.size(); ++i) {
    d[i] = static_cast<double>(pit[i].real) / scale;
    valid[i] = !pit[i].pending;
  }
}

std::uint32_t LapsPolicy::next_ev(SimTime now) {
  auto& pit = *pit_;
  // sec. 3.4 active probing: a path not measured for more than 2 x realVal.
  if (sh_->p.probing && !sh_->p.probe_artifact)
    for (std::uint32_t i = 0; i < pit.size(); ++i) {
      auto& e = pit[i];
      if (e.pending || now - e.time <= 2 * e.real) continue;
      e.pending = true;
      e.time = now;
      e.real *= 2;
      probes_.push_back(i);
    }
  // sec. 3.5: Eq. 1 over the valid paths.
  inputs(d_, valid_);
  if (sh_->p.spray_all || std::find(valid_.begin(), valid_.end(), 1) == valid_.end()) valid_.assign(valid_.size(), 1);
  w_ = softmax_probabilities(d_, sh_->p.beta, valid_);
  std::uint32_t pick = 0;
  double r = ctx_.rng.uniform();
  bool found = false;
  for (std::uint32_t i = 0; i < w_.size() && !found; ++i) {
    if (r < w_[i]) {
      pick = i;
      found = true;
    }
    r -= w_[i];
  }
  for (std::uint32_t i = static_cast<std::uint32_t>(w_.size()); !found && i-- > 0;)
    if (w_[i] > 0) {
      pick = i;
      found = true;
    }
  if (sh_->p.probe_artifact) {
    // The artifact: the chosen path counts as sent on, then at most one probe (ArtifactProbe).
    pit[pick].last_sent = now;
    if (sh_->p.probing) {
      const auto i = ArtifactProbe::choose(pit, now, [&](std::size_t n) { return ctx_.rng.below(n); });
      if (i >= 0) {
        pit[static_cast<std::size_t>(i)].last_sent = now;
        probes_.push_back(static_cast<std::uint32_t>(i));
      }
    }
  }
  return pick;
}

SimTime LapsPolicy::hold(SimTime now, const SendView& v) {
  // The artifact's window (RdmaQueuePair::CanIrnTransmitForLaps): payload in flight + the next packet's
  // at most the window. lbsim counts wire bytes in flight: full packets of `wire` bytes, `mtu` payload.
  if (window_ > 0 && v.inflight > 0 && (v.inflight + sh_->p.wire) * sh_->p.mtu > window_ * sh_->p.wire)
    return kTimeNever;
  return next_send_ > now ? next_send_ : kSendNow;
}

SimTime LapsPolicy::gap(double rate_bps) const {
  return static_cast<SimTime>(std::llround(static_cast<double>(last_bytes_) * 8e12 / rate_bps));
}

SimTime LapsPolicy::gap_ns3(double rate_bps) const {
  return 1000 * static_cast<SimTime>(std::llround(static_cast<double>(last_bytes_) * 8e9 / rate_bps));
}

void LapsPolicy::on_sent(std::uint32_t psn, std::uint32_t ev, SimTime now, Bytes bytes) {
  if (sh_->p.loss_detection) loss_.sent(ev, psn, now);
  last_bytes_ = bytes;
  if (sh_->p.sender == LapsSender::Artifact) {
    // RdmaHw::UpdateNextAvail at the queue pair's rate 0: the next packet may go at once.
    next_send_ = now;
    return;
  }
  // NIC pacing at curRate (sec. 3.6): the next packet after the previous one's size at curRate.
  next_send_ = std::max(next_send_, now) + gap(rate_.rate());
}

void LapsPolicy::repace(double old_bps) {
  // The gap after the last packet follows curRate when it changes (the authors' ns-3 code,
  // rdma-hw.cc UpdateNxtQpAvailTimeForLaps: nextAvail += the last packet's time at the new rate -
  // at the old), so an increase shortens a pending wait and a decrease lengthens it.
  if (last_bytes_ == 0 || rate_.rate() == old_bps) return;
  if (sh_->p.sender == LapsSender::Artifact)
    next_send_ += gap_ns3(rate_.rate()) - gap_ns3(old_bps);  // the only wait its rate makes
  else
    next_send_ += gap(rate_.rate()) - gap(old_bps);
}

bool LapsPolicy::take_probe(std::uint32_t& ev, SimTime) {
  if (probes_.empty()) return false;
  ev = probes_.back();
  probes_.pop_back();
  ++sh_->probes;
  return true;
}

void LapsPolicy::take_lost(std::vector<std::pair<std::uint32_t, SimTime>>& out) {
  sh_->path_losses += lost_.size();
  out.insert(out.end(), lost_.begin(), lost_.end());
  lost_.clear();
}

void LapsPolicy::measure(std::uint32_t path, SimTime one_way, SimTime now) {
  auto& e = (*pit_)[path];
  // The receiver's clock minus the sender's: a fixed offset per host pair ([LAPS] sec. 3.2 footnote).
  if (!sh_->clock_offset.empty()) one_way += sh_->clock_offset[ctx_.dst] - sh_->clock_offset[ctx_.src];
  e.real = one_way;
  e.time = now;
  e.pending = false;
  if (sh_->p.idle_measured) e.idle = e.measured ? std::min(e.idle, one_way) : one_way;
  e.measured = true;
}

void LapsPolicy::on_ack_detail(const AckDetail& a) {
  if (a.ev >= pit_->size()) return;
  measure(a.ev, a.one_way, a.now);
  if (a.probe) {
    ++sh_->probe_answers;
  } else if (sh_->p.loss_detection) {
    loss_.acked(a.ev, a.psn, a.sent, lost_);
  }
  int action = 0;
  SimTime T = 0, min_valid = -1;
  int valid = 0, slow = 0;
  if (sh_->p.rate_rule != LapsRateRule::Paper) {
    // The authors' code: every path (pending or not) against T (4a4be642) or its own theoretical
    // latency (0154ca8); it adjusts on data ACKs only (a probe's answer updates the PIT, nothing else).
    const bool early = sh_->p.rate_rule == LapsRateRule::Ns3Early;
    SimTime cur_max = 0;
    for (std::size_t i = 0; i < pit_->size(); ++i) {
      const auto& e = (*pit_)[i];
      slow += e.real > (early ? threshold_[i] : ns3_T_);
      cur_max = std::max(cur_max, e.real);
      if (!e.pending) min_valid = min_valid < 0 ? e.real : std::min(min_valid, e.real);
    }
    valid = static_cast<int>(pit_->size());
    T = ns3_T_;
    const bool all_slow = slow == valid;
    const double before = rate_.rate();
    if (!a.probe)
      action =
          early ? rate_.update_ns3_0154ca8(a.now, all_slow, ns3_T_) : rate_.update_ns3(a.now, all_slow, cur_max, T);
    repace(before);
  } else {
    // sec. 3.6: slow down only when every valid path is above the largest idle latency T.
    T = largest_idle();
    for (const auto& e : *pit_) {
      if (e.pending) continue;
      ++valid;
      slow += e.real > T;
      min_valid = min_valid < 0 ? e.real : std::min(min_valid, e.real);
    }
    // The 2T between adjustments is a time: the model's T, free of clock offsets.
    const double before = rate_.rate();
    if (valid > 0) action = rate_.update(a.now, slow == valid, T, model_T_);
    repace(before);
  }
  if (sh_->trace) {
    LapsTraceRow r;
    r.now = a.now;
    r.sent = a.sent;
    r.one_way = a.one_way;
    r.read = (*pit_)[a.ev].real;
    r.T = T;
    r.min_valid = min_valid;
    r.flow = ctx_.flow;
    r.path = a.ev;
    r.src = ctx_.src;
    r.dst = ctx_.dst;
    r.bytes = a.bytes;
    r.valid = static_cast<std::uint8_t>(valid);
    r.slow = static_cast<std::uint8_t>(slow);
    r.action = static_cast<std::int8_t>(action);
    r.probe = a.probe;
    r.hyper = rate_.hyper();
    r.cur_bps = rate_.rate();
    r.exp_bps = rate_.expected();
    sh_->trace_rows.push_back(r);
  }
}

std::size_t LapsPolicy::state_bits() const {
  // Rate limiter per flow: curRate, expRate (32 each), last adjustment (48), increase counter (8).
  return 32 + 32 + 48 + 8;
}

namespace {
using namespace config;

const char* rate_rule_name(LapsRateRule r) {
  switch (r) {
    case LapsRateRule::Paper:
      return "paper";
    case LapsRateRule::Ns3:
      return "ns3";
    case LapsRateRule::Ns3Early:
      return "ns3_0154ca8";
  }
  return "?";
}

nlohmann::json laps_summary(const std::vector<const EntropyPolicy*>& used) {
  const auto& first = dynamic_cast<const LapsPolicy&>(*used.front());
  const LapsShared& sh = first.shared();
  std::uint64_t dec = sh.decreases, inc = sh.increases, hyper = sh.hyper_phases;
  for (const auto* p : used) {  // flows whose policy is still alive
    const auto& l = dynamic_cast<const LapsPolicy&>(*p);
    dec += l.rate().decreases();
    inc += l.rate().increases();
    hyper += l.rate().hyper_phases();
  }
  // PST / PIT sizes (Fig. 3; [LAPS] sec. 4.3 field widths): PST entry = destination (32 bits) + the
  // path ids (16 bits each); PIT entry = pid 16, valid 1, time 48, idleVal 48, realVal 48, anchors 32 each.
  std::unordered_map<std::int32_t, std::pair<std::uint64_t, std::uint64_t>> per_host;  // host -> (pst bits, pit bits)
  std::unordered_map<std::int32_t, std::pair<std::uint64_t, std::uint64_t>> entries;   // host -> (pst, pit)
  for (const auto& [key, pit] : sh.pits) {
    const auto src = static_cast<std::int32_t>(key >> 32);
    const std::uint64_t k = pit.size(), anchors = sh.max_anchors.at(key);
    per_host[src].first += 32 + 16 * k;
    per_host[src].second += k * (16 + 1 + 48 + 48 + 48 + 32 * anchors);
    entries[src].first += 1;
    entries[src].second += k;
  }
  std::uint64_t pst_b = 0, pit_b = 0, pst_e = 0, pit_e = 0, pit_total = 0;
  for (const auto& [h, b] : per_host) {
    pst_b = std::max(pst_b, (b.first + 7) / 8);
    pit_b = std::max(pit_b, (b.second + 7) / 8);
  }
  for (const auto& [h, e] : entries) {
    pst_e = std::max(pst_e, e.first);
    pit_e = std::max(pit_e, e.second);
    pit_total += e.second;
  }
  return {{"flows", sh.flows},
          {"beta", sh.p.beta},
          {"normalize", sh.p.normalize_max_base ? "max_base" : "us"},
          {"idle", sh.p.idle_measured ? "measured" : "model"},
          {"sender", sh.p.sender == LapsSender::Artifact ? "artifact" : "paper"},
          {"rate_rule", rate_rule_name(sh.p.rate_rule)},
          {"probe_rule", sh.p.probe_artifact ? "artifact" : "paper"},
          {"spray_paths", sh.p.spray_all ? "all" : "valid"},
          {"clock_offset_us", sh.p.clock_offset_us},
          {"probes_sent", sh.probes},
          {"probe_answers", sh.probe_answers},
          {"path_losses", sh.path_losses},
          {"rate_decreases", dec},
          {"rate_increases", inc},
          {"hyper_phases", hyper},
          {"pst_entries_max_per_host", pst_e},
          {"pit_entries_max_per_host", pit_e},
          {"pit_entries_total", pit_total},
          {"pst_bytes_max_per_host", pst_b},
          {"pit_bytes_max_per_host", pit_b},
          {"host_pairs", sh.pits.size()}};
}

const RegisterLb kLaps{
    {{"laps",
      "LAPS: latency-aware softmax spraying over source-routed candidate paths, active probing, latency-based AIMD "
      "rate with NIC pacing, per-path loss detection ([LAPS] sec. 3; docs/laps.md). Needs routing.algorithm = "
      "source_route.",
      {
          real("lb.laps_beta", 1.0, "",
               "LAPS: beta of Eq. 1 (0 = uniform random spraying, large = the lowest-latency path; [LAPS] sec. 3.5 "
               "footnote: 1).")
              .range(0, 1e9),
          text("lb.laps_normalize", "max_base",
               "LAPS: latency d_i in Eq. 1: max_base = realVal / the pair's largest idle latency (the authors' ns-3 "
               "code), us = microseconds.")
              .one_of({"max_base", "us"}),
          text("lb.laps_idle", "model",
               "LAPS: idleVal (and T, the largest of them): model = the path's idle one-way latency from the topology; "
               "measured = the smallest one-way latency measured on the path (cancels clock offsets).")
              .one_of({"model", "measured"}),
          integer("lb.laps_hyper_after", 5, "increases",
                  "LAPS: N, consecutive rate increases before the Hyper Rate Increase phase ([LAPS] sec. 3.6).")
              .range(1, 1 << 20),
          real("lb.laps_min_rate_gbps", 0.1, "Gb/s", "LAPS: the lowest rate a decrease goes to.").range(1e-6, 1e6),
          flag("lb.laps_probing", true, "LAPS: active probing of stale paths ([LAPS] sec. 3.4)."),
          flag("lb.laps_loss_detection", true,
               "LAPS: per-path loss detection from ACK order ([LAPS] sec. 3.7); off = only NACKs and the RTO."),
          text("lb.laps_rate_rule", "sender",
               "LAPS: rate control: sender = the sender's (paper, or ns3 with laps_sender = artifact); paper = "
               "decrease when every valid path's realVal exceeds T (the largest idle "
               "latency), one adjustment per 2T ([LAPS] sec. 3.6); ns3 = the authors' code at 4a4be642: every path "
               "above T = the largest theoretical latency, decrease timer 2 x the largest current latency, increase "
               "timer 2T, increase to max(cur + 1 Gb/s, (cur + exp) / 2), exp doubles on every increase after N; "
               "ns3_0154ca8 = that code on 2025-01-23 (docs/laps.md).")
              .one_of({"sender", "paper", "ns3", "ns3_0154ca8"}),
          text("lb.laps_spray_paths", "sender",
               "LAPS: the paths Eq. 1 sprays over: sender = the sender's (valid, or all with laps_sender = artifact); "
               "valid = those without a pending probe ([LAPS] sec. 3.4), all = every candidate (the authors' code).")
              .one_of({"sender", "valid", "all"}),
          text("lb.laps_probe_rule", "sender",
               "LAPS: sender = the sender's (paper, or artifact with laps_sender = artifact); paper = probe a path not "
               "refreshed for 2 x its realVal, double realVal and exclude it until "
               "the answer ([LAPS] sec. 3.4); artifact = the authors' code: stale after 2 x the pair's largest "
               "realVal without a measurement and without a packet sent on it, at most one probe per data packet, "
               "realVal unchanged, the path kept in Eq. 1 (docs/laps.md).")
              .one_of({"sender", "paper", "artifact"}),
          text("lb.laps_sender", "paper",
               "LAPS: paper = the NIC paces each flow at its rate ([LAPS] sec. 3.6); artifact = the sender of the "
               "authors' runs: not paced (a rate change only shifts the next send once), at most 2 x T x the NIC "
               "rate in flight (T = the pair's largest theoretical latency); its rules (laps_rate_rule, "
               "laps_probe_rule, laps_spray_paths = sender) are the code's; needs transport.cc = none and "
               "transport.cwnd_packets above that window (docs/laps.md).")
              .one_of({"paper", "artifact"}),
          real("lb.laps_clock_offset_us", 0, "us",
               "LAPS: each host's clock is off by a uniform draw in [-x, x] (the one-way latencies the sender reads "
               "carry receiver - sender offset).")
              .range(0, 1e9),
          text("lb.laps_header", "paper",
               "LAPS: the custom header of [LAPS] sec. 3.2 on every data packet, ACK, NACK and probe, on top of "
               "network.header_bytes: paper = Type + INT (1 + 16 + 48 bits: 9 B) + SR (1 B path length, 1 B node "
               "pointer, 4 B per anchor switch of the packet's path; the path's idle latencies grow with it); none = "
               "no bytes (the authors' ns-3 code carries these fields in packet tags).")
              .one_of({"paper", "none"}),
          flag(
              "output.laps_trace", false,
              "Write laps_trace.csv: one row per ACK and probe answer of every LAPS flow (lb.algorithm = laps): the "
              "path, "
              "its one-way latency, the threshold T, the valid and slow paths, the rate decision and curRate / expRate "
              "after it ([LAPS] sec. 3.6; docs/laps.md \"Incast\"). One row per data packet: large for big transfers."),
      },
      {"routing.algorithm=\"source_route\""}},
     [](const Config& c, const PolicyContext& run) -> PolicyMaker {
       if (c.integer("transport.ack_every") != 1)
         throw UserError(c.where("transport.ack_every") +
                         "lb.algorithm = \"laps\" needs one ACK per data packet (transport.ack_every = 1): per-path "
                         "loss detection reads every packet's ACK");
       if (c.integer("transport.ack_bytes") > 0)
         throw UserError(c.where("transport.ack_bytes") +
                         "lb.algorithm = \"laps\" needs one ACK per data packet (transport.ack_bytes = 0): per-path "
                         "loss detection reads every packet's ACK");
       auto sh = std::make_shared<LapsShared>();
       auto& p = sh->p;
       p.beta = c.real("lb.laps_beta");
       p.normalize_max_base = c.text("lb.laps_normalize") == "max_base";
       p.idle_measured = c.text("lb.laps_idle") == "measured";
       p.hyper_after = static_cast<int>(c.integer("lb.laps_hyper_after"));
       p.min_rate_bps = c.real("lb.laps_min_rate_gbps") * 1e9;
       p.probing = c.flag("lb.laps_probing");
       p.loss_detection = c.flag("lb.laps_loss_detection");
       p.clock_offset_us = c.real("lb.laps_clock_offset_us");
       // The rate rule, the probing and the spraying default to those of the sender (the paper's, or
       // the authors' code with lb.laps_sender = "artifact"); a value set explicitly wins.
       const bool artifact = c.text("lb.laps_sender") == "artifact";
       const auto chosen = [&](const char* key, const char* paper, const char* code) {
         const std::string& v = c.text(key);
         return v == "sender" ? std::string(artifact ? code : paper) : v;
       };
       const std::string rule = chosen("lb.laps_rate_rule", "paper", "ns3");
       p.rate_rule = rule == "ns3"           ? LapsRateRule::Ns3
                     : rule == "ns3_0154ca8" ? LapsRateRule::Ns3Early
                                             : LapsRateRule::Paper;
       p.spray_all = chosen("lb.laps_spray_paths", "valid", "all") == "all";
       p.probe_artifact = chosen("lb.laps_probe_rule", "paper", "artifact") == "artifact";
       p.header = c.text("lb.laps_header") == "paper";
       if (artifact) {
         if (c.text("transport.cc") != "none")
           throw UserError(c.where_any({"transport.cc", "lb.laps_sender"}) +
                           "lb.laps_sender = \"artifact\" needs transport.cc = \"none\" (its window is its own, "
                           "its rate paces nothing)");
         if (c.integer("transport.cwnd_packets") <= 0)
           throw UserError(c.where_any({"transport.cwnd_packets", "lb.laps_sender"}) +
                           "lb.laps_sender = \"artifact\" keeps its own window: set transport.cwnd_packets above it "
                           "(e.g. 1000) so that the transport's does not bind first");
         p.sender = LapsSender::Artifact;
       }
       p.mtu = c.integer("network.mtu");
       p.wire = p.mtu + c.integer("network.header_bytes");
       p.transport_cwnd_packets = c.integer("transport.cwnd_packets");
       sh->trace = c.flag("output.laps_trace");
       if (p.clock_offset_us > 0) {
         Rng rng(static_cast<std::uint64_t>(c.integer("run.seed")), hash_name("laps-clock"));
         sh->clock_offset.resize(run.hosts);
         for (auto& o : sh->clock_offset) o = static_cast<SimTime>((rng.uniform() * 2 - 1) * p.clock_offset_us * 1e6);
       }
       return [sh](PolicyContext ctx) { return std::make_unique<LapsPolicy>(std::move(ctx), sh); };
     },
     "laps",
     &laps_summary,
     nullptr,
     [](const std::vector<const EntropyPolicy*>& used, const std::string& dir) {
       const LapsShared& sh = dynamic_cast<const LapsPolicy&>(*used.front()).shared();
       if (!sh.trace) return;
       const auto path = std::filesystem::path(dir) / "laps_trace.csv";
       std::ofstream f(path);
       if (!f) throw UserError("cannot write " + path.string());
       write_laps_trace(f, sh);
     },
     {"laps_trace.csv"}}};
}  // namespace

}  // namespace lbsim::lb
