// Bounded simple paths between two switches ([Spritz] sec. III, III-C, Table I).
//
// Spritz's source-guided routing lets the sender pick among "all possible Valiant paths" between a
// source and a destination switch ([Spritz] sec. III): in Dragonfly at most 3 local and 2 global
// hops through at most one intermediate group, in Slim Fly at most 4 hops. This file enumerates those
// paths, classifies each by (local hops, global hops) and gives its latency the way Table I does:
//   latency = sum over switch-to-switch hops of (link propagation latency + serialization of one
//             packet at the link rate)
// i.e. without host links and without switch latency (Table I: 1 local hop = 25 ns + 83.2 ns =
// 108.2 ns for a 4160-byte packet at 400 Gb/s; 1 global hop = 500 ns + 83.2 ns = 583.2 ns).
//
// Rules (unless PathOptions::rule names one: "dragonfly" when Topology::minimal_one_global_hop,
// "valiant" for Topology::kind "slim_fly", else "simple"):
//   "dragonfly" group-level Valiant ([Spritz] sec. III-a, III-B): same group: the direct local
//               link and every 2-hop detour through another switch of the group (the source never
//               misroutes outside its group); different groups: group sequence S,D (minimal) or
//               S,I,D for every intermediate group I, using every global link between consecutive
//               groups, with at most one local hop inside each group (0 when the global link
//               already lands on the right switch) -> at most 3 local + 2 global hops.
//   "valiant"   switch-level Valiant (Slim Fly, [Spritz] sec. III-b): simple paths of at most
//               max_hops (default 2 * diameter = 4) hops that are a minimal path to some
//               intermediate switch followed by a minimal path to the destination.
//   "simple"    generic: every simple path of at most max_hops hops (default: the switch diameter).
//
// Paths are sequences of (switch node, output port) so the engine can forward along them (source
// routing) or derive the Spritz EV1/EV2 choice from the first two output ports (sec. III-C).
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/time.h"
#include "topo/topology.h"

namespace lbsim::topo {

// Leave switch `node` through its port `port`.
struct Hop {
  std::int32_t node = -1;
  std::int32_t port = -1;
  bool operator==(const Hop&) const = default;
};

struct Path {
  std::vector<Hop> hops;    // one per switch-to-switch link; empty when source == destination
  std::int32_t local = 0;   // hops over Local / Tier1 / Tier2 links
  std::int32_t global = 0;  // hops over Global links
  SimTime latency = 0;      // Table I latency (see above)
};

struct PathOptions {
  Bytes packet_bytes = 4160;  // [Spritz] Table II: 64 B header + 4096 B payload
  BitsPerSec rate = 0;        // serialization rate; 0 = each link's own rate
  std::string rule = "auto";  // "auto" | "dragonfly" | "valiant" | "simple"
  int max_hops = -1;          // bound for "valiant"/"simple"; -1 = rule default
};

enum class PathRule { Dragonfly, Valiant, Simple };
const char* path_rule_name(PathRule r);

// A light view handed to visitors; `hops` points into a buffer that is reused after the call.
struct PathView {
  const Hop* hops = nullptr;
  std::int32_t length = 0;
  std::int32_t local = 0, global = 0;
  SimTime latency = 0;
};

class PathEnumerator {
 public:
  // Precomputes per-switch adjacency, distances and (Dragonfly) the global links per group pair.
  explicit PathEnumerator(const Topology& t, PathOptions opt = {});

  PathRule rule() const { return rule_; }
  int max_hops() const { return max_hops_; }
  const Topology& topology() const { return *t_; }
  // Latency one packet accumulates on one link (propagation + serialization).
  SimTime hop_latency(const Link& l) const;
  // hop_latency of link number `link`, precomputed.
  SimTime link_latency(std::int32_t link) const { return link_lat_[static_cast<std::size_t>(link)]; }

