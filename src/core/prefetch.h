// Cache hints shared by the layers' prefetch stages (net::HostHandler::prefetch_pull and
// prefetch_arrival, lb::EntropyPolicy::prefetch, transport::CongestionControl::prefetch). Hints only:
// no effect on results.
#pragma once
#include <cstddef>

namespace lbsim {

// Asks the cache for every line of [b, b + n), n > 0.
inline void prefetch_range(const void* b, std::size_t n) {
  const char* c = static_cast<const char*>(b);
  for (std::size_t i = 0; i < n; i += 64) __builtin_prefetch(c + i);
  __builtin_prefetch(c + n - 1);
}

}  // namespace lbsim
