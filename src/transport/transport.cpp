#include "transport/transport.h"

#include <algorithm>
#include <bit>

#include "core/error.h"

namespace lbsim::transport {

using net::kNil;
using net::Packet;
using net::PacketType;

Transport::Transport(net::Network& net, const workload::Workload& wl, const TransportParams& params,
                     PolicyFactory policies)
    : net_(net), wl_(wl), p_(params), policies_(std::move(policies)) {
  for (const auto k : {net::kEvEntryStart, net::kEvRto, net::kEvComputeDone, net::kEvAckFlush, net::kEvHoldWake,
                       net::kEvPauseTimeout, net::kEvPaceWake})
    net_.on(k, this);
  p_.cc.mtu = p_.header + p_.mtu;
  const auto n = wl.flows.size();
  flows_.resize(n);
  dependents_.resize(n);
  start_dependents_.resize(n);
  const auto hosts = static_cast<std::size_t>(net.topology().num_hosts);
  active_.resize(hosts);
  cursor_.assign(hosts, 0);
  class_paused_.assign(hosts, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& s = wl.flows[i];
    auto& f = flows_[i];
    f.spec = &s;
    f.id = static_cast<std::uint32_t>(i);
    f.pinned = lb::is_pinned(s.lb);
    const auto check_host = [&](std::int32_t h, const char* what) {
      if (h < 0 || static_cast<std::size_t>(h) >= hosts)
        throw UserError("workload entry " + std::to_string(i) + ": " + what + " host " +
                        std::to_string(h) + " does not exist (the topology has " +
                        std::to_string(hosts) + " hosts)");
    };
    check_host(s.src, "source");
    if (!s.is_compute()) {
      ++senders_pending_;
      check_host(s.dst, "destination");
      if (s.src == s.dst)
        throw UserError("workload entry " + std::to_string(i) + ": source and destination are "
                        "the same host " + std::to_string(s.src));
      if (s.bytes < 0) throw UserError("workload entry " + std::to_string(i) + ": negative size");
      f.npkts = static_cast<std::uint32_t>((s.bytes + p_.mtu - 1) / p_.mtu);
    }
    for (auto d : s.deps) {
      if (d >= n) throw UserError("workload entry " + std::to_string(i) + " depends on missing entry " + std::to_string(d));
      dependents_[d].push_back(static_cast<std::uint32_t>(i));
    }
    for (auto d : s.start_deps) {
      if (d >= n) throw UserError("workload entry " + std::to_string(i) + " depends on missing entry " + std::to_string(d));
      start_dependents_[d].push_back(static_cast<std::uint32_t>(i));
    }
    f.pending_deps = static_cast<std::uint32_t>(s.deps.size());
    f.pending_start_deps = static_cast<std::uint32_t>(s.start_deps.size());
  }
}

Bytes Transport::packet_bytes(const FlowState& f, std::uint32_t psn) const {
  const Bytes off = static_cast<Bytes>(psn) * p_.mtu;
  return p_.header + std::min<Bytes>(p_.mtu, f.spec->bytes - off);
}

void Transport::start() {
  for (auto& f : flows_)
    if (f.pending_deps == 0 && f.pending_start_deps == 0) {
      net_.events().push(std::max(f.spec->start, net_.now()), net::kEvEntryStart, f.id);
      ++timed_pending_;
    }
}

void Transport::make_ready(std::uint32_t id) {
  auto& f = flows_[id];
  if (f.pending_deps || f.pending_start_deps) return;
  net_.events().push(std::max({f.spec->start, f.ready_time, net_.now()}), net::kEvEntryStart, id);
  ++timed_pending_;
}

void Transport::begin(std::uint32_t id) {
  auto& f = flows_[id];
  if (f.started) return;
  f.started = true;
  f.start_time = net_.now();
  for (auto d : start_dependents_[id]) {
    auto& g = flows_[d];
    g.ready_time = std::max(g.ready_time, net_.now());
    --g.pending_start_deps;
    make_ready(d);
  }
  const auto& s = *f.spec;
  if (s.is_compute()) {
    net_.events().push(net_.now() + s.compute, net::kEvComputeDone, id);
    ++timed_pending_;
    return;
  }
  if (f.npkts == 0) {  // an empty message is delivered the moment it starts
    f.sender_done = true;
    f.sender_done_time = net_.now();
    --senders_pending_;
    complete(id);
    return;
  }
  f.cc = make_cc(p_.cc);
  f.cc->set_line_rate(net_.port(net_.nic_port(s.src)).rate);
  f.paced = f.cc->paced();
  f.lb = policies_(s, id);
  f.caps = f.lb->caps();
  f.state.assign(f.npkts, PsnState::Unsent);
  const std::size_t words = (f.npkts + 63) / 64;
  f.sacked.assign(words, 0);
  f.received.assign(words, 0);
  f.sent_at.assign(f.npkts, 0);
  f.ev_of.assign(f.npkts, 0);
  active_[s.src].push_back(id);
  net_.kick_nic(s.src);
}

void Transport::complete(std::uint32_t id) {
  auto& f = flows_[id];
  if (f.finished) return;
  f.finished = true;
  f.finish_time = net_.now();
  ++completed_;
  for (auto d : dependents_[id]) {
    auto& g = flows_[d];
    g.ready_time = std::max(g.ready_time, net_.now() + g.spec->delay);
    --g.pending_deps;
    make_ready(d);
  }
  if (all_done() && (!p_.wait_senders || senders_pending_ == 0)) net_.stop();
}

bool Transport::has_packet(const FlowState& f, std::uint32_t& psn) const {
  if (f.sender_done) return false;
  if (f.rtx_head < f.rtx.size())
    psn = f.rtx[f.rtx_head];
  else if (f.next_new < f.npkts)
    psn = f.next_new;
  else
    return false;
  return true;
}

bool Transport::window_allows(const FlowState& f, std::uint32_t psn) const {
  return f.inflight == 0 || static_cast<double>(f.inflight + packet_bytes(f, psn)) <= f.cc->cwnd();
}

lb::SendView Transport::send_view(const FlowState& f, std::uint32_t psn) const {
  lb::SendView v;
  v.inflight = f.inflight;
  v.psn = psn;
  v.snd_una = f.snd_cum;
  v.retransmit = f.state[psn] == PsnState::Lost;
  return v;
}

std::uint32_t Transport::next_psn(FlowState& f) {
  if (f.rtx_head < f.rtx.size()) {
    const std::uint32_t psn = f.rtx[f.rtx_head++];
    if (f.rtx_head == f.rtx.size()) {
      f.rtx.clear();
      f.rtx_head = 0;
    } else if (f.rtx_head >= 1024 && f.rtx_head * 2 >= f.rtx.size()) {
      // A flow that loses a packet per RTO and resends one never empties the queue: drop the
      // consumed prefix, or the queue grows with simulated time (a stuck flow, docs/reliability.md).
      f.rtx.erase(f.rtx.begin(), f.rtx.begin() + static_cast<std::ptrdiff_t>(f.rtx_head));
      f.rtx_head = 0;
    }
    return psn;
  }
  return f.next_new++;
}

std::uint32_t Transport::pull_data(std::int32_t host) {
  // A PFC class pause stops every data packet of the NIC (the ACKs it sends are another class).
  if (class_pauses_ && class_paused_[host]) return kNil;
  auto& list = active_[host];
  const SimTime now = net_.now();
restart:
  const std::size_t n = list.size();
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t idx = (cursor_[host] + k) % n;
    auto& f = flows_[list[idx]];
    // Drop stale retransmit entries (acknowledged after being declared lost).
    while (f.rtx_head < f.rtx.size() && f.state[f.rtx[f.rtx_head]] != PsnState::Lost) ++f.rtx_head;
    if (f.rtx_head == f.rtx.size() && f.rtx_head) {
      f.rtx.clear();
      f.rtx_head = 0;
    }
    std::uint32_t next = 0;
    if (!has_packet(f, next)) continue;
    if (f.caps & lb::kCapHold) {
      // The load balancer may hold the flow (e.g. a Flowcut drain): park it until its wake time or
      // its next feedback, and look at the other flows.
      const SimTime until = f.lb->hold(now, send_view(f, next));
      // kTimeNever (until the next feedback) or a future time holds; kSendNow or a past time sends.
      if (until == kTimeNever || until > now) {
        cursor_[host] = static_cast<std::uint32_t>(idx);
        park(f, kParkHold);
        if (until != kTimeNever) {
          f.hold_wake = until;
          net_.events().push(until, net::kEvHoldWake, f.id);
        }
        if (list.empty()) return kNil;
        if (cursor_[host] >= list.size()) cursor_[host] = 0;
        goto restart;
      }
    }
    if (!window_allows(f, next)) continue;
    if (f.next_tx > now) {
      // Paced (rate-based CC): not before its slot; the NIC looks again then.
      if (f.pace_wake != f.next_tx) {
        f.pace_wake = f.next_tx;
        net_.events().push(f.next_tx, net::kEvPaceWake, f.id);
      }
      continue;
    }
    cursor_[host] = static_cast<std::uint32_t>((idx + 1) % n);
    const std::uint32_t psn = next_psn(f);
    const std::uint32_t pi = net_.packets().alloc();
    Packet& p = net_.pkt(pi);
    p.type = PacketType::Data;
    p.flow = f.id;
    p.psn = psn;
    p.src = f.spec->src;
    p.dst = f.spec->dst;
    p.size = static_cast<std::uint32_t>(packet_bytes(f, psn));
    p.payload = p.size - static_cast<std::uint32_t>(p_.header);
    p.sent_time = now;
    p.ev = f.lb->next_ev(now);
    if (f.caps & lb::kCapPaths) {
      f.lb->on_sent(psn, p.ev, now, p.size);
      std::uint32_t probe_ev = 0;
      while (f.lb->take_probe(probe_ev, now)) send_probe(f, probe_ev);
    }
    if (f.pinned) p.flags |= net::kFlagPinned;
    if (f.state[psn] == PsnState::Lost) {
      p.flags |= net::kFlagRetransmit;
      ++f.n.retransmits;
    }
    ++f.n.packets_sent;
    f.state[psn] = PsnState::InFlight;
    f.sent_at[psn] = now;
    f.ev_of[psn] = p.ev;
    f.inflight += p.size;
    f.sendlog.emplace_back(psn, now);
    if (f.rto_armed == kTimeNever) arm_rto(f, now + p_.rto);
    // NIC pacing at the CC's rate: the next packet starts size x 8 / rate after this one.
    if (f.paced) f.next_tx = now + serialization_ps(p.size, f.cc->rate(now));
    return pi;
  }
  return kNil;
}

