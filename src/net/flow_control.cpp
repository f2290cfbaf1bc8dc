// Lossless modes of the network (net/flow_control.h, docs/lossless.md): credits, PFC pause/resume,
// the waiting ports, the stall detector and its wait-for cycle. Only the lossless instantiation of
// the network's event loop calls into this file.
#include <algorithm>
#include <stdexcept>

#include <fmt/core.h>

#include "net/network.h"

namespace lbsim::net {

const char* flow_control_name(FlowControl m) {
  switch (m) {
    case FlowControl::Lossy:
      return "lossy";
    case FlowControl::Credit:
      return "credit";
    case FlowControl::Pfc:
      return "pfc";
  }
  return "?";
}

Bytes pfc_headroom(BitsPerSec rate, SimTime latency, SimTime switch_latency, Bytes packet_bytes) {
  const SimTime window = 2 * latency + switch_latency;
  // Rounded up: the bound must hold for every byte that can be on its way.
  const Bytes in_flight =
      static_cast<Bytes>((static_cast<__int128>(window) * rate + 8'000'000'000'000LL - 1) / 8'000'000'000'000LL);
  return in_flight + 2 * packet_bytes;
}

void Network::fc_init() {
  lossless_ = true;
  const auto& fc = cfg_.fc;
  fc_.assign(ports_.size(), FcPort{});
  for (std::uint32_t id = 0; id < ports_.size(); ++id) {
    const Port& p = ports_[id];
    FcPort& f = fc_[id];
    f.limited = !topo_.is_host(p.peer);
    // The receive side of this port (meaningful at switches): its buffer limit per VC. The bytes in
    // flight towards it come from the peer over this port's link.
    const Bytes headroom =
        fc.headroom > 0 ? fc.headroom : pfc_headroom(p.rate, p.latency, cfg_.switch_latency, fc.packet_bytes);
    for (int vc = 0; vc < kNumVcs; ++vc) {
      if (fc.mode == FlowControl::Credit) {
        f.credit[vc] = fc.buffer[vc];
        f.limit[vc] = fc.buffer[vc];
      } else {
        f.limit[vc] = fc.xoff[vc] + headroom;
      }
    }
  }
}

bool Network::fc_can_send(std::uint32_t id, int vc, Bytes size) const {
  const FcPort& f = fc_[id];
  if (!f.limited) return true;  // towards a host: hosts sink at line rate
  if (cfg_.fc.mode == FlowControl::Credit) return f.credit[vc] >= size;
  return !f.paused[vc];
}

std::uint32_t Network::fc_pick(std::uint32_t id, bool& held) {
  Port& port = ports_[id];
  held = false;
  // Control first (its own VC / priority, so data never blocks it), then the data head; a data head
  // that may not go blocks the data behind it (head-of-line blocking).
  FcPort& f = fc_[id];
  if (!port.ctrl.empty()) {
    if (fc_can_send(id, kVcCtrl, pool_[port.ctrl.head].size)) return pop(port.ctrl);
    held = true;
    if (f.held_since[kVcCtrl] < 0) f.held_since[kVcCtrl] = now_;
  }
  if (!port.data.empty()) {
    if (fc_can_send(id, kVcData, pool_[port.data.head].size)) return pop(port.data);
    held = true;
    if (f.held_since[kVcData] < 0) f.held_since[kVcData] = now_;
  } else if (port.is_nic) {
    // A NIC pulls only when the next buffer has room for a full packet: the transport stamps the
    // send time when it hands the packet over, and the packet goes on the wire at once.
    if (fc_can_send(id, kVcData, cfg_.fc.packet_bytes)) {
      const std::uint32_t pkt = pull_nic(port);
      // No data, but the host sent a control packet while it looked (network.cpp pull_nic).
      if (pkt != kNil || port.ctrl.empty()) return pkt;
      if (fc_can_send(id, kVcCtrl, pool_[port.ctrl.head].size)) return pop(port.ctrl);
      held = true;
      if (f.held_since[kVcCtrl] < 0) f.held_since[kVcCtrl] = now_;
      return kNil;
    }
    held = true;
    if (f.held_since[kVcData] < 0) f.held_since[kVcData] = now_;
  }
  return kNil;
}

void Network::fc_admit(std::uint32_t in_id, const Packet& p) {
  FcPort& f = fc_[in_id];
  const int vc = vc_of(p);
  f.ingress[vc] += p.size;
  f.ingress_max[vc] = std::max(f.ingress_max[vc], f.ingress[vc]);
  if (f.ingress[vc] > f.limit[vc]) {
    // A lossless network has no drop point: more bytes than the buffer holds is a bug in the
    // credit / pause accounting, not a packet to drop.
    const Port& in = ports_[in_id];
    throw std::logic_error(fmt::format(
        "lossless ({}) invariant broken at t = {:.6f} us: the ingress buffer of {} (from {}) holds {} bytes of VC {} "
        "after packet flow {} psn {} ({} bytes) arrived, above its limit of {} bytes",
        flow_control_name(cfg_.fc.mode), to_us(now_), port_name(in_id), topo_.nodes[in.peer].label, f.ingress[vc], vc,
        p.flow, p.psn, p.size, f.limit[vc]));
  }
  if (cfg_.fc.mode == FlowControl::Pfc && !f.pause_sent[vc] && f.ingress[vc] > cfg_.fc.xoff[vc]) {
    // Above Xoff: PAUSE the upstream transmitter of this priority. The frame is not queued behind
    // data (it takes no link time here) and arrives one link latency later.
    f.pause_sent[vc] = true;
    ++f.pauses_sent;
    const Port& in = ports_[in_id];
    eq_.push(now_ + in.latency, kEvPause, port_id(in.peer, in.peer_port) * 2 + static_cast<std::uint32_t>(vc));
  }
}

void Network::fc_leave(std::uint32_t in_id, int vc, Bytes size, bool counted) {
  FcPort& f = fc_[in_id];
  const Port& in = ports_[in_id];
  if (counted) f.ingress[vc] -= size;
  const std::uint32_t up = port_id(in.peer, in.peer_port);
  if (cfg_.fc.mode == FlowControl::Credit) {
    // The packet starts leaving the buffer: its credit travels back to the upstream transmitter.
    std::uint32_t m;
    if (credit_free_.empty()) {
      m = static_cast<std::uint32_t>(credit_msgs_.size());
      credit_msgs_.push_back({});
    } else {
      m = credit_free_.back();
      credit_free_.pop_back();
    }
    credit_msgs_[m] = CreditMsg{up, static_cast<std::uint32_t>(size), static_cast<std::uint32_t>(vc)};
    ++credit_returns_;
    ++fc_[up].credits_in_flight[vc];
    eq_.push(now_ + in.latency, kEvCredit, m);
  } else if (f.pause_sent[vc] && f.ingress[vc] <= cfg_.fc.xon[vc]) {
    f.pause_sent[vc] = false;
    ++f.resumes_sent;
    eq_.push(now_ + in.latency, kEvResume, up * 2 + static_cast<std::uint32_t>(vc));
  }
}

void Network::fc_block(std::uint32_t id) {
  FcPort& f = fc_[id];
  if (f.blocked_since >= 0) return;
  f.blocked_since = now_;
  ++f.blocked_episodes;
}

void Network::fc_unblock(std::uint32_t id) {
  FcPort& f = fc_[id];
  f.blocked_ps += now_ - f.blocked_since;
  f.blocked_since = -1;
}

void Network::fc_event(const Event& e) {
  switch (e.kind) {
    case kEvCredit: {
      const CreditMsg m = credit_msgs_[e.obj];
      credit_free_.push_back(e.obj);
      fc_[m.port].credit[m.vc] += m.bytes;
      --fc_[m.port].credits_in_flight[m.vc];
      wake(m.port);
      break;
    }
    case kEvPause: {
      FcPort& f = fc_[e.obj >> 1];
      const auto vc = e.obj & 1;
      f.paused[vc] = true;
      f.paused_since[vc] = now_;
      ++f.pauses_received;
      break;
    }
    case kEvResume: {
      FcPort& f = fc_[e.obj >> 1];
      const auto vc = e.obj & 1;
      f.paused[vc] = false;
      f.paused_ps[vc] += now_ - f.paused_since[vc];
      f.paused_since[vc] = -1;
      wake(e.obj >> 1);
      break;
    }
    case kEvStallCheck:
      stall_check();
      break;
    default:
      throw std::logic_error(fmt::format("event kind {} reached the flow control", e.kind));
  }
}

std::uint64_t Network::queued_packets() const {
  std::uint64_t n = 0;
  // Walks the queues (only when a run ends or a deadlock is reported: the queues keep no counts,
  // to stay within the port's first cache line).
  for (const auto& p : ports_)
    for (const FifoQueue* q : {&p.data, &p.ctrl})
      for (std::uint32_t i = q->head; i != kNil; i = pool_[i].next) ++n;
  return n;
}

// Deadlock detection. A port that has waited network.stall_us is suspicious but not proof: it may
// wait behind a long, slow queue. Proof is a closed set: waiting ports whose heads wait only for
// room that other waiting ports of the set hold, with no credit or resume on its way to them; no
// port outside the set can free any of them, so none will ever send again. The set may be a small
// part of the network while the rest keeps running (e.g. retransmissions after timeouts), which a
// "nothing moved anywhere" rule would miss.
void Network::stall_check() {
  bool long_wait = false;
  for (const auto& f : fc_)
    for (int vc = 0; vc < kNumVcs; ++vc)
      long_wait = long_wait || (f.held_since[vc] >= 0 && now_ - f.held_since[vc] >= cfg_.fc.stall);
  if (long_wait && find_deadlock(cfg_.fc.stall, false)) {
    stop();
    return;
  }
  // Only this check left: the run ends by itself (and run() looks for waiting packets); a later
  // run() arms the checks again.
  if (eq_.empty())
    stall_armed_ = false;
  else
    eq_.push(now_ + std::max<SimTime>(1, cfg_.fc.stall / 4), kEvStallCheck, 0);
}

std::string Network::port_name(std::uint32_t id) const {
  const Port& p = ports_[id];
  return fmt::format("{} port {} (to {})", topo_.nodes[p.node].label, p.local, topo_.nodes[p.peer].label);
}

bool Network::find_deadlock(SimTime min_wait, bool dry) {
  // Nodes of the wait-for graph are (port, VC) = port x 2 + vc: a port can wait in one channel and
  // send in the other.
  const auto nports = static_cast<std::uint32_t>(ports_.size());
  const std::uint32_t n = nports * kNumVcs;
  auto head_held = [&](std::uint32_t u, int vc) {
    const Port& p = ports_[u];
    const FifoQueue& q = vc == kVcCtrl ? p.ctrl : p.data;
    const Bytes size =
        !q.empty() ? static_cast<Bytes>(pool_[q.head].size) : (p.is_nic && vc == kVcData ? cfg_.fc.packet_bytes : 0);
    return size > 0 && !fc_can_send(u, vc, size);
  };
  // A node may belong to the set: its port waits (long enough), its head in this channel may not go,
  // and nothing that could free it is on its way (a credit, or a resume the next switch has sent).
  std::vector<std::uint8_t> in(n, 0);
  std::uint64_t waiting = 0;
  for (std::uint32_t u = 0; u < nports; ++u) {
    const FcPort& f = fc_[u];
    if (f.held_since[kVcData] < 0 && f.held_since[kVcCtrl] < 0) continue;
    ++waiting;
    const Port& p = ports_[u];
    const FcPort& down = fc_[port_id(p.peer, p.peer_port)];
    for (int vc = 0; vc < kNumVcs; ++vc) {
      if (f.held_since[vc] < 0 || now_ - f.held_since[vc] < min_wait || f.credits_in_flight[vc] > 0) continue;
      const bool resume_coming = f.paused[vc] && !down.pause_sent[vc];
      if (head_held(u, vc) && !resume_coming) in[u * kNumVcs + vc] = 1;
    }
  }
  // Edges: node (u, vc) waits for the ingress buffer (next switch, u's peer port, vc); the packets in
  // that buffer wait at output ports of that switch, in the same channel.
  std::vector<std::vector<std::uint32_t>> out(n), rev(n);
  for (std::uint32_t o = 0; o < nports; ++o) {
    const Port& op = ports_[o];
    if (op.is_nic) continue;
    for (const FifoQueue* q : {&op.ctrl, &op.data})
      for (std::uint32_t k = q->head; k != kNil; k = pool_[k].next) {
        const Packet& pk = pool_[k];
        const auto vc = static_cast<std::uint32_t>(vc_of(pk));
        const Port& ing = ports_[port_base_[op.node] + pk.in_port];
        const std::uint32_t u = port_id(ing.peer, ing.peer_port) * kNumVcs + vc;
        if (in[u]) out[u].push_back(o * kNumVcs + vc);
      }
  }
  for (std::uint32_t u = 0; u < n; ++u) {
    auto& v = out[u];
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    for (const auto w : v) rev[w].push_back(u);
  }
  // Keep the closed part: a node with no edge (its buffer is empty: room is coming) or with an edge
  // to a node outside the set (that port will send) leaves, and so does everything waiting on it.
  std::vector<std::uint32_t> work;
  for (std::uint32_t u = 0; u < n; ++u) {
    if (!in[u]) continue;
    bool leaves = out[u].empty();
    for (const auto w : out[u]) leaves = leaves || !in[w];
    if (leaves) work.push_back(u);
  }
  for (const auto u : work) in[u] = 0;
  while (!work.empty()) {
    const std::uint32_t w = work.back();
    work.pop_back();
    for (const auto u : rev[w])
      if (in[u]) {
        in[u] = 0;
        work.push_back(u);
      }
  }
  std::uint32_t first = n;
  std::uint64_t members = 0;
  std::vector<std::uint8_t> member_port(nports, 0);
  for (std::uint32_t u = 0; u < n; ++u)
    if (in[u]) {
      first = std::min(first, u);
      member_port[u / kNumVcs] = 1;
    }
  for (const auto m : member_port) members += m;
  if (members == 0 && !dry) return false;

  auto r = std::make_unique<StallReport>();
  r->time = now_;
  r->events_ran_dry = dry;
  r->queued_packets = queued_packets();
  r->waiting_ports = waiting;
  r->deadlocked_ports = members;
  r->quiet = members == 0 ? 0 : kTimeNever;
  for (std::uint32_t x = 0; x < n; ++x)
    if (in[x]) r->quiet = std::min(r->quiet, now_ - fc_[x / kNumVcs].held_since[x % kNumVcs]);
  // Every node of the set has all its edges inside it: walking first edges from the lowest node
  // must come back to a node already seen; the nodes from there on are a cycle.
  if (members > 0) {
    std::vector<std::uint32_t> path;
    std::vector<std::int64_t> seen(n, -1);
    std::uint32_t u = first;
    while (seen[u] < 0) {
      seen[u] = static_cast<std::int64_t>(path.size());
      path.push_back(u);
      u = out[u].front();
    }
    std::vector<std::uint32_t> cycle(path.begin() + seen[u], path.end());
    std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());
    for (const auto x : cycle) {
      const Port& p = ports_[x / kNumVcs];
      r->cycle.push_back(StallReport::Hop{x / kNumVcs, p.node, p.local, p.peer, static_cast<int>(x % kNumVcs),
                                          topo_.nodes[p.node].label, topo_.nodes[p.peer].label,
                                          p.data.bytes + p.ctrl.bytes});
    }
  }
  stall_ = std::move(r);
  return true;
}

