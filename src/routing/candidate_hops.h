// The next hops of the LAPS artifact's baseline switches (routing.next_hops = "candidates").
//
// In the authors' ns-3 runs ([LAPS] sec. 4; docs/laps.md "The baselines as the artifact runs
// them"), the switches of ECMP, PLB and LetFlow do not hash over the shortest-path next hops: every path of the run's
// path file (the LAPS candidate paths of every host pair) adds, at each switch it crosses, its out port to the table
// entry of its (source host, destination host) pair, and a packet at a switch hashes (or, for a new LetFlow flowlet,
// draws) among the ports of its own pair's entry. On Rail that lets ECMP take the 8-link paths through both NVLink
// switches as well as the 4- and 6-link ones; on the LAPS Dragonfly the paths through a third group.
//
// CandidateUnionHops gives that entry for a (source switch, destination switch) pair at a switch:
// the union, over the pair's candidate paths (routing/source_route.h, routing.source_paths), of the
// out port of every path that crosses the switch. A packet is routed by its own direction: an ACK by
// the pair (its sender's switch, its receiver's switch), i.e. the reversed data pair, as the
// artifact's switches look up (ACK source, ACK destination). Entries are built on first use per
// switch pair and checked to form no cycle (a packet that hashes hop by hop over them always reaches
// the destination switch); a cycle is a UserError naming the pair.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "core/rng.h"
#include "net/network.h"
#include "routing/source_route.h"
#include "routing/tables.h"

namespace lbsim::routing {

struct RoutingContext;

class CandidateUnionHops {
 public:
  CandidateUnionHops(const MinimalTables& tables, PathRule rule, int k, SimTime switch_latency, Bytes wire_bytes);
  // The candidates of routing.source_paths for the run's topology (RoutingContext).
  static std::unique_ptr<CandidateUnionHops> from(const RoutingContext& c);
  // Out ports of switch `node` towards switch `b` for a packet of switch pair (a, b): those of the
  // pair's candidate paths through `node`, in increasing order; empty if no candidate crosses it or
  // node == b (the host port is used there).
  std::span<const std::int16_t> ports(std::int32_t node, std::int32_t a, std::int32_t b);
  CandidatePaths& paths() { return paths_; }
  std::size_t pairs() const { return cache_.size(); }

 private:
  struct Entry {
    std::int32_t node;
    std::uint32_t offset;
    std::uint16_t count;
  };
  struct Pair {
    std::vector<Entry> entries;  // by node
    std::vector<std::int16_t> ports;
  };
  Pair build(std::int32_t a, std::int32_t b);
  CandidatePaths paths_;
  std::unordered_map<std::uint64_t, Pair> cache_;
};

// ECMP over the candidate union: a hash of (src, dst, flow, EV, per-switch salt) over the ports of
// the packet's pair at the switch (the artifact's SwitchNode: a hash of the flow seeded by the
// switch id).
class CandidateEcmpRouter final : public net::Router {
 public:
  CandidateEcmpRouter(const MinimalTables& tables, std::unique_ptr<CandidateUnionHops> hops, std::uint64_t seed);
  std::int32_t route(std::int32_t node, net::Packet& p) override;
  const CandidateUnionHops& hops() const { return *hops_; }

 private:
  const MinimalTables& tables_;
  const topo::Topology& topo_;
  std::unique_ptr<CandidateUnionHops> hops_;
  std::vector<std::uint64_t> salt_;
};

// LetFlow's choice for a new flowlet over the candidate union: a uniformly random port of the
// packet's pair at the switch.
class CandidateRandomRouter final : public net::Router {
 public:
  CandidateRandomRouter(const MinimalTables& tables, std::unique_ptr<CandidateUnionHops> hops, std::uint64_t seed);
  std::int32_t route(std::int32_t node, net::Packet& p) override;

 private:
  const MinimalTables& tables_;
  const topo::Topology& topo_;
  std::unique_ptr<CandidateUnionHops> hops_;
  Rng rng_;
};

// routing.next_hops of the run is "candidates".
bool candidate_next_hops(const RoutingContext& c);

}  // namespace lbsim::routing
