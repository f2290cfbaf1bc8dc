// The network: output-queued ports on switches and host NICs, links, and the event loop.
//
// How a packet moves (docs/architecture.md has the full walk-through):
//   enqueue(port, pkt)  -> transmit now if the port is idle, else queue it (ECN / trim / drop);
//   start_tx(port, pkt) -> the port is busy for the serialization time; an ARRIVE event is scheduled
//                          at tx end + link latency (+ switch latency when the peer is a switch);
//   ARRIVE at a switch  -> the routing plug-in picks the output port -> enqueue;
//   ARRIVE at a host    -> handed to the HostHandler (transport).
// A busy port with queued packets has exactly one TX_NEXT event pending at the time it frees up.
// Host NICs transmit control packets (ACK/NACK/trimmed headers) first and otherwise pull the next
// data packet from the transport, so a sender never overflows its own NIC.
// Lossless modes (network.flow_control = credit | pfc, net/flow_control.h, docs/lossless.md): a port
// sends the head of a virtual channel only with credit for it / while that priority is not paused,
// nothing is dropped, and an idle port that waits has no pending event until credit or a resume
// arrives. The event loop and the per-packet functions are templates on the mode, so the lossy
// instantiation is the lossy code alone.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/event_queue.h"
#include "core/rng.h"
#include "core/time.h"
#include "net/events.h"
#include "net/int_stack.h"
#include "net/flow_control.h"
#include "net/packet.h"
#include "topo/topology.h"

namespace lbsim::net {

struct QueueConfig {
  Bytes data_limit = 0;  // data queue capacity in bytes (packets beyond it are trimmed or dropped)
  Bytes ctrl_limit = 0;  // priority control queue capacity in bytes
  double kmin = 0.2;     // ECN marking starts above kmin * data_limit ...
  double kmax = 0.8;     // ... and marks every packet at or above kmax * data_limit
  bool ecn = true;
  bool trimming = true;
  Bytes header_bytes = 64;  // size of a trimmed packet
  // network.ecn_mark_at = "dequeue": mark when a data packet starts leaving a switch port, on the
  // bytes still waiting behind it, as htsim does (REPS artifact (htsim)); else at enqueue.
  bool ecn_at_dequeue = false;
  // network.drop_policy = "random_evict": a data packet that finds the queue full evicts, with
  // probability 0.5, the last queued data packet instead (which is then trimmed or dropped as the
  // arrival would have been; REPS artifact (htsim) CompositeQueue). Else the arrival is the victim.
  bool random_evict = false;
};

struct NetConfig {
  SimTime switch_latency = ns(500);
  // A packet arriving at its (max_hops + 1)-th switch is dropped and counted in ttl_drops(): a
  // routing loop ends instead of running forever (Packet::hops is 8 bits, so at most 254).
  std::uint8_t max_hops = 64;
  QueueConfig queue;  // lossless modes: the limits are not enforced (credits / PFC bound the buffers)
  FlowControlConfig fc;
  // The event loop asks for memory twice as many events ahead once the packets in existence and the
  // ports take this many bytes (run.far_prefetch_mib; Network::run_events). Hints only.
  std::uint64_t far_prefetch_bytes = std::uint64_t{32} << 20;
};

// A queue of packets linked through Packet::next. 16 bytes, so that both queues of a port share
// its first cache line with the fields every transmission reads (Port below).
struct FifoQueue {
  std::uint32_t head = kNil, tail = kNil;
  Bytes bytes = 0;
  bool empty() const { return head == kNil; }
};

// Field order: the three counters written per packet first, so that they share the port's second
// cache line with the queue limits (Port below).
struct PortStats {
  std::uint64_t tx_packets = 0;
  std::uint64_t tx_bytes = 0;
  Bytes max_data_bytes = 0;
  std::uint64_t drops = 0;  // tail drops (trimming off or control queue full)
  std::uint64_t trims = 0;
  std::uint64_t ecn_marks = 0;
  std::uint64_t failure_drops = 0;  // lost to a failed link / random loss
};

// One port, laid out by how often its fields are read (docs/scale.md "Cost per event"): the first
// cache line holds what every transmission reads (queues, busy time, serialization and arrival
// delay, the peer), the second what every enqueue and transmission updates (limits, ECN thresholds,
// the per-packet counters); the third the rest (rare statistics, the RNG, configuration that the
// per-packet path reads through a derived field).
struct alignas(64) Port {
  // --- cache line 0: transmit path
  FifoQueue data, ctrl;
  SimTime busy_until = 0;
  SimTime ps_per_byte = 0;      // 8e12 / rate when that is a whole number (fast path), else 0
  SimTime arrive_delay = 0;     // latency + arrive_extra: from the end of a transmission to the arrival event
  std::int32_t peer = -1;       // node at the other end
  std::int32_t peer_port = -1;  // port index at the peer
  // --- cache line 1: enqueue path and counters
  Bytes data_limit = 0;  // data queue capacity (QueueConfig::data_limit, scaled by scale_queue)
  Bytes kmin_bytes = 0, kmax_bytes = 0;
  std::int32_t node = -1;  // owner
  bool tx_pending = false;
  bool is_nic = false;
  // Failure state (see failures in docs/config.md): a down port black-holes what it transmits.
  bool up = true;
  bool lossy = false;  // loss_prob > 0 (set with it, net/failures.cpp)
  BitsPerSec rate = 0;
  PortStats stats;  // tx_packets, tx_bytes, max_data_bytes on line 1; the rest on line 2
  // --- cache line 2 onwards: cold
  double loss_prob = 0.0;
  SimTime latency = 0;       // propagation (change it with set_latency: arrive_delay follows)
  SimTime arrive_extra = 0;  // switch latency added when the peer is a switch
  std::int32_t local = -1;   // port index at the owner
  std::int32_t link = -1;
  Rng rng;  // ECN marking and random loss