  // Calls `visit` once per bounded path from switch node `src` to switch node `dst`; the order is
  // deterministic but not sorted. With `classes` false the view's local and latency are left 0 and
  // so is global, except under the Dragonfly rule, whose search knows each path's global hops from
  // its shape (callers that read only the hops skip a pass over each path's links). With `prune` > 0
  // the search may skip the other paths that share their first `prune` hops with a path it visited
  // (every distinct prefix of that length is still visited at least once): what a caller that reads
  // only the first hops needs. The Dragonfly search ignores it.
  void for_each_path(std::int32_t src, std::int32_t dst, const std::function<void(const PathView&)>& visit,
                     bool classes = true, int prune = 0) const;
  // All bounded paths, sorted by (latency, hop sequence): the order of a Spritz EV entry list.
  std::vector<Path> paths(std::int32_t src, std::int32_t dst) const;
  // Number of bounded paths src -> dst (same set as paths(), computed without building them).
  std::int64_t count(std::int32_t src, std::int32_t dst) const;
  // count(src, d) for every switch d, indexed by switch index (entry for src itself is 1).
  std::vector<std::int64_t> counts_from(std::int32_t src) const;

 private:
  struct GlobalEdge {
    std::int32_t u, port, v;  // leave u (group X) by port, arrive at v (group Y)
  };
  bool is_switch(std::int32_t n) const { return !t_->is_host(n); }
  std::int32_t dist(std::int32_t a, std::int32_t b) const {  // node ids of switches
    return dist_[static_cast<std::size_t>(t_->switch_index(a)) * nsw_ + t_->switch_index(b)];
  }
  void df_visit(std::int32_t s, std::int32_t d, const std::function<void(const PathView&)>& f, bool classes) const;
  std::int64_t df_count(std::int32_t s, std::int32_t d) const;
  std::int64_t local_links(std::int32_t a, std::int32_t b) const;  // parallel local links a -> b
  // Dragonfly: the local (non-global) switch-to-switch ports of switch node `a` that lead to `b`, in
  // port order.
  std::pair<const std::int32_t*, const std::int32_t*> local_ports(std::int32_t a, std::int32_t b) const;
  void dfs_visit(std::int32_t s, std::int32_t d, const std::function<void(const PathView&)>& f, bool classes,
                 int prune = 0) const;
  void dfs_count_from(std::int32_t s, std::vector<std::int64_t>& out) const;

  const Topology* t_;
  PathOptions opt_;
  PathRule rule_ = PathRule::Simple;
  int max_hops_ = 0;
  std::int32_t nsw_ = 0;
  std::vector<std::int16_t> dist_;  // switch distances, [si * nsw + di]
  std::vector<SimTime> link_lat_;   // hop latency per link
  std::int32_t groups_ = 0;
  std::vector<std::vector<GlobalEdge>> pair_;  // Dragonfly: [X * groups + Y] global edges X -> Y
  // Dragonfly: every switch's local switch-to-switch ports sorted by (peer, port), so a segment
  // a -> b is a binary search instead of a scan of a's ports and their links (docs/scale.md
  // "Bounded paths in ports").
  std::vector<std::uint32_t> local_off_;  // [switch index] -> first entry; size switches + 1
  std::vector<std::int32_t> local_peer_, local_port_;
};

// One row of a path-type summary (Table I): how many paths of each (local, global) class.
struct PathTypeCount {
  std::int32_t local = 0, global = 0;
  SimTime latency = 0;  // latency of paths of this type (all equal when link classes are uniform)
  std::int64_t count = 0;
  bool operator==(const PathTypeCount&) const = default;
};
// Groups paths by (global, local) and latency, sorted by (latency, global, local).
std::vector<PathTypeCount> summarize_path_types(const std::vector<Path>& paths);

// The endpoint table of a source switch ([Spritz] sec. III-C, III-f): for every destination switch
// (indexed by switch index) its EV entry list, i.e. all bounded paths sorted by latency. All
// endpoints behind one switch share it (static compression by destination switch). The first two
// hops of each path are what EV1 and EV2 select at the ECMP 1 / ECMP 2 switches.
std::vector<std::vector<Path>> endpoint_table(const PathEnumerator& pe, std::int32_t src_switch);

// [Spritz] sec. III-C / Fig. 3: an EV entry is 16 bits of EV (EV1, EV2) + 8 bits of metadata.
inline constexpr int kEvEntryBits = 24;
// Upper bound on the endpoint-table size per endpoint: one EV entry list of `max_paths` entries per
// destination switch (static compression by destination switch, sec. III-f).
inline std::int64_t endpoint_table_bytes(std::int64_t switches, std::int64_t max_paths) {
  return switches * max_paths * kEvEntryBits / 8;
}

}  // namespace lbsim::topo
