// Message transport: window-limited senders and out-of-order-tolerant receivers.
//
// Sender: a message of N bytes is cut into MTU packets (PSN 0..n-1). The NIC pulls packets while
// the bytes in flight fit in the congestion window; a NACK (the receiver saw a trimmed packet) puts
// the PSN at the head of the retransmit queue at once, and a retransmission timeout (RTO) does the
// same for packets that vanished silently. Every ACK/NACK/timeout is reported to the congestion
// control and, with the EV it concerns, to the flow's load balancer.
// Receiver: keeps a bitmap of received PSNs, counts duplicates and out-of-order arrivals (PSN != the
// expected PSN, i.e. the lowest missing one: [Flowcut] sec. III-C2's definition) with their largest
// distance from the expected PSN, and ACKs every packet (or every n-th with ACK coalescing), echoing
// the EV, the ECN mark, the send timestamp, the data packet's hop count and its size. ACKs carry a
// cumulative ACK and the 64-PSN SACK word that holds the acknowledged PSN.
// Delivery (transport.delivery): "ooo" places packets in any order (RDMA write with direct
// placement); "in_order" delivers in PSN order like RoCE, and an out-of-order arrival is either held
// in a reorder buffer (in_order_recovery = buffer; occupancy tracked) or discarded with a go-back-N
// NACK naming the expected PSN, from which the sender resends (go_back_n).
// Holds and pauses: a load balancer may hold its flow (lb::EntropyPolicy::hold) and a switch may
// pause it (an FGFC XOFF/XON frame or a PFC class pause, net::PacketType::Pause). A held or paused
// flow is parked: it leaves the host's list of sendable flows, so the NIC's round robin never looks
// at it, and comes back on its wake time, its next feedback (holds), XON or the pause timeout.
// Entries of the workload start when their start time has come and their dependencies are met
// (workload/flow_spec.h); computations take their duration and send nothing.
// NIC scheduler: pull_data is a round robin over the host's active flows; only those that can send
// (a packet and a window for it, or a hold to ask about, or a pacing slot to wait for) are marked
// ready, so a host with thousands of flows waiting for ACKs costs O(1) per packet.
// Memory: a workload entry holds its FlowState record for the whole run (streamed: until it is over,
// then a compact FlowRow until its id comes up); a transfer holds a FlowLive from its start until
// both ends are done (docs/architecture.md "Per-flow state").
#pragma once
#include <bit>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "lb/policy.h"
#include "net/network.h"
#include "transport/cc.h"
#include "transport/psn_ring.h"
#include "transport/row_spill.h"
#include "workload/flow_spec.h"

