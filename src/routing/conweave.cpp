// ConWeave: rerouting at the source ToR, reordering at the destination ToR ([ConWeave] sec. 3);
// see conweave.h.
#include "routing/conweave.h"

#include <algorithm>

#include "core/error.h"
#include "routing/registry.h"

namespace lbsim::routing {

namespace {
// The ConWeave header in the packet's routing scratch ([ConWeave] sec. 3.4, Table 2 packet types):
// route_aux = path index; route_state = flags. Epoch and timestamps: ConWeaveRouter::meta_.
constexpr std::uint8_t kTagged = 1, kInit = 2, kTail = 4, kRerouted = 8;
std::uint64_t pair_of(std::int32_t a, std::int32_t b) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(a)) << 32) | static_cast<std::uint32_t>(b);
}
}  // namespace

ConWeaveRouter::ConWeaveRouter(const MinimalTables& tables, net::Network& net, PathRule rule, int k,
                               SimTime switch_latency, Bytes wire_bytes, const ConWeaveParams& p, std::uint64_t seed)
    : tables_(tables),
      topo_(tables.topology()),
      net_(net),
      paths_(tables, rule, k, switch_latency, wire_bytes),
      ecmp_(tables, seed),
      p_(p),
      wire_(wire_bytes),
      rng_(seed, hash_name("conweave")) {
  net_.on(net::kEvRouterTimer, this);
}

ConWeaveRouter::Flow* ConWeaveRouter::find(std::uint64_t key) {
  const auto i = map_.find(key);
  return i == FlowKeyMap::kNone ? nullptr : &pool_[i];
}

ConWeaveRouter::Flow& ConWeaveRouter::get(std::uint64_t key, bool& created) {
  created = false;
  if (Flow* f = find(key)) return *f;
  created = true;
  if (map_.size() >= 2 * swept_size_ && map_.size() >= 4096) sweep(net_.now());
  const std::uint32_t idx = take_slot(pool_, free_);
  map_.insert(key, idx);
  pool_[idx] = Flow{};
  pool_[idx].key = key;
  return pool_[idx];
}

// A flow's state goes when both ToRs have not seen it for theta_inactive and nothing is held: a
// packet after that is a new connection ([ConWeave] sec. 3.2, the entry's expiry).
void ConWeaveRouter::sweep(SimTime now) {
  for (std::uint32_t i = 0; i < pool_.size(); ++i) {
    Flow& f = pool_[i];
    if (f.key == ~0ULL || f.q_len > 0 || now - std::max(f.active, f.last_rx) <= p_.inactive) continue;
    map_.erase(f.key);
    f.key = ~0ULL;
    free_.push_back(i);
  }
  swept_size_ = map_.size();
}

void ConWeaveRouter::post(SimTime at, const Msg& m) {
  std::uint32_t i;
  if (msg_free_.empty()) {
    i = static_cast<std::uint32_t>(msgs_.size());
    msgs_.push_back(m);
  } else {
    i = msg_free_.back();
    msg_free_.pop_back();
    msgs_[i] = m;
  }
  net_.events().push(at, net::kEvRouterTimer, i);
}

// Idle latency of a control packet from ToR `from` to ToR `to` along the shortest path (lowest port
// on ties): serialisation, propagation and switch latency per hop, no queueing (ConWeave's control
// packets have the highest priority).
SimTime ConWeaveRouter::ctrl_delay(std::int32_t from, std::int32_t to) {
  const auto key = pair_of(from, to);
  if (auto it = ctrl_delay_.find(key); it != ctrl_delay_.end()) return it->second;
  SimTime d = 0;
  std::int32_t node = from;
  while (node != to) {
    const auto c = tables_.candidates(node, to);
    if (c.empty()) break;
    const auto& port = net_.port(net_.port_id(node, c[0]));
    d += port.serialization(p_.ctrl_bytes) + port.latency + port.arrive_extra;
    node = port.peer;
  }
  ctrl_delay_.emplace(key, d);
  return d;
}