void Transport::arm_rto(FlowState& f, SimTime at) {
  f.rto_armed = at;
  net_.events().push(at, net::kEvRto, f.id);
}

void Transport::on_rto(std::uint32_t id) {
  auto& f = flows_[id];
  f.rto_armed = kTimeNever;
  if (f.sender_done) return;
  const SimTime now = net_.now();
  bool lost_any = false;
  while (f.log_head < f.sendlog.size()) {
    const auto [psn, sent] = f.sendlog[f.log_head];
    if (f.state[psn] != PsnState::InFlight || f.sent_at[psn] != sent) {
      ++f.log_head;  // acknowledged, or superseded by a later transmission
      continue;
    }
    if (sent + p_.rto > now) {
      arm_rto(f, sent + p_.rto);
      break;
    }
    ++f.log_head;
    // Lost silently (e.g. a black-holed link): retransmit and tell CC and LB.
    f.state[psn] = PsnState::Lost;
    f.inflight -= packet_bytes(f, psn);
    f.rtx.push_back(psn);
    ++f.n.timeouts;
    f.cc->on_timeout(now, packet_bytes(f, psn), f.inflight);
    f.lb->on_feedback(f.ev_of[psn], lb::Feedback::Timeout, now);
    lost_any = true;
  }
  // Compact the log once its consumed prefix dominates.
  if (f.log_head > 4096 && f.log_head * 2 > f.sendlog.size()) {
    f.sendlog.erase(f.sendlog.begin(), f.sendlog.begin() + static_cast<std::ptrdiff_t>(f.log_head));
    f.log_head = 0;
  }
  if (lost_any) {
    if (f.park & kParkHold) unpark(f, kParkHold);
    net_.kick_nic(f.spec->src);
  }
}

