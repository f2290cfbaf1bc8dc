// `--set section.key=value` overrides: one per input line, through config::apply_override, then the
// cross-key checks.
#include "config/reader.h"
#include "fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lbsim;
  std::istringstream in(fuzz::text_of(data, size));
  fuzz::accept_user_errors([&] {
    config::Config cfg;
    std::string line;
    while (std::getline(in, line)) config::apply_override(cfg, line);
    config::check(cfg);
  });
  return 0;
}