  void set_rate(BitsPerSec r) {
    rate = r;
    ps_per_byte = (8'000'000'000'000LL % r == 0) ? 8'000'000'000'000LL / r : 0;
  }
  void set_latency(SimTime l) {
    latency = l;
    arrive_delay = latency + arrive_extra;
  }
  SimTime serialization(Bytes bytes) const { return ps_per_byte ? bytes * ps_per_byte : serialization_ps(bytes, rate); }
};

static_assert(offsetof(Port, peer_port) + sizeof(std::int32_t) <= 64, "Port: transmit fields leave cache line 0");
static_assert(offsetof(Port, data_limit) == 64, "Port: enqueue fields start cache line 1");
static_assert(offsetof(Port, stats) + offsetof(PortStats, max_data_bytes) + sizeof(Bytes) <= 128,
              "Port: per-packet counters leave cache line 1");

// The transport side of a host.
class HostHandler {
 public:
  virtual ~HostHandler() = default;
  // A packet reached its destination host; the handler owns it (must release it).
  virtual void on_packet(std::uint32_t pkt) = 0;
  // The host's NIC is free: return the next data packet to transmit, or kNil.
  virtual std::uint32_t pull_data(std::int32_t host) = 0;
  // A packet is dropped in the network (just before it is released).
  virtual void on_dropped(const Packet&) {}
  // Hints, no effect on results (Network::run_loop): the NIC of `host` will pull a packet a few
  // events from now, or packet `pkt` (its line already asked for) will reach its host. Called in
  // stages 0, 1, ... as that event comes nearer, each stage reading what the one before asked the
  // cache for (host -> its flow list -> the flow's record -> its live state -> the per-PSN arrays)
  // and asking for the next link of the chain.
  virtual void prefetch_pull(std::int32_t /*host*/, int /*stage*/) {}
  virtual void prefetch_arrival(std::uint32_t /*pkt*/, int /*stage*/) {}
};

// Handles the event kinds it is registered for (Network::on).
class EventHandler {
 public:
  virtual ~EventHandler() = default;
  virtual void on_event(const Event& e) = 0;
};

class Network;

// One data packet lost to a full queue (Network::set_loss_log, output.trims_csv): trimmed to its
// header, or dropped (a trimmed header that found the control queue full, or a data packet with
// trimming off). `hops` is the packet's Packet::hops at that queue: the switches it had reached,
// this one included (1 = the sender's switch).
struct LossRecord {
  SimTime time = 0;
  std::uint32_t port = 0;  // global port id (Network::port)
  std::uint32_t flow = 0;
  std::uint32_t psn = 0;
  std::uint32_t ev = 0;
  std::int32_t src = -1, dst = -1;
  std::uint8_t hops = 0;
  bool dropped = false;     // false: trimmed
  bool retransmit = false;  // the packet was a retransmission
};

// Router::route's answer for a packet the router keeps (a reorder queue, routing/conweave.h): the
// network neither drops nor forwards it; the router later hands it to Network::enqueue itself.
inline constexpr std::int32_t kRouteHeld = -2;

// A switch's forwarding decision.
class Router {
 public:
  virtual ~Router() = default;
  // The output port (index at `node`) for packet `p` at switch `node`; < 0: no route (dropped), or
  // kRouteHeld (the router keeps the packet).
  virtual std::int32_t route(std::int32_t node, Packet& p) = 0;
  // Hint, no effect on results (Network::run_loop): packet `p` will reach switch `node` a few events
  // from now. Stage 0 asks the cache for the tables route() will read; stage 1 (later) returns the
  // output port route() will pick when it is known without side effects (else -1), so that the
  // loop can ask for that port's line. Routers that decide from state (queues, timers) keep the
  // default: no hint.
  virtual std::int32_t prefetch_route(std::int32_t /*node*/, const Packet& /*p*/, int /*stage*/) const { return -1; }
};

class Network {
 public:
  Network(const topo::Topology& topo, const NetConfig& cfg, std::uint64_t seed);

