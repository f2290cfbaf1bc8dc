// ConWeave (Song et al., SIGCOMM'23): RTT-probed rerouting at the source ToR with in-network
// reordering at the destination ToR (routing.algorithm = "conweave"; docs/baselines.md "ConWeave").
//
// Source ToR ([ConWeave] sec. 3.2), per flow: an epoch, a phase (0 before a reroute, 1 after), the
// current path and a reply deadline. A data packet that finds the flow inactive for longer than
// theta_inactive (or new) starts a new epoch on a path chosen afresh; a packet after a CLEAR (the
// previous reroute's reordering is over, "stabilized") starts a new epoch on the same path. The
// first packet of an epoch is marked RTT_REQUEST (INIT here) and the deadline is set to the path's
// base RTT + theta_reply's margin. The destination ToR answers an RTT_REQUEST with RTT_REPLY; one
// that comes before the deadline clears it and lets the next packet start a new epoch (so a flow's
// path is probed about once per RTT; a late reply is ignored). The first packet that finds the deadline passed without
// a reply goes on the old path marked TAIL; the flow moves to a new path (phase 1, its packets marked REROUTED) and
// does not reroute again in this epoch. Path choice ("path-aware rerouting"): two random candidate
// paths, the first that is not busy; a path is busy for theta_path_busy after the destination ToR
// sent a NOTIFY about an ECN-marked packet on it. No good path: the flow stays where it is.
// Destination ToR ([ConWeave] sec. 3.3), per flow: the epoch and phase seen. A REROUTED packet of
// the current epoch before its TAIL goes into the flow's reorder queue; the TAIL passes, then the
// queue is released in order (and a CLEAR goes back). If the TAIL does not come, the queue is
// released when its expected arrival has passed: the phase-0 packet's arrival + (TAIL's departure
// - that packet's departure) + theta_resume's margin, or theta_resume_default without a phase-0
// sample. Packets of an older epoch pass at once.
//
// lbsim's reading (docs/baselines.md): "ToR" = the switch of the host (on Rail the GPU's NIC
// switch); the paths of a ToR pair are the LAPS candidate paths (routing/source_route.h,
// routing.source_paths: one per rail on Rail, the minimal path and one per via-group on the LAPS
// Dragonfly, the k shortest elsewhere, i.e. one per spine on a leaf-spine with k >= spines). A pair
// with one path is plain ECMP. The ConWeave header (path, epoch, phase, flags, timestamps) is the
// packet's routing scratch plus a side table indexed by packet. RTT_REPLY, CLEAR and NOTIFY are
// not put in queues: they reach the source ToR after the idle one-way latency of a control packet
// on the shortest path back (ConWeave sends them in the highest priority). ACKs take ECMP.
// State: per flow seen at its ToRs (swept after theta_inactive without packets and with an empty
// reorder queue); busy times per path of the ToR pairs in use; the reorder queues hold packets
// linked through Packet::next (no copy, no allocation).
#pragma once
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "core/rng.h"
#include "routing/ecmp.h"
#include "routing/flowcut.h"
#include "routing/registry.h"
#include "routing/source_route.h"

namespace lbsim::routing {

struct ConWeaveParams {
  SimTime reply_margin = 4'000'000;      // ps: theta_reply = the path's base RTT + this (the authors' ns-3: 4 us)
  SimTime path_busy = 8'000'000;         // ps: theta_path_busy (8 us)
  SimTime inactive = 1'000'000'000;      // ps: theta_inactive (1000 us)
  SimTime resume_margin = 32'000'000;    // ps: added to the TAIL's expected arrival (32 us)
  SimTime resume_default = 500'000'000;  // ps: reorder queue wait without a phase-0 sample (500 us)
  bool path_aware = true;                // false: the new path is drawn at random, busy or not
  bool first_shortest = false;           // true: a new flow starts on a candidate with the fewest switches
  Bytes ctrl_bytes = 64;                 // RTT_REPLY / CLEAR / NOTIFY size on the wire
};

class ConWeaveRouter final : public net::Router, public net::EventHandler {
 public:
  ConWeaveRouter(const MinimalTables& tables, net::Network& net, PathRule rule, int k, SimTime switch_latency,
                 Bytes wire_bytes, const ConWeaveParams& p, std::uint64_t seed);
  std::int32_t route(std::int32_t node, net::Packet& p) override;
  void on_event(const Event& e) override;

