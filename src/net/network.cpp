#include "net/network.h"

#include <algorithm>
#include <cmath>

namespace lbsim::net {

Network::Network(const topo::Topology& topo, const NetConfig& cfg, std::uint64_t seed)
    : topo_(topo), cfg_(cfg) {
  port_base_.resize(topo.size());
  std::uint32_t total = 0;
  for (std::int32_t n = 0; n < topo.size(); ++n) {
    port_base_[n] = total;
    total += static_cast<std::uint32_t>(topo.ports[n].size());
  }
  ports_.resize(total);
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
      p.is_nic = topo.is_host(n);
      p.kmin_bytes = static_cast<Bytes>(std::llround(q.kmin * static_cast<double>(q.data_limit)));
      p.kmax_bytes = static_cast<Bytes>(std::llround(q.kmax * static_cast<double>(q.data_limit)));
      p.rng = Rng(seed, hash_name("port"), port_base_[n] + l);
    }
  }
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
  ++q.count;
}

std::uint32_t Network::pop(FifoQueue& q) {
  std::uint32_t pkt = q.head;
  Packet& p = pool_[pkt];
  q.head = p.next;
  if (q.head == kNil) q.tail = kNil;
  q.bytes -= p.size;
  --q.count;
  return pkt;
}

void Network::start_tx(Port& port, std::uint32_t pkt) {
  Packet& p = pool_[pkt];
  const SimTime ser = port.serialization(p.size);
  port.busy_until = now_ + ser;
  ++port.stats.tx_packets;
  port.stats.tx_bytes += p.size;
  // A failed link black-holes what is put on it: the packet occupies the transmitter and vanishes
  // (no trimming, no NACK), which the sender only learns through its timeout ([REPS] sec. 4.3.3).
  if (!port.up || (port.loss_prob > 0.0 && port.rng.bernoulli(port.loss_prob))) {
    ++port.stats.failure_drops;
    drop(pkt);
    return;
  }
  p.node = port.peer;
  p.in_port = static_cast<std::uint16_t>(port.peer_port);
  eq_.push(port.busy_until + port.latency + port.arrive_extra, kEvArrive, pkt);
}

void Network::enqueue(std::uint32_t id, std::uint32_t pkt) {
  Port& port = ports_[id];
  if (!port.tx_pending && port.busy_until <= now_) {
    // Idle port with empty queues: the packet goes straight onto the wire (it saw an empty queue,
    // so it is never ECN-marked).
    start_tx(port, pkt);
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
      drop(pkt);
      return;
    }
    push(port.ctrl, pkt);
  } else if (port.data.bytes + p.size > qc.data_limit) {
    if (qc.trimming) {
      // Packet trimming: cut the payload, keep the header, and send it ahead in the priority
      // control queue so the receiver can NACK at once ([REPS] sec. 2.1, [Spritz] sec. II-B).
      ++port.stats.trims;
      p.flags |= kFlagTrimmed;
      p.size = static_cast<std::uint32_t>(qc.header_bytes);
      if (port.ctrl.bytes + p.size > qc.ctrl_limit) {
        ++port.stats.drops;
        drop(pkt);
        return;
      }
      push(port.ctrl, pkt);
    } else {
      ++port.stats.drops;
      drop(pkt);
      return;
    }
  } else {
    // RED-style ECN on the instantaneous queue the packet sees: probability rises linearly from 0
    // at Kmin to 1 at Kmax ([REPS] sec. 2.1).
    if (qc.ecn) {
      const Bytes q = port.data.bytes;
      if (q >= port.kmax_bytes) {
        p.flags |= kFlagEcn;
      } else if (q > port.kmin_bytes) {
        const double prob = static_cast<double>(q - port.kmin_bytes) /
                            static_cast<double>(port.kmax_bytes - port.kmin_bytes);
        if (port.rng.uniform() < prob) p.flags |= kFlagEcn;
      }
      if (p.flags & kFlagEcn) ++port.stats.ecn_marks;
    }
    push(port.data, pkt);
    port.stats.max_data_bytes = std::max(port.stats.max_data_bytes, port.data.bytes);
  }
  if (!port.tx_pending) {
    port.tx_pending = true;
    eq_.push(port.busy_until, kEvTxNext, id);
  }
}

void Network::tx_next(std::uint32_t id) {
  Port& port = ports_[id];
  port.tx_pending = false;
  std::uint32_t pkt = kNil;
  if (!port.ctrl.empty())
    pkt = pop(port.ctrl);
  else if (!port.data.empty())
    pkt = pop(port.data);
  else if (port.is_nic)
    pkt = host_->pull_data(port.node);
  if (pkt == kNil) return;  // idle until the next enqueue / kick
  start_tx(port, pkt);
  if (port.is_nic || !port.ctrl.empty() || !port.data.empty()) {
    port.tx_pending = true;
    eq_.push(port.busy_until, kEvTxNext, id);
  }
}

void Network::send_control(std::int32_t host, std::uint32_t pkt) {
  enqueue(port_base_[host], pkt);
}

void Network::kick_nic(std::int32_t host) {
  const std::uint32_t id = port_base_[host];
  Port& port = ports_[id];
  if (port.tx_pending) return;  // the NIC will pull when it frees up
  if (port.busy_until <= now_) {
    tx_next(id);
  } else {
    port.tx_pending = true;
    eq_.push(port.busy_until, kEvTxNext, id);
  }
}

void Network::arrive(std::uint32_t pkt) {
  Packet& p = pool_[pkt];
  const std::int32_t node = p.node;
  if (topo_.is_host(node)) {
    ++delivered_;
    host_->on_packet(pkt);
    return;
  }
  ++p.hops;
  const std::int32_t out = router_->route(node, p);
  if (out < 0) {  // no route (e.g. every candidate failed and routing converged): drop
    drop(pkt);
    return;
  }
  enqueue(port_base_[node] + static_cast<std::uint32_t>(out), pkt);
}

void Network::run(SimTime until) {
  stopped_ = false;
  constexpr std::uint64_t kProgressEvery = 1 << 18;
  while (!eq_.empty() && !stopped_) {
    if (eq_.top_time() > until) break;
    const Event e = eq_.pop();
    now_ = e.time;
    ++events_;
    switch (e.kind) {
      case kEvArrive: arrive(e.obj); break;
      case kEvTxNext: tx_next(e.obj); break;
      default: handlers_[e.kind]->on_event(e); break;
    }
    if (progress_hook_ && (events_ & (kProgressEvery - 1)) == 0) progress_hook_(progress_ctx_, now_);
  }
}

}  // namespace lbsim::net
