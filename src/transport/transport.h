// Message transport: window-limited senders and out-of-order-tolerant receivers.
//
// Sender: a message of N bytes is cut into MTU packets (PSN 0..n-1). The NIC pulls packets while
// the bytes in flight fit in the congestion window; a NACK (the receiver saw a trimmed packet) puts
// the PSN at the head of the retransmit queue at once, and a retransmission timeout (RTO) does the
// same for packets that vanished silently. Every ACK/NACK/timeout is reported to the congestion
// control and, with the EV it concerns, to the flow's load balancer.
// Receiver: accepts packets in any order, keeps a bitmap of received PSNs, counts duplicates and
// out-of-order arrivals (PSN != lowest missing PSN), and ACKs every packet (or every n-th with ACK
// coalescing), echoing the EV, the ECN mark and the send timestamp. ACKs carry a cumulative ACK and
// the 64-PSN SACK word that holds the acknowledged PSN.
// Entries of the workload start when their start time has come and their dependencies are met
// (workload/flow_spec.h); computations take their duration and send nothing.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "lb/policy.h"
#include "net/network.h"
#include "transport/cc.h"
#include "workload/flow_spec.h"

namespace lbsim::transport {

struct TransportParams {
  Bytes mtu = 4096;        // payload bytes per full data packet
  Bytes header = 64;       // header bytes of every packet (data, ACK, NACK)
  CcParams cc;             // cc.mtu is set to header + mtu
  SimTime rto = us(70);
  std::uint32_t ack_every = 1;  // ACK coalescing: one ACK per n data packets (1 = per packet)
  SimTime ack_delay = us(1);    // with coalescing: flush a partial ACK after this long
  bool ack_carry_evs = false;   // coalesced ACKs carry the non-ECN EVs they cover ([REPS] 4.5.1)
};

struct FlowCounters {
  std::uint64_t packets_sent = 0;  // data packets put on the wire (incl. retransmissions)
  std::uint64_t retransmits = 0;
  std::uint64_t nacks = 0;         // NACKs received by the sender (its packets were trimmed)
  std::uint64_t timeouts = 0;      // packets declared lost by the RTO
  std::uint64_t ecn_acks = 0;      // ACKs that echoed an ECN mark
  std::uint64_t ooo = 0;           // receiver: arrivals with PSN != lowest missing PSN
  std::uint64_t duplicates = 0;    // receiver: arrivals of PSNs already held
  std::uint64_t trimmed_rx = 0;    // receiver: trimmed headers received
};

enum class PsnState : std::uint8_t { Unsent = 0, InFlight = 1, Acked = 2, Lost = 3 };

struct FlowState {
  const workload::FlowSpec* spec = nullptr;
  std::uint32_t id = 0;
  std::uint32_t npkts = 0;
  // lifecycle
  std::uint32_t pending_deps = 0, pending_start_deps = 0;
  SimTime ready_time = 0;  // latest dependency completion + delay / start dependency
  SimTime start_time = -1, finish_time = -1, sender_done_time = -1;
  bool started = false, finished = false, sender_done = false;
  bool pinned = false;  // lb = via_group:<g>: data packets carry net::kFlagPinned
  // sender
  std::unique_ptr<CongestionControl> cc;
  std::unique_ptr<lb::EntropyPolicy> lb;
  Bytes inflight = 0;
  std::uint32_t next_new = 0;     // next never-sent PSN
  std::uint32_t acked = 0;        // PSNs acknowledged
  std::uint32_t snd_cum = 0;      // every PSN below is acknowledged
  std::vector<PsnState> state;
  std::vector<std::uint64_t> sacked;  // sender's bitmap of acknowledged PSNs
  std::vector<SimTime> sent_at;   // time of the latest transmission of each PSN
  std::vector<std::uint32_t> ev_of;   // EV of the latest transmission of each PSN
  std::vector<std::uint32_t> rtx;     // retransmit queue (PSNs)
  std::size_t rtx_head = 0;
  std::vector<std::pair<std::uint32_t, SimTime>> sendlog;  // (psn, sent) in send order, for the RTO
  std::size_t log_head = 0;
  SimTime rto_armed = kTimeNever;  // time of the pending RTO event, if any
  // receiver
  std::vector<std::uint64_t> received;
  std::uint32_t rcv_count = 0;
  std::uint32_t rcv_cum = 0;  // lowest PSN not yet received
  std::uint32_t ack_pending = 0, ack_pending_ecn = 0;
  std::uint32_t ack_last_psn = 0, ack_last_ev = 0;
  SimTime ack_last_sent_time = 0;
  bool ack_flush_armed = false;
  std::uint8_t carry_n = 0;  // ack_carry_evs: non-ECN EVs received since the last ACK
  std::uint16_t carry_ev[net::kMaxCarriedEvs] = {};
  FlowCounters n;
};

using PolicyFactory =
    std::function<std::unique_ptr<lb::EntropyPolicy>(const workload::FlowSpec&, std::uint32_t id)>;

class Transport final : public net::HostHandler, public net::EventHandler {
 public:
  Transport(net::Network& net, const workload::Workload& wl, const TransportParams& params,
            PolicyFactory policies);

  // Schedule every entry whose dependencies are already met.
  void start();
  bool all_done() const { return completed_ == flows_.size(); }
  std::size_t completed() const { return completed_; }
  const std::vector<FlowState>& flows() const { return flows_; }
  const TransportParams& params() const { return p_; }
  Bytes packet_bytes(const FlowState& f, std::uint32_t psn) const;

  // net::HostHandler
  void on_packet(std::uint32_t pkt) override;
  std::uint32_t pull_data(std::int32_t host) override;
  // net::EventHandler (kEvEntryStart, kEvRto, kEvComputeDone, kEvAckFlush)
  void on_event(const Event& e) override;

 private:
  void begin(std::uint32_t id);
  void complete(std::uint32_t id);
  void make_ready(std::uint32_t id);
  bool can_send(const FlowState& f) const;
  std::uint32_t next_psn(FlowState& f);
  void on_data(std::uint32_t pkt);
  void on_ack(std::uint32_t pkt);
  void on_nack(std::uint32_t pkt);
  void send_ack(FlowState& f, std::int32_t from_host, std::int32_t to_host);
  void mark_acked(FlowState& f, std::uint32_t psn, Bytes& acked_bytes, std::uint32_t& newly);
  void arm_rto(FlowState& f, SimTime at);
  void on_rto(std::uint32_t id);
  void sender_finished(FlowState& f);

  net::Network& net_;
  const workload::Workload& wl_;
  TransportParams p_;
  PolicyFactory policies_;
  std::vector<FlowState> flows_;
  std::vector<std::vector<std::uint32_t>> dependents_, start_dependents_;
  std::vector<std::vector<std::uint32_t>> active_;  // per host: flows with data to send
  std::vector<std::uint32_t> cursor_;               // per host: round-robin position
  std::size_t completed_ = 0;
};

}  // namespace lbsim::transport
