// Sender-side load balancing: an EntropyPolicy chooses the entropy value (EV) of every data packet
// and learns from the feedback the transport gets back for each EV (ACK, ECN-marked ACK, NACK after
// trimming, timeout). It never sees switches (docs/architecture.md "Layers"); the switches' ECMP hash maps the
// EV to a path.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/rng.h"
#include "core/time.h"
#include "lb/pair_paths.h"

namespace lbsim::lb {

enum class Feedback : std::uint8_t { Ack, AckEcn, Nack, Timeout };
const char* feedback_name(Feedback f);

// What the transport tells a policy that may hold its flow, before every data packet (hold()).
struct SendView {
  Bytes inflight = 0;         // the flow's bytes in flight (sent, neither acknowledged nor declared lost)
  std::uint32_t psn = 0;      // the PSN about to be sent
  std::uint32_t snd_una = 0;  // every PSN below it is acknowledged
  bool retransmit = false;
};

// One ACK as the transport saw it, for policies that ask for it (kCapAckDetail).
struct AckDetail {
  SimTime now = 0;
  SimTime rtt = 0;  // now - the echoed send time of the data packet
  std::uint32_t ev = 0, psn = 0;
  int hops = 0;            // switches the data packet crossed (net::Packet::echo_hops)
  Bytes bytes = 0;         // wire bytes of the data packet(s) the ACK answers
  SimTime tx_per_hop = 0;  // their transmission time at the NIC's rate
  Bytes inflight = 0;      // the flow's bytes in flight after this ACK
  bool ecn = false;
  SimTime one_way = 0;  // receiver's arrival time - sender's send time of the data packet
  bool probe = false;   // the answer to a probe (kCapProbe): no PSN, no data
  SimTime sent = 0;     // the echoed send time of the data packet (identifies the transmission)
};

// hold() answers: send now, or the time to ask again (kTimeNever: at the flow's next ACK, NACK or
// timeout).
inline constexpr SimTime kSendNow = -1;
// Capabilities a policy declares in its constructor (EntropyPolicy::caps). The transport reads them
// once per flow, so a policy without them costs no extra call per packet.
inline constexpr std::uint8_t kCapHold = 1;       // call hold() before every packet
inline constexpr std::uint8_t kCapAckDetail = 2;  // call on_ack_detail() for every ACK
// [LAPS]: on_sent() after every data packet; take_probe() (probe packets on paths it names) and
// take_lost() (PSNs it declared lost from per-path ACK order, sec. 3.7) after next_ev / on_ack_detail.
inline constexpr std::uint8_t kCapPaths = 4;
// prefetch() asks for lines of its own (the transport's prefetch hints call it; no effect on results).
inline constexpr std::uint8_t kCapPrefetch = 8;

// What a policy may know about its connection when it is created.
struct PolicyContext {
  std::uint32_t flow = 0;
  std::int32_t src = -1, dst = -1;
  Bytes bytes = 0;                    // the flow's message size (Spritz's small-flow bias)
  std::uint32_t ev_space = 1u << 16;  // EVs are drawn from [0, ev_space)
  std::uint32_t bdp_packets = 1;      // packets in one bandwidth-delay product
  std::size_t hosts = 0;              // hosts of the network (per-NIC state shared by a run's policies)
  SimTime base_rtt = 0;               // unloaded RTT of the longest path
  SimTime rto = 0;                    // the transport's retransmission timeout
  bool trimming = true;               // switches trim (a timeout then means a failure, [REPS] App. A)
  Rng rng;                            // the policy's own random stream
  // What the run's switch routing tells the connections of this flow's switch pair about the paths
  // their EVs name (lb/pair_paths.h), shared by them and owned by the router; null when the routing
  // tells nothing (it is no routing::PairPathSource).
  const PairPaths* pair_paths = nullptr;
  double host_rate_bps = 0;  // the sender's NIC rate (rate-based policies)
};

class EntropyPolicy {
 public:
  virtual ~EntropyPolicy() = default;
  // EV for the next data packet (first transmission or retransmission) sent at `now`.
  virtual std::uint32_t next_ev(SimTime now) = 0;
  // Feedback about a packet that was sent with `ev`.
  virtual void on_feedback(std::uint32_t ev, Feedback kind, SimTime now) {}
  // RTT sample of an ACK (now - echoed send time); REPS uses it without trimming ([REPS] App. A).
  virtual void on_rtt(SimTime rtt, SimTime now) {}
  // kCapPrefetch, a hint with no effect on results (Transport::prefetch_pull, prefetch_arrival, once
  // the object's first line has been asked for): ask the cache for the lines next_ev and the
  // feedback will read.
  virtual void prefetch() const {}
  // kCapHold: asked before every data packet. kSendNow sends it; any other value holds the flow: the
  // transport parks it (the NIC no longer looks at it) until that time or the flow's next feedback
  // (ACK, NACK, timeout), whichever comes first, and then asks again. Used by Flowcut's drain
  // ([Flowcut] sec. II-D) and MPRDMA's reordering cap.
  virtual SimTime hold(SimTime now, const SendView& v) { return kSendNow; }
  // kCapAckDetail: every ACK with its echoed hop count, size and the flow's bytes in flight.
  virtual void on_ack_detail(const AckDetail& a) {}
  // kCapPaths: a data packet `psn` (first transmission or retransmission) went out with `ev` at `now`.
  virtual void on_sent(std::uint32_t psn, std::uint32_t ev, SimTime now, Bytes bytes) {}
  // kCapPaths: an EV to probe now (true), asked until it answers false.
  virtual bool take_probe(std::uint32_t& ev, SimTime now) { return false; }
  // kCapPaths: transmissions (psn, send time) declared lost; the transport resends those still in flight.
  virtual void take_lost(std::vector<std::pair<std::uint32_t, SimTime>>& out) {}
  // kCapPaths: header bytes the policy adds to every packet of the connection on path `ev` (data,
  // ACK, NACK, probe) on top of network.header_bytes, e.g. LAPS's INT and SR fields ([LAPS] sec. 3.2).
  virtual Bytes extra_header(std::uint32_t ev) const { return 0; }
  std::uint8_t caps() const { return caps_; }
  // Bytes of per-connection state a hardware implementation needs (reports); 0 if not modelled.
  virtual std::size_t state_bits() const { return 0; }
  // The policy itself, or the one a wrapper (lb/recording.h) forwards to.
  virtual const EntropyPolicy& inner() const { return *this; }

