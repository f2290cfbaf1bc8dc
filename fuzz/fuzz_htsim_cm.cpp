// htsim connection matrices (.cm): parse_htsim_cm on a 64-host network.
#include "fuzz/fuzz_common.h"
#include "workload/htsim_cm.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lbsim;
  std::istringstream in(fuzz::text_of(data, size));
  workload::HtsimCmParams p;
  fuzz::accept_user_errors([&] { (void)workload::parse_htsim_cm(in, "fuzz.cm", p, 64); });
  return 0;
}
