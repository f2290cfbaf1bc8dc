// The transport's entry lifecycle and dispatch: the constructors (an eager workload's records and
// dependency lists, checked), the start of each entry when its start time has come and its
// dependencies are met (begin: the transfer's FlowLive, congestion control and load balancer), its
// completion (dependents released; the run stops when everything it waits for is done), the release
// of a transfer's working state, and the dispatch of packets (on_packet) and timers (on_event) to the
// sender, the receiver, pauses and probes.
#include "transport/transport.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace lbsim::transport {

using net::Packet;
using net::PacketType;

Transport::Transport(net::Network& net, const TransportParams& params, PolicyFactory policies, PolicyKeep keep,
                     PolicyDone done)
    : net_(net), p_(params), policies_(std::move(policies)), keep_(std::move(keep)), done_(std::move(done)) {
  for (const auto k : {net::kEvEntryStart, net::kEvRto, net::kEvComputeDone, net::kEvAckFlush, net::kEvHoldWake,
                       net::kEvPauseTimeout, net::kEvPaceWake})
    net_.on(k, this);
  rccc_ = p_.rccc.on;
  if (rccc_) net_.on(net::kEvCreditPace, this);
  p_.cc.mtu = p_.header + p_.mtu;
  ack_every_ = p_.ack_bytes > 0 ? 0xFFFFFFFFu : p_.ack_every;
  ack_rules_ = p_.ack_bytes > 0 || p_.ack_on_ecn || p_.ack_request;
  if (p_.cc.uses_int) {  // HPCC: the switches stamp INT; its header rides on every data packet and ACK
    net_.enable_int();
    int_bytes_ = 2 + 8 * p_.cc.hpcc.int_hops;
  }
  hooks_ = rccc_ || int_bytes_ > 0;
  const auto hosts = static_cast<std::size_t>(net.topology().num_hosts);
  hosts_.resize(hosts);
  class_paused_.assign(hosts, 0);
  if (rccc_) pacers_.resize(hosts);
}

Transport::Transport(net::Network& net, const workload::Workload& wl, const TransportParams& params,
                     PolicyFactory policies, PolicyKeep keep, PolicyDone done)
    : Transport(net, params, std::move(policies), std::move(keep), std::move(done)) {
  const auto n = wl.flows.size();
  flows_.resize(n);
  total_ = n;
  hi_ = static_cast<std::uint32_t>(n);
  peak_records_ = n;
  // The lists of waiting entries exist only in workloads with dependencies.
  const bool deps = std::any_of(wl.flows.begin(), wl.flows.end(), [](const auto& s) { return !s.deps.empty(); });
  const bool start_deps =
      std::any_of(wl.flows.begin(), wl.flows.end(), [](const auto& s) { return !s.start_deps.empty(); });
  if (deps) dependents_.resize(n);
  if (start_deps) start_dependents_.resize(n);
  const auto hosts = static_cast<std::size_t>(net.topology().num_hosts);
  for (std::size_t i = 0; i < n; ++i) {
    const auto& s = wl.flows[i];
    auto& f = at(i);
    f.spec = &s;
    f.id = static_cast<std::uint32_t>(i);
    f.pinned = lb::is_pinned(s.lb);
    const auto check_host = [&](std::int32_t h, const char* what) {
      if (h < 0 || static_cast<std::size_t>(h) >= hosts)
        throw UserError("workload entry " + std::to_string(i) + ": " + what + " host " + std::to_string(h) +
                        " does not exist (the topology has " + std::to_string(hosts) + " hosts)");
    };
    check_host(s.src, "source");
    if (!s.is_compute()) {
      ++senders_pending_;
      check_host(s.dst, "destination");
      if (s.src == s.dst)
        throw UserError("workload entry " + std::to_string(i) +
                        ": source and destination are "
                        "the same host " +
                        std::to_string(s.src));
      if (s.bytes < 0) throw UserError("workload entry " + std::to_string(i) + ": negative size");
      f.npkts = static_cast<std::uint32_t>((s.bytes + p_.mtu - 1) / p_.mtu);
    }
    for (auto d : s.deps) {
      if (d >= n)
        throw UserError("workload entry " + std::to_string(i) + " depends on missing entry " + std::to_string(d));
      dependents_[d].push_back(static_cast<std::uint32_t>(i));
    }
    for (auto d : s.start_deps) {
      if (d >= n)
        throw UserError("workload entry " + std::to_string(i) + " depends on missing entry " + std::to_string(d));
      start_dependents_[d].push_back(static_cast<std::uint32_t>(i));
    }
    f.pending_deps = static_cast<std::uint32_t>(s.deps.size());
    f.pending_start_deps = static_cast<std::uint32_t>(s.start_deps.size());
  }
}

// Queues the start of every entry whose dependencies are met (streamed: the first entry; the others
// follow one by one, admit_next).
void Transport::start() {
  if (streaming()) {
    // The entry starts keep the insertion order they have when every start is queued at once (the
    // eager path): equal-time events run in the same order, so the run is the same.
    seq0_ = net_.events().reserve_seqs(total_);
    admit_next();
    return;
  }
  for (auto& f : flows_)
    if (f.pending_deps == 0 && f.pending_start_deps == 0) {
      net_.events().push(std::max(f.spec->start, net_.now()), net::kEvEntryStart, f.id);
      ++timed_pending_;
    }
}

// An entry whose last dependency was met starts at max(its start time, ready_time, now).
void Transport::make_ready(std::uint32_t id) {
  auto& f = at(id);
  if (f.pending_deps || f.pending_start_deps) return;
  net_.events().push(std::max({f.spec->start, f.ready_time, net_.now()}), net::kEvEntryStart, id);
  ++timed_pending_;
}

