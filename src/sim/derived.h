// Quantities derived from the topology and the config (reported in summary.json "derived"):
// base RTT, BDP, queue sizes, RTO, windows ([REPS] sec. 4.1; docs/architecture.md "Derived
// quantities").
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/config.h"
#include "core/time.h"
#include "net/network.h"
#include "routing/path_model.h"
#include "topo/topology.h"

namespace lbsim::sim {

struct Derived {
  SimTime switch_latency = 0;
  SimTime base_rtt = 0;    // unloaded RTT of the longest host-to-host shortest path (MTU data + ACK)
  Bytes packet_bytes = 0;  // wire size of a full data packet
  Bytes bdp = 0;           // host rate x base_rtt
  std::uint32_t bdp_packets = 0;
  Bytes queue_bytes = 0, ctrl_queue_bytes = 0;
  SimTime rto = 0;
  Bytes init_cwnd = 0, max_cwnd = 0;
  std::uint32_t ev_space = 0;
  // Lossless modes (docs/lossless.md); zero in lossy mode.
  net::FlowControl flow_control = net::FlowControl::Lossy;
  Bytes ingress_buffer = 0;  // credit: per switch ingress port and VC
  Bytes pfc_xoff = 0, pfc_xon = 0;
  Bytes pfc_headroom = 0;          // the configured headroom, 0 = per link rule
  Bytes pfc_headroom_max = 0;      // the largest headroom a switch ingress gets
  Bytes credit_loop_max = 0;       // credit: buffer a link needs to run at line rate (largest over links)
  Bytes lossless_queue_bytes = 0;  // the most a port's queue can hold: (switch ports - 1) x ingress limit
  SimTime stall = 0;
  // Settings that run but are likely mistakes (printed on stderr by derive(), kept in summary.json
  // "warnings"): a transport.rto_us below the base RTT.
  std::vector<std::string> warnings;
};

Derived derive(const config::Config& cfg, const topo::Topology& topo, const routing::PathModel& paths);

// The ports' and queues' settings of the network.
net::NetConfig net_config(const config::Config& cfg, const Derived& d);

}  // namespace lbsim::sim
