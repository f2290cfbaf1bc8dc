// The balls-into-bins models of [REPS] sec. 4.5.2 and 5.1 (analysis/balls.h): closed-form limits
// with tolerances derived from theory, hand-worked traces of the recycled model, convergence
// detection, determinism, CSV columns and config errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <string>
#include <vector>

#include "analysis/balls.h"
#include "config/reader.h"
#include "core/error.h"

namespace lbsim::analysis::balls {
namespace {

std::vector<double> imbalances(Placement pl, int flows, int bits, int bins, int trials, std::uint64_t seed) {
  std::vector<double> v;
  std::vector<std::int64_t> counts;
  const std::int64_t evs = std::int64_t{1} << bits;
  for (int t = 0; t < trials; ++t) {
    Rng rng(seed, hash_name("test-balls"), static_cast<std::uint64_t>(t));
    const auto l = pl == Placement::Uniform ? max_load_uniform(evs * flows, bins, rng, counts)
                                            : max_load_ecmp(flows, evs, bins, rng, counts);
    v.push_back(imbalance(l, evs * flows, bins));
  }
  return v;
}

double avg(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

double stddev(const std::vector<double>& v) {
  const double m = avg(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / static_cast<double>(v.size() - 1));
}

TEST(BallsEvs, ImbalanceDefinition) {
  // [REPS] sec. 4.5.2: lambda = l / (m / n) - 1. 64 balls in 32 bins average 2; a maximum of 3 is
  // 50% above it, a perfect spread 0%.
  EXPECT_DOUBLE_EQ(imbalance(3, 64, 32), 0.5);
  EXPECT_DOUBLE_EQ(imbalance(2, 64, 32), 0.0);
  std::vector<std::int64_t> counts;
  Rng rng(1, 2);
  // One bin takes everything.
  EXPECT_EQ(max_load_uniform(10, 1, rng, counts), 10);
}

// m = n: the maximum load is Theta(ln n / ln ln n) ([REPS] sec. 4.5.2 after Raab and Steger). With
// the bins' loads approximated by independent Poisson(1) variables, E[max] = sum_j 1 - P(X < j)^n
// (expected_max_load); for n = 4096 that is 6.25, i.e. 1.59 x ln n / ln ln n = 3.93 (the ratio
// tends to 1 only very slowly). The maximum load has a standard deviation below 1, so over 300
// trials the mean has a standard error below 0.06; 0.25 allows 4 standard errors plus the small
// error of the Poisson approximation (the loads of a multinomial are slightly negatively
// correlated, which makes the maximum a little smaller).
TEST(BallsEvs, EqualBallsAndBinsMaxLoadIsLogOverLogLog) {
  const int n = 4096;
  std::vector<std::int64_t> counts;
  double sum = 0;
  const int trials = 300;
  for (int t = 0; t < trials; ++t) {
    Rng rng(7, hash_name("m=n"), static_cast<std::uint64_t>(t));
    sum += static_cast<double>(max_load_uniform(n, n, rng, counts));
  }
  const double mean = sum / trials;
  const double poisson = expected_max_load(n, n);
  const double loglog = std::log(n) / std::log(std::log(n));
  EXPECT_NEAR(poisson, 6.25, 0.05);
  EXPECT_NEAR(mean, poisson, 0.25);
  EXPECT_GT(mean / loglog, 1.0);
  EXPECT_LT(mean / loglog, 2.0);
  // The closed form itself follows ln n / ln ln n within the same factor over a wide range of n
  // (the Theta bound), and grows with n.
  double prev = 0;
  for (int e = 8; e <= 20; e += 4) {
    const double nn = std::ldexp(1.0, e);
    const double em = expected_max_load(static_cast<std::int64_t>(nn), static_cast<int>(nn));
    EXPECT_GT(em, prev);
    EXPECT_GT(em / (std::log(nn) / std::log(std::log(nn))), 1.0) << nn;
    EXPECT_LT(em / (std::log(nn) / std::log(std::log(nn))), 2.0) << nn;
    prev = em;
  }
}

// m / n >> ln n: the imbalance tends to 0. The maximum of n near-Gaussian loads with mean
// mu = m / n and sd sqrt(mu) is about mu + sqrt(2 mu ln n), so lambda is about sqrt(2 ln n / mu)
// to first order (an overestimate: the next term of the Gaussian maximum is negative). For
// n = 32 and mu = 2^16: 1.03%. The Poisson closed form gives 0.81%; the simulated mean must be
// within 10% of it (the sd of lambda is about 0.2%, so 100 trials give a standard error of 0.02%,
// 2.5% of the value), below the first-order term and falling with k.
TEST(BallsEvs, ManyBallsPerBinImbalanceNearZero) {
  const int n = 32;
  const auto v16 = imbalances(Placement::Uniform, 32, 16, n, 100, 3);
  const double mu = std::ldexp(1.0, 16);
  const double first_order = std::sqrt(2 * std::log(n) / mu);
  const double poisson = expected_max_load(static_cast<std::int64_t>(mu) * n, n) / mu - 1.0;
  EXPECT_NEAR(first_order, 0.0103, 0.0001);
  EXPECT_NEAR(avg(v16), poisson, 0.1 * poisson);
  EXPECT_LT(avg(v16), first_order);
  EXPECT_LT(avg(v16), 0.01);  // [REPS]: 2^16 EVs, 32 flows: less than 1%
  const auto v12 = imbalances(Placement::Uniform, 32, 12, n, 100, 3);
  const auto v8 = imbalances(Placement::Uniform, 32, 8, n, 100, 3);
  EXPECT_GT(avg(v8), avg(v12));
  EXPECT_GT(avg(v12), avg(v16));
  EXPECT_GT(avg(v8), 0.10);  // [REPS]: fewer than ~2^8 EVs, 32 flows: more than 10%
}

// The ECMP hash of lbsim's switches spreads the unique EVs of a flow like uniform draws: the means
// over 1000 trials agree within 4 standard errors of their difference. (A hash that mapped
// consecutive EVs to few ports, or ignored the flow header, would fail this.)
TEST(BallsEvs, EcmpHashBehavesLikeUniformDraws) {
  for (const auto& [flows, bits] : {std::pair{32, 8}, std::pair{1, 10}}) {
    const auto u = imbalances(Placement::Uniform, flows, bits, 32, 1000, 11);
    const auto h = imbalances(Placement::EcmpHash, flows, bits, 32, 1000, 11);
    const double se = std::sqrt((stddev(u) * stddev(u) + stddev(h) * stddev(h)) / 1000.0);
    EXPECT_LT(std::abs(avg(u) - avg(h)), 4 * se) << flows << " flows, k = " << bits;
  }
}

TEST(BallsEvs, RunSummarisesEveryCellAndIsDeterministic) {
  EvsParams p;
  p.flows = {1, 4};
  p.bits_min = 2;
  p.bits_max = 5;
  p.trials = 20;
  const auto a = run_evs(p);
  ASSERT_EQ(a.rows.size(), 2u * 2u * 4u);  // placements x flows x k
  ASSERT_EQ(a.trials.size(), a.rows.size() * 20u);
  for (const auto& r : a.rows) {
    EXPECT_EQ(r.balls, r.evs * r.flows);
    EXPECT_LE(r.min, r.median);
    EXPECT_LE(r.median, r.p99);
    EXPECT_LE(r.p99, r.max);
  }
  EXPECT_EQ(evs_csv(a), evs_csv(run_evs(p)));
  p.seed = 2;
  EXPECT_NE(evs_trials_csv(a), evs_trials_csv(run_evs(p)));
}

// ---- queue models ----------------------------------------------------------------------------

// OPS below full injection is stable ([REPS] sec. 5.1, after Berenbrink et al.). One bin's queue
// follows Q' = max(Q - 1, 0) + A with A ~ Binomial(lambda n, 1/n); its tail is below z^-k with z > 1
// the root of E[z^A] = z, and the Poisson(lambda) generating function exp(lambda (z - 1)) is above
// the binomial one, so its root z = 3.513 (lambda = 1/2) gives a valid bound. Over n T bin-steps
// the union bound puts the maximum queue below ln(nT) / ln z + c with probability 1 - z^-c: for
// n = 32, T = 10^5 that is 11.9 + c; with c = 5.5 (failure probability < 10^-3) the bound is 17.4.
// At lambda = 1 the same run goes far beyond it (queues grow without bound).
TEST(BallsQueue, OpsBelowFullInjectionStaysBounded) {
  const int n = 32, steps = 100000;
  const double lambda = 0.5;
  double z = 2;  // root of exp(lambda (z - 1)) = z above 1, by fixed-point iteration on z = 1 + ln(z) / lambda
  for (int i = 0; i < 200; ++i) z = 1 + std::log(z) / lambda;
  EXPECT_NEAR(z, 3.513, 0.001);
  const double bound = std::log(static_cast<double>(n) * steps) / std::log(z) + 5.5;
  QueueModel ops({Model::Ops, n, lambda, 0, 0, TauCount::Before, Recycle::Removed, 5});
  std::int64_t run_max = 0, last_max = 0;
  for (int t = 1; t <= steps; ++t) {
    ops.step();
    run_max = std::max(run_max, ops.max_queue());
    if (t > steps - steps / 10) last_max = std::max(last_max, ops.max_queue());
  }
  EXPECT_LE(static_cast<double>(run_max), bound);
  EXPECT_LE(static_cast<double>(last_max), bound);
  // Stationary, not growing: a bin holds lambda + lambda^2 / (2 (1 - lambda)) = 0.75 balls on average
  // after the arrivals (Pollaczek-Khinchine with Poisson arrivals), 24 in all.
  EXPECT_LT(ops.total(), n * 4);
  QueueModel full({Model::Ops, n, 1.0, 0, 0, TauCount::Before, Recycle::Removed, 5});
  for (int t = 1; t <= steps; ++t) full.step();
  EXPECT_GT(static_cast<double>(full.max_queue()), bound);
  EXPECT_FALSE(full.converged());
}

TEST(BallsQueue, ArrivalsPerStepMatchLambda) {
  // floor(lambda n) balls plus one with probability frac(lambda n): 0.99 x 5 = 4.95 per step.
  QueueModel m({Model::Ops, 5, 0.99, 0, 0, TauCount::Before, Recycle::Removed, 3});
  std::int64_t served = 0;
  for (int t = 0; t < 20000; ++t) {
    for (int b = 0; b < 5; ++b) served += m.queue(b) > 0;
    m.step();
  }
  const double arrived = static_cast<double>(served + m.total());
  EXPECT_NEAR(arrived / 20000, 4.95, 0.01);
}

// A scripted sequence of random bins for the hand-worked traces.
struct Script {
  std::deque<int> bins;
  int operator()() {
    EXPECT_FALSE(bins.empty()) << "the model drew more random bins than the trace has";
    if (bins.empty()) return 0;
    const int b = bins.front();
    bins.pop_front();
    return b;
  }
};

std::vector<std::vector<std::int32_t>> contents(const QueueModel& m) {
  std::vector<std::vector<std::int32_t>> out;
  for (int b = 0; b < m.bins(); ++b) out.emplace_back(m.contents(b).begin(), m.contents(b).end());
  return out;
}
using Bins = std::vector<std::vector<std::int32_t>>;

// Recycled model, literal reading of [REPS] sec. 5.1 (recycle = round_robin), n = 3 bins, b = 2
// (colours 0..5: batch A = {0, 1, 2} at odd steps, batch B = {3, 4, 5} at even steps), tau = 1,
// the count taken before the removal. Bins are listed oldest ball first, "cX" is colour X,
// "-> b" a random throw (the script), "mem" the colours that remember a bin.
//
// step 1: nothing to remove. A: c0 -> 0, c1 -> 1, c2 -> 2.   bins [c0] [c1] [c2]
// step 2: each bin holds 1 <= tau: c0, c1, c2 remember bins 0, 1, 2; bins empty.
//         B: c3 -> 0, c4 -> 0, c5 -> 1.                       bins [c3 c4] [c5] []
// step 3: bin 0 holds 2 > tau: c3 leaves and forgets (it remembers nothing: no change);
//         bin 1 holds 1: c5 leaves and remembers bin 1.
//         A: c0 -> bin 0, c1 -> bin 1, c2 -> bin 2 (remembered). bins [c4 c0] [c1] [c2]
// step 4: bin 0 holds 2: c4 leaves, remembers nothing; c1, c2 leave bins holding 1 and already
//         remember them (no change). B: c3 -> 0, c4 -> 2, c5 -> bin 1 (remembered).
//                                                             bins [c0 c3] [c5] [c4]
// step 5: bin 0 holds 2 > tau: c0 leaves and FORGETS bin 0; c5 leaves bin 1 (holding 1, no
//         change); c4 leaves bin 2 (holding 1) and remembers it.
//         A: c0 -> 1 (random again), c1 -> bin 1, c2 -> bin 2. bins [c3] [c0 c1] [c2]
// Memory changes happened at steps 2, 3, 5 and 5: last_change() = 5.
TEST(BallsQueue, RecycledRoundRobinHandTrace) {
  QueueModel m({Model::Recycled, 3, 1.0, 1, 2, TauCount::Before, Recycle::RoundRobin, 1});
  ASSERT_EQ(m.colors(), 6);
  Script s{{0, 1, 2, 0, 0, 1, 0, 2, 1}};
  const auto draw = [&s] { return s(); };
  m.step(draw);
  EXPECT_EQ(contents(m), (Bins{{0}, {1}, {2}}));
  EXPECT_EQ(m.remember_fraction(), 0.0);
  EXPECT_EQ(m.last_change(), 0);
  m.step(draw);
  EXPECT_EQ(contents(m), (Bins{{3, 4}, {5}, {}}));
  EXPECT_EQ(m.memory(0), 0);
  EXPECT_EQ(m.memory(1), 1);
  EXPECT_EQ(m.memory(2), 2);
  EXPECT_EQ(m.max_queue(), 2);
  EXPECT_DOUBLE_EQ(m.remember_fraction(), 3.0 / 6);
  EXPECT_EQ(m.last_change(), 2);
  m.step(draw);
  EXPECT_EQ(contents(m), (Bins{{4, 0}, {1}, {2}}));
  EXPECT_EQ(m.memory(3), -1);
  EXPECT_EQ(m.memory(5), 1);
  EXPECT_EQ(m.last_change(), 3);
  m.step(draw);
  EXPECT_EQ(contents(m), (Bins{{0, 3}, {5}, {4}}));
  EXPECT_EQ(m.memory(4), -1);
  EXPECT_EQ(m.last_change(), 3);  // step 4 changed nothing
  m.step(draw);
  EXPECT_EQ(contents(m), (Bins{{3}, {0, 1}, {2}}));
  EXPECT_EQ(m.memory(0), -1);
  EXPECT_EQ(m.memory(4), 2);
  EXPECT_EQ(m.last_change(), 5);
  EXPECT_DOUBLE_EQ(m.remember_fraction(), 4.0 / 6);  // c1, c2, c4, c5
  // Of the 4 balls in the bins, c1 (bin 1) and c2 (bin 2) are in the bin their colour remembers.
  EXPECT_DOUBLE_EQ(m.settled_fraction(), 2.0 / 4);
  EXPECT_TRUE(s.bins.empty());
}

// The same start with the count taken after the removal: at step 3 bin 0 held 2 balls, 1 after
// c3 left, so c3 now remembers bin 0 (before: it did not).
TEST(BallsQueue, RecycledAfterReadingRemembersOneBallEarlier) {
  QueueModel m({Model::Recycled, 3, 1.0, 1, 2, TauCount::After, Recycle::RoundRobin, 1});
  Script s{{0, 1, 2, 0, 0, 1}};
  const auto draw = [&s] { return s(); };
  for (int t = 0; t < 3; ++t) m.step(draw);
  EXPECT_EQ(contents(m), (Bins{{4, 0}, {1}, {2}}));
  EXPECT_EQ(m.memory(3), 0);
  EXPECT_EQ(m.memory(5), 1);
}

// The App. B reading (recycle = removed, the default): the balls removed in a step are thrown
// again in that step (remembered bin or random), topped up with the next colours of the cycle.
// n = 3, b = 2 (colours 0..5), tau = 1, count before the removal.
//
// step 1: nothing removed; top-up c0 -> 0, c1 -> 0, c2 -> 1.   bins [c0 c1] [c2] []
// step 2: bin 0 holds 2 > tau: c0 leaves (remembers nothing); bin 1 holds 1: c2 leaves and
//         remembers bin 1. Thrown: c0 -> 2 (random), c2 -> bin 1, top-up c3 -> 0.
//                                                             bins [c1 c3] [c2] [c0]
// step 3: c1 leaves bin 0 (2 > tau, no memory); c2 leaves bin 1 (already remembers it); c0 leaves
//         bin 2 (holding 1) and remembers it. Thrown: c1 -> 1, c2 -> bin 1, c0 -> bin 2.
//                                                             bins [c3] [c1 c2] [c0]
// Balls in the system: 3, 4, 4 (a step with an empty bin adds one; then every bin is non-empty and
// the count stays).
TEST(BallsQueue, RecycledRemovedHandTrace) {
  QueueModel m({Model::Recycled, 3, 1.0, 1, 2, TauCount::Before, Recycle::Removed, 1});
  Script s{{0, 0, 1, 2, 0, 1}};
  const auto draw = [&s] { return s(); };
  m.step(draw);
  EXPECT_EQ(contents(m), (Bins{{0, 1}, {2}, {}}));
  EXPECT_EQ(m.total(), 3);
  m.step(draw);
  EXPECT_EQ(contents(m), (Bins{{1, 3}, {2}, {0}}));
  EXPECT_EQ(m.memory(2), 1);
  EXPECT_EQ(m.memory(0), -1);
  EXPECT_EQ(m.total(), 4);
  m.step(draw);
  EXPECT_EQ(contents(m), (Bins{{3}, {1, 2}, {0}}));
  EXPECT_EQ(m.memory(0), 2);
  EXPECT_EQ(m.memory(1), -1);
  EXPECT_EQ(m.total(), 4);
  EXPECT_EQ(m.last_change(), 3);
  EXPECT_TRUE(s.bins.empty());
  EXPECT_FALSE(m.converged());  // c3 and c1 are not settled yet
}

// Convergence detection is exact: once detected, no memory changes for thousands of further
// steps, every queue stays at or below the threshold and (removed) every ball stays settled.
TEST(BallsQueue, ConvergenceDetectedAndKept) {
  int converged = 0;
  for (const auto recycle : {Recycle::Removed, Recycle::RoundRobin}) {
    const int n = recycle == Recycle::Removed ? 16 : 5;
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
      QueueModel m({Model::Recycled, n, 1.0, 0, 0, TauCount::Before, recycle, seed});
      while (!m.converged() && m.steps() < 5000) m.step();
      if (!m.converged()) continue;
      ++converged;
      const auto change = m.last_change();
      EXPECT_LE(change, m.converged_detected_at());
      for (int t = 0; t < 3000; ++t) {
        m.step();
        ASSERT_LE(m.max_queue(), m.tau()) << "seed " << seed;
      }
      EXPECT_EQ(m.last_change(), change);
      if (recycle == Recycle::Removed) {
        EXPECT_DOUBLE_EQ(m.settled_fraction(), 1.0);
      } else {
        // Round robin: all b n colours remember, and each bin is remembered by exactly b of them
        // (a bin remembered by more than b would get more than b balls every b steps and grow
        // beyond tau; the b n colours leave none for fewer).
        EXPECT_DOUBLE_EQ(m.remember_fraction(), 1.0);
        std::vector<int> per_bin(static_cast<std::size_t>(n), 0);
        for (int c = 0; c < m.colors(); ++c) ++per_bin[static_cast<std::size_t>(m.memory(c))];
        for (const int k : per_bin) EXPECT_EQ(k, m.colors() / n);
      }
    }
  }
  EXPECT_GE(converged, 10);  // all 10 removed runs at n = 16 converge in the reading App. B analyses
}

TEST(BallsQueue, OpsNeverRemembers) {
  QueueModel m({Model::Ops, 8, 1.0, 0, 0, TauCount::Before, Recycle::Removed, 1});
  for (int t = 0; t < 100; ++t) m.step();
  EXPECT_EQ(m.colors(), 0);
  EXPECT_EQ(m.remember_fraction(), 0.0);
  EXPECT_FALSE(m.converged());
}

// App. B: "If we set the threshold large enough, no bin ever overflows and essentially we only
// have the first phase, which converges in expected n ln n + n steps." With tau huge every removed
// ball goes back into its bin, so a non-empty bin never empties; only this reading (removed)
// behaves so. Mean over 20 seeds below n ln n + n.
TEST(BallsTheorem, HugeThresholdConvergesInTheFirstPhase) {
  TheoremParams p;
  p.bins = {64};
  p.seeds = 20;
  p.tau = 1000000;
  p.max_steps = 100000;
  const auto r = run_theorem(p);
  double sum = 0;
  for (const auto& x : r.runs) {
    ASSERT_TRUE(x.converged);
    EXPECT_GE(x.steps, x.warmup - 1);  // convergence needs every bin filled first
    sum += static_cast<double>(x.steps);
  }
  EXPECT_LT(sum / 20, 64 * std::log(64.0) + 64);
}

// Theorem 5.1 at its smallest parameters, reading of App. B (removed, count before): every run
// converges; the steps grow like n ln n (their ratio stays within a constant band as n doubles)
// and the largest queue like ln n.
TEST(BallsTheorem, ConvergesInOrderNLogNWithLogQueues) {
  EXPECT_EQ(theorem_tau(16), 12);            // ceil(4 ln 16) = ceil(11.09)
  EXPECT_EQ(theorem_colors_per_bin(16), 7);  // ceil(2.4 ln 16) = ceil(6.65)
  EXPECT_EQ(theorem_tau(5), 7);
  EXPECT_EQ(theorem_colors_per_bin(5), 4);
  TheoremParams p;
  p.bins = {16, 64};
  p.seeds = 20;
  const auto r = run_theorem(p);
  for (const int n : p.bins) {
    double steps = 0, q = 0;
    for (const auto& x : r.runs) {
      if (x.bins != n) continue;
      ASSERT_TRUE(x.converged) << "n " << n << " seed " << x.seed;
      EXPECT_LE(x.max_after, x.tau);
      steps += static_cast<double>(x.steps) / 20;
      q += static_cast<double>(x.max_queue) / 20;
    }
    const double ln = std::log(static_cast<double>(n));
    EXPECT_LT(steps / (n * ln), 2.0) << n;
    EXPECT_LT(q / ln, 4.0) << n;
  }
}

// ---- CSV files and configuration ----------------------------------------------------------------

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }
std::size_t lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

TEST(BallsCsv, Columns) {
  EvsParams e;
  e.flows = {2};
  e.bits_min = e.bits_max = 3;
  e.trials = 4;
  const auto er = run_evs(e);
  EXPECT_EQ(first_line(evs_csv(er)),
            "placement,bins,flows,ev_bits,evs,balls,trials,mean,median,p99,max,min,sd,poisson_mean");
  EXPECT_EQ(first_line(evs_trials_csv(er)), "placement,bins,flows,ev_bits,trial,max_load,imbalance");
  EXPECT_EQ(lines(evs_trials_csv(er)), 1u + 2 * 4);
  QueueRunParams q;
  q.bins = {3, 4};
  q.steps = 7;
  q.seeds = 2;
  q.bin_seeds = 1;
  const auto qr = run_queue(q);
  EXPECT_EQ(first_line(queue_steps_csv(qr)), "model,bins,seed,step,max_queue,total,remember_fraction,settled_fraction");
  EXPECT_EQ(lines(queue_steps_csv(qr)), 1u + 2 * 2 * 2 * 7);  // models x n x seeds x steps
  EXPECT_EQ(first_line(queue_bins_csv(qr)), "model,bins,seed,step,bin,queue");
  EXPECT_EQ(lines(queue_bins_csv(qr)), 1u + 2 * (3 + 4) * 7);  // first seed only
  EXPECT_EQ(first_line(queue_runs_csv(qr)),
            "model,bins,seed,lambda,steps,tau,colors_per_bin,tau_count,final_max_queue,run_max_queue,final_total,"
            "final_remember_fraction,converged,converged_step,max_queue_after_convergence,recycle");
  TheoremParams t;
  t.bins = {16};
  t.seeds = 2;
  const auto tr = run_theorem(t);
  EXPECT_EQ(first_line(theorem_csv(tr)),
            "tau_count,recycle,bins,seed,tau,colors_per_bin,converged,steps,detected_step,warmup_steps,max_queue,"
            "max_queue_converged,final_total,n_ln_n,steps_per_n_ln_n,max_queue_per_ln_n");
  EXPECT_EQ(first_line(theorem_summary_csv(tr)),
            "tau_count,recycle,bins,tau,colors_per_bin,runs,converged,steps_mean,steps_median,steps_min,steps_max,"
            "steps_sd,steps_per_n_ln_n_mean,steps_per_n_ln_n_max,max_queue_mean,max_queue_max,"
            "max_queue_per_ln_n_mean,max_queue_converged_max,warmup_mean,final_total_mean,over_threshold_runs");
  EXPECT_EQ(queue_steps_csv(qr), queue_steps_csv(run_queue(q)));  // deterministic
}

TEST(BallsConfig, KeysAndErrorsNameTheFileLineAndKey) {
  config::Config c;
  config::load_text(c,
                    "[balls]\nevs_flows = \"1, 32\"\nqueue_bins = \"8,16\"\ntau_count = \"after\"\n"
                    "recycle = \"round_robin\"\n[run]\nseed = 9\n",
                    "b.toml");
  EXPECT_EQ(evs_params(c).flows, (std::vector<int>{1, 32}));
  EXPECT_EQ(evs_params(c).seed, 9u);
  const auto q = queue_params(c);
  EXPECT_EQ(q.bins, (std::vector<int>{8, 16}));
  EXPECT_EQ(q.tau_count, TauCount::After);
  EXPECT_EQ(q.recycle, Recycle::RoundRobin);
  EXPECT_EQ(theorem_params(c).bins, (std::vector<int>{16, 32, 64, 128}));

  config::Config bad;
  config::load_text(bad, "[balls]\nseeds = 2\nevs_flows = \"1,x\"\n", "bad.toml");
  try {
    evs_params(bad);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.toml:3: balls.evs_flows"), std::string::npos) << e.what();
  }
  config::Config models;
  config::load_text(models, "[balls]\nqueue_models = \"ops,recyled\"\n", "m.toml");
  try {
    queue_params(models);
    FAIL() << "no error";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("m.toml:2: balls.queue_models"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("did you mean 'recycled'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(config::load_text(bad, "[balls]\ntau_count = \"middle\"\n", "t.toml"), UserError);
  config::Config range;
  config::load_text(range, "[balls]\nevs_bits_min = 9\nevs_bits_max = 3\n", "r.toml");
  EXPECT_THROW(config::check(range), UserError);
}

}  // namespace
}  // namespace lbsim::analysis::balls
