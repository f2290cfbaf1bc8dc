// Discovered fabrics (cabling verify --discovered): ibnetdiscover output and LST dumps, through the
// format detection and through each parser directly (first byte chooses).
#include "analysis/cabling.h"
#include "fuzz/fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lbsim;
  if (size == 0) return 0;
  const std::string text = fuzz::text_of(data + 1, size - 1);
  fuzz::accept_user_errors([&] {
    switch (data[0] % 3) {
      case 0: {
        std::istringstream in(text);
        (void)analysis::parse_ibnetdiscover(in, "fuzz.ibnd");
        break;
      }
      case 1:
        (void)analysis::parse_ibnetdiscover_text(text, "fuzz.ibnd");
        break;
      default:
        (void)analysis::parse_lst_text(text, "fuzz.lst");
        break;
    }
  });
  return 0;
}