namespace lbsim::transport {

enum class Delivery : std::uint8_t { Ooo, InOrder };
enum class Recovery : std::uint8_t { Buffer, GoBackN };

struct TransportParams {
  Bytes mtu = 4096;   // payload bytes per full data packet
  Bytes header = 64;  // header bytes of every packet (data, ACK, NACK)
  CcParams cc;        // cc.mtu is set to header + mtu
  SimTime rto = us(70);
  std::uint32_t ack_every = 1;  // ACK coalescing: one ACK per n data packets (1 = per packet)
  SimTime ack_delay = us(1);    // with coalescing: flush a partial ACK after this long
  bool ack_carry_evs = false;   // coalesced ACKs carry the non-ECN EVs they cover ([REPS] 4.5.1)
  // transport.pinned_acks = "pinned": the ACKs / NACKs of pinned flows carry net::kFlagPinned too, so
  // they return over the source-guided path their echoed EV names under any routing (the pinned
  // background is then the same, both ways, in every row of a comparison); else the run's routing.
  bool pin_acks = true;
  Delivery delivery = Delivery::Ooo;
  Recovery recovery = Recovery::Buffer;  // in_order only
  SimTime pause_timeout = us(70);        // a paused flow resumes after this without XON ([Flowcut] IV-A)
  // Stop the run only when every sender also holds its final ACK (output.fct_at = "sender"), not
  // when the last receiver holds every byte.
  bool wait_senders = false;
  // NIC scheduler (transport.nic_scheduler): false = the ready list (only flows that can send are
  // visited); true = visit every active flow, the reference the ready list must match packet for packet.
  bool scan_all = false;
};

// A set of small integers with O(1) insert and erase and a find-next that costs one step per 64x
// level (3 levels cover 262,144 slots): the NIC scheduler's ready slots.
class SlotBits {
 public:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  // Fast paths inline: the word of slot i already has (keeps) another member, so the levels above
  // do not change; the rest in set_slow / clear_slow / find.
  void set(std::uint32_t i) {
    if ((i >> 6) < lv_[0].size()) {
      std::uint64_t& w = lv_[0][i >> 6];
      if (w) {
        w |= 1ULL << (i & 63);
        return;
      }
    }
    set_slow(i);
  }
  void clear(std::uint32_t i) {
    if ((i >> 6) >= lv_[0].size()) return;
    std::uint64_t& w = lv_[0][i >> 6];
    const std::uint64_t bit = 1ULL << (i & 63);
    if (!(w & bit)) return;
    if (w != bit) {
      w &= ~bit;
      return;
    }
    clear_slow(i);
  }
  bool test(std::uint32_t i) const { return (i >> 6) < lv_[0].size() && (lv_[0][i >> 6] >> (i & 63) & 1); }
  // The smallest member >= i, or kNone.
  std::uint32_t next(std::uint32_t i) const {
    if ((i >> 6) < lv_[0].size())
      if (const std::uint64_t m = lv_[0][i >> 6] & (~0ULL << (i & 63)))
        return (i & ~63u) + static_cast<std::uint32_t>(std::countr_zero(m));
    return find(0, i);
  }
  void reset();  // empty, keeping the capacity
  std::size_t bytes() const;

 private:
  std::uint32_t find(std::size_t level, std::uint32_t i) const;
  void grow(std::uint32_t i);
  void set_slow(std::uint32_t i);
  void clear_slow(std::uint32_t i);
  std::vector<std::vector<std::uint64_t>> lv_{1};  // lv_[0]: one bit per slot; lv_[k + 1]: non-zero words of lv_[k]
};

// Field order: what the sender and the receiver count per packet first, so that these counters share
// FlowState's second cache line (FlowState below); the rare ones after them.
struct FlowCounters {
  std::uint64_t packets_sent = 0;  // data packets put on the wire (incl. retransmissions)
  std::uint64_t retransmits = 0;
  std::uint64_t ecn_acks = 0;        // ACKs that echoed an ECN mark
  std::uint64_t nacks = 0;           // NACKs received by the sender (its packets were trimmed)
  std::uint64_t ooo = 0;             // receiver: arrivals with PSN != lowest missing PSN
  std::uint64_t overtaken = 0;       // receiver: arrivals sent before a packet that arrived earlier
                                     // (the network reordered them; losses alone do not count)
  std::uint64_t duplicates = 0;      // receiver: arrivals of PSNs already held
  std::uint32_t max_reorder = 0;     // receiver: largest PSN - expected PSN of an out-of-order arrival
  std::uint32_t rob_max = 0;         // receiver, in_order + buffer: most packets held in the reorder buffer
  std::uint64_t trimmed_rx = 0;      // receiver: trimmed headers received
  std::uint64_t timeouts = 0;        // packets declared lost by the RTO
  std::uint64_t rewinds = 0;         // sender, go_back_n: times it resent from a NACKed PSN
  std::uint64_t pauses = 0;          // sender: XOFF frames (FGFC or PFC) received
  std::uint64_t pause_timeouts = 0;  // sender: pauses ended by the timeout instead of XON
  SimTime held = 0;                  // sender: time parked by a hold or a pause (the drain time of Flowcut)
};

// Why a flow is parked (FlowState::park).
inline constexpr std::uint8_t kParkHold = 1;   // its load balancer holds it
inline constexpr std::uint8_t kParkPause = 2;  // a switch paused it (FGFC XOFF)

enum class PsnState : std::uint8_t { Unsent = 0, InFlight = 1, Acked = 2, Lost = 3 };

// The sender's record of one PSN in play (FlowLive::sent): its state and latest transmission, in 12
// bytes (the state in the low two bits of the send time's word: times in ps stay far below 2^62).
#pragma pack(push, 4)
struct PsnEntry {
  std::uint64_t sent_state = 0;  // time of the latest transmission << 2 | PsnState
  std::uint32_t ev = 0;          // its EV

