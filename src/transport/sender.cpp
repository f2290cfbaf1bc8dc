// The sender's protocol ([REPS] sec. 2.1 and 4.1: a window-based sender over a lossy Ethernet with ECN,
// trimming and timeouts; selective ACKs, receivers that accept packets out of order):
//  - send: the retransmit queue first, else the next new PSN, on the EV the load balancer names
//    ([REPS] Alg. 2), while the congestion window admits it (the NIC scheduler asks; nic_scheduler.cpp);
//  - ACK: mark the PSNs the SACK word and the cumulative ACK cover, tell the congestion control and
//    the load balancer ([REPS] Alg. 1 ONACK: lb::EntropyPolicy::on_feedback), for every EV a coalesced
//    ACK carries ([REPS] sec. 4.5.1);
//  - NACK (a trimmed packet, or a go-back-N receiver's expected PSN): resend at once;
//  - RTO: the send log walked in send order, packets not acknowledged in time declared lost
//    ([REPS] sec. 3.2's failure detection: Feedback::Timeout);
//  - the final ACK: the per-PSN state, congestion control and (unless kept) load balancer go.
#include "transport/transport.h"

#include <algorithm>
#include <bit>
#include <cstddef>

namespace lbsim::transport {

using net::Packet;
using net::PacketType;

namespace {

// psn's entry if its latest transmission, the one sent at `sent`, is still in flight; else null
// (acknowledged, declared lost, or superseded by a later transmission).
inline PsnEntry* in_flight_from(FlowLive& L, std::uint32_t psn, SimTime sent) {
  PsnEntry* e = L.sent.find(psn);
  return e && e->state() == PsnState::InFlight && e->sent() == sent ? e : nullptr;
}

// Appends a transmission to the RTO's send log (FlowLive::sendlog). A full log is first compacted:
// the entries the RTO walk (Transport::on_rto) would skip whenever it reached them are dropped, i.e.
// those of an acknowledged PSN (Acked is final) and those superseded by a later transmission of their
// PSN (its send time only moves forward); the others keep their order, so the walk acts on the same
// entries in the same order as on the full log. The log grows (doubles) only when the entries kept
// fill more than 3/4 of it, so its capacity stays below 8/3 x the most transmissions not yet
// acknowledged at once, and a compaction of n entries follows at least n / 4 appends since the
// previous one (amortised O(1) per transmission).
inline void log_send(FlowLive& L, std::uint32_t psn, SimTime now) {
  auto& log = L.sendlog;
  if (log.size() == log.capacity() && !log.empty()) {
    std::size_t kept = 0;
    for (std::size_t i = L.log_head; i < log.size(); ++i) {
      const auto [q, sent] = log[i];
      const PsnEntry* e = L.sent.find(q);
      if (!e || e->state() == PsnState::Acked || e->sent() != sent) continue;
      log[kept++] = log[i];
    }
    log.resize(kept);
    L.log_head = 0;
    if (kept * 4 > log.capacity() * 3) log.reserve(log.capacity() * 2);
  }
  log.emplace_back(psn, now);
}

}  // namespace

std::uint32_t Transport::next_psn(FlowState& f) {
  if (f.live->rtx_head < f.live->rtx.size()) {
    const std::uint32_t psn = f.live->rtx[f.live->rtx_head++];
    if (f.live->rtx_head == f.live->rtx.size()) {
      f.live->rtx.clear();
      f.live->rtx_head = 0;
    } else if (f.live->rtx_head >= 1024 && f.live->rtx_head * 2 >= f.live->rtx.size()) {
      // A flow that loses a packet per RTO and resends one never empties the queue: drop the
      // consumed prefix, or the queue grows with simulated time (a stuck flow, docs/reliability.md).
      f.live->rtx.erase(f.live->rtx.begin(), f.live->rtx.begin() + static_cast<std::ptrdiff_t>(f.live->rtx_head));
      f.live->rtx_head = 0;
    }
    return psn;
  }
  return f.live->next_new++;
}

lb::SendView Transport::send_view(const FlowState& f, std::uint32_t psn) const {
  lb::SendView v;
  v.inflight = f.live->inflight;
  v.psn = psn;
  v.snd_una = f.live->snd_cum;
  v.retransmit = f.live->state_of(psn) == PsnState::Lost;
  return v;
}

// Sends flow f's next packet, the retransmit queue's head or else the next new PSN (pull_data chose
// the flow and checked its window and pacing slot): the EV from the load balancer ([REPS] Alg. 2
// GETNEXTEV, lb::EntropyPolicy::next_ev), the PSN's entry (state, send time, EV), the bytes in
// flight, the send log and the RTO timer.
std::uint32_t Transport::send_data(FlowState& f, SimTime now) {
  auto& L = *f.live;
  const std::uint32_t psn = next_psn(f);
  const std::uint32_t pi = net_.packets().alloc();
  Packet& p = net_.pkt(pi);
  p.type = PacketType::Data;
  p.flow = f.id;
  ++f.in_net;
  p.psn = psn;
  p.src = f.spec->src;
  p.dst = f.spec->dst;
  const Bytes wire = packet_bytes(f, psn);
  p.size = static_cast<std::uint32_t>(wire);
  p.payload = p.size - static_cast<std::uint32_t>(p_.header);
  p.sent_time = now;
  p.ev = f.lb->next_ev(now);
  // [HPCC] sec. 3: the INT header the switches fill in (the HPCC artifact's fixed size).
  if (int_bytes_) [[unlikely]] {
    p.size += int_bytes_;
    net_.int_at(pi).n = 0;
  }
  if (f.caps & lb::kCapPaths) {
    // A policy's own header fields ride on the wire (not in the window: that counts packet_bytes).
    p.size += static_cast<std::uint32_t>(f.lb->extra_header(p.ev));
    f.lb->on_sent(psn, p.ev, now, p.size);
    std::uint32_t probe_ev = 0;
    while (f.lb->take_probe(probe_ev, now)) send_probe(f, probe_ev);
  }
  if (f.pinned) p.flags |= net::kFlagPinned;
  PsnEntry& e = L.sent.entry(psn);
  if (e.state() == PsnState::Lost) {
    p.flags |= net::kFlagRetransmit;
    ++f.n.retransmits;
  }
  ++f.n.packets_sent;
  e.set_sent(now, PsnState::InFlight);
  e.ev = p.ev;
  L.inflight += wire;
  if (rccc_) rccc_on_send(f, p, wire);
  // transport.ack_request (the authors' htsim sender, UecSrc::sendNewPacket / sendRtxPacket): ask
  // the receiver to ACK at once when the bytes in flight plus one more packet reach the window, for
  // the flow's last packet and for every retransmission.
  if (p_.ack_request && ((p.flags & net::kFlagRetransmit) || psn + 1 == f.npkts ||
                         static_cast<double>(L.inflight + wire) >= L.cc->cwnd()))
    p.flags |= net::kFlagAckRequest;
  log_send(L, psn, now);
  if (L.rto_armed == kTimeNever) arm_rto(f, now + p_.rto);
  // NIC pacing at the CC's rate: the next packet starts size x 8 / rate after this one.
  if (L.paced) L.next_tx = now + serialization_ps(p.size, L.cc->rate(now));
  refresh(f);
  return pi;
}

// The RTO timer: one pending event per flow, at the expiry of the oldest transmission in flight.
void Transport::arm_rto(FlowState& f, SimTime at) {
  f.live->rto_armed = at;
  net_.events().push(at, net::kEvRto, f.id);
}

// The RTO event (transport.rto_us, or derived from the network; [REPS] sec. 4.1 uses 70 us): the send
// log is walked in send order and a transmission still in flight an RTO after it was sent is declared
// lost (with trimming, a loss without a NACK means a failure: [REPS] App. A): retransmit queue, the
// congestion control's on_timeout, and Feedback::Timeout with its EV to the load balancer ([REPS]
// Alg. 1 ONFAILUREDETECTION). The timer is re-armed for the oldest transmission still in flight.
void Transport::on_rto(std::uint32_t id) {
  auto& f = at(id);
  f.live->rto_armed = kTimeNever;
  if (f.sender_done) return;
  const SimTime now = net_.now();
  bool lost_any = false;
  while (f.live->log_head < f.live->sendlog.size()) {
    const auto [psn, sent] = f.live->sendlog[f.live->log_head];
    PsnEntry* e = in_flight_from(*f.live, psn, sent);
    if (!e) {
      ++f.live->log_head;  // acknowledged, or superseded by a later transmission
      continue;
    }
    if (sent + p_.rto > now) {
      arm_rto(f, sent + p_.rto);
      break;
    }
    ++f.live->log_head;
    // Lost silently (e.g. a black-holed link): retransmit and tell CC and LB.
    e->set_state(PsnState::Lost);
    f.live->inflight -= packet_bytes(f, psn);
    f.live->rtx.push_back(psn);
    if (rccc_)
      f.live->rc_credit += static_cast<std::int32_t>(packet_bytes(f, psn));  // its credit back (rccc.h "timeouts")
    ++f.n.timeouts;
    f.live->cc->on_timeout(now, packet_bytes(f, psn), f.live->inflight);
    f.lb->on_feedback(e->ev, lb::Feedback::Timeout, now);
    lost_any = true;
  }
  // Everything walked: start the log over (a full log is compacted by log_send).
  if (f.live->log_head == f.live->sendlog.size()) {
    f.live->sendlog.clear();
    f.live->log_head = 0;
  }
  if (lost_any) {
    refresh(f);
    if (f.park & kParkHold) unpark(f, kParkHold);
    net_.kick_nic(f.spec->src);
  }
}

// psn is acknowledged (the first time only): out of the bytes in flight, Acked in the ring, counted.
void Transport::mark_acked(FlowState& f, std::uint32_t psn, Bytes& acked_bytes, std::uint32_t& newly) {
  auto& ring = f.live->sent;
  if (psn < ring.lo()) return;  // below the ring: acknowledged
  std::uint64_t& w = ring.word_ref(psn);
  const std::uint64_t bit = 1ULL << (psn & 63);
  if (w & bit) return;
  w |= bit;
  const Bytes b = packet_bytes(f, psn);
  PsnEntry& e = ring.entry(psn);
  if (e.state() == PsnState::InFlight) f.live->inflight -= b;
  e.set_state(PsnState::Acked);
  ++f.live->acked;
  ++newly;
  acked_bytes += b;
}

// An ACK: its selective part (the 64-PSN SACK word) and its cumulative part mark the newly
// acknowledged PSNs; the congestion control gets the acknowledged and the ECN-marked bytes, the load
// balancer the RTT sample, the details its capabilities ask for, and the feedback for the ACK's EV
// ([REPS] Alg. 1 ONACK) or for every EV a coalesced ACK carries ([REPS] sec. 4.5.1). The final ACK
// ends the sender; otherwise the flow may send again.
void Transport::on_ack(std::uint32_t pkt) {
  const Packet& a = net_.pkt(pkt);
  const net::AckFields& ax = net_.packets().ack(pkt);
  auto& f = at(a.flow);
  if (a.flags & net::kFlagProbe) {
    on_probe_ack(f, a, ax);
    return;
  }
  if (f.sender_done) return;
  const SimTime now = net_.now();
  if (hooks_) [[unlikely]] {
    if (rccc_) rccc_stop_speculating(*f.live);
    // [HPCC] Algorithm 1: the ACK's INT (echoed by the receiver), before the window reacts to the ACK.
    if (int_bytes_) f.live->cc->on_int(net_.int_at(pkt), a.sent_time, now);
  }
  Bytes acked_bytes = 0;
  std::uint32_t newly = 0;
  // Selective part: the 64-PSN word holding a.psn.
  const std::uint32_t base = a.psn & ~63u;
  std::uint64_t fresh = ax.sack & ~f.live->sent.word(base >> 6);
  while (fresh) {
    const int b = std::countr_zero(fresh);
    fresh &= fresh - 1;
    mark_acked(f, base + static_cast<std::uint32_t>(b), acked_bytes, newly);
  }
  // Cumulative part.
  while (f.live->snd_cum < a.cum_ack) mark_acked(f, f.live->snd_cum++, acked_bytes, newly);
  while (f.live->snd_cum < f.npkts && f.live->sent.test(f.live->snd_cum)) ++f.live->snd_cum;
  f.live->sent.advance(f.live->snd_cum);

  Bytes marked = 0;
  if (a.ecn()) {
    ++f.n.ecn_acks;
    // With coalescing, the share of the covered packets that were marked.
    marked = newly <= 1 ? acked_bytes : acked_bytes * std::min<Bytes>(a.ecn_count, newly) / newly;
  }
  f.live->cc->on_ack(acked_bytes, marked, now, now - a.sent_time, a.echo_hops);
  f.lb->on_rtt(now - a.sent_time, now);
  if (f.caps & lb::kCapAckDetail) {
    lb::AckDetail d;
    d.now = now;
    d.rtt = now - a.sent_time;
    d.ev = a.ev;
    d.psn = a.psn;
    d.hops = a.echo_hops;
    d.bytes = a.payload;
    d.tx_per_hop = net_.port(net_.nic_port(f.spec->src)).serialization(a.payload);
    d.inflight = f.live->inflight;
    d.ecn = a.ecn();
    d.sent = a.sent_time;
    d.one_way = a.carry_n ? 0 : ax.rx_time - a.sent_time;
    f.lb->on_ack_detail(d);
    if (f.caps & lb::kCapPaths) resend_lost(f);
  }
  if (a.carry_n) {  // ACK + Carry EVs: every non-ECN EV the coalesced ACK covers
    for (std::uint32_t k = 0; k < a.carry_n; ++k) f.lb->on_feedback(ax.carry_ev[k], lb::Feedback::Ack, now);
  } else {
    f.lb->on_feedback(a.ev, a.ecn() ? lb::Feedback::AckEcn : lb::Feedback::Ack, now);
  }
  if (f.live->acked == f.npkts) {
    sender_finished(f);
  } else {
    refresh(f);
    if (f.park & kParkHold) unpark(f, kParkHold);
    net_.kick_nic(f.spec->src);
  }
}

// A NACK: the receiver got a trimmed header (a congestion drop, [REPS] sec. 2.1) and the PSN is
// resent at once; or, with go-back-N recovery, the receiver names the PSN it expects (on_go_back_n).
void Transport::on_nack(std::uint32_t pkt) {
  const Packet& n = net_.pkt(pkt);
  auto& f = at(n.flow);
  if (f.sender_done) return;
  if (rccc_) rccc_stop_speculating(*f.live);
  const SimTime now = net_.now();
  ++f.n.nacks;
  // transport.last_hop_trim = "ack" (the authors' htsim UecSrc::processNack): a packet trimmed at the
  // queue into its destination host did not find its path congested; the load balancer hears the
  // (marked or unmarked) ACK of that path. The congestion control sees a NACK either way.
  const bool last_hop = p_.last_hop_trim_ack && !(n.flags & net::kFlagGoBackN) && n.trim_hops == n.echo_hops;
  f.lb->on_feedback(n.ev, !last_hop ? lb::Feedback::Nack : n.ecn() ? lb::Feedback::AckEcn : lb::Feedback::Ack, now);
  if (n.flags & net::kFlagGoBackN) {
    on_go_back_n(f, n);
  } else {
    const std::uint32_t psn = n.psn;
    // Only the NACK of the latest transmission triggers a retransmission (an older copy's NACK may
    // arrive after a timeout already resent it).
    if (PsnEntry* e = in_flight_from(*f.live, psn, n.sent_time)) {
      e->set_state(PsnState::Lost);
      f.live->inflight -= packet_bytes(f, psn);
      f.live->rtx.push_back(psn);
      f.live->cc->on_nack(now, packet_bytes(f, psn), f.live->inflight);
    }
  }
  if (f.sender_done) return;
  refresh(f);
  if (f.park & kParkHold) unpark(f, kParkHold);
  net_.kick_nic(f.spec->src);
}

// RoCE's go-back-N (transport.in_order_recovery = go_back_n): the receiver discarded an
// out-of-order packet and expects n.psn.
void Transport::on_go_back_n(FlowState& f, const Packet& n) {
  const SimTime now = net_.now();
  // The NACK is also a cumulative ACK: the receiver holds every PSN below the one it expects.
  Bytes acked_bytes = 0;
  std::uint32_t newly = 0;
  while (f.live->snd_cum < n.cum_ack) mark_acked(f, f.live->snd_cum++, acked_bytes, newly);
  while (f.live->snd_cum < f.npkts && f.live->sent.test(f.live->snd_cum)) ++f.live->snd_cum;
  f.live->sent.advance(f.live->snd_cum);
  if (acked_bytes) f.live->cc->on_ack(acked_bytes, 0, now);
  if (f.live->acked == f.npkts) {
    sender_finished(f);
    return;
  }
  const std::uint32_t expected = n.psn;
  // One rewind per gap: a NACK caused by a packet sent before the last rewind is already answered
  // by it (the rewind resent everything from a PSN at or below this one).
  if (expected >= f.npkts || f.live->state_of(expected) == PsnState::Acked || n.sent_time < f.live->last_rewind) return;
  f.live->last_rewind = now;
  ++f.n.rewinds;
  // Go back N: everything from the expected PSN on is sent again, in order.
  f.live->rtx.clear();
  f.live->rtx_head = 0;
  for (std::uint32_t psn = expected; psn < f.live->next_new; ++psn) {
    PsnEntry& e = f.live->sent.entry(psn);
    if (e.state() == PsnState::InFlight) {
      e.set_state(PsnState::Lost);
      f.live->inflight -= packet_bytes(f, psn);
    }
    if (e.state() == PsnState::Lost) f.live->rtx.push_back(psn);
  }
  f.live->cc->on_nack(now, packet_bytes(f, expected), f.live->inflight);
}

void Transport::resend_lost(FlowState& f) {
  lost_buf_.clear();
  f.lb->take_lost(lost_buf_);
  for (const auto& [psn, sent] : lost_buf_) {
    PsnEntry* e = psn < f.npkts ? in_flight_from(*f.live, psn, sent) : nullptr;
    if (!e) continue;
    e->set_state(PsnState::Lost);
    f.live->inflight -= packet_bytes(f, psn);
    f.live->rtx.push_back(psn);
  }
}

// The final ACK: every PSN is acknowledged. The sender's per-PSN state, its congestion control and
// (unless the run reads it later) its load balancer are freed.
void Transport::sender_finished(FlowState& f) {
  f.sender_done = true;
  f.sender_done_time = net_.now();
  --senders_pending_;
  // output.fct_at = "sender": the run goes on until the last sender has its final ACK.
  if (p_.wait_senders && senders_pending_ == 0 && all_done()) net_.stop();
  if (f.park) {
    f.n.held += net_.now() - f.live->parked_since;
    f.park = 0;
  } else {
    remove_active(f);
  }
  if (f.class_paused) end_class_pause(f);
  // Per-packet state is no longer needed (every sender path checks sender_done first); keep
  // counters and times only.
  std::vector<std::uint32_t>().swap(f.live->rtx);
  std::vector<std::pair<std::uint32_t, SimTime>>().swap(f.live->sendlog);
  f.live->sent.release();
  f.live->log_head = f.live->rtx_head = 0;
  f.live->cc.reset();
  // The load balancer goes too unless the run's summary reads it or it answers probes that may
  // still come back (lb::kCapPaths: on_probe_ack).
  // (A summary that folds policies one by one gets this one first: PolicyDone.)
  if (!(f.caps & lb::kCapPaths) && !(keep_ && keep_(*f.spec, f.id))) {
    if (done_ && f.lb) done_(*f.spec, f.id, f.lb->inner());
    f.lb.reset();
  }
  if (f.finished) release(f);
}

}  // namespace lbsim::transport
