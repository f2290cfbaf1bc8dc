#include "lb/policy.h"

#include "core/error.h"
#include "lb/baselines.h"
#include "lb/reps.h"

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
  static const std::vector<std::string> names{"ecmp", "ops", "reps", "plb", "flowlet", "mprdma", "mptcp", "bitmap"};
  return names;
}

std::unique_ptr<EntropyPolicy> make_policy(const PolicyParams& params, PolicyContext ctx) {
  if (params.name == "ecmp") return std::make_unique<EcmpPolicy>(std::move(ctx));
  if (params.name == "ops") return std::make_unique<OpsPolicy>(std::move(ctx));
  if (params.name == "reps") return std::make_unique<RepsPolicy>(std::move(ctx), params.reps);
  // REPS baselines (reps.txt sec. 4.1, src/lb/baselines.h).
  if (params.name == "plb") return std::make_unique<PlbPolicy>(std::move(ctx), params.base);
  if (params.name == "flowlet") return std::make_unique<FlowletPolicy>(std::move(ctx), params.base);
  if (params.name == "mprdma") return std::make_unique<MprdmaPolicy>(std::move(ctx));
  if (params.name == "mptcp") return std::make_unique<MptcpPolicy>(std::move(ctx), params.base);
  if (params.name == "bitmap") return std::make_unique<BitmapPolicy>(std::move(ctx), params.base);
  throw UserError("unknown load balancer '" + params.name + "'");
}

}  // namespace lbsim::lb