  SimTime sent() const { return static_cast<SimTime>(sent_state >> 2); }
  PsnState state() const { return static_cast<PsnState>(sent_state & 3); }
  void set_state(PsnState s) { sent_state = (sent_state & ~std::uint64_t{3}) | static_cast<std::uint64_t>(s); }
  void set_sent(SimTime t, PsnState s) {
    sent_state = static_cast<std::uint64_t>(t) << 2 | static_cast<std::uint64_t>(s);
  }
};
#pragma pack(pop)
static_assert(sizeof(PsnEntry) == 12, "PsnEntry: 12 bytes per PSN in play");

// The state of a transfer in progress (sender and receiver), made when the entry starts
// (Transport::begin) and released as a whole once the receiver holds every byte and the sender has
// its final ACK (docs/architecture.md "Per-flow state"). The per-PSN state covers only the PSNs in
// play (PsnRing: from the cumulative point to the highest PSN sent or received) and goes earlier:
// the sender's at its final ACK, the receiver's bitmap at completion.
struct alignas(64) FlowLive {
  // sender: what pull_data and an ACK read and write, first (Transport::prefetch_pull and
  // prefetch_arrival ask for [0, offsetof(FlowLive, received)))
  std::unique_ptr<CongestionControl> cc;  // freed at the final ACK
  Bytes inflight = 0;
  std::uint32_t next_new = 0;  // next never-sent PSN
  std::uint32_t acked = 0;     // PSNs acknowledged
  std::uint32_t snd_cum = 0;   // every PSN below is acknowledged
  // NIC scheduler (Transport::pull_data): the flow's slot in its host's list of sendable flows while
  // it is there (not parked, sender not done).
  std::uint32_t slot = 0xFFFFFFFFu;
  // pacing (rate-based CC, CongestionControl::paced): the next packet may start at next_tx; a NIC that
  // skipped the flow for that reason is woken at pace_wake (kEvPaceWake). next_tx stays 0 unpaced.
  SimTime next_tx = 0;
  // Per-PSN sender state from snd_cum's 64-PSN block on (below it every PSN is Acked): the bitmap of
  // acknowledged PSNs and each PSN's latest transmission; freed when the sender is done.
  PsnRing<PsnEntry> sent;
  // psn's state: from the ring, Acked below it (every PSN below its first block is acknowledged),
  // Unsent beyond it; and the time of its latest transmission while the ring holds it (else 0).
  PsnState state_of(std::uint32_t psn) const {
    if (const PsnEntry* e = sent.find(psn)) return e->state();
    return psn < sent.lo() ? PsnState::Acked : PsnState::Unsent;
  }
  SimTime sent_time(std::uint32_t psn) const {
    const PsnEntry* e = sent.find(psn);
    return e ? e->sent() : 0;
  }
  std::vector<std::uint32_t> rtx;  // retransmit queue (PSNs)
  std::size_t rtx_head = 0;
  std::vector<std::pair<std::uint32_t, SimTime>> sendlog;  // (psn, sent) in send order, for the RTO
  std::size_t log_head = 0;        // walked up to here; a full log drops what the walk would skip (log_send)
  SimTime rto_armed = kTimeNever;  // time of the pending RTO event, if any
  SimTime last_rewind = -1;        // go_back_n: when the sender last resent from a NACKed PSN
  SimTime pace_wake = kTimeNever;
  bool paced = false;
  // receiver, from a cache line of its own (Transport::prefetch_arrival asks for
  // [offsetof(received), offsetof(parked_since)))
  PsnRing<> received;         // PSN bitmap from rcv_cum's block on; freed when every PSN is held
  std::uint32_t rcv_cum = 0;  // lowest PSN not yet received
  bool ack_flush_armed = false;
  std::uint8_t ack_last_hops = 0;
  std::uint8_t carry_n = 0;  // ack_carry_evs: non-ECN EVs received since the last ACK
  std::uint32_t ack_pending = 0, ack_pending_ecn = 0;
  std::uint32_t ack_last_psn = 0, ack_last_ev = 0;
  std::uint32_t ack_pending_bytes = 0;  // wire bytes of the data packets the next ACK answers
  SimTime ack_last_sent_time = 0;
  SimTime ack_last_rx = 0;  // arrival time of the data packet the next ACK answers
  std::uint16_t carry_ev[net::kMaxCarriedEvs] = {};
  // sender, parking (holds and pauses): rare
  SimTime parked_since = 0, class_since = 0;
  SimTime hold_wake = kTimeNever;       // time of the pending kEvHoldWake
  SimTime pause_deadline = kTimeNever;  // time of the pending kEvPauseTimeout
};
static_assert(offsetof(FlowLive, received) % 64 == 0, "FlowLive: the receiver's fields start a cache line");

// One per workload entry for the whole run: what flows.csv and summary.json report, the entry's
// dependencies, and its load balancer (kept to the end only when the run's summary reads it:
// Transport's PolicyKeep). The transfer's working state is `live` while it is in progress.
struct alignas(64) FlowState {
  // --- cache line 0: what sending a packet and taking one in read first (Transport::prefetch_pull,
  // prefetch_arrival ask for lines 0 and 1 only)
  const workload::FlowSpec* spec = nullptr;
  std::unique_ptr<lb::EntropyPolicy> lb;
  std::unique_ptr<FlowLive> live;  // null before the start and once the transfer is over
  std::uint32_t id = 0;
  std::uint32_t npkts = 0;
  std::uint32_t rcv_count = 0;  // receiver: distinct PSNs held
  std::uint32_t in_net = 0;     // its data packets (and probes) in the network: sent, not yet arrived or dropped
  bool started = false, finished = false, sender_done = false;
  bool pinned = false;           // lb = via_group:<g> or pinned_ecmp: data packets carry net::kFlagPinned
  std::uint8_t caps = 0;         // the load balancer's lb::kCap* flags
  std::uint8_t park = 0;         // kPark* reasons; non-zero = not in the host's active list
  bool class_paused = false;     // this flow's drain paused the NIC's class (PFC)
  SimTime rcv_latest_sent = -1;  // receiver: latest send time among the data packets received
  // --- from the end of line 0 on: the counters, the per-packet ones by line 1's end
  FlowCounters n;
  // --- cold: the lifecycle
  std::uint32_t pending_deps = 0, pending_start_deps = 0;
  SimTime ready_time = 0;  // latest dependency completion + delay / start dependency
  SimTime start_time = -1, finish_time = -1, sender_done_time = -1;
};
// The per-packet fields in FlowState's first two lines (offsetof on a type with unique_ptr members
// is conditionally supported; g++ and clang give the layout offset).
inline constexpr std::size_t kFlowStateHotBytes = 128;
static_assert(offsetof(FlowState, n) + offsetof(FlowCounters, trimmed_rx) + sizeof(std::uint64_t) <= kFlowStateHotBytes,
              "FlowState: per-packet counters leave its first two cache lines");

using PolicyFactory = std::function<std::unique_ptr<lb::EntropyPolicy>(const workload::FlowSpec&, std::uint32_t id)>;
// Whether entry id's load balancer must outlive its transfer (the run's summary or path usage reads
// it); empty = none does. Policies that answer probes (lb::kCapPaths) are always kept.
using PolicyKeep = std::function<bool(const workload::FlowSpec& spec, std::uint32_t id)>;
// Called with entry id's load balancer just before the transport frees it (its final ACK): the run
// folds what its summary needs from it (lb::SummaryFold). Empty = nothing to fold.
using PolicyDone =
    std::function<void(const workload::FlowSpec& spec, std::uint32_t id, const lb::EntropyPolicy& policy)>;

// What flows.csv and summary.json report of one entry (sim::Simulation::result, FlowTotals): made
// from its record, or from the compact row a streamed run keeps once the record is released.
struct FlowReport {
  std::uint32_t id = 0;
  std::int32_t src = -1, dst = -1, tag = 0;
  Bytes bytes = 0;
  SimTime compute = -1;             // >= 0: a computation of this duration
  const std::string* lb = nullptr;  // the entry's load balancer name; empty = the run's default
  bool finished = false;
  std::uint32_t npkts = 0, rcv_count = 0;
  SimTime start_time = -1, finish_time = -1, sender_done_time = -1;
  FlowCounters n;
  bool is_compute() const { return compute >= 0; }
};

// Memory held by per-flow state, counted from the containers (tests, docs/scale.md).
struct FlowMemory {
  std::size_t entries = 0;  // workload entries
  std::size_t records = 0;  // FlowState records held now (every entry, or a streamed run's records not yet released)
  std::size_t peak_records = 0;  // most records at once
  // Streamed runs: the ids from the lowest entry not yet reported to the highest made, their
  // released rows waiting for their turn, and the bytes of the window (the id-indexed rows and
  // record slots, at capacity) and of the record pool (FlowState + FlowSpec per slot, at capacity).
  std::size_t window = 0, peak_window = 0;
  std::size_t waiting_rows = 0, peak_waiting_rows = 0;
  std::size_t spilled_rows = 0;  // waiting rows written to the temporary file (their ids beyond the rows in memory)
  std::size_t window_bytes = 0, window_capacity = 0;
  std::size_t record_bytes = 0, record_capacity = 0;
  std::size_t live = 0;             // transfers with a FlowLive (started, not yet over)
  std::size_t peak_live = 0;        // most FlowLive objects at once
  std::size_t policies = 0;         // load-balancer objects held
  std::size_t ccs = 0;              // congestion-control objects held
  std::size_t vector_bytes = 0;     // capacity of every per-flow vector (PSN state, bitmaps, logs, dependents)
  std::size_t scheduler_bytes = 0;  // the NIC scheduler's per-host slot lists and ready bits
};

// A streamed workload (workload.stream): the next entry in id order into `out` (false: none left).
using EntryFeed = std::function<bool(workload::FlowSpec& out)>;
// A streamed entry leaves the transport, in id order: its final values (flows.csv row, summary values).
using RetireSink = std::function<void(const FlowReport& f)>;

class Transport final : public net::HostHandler, public net::EventHandler {
 public:
  // Every entry of `wl` has its record for the whole run.
  Transport(net::Network& net, const workload::Workload& wl, const TransportParams& params, PolicyFactory policies,
            PolicyKeep keep = {}, PolicyDone done = {});
  // A streamed workload of `entries` entries (`transfers` of them transfers) without dependencies,
  // in start order: each entry is taken from `feed` when the one before it starts, and its record
  // lives in a window indexed by id until nothing can change it any more (retire_done), when it goes
  // to `sink` in id order (docs/scale-flows.md).
  Transport(net::Network& net, std::size_t entries, std::size_t transfers, EntryFeed feed, RetireSink sink,
            const TransportParams& params, PolicyFactory policies, PolicyKeep keep = {}, PolicyDone done = {});