void Transport::on_packet(std::uint32_t pkt) {
  switch (net_.pkt(pkt).type) {
    case PacketType::Data: on_data(pkt); break;
    case PacketType::Ack: on_ack(pkt); break;
    case PacketType::Nack: on_nack(pkt); break;
    case PacketType::Pause: on_pause(pkt); break;
  }
  net_.packets().release(pkt);
}

void Transport::send_ack(FlowState& f, std::int32_t from_host, std::int32_t to_host) {
  const std::uint32_t ai = net_.packets().alloc();
  Packet& a = net_.pkt(ai);
  a.type = PacketType::Ack;
  a.flow = f.id;
  a.psn = f.ack_last_psn;
  a.cum_ack = f.rcv_cum;
  a.sack = received_word(f, f.ack_last_psn >> 6);
  a.ev = f.ack_last_ev;
  a.src = from_host;
  a.dst = to_host;
  a.size = static_cast<std::uint32_t>(p_.header);
  a.sent_time = f.ack_last_sent_time;
  a.payload = f.ack_pending_bytes;
  a.echo_hops = f.ack_last_hops;
  a.ecn_count = static_cast<std::uint16_t>(std::min<std::uint32_t>(f.ack_pending_ecn, 0xFFFF));
  if (f.ack_pending_ecn) a.flags |= net::kFlagEcn;
  if (f.carry_n) {
    a.carry_n = f.carry_n;
    std::copy(f.carry_ev, f.carry_ev + f.carry_n, a.carry_ev);
    f.carry_n = 0;
  } else {
    a.rx_time = f.ack_last_rx;
  }
  f.ack_pending = 0;
  f.ack_pending_ecn = 0;
  f.ack_pending_bytes = 0;
  net_.send_control(from_host, ai);
}

