// Source routing over candidate paths ([LAPS] sec. 3.2-3.5).
//
// A packet carries its path as a short list of anchor switches, the shortest path being assumed
// between consecutive anchors ([LAPS] sec. 3.2 "SR"); switches forward by that header and the
// receiver answers along the reversed path (sec. 3.5). Here the header is the packet's EV: the index
// of the path in the candidate list of its (source switch, destination switch) pair, which the
// sender's Path Information Table (sec. 3.3) maps to the anchors. The anchors are expanded once
// into the hop-by-hop switch sequence (shortest path between anchors, ties broken by the lowest
// port), so that a data packet at its k-th switch takes hop k of that sequence and an ACK or NACK
// walks it backwards: the reverse path exactly.
//
// Candidate rules (routing.source_paths):
//   dragonfly  [LAPS] sec. 4.1: inter-group, the minimal path plus one path per other group as a
//              midpoint (anchor: the switch of that group on the shortest detour); intra-group, the
//              direct path plus one per other switch of the group (a = 4: 3 candidates, g = 9: 8).
//   rail       [LAPS] sec. 4.1: between groups one path per rail switch (Topology::rail_planes,
//              anchor: the rail); inside a group the shortest path (through the NVLink switch).
//   yen        the k shortest loopless switch paths by hops (Yen 1971; [LAPS] sec. 2 "Path
//              Finding"), k = routing.source_paths_k; anchors: the fewest switches whose
//              shortest-path expansion gives the path back.
//   auto       dragonfly where Topology::minimal_one_global_hop, rail where rail_planes, else yen.
// Candidate lists are built on first use per switch pair and cached, so memory follows the pairs
// that carry traffic, never the square of the network.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "lb/pair_paths.h"
#include "net/network.h"
#include "routing/registry.h"
#include "routing/tables.h"

namespace lbsim::routing {

struct RoutingContext;

struct SourcePath {
  std::vector<std::int32_t> anchors;     // switch nodes between the end switches (may be empty)
  std::vector<std::int32_t> nodes;       // every switch node, source switch first, destination last
  std::vector<std::int16_t> out_ports;   // out_ports[i]: port of nodes[i] towards nodes[i + 1]
  std::vector<std::int16_t> back_ports;  // back_ports[i]: port of nodes[i + 1] towards nodes[i]
  SimTime base_latency = 0;              // one-way latency of a full data packet host to host, idle
  SimTime theoretical = 0;               // the LAPS artifact's "theoretical smallest latency": base_latency + one
                                         // full packet's serialisation at the path's slowest link, per link
  double ps_per_byte = 0;                // sum over the path's links (host links included) of 8 / rate in ps:
                                         // what each byte more in a packet adds to base_latency
};

enum class PathRule : std::uint8_t { Dragonfly, Rail, Yen };

class CandidatePaths {
 public:
  // `wire_bytes`: a full data packet's wire size, `switch_latency` per switch traversal (the base
  // latency of each path, the PIT's idleVal).
  CandidatePaths(const MinimalTables& tables, PathRule rule, int k, SimTime switch_latency, Bytes wire_bytes);
  // Candidates from switch node a to switch node b (a == b: one path of one switch). Built on first use.
  const std::vector<SourcePath>& paths(std::int32_t a, std::int32_t b);
  PathRule rule() const { return rule_; }
  static PathRule rule_of(const std::string& name, const topo::Topology& t);
  // routing.source_paths of a run, checked against its topology (a UserError naming the key when
  // the rule needs a Dragonfly or a Rail the run does not have).
  static PathRule checked_rule(const RoutingContext& c);
  static const char* rule_name(PathRule r);
  // Memory of the cache (the simulator's, not the NIC's): pairs built, paths, bytes.
  std::size_t pairs() const { return cache_.size(); }
  std::size_t total_paths() const { return paths_; }
  std::size_t bytes() const { return bytes_; }
  const topo::Topology& topology() const { return topo_; }

 private:
  std::vector<SourcePath> build(std::int32_t a, std::int32_t b) const;
  // The switch sequence from a to b along shortest paths (lowest port on ties), a first, b last.
  std::vector<std::int32_t> shortest(std::int32_t a, std::int32_t b) const;
  bool make_path(std::int32_t a, std::int32_t b, const std::vector<std::int32_t>& anchors, SourcePath& out) const;
  void finish(SourcePath& p, std::int32_t a, std::int32_t b) const;
  std::vector<std::vector<std::int32_t>> yen(std::int32_t a, std::int32_t b) const;
  std::int32_t port_to(std::int32_t from, std::int32_t to) const;

  const MinimalTables& tables_;
  const topo::Topology& topo_;
  PathRule rule_;
  int k_;
  SimTime sw_lat_;
  Bytes wire_;
  std::unordered_map<std::uint64_t, std::vector<SourcePath>> cache_;
  std::size_t paths_ = 0, bytes_ = 0;
};

// A PairPathSource: the connections of a switch pair get its candidate paths as an lb::CandidateSet,
// the PIT's paths of [LAPS] sec. 3.3 (the EV of a packet is the index of its path).
class SourceRouteRouter final : public net::Router, public PairPathSource {
 public:
  SourceRouteRouter(const MinimalTables& tables, PathRule rule, int k, SimTime switch_latency, Bytes wire_bytes);
  std::int32_t route(std::int32_t node, net::Packet& p) override;
  CandidatePaths& candidates() { return paths_; }
  const CandidatePaths& candidates() const { return paths_; }
  // The candidate set of switch pair (a, b) (node ids), built on first use.
  const lb::PairPaths& pair_paths(std::int32_t a, std::int32_t b) override;
  EvPath describe_ev(std::int32_t, std::int32_t, std::uint32_t) const override { return {}; }

 private:
  const MinimalTables& tables_;
  const topo::Topology& topo_;
  CandidatePaths paths_;
  // Per switch pair asked for (key a * 2^32 + b); std::map keeps the addresses the policies hold stable.
  std::map<std::uint64_t, lb::CandidateSet> sets_;
};

}  // namespace lbsim::routing
