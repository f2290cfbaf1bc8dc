#include "analysis/balls.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include <fmt/core.h>

#include "core/error.h"
#include "core/stats.h"
#include "routing/tables.h"

namespace lbsim::analysis::balls {

namespace {

[[maybe_unused]] const bool declared = [] {
  using namespace config;
  declare({
      integer("balls.evs_bins", 32, "bins",
              "lbsim balls evs: uplinks n of the switch the EVs are spread over ([REPS] Fig. 14: 32).")
          .range(1, 1 << 20),
      text("balls.evs_flows", "1,32",
           "lbsim balls evs: comma-separated numbers of flows F; each flow throws its whole EVS of 2^k unique EVs "
           "([REPS] Fig. 14a/b: 1 and 32)."),
      integer("balls.evs_bits_min", 1, "bits", "lbsim balls evs: smallest EVS size exponent k (2^k EVs per flow).")
          .range(0, 24),
      integer("balls.evs_bits_max", 16, "bits", "lbsim balls evs: largest EVS size exponent k.").range(0, 24),
      integer("balls.evs_trials", 1000, "trials", "lbsim balls evs: independent throws per (F, k).").range(1, 1e8),
      flag("balls.evs_ecmp_hash", true,
           "lbsim balls evs: also place the EVs with the ECMP hash of lbsim's switches (routing::ecmp_hash) next to "
           "uniform draws."),
      text("balls.queue_models", "ops,recycled",
           "lbsim balls queue: comma-separated models: ops (uniform bins), recycled (recycled balls-into-bins, [REPS] "
           "sec. 5.1)."),
      text("balls.queue_bins", "5",
           "lbsim balls queue: comma-separated bin counts n (output ports; [REPS] Fig. 18: 5)."),
      real("balls.queue_lambda", 1.0, "fraction of n",
           "lbsim balls queue: arrivals per step as a fraction of n: floor(lambda n) balls plus one more with "
           "probability frac(lambda n) ([REPS] Fig. 17: 0.99).")
          .range(1e-9, 1),
      integer("balls.queue_steps", 200, "steps",
              "lbsim balls queue: time steps per run ([REPS] Fig. 17: 1000, Fig. 18: 200).")
          .range(1, 1e9),
      integer("balls.queue_bin_seeds", 1, "seeds",
              "lbsim balls queue: the first this many seeds of every (model, n) write each bin's queue per step "
              "(queue_bins.csv).")
          .range(0, 1e9),
      integer("balls.seeds", 20, "seeds",
              "lbsim balls queue/theorem: runs per (model, n), with seeds run.seed, run.seed + 1, ...")
          .range(1, 1e9),
      integer("balls.tau", 0, "balls",
              "Recycled model: threshold tau; 0 = ceil(4 ln n), the smallest integer of Theorem 5.1.")
          .range(0, 1e9),
      integer("balls.colors_per_bin", 0, "colours",
              "Recycled model: b, with b * n colours cycled in batches of n; 0 = ceil(2.4 ln n), the smallest integer "
              "of Theorem 5.1.")
          .range(0, 1e6),
      text("balls.tau_count", "before",
           "Recycled model: the count compared with tau when a ball is removed: before (the bin's balls including the "
           "removed one) or after (without it); [REPS] sec. 5.1 does not say.")
          .one_of({"before", "after"}),
      text("balls.recycle", "removed",
           "Recycled model: the colours a step throws: removed (the colours of the balls just removed, topped up with "
           "the next colours of the round-robin cycle: the model the App. B proof accounts for) or round_robin (the "
           "next n of the b n colours in round-robin order, the literal wording of [REPS] sec. 5.1; it did not "
           "converge for n >= 32 in our runs, docs/reps.md).")
          .one_of({"removed", "round_robin"}),
      text("balls.theorem_bins", "16,32,64,128",
           "lbsim balls theorem: comma-separated bin counts n (Theorem 5.1 needs n >= 16)."),
      integer("balls.theorem_max_steps", 1000000, "steps",
              "lbsim balls theorem: a run that has not converged after this many steps is reported as not converged.")
          .range(1, 1e12),
  });
  declare_check([](const Config& c) {
    if (c.integer("balls.evs_bits_min") > c.integer("balls.evs_bits_max"))
      throw UserError(fmt::format("{}balls.evs_bits_min ({}) must not exceed balls.evs_bits_max ({})",
                                  c.where_any({"balls.evs_bits_min", "balls.evs_bits_max"}),
                                  c.integer("balls.evs_bits_min"), c.integer("balls.evs_bits_max")));
  });
  return true;
}();

// Summary of a sample: mean, median, p99, max, min, standard deviation.
struct Summary {
  double mean = 0, median = 0, p99 = 0, max = 0, min = 0, sd = 0;
};
Summary summarize(const std::vector<double>& v) {
  Summary s;
  if (v.empty()) return s;
  s.mean = mean(v);
  s.median = percentile(v, 50);
  s.p99 = percentile(v, 99);
  s.max = *std::max_element(v.begin(), v.end());
  s.min = *std::min_element(v.begin(), v.end());
  double ss = 0;
  for (double x : v) ss += (x - s.mean) * (x - s.mean);
  s.sd = v.size() > 1 ? std::sqrt(ss / static_cast<double>(v.size() - 1)) : 0.0;
  return s;
}

std::string pct(double x) { return fmt::format("{:.2f}%", 100.0 * x); }

}  // namespace

// ---- EVS size ----------------------------------------------------------------------------------

const char* name(Placement p) { return p == Placement::Uniform ? "uniform" : "ecmp_hash"; }

double imbalance(std::int64_t max_load, std::int64_t balls, int bins) {
  return static_cast<double>(max_load) / (static_cast<double>(balls) / bins) - 1.0;
}

std::int64_t max_load_uniform(std::int64_t balls, int bins, Rng& rng, std::vector<std::int64_t>& counts) {
  counts.assign(static_cast<std::size_t>(bins), 0);
  for (std::int64_t i = 0; i < balls; ++i) ++counts[rng.below(static_cast<std::uint64_t>(bins))];
  return *std::max_element(counts.begin(), counts.end());
}

std::int64_t max_load_ecmp(int flows, std::int64_t evs, int bins, Rng& rng, std::vector<std::int64_t>& counts) {
  counts.assign(static_cast<std::size_t>(bins), 0);
  // A new switch (EcmpRouter draws one salt per switch from the run seed) and new flows per trial.
  // The flows come from distinct senders (src = 0..F-1, [REPS] sec. 4.5.2: "each flow is from a
  // different sender") to random destinations with random flow ids.
  const std::uint64_t salt = rng.next();
  for (int f = 0; f < flows; ++f) {
    const auto dst = static_cast<std::int32_t>(flows + static_cast<std::int64_t>(rng.below(1u << 16)));
    const auto flow = static_cast<std::uint32_t>(rng.below(1u << 20));
    for (std::int64_t ev = 0; ev < evs; ++ev)
      ++counts[routing::ecmp_hash(f, dst, flow, static_cast<std::uint32_t>(ev), salt) %
               static_cast<std::uint64_t>(bins)];
  }
  return *std::max_element(counts.begin(), counts.end());
}

double expected_max_load(std::int64_t balls, int bins) {
  if (balls <= 0 || bins <= 0) return 0.0;
  const double mu = static_cast<double>(balls) / bins;
  // P(max >= j) = 1 - (1 - P(X >= j))^n with X ~ Poisson(mu). Below mu - 15 sd the tail is 1 to
  // double precision (and so is P(max >= j)); above mu + 15 sd + 40 its contribution is < 1e-40 n.
  const auto lo = static_cast<std::int64_t>(std::max(0.0, std::floor(mu - 15.0 * std::sqrt(mu) - 20.0)));
  const auto hi = static_cast<std::int64_t>(std::ceil(mu + 15.0 * std::sqrt(mu) + 40.0));
  std::vector<double> pmf(static_cast<std::size_t>(hi - lo + 1));
  for (std::int64_t j = lo; j <= hi; ++j)
    pmf[static_cast<std::size_t>(j - lo)] =
        std::exp(-mu + static_cast<double>(j) * std::log(mu) - std::lgamma(static_cast<double>(j) + 1.0));
  double e = static_cast<double>(lo), tail = 0.0;
  std::vector<double> tails(pmf.size());
  for (std::size_t i = pmf.size(); i-- > 0;) tails[i] = (tail += pmf[i]);  // tails[i] = P(X >= lo + i)
  for (std::int64_t j = std::max<std::int64_t>(1, lo + 1); j <= hi; ++j) {
    const double t = std::min(1.0, tails[static_cast<std::size_t>(j - lo)]);
    e += t >= 1.0 ? 1.0 : -std::expm1(static_cast<double>(bins) * std::log1p(-t));
  }
  return e;
}

EvsResult run_evs(const EvsParams& p, const Progress& progress) {
  if (p.bins < 1) throw UserError("balls.evs_bins must be at least 1");
  EvsResult r;
  r.params = p;
  std::vector<Placement> placements{Placement::Uniform};
  if (p.ecmp_hash) placements.push_back(Placement::EcmpHash);
  double work_total = 0, work_done = 0;
  for (int f : p.flows)
    for (int k = p.bits_min; k <= p.bits_max; ++k) work_total += static_cast<double>(f) * std::ldexp(1.0, k);
  work_total *= static_cast<double>(p.trials) * static_cast<double>(placements.size());
  std::vector<std::int64_t> counts;
  for (const auto pl : placements) {
    for (int f : p.flows) {
      for (int k = p.bits_min; k <= p.bits_max; ++k) {
        const std::int64_t evs = std::int64_t{1} << k;
        const std::int64_t balls = evs * f;
        std::vector<double> lam;
        lam.reserve(static_cast<std::size_t>(p.trials));
        for (int t = 0; t < p.trials; ++t) {
          // One stream per (placement, F, k, trial): a trial's draws do not depend on the others.
          Rng rng(p.seed, hash_name(fmt::format("balls-evs/{}/{}/{}/{}", name(pl), p.bins, f, k)),
                  static_cast<std::uint64_t>(t));
          const std::int64_t l = pl == Placement::Uniform ? max_load_uniform(balls, p.bins, rng, counts)
                                                          : max_load_ecmp(f, evs, p.bins, rng, counts);
          const double x = imbalance(l, balls, p.bins);
          lam.push_back(x);
          r.trials.push_back({pl, f, k, t, l, x});
          work_done += static_cast<double>(balls);
          if (progress && (t & 15) == 0) progress(work_done / work_total);
        }
        const auto s = summarize(lam);
        r.rows.push_back({pl, p.bins, f, k, evs, balls, p.trials, s.mean, s.median, s.p99, s.max, s.min, s.sd,
                          expected_max_load(balls, p.bins) / (static_cast<double>(balls) / p.bins) - 1.0});
      }
    }
  }
  if (progress) progress(1.0);
  return r;
}

std::string evs_csv(const EvsResult& r) {
  std::string s = "placement,bins,flows,ev_bits,evs,balls,trials,mean,median,p99,max,min,sd,poisson_mean\n";
  for (const auto& x : r.rows)
    s += fmt::format("{},{},{},{},{},{},{},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f}\n", name(x.placement),
                     x.bins, x.flows, x.bits, x.evs, x.balls, x.trials, x.mean, x.median, x.p99, x.max, x.min, x.sd,
                     x.poisson);
  return s;
}

std::string evs_trials_csv(const EvsResult& r) {
  std::string s = "placement,bins,flows,ev_bits,trial,max_load,imbalance\n";
  for (const auto& x : r.trials)
    s += fmt::format("{},{},{},{},{},{},{:.6f}\n", name(x.placement), r.params.bins, x.flows, x.bits, x.trial,
                     x.max_load, x.imbalance);
  return s;
}

std::string evs_report(const EvsResult& r) {
  std::string s =
      fmt::format("[REPS] Fig. 14: load imbalance of F flows x 2^k unique EVs on {} uplinks, {} trials, seed {}\n",
                  r.params.bins, r.params.trials, r.params.seed);
  s += fmt::format("{:<10} {:>5} {:>3} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}\n", "placement", "flows", "k", "mean",
                   "median", "p99", "max", "sd", "poisson");
  for (const auto& x : r.rows)
    s += fmt::format("{:<10} {:>5} {:>3} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9}\n", name(x.placement), x.flows, x.bits,
                     pct(x.mean), pct(x.median), pct(x.p99), pct(x.max), pct(x.sd), pct(x.poisson));
  // The paper's statements are about 32 flows ([REPS] sec. 4.5.2).
  for (const auto pl : {Placement::Uniform, Placement::EcmpHash}) {
    const EvsRow* k7 = nullptr;
    const EvsRow* k8 = nullptr;
    const EvsRow* k16 = nullptr;
    double below8_min_median = std::numeric_limits<double>::infinity();
    for (const auto& x : r.rows) {
      if (x.placement != pl || x.flows != 32) continue;
      if (x.bits < 8) below8_min_median = std::min(below8_min_median, x.median);
      if (x.bits == 7) k7 = &x;
      if (x.bits == 8) k8 = &x;
      if (x.bits == 16) k16 = &x;
    }
    if (!k7 && !k16) continue;
    s += fmt::format("\n{} placement, 32 flows:\n", name(pl));
    if (k7)
      s += fmt::format(
          "  paper: fewer than 2^8 EVs can give more than 10% imbalance.   ours: k < 8 median >= {} "
          "(k = 7: mean {}, p99 {}; k = 8: mean {}) -> {}\n",
          pct(below8_min_median), pct(k7->mean), pct(k7->p99), k8 ? pct(k8->mean) : "-",
          below8_min_median > 0.10 ? "agrees" : "differs");
    if (k16)
      s += fmt::format(
          "  paper: 2^16 EVs give less than 1% imbalance.                ours: k = 16 mean {}, p99 {}, max {} -> {}\n",
          pct(k16->mean), pct(k16->p99), pct(k16->max),
          k16->p99 < 0.01 ? "agrees (p99 < 1%)"
                          : (k16->mean < 0.01 ? "agrees on the mean, not for every trial" : "differs"));
  }
  return s;
}

// ---- queue models ------------------------------------------------------------------------------

const char* name(Model m) { return m == Model::Ops ? "ops" : "recycled"; }
const char* name(TauCount t) { return t == TauCount::Before ? "before" : "after"; }
const char* name(Recycle r) { return r == Recycle::RoundRobin ? "round_robin" : "removed"; }

int theorem_tau(int bins) { return static_cast<int>(std::ceil(4.0 * std::log(static_cast<double>(bins)) - 1e-12)); }
int theorem_colors_per_bin(int bins) {
  return std::max(1, static_cast<int>(std::ceil(2.4 * std::log(static_cast<double>(bins)) - 1e-12)));
}

QueueModel::QueueModel(const QueueParams& p)
    : model_(p.model),
      n_(p.bins),
      tau_(p.tau > 0 ? p.tau : theorem_tau(p.bins)),
      b_(p.colors_per_bin > 0 ? p.colors_per_bin : theorem_colors_per_bin(p.bins)),
      lambda_(p.lambda),
      count_(p.tau_count),
      recycle_(p.recycle),
      draw_rng_(p.seed, hash_name("balls-queue/draw"), static_cast<std::uint64_t>(p.bins)),
      arrival_rng_(p.seed, hash_name("balls-queue/arrivals"), static_cast<std::uint64_t>(p.bins)),
      q_(static_cast<std::size_t>(std::max(1, p.bins))) {
  if (p.bins < 1) throw UserError(fmt::format("balls: n = {} bins; at least 1 is needed", p.bins));
  if (!(p.lambda > 0 && p.lambda <= 1)) throw UserError(fmt::format("balls: lambda = {} must be in (0, 1]", p.lambda));
  if (model_ == Model::Recycled) memory_.assign(static_cast<std::size_t>(b_) * n_, -1);
}

std::int64_t QueueModel::max_queue() const {
  std::size_t m = 0;
  for (const auto& q : q_) m = std::max(m, q.size());
  return static_cast<std::int64_t>(m);
}

double QueueModel::remember_fraction() const {
  return memory_.empty() ? 0.0 : static_cast<double>(remembering_) / static_cast<double>(memory_.size());
}

double QueueModel::settled_fraction() const {
  if (memory_.empty()) return 0.0;
  if (total_ == 0) return 1.0;
  std::int64_t settled = 0;
  for (int i = 0; i < n_; ++i)
    for (const auto c : q_[static_cast<std::size_t>(i)]) settled += memory_[static_cast<std::size_t>(c)] == i;
  return static_cast<double>(settled) / static_cast<double>(total_);
}

void QueueModel::remove_and_remember() {
  for (int i = 0; i < n_; ++i) {
    auto& q = q_[i];
    if (q.empty()) continue;
    const auto before = static_cast<std::int64_t>(q.size());
    const std::int32_t c = q.front();  // FIFO ([REPS] sec. 5.1)
    q.pop_front();
    --total_;
    if (model_ != Model::Recycled) continue;
    removed_.push_back(c);
    const std::int64_t count = count_ == TauCount::Before ? before : before - 1;
    auto& mem = memory_[static_cast<std::size_t>(c)];
    if (count <= tau_) {
      // "the color of the removed ball remembers the bin, unless it already remembers another bin"
      if (mem < 0) {
        mem = i;
        ++remembering_;
        last_change_ = t_;
      }
    } else if (mem >= 0) {
      // "If the bin has more than tau balls, the color forgets its bin": whatever bin it remembers
      // (it can differ from bin i only when two balls of the colour were in flight).
      mem = -1;
      --remembering_;
      last_change_ = t_;
    }
  }
}

void QueueModel::step() {
  step([this] { return static_cast<int>(draw_rng_.below(static_cast<std::uint64_t>(n_))); });
}

void QueueModel::step(const std::function<int()>& draw) {
  ++t_;
  removed_.clear();
  remove_and_remember();
  const double expected = lambda_ * n_;
  std::int64_t arrivals = static_cast<std::int64_t>(std::floor(expected));
  if (expected > static_cast<double>(arrivals) && arrival_rng_.bernoulli(expected - static_cast<double>(arrivals)))
    ++arrivals;
  const auto colours = static_cast<std::int64_t>(memory_.size());
  for (std::int64_t a = 0; a < arrivals; ++a) {
    std::int32_t colour = -1;
    int bin = -1;
    if (model_ == Model::Recycled) {
      // Colours in round-robin order, n per batch at lambda = 1 ([REPS] sec. 5.1); or the removed
      // balls' colours first (App. B's accounting).
      if (recycle_ == Recycle::Removed && a < static_cast<std::int64_t>(removed_.size()))
        colour = removed_[static_cast<std::size_t>(a)];
      else
        colour = static_cast<std::int32_t>(cursor_++ % colours);
      bin = memory_[static_cast<std::size_t>(colour)];
    }
    if (bin < 0) {
      bin = draw();
      if (bin < 0 || bin >= n_) throw std::logic_error(fmt::format("balls: drawn bin {} outside 0..{}", bin, n_ - 1));
    }
    q_[static_cast<std::size_t>(bin)].push_back(colour);
    ++total_;
  }
  observe_convergence();
}

void QueueModel::observe_convergence() {
  // Only the recycled model at full injection has no randomness left once every colour remembers.
  if (model_ != Model::Recycled || lambda_ < 1.0 || converged_) return;
  if (recycle_ == Recycle::Removed) {
    // The count the next removal compares with tau is the bin's count now (before) or one less.
    const std::int64_t limit = count_ == TauCount::Before ? tau_ : tau_ + 1;
    for (int i = 0; i < n_; ++i) {
      const auto& q = q_[static_cast<std::size_t>(i)];
      if (q.empty() || static_cast<std::int64_t>(q.size()) > limit) return;
      for (const auto c : q)
        if (memory_[static_cast<std::size_t>(c)] != i) return;
    }
    converged_ = true;
    detected_ = t_;
    return;
  }
  if (remembering_ != static_cast<std::int64_t>(memory_.size()) || t_ % b_ != 0) return;
  if (snapshot_change_ == last_change_ && snapshot_ == q_) {
    converged_ = true;
    detected_ = t_;
    return;
  }
  snapshot_ = q_;
  snapshot_change_ = last_change_;
}

QueueResult run_queue(const QueueRunParams& p, const Progress& progress) {
  QueueResult r;
  r.params = p;
  const double total = static_cast<double>(p.models.size() * p.bins.size()) * p.seeds * p.steps;
  double done = 0;
  for (const auto model : p.models) {
    for (const int n : p.bins) {
      for (int s = 0; s < p.seeds; ++s) {
        const auto seed = p.seed + static_cast<std::uint64_t>(s);
        QueueModel m({model, n, p.lambda, p.tau, p.colors_per_bin, p.tau_count, p.recycle, seed});
        std::vector<std::int64_t> maxes;
        maxes.reserve(static_cast<std::size_t>(p.steps));
        for (int t = 1; t <= p.steps; ++t) {
          m.step();
          const auto mx = m.max_queue();
          maxes.push_back(mx);
          r.steps.push_back(
              {model, n, static_cast<int>(seed), t, mx, m.total(), m.remember_fraction(), m.settled_fraction()});
          if (s < p.bin_seeds)
            for (int b = 0; b < n; ++b) r.bin_rows.push_back({model, n, static_cast<int>(seed), t, b, m.queue(b)});
        }
        QueueRunRow row{model,
                        n,
                        static_cast<int>(seed),
                        m.tau(),
                        model == Model::Recycled ? m.colors() / n : 0,
                        m.max_queue(),
                        *std::max_element(maxes.begin(), maxes.end()),
                        m.total(),
                        m.remember_fraction(),
                        m.converged(),
                        m.converged() ? m.last_change() : 0,
                        0};
        if (m.converged())
          for (std::int64_t t = m.last_change() + 1; t <= p.steps; ++t)
            row.after_max = std::max(row.after_max, maxes[static_cast<std::size_t>(t - 1)]);
        r.runs.push_back(row);
        done += p.steps;
        if (progress) progress(done / total);
      }
    }
  }
  return r;
}

std::string queue_steps_csv(const QueueResult& r) {
  std::ostringstream s;
  s << "model,bins,seed,step,max_queue,total,remember_fraction,settled_fraction\n";
  for (const auto& x : r.steps)
    s << fmt::format("{},{},{},{},{},{},{:.6f},{:.6f}\n", name(x.model), x.bins, x.seed, x.step, x.max_queue, x.total,
                     x.remember, x.settled);
  return s.str();
}

std::string queue_bins_csv(const QueueResult& r) {
  std::ostringstream s;
  s << "model,bins,seed,step,bin,queue\n";
  for (const auto& x : r.bin_rows)
    s << fmt::format("{},{},{},{},{},{}\n", name(x.model), x.bins, x.seed, x.step, x.bin, x.queue);
  return s.str();
}

std::string queue_runs_csv(const QueueResult& r) {
  std::string s =
      "model,bins,seed,lambda,steps,tau,colors_per_bin,tau_count,final_max_queue,run_max_queue,final_total,"
      "final_remember_fraction,converged,converged_step,max_queue_after_convergence,recycle\n";
  for (const auto& x : r.runs)
    s += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{:.6f},{},{},{},{}\n", name(x.model), x.bins, x.seed,
                     r.params.lambda, r.params.steps, x.tau, x.colors_per_bin, name(r.params.tau_count), x.final_max,
                     x.run_max, x.final_total, x.final_remember, x.converged ? 1 : 0, x.converged_step, x.after_max,
                     name(r.params.recycle));
  return s;
}

