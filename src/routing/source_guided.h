// Source-guided adaptive routing ([Spritz] sec. III-A, III-B, III-D).
//
// Every switch decides its role per packet from the header and its position (the hop count the
// network increments on arrival, so the first switch sees hops == 1):
//   ECMP 1  (hops == 1, the sender's switch): an ECMP table of first hops, indexed by EV1;
//   ECMP 2  (hops == 2, a direct neighbour of ECMP 1): an ECMP table of second hops, indexed by EV2
//           (in a Dragonfly, same-group traffic uses the default table here, sec. III-B, and its
//           ECMP 1 table only holds intra-group hops, so it never leaves the group);
//   intermediate location (hops >= 3): the default table of static minimal routes.
// The ECMP tables hold exactly the first / second hops of the bounded simple paths of
// topo::PathEnumerator (sec. III: at most 3 local + 2 global hops through one intermediate group in
// a Dragonfly, Valiant paths of at most 4 hops in a Slim Fly), so the sender reaches them all.
//
// Fine-grained mode (sec. III-A step 3): identity hash modulo table size. The EV is 16 bits,
// EV1 = high byte, EV2 = low byte (sec. IV "Each entry in paths is a 16-bit EV, composed of a tuple
// (EV1, EV2)"), so each (EV1, EV2) names one path and entries() tells the sender which.
// Coarse-grained mode (sec. III-D): the packet carries a path category (Packet::route_aux:
// 0 minimal, 1 non-minimal, -1 untagged = default table); the category selects per-category ECMP
// tables and the standard ECMP hash picks inside them. Since the transport only writes the EV, an
// untagged packet at ECMP 1 takes its tag from EV1 (1 = minimal, 2 = non-minimal, else untagged).
// The tag is cleared at the ECMP 2 role (or at ECMP 1 when the next switch is the destination): the
// paper asks both ECMP roles to clear it so the rest of the path is minimal, and ECMP 2 still needs
// it to pick its table, so the last ECMP switch clears it.
//
// Endpoint tables (sec. III-C): the router is a PairPathSource. For each (source switch, destination
// switch) pair the workload uses it builds the pair's EV entry list from entries() (lb/endpoint_table.h,
// shared by the connections between those switches, handed to their policies), and summary.json's
// "spritz" block reports their memory.
#pragma once
#include <cstdint>
#include <map>
#include <span>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/pair_map.h"
#include "lb/endpoint_table.h"
#include "net/network.h"
#include "routing/registry.h"
#include "routing/tables.h"
#include "topo/paths.h"

namespace lbsim::routing {

// Table I path categories.
enum class PathCategory : std::uint8_t { Minimal = 0, NonMinimal = 1 };
inline constexpr int kNumCategories = 2;

// One path a fine-grained EV leads to (what the sender's EV entry describes).
struct SgPath {
  std::uint16_t ev = 0;  // EV1 << 8 | EV2
  PathCategory category = PathCategory::Minimal;
  std::int32_t local = 0, global = 0;
  SimTime latency = 0;          // Table I latency (topo/paths.h)
  std::vector<topo::Hop> hops;  // switch-to-switch hops
};

// ECMP 1 / ECMP 2 tables of the (source switch, destination switch) pairs built so far (only the
// pairs a workload's packets start from are ever built; docs/scale.md), numbered in the order they
// were built (SourceGuidedTables::pair): per pair its first hops, per first hop its second hops, in
// flat arrays.
class PairHopTables {
 public:
  // Appends the table of the next pair, numbered built_pairs() before the call: sorted (h1, h2) with
  // h2 = -1 when the path has no second choice.
  void add_pair(std::vector<std::pair<std::int16_t, std::int16_t>>& hops);
  std::span<const std::int16_t> first(std::size_t k) const {
    const Rec& r = recs_[k];
    return {t1_.data() + r.t1, static_cast<std::size_t>(r.n1)};
  }
  // Second hops after first-hop entry `i1` of pair `k` (empty: use the default table).
  std::span<const std::int16_t> second(std::size_t k, std::size_t i1) const {
    const std::size_t g = recs_[k].t1 + i1;
    return {t2_.data() + t2_off_[g], static_cast<std::size_t>(t2_off_[g + 1] - t2_off_[g])};
  }
  std::size_t bytes() const;
  std::size_t built_pairs() const { return recs_.size(); }

 private:
  struct Rec {
    std::uint32_t t1;  // first entry in t1_
    std::uint32_t n1;  // first hops
  };
  std::vector<Rec> recs_;
  std::vector<std::int16_t> t1_;
  std::vector<std::uint32_t> t2_off_{0};  // per t1_ entry (+1)
  std::vector<std::int16_t> t2_;
};

class SourceGuidedTables {
 public:
  // The fine-grained tables (and, if `coarse`, the per-category ones) of a switch pair are built
  // the first time the pair is looked up (fine_first etc.; they are the same whenever built).
  SourceGuidedTables(const MinimalTables& min, bool coarse, topo::PathOptions opt = {});

