// Deterministic random number streams.
// One seed per run; every component draws from its own stream derived from (seed, stream id), so
// adding a component or changing the order in which components draw never perturbs the others.
#pragma once
#include <cstdint>
#include <string_view>

namespace lbsim {

// SplitMix64: used to derive well-mixed stream seeds and as a general 64-bit mixer.
inline constexpr std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// FNV-1a over a name, so streams can be named ("ecn", "workload", ...).
inline constexpr std::uint64_t hash_name(std::string_view s) {
  std::uint64_t h = 1469598103934665603ULL;
  for (char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return h;
}

// xoshiro256** (Blackman & Vigna): small state, fast, good quality.
class Rng {
 public:
  Rng() : Rng(0, 0) {}
  // A stream identified by (seed, stream, index): e.g. (run seed, hash_name("ecn"), port id).
  Rng(std::uint64_t seed, std::uint64_t stream, std::uint64_t index = 0) {
    std::uint64_t x = splitmix64(seed ^ splitmix64(stream ^ splitmix64(index + 0x1234567ULL)));
    for (auto& w : s_) {
      x = splitmix64(x);
      w = x;
    }
  }

  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  // Uniform integer in [0, n) (Lemire's multiply-shift; bias < n / 2^64, negligible here).
  std::uint64_t below(std::uint64_t n) {
    return static_cast<std::uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
  }
  // Uniform double in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  bool bernoulli(double p) { return uniform() < p; }

 private:
  static constexpr std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

}  // namespace lbsim