// kEvEntryStart: the entry starts. A computation takes its duration; a transfer gets its working
// state (FlowLive, congestion control, load balancer) and joins its host's active list.
void Transport::begin(std::uint32_t id) {
  auto& f = at(id);
  if (f.started) return;
  f.started = true;
  f.start_time = net_.now();
  if (!start_dependents_.empty()) {
    for (auto d : start_dependents_[id]) {
      auto& g = at(d);
      g.ready_time = std::max(g.ready_time, net_.now());
      --g.pending_start_deps;
      make_ready(d);
    }
    std::vector<std::uint32_t>().swap(start_dependents_[id]);
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
  f.live = std::make_unique<FlowLive>();
  if (++live_ > peak_live_) peak_live_ = live_;
  auto& L = *f.live;
  L.cc = make_cc(p_.cc);
  L.cc->set_line_rate(net_.port(net_.nic_port(s.src)).rate);
  L.paced = L.cc->paced();
  if (rccc_) L.rc_credit = static_cast<std::int32_t>(p_.rccc.initial_credit);  // speculative (rccc.h)
  f.lb = policies_(s, id);
  f.caps = f.lb->caps();
  // The sender's ring sized at once for what the initial window puts in play (its PSNs and the rest
  // of the first block; never more than the message), so that it does not grow through 1, 2, 4 ...
  // blocks at the start of every transfer.
  const double window = std::ceil(L.cc->cwnd() / static_cast<double>(p_.mtu + p_.header));
  L.sent.reserve(static_cast<std::uint32_t>(std::min(static_cast<double>(f.npkts), std::max(1.0, window) + 63)));
  add_active(f);
  net_.kick_nic(s.src);
}

// The entry is over at the receiver (or its computation ended): its dependents may start.
void Transport::complete(std::uint32_t id) {
  auto& f = at(id);
  if (f.finished) return;
  f.finished = true;
  f.finish_time = net_.now();
  ++completed_;
  if (f.sender_done) release(f);
  if (!dependents_.empty()) {
    for (auto d : dependents_[id]) {
      auto& g = at(d);
      g.ready_time = std::max(g.ready_time, net_.now() + g.spec->delay);
      --g.pending_deps;
      make_ready(d);
    }
    std::vector<std::uint32_t>().swap(dependents_[id]);
  }
  if (all_done() && (!p_.wait_senders || senders_pending_ == 0)) net_.stop();
}

// The transfer is over at both ends: only the FlowState (what flows.csv reports) stays. Late packets
// of the flow (duplicates, probes) are answered from scratch_ (on_data).
void Transport::release(FlowState& f) {
  if (!f.live) return;
  if (rccc_) rccc_flows_.erase(f.id);
  f.live.reset();
  --live_;
}

// A packet at its destination host: to the receiver (data, probes), the sender (ACK, NACK) or the
// pause handling (switch pause frames).
void Transport::on_packet(std::uint32_t pkt) {
  const Packet& p = net_.pkt(pkt);
  const std::uint32_t flow = p.flow;
  if (!held(flow)) [[unlikely]] {
    // A streamed entry already released: its sender was done, so an ACK, NACK or pause changes
    // nothing; no data packet of it was left in the network.
    if (p.type == PacketType::Data) throw std::logic_error("a data packet of a retired workload entry arrived");
    net_.packets().release(pkt);
    return;
  }
  switch (p.type) {
    case PacketType::Data:
      on_data(pkt);
      break;
    case PacketType::Ack:
      on_ack(pkt);
      break;
    case PacketType::Nack:
      on_nack(pkt);
      break;
    case PacketType::Pause:
      on_pause(pkt);
      break;
    case PacketType::Credit:
      on_credit(pkt);
      break;
  }
  net_.packets().release(pkt);
  if (streaming()) {
    try_release(flow);
    retire_done();
  }
}

// The transport's timers: entry starts, RTOs, computations' ends, ACK flushes, hold wake-ups, pacing
// slots and pause timeouts.
void Transport::on_event(const Event& e) {
  if (e.kind == net::kEvCreditPace) {  // obj = a host, not an entry
    rccc_pace(static_cast<std::int32_t>(e.obj));
    return;
  }
  if (e.kind != net::kEvEntryStart && !held(e.obj)) return;  // a timer of a released streamed entry
  switch (e.kind) {
    case net::kEvEntryStart:
      --timed_pending_;
      last_progress_ = net_.now();
      if (streaming()) admit_next();  // the next entry, shortly before its start
      begin(e.obj);
      break;
    case net::kEvRto: {
      auto& f = at(e.obj);
      if (f.live && f.live->rto_armed == e.time) on_rto(e.obj);  // otherwise a stale, superseded timer
      break;
    }
    case net::kEvComputeDone:
      --timed_pending_;
      last_progress_ = net_.now();
      complete(e.obj);
      break;
    case net::kEvAckFlush: {
      auto& f = at(e.obj);
      if (!f.live) break;  // over: nothing was pending (a finished receiver ACKs every arrival)
      f.live->ack_flush_armed = false;
      if (f.live->ack_pending) send_ack(f, *f.live, f.spec->dst, f.spec->src);
      break;
    }
    case net::kEvHoldWake:
      on_hold_wake(at(e.obj), e.time);
      break;
    case net::kEvPaceWake: {
      auto& f = at(e.obj);
      if (f.live && f.live->pace_wake == e.time) {
        f.live->pace_wake = kTimeNever;
        if (!f.sender_done) net_.kick_nic(f.spec->src);
      }
      break;
    }
    case net::kEvPauseTimeout:
      on_pause_timeout(at(e.obj), e.time);
      break;
    default:
      break;
  }
  if (streaming()) {
    try_release(e.obj);
    retire_done();
  }
}

}  // namespace lbsim::transport