std::string queue_report(const QueueResult& r) {
  const auto& p = r.params;
  std::string s = fmt::format(
      "[REPS] sec. 5.1 queue model: lambda = {}, {} steps, {} seed(s) from {}; recycled model: "
      "tau count '{}', recycle '{}'\n",
      p.lambda, p.steps, p.seeds, p.seed, name(p.tau_count), name(p.recycle));
  s += fmt::format("{:<9} {:>5} {:>4} {:>3} {:>22} {:>22} {:>10} {:>18}\n", "model", "n", "tau", "b",
                   "max queue at end", "max queue over run", "converged", "steps to converge");
  s += fmt::format("{:<9} {:>5} {:>4} {:>3} {:>22} {:>22} {:>10} {:>18}\n", "", "", "", "", "mean [min..max]",
                   "mean [min..max]", "", "mean [min..max]");
  std::map<std::pair<int, int>, double> final_mean;  // (model, n) -> mean final max queue
  for (const auto model : p.models) {
    for (const int n : p.bins) {
      std::vector<double> fin, run, conv;
      int tau = 0, b = 0, converged = 0;
      for (const auto& x : r.runs) {
        if (x.model != model || x.bins != n) continue;
        fin.push_back(static_cast<double>(x.final_max));
        run.push_back(static_cast<double>(x.run_max));
        tau = x.tau;
        b = x.colors_per_bin;
        if (x.converged) {
          ++converged;
          conv.push_back(static_cast<double>(x.converged_step));
        }
      }
      const auto f = summarize(fin), u = summarize(run), c = summarize(conv);
      final_mean[{static_cast<int>(model), n}] = f.mean;
      const bool rec = model == Model::Recycled;
      s += fmt::format("{:<9} {:>5} {:>4} {:>3} {:>22} {:>22} {:>10} {:>18}\n", name(model), n,
                       rec ? std::to_string(tau) : "-", rec ? std::to_string(b) : "-",
                       fmt::format("{:.1f} [{:.0f}..{:.0f}]", f.mean, f.min, f.max),
                       fmt::format("{:.1f} [{:.0f}..{:.0f}]", u.mean, u.min, u.max),
                       rec && p.lambda >= 1.0 ? fmt::format("{}/{}", converged, fin.size()) : "-",
                       conv.empty() ? "-" : fmt::format("{:.0f} [{:.0f}..{:.0f}]", c.mean, c.min, c.max));
    }
  }
  // Fig. 17: "larger numbers of bins (output ports) result in faster-growing maximum queues".
  if (p.bins.size() > 1) {
    for (const auto model : p.models) {
      if (model != Model::Ops) continue;  // Fig. 17 shows OPS
      bool increasing = true;
      for (std::size_t i = 1; i < p.bins.size(); ++i)
        if (final_mean[{static_cast<int>(model), p.bins[i]}] < final_mean[{static_cast<int>(model), p.bins[i - 1]}])
          increasing = false;
      s += fmt::format(
          "\n{}: paper (Fig. 17): the max queue grows faster for larger n.   ours: mean max queue after {} steps "
          "{} in n (in the order given) -> {}\n",
          name(model), p.steps, increasing ? "increases" : "does not increase", increasing ? "agrees" : "differs");
    }
  }
  // Fig. 18: OPS queues grow without bound at full injection; recycled queues converge below tau.
  for (const int n : p.bins) {
    const QueueRunRow* any = nullptr;
    int conv = 0, below = 0, runs = 0;
    std::int64_t after_max = 0;
    for (const auto& x : r.runs) {
      if (x.model != Model::Recycled || x.bins != n) continue;
      any = &x;
      ++runs;
      if (x.converged) {
        ++conv;
        after_max = std::max(after_max, x.after_max);
        if (x.after_max <= x.tau) ++below;
      }
    }
    if (!any || p.lambda < 1.0) continue;
    s += fmt::format(
        "recycled n = {}: paper (Fig. 18): converges, every queue below tau = {}.   ours: {}/{} runs converged "
        "within {} steps; after convergence the max queue is {} (<= tau in {}/{})\n",
        n, any->tau, conv, runs, p.steps, after_max, below, conv);
    if (final_mean.count({static_cast<int>(Model::Ops), n}))
      s += fmt::format(
          "ops n = {}: paper (Fig. 18): queues grow without bound.   ours: mean max queue {:.1f} after {} steps "
          "(recycled {:.1f})\n",
          n, final_mean[{static_cast<int>(Model::Ops), n}], p.steps,
          final_mean[{static_cast<int>(Model::Recycled), n}]);
  }
  return s;
}

