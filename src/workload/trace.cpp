#include "workload/trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/error.h"
#include "core/rng.h"
#include "workload/registry.h"
#include "workload/stream.h"

namespace lbsim::workload {

namespace {

struct Arrival {
  SimTime t;
  std::int32_t src;
  Bytes bytes;
};

// Exponential inter-arrival with the given mean (in ps), by inversion; 1 - u is in (0, 1].
double exp_sample(Rng& rng, double mean) { return -std::log(1.0 - rng.uniform()) * mean; }

void check_params(const CdfTraceParams& p, std::int32_t num_hosts) {
  if (num_hosts < 2) throw UserError(fmt::format("cdf trace: needs at least 2 hosts, got {}", num_hosts));
  if (!(p.load > 0)) throw UserError(fmt::format("cdf trace: load = {} must be > 0", p.load));
  if (p.host_rate <= 0) throw UserError("cdf trace: host_rate must be > 0");
  if (p.duration <= 0) throw UserError("cdf trace: duration must be > 0");
  if (p.start < 0 || p.warmup < 0) throw UserError("cdf trace: start and warmup must be >= 0");
  if (p.max_senders_per_receiver < 0) throw UserError("cdf trace: max_senders_per_receiver must be >= 0");
  if (!(p.active_slowdown > 0)) throw UserError("cdf trace: active_slowdown must be > 0");
  if (p.destinations != TraceDestinations::kUniform && (p.root < 0 || p.root >= num_hosts))
    throw UserError(fmt::format("cdf trace: root {} is not a host id (0..{})", p.root, num_hosts - 1));
  if (p.incast_mean_interval < 0) throw UserError("cdf trace: incast_mean_interval must be >= 0");
  if (p.incast_mean_interval > 0 && (p.incast_senders < 1 || p.incast_senders > num_hosts - 1))
    throw UserError(fmt::format("cdf trace: incast_senders = {} must be in 1..{}", p.incast_senders, num_hosts - 1));
  if (p.incast_mean_interval > 0 && p.incast_bytes < 0) throw UserError("cdf trace: incast_bytes < 0");
  if (!(p.monitored_fraction >= 0 && p.monitored_fraction <= 1))
    throw UserError("cdf trace: monitored_fraction must be in [0, 1]");
  for (auto h : p.monitored_hosts)
    if (h < 0 || h >= num_hosts) throw UserError(fmt::format("cdf trace: monitored host {} out of range", h));
}

// Receivers with their currently active senders (by the estimated active interval).
class ReceiverCap {
 public:
  ReceiverCap(std::int32_t n, std::int32_t cap) : active_(static_cast<std::size_t>(n)), cap_(cap) {}

  // Distinct senders other than `src` still active at `t` towards `dst`.
  std::int32_t others(std::int32_t dst, std::int32_t src, SimTime t) {
    auto& v = active_[static_cast<std::size_t>(dst)];
    std::erase_if(v, [t](const Active& a) { return a.end <= t; });
    std::vector<std::int32_t> seen;
    for (const auto& a : v)
      if (a.src != src && std::find(seen.begin(), seen.end(), a.src) == seen.end()) seen.push_back(a.src);
    return static_cast<std::int32_t>(seen.size());
  }
  bool has_room(std::int32_t dst, std::int32_t src, SimTime t) { return cap_ == 0 || others(dst, src, t) < cap_; }
  void add(std::int32_t dst, std::int32_t src, SimTime end) {
    if (cap_ > 0) active_[static_cast<std::size_t>(dst)].push_back({end, src});
  }

