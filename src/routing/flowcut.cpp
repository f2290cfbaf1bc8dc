#include "routing/flowcut.h"

#include <algorithm>

#include "core/rng.h"
#include "routing/adaptive.h"
#include "routing/ecmp.h"
#include "routing/registry.h"
#include "routing/ugal.h"

namespace lbsim::routing {

// --- FlowKeyMap --------------------------------------------------------------------------------

std::size_t FlowKeyMap::slot(std::uint64_t key) const { return static_cast<std::size_t>(splitmix64(key)) & mask_; }

void FlowKeyMap::grow() {
  std::vector<std::uint64_t> old_keys = std::move(keys_);
  std::vector<std::uint32_t> old_vals = std::move(vals_);
  const std::size_t cap = old_keys.empty() ? 64 : old_keys.size() * 2;
  keys_.assign(cap, kEmpty);
  vals_.assign(cap, kNone);
  mask_ = cap - 1;
  size_ = 0;
  for (std::size_t i = 0; i < old_keys.size(); ++i)
    if (old_keys[i] != kEmpty) insert(old_keys[i], old_vals[i]);
}

void FlowKeyMap::insert(std::uint64_t key, std::uint32_t val) {
  if ((size_ + 1) * 2 > keys_.size()) grow();  // load factor <= 1/2
  std::size_t i = slot(key);
  while (keys_[i] != kEmpty && keys_[i] != key) i = (i + 1) & mask_;
  if (keys_[i] == kEmpty) ++size_;
  keys_[i] = key;
  vals_[i] = val;
}

void FlowKeyMap::erase(std::uint64_t key) {
  if (keys_.empty()) return;
  std::size_t i = slot(key);
  while (keys_[i] != key) {
    if (keys_[i] == kEmpty) return;
    i = (i + 1) & mask_;
  }
  // Backward-shift deletion: move later members of the probe run into the hole when their home slot
  // is not between the hole and their position, so lookups never need tombstones.
  for (std::size_t j = (i + 1) & mask_;; j = (j + 1) & mask_) {
    if (keys_[j] == kEmpty) break;
    const std::size_t home = slot(keys_[j]);
    const bool between = i <= j ? (home > i && home <= j) : (home > i || home <= j);
    if (between) continue;
    keys_[i] = keys_[j];
    vals_[i] = vals_[j];
    i = j;
  }
  keys_[i] = kEmpty;
  vals_[i] = kNone;
  --size_;
}

// --- choice of a new flowcut / flowlet -----------------------------------------------------------

ChoiceRouters make_choice_routers(const RoutingContext& c, const std::string& select) {
  const bool ugal = select == "ugal" || (select == "auto" && c.tables.topology().minimal_one_global_hop);
  ChoiceRouters r;
  if (ugal) {
    // [Flowcut] sec. II-A: on Dragonfly the new flowcut's path is UGAL's choice; UGAL decides at the
    // source switch and the packet then follows that path, so the same router serves as the plain one.
    r.choice = std::make_unique<UgalRouter>(c.tables, c.net, c.seed, UgalMode::Local);
  } else {
    // Fat trees: up/down routing with the least-loaded up-port (the adaptive router), plain ECMP where
    // a switch keeps no state.
    r.choice = std::make_unique<AdaptiveRouter>(c.tables, c.net, c.seed);
    r.plain = std::make_unique<EcmpRouter>(c.tables, c.seed);
  }
  return r;
}

// --- FlowcutRouter -----------------------------------------------------------------------------

FlowcutRouter::FlowcutRouter(FlowcutMode mode, const lb::FlowcutParams& p, const MinimalTables& tables,
                             net::Network& net, ChoiceRouters routers, SimTime base_rtt)
    : mode_(mode),
      p_(p),
      tables_(tables),
      topo_(tables.topology()),
      net_(net),
      choice_(std::move(routers.choice)),
      plain_(std::move(routers.plain)),
      base_rtt_(base_rtt),
      rmin_(static_cast<std::size_t>(topo_.num_switches())),
      usage_(static_cast<std::size_t>(topo_.num_switches())) {
  plain_ptr_ = plain_ ? plain_.get() : choice_.get();
}

const FlowcutEntry* FlowcutRouter::entry(std::int32_t node, std::uint32_t flow) const {
  const std::uint32_t idx = map_.find(key(node, flow));
  return idx == FlowKeyMap::kNone ? nullptr : &pool_[idx];
}

std::int32_t FlowcutRouter::route(std::int32_t node, net::Packet& p) {
  switch (p.type) {
    case net::PacketType::Data: {
      const bool ingress = node == topo_.host_switch(p.src);
      if (mode_ == FlowcutMode::Full || ingress) return route_data(node, p, ingress);
      return plain_ptr_->route(node, p);
    }
    case net::PacketType::Ack:
    case net::PacketType::Nack: {
      // The ACK's destination is the flow's source: its switch is the flow's ingress switch.
      const bool ingress = node == topo_.host_switch(p.dst);
      if (mode_ == FlowcutMode::Full || ingress) return route_ack(node, p, ingress);
      return plain_ptr_->route(node, p);
    }
    default:
      return plain_ptr_->route(node, p);
  }
}

std::int32_t FlowcutRouter::route_data(std::int32_t node, net::Packet& p, bool ingress) {
  const std::uint64_t k = key(node, p.flow);
  std::uint32_t idx = map_.find(k);
  std::int32_t out;
  if (idx == FlowKeyMap::kNone) {
    // A new flowcut (sec. II-A): nothing of this flow is in flight beyond this switch, so the switch's
    // adaptive choice may send it anywhere without reordering it.
    out = choice_->route(node, p);
    if (out < 0) return out;
    idx = take_slot(pool_, free_);
    FlowcutEntry& e = pool_[idx];
    e = FlowcutEntry{};
    e.out = static_cast<std::int16_t>(out);
    e.in = p.in_port;
    e.ev = p.ev;
    if (ingress && mode_ == FlowcutMode::Ingress) {
      // Ingress only: the switches beyond keep no state and hash the EV, so the ingress switch gives
      // every new flowcut a new EV (a new path beyond its own adaptive first hop) and stamps it on
      // every packet of the flowcut (16 bits, as the EVs of [REPS] Table 1).
      e.ev = static_cast<std::uint32_t>(splitmix64(k + (st_.flowcuts << 32)) & 0xFFFFu);
      p.ev = e.ev;
    }
    e.route_aux = p.route_aux;
    e.route_state = p.route_state;
    e.ds = lb::DrainState::initial(p_.reference, base_rtt_);
    map_.insert(k, idx);
    usage_[sw(node)].change(+1, net_.now());
    ++st_.flowcuts;
  } else {
    FlowcutEntry& e = pool_[idx];
    // Same flowcut: same port and the same path state beyond this switch.
    if (ingress && mode_ == FlowcutMode::Ingress) p.ev = e.ev;
    p.route_aux = e.route_aux;
    p.route_state = e.route_state;
    out = e.out;
  }
  // The bytes the data packet had when the source sent it (a trimmed packet keeps its payload count),
  // which is what its ACK or NACK will subtract.
  pool_[idx].inflight += p.trimmed() ? p.size + p.payload : p.size;
  return out;
}

std::int32_t FlowcutRouter::route_ack(std::int32_t node, net::Packet& p, bool ingress) {
  const std::uint64_t k = key(node, p.flow);
  const std::uint32_t idx = map_.find(k);
  if (idx == FlowKeyMap::kNone) {
    // No entry: an ACK of bytes this switch never counted (cannot happen without loss). Route it as
    // any other packet.
    ++st_.stray_acks;
    return plain_ptr_->route(node, p);
  }
  FlowcutEntry& e = pool_[idx];
  // Full switch: back through the port the data came in on, i.e. the reverse of the data path.
  const std::int32_t out = mode_ == FlowcutMode::Full ? static_cast<std::int32_t>(e.in) : plain_ptr_->route(node, p);
  if (ingress && p.type == net::PacketType::Ack) sample(node, e, p);
  e.inflight -= p.payload;
  if (e.inflight <= 0) {
    if (e.draining) {
      st_.drain_time += net_.now() - e.drain_start;
      if (ingress) send_pause(node, p.flow, p.dst, true);
    }
    release(node, k, idx);
  }
  return out;
}

void FlowcutRouter::sample(std::int32_t node, FlowcutEntry& e, const net::Packet& a) {
  if (e.draining || a.payload == 0) return;
  const SimTime now = net_.now();
  // The time the data packet entered this switch: the NIC's send stamp plus the first hop.
  const net::Port& nic = net_.port(net_.nic_port(a.dst));
  const Bytes bytes = a.payload;
  const SimTime entered = a.sent_time + nic.serialization(bytes) + nic.latency + nic.arrive_extra;
  const SimTime rtt = now - entered;
  const int hops = a.echo_hops;
  // p*h*t with t at the rate of this flowcut's output port.
  const SimTime tx = net_.port(net_.port_id(node, e.out)).serialization(bytes) * hops;
  if (lb::flowcut_sample(p_, rmin_[sw(node)], e.ds, rtt, hops, tx)) {
    e.draining = true;
    e.drain_start = now;
    ++st_.drains;
    send_pause(node, a.flow, a.dst, false);
  }
}

void FlowcutRouter::send_pause(std::int32_t node, std::uint32_t flow, std::int32_t host, bool resume) {
  // An FGFC frame (per flow) or a PFC frame (the source NIC's class) from the ingress switch to the
  // source: a control packet of flowcut.pause_bytes through the host port's priority queue, so it
  // takes that link's serialization and latency (sec. II-B).
  const std::uint32_t pi = net_.packets().alloc();
  net::Packet& q = net_.pkt(pi);
  q.type = net::PacketType::Pause;
  q.flow = flow;
  q.src = host;
  q.dst = host;
  q.size = static_cast<std::uint32_t>(p_.pause_bytes);
  q.sent_time = net_.now();
  if (resume) q.flags |= net::kFlagResume;
  if (p_.pause == lb::FlowcutPause::Pfc) q.flags |= net::kFlagClassPause;
  ++(resume ? st_.xon : st_.xoff);
  net_.enqueue(net_.port_id(node, tables_.host_port(host)), pi);
}

void FlowcutRouter::release(std::int32_t node, std::uint64_t k, std::uint32_t idx) {
  map_.erase(k);
  free_.push_back(idx);
  usage_[sw(node)].change(-1, net_.now());
}

nlohmann::json FlowcutRouter::summary(SimTime end) const {
  const std::size_t bpe = mode_ == FlowcutMode::Full ? lb::kFlowcutEntryBytesFull : lb::kFlowcutEntryBytes;
  std::uint32_t peak = 0;
  double peak_sum = 0, mean_max = 0, mean_sum = 0;
  std::size_t n = 0;
  for (const auto& u : usage_) {
    if (u.peak == 0) continue;
    ++n;
    peak = std::max(peak, u.peak);
    peak_sum += u.peak;
    const double m = u.mean(end);
    mean_max = std::max(mean_max, m);
    mean_sum += m;
  }
  const auto b = static_cast<double>(bpe);
  return {{"variant", mode_ == FlowcutMode::Full ? "full" : "ingress"},
          {"flowcuts", st_.flowcuts},
          {"drains", st_.drains},
          {"xoff_sent", st_.xoff},
          {"xon_sent", st_.xon},
          {"drain_us_total", to_us(st_.drain_time)},
          {"stray_acks", st_.stray_acks},
          {"entries_at_end", map_.size()},
          {"entry_bytes", bpe},
          {"min_rtt_table_bytes", lb::MinRttTable::bytes()},
          {"memory",
           {{"devices", n},
            {"peak_entries_max", peak},
            {"peak_bytes_max", peak * bpe},
            {"peak_bytes_mean", n ? peak_sum * b / static_cast<double>(n) : 0.0},
            {"mean_bytes_max", mean_max * b},
            {"mean_bytes_mean", n ? mean_sum * b / static_cast<double>(n) : 0.0}}}};
}

namespace {

std::unique_ptr<net::Router> make_flowcut(const RoutingContext& c, FlowcutMode mode) {
  const lb::FlowcutParams p = lb::flowcut_params(c.cfg);
  return std::make_unique<FlowcutRouter>(mode, p, c.tables, c.net, make_choice_routers(c, p.select), c.base_rtt);
}

nlohmann::json summarize(const net::Router& r, SimTime end) {
  return static_cast<const FlowcutRouter&>(r).summary(end);
}

const RegisterRouting kFull{{{"flowcut_full",
                              "Flowcut, full switch: a Flowcut table in every switch, ACKs retrace the data path, the "
                              "ingress switch drains congested flows ([Flowcut] sec. II).",
                              {},
                              {}},
                             [](const RoutingContext& c) { return make_flowcut(c, FlowcutMode::Full); },
                             "flowcut",
                             summarize}};
const RegisterRouting kIngress{{{"flowcut_ingress",
                                 "Flowcut, ingress only: a Flowcut table in the source's first switch only; ACKs take "
                                 "any path ([Flowcut] sec. II-C).",
                                 {},
                                 {}},
                                [](const RoutingContext& c) { return make_flowcut(c, FlowcutMode::Ingress); },
                                "flowcut",
                                summarize}};

}  // namespace

}  // namespace lbsim::routing
