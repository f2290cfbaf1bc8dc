// CONGA over source-routed candidate paths: [CONGA] sec. 3 on the LAPS evaluation's Rail and
// Dragonfly (routing.algorithm = "conga" on those topologies; docs/laps.md "CONGA on Rail and the
// Dragonfly", docs/baselines.md "CONGA").
//
// The CONGA paper's design is a 2-tier leaf-spine (routing/conga.h, which lbsim keeps for those
// topologies). The LAPS artifact runs its "CONGA" baseline on Rail and the Dragonfly by keeping
// CONGA's metric per candidate path of the (source, destination) pair. Mapped onto CONGA:
// - ToR = the switch of the host (on Rail the GPU's NIC switch), as for ConWeave.
// - LBTag = the index of the path in the candidate list of the (source ToR, destination ToR) pair
//   (routing/source_route.h, routing.source_paths: one path per rail on Rail, the minimal path and
//   one per via-group on the Dragonfly). The source ToR writes it into the overlay header and the
//   switches behind it forward by that source route (the one departure from CONGA's forwarding,
//   where the spine forwards by ECMP: here the LBTag fixes the whole path, not only the uplink).
// - CE ([CONGA] sec. 3.2): the largest quantised DRE metric of every switch-to-switch port the
//   packet leaves along its path (the ToR's first port, every later switch's egress; the last
//   hop to the host is common to all paths and not counted, as CONGA counts fabric ports only).
// - DRE per switch port ([CONGA] sec. 3.3): X += bytes, X *= (1 - alpha) every T_dre, metric
//   floor(X / (C tau) 2^Q) with tau = T_dre / alpha, at most 2^Q - 1 (as routing/conga.h).
// - Congestion-From-Leaf [source ToR][path] at the destination ToR, one entry fed back per packet
//   the other way (data or ACK; round robin preferring changed entries, [CONGA] sec. 3.2), into
//   Congestion-To-Leaf [destination ToR][path] at the source ToR.
// - Flowlets ([CONGA] sec. 3.4): a data packet after a gap > the flowlet timeout starts a new
//   flowlet on the path minimising max(local, remote), local = the DRE metric of the path's first
//   port at the source ToR, remote = Congestion-To-Leaf. With routing.conga_candidates = k > 0 the
//   comparison is among k paths drawn at random (the LAPS artifact: up to 4); fewer than k: all.
//   Ties: a uniformly random one of the tied paths, the flow's previous path when it is among them
//   (a flow moves only to a strictly better path), as routing/conga.h.
// - Packets other than data (ACKs, NACKs, CNPs) take one of the pair's candidates with the fewest
//   switches by ECMP hash (the leaf-spine CONGA's "ACKs take an ECMP uplink"; minimal paths as ECMP
//   routing would take) and carry the header too: their CE fills the other direction's table and
//   they carry feedback.
// State: DRE per switch port; per ToR pair in use two tables of one byte per candidate (CONGA's
// Congestion-To-Leaf / -From-Leaf, Q bits in hardware: ToRs x ToRs x candidates each); the flowlet
// table grows with the active flows (swept like routing/flowlet).
#pragma once
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "core/rng.h"
#include "routing/conga.h"
#include "routing/flowcut.h"
#include "routing/registry.h"
#include "routing/source_route.h"

namespace lbsim::routing {

class CongaPathsRouter final : public net::Router {
 public:
  // `rule`: the candidate-path rule (Rail or Dragonfly); the others are refused with a UserError.
  CongaPathsRouter(const MinimalTables& tables, const net::Network& net, PathRule rule, int k, SimTime switch_latency,
                   Bytes wire_bytes, const CongaParams& p, std::uint64_t seed);
  std::int32_t route(std::int32_t node, net::Packet& p) override;

  // Tests and reports. ToRs are switch nodes; `path` indexes paths(from ToR, to ToR).
  double dre_bytes(std::int32_t node, std::int32_t port, SimTime now) { return dres_.bytes(node, port, now); }
  int metric(std::int32_t node, std::int32_t port, SimTime now) { return dres_.metric(node, port, now); }
  // Congestion-To-Leaf at `tor` about its paths to `dst_tor`; Congestion-From-Leaf at `tor` about the
  // paths of `src_tor` to it.
  int to_leaf(std::int32_t tor, std::int32_t dst_tor, std::size_t path);
  int from_leaf(std::int32_t tor, std::int32_t src_tor, std::size_t path);
  const std::vector<SourcePath>& paths(std::int32_t a, std::int32_t b) { return paths_.paths(a, b); }
  // The path index of the flow's current flowlet at its source ToR `tor`, -1 if none.
  std::int32_t flow_path(std::int32_t tor, std::uint32_t flow) const;
  std::uint64_t flowlets() const { return flowlets_.flowlets(); }
  std::uint64_t moves() const { return flowlets_.moves(); }
  std::uint64_t feedback() const { return feedback_; }
  // New flowlets per candidate path index (every ToR pair together).
  const std::vector<std::uint64_t>& flowlets_per_path() const { return per_path_; }
  nlohmann::json summary() const;

 private:
  // Per ordered ToR pair (x, y): x's Congestion-To-Leaf about its paths to y, x's
  // Congestion-From-Leaf about y's paths to x (with the changed bits and the feedback round robin).
  struct Pair {
    std::uint32_t to = 0, from = 0;  // offsets into table_ / changed_
    std::uint16_t n_to = 0, n_from = 0, rr = 0;
  };
  Pair& pair(std::int32_t x, std::int32_t y);
  std::int16_t pick_path(std::int32_t a, std::int32_t b, std::int16_t previous, SimTime now);
  std::int16_t flowlet_path(std::int32_t a, std::int32_t b, net::Packet& p, SimTime now);
  std::int16_t minimal_path(std::int32_t a, std::int32_t b, const net::Packet& p);

  const MinimalTables& tables_;
  const topo::Topology& topo_;
  const net::Network& net_;
  CandidatePaths paths_;
  CongaParams p_;
  Rng rng_;
  std::vector<std::uint64_t> salt_;  // per switch node: ECMP among the minimal candidates for non-data packets
  CongaDres dres_;
  std::unordered_map<std::uint64_t, Pair> pairs_;
  std::vector<std::uint8_t> table_, changed_;
  std::vector<std::int16_t> scratch_;
  std::size_t tors_ = 0, max_paths_ = 0;
  CongaFlowlets flowlets_;
  std::vector<std::uint64_t> per_path_;
  std::uint64_t feedback_ = 0;
};

}  // namespace lbsim::routing
