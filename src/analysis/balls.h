// Balls-into-bins models of the REPS paper: no packets, a few counters per bin.
//
// 1. EVS-size load imbalance ([REPS] sec. 4.5.2, Fig. 14): each of F flows throws 2^k unique EVs
//    (balls) onto n uplinks (bins), either uniformly at random (the paper's model) or through the
//    ECMP hash lbsim's switches use (routing::ecmp_hash: flow header + EV -> port). The load
//    imbalance is lambda = l(m, n) / (m / n) - 1 with l the maximum load of m = F * 2^k balls.
// 2. The switch queue model of [REPS] sec. 5.1 (Fig. 17, 18, Theorem 5.1, App. B): every step each
//    non-empty bin removes its oldest ball, then about lambda * n balls arrive. OPS throws them
//    uniformly; recycled balls-into-bins cycles b * n colours in batches and a colour remembers the
//    bin its ball left while that bin was short (at most tau balls) and forgets it when it was long.
//
// Everything is deterministic for a seed: each trial or run draws from its own core/rng.h stream.
// The config keys ([balls]) are declared in balls.cpp; docs/reps.md explains the models, the
// readings chosen where the paper's wording leaves room, and the measured figures.
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "core/config.h"
#include "core/rng.h"

namespace lbsim::analysis::balls {

// Called with the fraction of the work done (0..1); may be empty.
using Progress = std::function<void(double)>;

// ---- EVS size (Fig. 14) ------------------------------------------------------------------------

enum class Placement { Uniform, EcmpHash };
const char* name(Placement p);

struct EvsParams {
  int bins = 32;                    // n: uplinks of the switch
  std::vector<int> flows{1, 32};    // F: flows at the switch, each with its own header fields
  int bits_min = 1, bits_max = 16;  // k: each flow throws its 2^k EVs (the whole EVS)
  int trials = 1000;
  bool ecmp_hash = true;  // also place the EVs with routing::ecmp_hash
  std::uint64_t seed = 1;
};

// Load imbalance of a maximum load over m balls in n bins: l / (m / n) - 1 ([REPS] sec. 4.5.2).
double imbalance(std::int64_t max_load, std::int64_t balls, int bins);

// The maximum load of `balls` balls thrown uniformly into `bins` bins (counts is scratch space).
std::int64_t max_load_uniform(std::int64_t balls, int bins, Rng& rng, std::vector<std::int64_t>& counts);

// The maximum load when each of `flows` flows sends the EVs 0 .. evs-1 through the ECMP hash of one
// switch: bin = ecmp_hash(src, dst, flow, ev, salt) % bins. The header (src, dst, flow id) of each
// flow and the switch's salt are drawn from `rng` (a new switch and new flows per trial), so only
// the hash decides where the EVs of one flow go.
std::int64_t max_load_ecmp(int flows, std::int64_t evs, int bins, Rng& rng, std::vector<std::int64_t>& counts);

// Expected maximum load of m balls in n bins with the bins' loads approximated by independent
// Poisson(m / n) variables: sum over j >= 1 of 1 - P(X < j)^n. A closed-form reference for the
// simulated values (for m = n it grows like ln n / ln ln n, for m / n >> ln n it is
// m / n + sqrt(2 (m / n) ln n) to first order, [REPS] sec. 4.5.2 after Raab and Steger).
double expected_max_load(std::int64_t balls, int bins);

struct EvsTrial {
  Placement placement;
  int flows, bits, trial;
  std::int64_t max_load;
  double imbalance;
};
struct EvsRow {
  Placement placement;
  int bins, flows, bits;
  std::int64_t evs, balls;
  int trials;
  double mean, median, p99, max, min, sd;
  double poisson;  // imbalance of expected_max_load (the uniform model's closed-form reference)
};
struct EvsResult {
  EvsParams params;
  std::vector<EvsRow> rows;
  std::vector<EvsTrial> trials;
};

EvsResult run_evs(const EvsParams& p, const Progress& progress = {});

// CSV files (docs/outputs.md): evs.csv (one row per placement, flows, k) and evs_trials.csv.
std::string evs_csv(const EvsResult& r);
std::string evs_trials_csv(const EvsResult& r);
// The table and the paper's claims ([REPS] sec. 4.5.2) beside ours, as printed by `lbsim balls evs`.
std::string evs_report(const EvsResult& r);

// ---- queue models (sec. 5.1) -------------------------------------------------------------------

enum class Model { Ops, Recycled };
const char* name(Model m);

// When "a bin has at most tau balls" is evaluated ([REPS] sec. 5.1 does not say):
// Before = the bin's count including the ball being removed, After = without it.
enum class TauCount { Before, After };
const char* name(TauCount t);

// Which colours the recycled model throws in a step ([REPS] sec. 5.1 and App. B differ):
// RoundRobin = the next batch of the b * n colours in round-robin order, as sec. 5.1 describes (a
// colour comes back every b steps at lambda = 1); Removed = the colours of the balls removed in
// this step, topped up with the next colours of the round-robin cycle when fewer were removed (the
// accounting of the App. B proof: a bin with at most tau balls gets its removed ball back, so it
// never empties and the number of balls stays constant once every bin is non-empty).
enum class Recycle { RoundRobin, Removed };
const char* name(Recycle r);

struct QueueParams {
  Model model = Model::Ops;
  int bins = 5;
  double lambda = 1.0;     // arrivals per step: floor(lambda n) + Bernoulli(frac(lambda n))
  int tau = 0;             // threshold; 0 = ceil(4 ln n) (Theorem 5.1)
  int colors_per_bin = 0;  // b; 0 = ceil(2.4 ln n) (Theorem 5.1)
  TauCount tau_count = TauCount::Before;
  Recycle recycle = Recycle::Removed;
  std::uint64_t seed = 1;
};

// Theorem 5.1's smallest integer parameters: tau = ceil(4 ln n), b = ceil(2.4 ln n).
int theorem_tau(int bins);
int theorem_colors_per_bin(int bins);

class QueueModel {
 public:
  explicit QueueModel(const QueueParams& p);

