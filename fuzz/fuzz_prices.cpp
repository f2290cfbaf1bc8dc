// Price tables (lbsim scale --prices): parse_prices_csv.
#include "analysis/scale.h"
#include "fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lbsim;
  std::istringstream in(fuzz::text_of(data, size));
  fuzz::accept_user_errors([&] { (void)analysis::parse_prices_csv(in, "fuzz.csv"); });
  return 0;
}