std::string StallReport::text() const {
  std::string s;
  if (events_ran_dry)
    s += fmt::format(
        "lbsim: stall at t = {:.3f} us: {} packets wait in the network and nothing is left to move them "
        "(no event is scheduled; {} ports wait for credit / a resume)\n",
        to_us(time), queued_packets, waiting_ports);
  else
    s += fmt::format(
        "lbsim: stall at t = {:.3f} us: {} ports have waited at least {:.3f} us (network.stall_us) for "
        "room that only the others of them can make ({} ports wait for credit / a resume, {} packets wait "
        "in the network)\n",
        to_us(time), deadlocked_ports, to_us(quiet), waiting_ports, queued_packets);
  if (cycle.empty()) {
    s += "lbsim: no cycle of waiting ports was found\n";
    return s;
  }
  s += fmt::format(
      "lbsim: wait-for cycle of {} ports (each waits for room in the next switch's buffer, which the "
      "next port's queued packets fill):\n",
      cycle.size());
  for (const auto& h : cycle)
    s += fmt::format("  {} port {} -> {}  ({}, {} bytes queued)\n", h.node_label, h.local, h.peer_label,
                     h.vc == kVcCtrl ? "control" : "data", h.queued_bytes);
  s += fmt::format("  back to {} port {}\n", cycle.front().node_label, cycle.front().local);
  return s;
}