 protected:
  std::uint8_t caps_ = 0;  // kCap* flags, set by the constructor
};

// ECMP: one EV per connection, chosen at random when the connection starts ([REPS] sec. 2.2).
class EcmpPolicy final : public EntropyPolicy {
 public:
  explicit EcmpPolicy(PolicyContext ctx) : ev_(static_cast<std::uint32_t>(ctx.rng.below(ctx.ev_space))) {}
  std::uint32_t next_ev(SimTime) override { return ev_; }
  std::size_t state_bits() const override { return 16; }

 private:
  std::uint32_t ev_;
};

// One given EV for every packet: a flow pinned to a path chosen outside the lb layer (e.g. the
// flows_csv lb value via_group:<g>, resolved by the Simulation against the source-guided paths).
class FixedEvPolicy final : public EntropyPolicy {
 public:
  explicit FixedEvPolicy(std::uint32_t ev) : ev_(ev) {}
  std::uint32_t next_ev(SimTime) override { return ev_; }
  std::size_t state_bits() const override { return 16; }

 private:
  std::uint32_t ev_;
};

// Oblivious packet spraying: a uniformly random EV for every packet ([REPS] sec. 2.2).
class OpsPolicy final : public EntropyPolicy {
 public:
  explicit OpsPolicy(PolicyContext ctx) : ctx_(std::move(ctx)) {}
  std::uint32_t next_ev(SimTime) override { return static_cast<std::uint32_t>(ctx_.rng.below(ctx_.ev_space)); }

 private:
  PolicyContext ctx_;
};

// Round robin: consecutive EVs from a random start, one per packet. With `layered` routing
// (layer = EV mod L) this cycles the packets of a connection over the layers.
class RoundRobinPolicy final : public EntropyPolicy {
 public:
  explicit RoundRobinPolicy(PolicyContext ctx)
      : space_(ctx.ev_space), next_(static_cast<std::uint32_t>(ctx.rng.below(ctx.ev_space))) {}
  std::uint32_t next_ev(SimTime) override {
    const std::uint32_t ev = next_;
    next_ = next_ + 1 == space_ ? 0 : next_ + 1;
    return ev;
  }

 private:
  std::uint32_t space_, next_;
};

// A workload entry's lb value `via_group:<g>` pins the flow to one source-guided path through group g
// (resolved by the Simulation, routed by routing::PinnedDispatchRouter); not a policy name.
inline constexpr std::string_view kViaGroupPrefix = "via_group:";
inline bool is_via_group(const std::string& lb) { return lb.starts_with(kViaGroupPrefix); }
// The workload lb value `pinned_ecmp`: ECMP over the bounded paths, pinned ([Spritz] sec. V-A's ECMP,
// "each flow is assigned to a fixed path", for traffic that must not depend on the run's scheme, e.g.
// the Fig. 7 background): one bounded path per flow drawn from (run.seed, workload index) alone, routed
// like via_group by the fine-grained source-guided router whatever the run's routing. Not a policy name.
inline constexpr std::string_view kPinnedEcmp = "pinned_ecmp";
inline bool is_pinned_ecmp(const std::string& lb) { return lb == kPinnedEcmp; }
// Flows whose packets carry net::kFlagPinned (a path resolved by the Simulation).
inline bool is_pinned(const std::string& lb) { return is_via_group(lb) || is_pinned_ecmp(lb); }

}  // namespace lbsim::lb