SimTime ConWeaveRouter::path_rtt(std::int32_t a, std::int32_t b, std::size_t path) {
  // Computed once per path from the idle network (the ToR's configured base RTT), so a link that
  // slows down later (a degraded link) does not move the deadline.
  auto& cached = rtt_[pair_of(a, b)];
  const auto& list = paths_.paths(a, b);
  if (cached.size() < list.size()) cached.assign(list.size(), -1);
  if (cached[path] >= 0) return cached[path];
  const auto& sp = list[path];
  SimTime d = 0;
  for (std::size_t i = 0; i < sp.out_ports.size(); ++i) {
    const auto& port = net_.port(net_.port_id(sp.nodes[i], sp.out_ports[i]));
    d += port.serialization(wire_) + port.latency + port.arrive_extra;
  }
  cached[path] = d + ctrl_delay(b, a);
  return cached[path];
}

bool ConWeaveRouter::busy(std::int32_t a, std::int32_t b, std::size_t path, SimTime now) {
  const auto it = busy_.find(pair_of(a, b));
  return it != busy_.end() && path < it->second.size() && it->second[path] > now;
}

// [ConWeave] sec. 3.2 "path-aware rerouting": two candidates drawn at random among `scratch_`,
// the first one not marked busy; `good` = false when both are busy (then the first draw).
std::int32_t ConWeaveRouter::pick(std::int32_t a, std::int32_t b, SimTime now, bool& good) {
  const auto draw = [&]() { return scratch_[rng_.below(scratch_.size())]; };
  const std::int32_t c1 = draw(), c2 = draw();
  good = true;
  if (!p_.path_aware) return c1;
  if (!busy(a, b, static_cast<std::size_t>(c1), now)) return c1;
  if (!busy(a, b, static_cast<std::size_t>(c2), now)) return c2;
  good = false;
  return c1;
}

// The paths a choice draws from: every usable candidate but `exclude`, or with `fewest_hops` only
// those with the fewest switches (the minimal path on the Dragonfly; on Rail the paths through the
// source's or the destination's own rail).
void ConWeaveRouter::choices(std::int32_t a, std::int32_t b, std::size_t n, std::int32_t exclude, bool fewest_hops) {
  const auto& list = paths_.paths(a, b);
  std::size_t least = list[0].nodes.size();
  if (fewest_hops)
    for (std::size_t i = 0; i < n; ++i) least = std::min(least, list[i].nodes.size());
  scratch_.clear();
  for (std::size_t i = 0; i < n; ++i)
    if (static_cast<std::int32_t>(i) != exclude && (!fewest_hops || list[i].nodes.size() == least))
      scratch_.push_back(static_cast<std::int16_t>(i));
}

std::int32_t ConWeaveRouter::flow_path(std::uint32_t flow) const {
  const auto i = map_.find(flow);
  return i == FlowKeyMap::kNone ? -1 : pool_[i].path;
}

// [ConWeave] sec. 3.2: the source ToR's per-packet pipeline (epoch, reply deadline, TAIL, new path).
std::int32_t ConWeaveRouter::source_tor([[maybe_unused]] std::int32_t node, net::Packet& p, std::int32_t a,
                                        std::int32_t b, std::size_t n) {
  const SimTime now = net_.now();
  bool created = false;
  Flow& f = get(p.flow, created);
  const bool expired = created || f.path < 0 || now - f.active > p_.inactive;
  bool stabilized = false;
  if (expired) {
    f.stabilized = false;
  } else if (f.stabilized) {
    stabilized = true;
    f.stabilized = false;
  }
  f.active = now;
  std::uint8_t flags = kTagged;
  std::int16_t use;
  if (expired || stabilized) {
    // A new epoch: RTT_REQUEST on its first packet. After inactivity the path is chosen afresh (a
    // new connection: the first candidate with first_shortest, else path-aware random).
    if (created) ++st_.flows;
    if (expired) {
      bool good = true;
      const std::int16_t old = f.path;
      choices(a, b, n, -1, p_.first_shortest && f.path < 0);
      const std::int32_t c = pick(a, b, now, good);
      if (good || f.path < 0) f.path = static_cast<std::int16_t>(c);
      if (old >= 0 && f.path != old) ++st_.expiry_moves;
    }
    ++f.epoch;
    ++st_.epochs;
    f.phase = 0;
    f.tail_time = 0;
    f.reply_deadline = now + path_rtt(a, b, static_cast<std::size_t>(f.path)) + p_.reply_margin;
    flags |= kInit;
    use = f.path;
  } else if (f.phase == 0 && now > f.reply_deadline) {
    // theta_reply passed without RTT_REPLY: this packet is the old path's TAIL, the rest of the
    // epoch goes on a new path (if one is not busy) as REROUTED packets; no other reroute this epoch.
    ++st_.tails;
    flags |= kTail;
    use = f.path;
    f.phase = 1;
    f.tail_time = now;
    f.reply_deadline = kTimeNever;
    bool good = true;
    choices(a, b, n, f.path, false);
    const std::int32_t c = pick(a, b, now, good);
    if (good) {
      f.path = static_cast<std::int16_t>(c);
      ++st_.reroutes;
    }
  } else {
    use = f.path;
    if (f.phase == 1) flags |= kRerouted;
  }
  const std::uint32_t idx = net_.routed_packet();
  if (idx >= meta_.size()) meta_.resize(std::max<std::size_t>(net_.packets().capacity(), idx + 1));
  meta_[idx] = Meta{f.epoch, now, f.tail_time};
  p.route_aux = use;
  p.route_state = flags;
  return paths_.paths(a, b)[static_cast<std::size_t>(use)].out_ports[0];
}

