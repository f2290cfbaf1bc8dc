// GOAL schedules (workload.kind = "goal"): parse_goal on a 64-host network.
#include <vector>

#include "fuzz/fuzz_common.h"
#include "workload/goal.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lbsim;
  std::istringstream in(fuzz::text_of(data, size));
  workload::GoalParams p;
  std::vector<std::string> warnings;
  fuzz::accept_user_errors([&] { (void)workload::parse_goal(in, "fuzz.goal", p, 64, &warnings); });
  return 0;
}