// ---- Theorem 5.1 -------------------------------------------------------------------------------

TheoremResult run_theorem(const TheoremParams& p, const Progress& progress) {
  TheoremResult r;
  r.params = p;
  const double total = static_cast<double>(p.bins.size()) * p.seeds;
  double done = 0;
  for (const int n : p.bins) {
    for (int s = 0; s < p.seeds; ++s) {
      const auto seed = p.seed + static_cast<std::uint64_t>(s);
      QueueModel m({Model::Recycled, n, 1.0, p.tau, p.colors_per_bin, p.tau_count, p.recycle, seed});
      std::int64_t max_q = 0, warmup = 0;
      while (!m.converged() && m.steps() < p.max_steps) {
        m.step();
        max_q = std::max(max_q, m.max_queue());
        if (warmup == 0) {
          bool all = true;
          for (int b = 0; b < n && all; ++b) all = m.queue(b) > 0;
          if (all) warmup = m.steps();
        }
      }
      TheoremRun run{n,
                     static_cast<int>(seed),
                     m.tau(),
                     m.colors() / n,
                     m.converged(),
                     m.converged() ? m.last_change() : m.steps(),
                     m.converged() ? m.converged_detected_at() : 0,
                     max_q,
                     0,
                     warmup,
                     m.total()};
      if (m.converged()) {
        // One more period: the state repeats, so this is the queue of the converged process; it
        // also checks the detector (a memory change here would be a bug).
        const auto change = m.last_change();
        for (int t = 0; t < m.colors() / n; ++t) {
          m.step();
          run.max_after = std::max(run.max_after, m.max_queue());
        }
        if (m.last_change() != change) throw std::logic_error("balls: a memory changed after convergence was detected");
      }
      r.runs.push_back(run);
      done += 1;
      if (progress) progress(done / total);
    }
  }
  return r;
}

