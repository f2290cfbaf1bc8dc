// What stops a sender other than its window, and LAPS's probes:
//  - holds: a load balancer with lb::kCapHold (Flowcut NIC-only, [Flowcut] sec. II-D; MPRDMA's
//    reorder cap) parks its flow until a wake time or its next feedback (pull_data asks hold());
//  - pauses: a switch's XOFF / XON frame for one flow (FGFC, [Flowcut] sec. II-B) parks it; a PFC
//    frame pauses every data packet of the source NIC; either ends at XON or after the pause timeout
//    ([Flowcut] sec. IV-A);
//  - probes ([LAPS] sec. 3.4): header-only packets on a path the load balancer names, answered by the
//    receiver with a probe ACK that goes back to the load balancer.
// A parked flow is out of its host's active list (nic_scheduler.cpp), so the NIC never looks at it.
#include "transport/transport.h"

namespace lbsim::transport {

using net::Packet;
using net::PacketType;

// A hold or a pause takes the flow out of its host's active list; the time it stays out is FlowCounters::held.
void Transport::park(FlowState& f, std::uint8_t reason) {
  if (f.park == 0) {
    remove_active(f);
    f.live->parked_since = net_.now();
  }
  f.park |= reason;
}

void Transport::unpark(FlowState& f, std::uint8_t reason) {
  if (!(f.park & reason)) return;
  f.park &= static_cast<std::uint8_t>(~reason);
  if (f.park) return;
  f.n.held += net_.now() - f.live->parked_since;
  add_active(f);
  net_.kick_nic(f.spec->src);
}

// The wake time a hold named has come (kEvHoldWake; a hold released earlier by feedback left a
// stale timer).
void Transport::on_hold_wake(FlowState& f, SimTime time) {
  if (f.live && f.live->hold_wake == time && (f.park & kParkHold)) {
    f.live->hold_wake = kTimeNever;
    unpark(f, kParkHold);
  }
}

// A switch's pause frame for this flow: FGFC XOFF / XON for the flow alone ([Flowcut] sec. II-B), or
// a PFC pause of the source NIC's class (every data packet of the NIC; kFlagClassPause). A pause
// without XON ends after transport.pause_timeout_us (on_pause_timeout).
void Transport::on_pause(std::uint32_t pkt) {
  const Packet& q = net_.pkt(pkt);
  auto& f = at(q.flow);
  const bool resume = q.flags & net::kFlagResume;
  if (q.flags & net::kFlagClassPause) {
    // PFC: the drained flow's switch pauses every data packet of the source NIC.
    if (resume) {
      if (f.class_paused) end_class_pause(f);
    } else if (!f.class_paused && !f.sender_done && f.started) {
      ++f.n.pauses;
      f.class_paused = true;
      f.live->class_since = net_.now();
      ++class_paused_[f.spec->src];
      ++class_pauses_;
      f.live->pause_deadline = net_.now() + p_.pause_timeout;
      net_.events().push(f.live->pause_deadline, net::kEvPauseTimeout, f.id);
    }
    return;
  }
  // FGFC: this flow only.
  if (resume) {
    if (f.park & kParkPause) unpark(f, kParkPause);
    return;
  }
  if (f.sender_done || !f.started || (f.park & kParkPause)) return;
  ++f.n.pauses;
  park(f, kParkPause);
  f.live->pause_deadline = net_.now() + p_.pause_timeout;
  net_.events().push(f.live->pause_deadline, net::kEvPauseTimeout, f.id);
}

// [Flowcut] sec. IV-A: no XON came (e.g. an ACK was lost and the switch never drained the
// flow): the source resumes on its own; the switches keep routing it on its old path.
void Transport::on_pause_timeout(FlowState& f, SimTime time) {
  if (!f.live || f.live->pause_deadline != time) return;
  f.live->pause_deadline = kTimeNever;
  if (f.park & kParkPause) {
    ++f.n.pause_timeouts;
    unpark(f, kParkPause);
  }
  if (f.class_paused) {
    ++f.n.pause_timeouts;
    end_class_pause(f);
  }
}

void Transport::end_class_pause(FlowState& f) {
  f.class_paused = false;
  f.n.held += net_.now() - f.live->class_since;
  --class_pauses_;
  if (--class_paused_[f.spec->src] == 0) net_.kick_nic(f.spec->src);
}

void Transport::send_probe(FlowState& f, std::uint32_t ev) {
  const std::uint32_t pi = net_.packets().alloc();
  Packet& q = net_.pkt(pi);
  q.type = PacketType::Data;
  q.flags = net::kFlagProbe;
  q.flow = f.id;
  ++f.in_net;
  q.src = f.spec->src;
  q.dst = f.spec->dst;
  q.size = static_cast<std::uint32_t>(control_bytes(f, ev));
  q.sent_time = net_.now();
  q.ev = ev;
  net_.send_control(f.spec->src, pi);
}

void Transport::answer_probe(FlowState& f, FlowLive& R, const Packet& p) {
  const std::uint32_t ai = net_.packets().alloc_ack();
  Packet& a = net_.pkt(ai);
  a.type = PacketType::Ack;
  a.flags = net::kFlagProbe;
  a.flow = p.flow;
  a.ev = p.ev;
  a.src = p.dst;
  a.dst = p.src;
  a.size = static_cast<std::uint32_t>(control_bytes(f, a.ev));
  a.sent_time = p.sent_time;
  net_.packets().new_ack(ai).rx_time = net_.now();
  a.echo_hops = p.hops;
  a.cum_ack = R.rcv_cum;
  net_.send_control(p.dst, ai);
}

void Transport::on_probe_ack(FlowState& f, const Packet& a, const net::AckFields& ax) {
  if (!f.lb || !(f.caps & lb::kCapPaths)) return;
  lb::AckDetail d;
  d.now = net_.now();
  d.rtt = d.now - a.sent_time;
  d.ev = a.ev;
  d.hops = a.echo_hops;
  d.one_way = ax.rx_time - a.sent_time;
  d.sent = a.sent_time;
  d.probe = true;
  d.inflight = f.live ? f.live->inflight : 0;  // released: every byte was acknowledged
  f.lb->on_ack_detail(d);
}

}  // namespace lbsim::transport
