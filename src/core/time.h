// Simulated time and unit helpers.
// Time is an int64 count of picoseconds (DESIGN.md "Conventions"): 400 Gb/s and a 4160-byte packet
// give exactly 83,200 ps, so serialization arithmetic is exact integer arithmetic.
#pragma once
#include <cstdint>
#include <limits>

namespace lbsim {

using SimTime = std::int64_t;  // picoseconds
inline constexpr SimTime kTimeNever = std::numeric_limits<SimTime>::max();

inline constexpr SimTime ps(std::int64_t v) { return v; }
inline constexpr SimTime ns(std::int64_t v) { return v * 1000; }
inline constexpr SimTime us(std::int64_t v) { return v * 1000 * 1000; }
inline constexpr SimTime ms(std::int64_t v) { return v * 1000 * 1000 * 1000; }

inline constexpr double to_ns(SimTime t) { return static_cast<double>(t) / 1e3; }
inline constexpr double to_us(SimTime t) { return static_cast<double>(t) / 1e6; }
inline constexpr double to_ms(SimTime t) { return static_cast<double>(t) / 1e9; }
inline constexpr double to_s(SimTime t) { return static_cast<double>(t) / 1e12; }

// Convert a duration given as a floating-point number of a unit to picoseconds, rounding to nearest.
inline SimTime from_ns(double v) { return static_cast<SimTime>(v * 1e3 + (v >= 0 ? 0.5 : -0.5)); }
inline SimTime from_us(double v) { return static_cast<SimTime>(v * 1e6 + (v >= 0 ? 0.5 : -0.5)); }

using Bytes = std::int64_t;
using BitsPerSec = std::int64_t;

inline constexpr BitsPerSec gbps(std::int64_t v) { return v * 1000 * 1000 * 1000; }

// Serialization time of `bytes` on a link of `rate` bits/s, rounded up to the next picosecond.
// Exact when rate divides 8e12 * bytes (all common Ethernet rates with whole-byte sizes).
inline constexpr SimTime serialization_ps(Bytes bytes, BitsPerSec rate) {
  // bytes * 8e12 fits in int64 for bytes < 1.15e6; larger transfers are split into packets anyway.
  const __int128 num = static_cast<__int128>(bytes) * 8'000'000'000'000LL;
  return static_cast<SimTime>((num + rate - 1) / rate);
}

// Bytes a link of `rate` carries in `t`.
inline constexpr Bytes bytes_in(SimTime t, BitsPerSec rate) {
  return static_cast<Bytes>(static_cast<__int128>(t) * rate / 8'000'000'000'000LL);
}

}  // namespace lbsim