  struct Stats {
    std::uint64_t flows = 0;           // connections seen at a source ToR
    std::uint64_t epochs = 0;          // RTT_REQUESTs sent (one per epoch)
    std::uint64_t replies = 0;         // RTT_REPLYs sent by destination ToRs
    std::uint64_t timely_replies = 0;  // RTT_REPLYs that cleared their deadline
    std::uint64_t tails = 0;           // reply timeouts (TAIL packets)
    std::uint64_t reroutes = 0;        // TAILs after which the flow changed path
    std::uint64_t expiry_moves = 0;    // new epochs after inactivity that changed path
    std::uint64_t clears = 0;          // CLEARs sent (TAIL arrived)
    std::uint64_t notifies = 0;        // NOTIFYs sent (ECN-marked tagged packets)
    std::uint64_t held = 0;            // packets put in a reorder queue
    std::uint64_t flush_tail = 0;      // reorder queues released by their TAIL
    std::uint64_t flush_timeout = 0;   // ... by the resume timer
    std::uint64_t flush_epoch = 0;     // ... by a newer epoch's packet
    std::uint64_t max_queue = 0;       // most packets in one reorder queue
    std::uint64_t max_held = 0;        // most packets held at once, all ToRs
    std::uint64_t off_path = 0;        // tagged packets found off their path (a failure detour): ECMP
  };
  const Stats& stats() const { return st_; }
  std::uint64_t held_now() const { return held_now_; }
  // The path index (candidate of the flow's ToR pair) the flow's source ToR uses now, -1 if none.
  std::int32_t flow_path(std::uint32_t flow) const;
  CandidatePaths& candidates() { return paths_; }
  const ConWeaveParams& params() const { return p_; }
  std::size_t flows_tracked() const { return map_.size(); }
  nlohmann::json summary() const;
  // Base RTT the reply deadline of `path` of ToR pair (a, b) uses: a full data packet there, a control
  // packet back on the shortest path.
  SimTime path_rtt(std::int32_t a, std::int32_t b, std::size_t path);

 private:
  struct Flow {
    std::uint64_t key = ~0ULL;
    // source ToR
    std::uint32_t epoch = 0;
    std::uint8_t phase = 0;
    bool stabilized = false;
    std::int16_t path = -1;
    SimTime reply_deadline = 0;
    SimTime active = 0;
    SimTime tail_time = 0;
    // destination ToR
    std::uint32_t rx_epoch = 0;
    std::uint8_t rx_phase = 0;
    bool phase0_valid = false;
    SimTime phase0_tx = 0, phase0_rx = 0, last_rx = 0;
    std::uint32_t q_head = net::kNil, q_tail = net::kNil, q_len = 0;
    std::uint32_t q_port = 0;  // global port id the queue releases to
    std::uint32_t token = 0;   // the resume timer in force
  };
  enum class MsgKind : std::uint8_t { Reply, Clear, Notify, Resume };
  struct Msg {
    std::uint64_t flow = 0;
    std::uint32_t epoch = 0;
    std::int32_t a = -1, b = -1;  // ToR pair (Notify)
    std::int16_t path = -1;
    MsgKind kind = MsgKind::Reply;
  };
  struct Meta {  // the rest of the ConWeave header, per packet index
    std::uint32_t epoch = 0;
    SimTime tx = 0;    // when the packet left the source ToR
    SimTime tail = 0;  // when the epoch's TAIL left the source ToR (0: none yet)
  };
  Flow* find(std::uint64_t key);
  Flow& get(std::uint64_t key, bool& created);
  void sweep(SimTime now);
  void post(SimTime at, const Msg& m);
  SimTime ctrl_delay(std::int32_t from, std::int32_t to);
  bool busy(std::int32_t a, std::int32_t b, std::size_t path, SimTime now);
  void choices(std::int32_t a, std::int32_t b, std::size_t n, std::int32_t exclude, bool fewest_hops);
  std::int32_t pick(std::int32_t a, std::int32_t b, SimTime now, bool& good);
  std::int32_t source_tor(std::int32_t node, net::Packet& p, std::int32_t a, std::int32_t b, std::size_t n);
  std::int32_t dest_tor(std::int32_t node, net::Packet& p);
  void release(Flow& f);

  const MinimalTables& tables_;
  const topo::Topology& topo_;
  net::Network& net_;
  CandidatePaths paths_;
  EcmpRouter ecmp_;
  ConWeaveParams p_;
  Bytes wire_;  // a full data packet on the wire
  Rng rng_;
  FlowKeyMap map_;
  std::vector<Flow> pool_;
  std::vector<std::uint32_t> free_;
  std::size_t swept_size_ = 0;
  std::vector<Meta> meta_;             // per packet index
  std::vector<std::int16_t> scratch_;  // choices(): the candidates a draw picks from
  std::vector<Msg> msgs_;
  std::vector<std::uint32_t> msg_free_;
  std::unordered_map<std::uint64_t, std::vector<SimTime>> busy_;  // ToR pair -> busy until, per path
  std::unordered_map<std::uint64_t, SimTime> ctrl_delay_;         // ToR pair -> control packet latency
  std::unordered_map<std::uint64_t, std::vector<SimTime>> rtt_;   // ToR pair -> base RTT per path
  std::uint64_t held_now_ = 0;
  Stats st_;
};

}  // namespace lbsim::routing
