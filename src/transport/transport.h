// Message transport: window-limited senders and out-of-order-tolerant receivers. This header is the
// layer's one entry point for the simulation and the tests: the class Transport, its parameters, and
// (included from here) the per-flow state (transport/flow_state.h), the NIC scheduler's structures
// (transport/nic_scheduler.h) and what the transport reports (transport/records.h).
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
//
// Transport's code, one concern per file:
//   transport.cpp      the entries' lifecycle (start when due and dependencies met, completion,
//                      release) and the dispatch of packets and events
//   sender.cpp         the sender: next PSN, the send of a data packet, RTO, ACK / NACK / go-back-N
//   receiver.cpp       the receiver: data arrival, in-order / out-of-order delivery, ACKs and NACKs
//   nic_scheduler.cpp  pull_data's round robin, the active lists and their ready bits (SlotBits)
//   pauses_probes.cpp  load-balancer holds, switch pauses (FGFC / PFC), LAPS probes
//   records.cpp        the records of streamed workloads (admit, release, rows, retire), reports, memory
//   prefetch.cpp       the prefetch stages of a send and an arrival
//   rccc.cpp           RCCC (transport.receiver_cc = "rccc"): credit requests, the receivers' pull
//                      pacers, CREDIT packets, and the keys (transport/rccc.h)
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lb/policy.h"
#include "net/network.h"
#include "transport/cc.h"
#include "transport/flow_state.h"
#include "transport/nic_scheduler.h"
#include "transport/rccc.h"
#include "transport/records.h"
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
  // The authors' Spritz transport (htsim uec.cpp UecSink / UecSrc; docs/spritz.md "Paper and code"):
  Bytes ack_bytes = 0;             // ACK once the data bytes since the last ACK reach this (0: ack_every)
  bool ack_on_ecn = false;         // an ECN-marked data packet is ACKed at once (the ACK names its EV)
  bool ack_request = false;        // AR: window-filling, last and resent packets are ACKed at once
  bool last_hop_trim_ack = false;  // the lb hears a NACK of a last-hop trim as the ACK of its path
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
  // Receiver-credit congestion control (transport.receiver_cc; transport/rccc.h).
  RcccParams rccc;
};