  const topo::Topology& topology() const { return t_; }
  bool dragonfly() const { return dragonfly_; }
  bool same_group(std::int32_t a, std::int32_t b) const { return dragonfly_ && t_.nodes[a].group == t_.nodes[b].group; }
  // The number of the pair (s_node, d_node) in the tables: its ECMP 1 / ECMP 2 tables (fine() and,
  // with the coarse ones, coarse()) are built the first time it is asked for.
  std::size_t pair(std::int32_t s_node, std::int32_t d_node) const {
    const auto a = static_cast<std::uint32_t>(t_.switch_index(s_node));
    const auto b = static_cast<std::uint32_t>(t_.switch_index(d_node));
    const std::uint32_t k = index_.find(a, b);
    return k != PairMap::kMissing ? k : build_pair(s_node, d_node, a, b);
  }
  // The tables, indexed by pair().
  const PairHopTables& fine() const { return fine_; }
  const PairHopTables& coarse(PathCategory c) const { return coarse_[static_cast<int>(c)]; }
  bool has_coarse() const { return has_coarse_; }
  // Default (static minimal) output port at switch `node` towards destination switch `d_node`.
  std::int16_t default_port(std::int32_t node, std::int32_t d_node) const {
    return default_[static_cast<std::size_t>(t_.switch_index(d_node)) * nsw_ + t_.switch_index(node)];
  }

  // Hops a fine-grained packet with `ev` takes from switch s to switch d (the router's decisions,
  // replayed); empty when s == d.
  std::vector<topo::Hop> walk(std::int32_t s_node, std::int32_t d_node, std::uint32_t ev) const;
  // Every distinct path the fine-grained EVs reach from s to d, one EV each (the smallest), sorted
  // by (latency, hop sequence) like topo::PathEnumerator::paths: the EV entry list (sec. III-C).
  // With `with_hops` false the paths' hops are left empty (their length is local + global): what an
  // EV entry list needs, without a vector per path.
  std::vector<SgPath> entries(std::int32_t s_node, std::int32_t d_node, bool with_hops = true) const;
  // Table I category of a path from s to d.
  PathCategory category(std::int32_t s_node, std::int32_t d_node, std::int32_t hops, std::int32_t global) const;
  const topo::PathEnumerator& enumerator() const { return pe_; }
  std::size_t table_bytes() const;
  // Switch pairs whose ECMP tables have been built so far.
  std::size_t built_pairs() const { return fine_.built_pairs(); }

 private:
  void build_default(const MinimalTables& min);
  void walk_into(std::int32_t s, std::int32_t d, std::uint32_t ev, std::size_t pi, std::vector<topo::Hop>& out) const;
  // Fine (and coarse) tables of one pair; returns its number.
  std::size_t build_pair(std::int32_t s, std::int32_t d, std::uint32_t a, std::uint32_t b) const;
  const topo::Topology& t_;
  topo::PathEnumerator pe_;
  const MinimalTables& min_;
  std::size_t nsw_ = 0;
  bool dragonfly_ = false;
  bool has_coarse_ = false;
  std::vector<std::int16_t> default_;  // [di * nsw + si]: one destination's row is contiguous (entries() walks it)
  // Lazily built (a cache: the content of a pair does not depend on when it is built). Only the
  // pairs built have an entry (a 32-bit slot per switch pair and table took 4-12 B x switches^2).
  mutable PairMap index_;  // (source, destination switch index) -> pair number
  mutable PairHopTables fine_;
  mutable PairHopTables coarse_[kNumCategories];
};

class SourceGuidedRouter final : public net::Router, public PairPathSource {
 public:
  // `w_scale`, `rule`: the Eq. 1 weights' scaling of the EV entry lists (lb.spritz_w_scale,
  // lb.spritz_w_scale_rule; lb/endpoint_table.h).
  SourceGuidedRouter(const MinimalTables& min, bool coarse, std::uint64_t seed, double w_scale = 1,
                     lb::WeightScale rule = lb::WeightScale::Stretch);
  std::int32_t route(std::int32_t node, net::Packet& p) override;
  const SourceGuidedTables& tables() const { return sg_; }
  bool coarse() const { return coarse_; }

  // The EV entry list of switch pair (a, b) (node ids), built on first use: every path entries()
  // finds, in latency order (a == b: one entry, EV 0).
  const lb::PairPaths& pair_paths(std::int32_t a, std::int32_t b) override;
  // The EV's entry in the pair's list and, fine-grained, the switches it leads through (replayed).
  EvPath describe_ev(std::int32_t a, std::int32_t b, std::uint32_t ev) const override;
  // summary.json "spritz" ([Spritz] sec. III-C, Fig. 3): the endpoint table per endpoint and the
  // lists and switch tables the run built; null before any list was built.
  nlohmann::json endpoint_summary() const;

 private:
  std::int32_t route_coarse(std::int32_t node, std::int32_t dst_sw, net::Packet& p);
  SourceGuidedTables sg_;
  const MinimalTables& min_;
  const topo::Topology& topo_;
  bool coarse_;
  std::vector<std::uint64_t> salt_;  // per node, for the coarse-grained standard hash
  double w_scale_;
  lb::WeightScale w_rule_;
  // The EV entry lists built, per (source switch, destination switch): key a * 2^32 + b (node ids);
  // std::map keeps the addresses the policies hold stable.
  std::map<std::uint64_t, lb::EvEntryList> ev_lists_;
};

}  // namespace lbsim::routing