std::string theorem_csv(const TheoremResult& r) {
  std::string s =
      "tau_count,recycle,bins,seed,tau,colors_per_bin,converged,steps,detected_step,warmup_steps,max_queue,"
      "max_queue_converged,final_total,n_ln_n,steps_per_n_ln_n,max_queue_per_ln_n\n";
  for (const auto& x : r.runs) {
    const double ln = std::log(static_cast<double>(x.bins));
    s += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{:.3f},{:.4f},{:.4f}\n", name(r.params.tau_count),
                     name(r.params.recycle), x.bins, x.seed, x.tau, x.colors_per_bin, x.converged ? 1 : 0, x.steps,
                     x.detected, x.warmup, x.max_queue, x.max_after, x.total, x.bins * ln,
                     static_cast<double>(x.steps) / (x.bins * ln), static_cast<double>(x.max_queue) / ln);
  }
  return s;
}

namespace {
struct TheoremGroup {
  int bins = 0, tau = 0, b = 0, runs = 0, converged = 0;
  int stuck = 0;  // runs that ended with more balls than n bins can hold at the threshold
  Summary steps, ratio, maxq, maxq_ratio, after, warmup, total;
};
std::vector<TheoremGroup> theorem_groups(const TheoremResult& r) {
  std::vector<TheoremGroup> out;
  for (const int n : r.params.bins) {
    TheoremGroup g;
    g.bins = n;
    std::vector<double> st, ra, mq, mr, af, wu, to;
    const double ln = std::log(static_cast<double>(n));
    for (const auto& x : r.runs) {
      if (x.bins != n) continue;
      ++g.runs;
      g.tau = x.tau;
      g.b = x.colors_per_bin;
      to.push_back(static_cast<double>(x.total));
      // At lambda = 1 the number of balls never decreases (n arrive, at most n leave), and a
      // converged state has every bin at the threshold or below: more balls than that is final.
      const std::int64_t limit = r.params.tau_count == TauCount::Before ? x.tau : x.tau + 1;
      if (x.total > static_cast<std::int64_t>(n) * limit) ++g.stuck;
      mq.push_back(static_cast<double>(x.max_queue));
      mr.push_back(static_cast<double>(x.max_queue) / ln);
      wu.push_back(static_cast<double>(x.warmup));
      if (!x.converged) continue;
      ++g.converged;
      st.push_back(static_cast<double>(x.steps));
      ra.push_back(static_cast<double>(x.steps) / (n * ln));
      af.push_back(static_cast<double>(x.max_after));
    }
    g.steps = summarize(st);
    g.ratio = summarize(ra);
    g.maxq = summarize(mq);
    g.maxq_ratio = summarize(mr);
    g.after = summarize(af);
    g.warmup = summarize(wu);
    g.total = summarize(to);
    out.push_back(g);
  }
  return out;
}
}  // namespace