void Transport::send_nack(FlowState& f, const Packet& p, std::uint32_t psn, bool go_back_n) {
  const std::uint32_t ni = net_.packets().alloc();
  Packet& n = net_.pkt(ni);
  n.type = PacketType::Nack;
  n.flow = p.flow;
  n.psn = psn;
  n.ev = p.ev;
  n.src = p.dst;
  n.dst = p.src;
  n.size = static_cast<std::uint32_t>(p_.header);
  n.sent_time = p.sent_time;
  n.cum_ack = f.rcv_cum;
  n.payload = static_cast<std::uint32_t>(packet_bytes(f, p.psn));  // the data packet it answers
  n.echo_hops = p.hops;
  if (go_back_n) n.flags |= net::kFlagGoBackN;
  net_.send_control(p.dst, ni);
}

void Transport::send_probe(FlowState& f, std::uint32_t ev) {
  const std::uint32_t pi = net_.packets().alloc();
  Packet& q = net_.pkt(pi);
  q.type = PacketType::Data;
  q.flags = net::kFlagProbe;
  q.flow = f.id;
  q.src = f.spec->src;
  q.dst = f.spec->dst;
  q.size = static_cast<std::uint32_t>(p_.header);
  q.sent_time = net_.now();
  q.ev = ev;
  net_.send_control(f.spec->src, pi);
}

void Transport::answer_probe(FlowState& f, const Packet& p) {
  const std::uint32_t ai = net_.packets().alloc();
  Packet& a = net_.pkt(ai);
  a.type = PacketType::Ack;
  a.flags = net::kFlagProbe;
  a.flow = p.flow;
  a.ev = p.ev;
  a.src = p.dst;
  a.dst = p.src;
  a.size = static_cast<std::uint32_t>(p_.header);
  a.sent_time = p.sent_time;
  a.rx_time = net_.now();
  a.echo_hops = p.hops;
  a.cum_ack = f.rcv_cum;
  net_.send_control(p.dst, ai);
}

