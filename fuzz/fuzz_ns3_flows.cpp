// HPCC/ns-3 flow files: parse_ns3_flows on a 64-host network, with and without switch ids.
#include "fuzz/fuzz_common.h"
#include "workload/ns3.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace lbsim;
  if (size == 0) return 0;
  std::istringstream in(fuzz::text_of(data + 1, size - 1));
  workload::Ns3FlowParams p;
  if (data[0] & 1) p.switch_ids = {64, 65, 66, 67};
  p.tag_priority_group = (data[0] & 2) != 0;
  fuzz::accept_user_errors([&] { (void)workload::parse_ns3_flows(in, "fuzz.txt", p, 64); });
  return 0;
}