  const topo::Topology& topology() const { return topo_; }
  SimTime now() const { return now_; }
  EventQueue& events() { return eq_; }
  PacketPool& packets() { return pool_; }
  Packet& pkt(std::uint32_t i) { return pool_[i]; }

  void set_router(Router* r) { router_ = r; }
  void set_host_handler(HostHandler* h) { host_ = h; }
  // Events of `kind` go to `h` (every kind but kEvArrive and kEvTxNext).
  void on(EventKind kind, EventHandler* h) { handlers_[kind] = h; }

  // Global port id of port `local` of `node`.
  std::uint32_t port_id(std::int32_t node, std::int32_t local) const {
    return port_base_[node] + static_cast<std::uint32_t>(local);
  }
  Port& port(std::uint32_t id) { return ports_[id]; }
  const Port& port(std::uint32_t id) const { return ports_[id]; }
  std::uint32_t num_ports() const { return static_cast<std::uint32_t>(ports_.size()); }
  std::uint32_t nic_port(std::int32_t host) const { return port_base_[host]; }

  // A host sends a control packet (ACK/NACK): it goes to the NIC's priority queue.
  void send_control(std::int32_t host, std::uint32_t pkt);
  // The transport has new data to send from `host`: start the NIC if it is idle.
  void kick_nic(std::int32_t host);
  // Queue or transmit `pkt` on port `id` (used by switches after routing).
  void enqueue(std::uint32_t id, std::uint32_t pkt);
  // Inside Router::route: the pool index of the packet being routed (a router that keeps the
  // packet, kRouteHeld, needs it to enqueue it later).
  std::uint32_t routed_packet() const { return routed_; }
  // A router that keeps the packet it is routing (kRouteHeld) keeps it in this switch's buffer: in a
  // lossless network its bytes count in the ingress buffer it arrived in from then on, so credits and
  // PFC pauses see them while it waits (hold(), inside Router::route), and enqueue_held() hands it
  // to port `id` later without counting it twice.
  void hold(std::uint32_t pkt);
  void enqueue_held(std::uint32_t id, std::uint32_t pkt);

  // Run events until the queue is empty, `until` is passed, or stop() is called.
  void run(SimTime until);
  void stop() { stopped_ = true; }
  std::uint64_t events_processed() const { return events_; }
  // Events the loop processed with the far prefetch schedule (NetConfig::far_prefetch_bytes).
  std::uint64_t far_prefetch_events() const { return far_events_; }
  // Events processed of one kind (events.h), and finer counts of the two network kinds: arrivals
  // at a host / at a switch, and TX_NEXT events that found nothing to send (the port went idle).
  std::uint64_t events_of_kind(std::uint32_t kind) const { return kind_events_[kind]; }
  std::uint64_t host_arrivals() const { return host_arrivals_; }
  std::uint64_t idle_tx_next() const { return idle_tx_next_; }
  void set_progress_hook(void (*hook)(void*, SimTime), void* ctx) {
    progress_hook_ = hook;
    progress_ctx_ = ctx;
  }