using PolicyFactory = std::function<std::unique_ptr<lb::EntropyPolicy>(const workload::FlowSpec&, std::uint32_t id)>;
// Whether entry id's load balancer must outlive its transfer (the run's summary or path usage reads
// it); empty = none does. Policies that answer probes (lb::kCapPaths) are always kept.
using PolicyKeep = std::function<bool(const workload::FlowSpec& spec, std::uint32_t id)>;
// Called with entry id's load balancer just before the transport frees it (its final ACK): the run
// folds what its summary needs from it (lb::SummaryFold). Empty = nothing to fold.
using PolicyDone =
    std::function<void(const workload::FlowSpec& spec, std::uint32_t id, const lb::EntropyPolicy& policy)>;

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
  std::uint64_t credits_sent() const { return credits_sent_; }  // RCCC: CREDIT packets sent
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
  // Wire bytes of flow f's data packet psn: the header and its share of the message, at most an MTU.
  Bytes packet_bytes(const FlowState& f, std::uint32_t psn) const {
    const Bytes off = static_cast<Bytes>(psn) * p_.mtu;
    return p_.header + std::min<Bytes>(p_.mtu, f.spec->bytes - off);
  }
  // Size of an ACK, NACK or probe of flow f answering / probing path ev: the header, plus the
  // policy's own header fields (EntropyPolicy::extra_header).
  Bytes control_bytes(const FlowState& f, std::uint32_t ev) const {
    return p_.header + (f.lb && (f.caps & lb::kCapPaths) ? f.lb->extra_header(ev) : 0);
  }
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
  // kEvPaceWake, kEvCreditPace)
  void on_event(const Event& e) override;

 private:
  Transport(net::Network& net, const TransportParams& params, PolicyFactory policies, PolicyKeep keep, PolicyDone done);

  // --- records.cpp: where each entry's record is, and the records of streamed workloads
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

  // --- transport.cpp: the entries' lifecycle
  void begin(std::uint32_t id);
  void complete(std::uint32_t id);
  void make_ready(std::uint32_t id);
  void release(FlowState& f);

  // --- sender.cpp
  // Whether the sender has a packet to send (the retransmit queue first, else the next new PSN),
  // which (psn), and whether the congestion window admits it (a flow with nothing in flight may
  // always send one). Inline: the NIC scheduler asks them for every packet.
  bool has_packet(const FlowState& f, std::uint32_t& psn) const {
    if (f.sender_done) return false;
    if (f.live->rtx_head < f.live->rtx.size())
      psn = f.live->rtx[f.live->rtx_head];
    else if (f.live->next_new < f.npkts)
      psn = f.live->next_new;
    else
      return false;
    return true;
  }
  bool window_allows(const FlowState& f, std::uint32_t psn) const {
    if (rccc_ && f.live->rc_credit <= 0) return false;  // RCCC: credit first (rccc.cpp)
    return f.live->inflight == 0 || static_cast<double>(f.live->inflight + packet_bytes(f, psn)) <= f.live->cc->cwnd();
  }
  std::uint32_t next_psn(FlowState& f);
  // Sends f's next packet (pull_data chose the flow and checked its window and pacing slot).
  std::uint32_t send_data(FlowState& f, SimTime now);
  lb::SendView send_view(const FlowState& f, std::uint32_t psn) const;
  void on_ack(std::uint32_t pkt);
  void on_nack(std::uint32_t pkt);
  void on_go_back_n(FlowState& f, const net::Packet& n);
  void mark_acked(FlowState& f, std::uint32_t psn, Bytes& acked_bytes, std::uint32_t& newly);
  void arm_rto(FlowState& f, SimTime at);
  void on_rto(std::uint32_t id);
  // A policy's per-path loss verdicts ([LAPS] sec. 3.7): resend the transmissions still in flight.
  void resend_lost(FlowState& f);
  void sender_finished(FlowState& f);

  // --- receiver.cpp
  void on_data(std::uint32_t pkt);
  void send_ack(FlowState& f, FlowLive& R, std::int32_t from_host, std::int32_t to_host);
  void send_nack(FlowState& f, FlowLive& R, const net::Packet& p, std::uint32_t psn, bool go_back_n);
  void count_rob(FlowState& f, std::int32_t host, std::uint32_t before);
  // The receiver state of f: its own, or scratch_ once the transfer is released.
  FlowLive& receiver(FlowState& f);
  // Word w of the receiver's PSN bitmap (also once it is freed, when the entry is complete).
  std::uint64_t received_word(const FlowState& f, std::uint32_t w) const;

  // --- nic_scheduler.cpp: the host's active flows (HostQueue)
  void add_active(FlowState& f);
  void remove_active(FlowState& f);
  // Re-evaluates whether the flow may be picked by pull_data (after anything that changes its
  // packets, window or bytes in flight). The test for a flow in the active list inline (the sender
  // calls it for every packet and ACK), the rest in refresh_slot.
  void refresh(FlowState& f) {
    if (f.live && f.live->slot != SlotBits::kNone) refresh_slot(f);
  }
  void refresh_slot(FlowState& f);
  bool sendable(FlowState& f) const;
  void compact(std::int32_t host);
  void use_bits(HostQueue& q);

  // --- rccc.cpp (transport.receiver_cc = "rccc")
  // The sender spends credit for the packet it sends (wire bytes) and writes its request into it.
  void rccc_on_send(FlowState& f, net::Packet& p, Bytes wire);
  // A data packet (or a trimmed header) at the receiver: its request, a trim's re-grant, the pull queue.
  void rccc_on_arrival(FlowState& f, FlowLive& R, const net::Packet& p);
  // kEvCreditPace: the host's pull pacer grants the next flow in its queue.
  void rccc_pace(std::int32_t host);
  void rccc_arm(std::int32_t host);
  // A CREDIT packet at the sender.
  void on_credit(std::uint32_t pkt);
  // The sender's first feedback ends its speculation: unspent initial credit is dropped.
  static void rccc_stop_speculating(FlowLive& L) {
    if (!L.rc_speculating) return;
    L.rc_speculating = false;
    if (L.rc_credit > 0) L.rc_credit = 0;
  }

  // --- pauses_probes.cpp
  // Parking: take the flow out of / put it back into its host's active list.
  void park(FlowState& f, std::uint8_t reason);
  void unpark(FlowState& f, std::uint8_t reason);
  void on_hold_wake(FlowState& f, SimTime time);
  void on_pause(std::uint32_t pkt);
  void on_pause_timeout(FlowState& f, SimTime time);
  void end_class_pause(FlowState& f);
  // [LAPS] sec. 3.4: a header-only probe on the path `ev` names, and the receiver's answer.
  void send_probe(FlowState& f, std::uint32_t ev);
  void answer_probe(FlowState& f, FlowLive& R, const net::Packet& p);
  void on_probe_ack(FlowState& f, const net::Packet& a, const net::AckFields& ax);

  net::Network& net_;
  TransportParams p_;
  PolicyFactory policies_;
  std::uint32_t ack_every_ = 1;  // the receiver's packet count per ACK (never with ack_bytes)
  bool ack_rules_ = false;       // ack_bytes, ack_on_ecn or ack_request is on
  // INT (CcParams::uses_int, HPCC): the INT header's wire bytes (0 = no INT), and the records of the
  // last data packet of each flow whose ACK is still pending (coalesced ACKs echo the last one's).
  std::uint32_t int_bytes_ = 0;
  bool hooks_ = false;  // rccc_ or INT: on_data / on_ack test this one flag
  std::unordered_map<std::uint32_t, net::IntStack> int_rx_;
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
  // NIC scheduler: one HostQueue per host (transport/nic_scheduler.h).
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
  // RCCC (rccc.cpp): on, and per host its pull pacer (empty when off).
  bool rccc_ = false;
  std::vector<PullPacer> pacers_;
  std::unordered_map<std::uint32_t, RcccFlow> rccc_flows_;  // by entry id, while the transfer is live
  std::uint64_t credits_sent_ = 0;                          // CREDIT packets the pacers sent
};

}  // namespace lbsim::transport