void Transport::on_probe_ack(FlowState& f, const Packet& a) {
  if (!f.lb || !(f.caps & lb::kCapPaths)) return;
  lb::AckDetail d;
  d.now = net_.now();
  d.rtt = d.now - a.sent_time;
  d.ev = a.ev;
  d.hops = a.echo_hops;
  d.one_way = a.rx_time - a.sent_time;
  d.sent = a.sent_time;
  d.probe = true;
  d.inflight = f.inflight;
  f.lb->on_ack_detail(d);
}

void Transport::resend_lost(FlowState& f) {
  lost_buf_.clear();
  f.lb->take_lost(lost_buf_);
  for (const auto& [psn, sent] : lost_buf_) {
    if (psn >= f.npkts || f.state[psn] != PsnState::InFlight || f.sent_at[psn] != sent) continue;
    f.state[psn] = PsnState::Lost;
    f.inflight -= packet_bytes(f, psn);
    f.rtx.push_back(psn);
  }
}

void Transport::count_rob(FlowState& f, std::int32_t host, std::uint32_t before) {
  if (rob_host_.empty()) {
    rob_host_.assign(static_cast<std::size_t>(net_.topology().num_hosts), 0);
    rob_hist_.assign(1025, 0);
  }
  auto& h = rob_host_[static_cast<std::size_t>(host)];
  h = h - before + (f.rcv_count - f.rcv_cum);
  ++rob_hist_[std::min<std::size_t>(h, rob_hist_.size() - 1)];
}

void Transport::on_data(std::uint32_t pkt) {
  Packet& p = net_.pkt(pkt);
  auto& f = flows_[p.flow];
  if (p.flags & net::kFlagProbe) {
    if (!p.trimmed()) answer_probe(f, p);  // a trimmed probe is lost: the path stays excluded
    return;
  }
  if (p.trimmed()) {
    // The payload was cut in the network: ask for a retransmission right away.
    ++f.n.trimmed_rx;
    send_nack(f, p, p.psn, false);
    return;
  }
  // Did the network reorder this packet: was a packet sent after it received before it?
  if (p.sent_time < f.rcv_latest_sent)
    ++f.n.overtaken;
  else
    f.rcv_latest_sent = p.sent_time;
  const std::uint32_t psn = p.psn;
  const std::uint64_t bit = 1ULL << (psn & 63);
  bool newly_complete = false;
  if (f.finished || (f.received[psn >> 6] & bit)) {  // a finished receiver has freed its bitmap: all held
    ++f.n.duplicates;
  } else {
    std::uint64_t& word = f.received[psn >> 6];
    if (psn != f.rcv_cum) {
      // Out of order ([Flowcut] sec. III-C2: the expected PSN does not match the received one).
      ++f.n.ooo;
      f.n.max_reorder = std::max(f.n.max_reorder, psn - f.rcv_cum);
      if (p_.delivery == Delivery::InOrder && p_.recovery == Recovery::GoBackN) {
        // RoCE go-back-N: discard it and tell the sender where to resume.
        send_nack(f, p, f.rcv_cum, true);
        return;
      }
    }
    const std::uint32_t rob_before = f.rcv_count - f.rcv_cum;
    word |= bit;
    ++f.rcv_count;
    ++delivered_;
    last_progress_ = net_.now();
    while (f.rcv_cum < f.npkts && (f.received[f.rcv_cum >> 6] >> (f.rcv_cum & 63) & 1)) ++f.rcv_cum;
    if (p_.delivery == Delivery::InOrder) {  // packets above the first gap wait in the reorder buffer
      f.n.rob_max = std::max(f.n.rob_max, f.rcv_count - f.rcv_cum);
      count_rob(f, p.dst, rob_before);
    }
    newly_complete = f.rcv_count == f.npkts;
  }
  f.ack_last_psn = psn;
  f.ack_last_ev = p.ev;
  f.ack_last_sent_time = p.sent_time;
  f.ack_last_rx = net_.now();
  f.ack_last_hops = p.hops;
  f.ack_pending_bytes += p.size;
  ++f.ack_pending;
  if (p.ecn())
    ++f.ack_pending_ecn;
  else if (p_.ack_carry_evs && f.carry_n < net::kMaxCarriedEvs)
    f.carry_ev[f.carry_n++] = static_cast<std::uint16_t>(p.ev);
  if (f.ack_pending >= p_.ack_every || newly_complete || f.finished) {
    send_ack(f, p.dst, p.src);
  } else if (!f.ack_flush_armed) {
    f.ack_flush_armed = true;
    net_.events().push(net_.now() + p_.ack_delay, net::kEvAckFlush, f.id);
  }
  if (newly_complete) {
    complete(f.id);
    std::vector<std::uint64_t>().swap(f.received);  // every PSN is held: received_word() answers
  }
}

