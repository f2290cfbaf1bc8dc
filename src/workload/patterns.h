// Synthetic traffic patterns and the explicit flow-list reader.
//
// Patterns ([REPS] sec. 4.2 "Synthetic benchmarks"; [Spritz] sec. V-B a)):
//  - permutation: every host sends to exactly one host and receives from exactly one, never itself;
//    optionally the receiver is kept outside the sender's group (Spritz prioritises receivers outside
//    the local Dragonfly group "to force utilization of global links");
//  - tornado: host i sends to (i + N/2) mod N ("node 0 would send to 64 and vice-versa" for N = 128);
//  - incast: k senders to one receiver, optionally with bystanders forming a disjoint permutation among
//    the remaining hosts ([Spritz] sec. V-C, "Incast + Bystanders": 32 senders 0-31 -> node 160, the
//    other 1023 hosts in a one-to-one permutation, all flows start at time 0).
// Every generator is a pure function of (params, number of hosts, seed): same inputs, same Workload.
#pragma once
#include <cstdint>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

#include "core/rng.h"
#include "core/time.h"
#include "workload/flow_spec.h"

namespace lbsim::workload {

struct PermutationParams {
  Bytes bytes = 1 << 20;  // per flow
  SimTime start = 0;      // all flows start together
  // > 0: hosts are in groups of `group_size` consecutive ids (e.g. a Dragonfly group or a ToR); every
  // receiver is outside its sender's group. Infeasible if one group holds more than half the hosts.
  std::int32_t group_size = 0;
  std::string tag;  // tag name for the flows ("" = "default")
  std::string lb;   // per-flow load balancer ("" = run default)
};
Workload make_permutation(const PermutationParams& p, std::int32_t num_hosts, std::uint64_t seed);

struct TornadoParams {
  Bytes bytes = 1 << 20;
  SimTime start = 0;
  std::string tag;
  std::string lb;
};
// Host i -> (i + N/2) mod N, N >= 2. For odd N this is still a permutation without fixed points.
Workload make_tornado(const TornadoParams& p, std::int32_t num_hosts);

struct IncastParams {
  Bytes bytes = 1 << 20;  // per sender
  SimTime start = 0;
  std::int32_t receiver = 0;
  std::int32_t senders = 8;  // k; ignored when sender_list is given
  // Which k senders: an explicit list, else k random hosts (seeded) if random_senders, else the k
  // lowest host ids other than the receiver (Spritz: nodes 0-31 -> node 160).
  std::vector<std::int32_t> sender_list;
  bool random_senders = false;
  // Bystanders: every host that is neither a sender nor the receiver joins a random permutation among
  // those hosts (tag "bystander"); incast flows are then tagged "incast".
  bool bystanders = false;
  Bytes bystander_bytes = 0;  // 0 = same as `bytes`
  std::string lb;
};
Workload make_incast(const IncastParams& p, std::int32_t num_hosts, std::uint64_t seed);

// Building blocks shared with the collectives and traces.
//
// One transfer entry (no dependencies).
FlowSpec make_transfer(std::int32_t src, std::int32_t dst, Bytes bytes, SimTime start, std::int32_t tag,
                       const std::string& lb);
//
// A random permutation of `hosts` onto itself without fixed points (target[i] is what hosts[i] sends
// to). group_size > 0 also forbids targets in the same group (id / group_size). Throws UserError when
// impossible (fewer than 2 hosts, or a group too large). Without groups the result is uniform over all
// derangements (rejection sampling); with groups it is a shuffle repaired by random swaps.
std::vector<std::int32_t> random_derangement(const std::vector<std::int32_t>& hosts, Rng& rng,
                                             std::int32_t group_size = 0);
// Appends one flow hosts[i] -> derangement[i] per host, returns the index of the first appended entry.
std::size_t append_permutation(Workload& w, const std::vector<std::int32_t>& hosts, Bytes bytes, SimTime start,
                               Rng& rng, std::int32_t tag, const std::string& lb, std::int32_t group_size = 0);

// Every host of [0, num_hosts) that is not in `excluded` joins a random permutation among those hosts
// (background traffic next to a collective, bystanders next to an incast). Appends nothing when fewer
// than two hosts remain.
void append_permutation_of_rest(Workload& w, const std::vector<std::int32_t>& excluded, std::int32_t num_hosts,
                                Bytes bytes, SimTime start, Rng& rng, std::int32_t tag, const std::string& lb);

// Explicit flow list, CSV with a header line. Required columns (any order): src, dst, bytes, start_us;
// optional: tag (a tag name), lb (a load-balancer name). '#' starts a comment; blank lines are ignored.
// Errors name the file, the line and the column. num_hosts <= 0 skips the host-range check.
//
//   src,dst,bytes,start_us,tag,lb
//   0,5,1048576,0,monitored,reps
//   3,5,65536,12.5,,
Workload parse_flows_csv(std::istream& in, std::string_view name, std::int32_t num_hosts);
Workload read_flows_csv(const std::string& path, std::int32_t num_hosts);

}  // namespace lbsim::workload