FlowControlStats Network::fc_stats() const {
  FlowControlStats st;
  if (!lossless_) return st;
  st.credit_returns = credit_returns_;
  for (std::uint32_t id = 0; id < ports_.size(); ++id) {
    const Port& p = ports_[id];
    const FcPort& f = fc_[id];
    const SimTime blocked = f.blocked_ps + (f.blocked_since >= 0 ? now_ - f.blocked_since : 0);
    if (p.is_nic) {
      st.nic_blocked_episodes += f.blocked_episodes;
      st.nic_blocked_us += to_us(blocked);
    } else {
      st.blocked_episodes += f.blocked_episodes;
      st.blocked_us += to_us(blocked);
      for (int vc = 0; vc < kNumVcs; ++vc) st.max_ingress[vc] = std::max(st.max_ingress[vc], f.ingress_max[vc]);
      if (cfg_.fc.mode == FlowControl::Pfc)
        st.max_headroom = std::max(st.max_headroom, f.limit[kVcData] - cfg_.fc.xoff[kVcData]);
    }
    st.pause_frames += f.pauses_sent;
    st.resume_frames += f.resumes_sent;
    for (int vc = 0; vc < kNumVcs; ++vc) {
      const SimTime paused = f.paused_ps[vc] + (f.paused_since[vc] >= 0 ? now_ - f.paused_since[vc] : 0);
      st.paused_us[vc] += to_us(paused);
    }
    st.paused_ports += f.pauses_received > 0;
  }
  return st;
}

}  // namespace lbsim::net
