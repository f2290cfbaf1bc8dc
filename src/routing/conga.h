// CONGA (Alizadeh et al., SIGCOMM'14): congestion-aware flowlet load balancing in 2-tier leaf-spine
// networks (routing.algorithm = "conga"; docs/baselines.md "CONGA").
//
// DRE ([CONGA] sec. 3.3): every fabric port (leaf uplink, spine downlink) keeps a register X that
// grows by the bytes of every packet it forwards and decays by X = X (1 - alpha) every period T_dre;
// its congestion metric is X / (C tau) with tau = T_dre / alpha (the link's utilisation), quantised
// to Q bits: floor(metric x 2^Q), at most 2^Q - 1.
// Overlay header ([CONGA] sec. 3.2): LBTag (the source leaf's uplink), CE (the largest quantised DRE
// metric along the path), FB_LBTag and FB_Metric (one feedback entry), carried in the packet's
// routing scratch (net::Packet::route_aux / route_state). The destination leaf stores CE in its
// Congestion-From-Leaf table [source leaf][LBTag]; every packet the other way (data or ACK) carries
// one entry of it back, round robin over the LBTags with preference for entries that changed since
// they were last fed back; the receiving (original source) leaf writes it into its
// Congestion-To-Leaf table [destination leaf][LBTag].
// Flowlets ([CONGA] sec. 3.4): the source leaf keeps per flow the uplink and time of its last data
// packet; a packet after a gap longer than the flowlet timeout starts a new flowlet on the uplink
// that minimises max(local DRE metric, Congestion-To-Leaf metric), ties broken at random with
// preference for the uplink the flow used before (a flow moves only to a strictly better uplink).
// routing.conga_candidates = k > 0 evaluates k uplinks drawn at random instead of all (the LAPS
// artifact compares up to 4 candidate paths). ACKs take an ECMP uplink but carry the header too.
// Spines forward towards the destination leaf (ECMP among parallel links).
//
// Modelling choices: a port's DRE counts a packet when the switch routes it onto the port (queueing
// delays of microseconds against tau = 1 ms); the remote metrics are not aged. The topology must be
// a 2-tier leaf-spine (switches with hosts = leaves, without = spines, every switch link joins a
// leaf and a spine, every pair of leaves two hops apart): anything else is refused at start. On a
// Rail or a Dragonfly the "conga" plug-in builds routing/conga_paths.h instead (CONGA over the LAPS
// candidate paths).
// State: DRE per switch port; per leaf two tables of (leaves x uplinks) bytes - the switch state
// CONGA specifies; the flowlet table grows with the active flows (swept like routing/flowlet).
#pragma once
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "core/rng.h"
#include "routing/flowcut.h"
#include "routing/registry.h"

namespace lbsim::routing {

struct CongaParams {
  SimTime dre_period = 200'000'000;  // ps (LAPS artifact 200 us)
  double alpha = 0.2;
  int q_bits = 3;
  SimTime flowlet_timeout = 10'000'000;  // ps (LAPS artifact 10 us)
  std::uint32_t candidates = 0;          // 0 = every uplink
};

// The DRE of every switch port ([CONGA] sec. 3.3), shared by CongaRouter and CongaPathsRouter
// (conga_paths.h): X grows by the bytes of every packet the port forwards and decays by
// X = X (1 - alpha) every T_dre (on a global grid of periods); the metric X / (C tau), tau = T_dre /
// alpha, quantised to Q bits.
class CongaDres {
 public:
  CongaDres(const net::Network& net, const CongaParams& p);
  double bytes(std::int32_t node, std::int32_t port, SimTime now);  // X after the decays due at now
  int metric(std::int32_t node, std::int32_t port, SimTime now) { return quantise(bytes(node, port, now), node, port); }
  // A packet of `size` bytes leaves through `port` of `node`: the DRE counts it; the port's metric
  // after it (what CE takes).
  int count(std::int32_t node, std::int32_t port, Bytes size, SimTime now);
  std::uint32_t port0() const { return port0_; }  // global id of the first switch port
  std::size_t size() const { return dre_.size(); }