std::uint64_t Transport::received_word(const FlowState& f, std::uint32_t w) const {
  if (!f.received.empty()) return f.received[w];
  // Freed on completion: the PSNs of word w below npkts are all held.
  const std::uint32_t in_word = f.npkts - std::min(f.npkts, w * 64);
  return in_word >= 64 ? ~0ULL : (1ULL << in_word) - 1;
}

void Transport::mark_acked(FlowState& f, std::uint32_t psn, Bytes& acked_bytes,
                           std::uint32_t& newly) {
  std::uint64_t& w = f.sacked[psn >> 6];
  const std::uint64_t bit = 1ULL << (psn & 63);
  if (w & bit) return;
  w |= bit;
  const Bytes b = packet_bytes(f, psn);
  if (f.state[psn] == PsnState::InFlight) f.inflight -= b;
  f.state[psn] = PsnState::Acked;
  ++f.acked;
  ++newly;
  acked_bytes += b;
}

void Transport::on_ack(std::uint32_t pkt) {
  const Packet& a = net_.pkt(pkt);
  auto& f = flows_[a.flow];
  if (a.flags & net::kFlagProbe) {
    on_probe_ack(f, a);
    return;
  }
  if (f.sender_done) return;
  const SimTime now = net_.now();
  Bytes acked_bytes = 0;
  std::uint32_t newly = 0;
  // Selective part: the 64-PSN word holding a.psn.
  const std::uint32_t base = a.psn & ~63u;
  std::uint64_t fresh = a.sack & ~f.sacked[base >> 6];
  while (fresh) {
    const int b = std::countr_zero(fresh);
    fresh &= fresh - 1;
    mark_acked(f, base + static_cast<std::uint32_t>(b), acked_bytes, newly);
  }
  // Cumulative part.
  while (f.snd_cum < a.cum_ack) mark_acked(f, f.snd_cum++, acked_bytes, newly);
  while (f.snd_cum < f.npkts && (f.sacked[f.snd_cum >> 6] >> (f.snd_cum & 63) & 1)) ++f.snd_cum;

  Bytes marked = 0;
  if (a.ecn()) {
    ++f.n.ecn_acks;
    // With coalescing, the share of the covered packets that were marked.
    marked = newly <= 1 ? acked_bytes
                        : acked_bytes * std::min<Bytes>(a.ecn_count, newly) / newly;
  }
  f.cc->on_ack(acked_bytes, marked, now);
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
    d.inflight = f.inflight;
    d.ecn = a.ecn();
    d.sent = a.sent_time;
    d.one_way = a.carry_n ? 0 : a.rx_time - a.sent_time;
    f.lb->on_ack_detail(d);
    if (f.caps & lb::kCapPaths) resend_lost(f);
  }
  if (a.carry_n) {  // ACK + Carry EVs: every non-ECN EV the coalesced ACK covers
    for (std::uint32_t k = 0; k < a.carry_n; ++k) f.lb->on_feedback(a.carry_ev[k], lb::Feedback::Ack, now);
  } else {
    f.lb->on_feedback(a.ev, a.ecn() ? lb::Feedback::AckEcn : lb::Feedback::Ack, now);
  }
  if (f.acked == f.npkts) {
    sender_finished(f);
  } else {
    if (f.park & kParkHold) unpark(f, kParkHold);
    net_.kick_nic(f.spec->src);
  }
}

