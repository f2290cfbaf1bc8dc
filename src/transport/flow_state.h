// Per-flow state of the transport, as laid out in memory (docs/architecture.md "Per-flow state"):
// FlowState, one record per workload entry (its counters, times and dependencies: what flows.csv
// and summary.json report), and FlowLive, the working state of a transfer in progress (the sender's
// window, per-PSN ring, retransmit queue and send log; the receiver's PSN bitmap and ACK state).
// Both are cache-line aligned with the fields a packet's send and arrival touch first; the
// static_asserts keep that layout. The code that reads and writes them is Transport's
// (transport/transport.h).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "core/time.h"
#include "lb/policy.h"
#include "net/packet.h"
#include "transport/cc.h"
#include "transport/psn_ring.h"
#include "workload/flow_spec.h"

namespace lbsim::transport {

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
  // RCCC (transport.receiver_cc = "rccc"; transport/rccc.h), in the line's spare bytes: the sender's
  // spendable credit in wire bytes (<= 0: may not send) and whether it is still on its initial credit.
  // The rest of a flow's RCCC state is Transport's (rccc_flows_), made only when RCCC is on.
  bool rc_speculating = true;
  std::int32_t rc_credit = 0;
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
static_assert(sizeof(FlowLive) == 320, "FlowLive: five cache lines (RCCC's credit fits in the sender's spare bytes)");

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

}  // namespace lbsim::transport