 private:
  struct Dre {
    double x = 0;
    std::int64_t tick = 0;  // decays applied up to this period index
  };
  Dre& dre(std::int32_t node, std::int32_t port) { return dre_[net_.port_id(node, port) - port0_]; }
  void decay(Dre& d, SimTime now) const;
  int quantise(double x, std::int32_t node, std::int32_t port) const;

  const net::Network& net_;
  SimTime period_;
  double alpha_;
  int q_bits_;
  std::uint32_t port0_;
  std::vector<Dre> dre_;  // per switch port (global id - port0_)
};

// The flowlet table of CONGA's source leaf ([CONGA] sec. 3.4), shared by CongaRouter (the choice is
// an uplink) and CongaPathsRouter (a candidate path's index): per (switch, flow) the choice of the
// flow's current flowlet and the time of its last packet; a gap above the flowlet timeout starts a
// new flowlet. Expired entries are swept once the table has doubled since the last sweep.
class CongaFlowlets {
 public:
  explicit CongaFlowlets(SimTime timeout) : timeout_(timeout) {}
  // The choice for a packet of `flow` at the switch of index `sw` at `now`: the current flowlet's, or
  // pick(previous) for a new flowlet (previous: the flow's last choice, -1 if none is kept).
  template <class Pick>
  std::int16_t choose(std::int32_t sw, std::uint32_t flow, SimTime now, Pick&& pick) {
    const std::uint64_t k = key(sw, flow);
    std::uint32_t idx = map_.find(k);
    if (idx != FlowKeyMap::kNone && now - pool_[idx].last <= timeout_) {
      pool_[idx].last = now;
      return pool_[idx].choice;
    }
    const std::int16_t previous = idx == FlowKeyMap::kNone ? std::int16_t{-1} : pool_[idx].choice;
    const auto choice = static_cast<std::int16_t>(pick(previous));
    if (idx == FlowKeyMap::kNone) {
      if (map_.size() >= 2 * swept_size_ && map_.size() >= 4096) sweep(now);
      idx = take_slot(pool_, free_);
      map_.insert(k, idx);
    } else if (previous != choice) {
      ++moves_;
    }
    pool_[idx] = Entry{k, now, choice};
    ++flowlets_;
    return choice;
  }
  // The choice of the flow's last flowlet at switch `sw`, -1 if none is kept.
  std::int16_t current(std::int32_t sw, std::uint32_t flow) const {
    const auto i = map_.find(key(sw, flow));
    return i == FlowKeyMap::kNone ? std::int16_t{-1} : pool_[i].choice;
  }
  std::uint64_t flowlets() const { return flowlets_; }
  std::uint64_t moves() const { return moves_; }  // new flowlets that took another choice than the flow's last

 private:
  struct Entry {
    std::uint64_t key = ~0ULL;
    SimTime last = 0;
    std::int16_t choice = -1;
  };
  static std::uint64_t key(std::int32_t sw, std::uint32_t flow) {
    return (static_cast<std::uint64_t>(sw) << 32) | flow;
  }
  void sweep(SimTime now);