void Transport::on_nack(std::uint32_t pkt) {
  const Packet& n = net_.pkt(pkt);
  auto& f = flows_[n.flow];
  if (f.sender_done) return;
  const SimTime now = net_.now();
  ++f.n.nacks;
  f.lb->on_feedback(n.ev, lb::Feedback::Nack, now);
  if (n.flags & net::kFlagGoBackN) {
    on_go_back_n(f, n);
  } else {
    const std::uint32_t psn = n.psn;
    // Only the NACK of the latest transmission triggers a retransmission (an older copy's NACK may
    // arrive after a timeout already resent it).
    if (f.state[psn] == PsnState::InFlight && f.sent_at[psn] == n.sent_time) {
      f.state[psn] = PsnState::Lost;
      f.inflight -= packet_bytes(f, psn);
      f.rtx.push_back(psn);
      f.cc->on_nack(now, packet_bytes(f, psn), f.inflight);
    }
  }
  if (f.sender_done) return;
  if (f.park & kParkHold) unpark(f, kParkHold);
  net_.kick_nic(f.spec->src);
}

void Transport::on_go_back_n(FlowState& f, const Packet& n) {
  const SimTime now = net_.now();
  // The NACK is also a cumulative ACK: the receiver holds every PSN below the one it expects.
  Bytes acked_bytes = 0;
  std::uint32_t newly = 0;
  while (f.snd_cum < n.cum_ack) mark_acked(f, f.snd_cum++, acked_bytes, newly);
  while (f.snd_cum < f.npkts && (f.sacked[f.snd_cum >> 6] >> (f.snd_cum & 63) & 1)) ++f.snd_cum;
  if (acked_bytes) f.cc->on_ack(acked_bytes, 0, now);
  if (f.acked == f.npkts) {
    sender_finished(f);
    return;
  }
  const std::uint32_t expected = n.psn;
  // One rewind per gap: a NACK caused by a packet sent before the last rewind is already answered
  // by it (the rewind resent everything from a PSN at or below this one).
  if (expected >= f.npkts || f.state[expected] == PsnState::Acked || n.sent_time < f.last_rewind) return;
  f.last_rewind = now;
  ++f.n.rewinds;
  // Go back N: everything from the expected PSN on is sent again, in order.
  f.rtx.clear();
  f.rtx_head = 0;
  for (std::uint32_t psn = expected; psn < f.next_new; ++psn) {
    if (f.state[psn] == PsnState::InFlight) {
      f.state[psn] = PsnState::Lost;
      f.inflight -= packet_bytes(f, psn);
    }
    if (f.state[psn] == PsnState::Lost) f.rtx.push_back(psn);
  }
  f.cc->on_nack(now, packet_bytes(f, expected), f.inflight);
}

