// Files read back from OpenSM: LFT dumps, guid2lid, opensm.conf and path-SL tables (first byte chooses).
#include "analysis/opensm.h"
#include "fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lbsim;
  if (size == 0) return 0;
  const std::string text = fuzz::text_of(data + 1, size - 1);
  fuzz::accept_user_errors([&] {
    switch (data[0] % 4) {
      case 0:
        (void)analysis::parse_lfts_dump(text, "fuzz.lfts");
        break;
      case 1:
        (void)analysis::parse_guid2lid(text, "fuzz.guid2lid");
        break;
      case 2:
        (void)analysis::parse_opensm_conf(text, "fuzz.conf");
        break;
      default:
        (void)analysis::parse_path_sl(text, "fuzz.sl");
        break;
    }
  });
  return 0;
}
