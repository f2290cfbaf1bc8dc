// GOAL schedules (the text format of LogGOPSim / ATLAHS, "Group Operation Assembly Language"):
//
//   num_ranks <N>
//   rank <R> {
//     <label>: send <n>b to <peer> [tag <t>] [cpu <c>] [nic <i>]
//     <label>: recv <n>b from <peer> [tag <t>] [cpu <c>] [nic <i>]
//     <label>: calc <n> [cpu <c>]
//     <a> requires <b>       a starts only after b has completed
//     <a> irequires <b>      a starts only after b has started
//   }
//
// Comments: '//' or '#' to the end of the line, and '/* ... */'. The 'b' after a size is optional; a
// missing tag means tag 0; cpu/nic are accepted and ignored (lbsim has one NIC per host).
//
// Translation to a Workload (flow_spec.h):
//  - a send and its matching recv become one transfer (size of the send) from host(sender) to
//    host(receiver); the transfer's deps/start_deps are the send's requires/irequires;
//  - the recv becomes a zero-duration computation on the receiver that depends on the transfer and on
//    the recv's own requires (its irequires become start_deps): "a recv completes when its message has
//    arrived and its own dependencies are done", and whatever requires the recv waits for that;
//  - calc <n> becomes a computation of n * calc_unit (default 1 unit = 1 ns) on host(rank);
//  - matching is MPI-like and static: the k-th send from rank s to rank d with tag t matches the k-th
//    recv on d from s with tag t, both in file order. Every recv must be matched (else an error naming
//    rank, label and line); a send without a recv is still transferred and reported as a warning;
//  - ranks map to hosts through `rank_to_host` (identity when empty; workload.rank_to_host: a rule,
//    modulo or block, or a file of host ids, one per rank in rank order). Two ranks on the same host
//    exchange messages without the network: such a transfer becomes a zero-duration computation.
#pragma once
#include <cstdint>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

#include "core/time.h"
#include "workload/flow_spec.h"

namespace lbsim::workload {

struct GoalParams {
  std::string path;
  SimTime calc_unit = ns(1);               // duration of one calc unit
  std::vector<std::int32_t> rank_to_host;  // empty = rank r runs on host r (or rank_rule)
  // workload.rank_to_host rules, applied once num_ranks is known: "modulo" (rank r on host r mod H,
  // ranks dealt round robin) or "block" (ranks r*H/N..: consecutive ranks share a host); "" = none.
  std::string rank_rule;
  std::string lb;
};

Workload parse_goal(std::istream& in, std::string_view name, const GoalParams& p, std::int32_t num_hosts,
                    std::vector<std::string>* warnings = nullptr);
Workload read_goal(const GoalParams& p, std::int32_t num_hosts, std::vector<std::string>* warnings = nullptr);

}  // namespace lbsim::workload
