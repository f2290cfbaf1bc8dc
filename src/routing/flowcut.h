// Flowcut switching in the switches ([Flowcut] sec. II-A to II-C, Table II): `flowcut_full` keeps a
// Flowcut table in every switch, `flowcut_ingress` only in the flow's first switch (the source's ToR).
//
// Flowcut table (sec. II-A): one entry per active flow and switch, keyed by the flow, holding the
// output port of the current flowcut, the input port its packets came in on (full switch only: the
// ACKs' way back), the routing state the first packet left with (so that every packet of the flowcut
// takes the same path beyond this switch, e.g. UGAL's Valiant path), and the bytes in flight between
// this switch and the destination. A data packet without an entry creates one: a new flowcut, whose
// port is the switch's adaptive choice (flowcut.select: the least-loaded shortest-path port, i.e.
// up/down routing with the least-loaded up-port on fat trees; UGAL-L on Dragonfly). Every data packet
// adds its bytes; every ACK or NACK (which carries the size of the data packet it answers,
// net::Packet::payload) subtracts them, and the entry goes away when nothing is in flight. Then the
// next packet starts a new flowcut, possibly on another path, without overtaking anything.
//
// ACK routing: full switch: an ACK leaves each switch through the entry's input port, so it retraces
// the data path (every switch on the path sees the ACKs of the packets it counted). Ingress only: the
// ACK takes any path (the network's ECMP / UGAL), since only the ingress switch counts.
//
// Draining (sec. II-B) at the ingress switch (both variants): the switch measures the RTT of every
// ACK of a flow it holds an entry for, from the time the data packet entered it to the time the ACK
// comes back. It does not stamp the packet: the NIC stamps the send time (echoed by the ACK), and
// the NIC starts a packet the moment it stamps it, so the ingress arrival time is that stamp plus the
// first link's serialization, latency and switch latency. With the hop count echoed by the ACK the
// detector of lb/flowcut.h decides; a flow to drain gets an XOFF frame (FGFC, per flow) or a class
// pause (PFC) sent to its source through the host port's priority queue. When the entry's in-flight
// bytes reach zero the switch removes it and sends XON. The transport (NIC) stops the flow on XOFF
// and resumes it on XON or after its pause timeout (sec. IV-A, transport.pause_timeout_us).
//
// In ingress mode the ingress switch also stamps the flowcut's EV on every packet of the flowcut, so
// that switches without state hash every packet of the flowcut to the same path whatever the sender's
// load balancer does.
//
// Memory: entries per switch (peak and time-average) x Table III's bytes per entry, in summary.json.
// The table is an open-addressing hash map over (switch, flow) whose storage grows with the largest
// number of simultaneous entries; nothing is allocated per packet.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "lb/flowcut.h"
#include "net/network.h"
#include "routing/registry.h"
#include "routing/tables.h"

namespace lbsim::routing {

enum class FlowcutMode : std::uint8_t { Ingress, Full };

// The routers behind a stateful switch: `choice` picks the port of a new flowcut (or flowlet);
// `plain` routes where a switch keeps no state and routes the ACKs that need not retrace the data
// path (null: `choice` does both).
struct ChoiceRouters {
  std::unique_ptr<net::Router> choice, plain;
};
// select = least_loaded: AdaptiveRouter + EcmpRouter; ugal: UgalRouter (UGAL-L) for both; auto = ugal
// where the topology's minimal routes have one global hop (Dragonfly), else least_loaded.
ChoiceRouters make_choice_routers(const RoutingContext& c, const std::string& select);

// (switch, flow) -> entry index; linear probing, backward-shift deletion (no tombstones).
class FlowKeyMap {
 public:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  std::uint32_t find(std::uint64_t key) const {
    if (keys_.empty()) return kNone;
    for (std::size_t i = slot(key);; i = (i + 1) & mask_) {
      if (keys_[i] == kEmpty) return kNone;
      if (keys_[i] == key) return vals_[i];
    }
  }
  void insert(std::uint64_t key, std::uint32_t val);
  void erase(std::uint64_t key);
  std::size_t size() const { return size_; }

 private:
  static constexpr std::uint64_t kEmpty = ~0ULL;
  std::size_t slot(std::uint64_t key) const;
  void grow();
  std::vector<std::uint64_t> keys_;
  std::vector<std::uint32_t> vals_;
  std::size_t mask_ = 0, size_ = 0;
};

// A slot of an entry pool with a free list (the stateful routers' per-flow entries): a freed
// index if there is one, else a new default-constructed entry at the end.
template <class Pool>
std::uint32_t take_slot(Pool& pool, std::vector<std::uint32_t>& free_slots) {
  if (free_slots.empty()) {
    pool.emplace_back();
    return static_cast<std::uint32_t>(pool.size() - 1);
  }
  const std::uint32_t idx = free_slots.back();
  free_slots.pop_back();
  return idx;
}

struct FlowcutEntry {
  Bytes inflight = 0;
  std::int32_t route_aux = -1;
  std::int16_t out = -1;
  std::uint16_t in = 0;
  std::uint32_t ev = 0;
  std::uint8_t route_state = 0;
  bool draining = false;
  SimTime drain_start = 0;
  lb::DrainState ds;
};

class FlowcutRouter final : public net::Router {
 public:
  // `routers.plain` serves ingress mode beyond the ingress switch and the ACKs of ingress mode.
  FlowcutRouter(FlowcutMode mode, const lb::FlowcutParams& p, const MinimalTables& tables, net::Network& net,
                ChoiceRouters routers, SimTime base_rtt);
  std::int32_t route(std::int32_t node, net::Packet& p) override;

  FlowcutMode mode() const { return mode_; }
  // Live entries of one switch node (tests) and in total.
  std::uint32_t entries(std::int32_t node) const { return usage_[sw(node)].entries; }
  std::size_t entries() const { return map_.size(); }
  const FlowcutEntry* entry(std::int32_t node, std::uint32_t flow) const;
  nlohmann::json summary(SimTime end) const;

  struct Stats {
    std::uint64_t flowcuts = 0, drains = 0, xoff = 0, xon = 0, stray_acks = 0;
    SimTime drain_time = 0;  // switch side: from the decision to the last ACK
  };
  const Stats& stats() const { return st_; }

 private:
  std::size_t sw(std::int32_t node) const { return static_cast<std::size_t>(topo_.switch_index(node)); }
  std::uint64_t key(std::int32_t node, std::uint32_t flow) const {
    return (static_cast<std::uint64_t>(sw(node)) << 32) | flow;
  }
  std::int32_t route_data(std::int32_t node, net::Packet& p, bool ingress);
  std::int32_t route_ack(std::int32_t node, net::Packet& p, bool ingress);
  void sample(std::int32_t node, FlowcutEntry& e, const net::Packet& ack);
  void release(std::int32_t node, std::uint64_t k, std::uint32_t idx);
  void send_pause(std::int32_t node, std::uint32_t flow, std::int32_t host, bool resume);

  FlowcutMode mode_;
  lb::FlowcutParams p_;
  const MinimalTables& tables_;
  const topo::Topology& topo_;
  net::Network& net_;
  std::unique_ptr<net::Router> choice_, plain_;
  net::Router* plain_ptr_ = nullptr;
  SimTime base_rtt_;
  FlowKeyMap map_;
  std::vector<FlowcutEntry> pool_;
  std::vector<std::uint32_t> free_;
  std::vector<lb::MinRttTable> rmin_;  // per switch
  std::vector<lb::TableUsage> usage_;  // per switch
  Stats st_;
};

}  // namespace lbsim::routing