  // Packet accounting for conservation checks.
  std::uint64_t dropped() const { return dropped_; }
  std::uint64_t delivered() const { return delivered_; }
  std::uint64_t ttl_drops() const { return ttl_drops_; }  // packets dropped at NetConfig::max_hops
  // Packets a switch dropped because its router had no route for them (every candidate failed and
  // routing converged): in all, and per port the packet arrived on (ports.csv no_route_drops).
  std::uint64_t no_route_drops() const { return no_route_drops_; }
  std::uint64_t no_route_drops(std::uint32_t port) const {
    return port < no_route_port_.size() ? no_route_port_[port] : 0;
  }
  void count_delivered() { ++delivered_; }
  // Release a packet that is dropped in the network (counted as dropped).
  void drop(std::uint32_t pkt) {
    ++dropped_;
    if (host_) host_->on_dropped(pool_[pkt]);
    pool_.release(pkt);
  }

  // Sets port `id`'s data queue capacity and ECN thresholds to `factor` x the configured ones
  // (failures.degrade_queues = "scale": a port at half rate gets half the buffer, as htsim sizes a
  // slower port's queue; REPS artifact (htsim)). factor 1 restores the configured values exactly.
  void scale_queue(std::uint32_t id, double factor);

  // Record every data packet trimmed or dropped by a full queue into `log` (nullptr = off); only the
  // overflow path looks at it, so a run without it is unchanged.
  void set_loss_log(std::vector<LossRecord>* log) { loss_log_ = log; }

  // In-band telemetry (net/int_stack.h, HPCC): from now on every switch port stamps a record into
  // the INT stack of each data packet it transmits. The sender clears a packet's stack (int_at) when
  // it builds it; the receiver copies it into the ACK's.
  void enable_int() {
    if (!int_) int_ = std::make_unique<IntTable>();
    dequeue_hooks_ = true;
  }
  bool int_on() const { return int_ != nullptr; }
  IntStack& int_at(std::uint32_t pkt) { return (*int_)[pkt]; }

  // Bytes waiting in the data queue of a port (what ECN and adaptive routing look at).
  Bytes queued_bytes(std::uint32_t id) const { return ports_[id].data.bytes; }

  // Lossless modes (net/flow_control.h).
  FlowControl flow_control() const { return cfg_.fc.mode; }
  bool lossless() const { return lossless_; }
  const FcPort& fc_port(std::uint32_t id) const { return fc_[id]; }
  // The port is idle with packets waiting that it may not send (no credit / paused); false in lossy mode.
  bool port_blocked(std::uint32_t id) const { return lossless_ && fc_[id].blocked_since >= 0; }
  FlowControlStats fc_stats() const;
  // Set when a lossless run stopped on a deadlock (network.stall_us) or because nothing could move.
  const StallReport* stall() const { return stall_.get(); }

 private:
  template <bool LL>
  void run_loop(SimTime until);
  // The loop proper with one prefetch schedule; true when it stopped to change schedules, false at
  // `until`, an empty queue or a stop.
  template <bool LL, bool Far>
  bool run_events(SimTime until);
  // The packets in existence and the ports take cfg_.far_prefetch_bytes or more: the far schedule.
  bool wide_working_set() const;
  // Hint for the loop: the NIC port `id` has nothing queued, so its coming TX_NEXT pulls from the
  // host (tx_next sends a queued packet first; only that TX_NEXT takes from these queues).
  bool will_pull(std::uint32_t id) const { return ports_[id].ctrl.empty() && ports_[id].data.empty(); }
  // Hint for the loop: both lines of port `id` (line 0 transmits, line 1 enqueues and counts), for writing.
  void prefetch_port(std::uint32_t id) const {
    const char* l = reinterpret_cast<const char*>(&ports_[id]);
    __builtin_prefetch(l, 1);
    __builtin_prefetch(l + 64, 1);
  }
  static constexpr std::uint64_t kScheduleEvery = 1 << 16;
  template <bool LL>
  void start_tx(std::uint32_t id, Port& port, std::uint32_t pkt);
  template <bool LL>
  bool tx_next(std::uint32_t id);  // false: nothing to send
  template <bool LL>
  void arrive(std::uint32_t pkt);
  template <bool LL>
  void enqueue_at(std::uint32_t id, std::uint32_t pkt);
  void push(FifoQueue& q, std::uint32_t pkt);
  std::uint32_t pop(FifoQueue& q);
  // The NIC of `port` asks its host for the next data packet (see network.cpp).
  std::uint32_t pull_nic(Port& port);
  // drop_policy = random_evict: with probability 0.5 remove the last queued data packet of `port`
  // (when that makes room for `size` bytes) and trim or drop it; true when it did.
  bool evict_for(Port& port, Bytes size);
  // A data packet that does not fit: trimmed into the control queue, or dropped.
  void overflow(Port& port, std::uint32_t pkt);
  [[gnu::cold, gnu::noinline]] void stamp_int(const Port& port, std::uint32_t pkt);
  void log_loss(const Port& port, const Packet& p, bool dropped) {
    if (!loss_log_) return;
    loss_log_->push_back(LossRecord{now_, static_cast<std::uint32_t>(&port - ports_.data()), p.flow, p.psn, p.ev, p.src,
                                    p.dst, p.hops, dropped, (p.flags & kFlagRetransmit) != 0});
  }