  // Schedule every entry whose dependencies are already met.
  void start();
  bool all_done() const { return completed_ == total_; }
  bool senders_done() const { return senders_pending_ == 0; }  // every transfer's final ACK is in
  // Everything the run waits for has happened: every entry finished and, with wait_senders
  // (output.fct_at = "sender"), every sender has its final ACK.
  bool run_done() const { return all_done() && (!p_.wait_senders || senders_pending_ == 0); }
  // A flow the run still waits for (the watchdog's stuck list).
  bool waiting_for(const FlowState& f) const { return !f.finished || (p_.wait_senders && !f.sender_done); }
  std::size_t completed() const { return completed_; }
  // Progress, for the run's watchdog (sim::Simulation): data packets received for the first time,
  // and entries waiting for a timed event of their own (a scheduled start, the end of a compute step).
  std::uint64_t delivered() const { return delivered_; }
  std::size_t timed_pending() const { return timed_pending_; }
  SimTime last_progress() const { return last_progress_; }  // the latest delivery, start or completion
  // Every entry's record, by id (not for a streamed workload, whose records are a pool: for_each_held).
  const std::vector<FlowState>& flows() const {
    if (streaming()) throw std::logic_error("Transport::flows() of a streamed workload");
    return flows_;
  }
  bool streaming() const { return stream_; }
  // A streamed run that is over (run.end_us, interrupt, watchdog): the entries not made yet get their
  // (never started) records, so that the reports list every entry.
  void admit_rest();
  std::size_t entries() const { return total_; }
  // The records still held, in id order (all of them unless streamed; then those not yet released).
  template <class Fn>
  void for_each_held(Fn&& fn) const {
    for (std::uint32_t id = lo_; id < hi_; ++id)
      if (held(id)) fn(at(id));
  }
  // What flows.csv and summary.json report of every entry not yet handed to the sink, in id order
  // (every entry unless streamed): from its record, or from its waiting row.
  template <class Fn>
  void for_each_report(Fn&& fn) const {
    for (std::uint32_t id = lo_; id < hi_; ++id) fn(held(id) ? report(at(id)) : report_row(id));
  }
  FlowReport report(const FlowState& f) const;
  const TransportParams& params() const { return p_; }
  // Receiver reorder buffers (in_order delivery with the buffer recovery; [LAPS] Fig. 9): after every
  // data arrival, the packets the receiving host holds above the first gap of its flows, counted
  // (index = packets, the last bin collecting larger values).
  const std::vector<std::uint64_t>& rob_histogram() const { return rob_hist_; }
  // Packets each host holds in its reorder buffer now (empty until the first in-order arrival).
  const auto& rob_per_host() const { return rob_host_; }
  Bytes packet_bytes(const FlowState& f, std::uint32_t psn) const;
  // Size of an ACK, NACK or probe of flow f answering / probing path ev: the header, plus the
  // policy's own header fields (EntropyPolicy::extra_header).
  Bytes control_bytes(const FlowState& f, std::uint32_t ev) const;
  FlowMemory memory() const;
  // Streamed: the most waiting rows kept in memory (rounded up to a power of two; 65,536, 7.5 MiB);
  // a run reads it when it starts. Tests lower it to make a small run use the file.
  static std::size_t& default_rows_in_memory();

