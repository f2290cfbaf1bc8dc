// Bounded simple paths per switch pair for the non-minimal switch routing plug-ins (valiant, ugal_l,
// ecmp_paths), and the packet state that lets a switch forward along a chosen path.
//
// The path set is topo::PathEnumerator's ([Spritz] sec. III: "all possible Valiant paths" - in a
// Dragonfly at most 3 local + 2 global hops through one intermediate group, in a Slim Fly Valiant
// paths of at most 4 hops through one intermediate switch; Table I). A pair's paths are enumerated
// the first time a packet of that pair is routed (amortized: later packets of the pair allocate
// nothing) and kept sorted by their output-port sequence, so the paths that share a prefix form one
// contiguous range - what per-hop Valiant sampling narrows at every switch.
//
// Packet state (net::Packet::route_state / route_aux):
//   route_state 0            undecided (the packet has not left its source switch)
//   route_state kFollow | k  forwarding along paths [lo, hi) of the pair (host_switch(src),
//                            host_switch(dst)), k hops taken; route_aux = lo | hi << 16 (relative
//                            to the pair); per-hop Valiant narrows the range at every switch
//   route_state kFixed | k   forwarding along one path, k hops taken; route_aux = its output ports,
//                            packed (BoundedPathSet::pack: source routing, nothing looked up per
//                            hop) or, when they do not fit 32 bits, its absolute index
//   route_state kMinimal     minimal routing (minimal_routes()) from here on
#pragma once
#include <cstdint>
#include <vector>

#include "core/chunked.h"
#include "core/pair_map.h"
#include "routing/minimal.h"
#include "topo/paths.h"

namespace lbsim::routing {

inline constexpr std::uint8_t kRouteFollow = 0x10;
inline constexpr std::uint8_t kRouteMinimal = 0x20;
inline constexpr std::uint8_t kRouteFixed = 0x40;
inline constexpr std::uint8_t kRouteHopMask = 0x0F;

class BoundedPathSet {
 public:
  // A pair's few minimal paths are named in its record (their relative indices, increasing), and the
  // non-minimal ones are then all the others: the i-th of them follows from those positions, with no
  // index per path (a Dragonfly pair has one minimal path of 288 at p = 12, a = 24, h = 12: an index
  // of 287 entries was a cache miss per UGAL decision and 2 B per path). With more than kInlineMins
  // minimal paths, nonmin_ lists the non-minimal ones.
  static constexpr std::uint32_t kInlineMins = 4;
  struct Pair {
    std::uint32_t first = 0;         // index of the pair's first path in the path arrays
    std::uint32_t count = 0;         // number of paths (0: none)
    std::uint32_t nonmin_first = 0;  // into nonmin_ (only when mins > kInlineMins)
    std::uint32_t nonmin_count = 0;
    std::uint16_t min_at[kInlineMins] = {};  // relative indices of the minimal paths (mins <= kInlineMins)
    std::uint32_t mins = 0;                  // minimal paths
  };

  // `minimal`: the topology's minimal routes (minimal_routes(); a path is minimal when its length is
  // their distance, or on the Dragonfly by its global hops).
  BoundedPathSet(const topo::Topology& t, const SwitchPairPorts& minimal);