  // Lossless helpers (net/flow_control.cpp).
  void fc_init();
  bool fc_can_send(std::uint32_t id, int vc, Bytes size) const;
  // The next packet port `id` may send, or kNil; `held` = something waits that may not be sent.
  std::uint32_t fc_pick(std::uint32_t id, bool& held);
  void fc_admit(std::uint32_t in_id, const Packet& p);                   // arrival at a switch ingress
  void fc_leave(std::uint32_t in_id, int vc, Bytes size, bool counted);  // the packet starts leaving
  void fc_block(std::uint32_t id);
  void fc_unblock(std::uint32_t id);
  void fc_event(const Event& e);
  void wake(std::uint32_t id);
  void stall_check();
  // Looks for a closed set of ports that have waited at least `min_wait`; sets stall_ and returns
  // true when there is one (always when `dry`: nothing is left to run).
  bool find_deadlock(SimTime min_wait, bool dry);
  std::uint64_t queued_packets() const;
  std::string port_name(std::uint32_t id) const;
  const topo::Topology& topo_;
  NetConfig cfg_;
  bool mark_enqueue_ = true, mark_dequeue_ = false;  // ECN on and where (QueueConfig::ecn_at_dequeue)
  bool dequeue_hooks_ = false;                       // mark_dequeue_ or INT on (start_tx)
  std::unique_ptr<IntTable> int_;                    // INT records (enable_int); null = off
  EventQueue eq_;
  PacketPool pool_;
  std::vector<Port> ports_;
  std::vector<std::uint32_t> port_base_;
  // The hosts' NIC ports are the first ports (hosts are the first nodes): nic_host_[id] is the host
  // of NIC port id, for the loop's hints (HostHandler::prefetch_pull).
  std::vector<std::int32_t> nic_host_;
  Router* router_ = nullptr;
  std::uint32_t routed_ = kNil;  // routed_packet()
  HostHandler* host_ = nullptr;
  std::array<EventHandler*, kNumEventKinds> handlers_{};
  SimTime now_ = 0;
  bool stopped_ = false;
  std::uint64_t events_ = 0;
  std::uint64_t far_events_ = 0;
  std::array<std::uint64_t, kNumEventKinds> kind_events_{};
  std::uint64_t idle_tx_next_ = 0;
  std::uint64_t host_arrivals_ = 0;
  std::uint64_t dropped_ = 0;
  std::uint64_t delivered_ = 0;
  std::uint64_t ttl_drops_ = 0;
  std::uint64_t no_route_drops_ = 0;
  std::vector<std::uint64_t> no_route_port_;  // per port; sized at the first no-route drop
  void count_no_route(std::uint32_t in_port);
  std::vector<LossRecord>* loss_log_ = nullptr;
  void (*progress_hook_)(void*, SimTime) = nullptr;
  void* progress_ctx_ = nullptr;
  // Lossless state (empty in lossy mode).
  bool lossless_ = false;
  std::vector<FcPort> fc_;
  struct CreditMsg {
    std::uint32_t port;  // transmitter the credit returns to
    std::uint32_t bytes;
    std::uint32_t vc;
  };
  std::vector<CreditMsg> credit_msgs_;  // credits on their way upstream (event obj = index)
  std::vector<std::uint32_t> credit_free_;
  std::uint64_t credit_returns_ = 0;
  bool stall_armed_ = false;
  std::unique_ptr<StallReport> stall_;
};

}  // namespace lbsim::net
