// Dragonfly global-link maps (topology.global_map_file): parse_global_map for a = 4, h = 2, g = 9.
#include "fuzz/fuzz_common.h"
#include "topo/dragonfly.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lbsim;
  std::istringstream in(fuzz::text_of(data, size));
  topo::DragonflyParams p;
  p.p = 2;
  p.a = 4;
  p.h = 2;
  p.g = 9;
  fuzz::accept_user_errors([&] { (void)topo::parse_global_map(in, "fuzz.map", p); });
  return 0;
}