void ConWeaveRouter::release(Flow& f) {
  std::uint32_t i = f.q_head;
  while (i != net::kNil) {
    const std::uint32_t next = net_.pkt(i).next;
    net_.enqueue_held(f.q_port, i);  // in arrival order, so in the sender's order
    i = next;
  }
  held_now_ -= f.q_len;
  f.q_head = f.q_tail = net::kNil;
  f.q_len = 0;
  ++f.token;  // the resume timer of this queue is void
}

// [ConWeave] sec. 3.3: the destination ToR (RTT_REPLY, NOTIFY, reorder queue, CLEAR).
std::int32_t ConWeaveRouter::dest_tor(std::int32_t node, net::Packet& p) {
  const SimTime now = net_.now();
  const std::int32_t a = topo_.host_switch(p.src);
  const std::int32_t hp = tables_.host_port(p.dst);
  const std::uint32_t idx = net_.routed_packet();
  const Meta m = meta_[idx];
  const std::uint8_t fl = p.route_state;
  p.route_state = 0;
  bool created = false;
  Flow& f = get(p.flow, created);
  f.last_rx = now;
  if (fl & kInit) {
    ++st_.replies;
    post(now + ctrl_delay(node, a), Msg{p.flow, m.epoch, a, node, -1, MsgKind::Reply});
  }
  if (p.ecn()) {
    ++st_.notifies;
    post(now + ctrl_delay(node, a),
         Msg{p.flow, m.epoch, a, node, static_cast<std::int16_t>(p.route_aux), MsgKind::Notify});
  }
  if (m.epoch < f.rx_epoch) return hp;  // an older epoch: nothing to order against
  if (m.epoch > f.rx_epoch) {
    if (f.q_len) {  // a new epoch overtook an unfinished reordering: let it go
      ++st_.flush_epoch;
      release(f);
    }
    f.rx_epoch = m.epoch;
    f.rx_phase = 0;
    f.phase0_valid = false;
  }
  if (!(fl & kRerouted)) {  // a phase-0 packet: its timestamps predict the TAIL's arrival
    f.phase0_tx = m.tx;
    f.phase0_rx = now;
    f.phase0_valid = true;
  }
  if (fl & kTail) {
    ++st_.clears;
    post(now + ctrl_delay(node, a), Msg{p.flow, m.epoch, a, node, -1, MsgKind::Clear});
    f.rx_phase = 1;
    if (f.q_len == 0) return hp;
    // The TAIL first, then what waited for it.
    net_.enqueue(net_.port_id(node, hp), idx);
    ++st_.flush_tail;
    release(f);
    return net::kRouteHeld;
  }
  if ((fl & kRerouted) && f.rx_phase == 0) {
    // Ahead of its TAIL: hold it.
    net::Packet& q = net_.pkt(idx);
    q.next = net::kNil;
    if (f.q_len == 0) {
      f.q_head = idx;
      f.q_port = net_.port_id(node, hp);
      ++f.token;
      SimTime at = now + p_.resume_default;
      if (f.phase0_valid && m.tail > 0) at = std::max(now, f.phase0_rx + (m.tail - f.phase0_tx) + p_.resume_margin);
      post(at, Msg{p.flow, f.token, a, node, -1, MsgKind::Resume});
    } else {
      net_.pkt(f.q_tail).next = idx;
    }
    f.q_tail = idx;
    net_.hold(idx);  // it waits in this ToR's buffer: PFC / credits count it (network.h)
    ++f.q_len;
    ++held_now_;
    ++st_.held;
    st_.max_queue = std::max<std::uint64_t>(st_.max_queue, f.q_len);
    st_.max_held = std::max(st_.max_held, held_now_);
    return net::kRouteHeld;
  }
  return hp;
}

