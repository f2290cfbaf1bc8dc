#include "sim/derived.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "routing/bounded_paths.h"

namespace lbsim::sim {

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
  for (auto a : rep)
    for (auto b : rep) {
      if (a == b && rep.size() > 1) continue;
      const std::int32_t bb = a == b ? (a + 1) % topo.num_hosts : b;
      const SimTime rtt = paths.one_way(a, bb, d.packet_bytes) + paths.one_way(bb, a, header);
      if (rtt > d.base_rtt) {
        d.base_rtt = rtt;
        far_a = a;
        far_b = bb;
      }
    }
  if (cfg.text("network.bdp_path") == "longest_bounded")  // [Spritz] V-A: BDP "based on the longest path"
    d.base_rtt = std::max(d.base_rtt, routing::longest_bounded_rtt(topo, d.switch_latency, d.packet_bytes, header));
  const BitsPerSec host_rate = topo.links[topo.ports[0][0].link].rate;
  d.bdp = bytes_in(d.base_rtt, host_rate);
  d.bdp_packets = static_cast<std::uint32_t>((d.bdp + d.packet_bytes - 1) / d.packet_bytes);
  // Queues: bytes, else full packets, else a multiple of the BDP; Kmin/Kmax are fractions of it.
  if (cfg.integer("network.queue_bytes") > 0)
    d.queue_bytes = cfg.integer("network.queue_bytes");
  else if (cfg.integer("network.queue_packets") > 0)
    d.queue_bytes = cfg.integer("network.queue_packets") * d.packet_bytes;
  else
    d.queue_bytes = std::llround(cfg.real("network.queue_bdp") * static_cast<double>(d.bdp));
  d.queue_bytes = std::max(d.queue_bytes, d.packet_bytes);
  d.ctrl_queue_bytes = cfg.integer("network.ctrl_queue_bytes") > 0 ? cfg.integer("network.ctrl_queue_bytes") : d.queue_bytes;
  // RTO: the network-wide RTT plus the time to traverse every full queue of the longest path, both
  // directions ([REPS] sec. 4.1).
  if (cfg.real("transport.rto_us") > 0) {
    d.rto = from_us(cfg.real("transport.rto_us"));
  } else {
    d.rto = d.base_rtt;
    for (auto [x, y] : {std::pair{far_a, far_b}, std::pair{far_b, far_a}}) {
      const auto links = paths.path_links(x, y);
      for (std::size_t i = 1; i < links.size(); ++i) d.rto += serialization_ps(d.queue_bytes, topo.links[links[i]].rate);
    }
  }
  d.init_cwnd = std::max<Bytes>(d.packet_bytes, std::llround(cfg.real("transport.init_cwnd_bdp") * static_cast<double>(d.bdp)));
  d.max_cwnd = std::max<Bytes>(d.packet_bytes, std::llround(cfg.real("transport.max_cwnd_bdp") * static_cast<double>(d.bdp)));
  d.ev_space = 1u << cfg.integer("network.ev_bits");
  return d;
}

net::NetConfig net_config(const config::Config& cfg, const Derived& d) {
  net::NetConfig nc;
  nc.switch_latency = d.switch_latency;
  nc.queue.data_limit = d.queue_bytes;
  nc.queue.ctrl_limit = d.ctrl_queue_bytes;
  nc.queue.kmin = cfg.real("network.kmin");
  nc.queue.kmax = cfg.real("network.kmax");
  nc.queue.ecn = cfg.flag("network.ecn");
  nc.queue.trimming = cfg.flag("network.trimming");
  nc.queue.header_bytes = cfg.integer("network.header_bytes");
  return nc;
}

}  // namespace lbsim::sim
