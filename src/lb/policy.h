// Sender-side load balancing: an EntropyPolicy chooses the entropy value (EV) of every data packet
// and learns from the feedback the transport gets back for each EV (ACK, ECN-marked ACK, NACK after
// trimming, timeout). It never sees switches (DESIGN.md "Layers"); the switches' ECMP hash maps the
// EV to a path.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/rng.h"
#include "core/time.h"
#include "lb/endpoint_table.h"

namespace lbsim::lb {

enum class Feedback : std::uint8_t { Ack, AckEcn, Nack, Timeout };
const char* feedback_name(Feedback f);

// What a policy may know about its connection when it is created.
struct PolicyContext {
  std::uint32_t flow = 0;
  std::int32_t src = -1, dst = -1;
  std::uint32_t ev_space = 1u << 16;  // EVs are drawn from [0, ev_space)
  std::uint32_t bdp_packets = 1;      // packets in one bandwidth-delay product
  SimTime base_rtt = 0;               // unloaded RTT of the longest path
  SimTime rto = 0;                    // the transport's retransmission timeout
  bool trimming = true;               // switches trim (a timeout then means a failure, [REPS] App. A)
  Rng rng;                            // the policy's own random stream
  // Spritz: the EV entry list towards the destination switch ([Spritz] sec. III-C), shared by all
  // connections between the two switches and owned by the Simulation; null without source_guided.
  const EvEntryList* paths = nullptr;
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
  // Bytes of per-connection state a hardware implementation needs (reports); 0 if not modelled.
  virtual std::size_t state_bits() const { return 0; }
  // The policy itself, or the one a wrapper (lb/recording.h) forwards to.
  virtual const EntropyPolicy& inner() const { return *this; }
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
  std::uint32_t next_ev(SimTime) override {
    return static_cast<std::uint32_t>(ctx_.rng.below(ctx_.ev_space));
  }

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

}  // namespace lbsim::lb