std::string theorem_summary_csv(const TheoremResult& r) {
  std::string s =
      "tau_count,recycle,bins,tau,colors_per_bin,runs,converged,steps_mean,steps_median,steps_min,steps_max,steps_sd,"
      "steps_per_n_ln_n_mean,steps_per_n_ln_n_max,max_queue_mean,max_queue_max,max_queue_per_ln_n_mean,"
      "max_queue_converged_max,warmup_mean,final_total_mean,over_threshold_runs\n";
  for (const auto& g : theorem_groups(r))
    s += fmt::format(
        "{},{},{},{},{},{},{},{:.1f},{:.1f},{:.0f},{:.0f},{:.1f},{:.4f},{:.4f},{:.2f},{:.0f},{:.4f},{:.0f},{:.1f},{:."
        "1f},{}\n",
        name(r.params.tau_count), name(r.params.recycle), g.bins, g.tau, g.b, g.runs, g.converged, g.steps.mean,
        g.steps.median, g.steps.min, g.steps.max, g.steps.sd, g.ratio.mean, g.ratio.max, g.maxq.mean, g.maxq.max,
        g.maxq_ratio.mean, g.after.max, g.warmup.mean, g.total.mean, g.stuck);
  return s;
}

std::string theorem_report(const TheoremResult& r) {
  const auto& p = r.params;
  std::string s = fmt::format(
      "[REPS] Theorem 5.1: recycled balls-into-bins at lambda = 1, tau count '{}', recycle '{}', {} seed(s) from {}, "
      "at "
      "most {} steps\n",
      name(p.tau_count), name(p.recycle), p.seeds, p.seed, p.max_steps);
  s += fmt::format("{:>5} {:>4} {:>3} {:>9} {:>24} {:>14} {:>18} {:>10} {:>12} {:>14}\n", "n", "tau", "b", "converged",
                   "steps mean [min..max]", "steps/(n ln n)", "max queue [max]", "queue/ln n", "conv. queue",
                   "balls > n tau");
  for (const auto& g : theorem_groups(r))
    s += fmt::format("{:>5} {:>4} {:>3} {:>9} {:>24} {:>14} {:>18} {:>10} {:>12} {:>14}\n", g.bins, g.tau, g.b,
                     fmt::format("{}/{}", g.converged, g.runs),
                     g.converged ? fmt::format("{:.0f} [{:.0f}..{:.0f}]", g.steps.mean, g.steps.min, g.steps.max) : "-",
                     g.converged ? fmt::format("{:.2f}", g.ratio.mean) : "-",
                     fmt::format("{:.1f} [{:.0f}]", g.maxq.mean, g.maxq.max), fmt::format("{:.2f}", g.maxq_ratio.mean),
                     g.converged ? fmt::format("{:.0f}", g.after.max) : "-", fmt::format("{}/{}", g.stuck, g.runs));
  s +=
      "paper: for n >= 16, tau >= 4 ln n, b >= 2.4 ln n it converges in O(n log n) steps and every bin holds O(log n)\n"
      "balls throughout, with probability 1 - o(1). ours: steps/(n ln n) and queue/ln n should stay bounded as n "
      "grows;\n"
      "'conv. queue' is the largest queue of the converged state; 'balls > n tau' counts runs that ended with more "
      "balls\n"
      "than the bins hold at the threshold (tau + 1 with tau count 'after'), from where convergence is impossible.\n";
  return s;
}

