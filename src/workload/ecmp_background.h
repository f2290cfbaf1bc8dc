// workload.ecmp_fraction ([REPS] sec. 4.3.2: REPS next to ECMP-hashed traffic): a seeded fraction of
// the transfers without a load balancer of their own uses ECMP instead of lb.algorithm, tagged
// ecmp_background. One coin per such transfer, in entry order, from the stream (run.seed,
// "ecmp_fraction"), so an eager and a streamed run (workload.stream) pick the same transfers.
#pragma once
#include <cstdint>

#include "core/config.h"
#include "core/rng.h"
#include "workload/flow_spec.h"

namespace lbsim::workload {

class EcmpBackground {
 public:
  // Adds the tag ecmp_background to `tags` when workload.ecmp_fraction > 0.
  EcmpBackground(const config::Config& cfg, Workload& tags);
  bool on() const { return fraction_ > 0; }
  // The next entry in entry order: a transfer without an lb of its own switches to ECMP with
  // probability workload.ecmp_fraction.
  void retag(FlowSpec& f);
  // The coins from the first again (a second pass over the same entries draws the same ones).
  void restart();

 private:
  double fraction_ = 0;
  std::int32_t tag_ = -1;
  std::uint64_t seed_ = 0;
  Rng pick_;
};

}  // namespace lbsim::workload