  SimTime timeout_;
  FlowKeyMap map_;
  std::vector<Entry> pool_;
  std::vector<std::uint32_t> free_;
  std::size_t swept_size_ = 0;
  std::uint64_t flowlets_ = 0, moves_ = 0;
};

// [CONGA] sec. 3.4: the choice minimising cost(i) among n choices 0..n-1 - all of them, or k drawn
// at random (a partial Fisher-Yates shuffle over `scratch`) when 0 < k < n; ties broken at random
// (reservoir sampling), the previous choice kept when it is among the best. Shared by CongaRouter
// (i = an uplink) and CongaPathsRouter (i = a candidate path's index).
template <class Cost>
std::int16_t conga_pick(std::size_t n, std::uint32_t k, std::int16_t previous, Rng& rng,
                        std::vector<std::int16_t>& scratch, Cost&& cost) {
  scratch.resize(n);
  for (std::size_t i = 0; i < n; ++i) scratch[i] = static_cast<std::int16_t>(i);
  if (k > 0 && k < n) {
    for (std::size_t i = 0; i < k; ++i) std::swap(scratch[i], scratch[i + rng.below(n - i)]);
    n = k;
  }
  int best = 1 << 30;
  std::size_t ties = 0;
  std::int16_t pick = -1;
  bool prev_best = false;
  for (std::size_t i = 0; i < n; ++i) {
    const int c = cost(static_cast<std::size_t>(scratch[i]));
    if (c < best) {
      best = c;
      ties = 0;
      prev_best = false;
    }
    if (c == best) {
      if (scratch[i] == previous) prev_best = true;
      if (rng.below(++ties) == 0) pick = scratch[i];
    }
  }
  return prev_best ? previous : pick;
}

class CongaRouter final : public net::Router {
 public:
  // Throws UserError when the topology is not a 2-tier leaf-spine.
  CongaRouter(const MinimalTables& tables, const net::Network& net, const CongaParams& p, std::uint64_t seed);
  std::int32_t route(std::int32_t node, net::Packet& p) override;

  // Tests and reports.
  double dre_bytes(std::int32_t node, std::int32_t port, SimTime now) { return dres_.bytes(node, port, now); }
  int metric(std::int32_t node, std::int32_t port, SimTime now) { return dres_.metric(node, port, now); }
  int to_leaf(std::int32_t leaf, std::int32_t dst_leaf, std::int32_t uplink) const;
  int from_leaf(std::int32_t leaf, std::int32_t src_leaf, std::int32_t uplink) const;
  const std::vector<std::int32_t>& uplinks(std::int32_t leaf) const { return uplinks_[lidx(leaf)]; }
  std::uint64_t flowlets() const { return flowlets_.flowlets(); }
  std::uint64_t moves() const {
    return flowlets_.moves();
  }  // new flowlets that took another uplink than the flow's last
  nlohmann::json summary() const;

 private:
  std::size_t lidx(std::int32_t node) const { return static_cast<std::size_t>(leaf_of_[topo_.switch_index(node)]); }
  std::int32_t pick_uplink(std::int32_t node, std::size_t dl, std::int16_t previous, SimTime now);
  std::int32_t flowlet_uplink(std::int32_t node, std::size_t dl, net::Packet& p, SimTime now);

  const MinimalTables& tables_;
  const topo::Topology& topo_;
  const net::Network& net_;
  CongaParams p_;
  Rng rng_;
  std::vector<std::int16_t> scratch_;  // conga_pick's candidate list
  std::vector<std::uint64_t> salt_;    // per switch: ECMP for ACK uplinks and parallel spine links
  CongaDres dres_;
  std::uint32_t port0_ = 0;                         // global id of the first switch port
  std::vector<std::int32_t> leaf_of_;               // per switch index: leaf index or -1 (spine)
  std::vector<std::int32_t> leaf_node_;             // leaf index -> node
  std::vector<std::vector<std::int32_t>> uplinks_;  // per leaf: local port indices towards spines
  std::vector<std::int16_t> uplink_index_;          // per switch port (global id - port0_): uplink index or -1
  std::size_t max_up_ = 0;
  std::vector<std::uint8_t> to_leaf_, from_leaf_, from_changed_;  // [leaf][other leaf][uplink]
  std::vector<std::uint16_t> fb_next_;                            // [leaf][other leaf]: round robin
  CongaFlowlets flowlets_;
  std::uint64_t feedback_ = 0;
};

}  // namespace lbsim::routing