  // One time step: every non-empty bin removes its oldest ball (recycled: the colour remembers or
  // forgets the bin), then the step's balls arrive. Bins are processed in index order and the
  // batch's colours in colour order.
  void step();
  // The same with the bins of the random throws taken from `draw` (each call one bin in 0..n-1):
  // for hand-worked traces in tests.
  void step(const std::function<int()>& draw);

  int bins() const { return n_; }
  int tau() const { return tau_; }
  int colors() const { return static_cast<int>(memory_.size()); }  // b * n (0 for OPS)
  std::int64_t steps() const { return t_; }
  std::int64_t queue(int bin) const { return static_cast<std::int64_t>(q_[bin].size()); }
  const std::deque<std::int32_t>& contents(int bin) const { return q_[bin]; }  // colours, oldest first
  std::int64_t max_queue() const;
  std::int64_t total() const { return total_; }
  // The bin colour c remembers, or -1.
  int memory(int color) const { return memory_[color]; }
  double remember_fraction() const;
  // Of the balls in the bins, the fraction whose colour remembers the bin the ball is in (1 for an
  // empty system; 0 for OPS).
  double settled_fraction() const;
  // The step (1-based) of the last change of any colour's memory; 0 before any.
  std::int64_t last_change() const { return last_change_; }
  // Recycled model at lambda = 1, detected exactly:
  // RoundRobin: every colour remembers a bin and the state (memories, queue contents) equals the
  //   state b steps earlier with no memory change in between. With no random throw left the
  //   process is deterministic and b-periodic from then on, so no memory changes any more.
  // Removed: no bin is empty, no bin is above the threshold and every ball's colour remembers the
  //   bin the ball is in. Then each bin's removed ball goes back into it, nothing is thrown at
  //   random and the counts never change: the state is absorbing.
  // Either way it has converged ([REPS] sec. 5.1: "all colors remember a bin and keep the same
  // bin remembered"), at step last_change().
  bool converged() const { return converged_; }
  std::int64_t converged_detected_at() const { return detected_; }

 private:
  void remove_and_remember();
  void observe_convergence();

