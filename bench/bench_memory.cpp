// Benchmark (not a test): what a cache line costs on this machine as the working set grows, the
// figures behind the event loop's prefetch schedules (docs/scale.md "Prefetch distances from the
// working set"). Two measurements, over 64-byte lines linked in one random cycle (each line holds the
// index of the next, so every load depends on the one before):
//   latency:    one chain, ns per load, for working sets of 1 MiB to 256 MiB (where a load comes
//               from the second-level cache, the last-level cache, or main memory);
//   throughput: k independent chains over 256 MiB walked in turn, ns per load: how many lines the
//               core can wait for at once, and so how many lines per second memory delivers at best.
// `build/bench/bench_memory [MiB]` (the size of the throughput set; default 256). Heap on huge pages
// where the kernel gives them on request, as lbsim's own heap (docs/scale.md "Huge pages").
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

struct alignas(64) Line {
  std::uint64_t next;
  char pad[56];
};

// `n` lines, each pointing to the next of one random cycle through all of them.
struct Cycle {
  Line* lines = nullptr;
  std::size_t n = 0;
  std::vector<std::uint64_t> order;
  explicit Cycle(std::size_t bytes) : n(bytes / sizeof(Line)), order(n) {
    const std::size_t size = n * sizeof(Line);
    lines = static_cast<Line*>(
        std::aligned_alloc(std::size_t{2} << 20, (size + (std::size_t{2} << 20) - 1) & ~((std::size_t{2} << 20) - 1)));
    if (lines == nullptr) {
      std::fprintf(stderr, "bench_memory: cannot allocate %zu bytes\n", size);
      std::exit(2);
    }
    madvise(lines, size, MADV_HUGEPAGE);
    std::iota(order.begin(), order.end(), std::uint64_t{0});
    std::mt19937_64 rng(1);
    std::shuffle(order.begin(), order.end(), rng);
    for (std::size_t i = 0; i < n; ++i) lines[order[i]].next = order[(i + 1) % n];
  }
  ~Cycle() { std::free(lines); }
  Cycle(const Cycle&) = delete;
  Cycle& operator=(const Cycle&) = delete;
};

// ns per load of `chains` chains over `c`, walked in turn for `loads` loads in all.
double walk(const Cycle& c, std::size_t chains, std::size_t loads) {
  std::vector<std::uint64_t> at(chains);
  for (std::size_t j = 0; j < chains; ++j) at[j] = c.order[j * (c.n / chains)];
  const std::size_t rounds = loads / chains;
  const auto t0 = std::chrono::steady_clock::now();
  for (std::size_t r = 0; r < rounds; ++r)
    for (std::size_t j = 0; j < chains; ++j) at[j] = c.lines[at[j]].next;
  const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
  volatile std::uint64_t sink = 0;  // keeps the walk
  for (const auto a : at) sink = sink ^ a;
  return ns / static_cast<double>(rounds * chains);
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t big_mib = 256;
  if (argc > 1) {
    char* end = nullptr;
    const unsigned long v = std::strtoul(argv[1], &end, 10);
    if (end == argv[1] || *end != '\0' || v < 1 || v > 65536) {
      std::fprintf(stderr, "bench_memory: expected a size in MiB (1-65536), got '%s'\n", argv[1]);
      return 2;
    }
    big_mib = v;
  }
  constexpr std::size_t kLoads = 20'000'000;
  std::printf("latency (one chain, ns per load):");
  for (const std::size_t mib : {1, 2, 4, 16, 64, 256}) {
    const Cycle c(mib << 20);
    walk(c, 1, c.n);  // touch every line once (page faults out of the timing)
    std::printf(" %zu MiB %.1f%s", mib, walk(c, 1, kLoads), mib == 256 ? "\n" : ",");
  }
  const Cycle big(big_mib << 20);
  walk(big, 1, big.n);
  std::printf("throughput over %zu MiB (k chains, ns per load):", big_mib);
  for (const std::size_t k : {1, 2, 4, 8, 16, 32})
    std::printf(" k=%zu %.1f%s", k, walk(big, k, kLoads), k == 32 ? "\n" : ",");
  return 0;
}
