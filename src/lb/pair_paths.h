// What the run's switch routing tells the connections of one (source switch, destination switch)
// pair about the paths their EVs name (routing::PairPathSource), handed to every policy of the pair
// through PolicyContext::pair_paths: built once per pair in use, shared by its connections, owned by
// the router. A load balancer that needs one kind reads it with dynamic_cast once, when its policy is
// made, and says which routing gives it when the run's does not.
//   - lb::EvEntryList (lb/endpoint_table.h): source-guided routing's EV entry list ([Spritz] sec. III-C);
//   - lb::CandidateSet (below): source routing's candidate paths ([LAPS] sec. 3.3).
#pragma once
#include <cstdint>
#include <vector>

#include "core/time.h"

namespace lbsim::lb {

struct PairPaths {
  virtual ~PairPaths() = default;
};

// The candidate paths of a switch pair under source_route routing ([LAPS] sec. 3.3 PIT): per path
// (index = the EV of a packet on it) its idle one-way latency and its number of anchor switches.
struct CandidateSet final : PairPaths {
  std::vector<SimTime> base_latency;
  std::vector<std::uint8_t> anchors;
  std::vector<SimTime> theoretical;  // the LAPS artifact's "theoretical smallest latency" (routing::SourcePath)
  std::vector<double> ps_per_byte;   // per path: the sum over its links of 8 / rate, in ps per byte
};

}  // namespace lbsim::lb
