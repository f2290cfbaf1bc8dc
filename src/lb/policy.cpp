#include "lb/policy.h"

#include "lb/registry.h"

namespace lbsim::lb {

const char* feedback_name(Feedback f) {
  switch (f) {
    case Feedback::Ack:
      return "ack";
    case Feedback::AckEcn:
      return "ack_ecn";
    case Feedback::Nack:
      return "nack";
    case Feedback::Timeout:
      return "timeout";
  }
  return "?";
}

namespace {
const RegisterLb kEcmp{
    {{"ecmp", "ECMP: one random EV per connection ([REPS] sec. 2.2).", {}, {}}, simple_maker<EcmpPolicy>()}};
const RegisterLb kOps{
    {{"ops", "Oblivious packet spraying: a uniformly random EV per packet ([REPS] sec. 2.2).", {}, {}},
     simple_maker<OpsPolicy>()}};
const RegisterLb kRr{
    {{"rr", "Round robin: consecutive EVs from a random start (with layered routing: layers in turn).", {}, {}},
     simple_maker<RoundRobinPolicy>()}};
}  // namespace

}  // namespace lbsim::lb
