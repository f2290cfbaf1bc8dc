#include "lb/policy.h"

#include "core/error.h"
#include "lb/baselines.h"
#include "lb/reps.h"
#include "lb/spritz.h"

namespace lbsim::lb {

const char* feedback_name(Feedback f) {
  switch (f) {
    case Feedback::Ack: return "ack";
    case Feedback::AckEcn: return "ack_ecn";
    case Feedback::Nack: return "nack";
    case Feedback::Timeout: return "timeout";
  }
  return "?";
}

const std::vector<std::string>& policy_names() {
  static const std::vector<std::string> names{"ecmp", "ops", "rr", "reps", "plb", "flowlet", "mprdma", "mptcp", "bitmap",
      "ops_u", "ops_w", "spritz_scout_u", "spritz_scout_w", "spritz_spray_u", "spritz_spray_w", "flicr_u", "flicr_w", "min_path"};
  return names;
}

std::unique_ptr<EntropyPolicy> make_policy(const PolicyParams& params, PolicyContext ctx) {
  if (params.name == "ecmp") return std::make_unique<EcmpPolicy>(std::move(ctx));
  if (params.name == "ops") return std::make_unique<OpsPolicy>(std::move(ctx));
  if (params.name == "rr") return std::make_unique<RoundRobinPolicy>(std::move(ctx));
  if (params.name == "reps") return std::make_unique<RepsPolicy>(std::move(ctx), params.reps);
  // REPS baselines ([REPS] sec. 4.1, src/lb/baselines.h).
  if (params.name == "plb") return std::make_unique<PlbPolicy>(std::move(ctx), params.base);
  if (params.name == "flowlet") return std::make_unique<FlowletPolicy>(std::move(ctx), params.base);
  if (params.name == "mprdma") return std::make_unique<MprdmaPolicy>(std::move(ctx));
  if (params.name == "mptcp") return std::make_unique<MptcpPolicy>(std::move(ctx), params.base);
  if (params.name == "bitmap") return std::make_unique<BitmapPolicy>(std::move(ctx), params.base);
  // Spritz family ([Spritz] sec. IV, V-A), over the EV entry list of the source-guided routing.
  {
    using K = SpritzPolicy::Kind;
    const auto& sp = params.spritz;
    const auto& n = params.name;
    if (n == "ops_u") return std::make_unique<OpsEntryPolicy>(std::move(ctx), Weighting::Uniform);
    if (n == "ops_w") return std::make_unique<OpsEntryPolicy>(std::move(ctx), Weighting::Weighted);
    if (n == "spritz_scout_u") return std::make_unique<SpritzPolicy>(std::move(ctx), sp, K::Scout, Weighting::Uniform);
    if (n == "spritz_scout_w") return std::make_unique<SpritzPolicy>(std::move(ctx), sp, K::Scout, Weighting::Weighted);
    if (n == "spritz_spray_u") return std::make_unique<SpritzPolicy>(std::move(ctx), sp, K::Spray, Weighting::Uniform);
    if (n == "spritz_spray_w") return std::make_unique<SpritzPolicy>(std::move(ctx), sp, K::Spray, Weighting::Weighted);
    if (n == "flicr_u") return std::make_unique<FlicrPolicy>(std::move(ctx), sp, Weighting::Uniform);
    if (n == "flicr_w") return std::make_unique<FlicrPolicy>(std::move(ctx), sp, Weighting::Weighted);
    // min_path: always the first (lowest-latency, minimal) entry of the EV entry list, to pin
    // background traffic to minimal routes; without an entry list the switches route EV 0.
    if (n == "min_path") return std::make_unique<FixedEvPolicy>(ctx.paths && ctx.paths->size() ? (*ctx.paths)[0].ev : 0u);
  }
  throw UserError("unknown load balancer '" + params.name + "'");
}

}  // namespace lbsim::lb