  // net::HostHandler
  void on_packet(std::uint32_t pkt) override;
  std::uint32_t pull_data(std::int32_t host) override;
  void on_dropped(const net::Packet& p) override;
  void prefetch_pull(std::int32_t host, int stage) override;
  void prefetch_arrival(std::uint32_t pkt, int stage) override;
  // net::EventHandler (kEvEntryStart, kEvRto, kEvComputeDone, kEvAckFlush, kEvHoldWake, kEvPauseTimeout,
  // kEvPaceWake)
  void on_event(const Event& e) override;

 private:
  Transport(net::Network& net, const TransportParams& params, PolicyFactory policies, PolicyKeep keep, PolicyDone done);
  // Streamed: the record slot of id (once released: kNoSlot with its row in rows_, kSpilledRow with
  // its row in rows_file_); eager: the id itself.
  static constexpr std::uint32_t kNoSlot = 0xFFFFFFFFu, kSpilledRow = 0xFFFFFFFEu;
  std::uint32_t slot_of(std::uint32_t id) const { return streaming() ? slots_[id & mask_] : id; }
  bool held(std::uint32_t id) const { return id >= lo_ && id < hi_ && slot_of(id) < kSpilledRow; }
  FlowState& at(std::uint32_t id) { return flows_[slot_of(id)]; }
  const FlowState& at(std::uint32_t id) const { return flows_[slot_of(id)]; }
  FlowRow row_of(std::uint32_t id) const;  // a released entry's row, from rows_ or rows_file_
  FlowReport report_row(std::uint32_t id) const;
  FlowReport report_row(std::uint32_t id, const FlowRow& w) const;
  void admit_next(bool schedule = true);
  void grow();
  void grow_pool();
  // Streamed: release id's record if nothing can change it any more (its row waits in the window),
  // then hand the rows at the bottom of the window to the sink in id order.
  void try_release(std::uint32_t id);
  void retire_done();
  void begin(std::uint32_t id);
  void complete(std::uint32_t id);
  void make_ready(std::uint32_t id);
  bool has_packet(const FlowState& f, std::uint32_t& psn) const;
  bool window_allows(const FlowState& f, std::uint32_t psn) const;
  std::uint32_t next_psn(FlowState& f);
  lb::SendView send_view(const FlowState& f, std::uint32_t psn) const;
  void on_data(std::uint32_t pkt);
  void on_ack(std::uint32_t pkt);
  void on_nack(std::uint32_t pkt);
  void on_go_back_n(FlowState& f, const net::Packet& n);
  void on_pause(std::uint32_t pkt);
  void send_nack(FlowState& f, FlowLive& R, const net::Packet& p, std::uint32_t psn, bool go_back_n);
  // Parking: take the flow out of / put it back into its host's active list.
  void park(FlowState& f, std::uint8_t reason);
  void unpark(FlowState& f, std::uint8_t reason);
  void add_active(FlowState& f);
  void remove_active(FlowState& f);
  // Re-evaluates whether the flow may be picked by pull_data (after anything that changes its
  // packets, window or bytes in flight).
  void refresh(FlowState& f);
  bool sendable(FlowState& f) const;
  void compact(std::int32_t host);
  void release(FlowState& f);
  void end_class_pause(FlowState& f);
  void send_ack(FlowState& f, FlowLive& R, std::int32_t from_host, std::int32_t to_host);
  // [LAPS] sec. 3.4: a header-only probe on the path `ev` names, and the receiver's answer.
  void send_probe(FlowState& f, std::uint32_t ev);
  void answer_probe(FlowState& f, FlowLive& R, const net::Packet& p);
  void on_probe_ack(FlowState& f, const net::Packet& a, const net::AckFields& ax);
  // A policy's per-path loss verdicts ([LAPS] sec. 3.7): resend the transmissions still in flight.
  void resend_lost(FlowState& f);
  void count_rob(FlowState& f, std::int32_t host, std::uint32_t before);
  // The receiver state of f: its own, or scratch_ once the transfer is released.
  FlowLive& receiver(FlowState& f);
  // Word w of the receiver's PSN bitmap (also once it is freed, when the entry is complete).
  std::uint64_t received_word(const FlowState& f, std::uint32_t w) const;
  void mark_acked(FlowState& f, std::uint32_t psn, Bytes& acked_bytes, std::uint32_t& newly);
  void arm_rto(FlowState& f, SimTime at);
  void on_rto(std::uint32_t id);
  void sender_finished(FlowState& f);