// ---- configuration -----------------------------------------------------------------------------

std::vector<int> int_list(const config::Config& c, const std::string& key, int lo, int hi) {
  const std::string& text = c.text(key);
  std::vector<int> out;
  std::stringstream ss(text);
  std::string item;
  const auto bad = [&](const std::string& why) {
    return UserError(fmt::format("{}{} = \"{}\": {} (a comma-separated list of integers in [{}, {}], e.g. \"16,32\")",
                                 c.where(key), key, text, why, lo, hi));
  };
  while (std::getline(ss, item, ',')) {
    const auto b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \t");
    if (b == std::string::npos) throw bad("empty item");
    item = item.substr(b, e - b + 1);
    std::size_t pos = 0;
    long long v = 0;
    try {
      v = std::stoll(item, &pos);
    } catch (const std::exception&) {
      throw bad(fmt::format("'{}' is not an integer", item));
    }
    if (pos != item.size()) throw bad(fmt::format("'{}' is not an integer", item));
    if (v < lo || v > hi) throw bad(fmt::format("{} is out of range", v));
    out.push_back(static_cast<int>(v));
  }
  if (out.empty()) throw bad("no value");
  return out;
}

EvsParams evs_params(const config::Config& c) {
  EvsParams p;
  p.bins = static_cast<int>(c.integer("balls.evs_bins"));
  p.flows = int_list(c, "balls.evs_flows", 1, 1 << 20);
  p.bits_min = static_cast<int>(c.integer("balls.evs_bits_min"));
  p.bits_max = static_cast<int>(c.integer("balls.evs_bits_max"));
  p.trials = static_cast<int>(c.integer("balls.evs_trials"));
  p.ecmp_hash = c.flag("balls.evs_ecmp_hash");
  p.seed = static_cast<std::uint64_t>(c.integer("run.seed"));
  return p;
}

