// The receiver's protocol: a data packet's arrival at its destination host (Transport::on_data).
// A trimmed packet is answered with a NACK at once; otherwise its PSN is marked in the bitmap,
// duplicates and out-of-order arrivals ([Flowcut] sec. III-C2) counted, in_order delivery's reorder
// buffer tracked or its go-back-N NACK sent, and the packet acknowledged (every packet, or every
// ack_every-th with a flush timer, or by the authors' Spritz rules: per ack_bytes, at once on an ECN
// mark or AR flag; an ACK echoes the EV, ECN mark, send time and hop count and, with "ACK + Carry
// EVs", the EVs it covers: [REPS] sec. 4.5.1). The last missing PSN completes the entry.
#include "transport/transport.h"

#include <algorithm>

namespace lbsim::transport {

using net::Packet;
using net::PacketType;

// A data packet (or a LAPS probe) at its destination host.
void Transport::on_data(std::uint32_t pkt) {
  Packet& p = net_.pkt(pkt);
  auto& f = at(p.flow);
  --f.in_net;
  FlowLive& R = receiver(f);
  if (p.flags & net::kFlagProbe) {
    if (!p.trimmed()) answer_probe(f, R, p);  // a trimmed probe is lost: the path stays excluded
    return;
  }
  if (hooks_) [[unlikely]] {
    if (rccc_) rccc_on_arrival(f, R, p);
    // [HPCC] sec. 3: the records of the last packet received (not a trimmed one) go into the ACK.
    if (int_bytes_ && !p.trimmed()) int_rx_[f.id] = net_.int_at(pkt);
  }
  if (p.trimmed()) {
    // The payload was cut in the network: ask for a retransmission right away.
    ++f.n.trimmed_rx;
    send_nack(f, R, p, p.psn, false);
    return;
  }
  // Did the network reorder this packet: was a packet sent after it received before it?
  if (p.sent_time < f.rcv_latest_sent)
    ++f.n.overtaken;
  else
    f.rcv_latest_sent = p.sent_time;
  const std::uint32_t psn = p.psn;
  bool newly_complete = false;
  if (f.finished || R.received.test(psn)) {  // a finished receiver has freed its bitmap: all held
    ++f.n.duplicates;
  } else {
    if (psn != R.rcv_cum) {
      // Out of order ([Flowcut] sec. III-C2: the expected PSN does not match the received one).
      ++f.n.ooo;
      f.n.max_reorder = std::max(f.n.max_reorder, psn - R.rcv_cum);
      if (p_.delivery == Delivery::InOrder && p_.recovery == Recovery::GoBackN) {
        // RoCE go-back-N: discard it and tell the sender where to resume.
        send_nack(f, R, p, R.rcv_cum, true);
        return;
      }
    }
    const std::uint32_t rob_before = f.rcv_count - R.rcv_cum;
    R.received.set(psn);
    ++f.rcv_count;
    ++delivered_;
    last_progress_ = net_.now();
    while (R.rcv_cum < f.npkts && R.received.test(R.rcv_cum)) ++R.rcv_cum;
    R.received.advance(R.rcv_cum);
    if (p_.delivery == Delivery::InOrder) {  // packets above the first gap wait in the reorder buffer
      f.n.rob_max = std::max(f.n.rob_max, f.rcv_count - R.rcv_cum);
      count_rob(f, p.dst, rob_before);
    }
    newly_complete = f.rcv_count == f.npkts;
  }
  R.ack_last_psn = psn;
  R.ack_last_ev = p.ev;
  R.ack_last_sent_time = p.sent_time;
  R.ack_last_rx = net_.now();
  R.ack_last_hops = p.hops;
  R.ack_pending_bytes += p.size;
  ++R.ack_pending;
  if (p.ecn())
    ++R.ack_pending_ecn;
  else if (p_.ack_carry_evs && R.carry_n < net::kMaxCarriedEvs)
    R.carry_ev[R.carry_n++] = static_cast<std::uint16_t>(p.ev);
  // Coalescing by packets (ack_every) or by bytes (ack_bytes: htsim's UecSink ACKs once 16 KiB arrived);
  // with ack_on_ecn a marked packet, with ack_request a packet asking for it and the flow's first one
  // are ACKed at once (htsim UecSink::processData), the ACK naming that packet's EV.
  // (ack_every_ is ack_every, or never with ack_bytes; the other rules only when one of them is on.)
  bool due = R.ack_pending >= ack_every_ || newly_complete || f.finished;
  if (!due && ack_rules_)
    due = (p_.ack_bytes > 0 && R.ack_pending_bytes >= p_.ack_bytes) || (p_.ack_on_ecn && p.ecn()) ||
          (p_.ack_request && (f.rcv_count == 1 || (p.flags & net::kFlagAckRequest)));
  if (due) {
    send_ack(f, R, p.dst, p.src);
  } else if (!R.ack_flush_armed) {
    R.ack_flush_armed = true;
    net_.events().push(net_.now() + p_.ack_delay, net::kEvAckFlush, f.id);
  }
  if (newly_complete) {
    R.received.release();  // every PSN is held: received_word() answers
    complete(f.id);
  }
}

// in_order + buffer: the packets the host holds above the first gap of its flows, after this
// arrival, into the histogram ([LAPS] Fig. 9).
void Transport::count_rob(FlowState& f, std::int32_t host, std::uint32_t before) {
  if (rob_host_.empty()) {
    rob_host_.assign(static_cast<std::size_t>(net_.topology().num_hosts), 0);
    rob_hist_.assign(1025, 0);
  }
  auto& h = rob_host_[static_cast<std::size_t>(host)];
  h = h - before + (f.rcv_count - f.live->rcv_cum);
  ++rob_hist_[std::min<std::size_t>(h, rob_hist_.size() - 1)];
}

FlowLive& Transport::receiver(FlowState& f) {
  if (f.live) return *f.live;
  // Released: every PSN is held and no ACK is pending (a finished receiver ACKs every arrival).
  scratch_ = FlowLive{};
  scratch_.rcv_cum = f.npkts;
  return scratch_;
}

std::uint64_t Transport::received_word(const FlowState& f, std::uint32_t w) const {
  if (f.live && !f.finished) return f.live->received.word(w);
  // Freed on completion: the PSNs of word w below npkts are all held.
  const std::uint32_t in_word = f.npkts - std::min(f.npkts, w * 64);
  return in_word >= 64 ? ~0ULL : (1ULL << in_word) - 1;
}

// The ACK for the data packets received since the last one (R's pending state): the last packet's
// PSN, EV, send time, arrival time and hops, the cumulative ACK and the SACK word holding the PSN,
// the ECN marks counted, and the carried EVs ([REPS] sec. 4.5.1). Through the NIC's control queue.
void Transport::send_ack(FlowState& f, FlowLive& R, std::int32_t from_host, std::int32_t to_host) {
  const std::uint32_t ai = net_.packets().alloc_ack();
  Packet& a = net_.pkt(ai);
  a.type = PacketType::Ack;
  a.flow = f.id;
  a.psn = R.ack_last_psn;
  a.cum_ack = R.rcv_cum;
  net::AckFields& ax = net_.packets().new_ack(ai);
  ax.sack = received_word(f, R.ack_last_psn >> 6);
  a.ev = R.ack_last_ev;
  a.src = from_host;
  a.dst = to_host;
  a.size = static_cast<std::uint32_t>(control_bytes(f, a.ev));
  a.sent_time = R.ack_last_sent_time;
  a.payload = R.ack_pending_bytes;
  a.echo_hops = R.ack_last_hops;
  if (int_bytes_) [[unlikely]] {  // [HPCC] sec. 3: the ACK echoes the data packet's INT
    a.size += int_bytes_;
    auto it = int_rx_.find(f.id);
    if (it != int_rx_.end()) {
      net_.int_at(ai) = it->second;
      int_rx_.erase(it);
    } else {
      net_.int_at(ai).n = 0;
    }
  }
  if (f.pinned && p_.pin_acks) a.flags |= net::kFlagPinned;
  a.ecn_count = static_cast<std::uint16_t>(std::min<std::uint32_t>(R.ack_pending_ecn, 0xFFFF));
  if (R.ack_pending_ecn) a.flags |= net::kFlagEcn;
  if (R.carry_n) {
    a.carry_n = R.carry_n;
    std::copy(R.carry_ev, R.carry_ev + R.carry_n, ax.carry_ev);
    R.carry_n = 0;
  } else {
    ax.rx_time = R.ack_last_rx;
  }
  R.ack_pending = 0;
  R.ack_pending_ecn = 0;
  R.ack_pending_bytes = 0;
  net_.send_control(from_host, ai);
}

// A NACK for data packet p: psn is the trimmed packet's (go_back_n false) or the PSN the receiver
// expects (go_back_n true, in_order delivery with go-back-N recovery).
void Transport::send_nack(FlowState& f, FlowLive& R, const Packet& p, std::uint32_t psn, bool go_back_n) {
  const std::uint32_t ni = net_.packets().alloc();
  Packet& n = net_.pkt(ni);
  n.type = PacketType::Nack;
  n.flow = p.flow;
  n.psn = psn;
  n.ev = p.ev;
  n.src = p.dst;
  n.dst = p.src;
  n.size = static_cast<std::uint32_t>(control_bytes(f, n.ev));
  n.sent_time = p.sent_time;
  n.cum_ack = R.rcv_cum;
  n.payload = static_cast<std::uint32_t>(packet_bytes(f, p.psn));  // the data packet it answers
  n.echo_hops = p.hops;
  n.trim_hops = p.trim_hops;
  if (p.ecn()) n.flags |= net::kFlagEcn;
  if (go_back_n) n.flags |= net::kFlagGoBackN;
  if (f.pinned && p_.pin_acks) n.flags |= net::kFlagPinned;
  net_.send_control(p.dst, ni);
}

}  // namespace lbsim::transport