void ConWeaveRouter::on_event(const Event& e) {
  const Msg m = msgs_[e.obj];
  msg_free_.push_back(e.obj);
  Flow* f = find(m.flow);
  switch (m.kind) {
    case MsgKind::Reply:
      // In time (before the deadline, same epoch, no TAIL yet): the path is fine, the next packet
      // starts a new epoch with a new RTT_REQUEST (probing about once per RTT). A late reply is
      // ignored: the next packet becomes the TAIL.
      if (f && f->epoch == m.epoch && f->phase == 0 && f->reply_deadline != kTimeNever &&
          net_.now() < f->reply_deadline) {
        f->reply_deadline = kTimeNever;
        f->stabilized = true;
        ++st_.timely_replies;
      }
      break;
    case MsgKind::Clear:  // the TAIL arrived: the reordering is over, a new epoch may start
      if (f && f->epoch == m.epoch && f->phase == 1) f->stabilized = true;
      break;
    case MsgKind::Notify: {
      auto& v = busy_[pair_of(m.a, m.b)];
      const auto n = paths_.paths(m.a, m.b).size();
      if (v.size() < n) v.assign(n, 0);
      v[static_cast<std::size_t>(m.path)] = net_.now() + p_.path_busy;
      break;
    }
    case MsgKind::Resume:
      if (f && f->token == m.epoch && f->q_len > 0) {
        ++st_.flush_timeout;
        f->rx_phase = 1;  // the TAIL is overdue: what follows passes
        release(*f);
      }
      break;
  }
}

std::int32_t ConWeaveRouter::route(std::int32_t node, net::Packet& p) {
  if (p.type != net::PacketType::Data) return ecmp_.route(node, p);
  const std::int32_t a = topo_.host_switch(p.src), b = topo_.host_switch(p.dst);
  if (a == b) return tables_.host_port(p.dst);
  if (p.hops == 1) {
    const auto& list = paths_.paths(a, b);
    // Under the yen rule ConWeave's paths are the equal-cost ones (the shortest of the list, which
    // Yen orders by hops: one per spine on a leaf-spine); the Rail and Dragonfly rules give theirs.
    std::size_t n = list.size();
    if (paths_.rule() == PathRule::Yen)
      n = static_cast<std::size_t>(std::count_if(
          list.begin(), list.end(), [&](const SourcePath& sp) { return sp.nodes.size() == list[0].nodes.size(); }));
    if (n < 2) return ecmp_.route(node, p);  // one path: nothing to choose or reorder
    return source_tor(node, p, a, b, n);
  }
  if (!(p.route_state & kTagged)) return ecmp_.route(node, p);
  const auto& path = paths_.paths(a, b)[static_cast<std::size_t>(p.route_aux)];
  const std::size_t k = static_cast<std::size_t>(p.hops) - 1;
  if (k >= path.nodes.size() || path.nodes[k] != node) {
    // Moved off its path by something else (a failure-masking detour): ECMP from here, untagged.
    ++st_.off_path;
    p.route_state = 0;
    return ecmp_.route(node, p);
  }
  if (k + 1 == path.nodes.size()) return dest_tor(node, p);
  return path.out_ports[k];
}

