// Helpers of the Spritz policy tests (test_spritz_lb.cpp, test_code_reading.cpp): a five-path entry
// list, a flow's context over it, and a copy of the policy's random stream.
#pragma once
#include <vector>

#include "core/rng.h"
#include "core/time.h"
#include "lb/endpoint_table.h"
#include "lb/policy.h"

namespace lbsim::test {

// Five paths, sorted by latency (100..500 ns); EV of entry i is (i+1, 2i) so EVs are not indices.
inline lb::EvEntryList five_paths(double w_scale = 1.0, lb::WeightScale rule = lb::WeightScale::Stretch) {
  std::vector<lb::EvEntry> e;
  for (int i = 0; i < 5; ++i)
    e.push_back(lb::EvEntry{static_cast<std::uint16_t>(((i + 1) << 8) | (2 * i)), lb::ev_meta(i > 0, 2 + i),
                            ns(100) * (i + 1)});
  return lb::EvEntryList(std::move(e), w_scale, rule);
}

// Flow 1 of `bytes` over `paths`, base RTT 1 us, the policy's stream of seed 9.
inline lb::PolicyContext spritz_ctx(const lb::EvEntryList& paths, Bytes bytes = 0) {
  lb::PolicyContext c;
  c.flow = 1;
  c.bytes = bytes;
  c.base_rtt = us(1);
  c.rng = Rng(9, hash_name("lb"), 1);
  c.pair_paths = &paths;
  return c;
}

// A copy of the policy's random stream: the index gen(w) will draw next.
struct Oracle {
  Rng rng{9, hash_name("lb"), 1};
  std::size_t next(const std::vector<double>& w) {
    std::vector<double> cum;
    double s = 0;
    for (double x : w) cum.push_back(s += x);
    return lb::sample_cumulative(cum, rng.uniform());
  }
};

inline std::uint32_t ev(const lb::EvEntryList& p, std::size_t i) { return p[i].ev; }

}  // namespace lbsim::test