void Transport::on_pause(std::uint32_t pkt) {
  const Packet& q = net_.pkt(pkt);
  auto& f = flows_[q.flow];
  const bool resume = q.flags & net::kFlagResume;
  if (q.flags & net::kFlagClassPause) {
    // PFC: the drained flow's switch pauses every data packet of the source NIC.
    if (resume) {
      if (f.class_paused) end_class_pause(f);
    } else if (!f.class_paused && !f.sender_done && f.started) {
      ++f.n.pauses;
      f.class_paused = true;
      f.class_since = net_.now();
      ++class_paused_[f.spec->src];
      ++class_pauses_;
      f.pause_deadline = net_.now() + p_.pause_timeout;
      net_.events().push(f.pause_deadline, net::kEvPauseTimeout, f.id);
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
  f.pause_deadline = net_.now() + p_.pause_timeout;
  net_.events().push(f.pause_deadline, net::kEvPauseTimeout, f.id);
}

void Transport::end_class_pause(FlowState& f) {
  f.class_paused = false;
  f.n.held += net_.now() - f.class_since;
  --class_pauses_;
  if (--class_paused_[f.spec->src] == 0) net_.kick_nic(f.spec->src);
}

void Transport::remove_active(FlowState& f) {
  auto& list = active_[f.spec->src];
  auto it = std::find(list.begin(), list.end(), f.id);
  if (it == list.end()) return;
  const auto idx = static_cast<std::uint32_t>(it - list.begin());
  list.erase(it);
  auto& cur = cursor_[f.spec->src];
  if (cur > idx) --cur;
  if (cur >= list.size()) cur = 0;
}

void Transport::park(FlowState& f, std::uint8_t reason) {
  if (f.park == 0) {
    remove_active(f);
    f.parked_since = net_.now();
  }
  f.park |= reason;
}

void Transport::unpark(FlowState& f, std::uint8_t reason) {
  if (!(f.park & reason)) return;
  f.park &= static_cast<std::uint8_t>(~reason);
  if (f.park) return;
  f.n.held += net_.now() - f.parked_since;
  active_[f.spec->src].push_back(f.id);
  net_.kick_nic(f.spec->src);
}

void Transport::sender_finished(FlowState& f) {
  f.sender_done = true;
  f.sender_done_time = net_.now();
  --senders_pending_;
  // output.fct_at = "sender": the run goes on until the last sender has its final ACK.
  if (p_.wait_senders && senders_pending_ == 0 && all_done()) net_.stop();
  if (f.park) {
    f.n.held += net_.now() - f.parked_since;
    f.park = 0;
  } else {
    remove_active(f);
  }
  if (f.class_paused) end_class_pause(f);
  // Per-packet state is no longer needed (every sender path checks sender_done first); keep
  // counters and times only.
  std::vector<std::uint32_t>().swap(f.rtx);
  std::vector<std::pair<std::uint32_t, SimTime>>().swap(f.sendlog);
  std::vector<PsnState>().swap(f.state);
  std::vector<std::uint64_t>().swap(f.sacked);
  std::vector<SimTime>().swap(f.sent_at);
  std::vector<std::uint32_t>().swap(f.ev_of);
  f.log_head = f.rtx_head = 0;
}

void Transport::on_event(const Event& e) {
  switch (e.kind) {
    case net::kEvEntryStart:
      --timed_pending_;
      last_progress_ = net_.now();
      begin(e.obj);
      break;
    case net::kEvRto: {
      auto& f = flows_[e.obj];
      if (f.rto_armed == e.time) on_rto(e.obj);  // otherwise a stale, superseded timer
      break;
    }
    case net::kEvComputeDone:
      --timed_pending_;
      last_progress_ = net_.now();
      complete(e.obj);
      break;
    case net::kEvAckFlush: {
      auto& f = flows_[e.obj];
      f.ack_flush_armed = false;
      if (f.ack_pending) send_ack(f, f.spec->dst, f.spec->src);
      break;
    }
    case net::kEvHoldWake: {
      auto& f = flows_[e.obj];
      if (f.hold_wake == e.time && (f.park & kParkHold)) {
        f.hold_wake = kTimeNever;
        unpark(f, kParkHold);
      }
      break;
    }
    case net::kEvPaceWake: {
      auto& f = flows_[e.obj];
      if (f.pace_wake == e.time) {
        f.pace_wake = kTimeNever;
        if (!f.sender_done) net_.kick_nic(f.spec->src);
      }
      break;
    }
    case net::kEvPauseTimeout: {
      // [Flowcut] sec. IV-A: no XON came (e.g. an ACK was lost and the switch never drained the
      // flow): the source resumes on its own; the switches keep routing it on its old path.
      auto& f = flows_[e.obj];
      if (f.pause_deadline != e.time) break;
      f.pause_deadline = kTimeNever;
      if (f.park & kParkPause) {
        ++f.n.pause_timeouts;
        unpark(f, kParkPause);
      }
      if (f.class_paused) {
        ++f.n.pause_timeouts;
        end_class_pause(f);
      }
      break;
    }
    default: break;
  }
}

}  // namespace lbsim::transport
