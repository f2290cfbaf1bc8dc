// Flow lists (workload.kind = "csv"): parse_flows_csv on a 64-host network.
#include "fuzz/fuzz_common.h"
#include "workload/patterns.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lbsim;
  std::istringstream in(fuzz::text_of(data, size));
  fuzz::accept_user_errors([&] { (void)workload::parse_flows_csv(in, "fuzz.csv", 64); });
  return 0;
}
