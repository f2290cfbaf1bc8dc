// Flow-size CDF files (workload.cdf): parse_cdf, then the moments and a few samples of what it
// accepted.
#include "core/rng.h"
#include "fuzz/fuzz_common.h"
#include "workload/cdf.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lbsim;
  std::istringstream in(fuzz::text_of(data, size));
  fuzz::accept_user_errors([&] {
    const auto r = workload::parse_cdf(in, "fuzz.cdf");
    (void)r.cdf.mean();
    (void)r.cdf.second_moment();
    Rng rng(1, 2);
    for (int i = 0; i < 8; ++i) (void)r.cdf.sample(rng);
  });
  return 0;
}
