// Structural checks on a Workload, shared by every generator's tests and usable by the engine before a
// run: host ids in range, computations on one host, dependency indices valid, and no dependency cycle
// (a cycle in deps/start_deps would make the engine wait forever; flow_spec.h defines the semantics).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "workload/flow_spec.h"

namespace lbsim::workload {

// Entries in an order where every entry comes after all its deps and start_deps (Kahn's algorithm).
// Throws lbsim::UserError naming an entry on a cycle if there is one.
std::vector<std::uint32_t> topological_order(const Workload& w);

// Throws lbsim::UserError with the first problem found (entry index and what is wrong).
// num_hosts <= 0 skips the host-range check.
void validate_workload(const Workload& w, std::int32_t num_hosts);

// A transfer is at most kMaxMessagePackets packets: packet sequence numbers are 32-bit (the wire
// format), so a larger message would wrap. Throws UserError naming the first entry above the limit,
// its size and `source` (a message prefix saying where the sizes came from, e.g. Config::where's "c.toml:12: "). A
// message of 2^32 + 1 packets used to become one packet and "finish" in microseconds ([issue 14]).
inline constexpr std::int64_t kMaxMessagePackets = 0xFFFFFFFELL;
void check_packet_counts(const Workload& w, Bytes mtu, const std::string& source);

// Summary numbers used by tests and by `lbsim run` logs.
struct WorkloadStats {
  std::size_t transfers = 0;
  std::size_t computations = 0;
  Bytes total_bytes = 0;
  SimTime first_start = 0;
  SimTime last_start = 0;
};
WorkloadStats workload_stats(const Workload& w);

}  // namespace lbsim::workload