  // The pair's paths (enumerated on first use). Throws UserError when a pair has more than 65535
  // paths (the packet state keeps 16-bit path indices). The reference stays valid until the next
  // call (a first use may move the records).
  const Pair& pair(std::int32_t src_sw, std::int32_t dst_sw) {
    const auto a = static_cast<std::uint32_t>(t_.switch_index(src_sw));
    const auto b = static_cast<std::uint32_t>(t_.switch_index(dst_sw));
    const std::uint32_t k = index_.find(a, b);
    return k != PairMap::kMissing ? pairs_[k] : fill(src_sw, dst_sw, a, b);
  }
  // Switch pairs enumerated so far, and the bytes held for them (the index, the pair records, the
  // paths).
  std::size_t built_pairs() const { return pairs_.size(); }
  std::size_t bytes() const;
  std::int32_t length(std::uint32_t path) const { return at(path, 0) & kLenMask; }
  // The output port of the path's hop k (k < length): a path is kept as its ports alone, the
  // switches it visits follow from its source switch (docs/scale.md "Bounded paths in ports").
  std::int32_t port(std::uint32_t path, std::int32_t k) const { return at(path, 1 + static_cast<std::size_t>(k)); }
  // Whether every path's ports fit 32 bits (ports of pack_bits() bits each), and the packed form:
  // hop k's port at bits [k * pack_bits(), (k + 1) * pack_bits()).
  bool packable() const { return packable_; }
  std::uint32_t pack_bits() const { return pack_bits_; }
  std::uint32_t pack(std::uint32_t path) const {
    std::uint32_t v = 0;
    for (std::int32_t k = length(path) - 1; k >= 0; --k)
      v = (v << pack_bits_) | static_cast<std::uint32_t>(port(path, k));
    return v;
  }
  // The path's hops, walked from its source switch `src_sw` (tools and tests).
  std::vector<topo::Hop> hops(std::uint32_t path, std::int32_t src_sw) const;
  // Table I category: Dragonfly paths with an intermediate group or an intra-group detour are
  // non-minimal; elsewhere a path is minimal when its length is the minimal-route distance.
  bool minimal(std::uint32_t path) const { return (at(path, 0) & kMinimalBit) != 0; }
  // The relative index of the pair's i-th non-minimal path (i < nonmin_count).
  std::uint32_t nonminimal(const Pair& pr, std::uint32_t i) const {
    if (pr.mins > kInlineMins) return nonmin_[pr.nonmin_first + i];
    for (std::uint32_t j = 0; j < pr.mins; ++j) i += pr.min_at[j] <= i;  // skip the minimal ones at or before it
    return i;
  }
  const topo::PathEnumerator& enumerator() const { return pe_; }

 private:
  static constexpr std::uint8_t kLenMask = 0x7F, kMinimalBit = 0x80;
  std::int32_t at(std::uint32_t path, std::size_t i) const {
    const std::size_t j = static_cast<std::size_t>(path) * rec_ + i;
    return wide_ ? recs16_[j] : recs8_[j];
  }
  const Pair& fill(std::int32_t src_sw, std::int32_t dst_sw, std::uint32_t a, std::uint32_t b);

  const topo::Topology& t_;
  const SwitchPairPorts& minimal_;
  topo::PathEnumerator pe_;
  // Only the pairs routed so far (a dense record per switch pair took 20 B x switches^2: 962 MB in
  // an 83,232-endpoint Dragonfly; docs/scale.md).
  PairMap index_;                      // (source, destination switch index) -> index into pairs_
  core::ChunkedArray<Pair, 8> pairs_;  // in the order of first use, 256 records a chunk
  // Path i (an absolute index: a pair's paths are first .. first + count - 1) is a record of rec_ =
  // 1 + stride_ elements from i * rec_: length | kMinimalBit, then stride_ output ports (its length()
  // of them used); 1 byte each when every switch has at most 256 ports, else 2. A Dragonfly path is
  // 6 bytes where (switch, port) hops and an offset record took 48 (docs/scale.md "Bounded paths in
  // ports"). In chunks: what the pairs in use hold, not up to twice that.
  std::size_t stride_ = 0, rec_ = 0;
  bool wide_ = false;
  bool packable_ = false;
  std::uint32_t pack_bits_ = 0;
  core::ChunkedArray<std::uint8_t> recs8_;
  core::ChunkedArray<std::uint16_t> recs16_;
  core::ChunkedArray<std::uint16_t> nonmin_;
  // fill()'s scratch: the pair's paths as enumerated (stride_ ports each), their lengths and global
  // hops, and the sorted order.
  std::vector<std::int32_t> scratch_ports_;
  std::vector<std::uint8_t> scratch_len_, scratch_global_;
  std::vector<std::uint32_t> order_;
};

// Shared forwarding of the path-following routers.
class PathRouterBase : public net::Router {
 public:
  PathRouterBase(const MinimalTables& tables, std::uint64_t seed);
  const SwitchPairPorts& routes() const { return routes_; }
  BoundedPathSet& paths() { return paths_; }

