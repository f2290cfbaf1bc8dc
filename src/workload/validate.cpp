#include "workload/validate.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "core/error.h"

namespace lbsim::workload {

std::vector<std::uint32_t> topological_order(const Workload& w) {
  const std::size_t n = w.flows.size();
  std::vector<std::uint32_t> indeg(n, 0);
  std::vector<std::vector<std::uint32_t>> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (const auto* list : {&w.flows[i].deps, &w.flows[i].start_deps}) {
      for (std::uint32_t d : *list) {
        if (d >= n)
          throw UserError(fmt::format("workload entry {} depends on entry {}, but there are only {} entries", i, d, n));
        out[d].push_back(static_cast<std::uint32_t>(i));
        ++indeg[i];
      }
    }
  }
  std::vector<std::uint32_t> order;
  order.reserve(n);
  for (std::size_t i = 0; i < n; ++i)
    if (indeg[i] == 0) order.push_back(static_cast<std::uint32_t>(i));
  for (std::size_t head = 0; head < order.size(); ++head)
    for (std::uint32_t j : out[order[head]])
      if (--indeg[j] == 0) order.push_back(j);
  if (order.size() != n) {
    std::size_t bad = 0;
    while (indeg[bad] == 0) ++bad;
    throw UserError(fmt::format("workload has a dependency cycle: entry {} (host {} -> {}) can never start", bad,
                                w.flows[bad].src, w.flows[bad].dst));
  }
  return order;
}

void validate_workload(const Workload& w, std::int32_t num_hosts) {
  for (std::size_t i = 0; i < w.flows.size(); ++i) {
    const FlowSpec& f = w.flows[i];
    auto bad_host = [&](std::int32_t h) { return h < 0 || (num_hosts > 0 && h >= num_hosts); };
    if (bad_host(f.src) || bad_host(f.dst))
      throw UserError(
          fmt::format("workload entry {}: host {} -> {} out of range (0..{})", i, f.src, f.dst, num_hosts - 1));
    if (f.is_compute() && f.src != f.dst)
      throw UserError(fmt::format("workload entry {}: a computation must have src == dst", i));
    if (!f.is_compute() && f.src == f.dst)
      throw UserError(fmt::format("workload entry {}: a transfer from host {} to itself", i, f.src));
    if (f.bytes < 0 || f.start < 0 || f.delay < 0)
      throw UserError(fmt::format("workload entry {}: negative size, start or delay", i));
    if (f.tag < 0 || static_cast<std::size_t>(f.tag) >= w.tags.size())
      throw UserError(fmt::format("workload entry {}: tag {} has no name", i, f.tag));
    for (std::uint32_t d : f.deps)
      if (d == i) throw UserError(fmt::format("workload entry {} depends on itself", i));
  }
  (void)topological_order(w);
}

void check_packet_counts(const Workload& w, Bytes mtu, const std::string& source) {
  for (std::size_t i = 0; i < w.flows.size(); ++i) {
    const FlowSpec& f = w.flows[i];
    if (f.is_compute() || f.bytes <= 0) continue;
    const std::int64_t packets = f.bytes / mtu + (f.bytes % mtu != 0);  // no overflow at INT64_MAX
    if (packets > kMaxMessagePackets)
      throw UserError(
          fmt::format("{}workload entry {} ({} -> {}): {} bytes are {} packets of network.mtu = {} bytes; "
                      "a message holds at most {} packets (32-bit sequence numbers): split it or raise network.mtu",
                      source, i, f.src, f.dst, f.bytes, packets, mtu, kMaxMessagePackets));
  }
}

WorkloadStats workload_stats(const Workload& w) {
  WorkloadStats s;
  bool first = true;
  for (const FlowSpec& f : w.flows) {
    if (f.is_compute()) {
      ++s.computations;
    } else {
      ++s.transfers;
      // Saturates instead of the signed overflow of a plain sum of huge sizes.
      if (__builtin_add_overflow(s.total_bytes, f.bytes, &s.total_bytes))
        s.total_bytes = std::numeric_limits<Bytes>::max();
    }
    if (first) {
      s.first_start = s.last_start = f.start;
      first = false;
    } else {
      s.first_start = std::min(s.first_start, f.start);
      s.last_start = std::max(s.last_start, f.start);
    }
  }
  return s;
}

}  // namespace lbsim::workload
