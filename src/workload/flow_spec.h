// What the engine runs: a list of transfers and computations with dependencies.
// Every traffic source (patterns, flow files, traces, collectives, GOAL schedules) produces a
// Workload; the engine knows nothing about where it came from.
//
// An entry starts at max(start, time its deps completed + delay, time its start_deps started).
// A transfer completes when the receiver holds every byte; a computation completes `compute` after it
// starts, without sending packets.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/time.h"

namespace lbsim::workload {

struct FlowSpec {
  std::int32_t src = -1;                  // host id
  std::int32_t dst = -1;                  // host id (== src for a computation)
  Bytes bytes = 0;                        // message size; 0 with compute > 0 (or a zero-byte transfer) allowed
  SimTime start = 0;                      // earliest start, absolute
  SimTime delay = 0;                      // extra wait after all deps have completed
  SimTime compute = -1;                   // >= 0: this entry is a computation of this duration on host src
  std::vector<std::uint32_t> deps;        // entries that must have completed first
  std::vector<std::uint32_t> start_deps;  // entries that must have started first (GOAL irequires)
  std::int32_t tag = 0;                   // index into Workload::tags: role of the entry (for per-tag reports)
  std::string lb;                         // load balancer for this flow; empty = the run's default
  bool is_compute() const { return compute >= 0; }
};

struct Workload {
  std::vector<FlowSpec> flows;
  // Names of tags; tag 0 is "default". Reports break FCTs down per tag (e.g. "monitored",
  // "background", "step3").
  std::vector<std::string> tags{"default"};

  std::int32_t tag(const std::string& name) {
    for (std::size_t i = 0; i < tags.size(); ++i)
      if (tags[i] == name) return static_cast<std::int32_t>(i);
    tags.push_back(name);
    return static_cast<std::int32_t>(tags.size() - 1);
  }
};

}  // namespace lbsim::workload