  net::Network& net_;
  TransportParams p_;
  PolicyFactory policies_;
  // Records. Eager: flows_[id], every entry. Streamed: a pool of slots (flows_ and their specs_,
  // free_ the unused slots; doubled when full) for the entries made and not yet released, and a
  // window indexed by id & mask_ over ids [lo_, hi_) (a power of two; doubled when full): slots_
  // (the record's slot, kNoSlot / kSpilledRow once released). The released entries' compact rows:
  // those of ids below lo_ + rows_.size() in rows_, indexed by id & (rows_.size() - 1) (doubled with
  // the window up to rows_cap_), the others at id x sizeof(FlowRow) in rows_file_ (an entry that
  // outlives many later ones does not make the memory grow with them; docs/scale-flows.md).
  std::vector<FlowState> flows_;
  std::vector<workload::FlowSpec> specs_;
  std::vector<std::uint32_t> free_;
  std::vector<std::uint32_t> slots_;
  std::vector<FlowRow> rows_;
  std::size_t rows_cap_ = 0;
  mutable RowSpill rows_file_;                // mutable: its read buffer fills as rows are reported
  std::map<std::uint32_t, FlowReport> wide_;  // rows that do not fit a FlowRow (32-bit counters), by id
  std::vector<std::string> lb_names_{""};     // FlowRow::lb
  std::vector<std::uint32_t> recheck_;        // ids to check for release (a drop may have been their last packet)
  std::uint32_t mask_ = 0xFFFFFFFFu;
  std::uint32_t lo_ = 0, hi_ = 0;
  std::size_t total_ = 0, records_ = 0, peak_records_ = 0, peak_window_ = 0, waiting_ = 0, peak_waiting_ = 0;
  std::uint64_t seq0_ = 0;  // streamed: the event sequence number of entry 0's start
  bool stream_ = false;
  EntryFeed feed_;
  RetireSink sink_;
  std::vector<std::vector<std::uint32_t>> dependents_, start_dependents_;
  PolicyKeep keep_;
  PolicyDone done_;
  // NIC scheduler, per host: the active flows (not parked, sender not done) in round-robin order,
  // one slot each (kNil = a flow that left; trailing ones are trimmed, the rest compacted when they
  // outnumber the flows), the slots of the flows that can send, and the round-robin position (the
  // next flow considered is the first ready one at or after it, wrapping).
  // A host with few active flows is scanned slot by slot (cheaper than keeping the bits, and the
  // same order); `ready` is kept from kReadyFrom flows on until they drop below kReadyFrom / 2.
  struct HostQueue {
    std::vector<std::uint32_t> slots;
    SlotBits ready;
    std::uint32_t active = 0;
    std::uint32_t cursor = 0;
    bool bits = false;  // `ready` is in use
  };
  static constexpr std::uint32_t kReadyFrom = 16;
  std::uint32_t next_slot(const HostQueue& q, std::uint32_t s) const {
    if (q.bits) return q.ready.next(s);
    while (s < q.slots.size() && q.slots[s] == net::kNil) ++s;
    return s < q.slots.size() ? s : SlotBits::kNone;
  }
  void use_bits(HostQueue& q);
  std::vector<HostQueue> hosts_;
  std::size_t live_ = 0, peak_live_ = 0;
  std::vector<std::uint32_t> class_paused_;  // per host: PFC class pauses in force
  std::uint32_t class_pauses_ = 0;           // in force over all hosts (0: skip the per-host check)
  std::size_t completed_ = 0;
  std::uint64_t delivered_ = 0;
  std::size_t timed_pending_ = 0;
  SimTime last_progress_ = 0;
  std::size_t senders_pending_ = 0;  // transfers whose sender has not had every packet acknowledged
  std::vector<std::pair<std::uint32_t, SimTime>> lost_buf_;
  FlowLive scratch_;                     // receiver state of a transfer already released (late duplicates, probes)
  std::vector<std::uint32_t> rob_host_;  // per host: packets held in its flows' reorder buffers
  std::vector<std::uint64_t> rob_hist_;
};

}  // namespace lbsim::transport