 private:
  struct Active {
    SimTime end;
    std::int32_t src;
  };
  std::vector<std::vector<Active>> active_;
  std::int32_t cap_;
};

}  // namespace

SimTime estimated_active_time(Bytes bytes, BitsPerSec rate, double slowdown) {
  return static_cast<SimTime>(std::ceil(static_cast<double>(serialization_ps(bytes, rate)) * slowdown));
}

namespace {

// The trace one entry at a time (EntryStream), in the order of the eager trace: background arrivals
// by (time, sender) - a merge of the senders' Poisson processes, each with its own random stream,
// holding one pending arrival per sender - with incast flows after the background flows of the same
// time. Receivers, monitoring coins and incast draws come from their own streams in that order, so
// the entries equal those of sorting the whole trace (which is how it was built before streaming).
class CdfTraceStream final : public EntryStream {
 public:
  CdfTraceStream(const CdfTraceParams& p, const FlowSizeCdf& cdf, std::int32_t num_hosts, std::uint64_t seed,
                 std::vector<std::string>* warnings)
      : p_(p),
        cdf_(cdf),
        n_(num_hosts),
        warnings_(warnings),
        end_(p.start + p.duration),
        dst_rng_(seed, hash_name("workload"), hash_name("trace.dst")),
        mon_rng_(seed, hash_name("workload"), hash_name("trace.monitored")),
        cap_(num_hosts, p.destinations == TraceDestinations::kAllToOne ? 0 : p.max_senders_per_receiver),
        monitored_host_(static_cast<std::size_t>(num_hosts), false) {
    check_params(p, num_hosts);
    if (cdf.points().empty()) throw UserError("cdf trace: the flow-size distribution has no points");
    const std::uint64_t ws = hash_name("workload");
    // Poisson arrivals per sending host: mean inter-arrival = mean_size * 8 / (load * rate) seconds.
    mean_ia_ps_ = cdf.mean() * 8.0 / (p.load * static_cast<double>(p.host_rate)) * 1e12;
    for (std::int32_t h = 0; h < num_hosts; ++h) {
      if (p.destinations == TraceDestinations::kAllToOne && h == p.root) continue;
      if (p.destinations == TraceDestinations::kOneToAll && h != p.root) continue;
      Sender s{Rng(seed, ws, hash_name("trace.arrival") + static_cast<std::uint64_t>(h)), 0.0, h};
      s.t = static_cast<double>(p.start) + exp_sample(s.rng, mean_ia_ps_);
      senders_.push_back(std::move(s));
    }
    for (std::size_t i = 0; i < senders_.size(); ++i) advance(i);
    for (auto h : p.monitored_hosts) monitored_host_[static_cast<std::size_t>(h)] = true;
    if (p.incast_mean_interval > 0) {
      inc_rng_ = Rng(seed, ws, hash_name("trace.incast"));
      inc_t_ = static_cast<double>(p.start) + exp_sample(inc_rng_, static_cast<double>(p.incast_mean_interval));
      new_incast_event();
    }
  }

  bool next(FlowSpec& f, Workload& w) override {
    if (!tagged_) {
      tagged_ = true;
      bg_tag_ = p_.tag.empty() ? 0 : w.tag(p_.tag);
      if (p_.incast_mean_interval > 0) inc_tag_ = w.tag("incast");
    }
    const bool bg = !heap_.empty();
    if (bg && (!inc_pending_ || heap_.front().t <= inc_when_)) {
      background(f, w);
      if (heap_.empty()) warn();
      return true;
    }
    if (!inc_pending_) return false;
    incast(f, w);
    return true;
  }

 private:
  struct Sender {
    Rng rng;
    double t;
    std::int32_t h;
  };
  struct Pending {
    SimTime t;
    std::int32_t src;
    Bytes bytes;
    std::uint32_t sender;
  };
  // Min-heap on (time, sender host): the eager trace's stable sort by (t, src).
  static bool later(const Pending& a, const Pending& b) { return a.t > b.t || (a.t == b.t && a.src > b.src); }

  // The next arrival of sender i into the heap (none once its process passes the end).
  void advance(std::size_t i) {
    Sender& s = senders_[i];
    if (!(s.t < static_cast<double>(end_))) return;
    heap_.push_back({static_cast<SimTime>(s.t), s.h, cdf_.sample(s.rng), static_cast<std::uint32_t>(i)});
    std::push_heap(heap_.begin(), heap_.end(), later);
    s.t += exp_sample(s.rng, mean_ia_ps_);
  }

  std::int32_t warm(Workload& w) { return warm_tag_ >= 0 ? warm_tag_ : (warm_tag_ = w.tag("warmup")); }
  std::int32_t mon(Workload& w) { return mon_tag_ >= 0 ? mon_tag_ : (mon_tag_ = w.tag("monitored")); }
  std::int32_t random_other(std::int32_t src) {
    auto d = static_cast<std::int32_t>(dst_rng_.below(static_cast<std::uint64_t>(n_ - 1)));
    return d >= src ? d + 1 : d;  // uniform over the other num_hosts - 1 hosts
  }

