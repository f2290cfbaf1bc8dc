#include "workload/ecmp_background.h"

namespace lbsim::workload {

EcmpBackground::EcmpBackground(const config::Config& cfg, Workload& tags)
    : fraction_(cfg.real("workload.ecmp_fraction")), seed_(static_cast<std::uint64_t>(cfg.integer("run.seed"))) {
  if (fraction_ <= 0) return;
  tag_ = tags.tag("ecmp_background");
  restart();
}

void EcmpBackground::retag(FlowSpec& f) {
  if (fraction_ > 0 && !f.is_compute() && f.lb.empty() && pick_.bernoulli(fraction_)) {
    f.lb = "ecmp";
    f.tag = tag_;
  }
}

void EcmpBackground::restart() { pick_ = Rng(seed_, hash_name("ecmp_fraction")); }

namespace {
[[maybe_unused]] const bool declared = [] {
  config::declare({config::real("workload.ecmp_fraction", 0, "fraction of transfers",
                                "This seeded fraction of the transfers (those without their own lb) uses ECMP, tagged "
                                "ecmp_background ([REPS] sec. 4.3.2: REPS next to ECMP-hashed traffic).")
                       .range(0, 1)});
  // Those transfers use the ECMP load balancer whatever lb.algorithm says (config::check_keys_read).
  config::declare_selection("lb.algorithm", [](const config::Config& c) {
    return c.real("workload.ecmp_fraction") > 0 ? std::vector<std::string>{"ecmp"} : std::vector<std::string>{};
  });
  return true;
}();
}  // namespace

}  // namespace lbsim::workload