  Model model_;
  int n_, tau_, b_;
  double lambda_;
  TauCount count_;
  Recycle recycle_;
  std::vector<std::int32_t> removed_;  // colours removed in the current step, in bin order
  Rng draw_rng_, arrival_rng_;
  std::vector<std::deque<std::int32_t>> q_;
  std::vector<std::int32_t> memory_;  // per colour: remembered bin or -1
  std::int64_t remembering_ = 0;
  std::int64_t cursor_ = 0;  // next colour of the round-robin cycle
  std::int64_t t_ = 0, total_ = 0, last_change_ = 0;
  bool converged_ = false;
  std::int64_t detected_ = 0;
  std::vector<std::deque<std::int32_t>> snapshot_;
  std::int64_t snapshot_change_ = -1;
};

struct QueueRunParams {
  std::vector<Model> models{Model::Ops, Model::Recycled};
  std::vector<int> bins{5};
  double lambda = 1.0;
  int steps = 200;
  int seeds = 20;
  int tau = 0, colors_per_bin = 0;
  TauCount tau_count = TauCount::Before;
  Recycle recycle = Recycle::Removed;
  int bin_seeds = 1;  // how many seeds per (model, n) write every bin's queue (queue_bins.csv)
  std::uint64_t seed = 1;
};
struct QueueStepRow {
  Model model;
  int bins, seed;
  std::int64_t step, max_queue, total;
  double remember, settled;
};
struct QueueBinRow {
  Model model;
  int bins, seed;
  std::int64_t step;
  int bin;
  std::int64_t queue;
};
struct QueueRunRow {  // one run (model, n, seed)
  Model model;
  int bins, seed, tau, colors_per_bin;
  std::int64_t final_max, run_max, final_total;
  double final_remember;
  bool converged;
  std::int64_t converged_step;  // last memory change (recycled, lambda = 1, converged), else 0
  std::int64_t after_max;       // max queue over the steps after converged_step (converged runs), else 0
};
struct QueueResult {
  QueueRunParams params;
  std::vector<QueueStepRow> steps;
  std::vector<QueueBinRow> bin_rows;
  std::vector<QueueRunRow> runs;
};
QueueResult run_queue(const QueueRunParams& p, const Progress& progress = {});
std::string queue_steps_csv(const QueueResult& r);
std::string queue_bins_csv(const QueueResult& r);
std::string queue_runs_csv(const QueueResult& r);
// Per (model, n): the max queue at the last step and over the run (mean, min, max over seeds), and
// the paper's statements for Fig. 17 (larger n, faster growth) and Fig. 18 (OPS grows, recycled
// stays below tau), as printed by `lbsim balls queue`.
std::string queue_report(const QueueResult& r);

// ---- Theorem 5.1 -------------------------------------------------------------------------------

struct TheoremParams {
  std::vector<int> bins{16, 32, 64, 128};
  int seeds = 20;
  std::int64_t max_steps = 2000000;
  int tau = 0, colors_per_bin = 0;  // 0 = Theorem 5.1's smallest values
  TauCount tau_count = TauCount::Before;
  Recycle recycle = Recycle::Removed;
  std::uint64_t seed = 1;
};
struct TheoremRun {
  int bins, seed, tau, colors_per_bin;
  bool converged;
  std::int64_t steps;      // convergence step (last memory change), or max_steps
  std::int64_t detected;   // step at which convergence was established
  std::int64_t max_queue;  // over every step run
  std::int64_t max_after;  // over the b steps after detection (the periodic state)
  std::int64_t warmup;     // first step after which no bin was empty (end of App. B's first phase)
  std::int64_t total;      // balls in the bins at the end
};
struct TheoremResult {
  TheoremParams params;
  std::vector<TheoremRun> runs;
};
TheoremResult run_theorem(const TheoremParams& p, const Progress& progress = {});
std::string theorem_csv(const TheoremResult& r);
std::string theorem_summary_csv(const TheoremResult& r);
std::string theorem_report(const TheoremResult& r);

// ---- configuration ([balls] keys) --------------------------------------------------------------

EvsParams evs_params(const config::Config& c);
QueueRunParams queue_params(const config::Config& c);
TheoremParams theorem_params(const config::Config& c);

// "1,32" -> {1, 32} within [lo, hi]; a bad list is a UserError naming the key and where it was set.
std::vector<int> int_list(const config::Config& c, const std::string& key, int lo, int hi);

}  // namespace lbsim::analysis::balls
