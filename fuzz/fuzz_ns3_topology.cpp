// HPCC/ns-3 topology files (workload.ns3_topology): the switch ids.
#include "fuzz/fuzz_common.h"
#include "workload/ns3.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lbsim;
  std::istringstream in(fuzz::text_of(data, size));
  fuzz::accept_user_errors([&] { (void)workload::parse_ns3_switch_ids(in, "fuzz-topology.txt"); });
  return 0;
}