 protected:
  // Minimal next hop (hash over the minimal-route candidates, EcmpRouter's salts); `dist`, when
  // given, receives the minimal-route distance.
  std::int32_t minimal_port(std::int32_t node, std::int32_t dst_sw, const net::Packet& p,
                            std::int32_t* dist = nullptr) const {
    return minimal_next_hop(routes_, groups_, node, dst_sw, p, salt_[node], dist);
  }
  // Start following paths [lo, hi) of the pair at the source switch.
  static void start_paths(net::Packet& p, std::uint32_t lo, std::uint32_t hi) {
    p.route_state = kRouteFollow;
    p.route_aux = static_cast<std::int32_t>(lo | (hi << 16));
  }
  // Start following one path (absolute index) at the source switch: the packet carries its ports
  // when they fit (source routing), else the index.
  void start_path(net::Packet& p, std::uint32_t path) const {
    p.route_state = kRouteFixed;
    p.route_aux = static_cast<std::int32_t>(paths_.packable() ? paths_.pack(path) : path);
  }
  // Port of hop k of the path a kRouteFixed packet follows (k < its length).
  std::int32_t fixed_port(const net::Packet& p, std::uint32_t k) const {
    const auto aux = static_cast<std::uint32_t>(p.route_aux);
    if (paths_.packable())
      return static_cast<std::int32_t>((aux >> (k * paths_.pack_bits())) & ((1u << paths_.pack_bits()) - 1));
    return paths_.port(aux, static_cast<std::int32_t>(k));
  }
  std::int32_t host_switch(std::int32_t host) const { return host_sw_[static_cast<std::size_t>(host)]; }
  // Forward a packet in state kFollow/kMinimal (or at its destination switch). With a range of
  // several paths, the next port is drawn uniformly among the distinct next ports of the range
  // (per-hop Valiant) from `rng`.
  std::int32_t forward(std::int32_t node, net::Packet& p, Rng* rng);
  // Whether the packet, k >= 1 hops along a path whose hop k - 1 left by `prev_port`, is at the
  // path's k-th switch (bounded_paths.cpp).
  bool on_path(std::int32_t node, const net::Packet& p, std::int32_t prev_port) const;

  const MinimalTables& tables_;
  const topo::Topology& topo_;
  std::unique_ptr<MinimalRoutes> own_routes_;  // the Dragonfly's l-g-l routes (minimal_routes())
  const SwitchPairPorts& routes_;
  const GroupRoutes* groups_;  // routes_ computed from the Dragonfly's groups, when they agree (else null)
  BoundedPathSet paths_;
  std::vector<std::uint64_t> salt_;
  std::vector<std::int32_t> host_sw_;  // switch of every host (a small array that stays cached)
};

}  // namespace lbsim::routing

namespace lbsim::routing {

// The memory hook (RoutingPlugin::memory) of the routers over these paths (valiant, ugal_l,
// ecmp_paths): their own minimal routes (own_minimal_bytes), the path enumerator's 16-bit distance per
// switch pair, and the bounded paths of each switch pair a packet starts from.
config::MemoryShare bounded_path_memory(const config::Config& cfg, const config::MemorySizes& s);

// The largest round-trip time over the bounded simple paths between switches with hosts: a data
// packet of `data_bytes` from a host of the source switch along the path to a host of the
// destination switch (serialization + propagation per link, `switch_latency` per switch) and an ACK
// of `ack_bytes` back over the same links - sim::Simulation's base RTT model, applied to the longest
// bounded path instead of the longest shortest path (network.bdp_path = "longest_bounded";
// [Spritz] sec. V-A: the BDP "is calculated based on the longest path for each topology").
SimTime longest_bounded_rtt(const topo::Topology& t, SimTime switch_latency, Bytes data_bytes, Bytes ack_bytes);
// As longest_bounded_rtt, but the ACK returns over the pair's longest minimal path (Table I
// category) instead of the data's path (network.bdp_path = "longest_bounded_minimal_ack"). Of the
// readings of "1 BDP of the longest path" that scripts/spritz_table2_queue.py enumerates, the only
// one that gives [Spritz] Table II's queue sizes, 88 (Dragonfly) and 92 (Slim Fly) packets.
SimTime longest_bounded_minimal_ack_rtt(const topo::Topology& t, SimTime switch_latency, Bytes data_bytes,
                                        Bytes ack_bytes);

}  // namespace lbsim::routing
