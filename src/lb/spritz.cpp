#include "lb/spritz.h"

#include <algorithm>
#include <bit>
#include <unordered_map>

#include "core/error.h"
#include "lb/registry.h"

namespace lbsim::lb {

namespace {
// The EV entry list of the flow's switch pair, which source-guided routing gives (lb/pair_paths.h).
const EvEntryList* entry_list(const PolicyContext& ctx) { return dynamic_cast<const EvEntryList*>(ctx.pair_paths); }

const EvEntryList& need_paths(const PolicyContext& ctx) {
  const EvEntryList* list = entry_list(ctx);
  if (list == nullptr || list->size() == 0)
    throw UserError(
        "the Spritz load balancers (ops_u, ops_w, spritz_*, flicr_*) need an EV entry list: set "
        "routing.algorithm = \"source_guided\" ([Spritz] sec. III)");
  return *list;
}
}  // namespace

// --- OPS (u) / OPS (w) -------------------------------------------------------------------------

OpsEntryPolicy::OpsEntryPolicy(PolicyContext ctx, Weighting w)
    : ctx_(std::move(ctx)), paths_(need_paths(ctx_)), weighting_(w) {}

std::uint32_t OpsEntryPolicy::next_ev(SimTime) {
  const std::size_t i = weighting_ == Weighting::Uniform ? static_cast<std::size_t>(ctx_.rng.below(paths_.size()))
                                                         : sample_cumulative(paths_.cumulative(), ctx_.rng.uniform());
  return paths_.ev(i);
}

// --- Spritz-Scout / Spritz-Spray ---------------------------------------------------------------

SpritzPolicy::SpritzPolicy(PolicyContext ctx, const SpritzParams& params, Kind kind, Weighting w,
                           std::shared_ptr<SpritzBuffer> shared)
    : ctx_(std::move(ctx)),
      paths_(need_paths(ctx_)),
      p_(params),
      kind_(kind),
      weighted_(w == Weighting::Weighted),
      r_(std::move(shared)) {
  if (p_.buffer_size == 0) throw UserError("lb.spritz_buffer_size must be at least 1");
  const std::size_t n = paths_.size();
  // The authors' code (lb.spritz_bias = "small_flows"): a flow smaller than small_flow_bytes starts with
  // w[0] = min_bias_factor and every other weight 1.0, and keeps them.
  flat_ = p_.bias == SpritzParams::Bias::SmallFlows && ctx_.bytes < p_.small_flow_bytes;
  w0_ = base0_ = flat_ ? p_.min_bias_factor : base_weight(0);
  zeroed_.assign((n + 63) / 64, 0);
  if (kind_ == Kind::Scout && !p_.scout_shared_ecn) ecn_counts_.assign(n, 0);
  if (p_.reinsert_holdoff_rtts > 0) removed_at_.assign(n, kTimeNever);
  if (kind_ == Kind::Scout && p_.scout_order_measured) measured_.assign(n, 0);
  if (!r_) r_ = std::make_shared<SpritzBuffer>();
  if (r_->buf.empty()) r_->buf.assign(p_.buffer_size, 0);
  apply_blocked();  // a shared buffer's paths blocked for good by the pair's earlier timeouts
  if (p_.restore_interval <= 0) p_.restore_interval = 10 * std::max<SimTime>(ctx_.base_rtt, 1);
}

// w is 0 or base_weight(i) for every path but 0 (see w0_).
void SpritzPolicy::set_weight(std::size_t i, double w) {
  if (weight(i) == w) return;
  if (i == 0) {
    w0_ = w;
  } else {
    zeroed_[i >> 6] ^= std::uint64_t{1} << (i & 63);
    if (w == 0) {
      ++n_zeroed_;
    } else {
      --n_zeroed_;
    }
  }
  if (at_base()) {
    cum_ = {};  // back to the shared prefix sums: give the memory back
  } else {
    cum_dirty_ = true;
  }
}

std::uint32_t SpritzPolicy::sample() {
  const std::size_t n = paths_.size();
  std::size_t i;
  if (at_base()) {
    // The base weights: the shared list's prefix sums (the same sums, in the same order, as a
    // connection's own), or for the uniform weights 1, 2, ..., n, where the sampled index is the
    // integer part of u x n.
    const double u = ctx_.rng.uniform();
    i = weighted_ ? sample_cumulative(paths_.cumulative(), u)
                  : std::min(static_cast<std::size_t>(u * static_cast<double>(n)), n - 1);
    return paths_.ev(i);
  }
  if (cum_.empty() || cum_dirty_) {
    cum_.resize(n);
    double s = 0;
    for (std::size_t k = 0; k < n; ++k) cum_[k] = (s += weight(k));
    cum_dirty_ = false;
  }
  // Every path disabled by timeouts: fall back to uniform until the timer restores them.
  i = cum_.back() > 0 ? sample_cumulative(cum_, ctx_.rng.uniform()) : static_cast<std::size_t>(ctx_.rng.below(n));
  return paths_.ev(i);
}

void SpritzPolicy::maybe_restore(SimTime now) {
  if (now < restore_at_) return;
  // sec. IV-A: a timed-out weight "is automatically reset back to the original value (Equation 1)
  // after a configurable interval (global timer)". One timer per connection, armed by the first
  // timeout while it is idle; when it fires every disabled path comes back.
  if (w0_ == 0) set_weight(0, biased_ ? p_.min_bias_factor : base0_);
  for (std::size_t k = 0; k < zeroed_.size() && n_zeroed_ > 0; ++k)
    while (zeroed_[k] != 0) {
      const std::size_t i = k * 64 + static_cast<std::size_t>(std::countr_zero(zeroed_[k]));
      set_weight(i, base_weight(i));
    }
  restore_at_ = kTimeNever;
}

std::uint32_t SpritzPolicy::next_ev(SimTime now) {
  maybe_restore(now);
  // Algorithm 1.
  if (packet_count_ > p_.explore_threshold) {  // l. 2-5: periodic exploration
    packet_count_ = 0;
    return sample();
  }
  // l. 7; the authors' Scout (lb.spritz_scout_explore = "from_buffer") counts only the packets it
  // sends from the buffer, so the count stands still while the buffer is empty.
  const bool count_all = kind_ == Kind::Spray || !p_.scout_explore_from_buffer;
  if (count_all) ++packet_count_;
  if (r_->count == 0) return sample();  // l. 8-10
  if (!count_all) ++packet_count_;
  const std::uint32_t i = r_->buf[r_->head];  // l. 12: front element
  if (kind_ == Kind::Spray) {                 // l. 13-14: only Spritz-Spray consumes it
    r_->head = (r_->head + 1) % r_->buf.size();
    --r_->count;
  }
  return paths_.ev(i);
}

void SpritzPolicy::remove_from_buffer(std::uint32_t i, SimTime now) {
  if (!removed_at_.empty()) removed_at_[i] = now;
  // Compact the ring without the entries equal to i (Scout holds each path at most once).
  std::size_t w = 0;
  for (std::size_t k = 0; k < r_->count; ++k) {
    const auto v = static_cast<std::uint32_t>(buf_at(k));
    if (v != i) r_->buf[(r_->head + w++) % r_->buf.size()] = v;
  }
  r_->count = w;
}

bool SpritzPolicy::in_buffer(std::uint32_t i) const {
  for (std::size_t k = 0; k < r_->count; ++k)
    if (buf_at(k) == i) return true;
  return false;
}

void SpritzPolicy::block(std::uint32_t i, SimTime now) {
  if (!p_.permanent_timeout) {
    set_weight(i, 0);  // Alg. 2 l. 21 / Alg. 3 l. 8: temporarily block the path
    if (restore_at_ == kTimeNever) restore_at_ = now + p_.restore_interval;
    return;
  }
  // lb.spritz_timeout = "permanent" (the authors' code): the path joins the blocked set (the pair's,
  // with lb.spritz_buffer_scope = "pair") and every path in it stays at weight 0 for good.
  if (std::find(r_->blocked.begin(), r_->blocked.end(), i) == r_->blocked.end()) r_->blocked.push_back(i);
  apply_blocked();
}

void SpritzPolicy::apply_blocked() {
  // As the code does (UecMpSource::update_weighted_dist): only while the set leaves some path out, so
  // the timeout of the last unblocked path blocks nothing.
  if (r_->blocked.size() >= paths_.size()) return;
  for (const std::uint32_t b : r_->blocked) set_weight(b, 0);
}

void SpritzPolicy::ecn_window(bool marked, SimTime now) {
  // ecn_rate of Alg. 2 l. 23 / Alg. 3 l. 10: the fraction of ECN-marked ACKs over one base RTT,
  // evaluated when the window closes. Above ecn_bias_rate: w[0] <- min_bias_factor (bias towards
  // the shortest, minimal path); at or below it w[0] returns to its base value.
  if (p_.bias != SpritzParams::Bias::EcnRate) return;  // lb.spritz_bias: no ECN-rate bias
  ++win_acks_;
  if (marked) ++win_ecn_;
  if (now - window_start_ < ctx_.base_rtt) return;
  const bool high = static_cast<double>(win_ecn_) > p_.ecn_bias_rate * static_cast<double>(win_acks_);
  if (high != biased_) {
    biased_ = high;
    if (w0_ != 0 || restore_at_ == kTimeNever)  // a timed-out w[0] stays 0 until the timer fires
      set_weight(0, high ? p_.min_bias_factor : base0_);
  }
  window_start_ = now;
  win_acks_ = win_ecn_ = 0;
}

void SpritzPolicy::on_feedback(std::uint32_t ev, Feedback kind, SimTime now) {
  maybe_restore(now);
  const std::int32_t found = paths_.index_of(ev);
  if (found < 0) return;
  const auto i = static_cast<std::uint32_t>(found);
  const std::size_t cap = r_->buf.size();
  if (!measured_.empty() && last_rtt_ >= 0 && (kind == Feedback::Ack || kind == Feedback::AckEcn))
    measured_[i] = last_rtt_;  // lb.spritz_scout_order = "measured": the latest ACK's RTT per path
  // The authors' Scout (lb.spritz_scout_feedback = "buffered") hears marked ACKs, NACKs and timeouts
  // only of the paths in its buffer; an unmarked ACK may insert any path.
  const bool heard = kind_ != Kind::Scout || !p_.scout_buffered_only || kind == Feedback::Ack || in_buffer(i);
  switch (kind) {
    case Feedback::Ack:
      if (kind_ == Kind::Scout) {
        // Alg. 2 l. 2-5: insert by latency (the list is sorted by latency, so by index) if absent;
        // with lb.spritz_scout_order = "measured" by the RTT this ACK measured.
        bool present = in_buffer(i);
        // Our optional hold-off (SpritzParams::reinsert_holdoff_rtts): a just-removed path stays out.
        if (!removed_at_.empty() && removed_at_[i] != kTimeNever &&
            static_cast<double>(now - removed_at_[i]) < p_.reinsert_holdoff_rtts * static_cast<double>(ctx_.base_rtt))
          present = true;
        if (r_->count < cap && !present) {
          std::size_t pos = r_->count;
          while (pos > 0 && ranks_before(i, buf_at(pos - 1))) {
            r_->buf[(r_->head + pos) % cap] = static_cast<std::uint32_t>(buf_at(pos - 1));
            --pos;
          }
          r_->buf[(r_->head + pos) % cap] = i;
          ++r_->count;
        }
      } else if (r_->count < cap) {  // Alg. 3 l. 2-5: push at the back, duplicates allowed
        r_->buf[(r_->head + r_->count) % cap] = i;
        ++r_->count;
      }
      ecn_window(false, now);
      break;
    case Feedback::AckEcn:
      if (kind_ == Kind::Scout && heard) {  // Alg. 2 l. 7-13
        // The count of this path, or (lb.spritz_scout_ecn_count = "shared") the connection's one counter:
        // the mark that takes it above ecn_threshold removes its own path.
        const bool over = p_.scout_shared_ecn ? ++shared_ecn_ > p_.ecn_threshold : ++ecn_counts_[i] > p_.ecn_threshold;
        if (over) {
          reset_ecn(i);
          remove_from_buffer(i, now);
        }
      }  // Alg. 3: ECN marks are ignored (except for ecn_rate)
      ecn_window(true, now);
      break;
    case Feedback::Nack:
      if (kind_ == Kind::Scout && heard) {  // Alg. 2 l. 14-17
        reset_ecn(i);
        remove_from_buffer(i, now);
      }
      break;
    case Feedback::Timeout:
      if (!heard) break;
      if (kind_ == Kind::Scout) {  // Alg. 2 l. 18-22
        reset_ecn(i);
        remove_from_buffer(i, now);
      }
      block(i, now);
      break;
  }
}

std::vector<std::uint32_t> SpritzPolicy::buffer() const {
  std::vector<std::uint32_t> out;
  for (std::size_t k = 0; k < r_->count; ++k) out.push_back(static_cast<std::uint32_t>(buf_at(k)));
  return out;
}

std::size_t SpritzPolicy::state_bits() const {
  // buffer_paths of 16-bit EVs, packet_count, and (Scout) an 8-bit ECN counter per path, or one for
  // the connection (lb.spritz_scout_ecn_count = "shared"); the EV entry list itself is shared per
  // destination switch and reported with the endpoint table.
  const std::size_t ecn_bits = kind_ != Kind::Scout ? 0 : p_.scout_shared_ecn ? 8 : ecn_counts_.size() * 8;
  return r_->buf.size() * 16 + 16 + ecn_bits;
}

// --- Flicr -------------------------------------------------------------------------------------

FlicrPolicy::FlicrPolicy(PolicyContext ctx, const SpritzParams& params, Weighting w)
    : ctx_(std::move(ctx)), paths_(need_paths(ctx_)), p_(params), weighting_(w) {
  cur_ = weighting_ == Weighting::Uniform ? static_cast<std::size_t>(ctx_.rng.below(paths_.size()))
                                          : sample_cumulative(paths_.cumulative(), ctx_.rng.uniform());
}

void FlicrPolicy::repath() {
  cur_ = weighting_ == Weighting::Uniform ? static_cast<std::size_t>(ctx_.rng.below(paths_.size()))
                                          : sample_cumulative(paths_.cumulative(), ctx_.rng.uniform());
  ++repaths_;
}

std::uint32_t FlicrPolicy::next_ev(SimTime) { return paths_.ev(cur_); }

void FlicrPolicy::on_feedback(std::uint32_t ev, Feedback kind, SimTime now) {
  if (kind == Feedback::Nack || kind == Feedback::Timeout) {
    if (ev == paths_.ev(cur_)) repath();
    return;
  }
  ++win_acks_;
  if (kind == Feedback::AckEcn) ++win_ecn_;
  if (now - window_start_ < ctx_.base_rtt) return;
  if (static_cast<double>(win_ecn_) > p_.flicr_ecn_fraction * static_cast<double>(win_acks_)) repath();
  window_start_ = now;
  win_acks_ = win_ecn_ = 0;
}

namespace {
using namespace config;

SpritzParams spritz_params(const Config& c, const PolicyContext& run) {
  SpritzParams p;
  p.buffer_size = static_cast<std::uint32_t>(c.integer("lb.spritz_buffer_size"));
  p.explore_threshold = static_cast<std::uint32_t>(c.integer("lb.spritz_explore_threshold"));
  p.ecn_threshold = static_cast<std::uint32_t>(c.integer("lb.spritz_ecn_threshold"));
  p.min_bias_factor = c.real("lb.spritz_min_bias_factor");
  p.ecn_bias_rate = c.real("lb.spritz_ecn_bias_rate");
  p.restore_interval = c.real("lb.spritz_restore_us") > 0 ? from_us(c.real("lb.spritz_restore_us")) : 10 * run.rto;
  p.flicr_ecn_fraction = c.real("lb.flicr_ecn_fraction");
  p.reinsert_holdoff_rtts = c.real("lb.spritz_reinsert_holdoff_rtts");
  p.scout_order_measured = c.text("lb.spritz_scout_order") == "measured";
  p.scout_buffered_only = c.text("lb.spritz_scout_feedback") == "buffered";
  p.scout_shared_ecn = c.text("lb.spritz_scout_ecn_count") == "shared";
  p.scout_explore_from_buffer = c.text("lb.spritz_scout_explore") == "from_buffer";
  p.permanent_timeout = c.text("lb.spritz_timeout") == "permanent";
  const std::string& bias = c.text("lb.spritz_bias");
  p.bias = bias == "small_flows" ? SpritzParams::Bias::SmallFlows
           : bias == "none"      ? SpritzParams::Bias::None
                                 : SpritzParams::Bias::EcnRate;
  p.small_flow_bytes = c.integer("lb.spritz_small_flow_bytes");
  p.pair_buffer = c.text("lb.spritz_buffer_scope") == "pair";
  return p;
}

// The family's shared tuning ([Spritz] sec. IV, V-A, Table II), read by every variant.
[[maybe_unused]] const bool declared = [] {
  declare(
      {
          integer("lb.spritz_buffer_size", 8, "EVs",
                  "Spritz-Scout/-Spray: positions of buffer_paths, the cache of good paths ([Spritz] sec. IV: 8).")
              .range(1, 255),
          integer("lb.spritz_explore_threshold", 44, "packets",
                  "Spritz-Scout/-Spray: Alg. 1 samples a fresh path once packet_count exceeds this (Table II: 44, ~0.5 "
                  "BDP).")
              .range(0, 1e9),
          integer(
              "lb.spritz_ecn_threshold", 8, "packets",
              "Spritz-Scout: a cached path is dropped after more than this many ECN-marked ACKs (Alg. 2, Table II: 8).")
              .range(0, 65535),
          real("lb.spritz_w_scale", 3, "",
               "ops_w / spritz_*_w / flicr_w: Eq. 1 weights stretched as 1 + w_scale (lat_longest / lat_i - 1); the "
               "longest path keeps 1.0 (sec. V-A: 3; docs/spritz.md).")
              .range(0, 1e6),
          text("lb.spritz_w_scale_rule", "stretch",
               "How spritz_w_scale scales Eq. 1: stretch = 1 + w_scale (lat_longest / lat_i - 1) (our reading of sec. "
               "V-A); multiply = w_scale x lat_longest / lat_i for every path but the longest, which keeps 1.0, and "
               "w_scale 0 = all 1.0 (the authors' code).")
              .one_of({"stretch", "multiply"}),
          real("lb.spritz_min_bias_factor", 100, "weight",
               "Spritz-Scout/-Spray: w[0] (shortest path) while the ECN rate of a base RTT exceeds "
               "spritz_ecn_bias_rate (Alg. 2 l. 23-24).")
              .range(0, 1e12),
          real("lb.spritz_ecn_bias_rate", 0.9, "fraction of ACKs",
               "Spritz-Scout/-Spray: ECN rate above which the sender biases towards the minimal path (Alg. 2: 90%).")
              .range(0, 1),
          real("lb.spritz_reinsert_holdoff_rtts", 0, "base RTTs",
               "Spritz-Scout, our extension (0 = Alg. 2 as written): after removing a path, ignore its unmarked ACKs "
               "for this many base RTTs so the ACKs of packets already in flight on it do not re-insert it "
               "(docs/spritz.md).")
              .range(0, 1e6),
          text("lb.spritz_scout_order", "table1",
               "Spritz-Scout: the latency Alg. 2 l. 4 inserts a good path by: table1 = the path's Table I latency (the "
               "EV entry list's order), measured = the RTT its latest ACK measured (docs/spritz.md \"Scout\").")
              .one_of({"table1", "measured"}),
          real("lb.spritz_restore_us", 0, "us",
               "Spritz-Scout/-Spray: global timer that restores the Eq. 1 weight of timed-out paths (sec. IV-A); 0 = "
               "10 x RTO.")
              .range(0, 1e12),
          // The authors' code's reading, key by key (docs/spritz.md "Paper and code"); the defaults are
          // Algorithms 1-3 as written, lb.spritz_reading = "code" sets them all.
          text("lb.spritz_reading", "paper",
               "Spritz-Scout/-Spray as the paper's Algorithms 1-3 read (paper: each key's own default) or as the "
               "authors' public code runs them (code: buffer_size 9, scout_feedback buffered, scout_ecn_count shared, "
               "scout_explore from_buffer, timeout permanent, bias small_flows, w_scale_rule multiply, buffer_scope "
               "pair, and transport.ack_bytes 16 KiB, ack_on_ecn, ack_request, last_hop_trim ack for every scheme of "
               "the run; keys the config sets itself win). docs/spritz.md \"Paper and code\".")
              .one_of({"paper", "code"}),
          text("lb.spritz_scout_feedback", "any_path",
               "Spritz-Scout: which paths' marked ACKs, NACKs and timeouts it acts on: any_path (Alg. 2) or buffered "
               "= only paths in its buffer (the authors' code; an unmarked ACK may insert any path).")
              .one_of({"any_path", "buffered"}),
          text("lb.spritz_scout_ecn_count", "per_path",
               "Spritz-Scout: ECN-marked ACKs counted per path (Alg. 2 ecn_counts[i]) or in one shared counter per "
               "connection (the authors' code); the mark that takes the count above spritz_ecn_threshold removes its "
               "path, a NACK or timeout of a path resets it.")
              .one_of({"per_path", "shared"}),
          text("lb.spritz_scout_explore", "every_packet",
               "Spritz-Scout: packet_count of Alg. 1 advances on every packet but the exploring one (l. 7) or only on "
               "the packets sent from the buffer, so it stands still while the buffer is empty (from_buffer, the "
               "authors' code; their Spray counts every packet).")
              .one_of({"every_packet", "from_buffer"}),
          text("lb.spritz_timeout", "restore",
               "Spritz-Scout/-Spray: a timed-out path's weight is 0 until the global timer (spritz_restore_us) "
               "restores it (restore, sec. IV-A) or for the rest of the flow (permanent, the authors' code: the last "
               "path with a weight is never blocked).")
              .one_of({"restore", "permanent"}),
          text("lb.spritz_bias", "ecn_rate",
               "Spritz-Scout/-Spray: towards the shortest path: ecn_rate = w[0] <- spritz_min_bias_factor while more "
               "than spritz_ecn_bias_rate of a base RTT's ACKs are marked (Alg. 2 l. 23-24); small_flows = a flow "
               "below spritz_small_flow_bytes gets w[0] = spritz_min_bias_factor and 1.0 for every other path, for "
               "the whole flow (the authors' code); none.")
              .one_of({"ecn_rate", "small_flows", "none"}),
          bytes("lb.spritz_small_flow_bytes", 512 * 1024,
                "spritz_bias = small_flows: flows smaller than this are biased (the authors' runs: 512 KiB).")
              .range(0, 1e18),
          text("lb.spritz_buffer_scope", "connection",
               "Spritz-Scout/-Spray: buffer_paths per connection, or one per (source, destination) host pair shared "
               "by its connections, with the paths its timeouts blocked for good (pair, the authors' code; sec. IV "
               "allows caching the buffer between identical connections).")
              .one_of({"connection", "pair"}),
          real(
              "lb.flicr_ecn_fraction", 0.5, "fraction of ACKs",
              "Flicr: move to a new path when more than this fraction of one base RTT's ACKs is ECN-marked (sec. V-A).")
              .range(0, 1),
      },
      "spritz family");
  declare_preset("lb.spritz_reading", apply_spritz_reading);
  return true;
}();

}  // namespace

void apply_spritz_reading(config::Config& c) {
  const std::string& reading = c.text("lb.spritz_reading");
  if (reading == "paper") return;
  // The authors' htsim port (Scout = -LB FLOW_V1, Spray = FLOW_V2, UecMpSource in uec_mp.cpp) with the
  // flags of their Dragonfly runs (-flow-explore-threshold 44, -flow-ecn-threshold 8,
  // -flow-sort-insert 1, -flow-small-flows-bias 1, -flow-small-flows-threshold 524288,
  // -flow-small-flows-weight 100, -flow-weight-scaling 3 or 0 for the uniform variants).
  const std::string origin = "lb.spritz_reading = \"" + reading + "\"";
  const auto def = [&](std::string_view key, config::Value v) {
    if (!c.given(key)) c.set(key, std::move(v), origin);
  };
  def("lb.spritz_buffer_size", std::int64_t{9});  // inserts while the buffer holds at most 8: up to 9
  def("lb.spritz_explore_threshold", std::int64_t{44});
  def("lb.spritz_ecn_threshold", std::int64_t{8});
  def("lb.spritz_scout_order", std::string("table1"));
  def("lb.spritz_scout_feedback", std::string("buffered"));
  def("lb.spritz_scout_ecn_count", std::string("shared"));
  def("lb.spritz_scout_explore", std::string("from_buffer"));
  def("lb.spritz_timeout", std::string("permanent"));
  def("lb.spritz_bias", std::string("small_flows"));
  def("lb.spritz_small_flow_bytes", std::int64_t{512 * 1024});
  def("lb.spritz_min_bias_factor", 100.0);
  def("lb.spritz_w_scale", 3.0);
  def("lb.spritz_w_scale_rule", std::string("multiply"));
  def("lb.spritz_buffer_scope", std::string("pair"));
  // Its transport (uec.cpp), for every scheme of the run: UecSink ACKs every 16 KiB and at once on a
  // marked packet, an AR-flagged one or the first; UecSrc::processNack reports a last-hop trim as the
  // ACK of its path.
  def("transport.ack_bytes", std::int64_t{16384});
  def("transport.ack_on_ecn", true);
  def("transport.ack_request", true);
  def("transport.last_hop_trim", std::string("ack"));
}

namespace {

// Every member runs over the EV entry lists of source-guided routing; a small Dragonfly exercises it.
const std::vector<std::string> kExample{"topology.kind=dragonfly", "topology.p=1", "topology.a=2", "topology.h=1",
                                        "routing.algorithm=source_guided"};

std::function<PolicyMaker(const Config&, const PolicyContext&)> ops_entry(Weighting w) {
  return [w](const Config&, const PolicyContext&) -> PolicyMaker {
    return [w](PolicyContext ctx) { return std::make_unique<OpsEntryPolicy>(std::move(ctx), w); };
  };
}
std::function<PolicyMaker(const Config&, const PolicyContext&)> spritz(SpritzPolicy::Kind k, Weighting w) {
  return [k, w](const Config& c, const PolicyContext& run) -> PolicyMaker {
    const SpritzParams p = spritz_params(c, run);
    // lb.spritz_buffer_scope = "pair": the run's buffers, one per (source, destination) host pair,
    // made by the pair's first connection and kept for the run (the code's static map).
    using Pairs = std::unordered_map<std::uint64_t, std::shared_ptr<SpritzBuffer>>;
    auto pairs = p.pair_buffer ? std::make_shared<Pairs>() : nullptr;
    return [p, k, w, pairs](PolicyContext ctx) {
      std::shared_ptr<SpritzBuffer> shared;
      if (pairs) {
        auto& b =
            (*pairs)[std::uint64_t{static_cast<std::uint32_t>(ctx.src)} << 32 | static_cast<std::uint32_t>(ctx.dst)];
        if (!b) b = std::make_shared<SpritzBuffer>();
        shared = b;
      }
      return std::make_unique<SpritzPolicy>(std::move(ctx), p, k, w, std::move(shared));
    };
  };
}
std::function<PolicyMaker(const Config&, const PolicyContext&)> flicr(Weighting w) {
  return [w](const Config& c, const PolicyContext& run) -> PolicyMaker {
    const SpritzParams p = spritz_params(c, run);
    return [p, w](PolicyContext ctx) { return std::make_unique<FlicrPolicy>(std::move(ctx), p, w); };
  };
}

// The memory guard (sim/memory.h): a Spritz-Scout / -Spray connection keeps weights, prefix sums and
// ECN counters per path of its pair's list while it runs (at most the messages in progress at once),
// when the routing gives lists (source-guided routing).
double connection_memory(const Config&, const MemorySizes& s) {
  if (!s.path_lists || s.bounded_paths <= 0) return 0;
  const double connections = s.largest_message > 0 ? std::min(s.entries, s.concurrent_bytes / s.largest_message)
                                                   : std::min(s.entries, s.hosts);
  return connections * s.bounded_paths * (2 * sizeof(double) + sizeof(std::uint16_t));
}
LbPlugin with_connection_memory(LbPlugin p) {
  p.memory = &connection_memory;
  return p;
}

using K = SpritzPolicy::Kind;
using W = Weighting;
const RegisterLb kOpsU{
    {{"ops_u", "OPS (u): a uniformly random entry of the EV entry list per packet ([Spritz] sec. V-A).", {}, kExample},
     ops_entry(W::Uniform)}};
const RegisterLb kOpsW{
    {{"ops_w", "OPS (w): a random entry per packet with the Eq. 1 latency weights ([Spritz] sec. IV-A).", {}, kExample},
     ops_entry(W::Weighted)}};
const RegisterLb kScoutU{
    with_connection_memory({{"spritz_scout_u", "Spritz-Scout, uniform weights ([Spritz] Alg. 1 + 2).", {}, kExample},
                            spritz(K::Scout, W::Uniform)})};
const RegisterLb kScoutW{
    with_connection_memory({{"spritz_scout_w", "Spritz-Scout, Eq. 1 weights ([Spritz] Alg. 1 + 2).", {}, kExample},
                            spritz(K::Scout, W::Weighted)})};
const RegisterLb kSprayU{
    with_connection_memory({{"spritz_spray_u", "Spritz-Spray, uniform weights ([Spritz] Alg. 1 + 3).", {}, kExample},
                            spritz(K::Spray, W::Uniform)})};
const RegisterLb kSprayW{
    with_connection_memory({{"spritz_spray_w", "Spritz-Spray, Eq. 1 weights ([Spritz] Alg. 1 + 3).", {}, kExample},
                            spritz(K::Spray, W::Weighted)})};
const RegisterLb kFlicrU{
    {{"flicr_u", "Flicr: move the flow to a new random path on congestion, uniform ([Spritz] sec. V-A).", {}, kExample},
     flicr(W::Uniform)}};
const RegisterLb kFlicrW{
    {{"flicr_w", "Flicr with Eq. 1 weights ([Spritz] sec. V-A).", {}, kExample}, flicr(W::Weighted)}};
// min_path: always the first (lowest-latency, minimal) entry of the EV entry list, to pin
// background traffic to minimal routes; without an entry list the switches route EV 0.
const RegisterLb kMinPath{
    {{"min_path", "The first (lowest-latency, minimal) entry of the EV entry list for every packet.", {}, kExample},
     [](const Config&, const PolicyContext&) -> PolicyMaker {
       return [](PolicyContext ctx) {
         const EvEntryList* list = entry_list(ctx);
         return std::make_unique<FixedEvPolicy>(list && list->size() ? (*list)[0].ev : 0u);
       };
     }}};
}  // namespace

}  // namespace lbsim::lb