nlohmann::json ConWeaveRouter::summary() const {
  return {{"flows", st_.flows},
          {"epochs", st_.epochs},
          {"rtt_replies", st_.replies},
          {"timely_replies", st_.timely_replies},
          {"tails", st_.tails},
          {"reroutes", st_.reroutes},
          {"expiry_moves", st_.expiry_moves},
          {"clears", st_.clears},
          {"notifies", st_.notifies},
          {"held_packets", st_.held},
          {"released_by_tail", st_.flush_tail},
          {"released_by_timeout", st_.flush_timeout},
          {"released_by_new_epoch", st_.flush_epoch},
          {"max_reorder_queue", st_.max_queue},
          {"max_held", st_.max_held},
          {"off_path", st_.off_path},
          {"path_rule", CandidatePaths::rule_name(paths_.rule())},
          {"reply_margin_us", to_us(p_.reply_margin)},
          {"path_busy_us", to_us(p_.path_busy)},
          {"inactive_us", to_us(p_.inactive)},
          {"resume_margin_us", to_us(p_.resume_margin)},
          {"resume_default_us", to_us(p_.resume_default)}};
}

namespace {
using namespace config;
const RegisterRouting kConWeave{
    {{"conweave",
      "ConWeave: per-flow RTT probing from the source ToR, reroute (TAIL / REROUTED) when no RTT_REPLY comes within "
      "theta_reply, to a path not marked busy by NOTIFY; the destination ToR holds rerouted packets until the TAIL "
      "([ConWeave] sec. 3; docs/baselines.md). Paths: the LAPS candidates (routing.source_paths).",
      {
          real("routing.conweave_reply_margin_us", 4, "us",
               "conweave: theta_reply = the path's base RTT (ToR to ToR and a control packet back) + this (the "
               "authors' ns-3 default: 4).")
              .range(0, 1e9),
          real("routing.conweave_path_busy_us", 8, "us",
               "conweave: theta_path_busy, how long a NOTIFY marks a path busy (the authors' ns-3 default: 8).")
              .range(0, 1e9),
          real("routing.conweave_inactive_us", 1000, "us",
               "conweave: theta_inactive, a flow idle this long at its source ToR starts a new epoch on a freshly "
               "chosen path (the authors' ns-3 default: 1000).")
              .range(1e-3, 1e9),
          real("routing.conweave_resume_margin_us", 32, "us",
               "conweave: added to the TAIL's expected arrival before a reorder queue is released without it (the "
               "authors' ns-3 default: 32).")
              .range(0, 1e9),
          real(
              "routing.conweave_resume_default_us", 500, "us",
              "conweave: reorder queue wait when no phase-0 packet predicts the TAIL (the authors' ns-3 default: 500).")
              .range(0, 1e9),
          flag("routing.conweave_path_aware", true,
               "conweave: the new path is the first of two random candidates not marked busy by a NOTIFY ([ConWeave] "
               "sec. 3.2); false = a random candidate."),
          text("routing.conweave_first_path", "random",
               "conweave: a new flow's path: random (path-aware draw among the pair's candidates, ConWeave) or "
               "shortest (path-aware draw among the candidates with the fewest switches: the minimal path on the "
               "Dragonfly, the source's or destination's rail on Rail).")
              .one_of({"random", "shortest"}),
      },
      {}},
     [](const RoutingContext& c) -> std::unique_ptr<net::Router> {
       const PathRule rule = CandidatePaths::checked_rule(c);
       ConWeaveParams p;
       p.reply_margin = from_us(c.cfg.real("routing.conweave_reply_margin_us"));
       p.path_busy = from_us(c.cfg.real("routing.conweave_path_busy_us"));
       p.inactive = from_us(c.cfg.real("routing.conweave_inactive_us"));
       p.resume_margin = from_us(c.cfg.real("routing.conweave_resume_margin_us"));
       p.resume_default = from_us(c.cfg.real("routing.conweave_resume_default_us"));
       p.path_aware = c.cfg.flag("routing.conweave_path_aware");
       p.first_shortest = c.cfg.text("routing.conweave_first_path") == "shortest";
       p.ctrl_bytes = c.cfg.integer("network.header_bytes");
       return std::make_unique<ConWeaveRouter>(
           c.tables, c.net, rule, static_cast<int>(c.cfg.integer("routing.source_paths_k")),
           from_ns(c.cfg.real("network.switch_latency_ns")),
           c.cfg.integer("network.mtu") + c.cfg.integer("network.header_bytes"), p, c.seed);
     },
     "conweave",
     [](const net::Router& r, SimTime) -> nlohmann::json { return static_cast<const ConWeaveRouter&>(r).summary(); }}};
}  // namespace

}  // namespace lbsim::routing
