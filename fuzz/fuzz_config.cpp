// Run configs: TOML text through config::load_text and the cross-key checks (config::check), then
// the resolved configuration written back as TOML, as every run does.
#include "config/reader.h"
#include "fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lbsim;
  const std::string text = fuzz::text_of(data, size);
  fuzz::accept_user_errors([&] {
    config::Config cfg;
    config::load_text(cfg, text, "fuzz.toml");
    config::check(cfg);
    (void)config::to_toml(cfg);
  });
  return 0;
}
