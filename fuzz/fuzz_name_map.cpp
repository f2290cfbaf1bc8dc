// Node-name maps (OpenSM node-name-map: "0x<guid> "<name>"").
#include "analysis/cabling.h"
#include "fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lbsim;
  std::istringstream in(fuzz::text_of(data, size));
  fuzz::accept_user_errors([&] { (void)analysis::parse_name_map(in, "fuzz.map"); });
  return 0;
}
