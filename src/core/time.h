// Simulated time and unit helpers.
// Time is an int64 count of picoseconds (docs/architecture.md "Design decisions"): 400 Gb/s and a 4160-byte packet
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

// The largest time a config or input file may name, in picoseconds (int64 holds 9.22e18 ps, about
// 106 days; the margin keeps sums of such times with link latencies from overflowing). Config keys
// with a time unit are range-checked against it; readers of time columns check it with file and line.
inline constexpr double kMaxSimTimePs = 9.0e18;

// Convert a duration given as a floating-point number of a unit to picoseconds, rounding to nearest.
// Values beyond the representable range saturate (to kTimeNever or its negative) instead of the
// undefined behaviour of an out-of-range cast; NaN gives kTimeNever. Inputs are range-checked before
// they get here, so saturation is a last line of defence, not a result.
inline SimTime from_ps_double(double ps) {
  if (!(ps < 9.2e18)) return kTimeNever;  // also NaN
  if (ps <= -9.2e18) return -kTimeNever;
  return static_cast<SimTime>(ps + (ps >= 0 ? 0.5 : -0.5));
}
// True when `ps` picoseconds is a time an input may name (0 .. kMaxSimTimePs; false for NaN).
inline bool fits_sim_time(double ps) { return ps >= 0 && ps <= kMaxSimTimePs; }
inline SimTime from_ns(double v) { return from_ps_double(v * 1e3); }
inline SimTime from_us(double v) { return from_ps_double(v * 1e6); }

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
