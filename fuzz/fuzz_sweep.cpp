// Sweep files (lbsim sweep): workflow::parse_sweep_text.
#include "fuzz/fuzz_common.h"
#include "workflow/sweep.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lbsim;
  const std::string text = fuzz::text_of(data, size);
  fuzz::accept_user_errors([&] { (void)workflow::parse_sweep_text(text, "fuzz.sweep.toml"); });
  return 0;
}
