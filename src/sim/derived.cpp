#include "sim/derived.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/core.h>

#include "core/error.h"
#include "routing/bounded_paths.h"

namespace lbsim::sim {

namespace {

// The lossless modes' buffers and thresholds (docs/lossless.md). Defaults follow the data queue
// size, so a lossless run buffers as much per ingress as a lossy run queues per port.
void derive_flow_control(const config::Config& cfg, const topo::Topology& topo, Derived& d) {
  const std::string& mode = cfg.text("network.flow_control");
  if (mode == "lossy") return;
  d.flow_control = mode == "credit" ? net::FlowControl::Credit : net::FlowControl::Pfc;
  // Per link into a switch: the bytes in flight a pause must absorb (pfc), and the buffer that
  // covers the credit round trip, i.e. a packet's serialization, the link there and back and the
  // switch latency (credit: below it the link cannot run at line rate).
  for (const auto& l : topo.links)
    for (const std::int32_t to : {l.a, l.b}) {
      if (topo.is_host(to)) continue;
      d.pfc_headroom_max =
          std::max(d.pfc_headroom_max, net::pfc_headroom(l.rate, l.latency, d.switch_latency, d.packet_bytes));
      d.credit_loop_max = std::max(
          d.credit_loop_max, net::pfc_headroom(l.rate, l.latency, d.switch_latency, d.packet_bytes) - d.packet_bytes);
    }
  // A full output queue: every other port of the switch can fill its ingress buffer with packets
  // for this one (credit: the buffer; pfc: Xoff + headroom), which the RTO must allow for.
  std::int64_t ports = 0;
  for (std::int32_t s = 0; s < topo.num_switches(); ++s)
    ports = std::max<std::int64_t>(ports, static_cast<std::int64_t>(topo.ports[topo.switch_node(s)].size()));
  if (d.flow_control == net::FlowControl::Credit) {
    d.ingress_buffer =
        cfg.integer("network.ingress_buffer_bytes") > 0 ? cfg.integer("network.ingress_buffer_bytes") : d.queue_bytes;
    d.lossless_queue_bytes = (ports - 1) * d.ingress_buffer;
    return;
  }
  d.pfc_xoff = cfg.integer("network.pfc_xoff_bytes") > 0 ? cfg.integer("network.pfc_xoff_bytes") : d.queue_bytes;
  d.pfc_xon = cfg.integer("network.pfc_xon_bytes") > 0 ? cfg.integer("network.pfc_xon_bytes")
                                                       : std::max<Bytes>(0, d.pfc_xoff - 2 * d.packet_bytes);
  if (d.pfc_xon >= d.pfc_xoff)
    throw UserError(fmt::format(
        "{}network.pfc_xon_bytes ({}) must be below Xoff ({} bytes{})",
        cfg.where_any({"network.pfc_xon_bytes", "network.pfc_xoff_bytes"}), d.pfc_xon, d.pfc_xoff,
        cfg.integer("network.pfc_xoff_bytes") > 0 ? "" : ", the data queue size: network.pfc_xoff_bytes = 0"));
  d.pfc_headroom = cfg.integer("network.pfc_headroom_bytes");
  if (d.pfc_headroom > 0 && d.pfc_headroom < d.pfc_headroom_max)
    throw UserError(
        fmt::format("{}network.pfc_headroom_bytes ({}) is below the bytes that can be in flight when a pause is "
                    "sent on the slowest-to-stop link ({} = rate x (2 x latency + switch latency) + 2 full "
                    "packets): a lossless network would overflow; use at least that or 0 (per link)",
                    cfg.where("network.pfc_headroom_bytes"), d.pfc_headroom, d.pfc_headroom_max));
  if (d.pfc_headroom > 0) d.pfc_headroom_max = d.pfc_headroom;
  d.lossless_queue_bytes = (ports - 1) * (d.pfc_xoff + d.pfc_headroom_max);
}

}  // namespace

Derived derive(const config::Config& cfg, const topo::Topology& topo, const routing::PathModel& paths) {
  Derived d;
  d.switch_latency = from_ns(cfg.real("network.switch_latency_ns"));
  const Bytes header = cfg.integer("network.header_bytes");
  d.packet_bytes = cfg.integer("network.mtu") + header;
  // Base RTT ([REPS] sec. 4.1): the largest unloaded RTT (full data packet out, header-sized ACK
  // back) over pairs of switches that have hosts, one representative host per switch.
  std::vector<std::int32_t> rep;
  for (std::int32_t s = 0; s < topo.num_switches(); ++s) {
    auto hs = topo.hosts_of(topo.switch_node(s));
    if (!hs.empty()) rep.push_back(hs.front());
  }
  std::int32_t far_a = rep.front(), far_b = rep.back();
  if (rep.size() > 1) {
    const auto far = paths.farthest_pair(rep, d.packet_bytes, header);
    d.base_rtt = far.rtt;
    far_a = far.a;
    far_b = far.b;
  } else {  // one switch with hosts: its first host and the next
    far_b = (far_a + 1) % topo.num_hosts;
    d.base_rtt = paths.one_way(far_a, far_b, d.packet_bytes) + paths.one_way(far_b, far_a, header);
  }
  if (cfg.text("network.bdp_path") == "longest_bounded")  // [Spritz] V-A: BDP "based on the longest path"
    d.base_rtt = std::max(d.base_rtt, routing::longest_bounded_rtt(topo, d.switch_latency, d.packet_bytes, header));
  else if (cfg.text("network.bdp_path") == "longest_bounded_minimal_ack")  // [Spritz] Table II: 88 / 92 packets
    d.base_rtt =
        std::max(d.base_rtt, routing::longest_bounded_minimal_ack_rtt(topo, d.switch_latency, d.packet_bytes, header));
  d.bdp = bytes_in(d.base_rtt, topo.host_rate());
  d.bdp_packets = static_cast<std::uint32_t>((d.bdp + d.packet_bytes - 1) / d.packet_bytes);
  // Queues: bytes, else full packets, else a multiple of the BDP; Kmin/Kmax are fractions of it.
  if (cfg.integer("network.queue_bytes") > 0)
    d.queue_bytes = cfg.integer("network.queue_bytes");
  else if (cfg.integer("network.queue_packets") > 0)
    d.queue_bytes = cfg.integer("network.queue_packets") * d.packet_bytes;
  else
    d.queue_bytes = std::llround(cfg.real("network.queue_bdp") * static_cast<double>(d.bdp));
  // A queue that cannot hold one full packet drops everything; it used to be raised silently
  // ([issue 14]), now it is an error naming the key that sized it.
  if (d.queue_bytes < d.packet_bytes) {
    const char* key = cfg.integer("network.queue_bytes") > 0 ? "network.queue_bytes" : "network.queue_bdp";
    throw UserError(
        fmt::format("{}key '{}': the data queue would be {} bytes, smaller than one full packet "
                    "(network.mtu + network.header_bytes = {} bytes)",
                    cfg.where(key), key, d.queue_bytes, d.packet_bytes));
  }
  d.ctrl_queue_bytes =
      cfg.integer("network.ctrl_queue_bytes") > 0 ? cfg.integer("network.ctrl_queue_bytes") : d.queue_bytes;
  derive_flow_control(cfg, topo, d);
  // RTO: the network-wide RTT plus the time to traverse every full queue of the longest path, both
  // directions ([REPS] sec. 4.1). A lossless port's queue is full only when every other port of its
  // switch has filled its ingress buffer for it (below that, packets in a lossless network are not
  // lost but wait, and a shorter RTO would retransmit them spuriously).
  if (cfg.real("transport.rto_us") > 0) {
    d.rto = from_us(cfg.real("transport.rto_us"));
    // Below the base RTT no ACK can return before the timer: every packet is declared lost and
    // resent (the demo's 70 us on 1 Mb/s links, base RTT 135 ms, gave 94 spurious timeouts).
    if (d.rto < d.base_rtt)
      d.warnings.push_back(fmt::format(
          "{}transport.rto_us = {} us is below the base RTT, {:.3f} us (the unloaded round trip of the longest "
          "path): packets time out before their ACKs can return and are resent spuriously; raise it, or set 0 to "
          "derive it from the network (transport.rto_model)",
          cfg.where("transport.rto_us"), cfg.real("transport.rto_us"), to_us(d.base_rtt)));
  } else if (cfg.text("transport.rto_model") == "htsim") {
    // REPS artifact (htsim): the unloaded RTT plus one full queue's drain per link of the path,
    // one direction (on a 2-tier fat tree: 4 queues).
    const Bytes full = d.flow_control == net::FlowControl::Lossy ? d.queue_bytes : d.lossless_queue_bytes;
    d.rto = d.base_rtt;
    for (const auto l : paths.path_links(far_a, far_b)) d.rto += serialization_ps(full, topo.links[l].rate);
  } else {
    const Bytes full = d.flow_control == net::FlowControl::Lossy ? d.queue_bytes : d.lossless_queue_bytes;
    d.rto = d.base_rtt;
    for (auto [x, y] : {std::pair{far_a, far_b}, std::pair{far_b, far_a}}) {
      const auto links = paths.path_links(x, y);
      for (std::size_t i = 1; i < links.size(); ++i) d.rto += serialization_ps(full, topo.links[links[i]].rate);
    }
  }
  if (d.flow_control != net::FlowControl::Lossy)
    d.stall = cfg.real("network.stall_us") > 0 ? from_us(cfg.real("network.stall_us")) : 10 * d.rto;
  d.init_cwnd =
      std::max<Bytes>(d.packet_bytes, std::llround(cfg.real("transport.init_cwnd_bdp") * static_cast<double>(d.bdp)));
  d.max_cwnd =
      std::max<Bytes>(d.packet_bytes, std::llround(cfg.real("transport.max_cwnd_bdp") * static_cast<double>(d.bdp)));
  if (const auto cw = cfg.integer("transport.cwnd_packets"); cw > 0)
    d.init_cwnd = d.max_cwnd = cw * d.packet_bytes;  // htsim's -cwnd
  d.ev_space = 1u << cfg.integer("network.ev_bits");
  for (const auto& w : d.warnings) fmt::print(stderr, "lbsim: warning: {}\n", w);
  return d;
}

net::NetConfig net_config(const config::Config& cfg, const Derived& d) {
  net::NetConfig nc;
  nc.switch_latency = d.switch_latency;
  nc.max_hops = static_cast<std::uint8_t>(cfg.integer("network.max_hops"));
  nc.far_prefetch_bytes = static_cast<std::uint64_t>(cfg.integer("run.far_prefetch_mib")) << 20;
  nc.queue.data_limit = d.queue_bytes;
  nc.queue.ctrl_limit = d.ctrl_queue_bytes;
  nc.queue.kmin = cfg.real("network.kmin");
  nc.queue.kmax = cfg.real("network.kmax");
  nc.queue.ecn = cfg.flag("network.ecn");
  nc.queue.trimming = cfg.flag("network.trimming");
  nc.queue.ecn_at_dequeue = cfg.text("network.ecn_mark_at") == "dequeue";
  nc.queue.random_evict = cfg.text("network.drop_policy") == "random_evict";
  nc.queue.header_bytes = cfg.integer("network.header_bytes");
  nc.fc.mode = d.flow_control;
  if (d.flow_control != net::FlowControl::Lossy) {
    nc.queue.trimming = false;  // nothing overflows (the config check rejects trimming = true)
    // The control VC / priority gets the same buffer and thresholds as data: ACKs never come near
    // them, and the same numbers keep the model small (docs/lossless.md).
    for (int vc = 0; vc < net::kNumVcs; ++vc) {
      nc.fc.buffer[vc] = d.ingress_buffer;
      nc.fc.xoff[vc] = d.pfc_xoff;
      nc.fc.xon[vc] = d.pfc_xon;
    }
    nc.fc.headroom = d.pfc_headroom;
    nc.fc.packet_bytes = d.packet_bytes;
    nc.fc.stall = d.stall;
  }
  return nc;
}

}  // namespace lbsim::sim