  // Receivers in time order, so the cap sees the flows active at each start.
  void background(FlowSpec& f, Workload& w) {
    std::pop_heap(heap_.begin(), heap_.end(), later);
    const Pending a = heap_.back();
    heap_.pop_back();
    advance(a.sender);
    std::int32_t dst;
    if (p_.destinations == TraceDestinations::kAllToOne) {
      dst = p_.root;
    } else {
      dst = random_other(a.src);
      if (!cap_.has_room(dst, a.src, a.t)) {
        bool found = false;
        for (int tries = 0; tries < 32 && !found; ++tries) {
          dst = random_other(a.src);
          found = cap_.has_room(dst, a.src, a.t);
        }
        if (!found) {
          // Every random pick was full: scan all hosts from a random offset, else take the least
          // loaded one and report it.
          const auto off = static_cast<std::int32_t>(dst_rng_.below(static_cast<std::uint64_t>(n_)));
          std::int32_t best = -1, best_load = 0;
          for (std::int32_t k = 0; k < n_ && !found; ++k) {
            const std::int32_t d = (off + k) % n_;
            if (d == a.src) continue;
            const std::int32_t load = cap_.others(d, a.src, a.t);
            if (load < p_.max_senders_per_receiver) {
              dst = d;
              found = true;
            } else if (best < 0 || load < best_load) {
              best = d;
              best_load = load;
            }
          }
          if (!found) {
            dst = best;
            ++over_cap_;
          }
        }
      }
    }
    cap_.add(dst, a.src, a.t + estimated_active_time(a.bytes, p_.host_rate, p_.active_slowdown));
    f = FlowSpec{};
    f.src = a.src;
    f.dst = dst;
    f.bytes = a.bytes;
    f.start = a.t;
    f.lb = p_.lb;
    // Draw the monitoring coin for every flow so the sequence does not depend on warm-up.
    const bool coin = p_.monitored_fraction > 0 && mon_rng_.bernoulli(p_.monitored_fraction);
    if (a.t < p_.start + p_.warmup)
      f.tag = warm(w);
    else if (monitored_host_[static_cast<std::size_t>(a.src)] || coin)
      f.tag = mon(w);
    else
      f.tag = bg_tag_;
  }

  void warn() {
    if (over_cap_ > 0 && warnings_)
      warnings_->push_back(
          fmt::format("cdf trace: {} flows exceeded max_senders_per_receiver = {} because "
                      "every receiver was at the cap",
                      over_cap_, p_.max_senders_per_receiver));
  }

  // Incast events on top of the background load: a receiver, then incast_senders distinct random
  // senders drawn one by one as their flows are taken.
  void new_incast_event() {
    inc_pending_ = inc_t_ < static_cast<double>(end_);
    if (!inc_pending_) return;
    inc_when_ = static_cast<SimTime>(inc_t_);
    inc_recv_ = static_cast<std::int32_t>(inc_rng_.below(static_cast<std::uint64_t>(n_)));
    others_.clear();
    for (std::int32_t h = 0; h < n_; ++h)
      if (h != inc_recv_) others_.push_back(h);
    inc_i_ = 0;
  }
  void incast(FlowSpec& f, Workload& w) {
    const auto i = static_cast<std::size_t>(inc_i_);
    const auto j = i + inc_rng_.below(others_.size() - i);
    std::swap(others_[i], others_[j]);
    f = FlowSpec{};
    f.src = others_[i];
    f.dst = inc_recv_;
    f.bytes = p_.incast_bytes;
    f.start = inc_when_;
    f.lb = p_.lb;
    f.tag = inc_when_ < p_.start + p_.warmup ? warm(w) : inc_tag_;
    if (++inc_i_ == p_.incast_senders) {
      inc_t_ += exp_sample(inc_rng_, static_cast<double>(p_.incast_mean_interval));
      new_incast_event();
    }
  }