namespace {
TauCount tau_count(const config::Config& c) {
  return c.text("balls.tau_count") == "after" ? TauCount::After : TauCount::Before;
}
Recycle recycle(const config::Config& c) {
  return c.text("balls.recycle") == "removed" ? Recycle::Removed : Recycle::RoundRobin;
}
}  // namespace

QueueRunParams queue_params(const config::Config& c) {
  QueueRunParams p;
  p.models.clear();
  std::stringstream ss(c.text("balls.queue_models"));
  std::string item;
  while (std::getline(ss, item, ',')) {
    const auto b = item.find_first_not_of(" \t"), e = item.find_last_not_of(" \t");
    item = b == std::string::npos ? "" : item.substr(b, e - b + 1);
    if (item == "ops")
      p.models.push_back(Model::Ops);
    else if (item == "recycled")
      p.models.push_back(Model::Recycled);
    else
      throw UserError(fmt::format("{}balls.queue_models = \"{}\": '{}' is not a model (ops, recycled){}",
                                  c.where("balls.queue_models"), c.text("balls.queue_models"), item,
                                  config::did_you_mean(item, {"ops", "recycled"})));
  }
  if (p.models.empty())
    throw UserError(fmt::format("{}balls.queue_models is empty (ops, recycled)", c.where("balls.queue_models")));
  p.bins = int_list(c, "balls.queue_bins", 1, 1 << 20);
  p.lambda = c.real("balls.queue_lambda");
  p.steps = static_cast<int>(c.integer("balls.queue_steps"));
  p.seeds = static_cast<int>(c.integer("balls.seeds"));
  p.tau = static_cast<int>(c.integer("balls.tau"));
  p.colors_per_bin = static_cast<int>(c.integer("balls.colors_per_bin"));
  p.tau_count = tau_count(c);
  p.recycle = recycle(c);
  p.bin_seeds = static_cast<int>(c.integer("balls.queue_bin_seeds"));
  p.seed = static_cast<std::uint64_t>(c.integer("run.seed"));
  return p;
}

TheoremParams theorem_params(const config::Config& c) {
  TheoremParams p;
  p.bins = int_list(c, "balls.theorem_bins", 1, 1 << 20);
  p.seeds = static_cast<int>(c.integer("balls.seeds"));
  p.max_steps = c.integer("balls.theorem_max_steps");
  p.tau = static_cast<int>(c.integer("balls.tau"));
  p.colors_per_bin = static_cast<int>(c.integer("balls.colors_per_bin"));
  p.tau_count = tau_count(c);
  p.recycle = recycle(c);
  p.seed = static_cast<std::uint64_t>(c.integer("run.seed"));
  return p;
}

}  // namespace lbsim::analysis::balls
