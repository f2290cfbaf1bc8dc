#include "lb/policy.h"

#include "core/error.h"
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
  static const std::vector<std::string> names{"ecmp", "ops", "reps"};
  return names;
}

std::unique_ptr<EntropyPolicy> make_policy(const PolicyParams& params, PolicyContext ctx) {
  if (params.name == "ecmp") return std::make_unique<EcmpPolicy>(std::move(ctx));
  if (params.name == "ops") return std::make_unique<OpsPolicy>(std::move(ctx));
  if (params.name == "reps") return std::make_unique<RepsPolicy>(std::move(ctx), params.reps);
  throw UserError("unknown load balancer '" + params.name + "'");
}

}  // namespace lbsim::lb
