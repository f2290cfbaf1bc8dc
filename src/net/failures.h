// Failure schedules: links that go down (black hole), run at a lower rate, drop packets at random,
// and switches that go down, each from a start time for a duration (transient) or for good
// ([REPS] sec. 4.3.3, App. C.3/C.4; docs/reps.md "Failures").
//
// The network only holds the per-port state (Port::up, Port::loss_prob, Port::set_rate); the
// Simulation schedules the start and end of each failure as events and calls ActiveFailures.
// Routing does not react by itself ([REPS] sec. 3.2: excluding a failed cable from an ECMP group
// takes milliseconds); an optional convergence delay is applied by the Simulation.
//
// File format (failures.file): one failure per line, '#' starts a comment, tokens are separated by
// blanks:
//   <start_us> <kind> <target> [for_us=<d>] [from=<node>] [rate_gbps=<r>] [prob=<p>] [queue=scale|keep]
// kind: down | degrade | loss | switch_down. target: a link as "<nodeA>-<nodeB>" (node labels as in
// ports.csv, e.g. tor0-spine3; the first link between the two) or "link:<id>", or for switch_down a
// switch label. for_us: duration (omitted or 0 = permanent). from: fail only the direction in which
// that node transmits (default both). degrade needs rate_gbps, loss needs prob. queue (degrade only):
// scale the port's data queue and ECN thresholds with the rate or keep them; default
// failures.degrade_queues.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/time.h"
#include "net/network.h"
#include "topo/topology.h"

namespace lbsim::net {

enum class FailureKind : std::uint8_t { Down, Degrade, Loss, SwitchDown };
const char* failure_kind_name(FailureKind k);

struct Failure {
  FailureKind kind = FailureKind::Down;
  SimTime start = 0;
  SimTime duration = 0;    // 0 = permanent
  std::int32_t link = -1;  // Down / Degrade / Loss
  std::int32_t from = -1;  // only the direction transmitted by this node; -1 = both
  std::int32_t node = -1;  // SwitchDown
  BitsPerSec rate = 0;     // Degrade
  double loss = 0.0;       // Loss
  std::int8_t queue = -1;  // Degrade: 1 = scale the queue with the rate, 0 = keep it, -1 = the default
  int line = 0;            // line in the failure file (0 = generated)
  bool operator==(const Failure&) const = default;
};

// Reads a failure file; errors name the file and line.
std::vector<Failure> read_failure_file(const std::string& path, const topo::Topology& t);

// "Fail X% of links at random": round(fraction x candidates) (at least one when fraction > 0)
// distinct links of the chosen class, drawn with the given seed. links = first_uplinks draws
// nothing: every ToR's first round(fraction x its uplinks) uplinks (at least one), ToR-to-T1
// direction only (htsim's "X% failed cables").
struct RandomFailures {
  double fraction = 0.0;
  std::string links = "tor_uplinks";  // tor_uplinks (fat tree T0-T1) | switch_links | all | first_uplinks
  FailureKind kind = FailureKind::Down;
  SimTime start = 0, duration = 0;
  BitsPerSec rate = 0;
  double loss = 0.0;
};
std::vector<Failure> random_failures(const RandomFailures& r, const topo::Topology& t, std::uint64_t seed);

// Global ids of the ports a failure acts on (the transmitting side of each failed direction).
std::vector<std::uint32_t> failure_ports(const Failure& f, const Network& net);
// The failures active on each port. A port's state is recomputed from all of them whenever one
// starts or ends, so failures nest: the end of a loss or degrade inside a longer down period keeps
// the port down ([issue 14]: it used to bring the link back up). Combined: down if any is a down
// failure, the lowest degraded rate, loss probability 1 - prod(1 - p_i).
class ActiveFailures {
 public:
  // scale_queues (failures.degrade_queues = "scale"): a degraded port's data queue and ECN
  // thresholds follow its rate (Network::scale_queue); the default of degrade failures whose
  // Failure::queue is -1. A port scales when any active degrade failure on it scales.
  explicit ActiveFailures(const std::vector<Failure>& failures, bool scale_queues = false)
      : failures_(failures), scale_queues_(scale_queues) {}
  void start(Network& net, std::uint32_t index);
  void end(Network& net, std::uint32_t index);

 private:
  void recompute(Network& net, std::uint32_t port) const;
  const std::vector<Failure>& failures_;
  bool scale_queues_ = false;
  std::unordered_map<std::uint32_t, std::vector<std::uint32_t>> active_;  // port -> failure indices
};

}  // namespace lbsim::net
