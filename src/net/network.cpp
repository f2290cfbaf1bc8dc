#include "net/network.h"

#include <algorithm>
#include <cmath>

namespace lbsim::net {

Network::Network(const topo::Topology& topo, const NetConfig& cfg, std::uint64_t seed) : topo_(topo), cfg_(cfg) {
  port_base_.resize(topo.size());
  std::uint32_t total = 0;
  for (std::int32_t n = 0; n < topo.size(); ++n) {
    port_base_[n] = total;
    total += static_cast<std::uint32_t>(topo.ports[n].size());
  }
  ports_.resize(total);
  for (std::int32_t h = 0; h < topo.num_hosts; ++h) nic_host_.insert(nic_host_.end(), topo.ports[h].size(), h);
  const auto& q = cfg_.queue;
  for (std::int32_t n = 0; n < topo.size(); ++n) {
    for (std::size_t l = 0; l < topo.ports[n].size(); ++l) {
      const auto& tp = topo.ports[n][l];
      const auto& link = topo.links[tp.link];
      Port& p = ports_[port_base_[n] + l];
      p.node = n;
      p.local = static_cast<std::int32_t>(l);
      p.peer = tp.peer;
      p.peer_port = tp.peer_port;
      p.link = tp.link;
      p.set_rate(link.rate);
      p.latency = link.latency;
      p.arrive_extra = topo.is_host(tp.peer) ? 0 : cfg_.switch_latency;
      p.arrive_delay = p.latency + p.arrive_extra;
      p.is_nic = topo.is_host(n);
      p.rng = Rng(seed, hash_name("port"), port_base_[n] + l);
      scale_queue(port_base_[n] + static_cast<std::uint32_t>(l), 1.0);
    }
  }
  mark_enqueue_ = q.ecn && !q.ecn_at_dequeue;
  mark_dequeue_ = q.ecn && q.ecn_at_dequeue;
  dequeue_hooks_ = mark_dequeue_;
  if (cfg_.fc.mode != FlowControl::Lossy) fc_init();
}

void Network::scale_queue(std::uint32_t id, double factor) {
  const auto& q = cfg_.queue;
  Port& p = ports_[id];
  const double limit = factor * static_cast<double>(q.data_limit);
  p.data_limit = factor == 1.0 ? q.data_limit : static_cast<Bytes>(std::llround(limit));
  p.kmin_bytes = static_cast<Bytes>(std::llround(q.kmin * limit));
  p.kmax_bytes = static_cast<Bytes>(std::llround(q.kmax * limit));
}

void Network::push(FifoQueue& q, std::uint32_t pkt) {
  Packet& p = pool_[pkt];
  p.next = kNil;
  if (q.tail == kNil)
    q.head = pkt;
  else
    pool_[q.tail].next = pkt;
  q.tail = pkt;
  q.bytes += p.size;
}

std::uint32_t Network::pop(FifoQueue& q) {
  std::uint32_t pkt = q.head;
  Packet& p = pool_[pkt];
  q.head = p.next;
  if (q.head == kNil) q.tail = kNil;
  q.bytes -= p.size;
  return pkt;
}

namespace {

// Inlined into both instantiations of enqueue_at so that the lossy path stays as it was.
[[gnu::always_inline]] inline void mark_ecn(Port& port, Packet& p) {
  // RED-style ECN on the instantaneous queue the packet sees: probability rises linearly from 0
  // at Kmin to 1 at Kmax ([REPS] sec. 2.1). At enqueue that is the bytes ahead of it; with
  // network.ecn_mark_at = "dequeue" (start_tx) the bytes still waiting behind it.
  const Bytes q = port.data.bytes;
  if (q >= port.kmax_bytes) {
    p.flags |= kFlagEcn;
  } else if (q > port.kmin_bytes) {
    const double prob =
        static_cast<double>(q - port.kmin_bytes) / static_cast<double>(port.kmax_bytes - port.kmin_bytes);
    if (port.rng.uniform() < prob) p.flags |= kFlagEcn;
  }
  if (p.flags & kFlagEcn) ++port.stats.ecn_marks;
}

}  // namespace

template <bool LL>
void Network::start_tx([[maybe_unused]] std::uint32_t id, Port& port, std::uint32_t pkt) {
  Packet& p = pool_[pkt];
  if constexpr (LL) {
    // The packet starts leaving this switch: its bytes leave the ingress buffer it arrived in
    // (credit returned upstream / PFC counter lowered), whether or not the link below delivers it.
    if (!port.is_nic) fc_leave(port_base_[port.node] + p.in_port, vc_of(p), p.size, true);
    if (fc_[id].blocked_since >= 0) fc_unblock(id);
    fc_[id].held_since[vc_of(p)] = -1;
  }
  // network.ecn_mark_at = "dequeue": the mark reflects the bytes still queued behind the packet
  // when it leaves (REPS artifact (htsim) marks at dequeue), one queueing delay fresher.
  // INT (enable_int): the egress port's record on every data packet a switch sends. One flag for both
  // hooks keeps a run without them at one test per transmission.
  if (dequeue_hooks_) [[unlikely]] {
    if (mark_dequeue_ && !port.is_nic && !p.is_control()) mark_ecn(port, p);
    if (int_ && !port.is_nic && p.type == PacketType::Data) stamp_int(port, pkt);
  }
  const SimTime ser = port.serialization(p.size);
  port.busy_until = now_ + ser;
  ++port.stats.tx_packets;
  port.stats.tx_bytes += p.size;
  // A failed link black-holes what is put on it: the packet occupies the transmitter and vanishes
  // (no trimming, no NACK), which the sender only learns through its timeout ([REPS] sec. 4.3.3).
  if (!port.up || (port.lossy && port.rng.bernoulli(port.loss_prob))) {
    ++port.stats.failure_drops;
    drop(pkt);
    return;
  }
  if constexpr (LL) {
    // Credits pay for the bytes that reach the peer's buffer (a black-holed packet never does).
    if (cfg_.fc.mode == FlowControl::Credit && fc_[id].limited) fc_[id].credit[vc_of(p)] -= p.size;
  }
  p.node = port.peer;
  p.in_port = static_cast<std::uint16_t>(port.peer_port);
  eq_.push(port.busy_until + port.arrive_delay, kEvArrive, pkt);
}

// [HPCC] sec. 3: the egress port's record, taken as the packet starts to leave (the authors' ns-3
// switch stamps at dequeue: the bytes still queued behind it, the bytes sent before it, the time).
void Network::stamp_int(const Port& port, std::uint32_t pkt) {
  IntStack& s = (*int_)[pkt];
  if (s.n >= kIntMaxHops) return;
  IntHop& h = s.hop[s.n++];
  h.ts = now_;
  h.tx_bytes = port.stats.tx_bytes;
  h.qlen = static_cast<std::uint32_t>(port.data.bytes + port.ctrl.bytes);
  h.port = static_cast<std::uint32_t>(&port - ports_.data());
  h.rate = port.rate;
}

template <bool LL>
void Network::enqueue_at(std::uint32_t id, std::uint32_t pkt) {
  Port& port = ports_[id];
  if constexpr (LL) {
    Packet& p = pool_[pkt];
    if (!port.is_nic) fc_admit(port_base_[port.node] + p.in_port, p);
    const int vc = vc_of(p);
    FifoQueue& q = vc == kVcCtrl ? port.ctrl : port.data;
    // An idle port sends at once when the packet's channel has nothing queued ahead of it and the
    // next buffer has room (an idle port never holds a packet it may send: see wake()).
    if (!port.tx_pending && port.busy_until <= now_ && q.empty() && fc_can_send(id, vc, p.size)) {
      start_tx<LL>(id, port, pkt);
      if (port.is_nic || !port.ctrl.empty() || !port.data.empty()) {
        port.tx_pending = true;
        eq_.push(port.busy_until, kEvTxNext, id);
      }
      return;
    }
    // Nothing is dropped or trimmed: the credits / pauses upstream bound what can be here.
    if (vc == kVcData) {
      if (mark_enqueue_) mark_ecn(port, p);
      push(port.data, pkt);
      port.stats.max_data_bytes = std::max(port.stats.max_data_bytes, port.data.bytes);
    } else {
      push(port.ctrl, pkt);
    }
    if (port.tx_pending) return;
    if (port.busy_until > now_) {
      port.tx_pending = true;
      eq_.push(port.busy_until, kEvTxNext, id);
    } else {
      // Idle and the packet may not go (its channel's head is held: this packet or one before it):
      // wait for credit / a resume.
      if (fc_[id].held_since[vc] < 0) fc_[id].held_since[vc] = now_;
      fc_block(id);
    }
    return;
  }
  if (!port.tx_pending && port.busy_until <= now_) {
    // Idle port with empty queues: the packet goes straight onto the wire (it saw an empty queue,
    // so it is never ECN-marked).
    start_tx<LL>(id, port, pkt);
    if (port.is_nic) {
      port.tx_pending = true;
      eq_.push(port.busy_until, kEvTxNext, id);
    }
    return;
  }
  Packet& p = pool_[pkt];
  const auto& qc = cfg_.queue;
  if (p.is_control()) {
    if (port.ctrl.bytes + p.size > qc.ctrl_limit) {
      ++port.stats.drops;
      if (p.type == PacketType::Data) log_loss(port, p, true);  // a header trimmed upstream
      drop(pkt);
      return;
    }
    push(port.ctrl, pkt);
  } else if (port.data.bytes + p.size > port.data_limit && !(qc.random_evict && evict_for(port, p.size))) {
    if (qc.trimming) {
      // Packet trimming: cut the payload, keep the header, and send it ahead in the priority
      // control queue so the receiver can NACK at once ([REPS] sec. 2.1, [Spritz] sec. II-B).
      ++port.stats.trims;
      log_loss(port, p, false);
      p.flags |= kFlagTrimmed;
      p.trim_hops = p.hops;
      p.size -= p.payload;  // the header (with a policy's own fields, EntropyPolicy::extra_header)
      if (port.ctrl.bytes + p.size > qc.ctrl_limit) {
        ++port.stats.drops;
        log_loss(port, p, true);
        drop(pkt);
        return;
      }
      push(port.ctrl, pkt);
    } else {
      ++port.stats.drops;
      log_loss(port, p, true);
      drop(pkt);
      return;
    }
  } else {
    if (mark_enqueue_) mark_ecn(port, p);
    push(port.data, pkt);
    port.stats.max_data_bytes = std::max(port.stats.max_data_bytes, port.data.bytes);
  }
  if (!port.tx_pending) {
    port.tx_pending = true;
    eq_.push(port.busy_until, kEvTxNext, id);
  }
}

void Network::overflow(Port& port, std::uint32_t pkt) {
  const auto& qc = cfg_.queue;
  Packet& p = pool_[pkt];
  if (qc.trimming) {
    ++port.stats.trims;
    log_loss(port, p, false);
    p.flags |= kFlagTrimmed;
    p.trim_hops = p.hops;
    p.size -= p.payload;
    if (port.ctrl.bytes + p.size <= qc.ctrl_limit) {
      push(port.ctrl, pkt);
      return;
    }
  }
  ++port.stats.drops;
  log_loss(port, p, true);
  drop(pkt);
}

bool Network::evict_for(Port& port, Bytes size) {
  FifoQueue& q = port.data;
  if (q.empty() || !port.rng.bernoulli(0.5)) return false;
  const std::uint32_t last = q.tail;
  if (q.bytes - pool_[last].size + size > port.data_limit) return false;  // no room even then
  // Unlink the tail: the queue is singly linked, so walk to its predecessor (only on a full queue).
  if (q.head == last) {
    q.head = q.tail = kNil;
  } else {
    std::uint32_t prev = q.head;
    while (pool_[prev].next != last) prev = pool_[prev].next;
    pool_[prev].next = kNil;
    q.tail = prev;
  }
  q.bytes -= pool_[last].size;
  overflow(port, last);
  return true;
}

void Network::enqueue(std::uint32_t id, std::uint32_t pkt) {
  if (lossless_)
    enqueue_at<true>(id, pkt);
  else
    enqueue_at<false>(id, pkt);
}

void Network::hold(std::uint32_t pkt) {
  if (!lossless_) return;
  const Packet& p = pool_[pkt];
  fc_admit(port_base_[p.node] + p.in_port, p);
}

void Network::enqueue_held(std::uint32_t id, std::uint32_t pkt) {
  if (!lossless_) {
    enqueue_at<false>(id, pkt);
    return;
  }
  // enqueue_at admits the packet into its ingress buffer again: take out the bytes hold() counted
  // first (no credit or resume moves: the occupancy is the same once it is admitted again).
  const Packet& p = pool_[pkt];
  fc_[port_base_[p.node] + p.in_port].ingress[vc_of(p)] -= p.size;
  enqueue_at<true>(id, pkt);
}

template <bool LL>
bool Network::tx_next(std::uint32_t id) {
  Port& port = ports_[id];
  port.tx_pending = false;
  std::uint32_t pkt = kNil;
  if constexpr (LL) {
    bool held = false;
    pkt = fc_pick(id, held);
    if (pkt == kNil) {
      // Nothing it may send: idle until an enqueue, a kick, or the credit / resume it waits for.
      if (held) fc_block(id);
      return false;
    }
  } else {
    if (!port.ctrl.empty())
      pkt = pop(port.ctrl);
    else if (!port.data.empty())
      pkt = pop(port.data);
    else if (port.is_nic && (pkt = pull_nic(port)) == kNil && !port.ctrl.empty())
      pkt = pop(port.ctrl);         // the host sent a control packet while it found no data to send
    if (pkt == kNil) return false;  // idle until the next enqueue / kick
  }
  start_tx<LL>(id, port, pkt);
  if (port.is_nic || !port.ctrl.empty() || !port.data.empty()) {
    port.tx_pending = true;
    eq_.push(port.busy_until, kEvTxNext, id);
  }
  return true;
}

// The host may send a packet of its own while it picks the next data packet (a load balancer's
// probe leaves from inside the pull, LAPS sec. 3.4). The port counts as transmitting meanwhile, so
// that packet waits in the control queue for the NIC's next slot: the link carries one packet at a
// time (without this the probe started at once and the data packet on top of it, and the NIC ran
// two chains of transmissions from then on).
std::uint32_t Network::pull_nic(Port& port) {
  port.tx_pending = true;
  const std::uint32_t pkt = host_->pull_data(port.node);
  port.tx_pending = false;
  return pkt;
}

void Network::send_control(std::int32_t host, std::uint32_t pkt) { enqueue(port_base_[host], pkt); }

void Network::kick_nic(std::int32_t host) {
  const std::uint32_t id = port_base_[host];
  Port& port = ports_[id];
  if (port.tx_pending) return;  // the NIC will pull when it frees up
  if (port.busy_until <= now_) {
    if (lossless_)
      tx_next<true>(id);
    else
      tx_next<false>(id);
  } else {
    port.tx_pending = true;
    eq_.push(port.busy_until, kEvTxNext, id);
  }
}

// Credit or a resume reached port `id`: an idle port that waited sends now (no event was pending
// for it while it waited, so an idle-waiting port costs nothing).
void Network::wake(std::uint32_t id) {
  Port& port = ports_[id];
  if (port.tx_pending || fc_[id].blocked_since < 0) return;
  if (port.busy_until > now_) {
    port.tx_pending = true;
    eq_.push(port.busy_until, kEvTxNext, id);
  } else {
    tx_next<true>(id);
  }
}

template <bool LL>
void Network::arrive(std::uint32_t pkt) {
  Packet& p = pool_[pkt];
  const std::int32_t node = p.node;
  if (topo_.is_host(node)) {
    ++delivered_;
    ++host_arrivals_;
    host_->on_packet(pkt);
    return;
  }
  if (++p.hops > cfg_.max_hops) [[unlikely]] {  // a routing loop: drop instead of circling forever
    ++ttl_drops_;
    if constexpr (LL) fc_leave(port_base_[node] + p.in_port, vc_of(p), p.size, false);
    drop(pkt);
    return;
  }
  routed_ = pkt;
  const std::int32_t out = router_->route(node, p);
  if (out < 0) {                    // no route (e.g. every candidate failed and routing converged): drop
    if (out == kRouteHeld) return;  // the router keeps it (enqueued later, with its ingress accounting)
    if constexpr (LL) fc_leave(port_base_[node] + p.in_port, vc_of(p), p.size, false);  // its credit returns
    count_no_route(port_base_[node] + p.in_port);
    drop(pkt);
    return;
  }
  enqueue_at<LL>(port_base_[node] + static_cast<std::uint32_t>(out), pkt);
}

void Network::count_no_route(std::uint32_t in_port) {
  ++no_route_drops_;
  if (no_route_port_.empty()) no_route_port_.assign(ports_.size(), 0);  // rare: only runs with failures
  ++no_route_port_[in_port];
}

template <bool LL>
void Network::run_loop(SimTime until) {
  // The prefetch schedule follows the state the loop touches (see run_events): re-chosen every
  // kScheduleEvery events, so a run whose packets in flight grow past the bound (or fall below it)
  // switches. Hints only: results do not depend on the schedule.
  for (;;) {
    const std::uint64_t before = events_;
    const bool far = wide_working_set();
    const bool more = far ? run_events<LL, true>(until) : run_events<LL, false>(until);
    if (far) far_events_ += events_ - before;
    if (!more) return;
  }
}

bool Network::wide_working_set() const {
  return pool_.live() * sizeof(Packet) + ports_.size() * sizeof(Port) >= cfg_.far_prefetch_bytes;
}

template <bool LL, bool Far>
bool Network::run_events(SimTime until) {
  constexpr std::uint64_t kProgressEvery = 1 << 18;
  static_assert(kProgressEvery % kScheduleEvery == 0);
  // Each event waits mostly for memory: the packet of an arrival, the port of a TX_NEXT and then the
  // head packet of its queue, lines written one link delay (~10^5 events) earlier and evicted since.
  // The loop asks for them a few events ahead (the bucket being drained is in order already, so the
  // coming events are known): the packet or the port (both its lines: tx_next and start_tx read
  // tx_pending, is_nic and the counters on line 1) six events ahead, the head packet of a TX_NEXT's
  // port two events ahead (by then its port line has arrived). Hints only: results do not change.
  // Measured (docs/scale.md "Prefetching the coming events"): fat tree 1024 0.84x CPU, 8192 hosts
  // 0.6x, Dragonfly UGAL-L 0.96x; one event ahead (tried before) was too late to help.
  // The host side's chains (HostHandler::prefetch_pull / prefetch_arrival) one link per event, from
  // six events ahead for a NIC's pull and three for an arrival at a host (its packet line is asked
  // for at six); for an arrival at a switch the router's tables three events ahead and the two
  // lines of the port it will pick (enqueue_at reads both) two events ahead (Router::prefetch_route;
  // one event ahead and the first line only: 1.02x CPU on ft8192, docs/scale.md "Counting sort of
  // the long buckets"); for an arrival at a host both lines of the host's NIC port two events ahead
  // (docs/scale.md "Prefetch distances from the working set").
  // Far (the packets in existence and the ports take far_prefetch_bytes or more, so the lines come
  // from main memory, ~130-165 ns here by build/bench/bench_memory, not from the last-level cache):
  // every distance doubled, so that each link of a chain has two events' time to arrive, and a
  // NIC's pull chain (~10 lines) asked
  // for only when its port has nothing queued: a TX_NEXT that finds a queued packet (an ACK) sends it
  // without pulling, and the memory those lines would take is what the far loop runs short of
  // (docs/scale.md "Prefetch distances from the working set"). On smaller networks both cost more
  // than they save (the lines come from the last-level cache, and the next TX_NEXT, one ACK's
  // serialization later, pulls with the chain still near).
  constexpr std::ptrdiff_t kScale = Far ? 2 : 1;
  constexpr std::ptrdiff_t kPrefetchAhead = 6 * kScale;
  constexpr std::ptrdiff_t kPullNext = 4 * kScale;
  constexpr std::ptrdiff_t kPrefetchMid = 3 * kScale;
  constexpr std::ptrdiff_t kPrefetchNear = 2 * kScale;
  constexpr std::ptrdiff_t kPrefetchLast = 1 * kScale;
  HostHandler* const host = host_;
  const auto nics = host ? static_cast<std::uint32_t>(nic_host_.size()) : 0u;
  const std::int32_t hosts = host ? topo_.num_hosts : 0;
  EventQueue& eq = eq_;  // kept in a register across the loop (measured: one instruction per event)
  Event e;
  while (!stopped_ && eq.pop_until(until, e)) {
    now_ = e.time;
    if (const Event* a = eq.ahead(kPrefetchAhead)) {
      if (a->kind == kEvArrive) {
        __builtin_prefetch(&pool_[a->obj]);
      } else if (a->kind == kEvTxNext) {
        prefetch_port(a->obj);  // tx_next reads line 1 first
        if (a->obj < nics) host->prefetch_pull(nic_host_[a->obj], 0);
      }
    }
    if (const Event* a = eq.ahead(kPullNext); a && a->kind == kEvTxNext && a->obj < nics && (!Far || will_pull(a->obj)))
      host->prefetch_pull(nic_host_[a->obj], 1);
    if (const Event* a = eq.ahead(kPrefetchMid)) {
      if (a->kind == kEvTxNext) {
        if (a->obj < nics && (!Far || will_pull(a->obj))) host->prefetch_pull(nic_host_[a->obj], 2);
      } else if (a->kind == kEvArrive) {
        const Packet& p = pool_[a->obj];
        if (p.node < hosts)
          host->prefetch_arrival(a->obj, 0);
        else if (!topo_.is_host(p.node))
          router_->prefetch_route(p.node, p, 0);
      }
    }
    if (const Event* a = eq.ahead(kPrefetchNear)) {
      if (a->kind == kEvTxNext) {
        const Port& pt = ports_[a->obj];
        const std::uint32_t head = pt.ctrl.empty() ? pt.data.head : pt.ctrl.head;
        if (head != kNil) __builtin_prefetch(&pool_[head]);
        if (a->obj < nics && (!Far || head == kNil)) host->prefetch_pull(nic_host_[a->obj], 3);
      } else if (a->kind == kEvArrive) {
        const Packet& p = pool_[a->obj];
        if (p.node < hosts) {
          host->prefetch_arrival(a->obj, 1);
          prefetch_port(port_base_[p.node]);  // its NIC: a data packet's ACK is queued there, an ACK's sender kicks it
        } else if (!topo_.is_host(p.node)) {
          if (const std::int32_t out = router_->prefetch_route(p.node, p, 1); out >= 0) {
            prefetch_port(port_base_[p.node] + static_cast<std::uint32_t>(out));
          }
        }
      }
    }
    if (const Event* a = eq.ahead(kPrefetchLast)) {
      if (a->kind == kEvTxNext) {
        if (a->obj < nics && (!Far || will_pull(a->obj))) host->prefetch_pull(nic_host_[a->obj], 4);
      } else if (a->kind == kEvArrive) {
        const Packet& p = pool_[a->obj];
        if (p.node < hosts) {
          host->prefetch_arrival(a->obj, 2);
        }
      }
    }
    if constexpr (Far) eq.prefetch_next_bucket();
    ++events_;
    ++kind_events_[e.kind];
    switch (e.kind) {
      case kEvArrive:
        arrive<LL>(e.obj);
        break;
      case kEvTxNext:
        if (!tx_next<LL>(e.obj)) ++idle_tx_next_;
        break;
      default:
        if constexpr (LL) {
          if (e.kind <= kEvStallCheck) {  // the lossless kinds follow kEvTxNext (events.h)
            fc_event(e);
            break;
          }
        }
        handlers_[e.kind]->on_event(e);
        break;
    }
    if ((events_ & (kScheduleEvery - 1)) == 0) [[unlikely]] {
      if (progress_hook_ && (events_ & (kProgressEvery - 1)) == 0) progress_hook_(progress_ctx_, now_);
      if (wide_working_set() != Far) return true;
    }
  }
  return false;
}

void Network::run(SimTime until) {
  stopped_ = false;
  if (!lossless_) {
    run_loop<false>(until);
    return;
  }
  if (!stall_armed_ && cfg_.fc.stall > 0) {
    stall_armed_ = true;
    eq_.push(now_ + std::max<SimTime>(1, cfg_.fc.stall / 4), kEvStallCheck, 0);
  }
  run_loop<true>(until);
  // Packets wait but nothing is scheduled any more: they wait forever (a deadlock with no timers
  // left to hide it).
  if (eq_.empty() && !stall_ && queued_packets() > 0) find_deadlock(0, true);
}

}  // namespace lbsim::net