  CdfTraceParams p_;
  FlowSizeCdf cdf_;
  std::int32_t n_;
  std::vector<std::string>* warnings_;
  SimTime end_;
  double mean_ia_ps_ = 0;
  std::vector<Sender> senders_;
  std::vector<Pending> heap_;
  Rng dst_rng_, mon_rng_;
  ReceiverCap cap_;
  std::vector<bool> monitored_host_;
  std::size_t over_cap_ = 0;
  bool tagged_ = false;
  std::int32_t bg_tag_ = 0, warm_tag_ = -1, mon_tag_ = -1, inc_tag_ = -1;
  Rng inc_rng_;
  double inc_t_ = 0;
  bool inc_pending_ = false;
  SimTime inc_when_ = 0;
  std::int32_t inc_recv_ = -1, inc_i_ = 0;
  std::vector<std::int32_t> others_;
};

}  // namespace

std::unique_ptr<EntryStream> cdf_trace_stream(const CdfTraceParams& p, const FlowSizeCdf& cdf, std::int32_t num_hosts,
                                              std::uint64_t seed, std::vector<std::string>* warnings) {
  return std::make_unique<CdfTraceStream>(p, cdf, num_hosts, seed, warnings);
}

Workload make_cdf_trace(const CdfTraceParams& p, const FlowSizeCdf& cdf, std::int32_t num_hosts, std::uint64_t seed,
                        std::vector<std::string>* warnings) {
  CdfTraceStream s(p, cdf, num_hosts, seed, warnings);
  return drain(s);
}

Workload make_cdf_trace(const CdfTraceParams& p, std::int32_t num_hosts, std::uint64_t seed,
                        std::vector<std::string>* warnings) {
  auto r = load_cdf(p.cdf, p.cdf_options);
  if (warnings) warnings->insert(warnings->end(), r.warnings.begin(), r.warnings.end());
  return make_cdf_trace(p, r.cdf, num_hosts, seed, warnings);
}

namespace {
using namespace config;

// The load each sender offers (a fraction of its link rate). workload.load_rule = "laps_artifact" is
// the LAPS artifact's rule (docs/laps.md "Load"): every line (src, dst, loadFactor) of its
// traffic pattern file starts Poisson flows at loadFactor x load x the sender's NIC rate / M bytes,
// M being its average of the CDF file computed on the file's own cdf column (the mean for a file in
// fractions, 100 x the mean for one in percent). The All2all pattern lists every other host with the
// same loadFactor, so a sender offers load x loadFactor x (hosts - 1) / scale of its rate, its
// destinations uniform over the other hosts (a sum of equal Poisson processes).
double offered_load(const Config& cfg, double hosts, double cdf_scale) {
  const double load = cfg.real("workload.load");
  if (cfg.text("workload.load_rule") != "laps_artifact") return load;
  return load * cfg.real("workload.pair_load_factor") * (hosts - 1) / cdf_scale;
}

std::string cdf_source(const Config& cfg) {
  const std::string& cdf = cfg.text("workload.cdf");
  // A built-in name, else a file relative to the config file.
  return cdf.find('/') != std::string::npos || cdf.find('.') != std::string::npos ? cfg.path("workload.cdf") : cdf;
}

CdfTraceParams trace_params(const WorkloadContext& c) {
  const auto& cfg = c.cfg;
  CdfTraceParams p;
  p.cdf = cdf_source(cfg);
  const double scale = cfg.text("workload.load_rule") == "laps_artifact" ? load_cdf(p.cdf).scale : 1.0;
  p.load = offered_load(cfg, c.topo.num_hosts, scale);
  p.host_rate = c.topo.host_rate();
  p.start = start_time(cfg);
  p.duration = from_us(cfg.real("workload.duration_us"));
  p.warmup = from_us(cfg.real("workload.warmup_us"));
  p.max_senders_per_receiver = static_cast<std::int32_t>(cfg.integer("workload.max_senders_per_receiver"));
  const auto& d = cfg.text("workload.destinations");
  p.destinations = d == "all_to_one"   ? TraceDestinations::kAllToOne
                   : d == "one_to_all" ? TraceDestinations::kOneToAll
                                       : TraceDestinations::kUniform;
  p.root = static_cast<std::int32_t>(cfg.integer("workload.root"));
  p.incast_mean_interval = from_us(cfg.real("workload.incast_interval_us"));
  p.incast_senders = static_cast<std::int32_t>(cfg.integer("workload.incast_senders"));
  p.incast_bytes = cfg.integer("workload.incast_bytes");
  p.monitored_fraction = cfg.real("workload.monitored_fraction");
  return p;
}

const RegisterWorkload kCdfTrace{
    {{"cdf_trace",
      "Flow sizes from a CDF at a target load with Poisson arrivals, optional incast events and monitored flows "
      "(docs/workloads.md).",
      {
          text("workload.cdf", "websearch",
               "cdf_trace: flow-size distribution, a built-in name (websearch, datamining, hadoop, alistorage, "
               "googlerpc, enterprise) or a CDF file."),
          real("workload.load", 0.5, "fraction of host rate", "cdf_trace: offered load per sending host.")
              .range(1e-6, 100),
          real("workload.duration_us", 1000, "us", "cdf_trace: arrivals during this long after start_us.")
              .range(0, 1e12),
          real("workload.warmup_us", 0, "us", "cdf_trace: flows starting in the first warmup_us are tagged warmup.")
              .range(0, 1e12),
          integer("workload.max_senders_per_receiver", 0, "hosts",
                  "cdf_trace: cap on simultaneous senders per receiver; 0 = none.")
              .range(0, 1e7),
          real("workload.incast_interval_us", 0, "us",
               "cdf_trace: mean time between Poisson incast events (0 = none); each has incast_senders senders of "
               "incast_bytes.")
              .range(0, 1e12),
          bytes("workload.incast_bytes", 64 * 1024, "cdf_trace: bytes per incast sender.").range(1, 1e15),
          real("workload.monitored_fraction", 0, "", "cdf_trace: fraction of flows tagged monitored.").range(0, 1),
          text("workload.destinations", "uniform", "cdf_trace: receiver choice.")
              .one_of({"uniform", "all_to_one", "one_to_all"}),
          text("workload.load_rule", "host",
               "cdf_trace: host = every sender offers workload.load of its link rate; laps_artifact = the LAPS "
               "artifact's rule: every ordered host pair at pair_load_factor x load x the sender's rate / M, M = the "
               "CDF's mean x 100 for a CDF file written in percent (its avg_cdf), so a sender offers load x "
               "pair_load_factor x (hosts - 1) / (1 or 100) (docs/laps.md).")
              .one_of({"host", "laps_artifact"}),
          real("workload.pair_load_factor", 0, "",
               "cdf_trace with load_rule = laps_artifact: the loadFactor of every line of the artifact's traffic "
               "pattern file (All2all: Rail 0.0158, Dragonfly 0.0091).")
              .range(0, 1e6),
      },
      {"workload.duration_us=20"}},
     [](const WorkloadContext& c) { return make_cdf_trace(trace_params(c), c.topo.num_hosts, c.seed, c.warnings); },
     // Poisson arrivals at load x host rate / mean size per sender over duration_us, plus the incast
     // events; about four messages per sender in progress at once (a load below 1 keeps queues short).
     [](const WorkloadSizeContext& c) {
       const auto& cfg = c.cfg;
       const auto r = load_cdf(cdf_source(cfg));
       const double mean = std::max(1.0, r.cdf.mean());
       const double senders = cfg.text("workload.destinations") == "one_to_all" ? 1 : c.topo.hosts;
       const double seconds = cfg.real("workload.duration_us") * 1e-6;
       const double load = offered_load(cfg, c.topo.hosts, r.scale);
       WorkloadSize s;
       s.entries = senders * load * c.topo.host_rate_bps / 8 / mean * seconds;
       if (cfg.real("workload.incast_interval_us") > 0)
         s.entries += cfg.real("workload.duration_us") / cfg.real("workload.incast_interval_us") *
                      static_cast<double>(cfg.integer("workload.incast_senders"));
       s.concurrent_bytes = senders * 4 * mean;
       s.in_progress = senders * 4;
       s.keys = "workload.duration_us, workload.load, workload.cdf";
       return s;
     },
     false,
     // workload.stream: the same entries, one at a time.
     [](const WorkloadContext& c) {
       const auto p = trace_params(c);
       auto r = load_cdf(p.cdf, p.cdf_options);
       if (c.warnings) c.warnings->insert(c.warnings->end(), r.warnings.begin(), r.warnings.end());
       return cdf_trace_stream(p, r.cdf, c.topo.num_hosts, c.seed, c.warnings);
     }}};
[[maybe_unused]] const bool checked = [] {
  declare_check([](const Config& c) {
    const bool artifact = c.text("workload.load_rule") == "laps_artifact";
    if (!artifact) {
      if (c.real("workload.pair_load_factor") != 0)
        throw UserError(c.where("workload.pair_load_factor") +
                        "workload.pair_load_factor is read with workload.load_rule = \"laps_artifact\" only");
      return;
    }
    if (c.text("workload.kind") != "cdf_trace")
      throw UserError(c.where("workload.load_rule") +
                      "workload.load_rule = \"laps_artifact\" needs workload.kind = "
                      "\"cdf_trace\", not \"" +
                      c.text("workload.kind") + "\"");
    if (!(c.real("workload.pair_load_factor") > 0))
      throw UserError(c.where_any({"workload.pair_load_factor", "workload.load_rule"}) +
                      "workload.load_rule = \"laps_artifact\" needs workload.pair_load_factor > 0 (the pattern "
                      "file's loadFactor, e.g. 0.0158 on Rail, 0.0091 on the Dragonfly)");
    if (c.text("workload.destinations") != "uniform")
      throw UserError(c.where("workload.destinations") +
                      "workload.load_rule = \"laps_artifact\" models the "
                      "All2all pattern: workload.destinations must be \"uniform\"");
  });
  return true;
}();

}  // namespace

}  // namespace lbsim::workload
