// Lossless link-level flow control (docs/lossless.md): credit-based flow control per link and
// virtual channel, and PFC (pause/resume per port and priority). [Flowcut] sec. III-B1 evaluates on
// a lossless network ("the network uses credit-based flow control to guarantee lossless
// behavior"); [LAPS] sec. 4.1 runs with PFC.
//
// The engine is output-queued, so a switch's buffer is modelled as per-ingress accounting: a packet
// that arrives at switch S on port `in` in virtual channel `vc` occupies the ingress buffer
// (S, in, vc) from its arrival until it starts leaving S through its output port. Credit mode: the
// upstream transmitter holds credits for that buffer, spends them when it starts a packet and gets
// them back one link latency after the packet starts leaving S. PFC: S counts the bytes of each
// ingress and priority; above Xoff it pauses the upstream, at or below Xon it resumes it; the
// headroom above Xoff takes the bytes in flight. The Network (network.h) holds one FcPort per port;
// in lossy mode none of this exists and the hot path is the lossy one (the network's loop is a
// template on the mode).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/time.h"
#include "net/packet.h"

namespace lbsim::net {

enum class FlowControl : std::uint8_t { Lossy = 0, Credit = 1, Pfc = 2 };
const char* flow_control_name(FlowControl m);

// Virtual channels (credit) / priorities (PFC): data 0, control (ACK, NACK) 1. Each has its own
// buffer and credits or pause state, so control is never blocked by data ([LAPS] sec. 4.1: ACKs in
// the highest priority). A port serves control first (strict priority).
inline constexpr int kNumVcs = 2;
inline constexpr int kVcData = 0, kVcCtrl = 1;
inline int vc_of(const Packet& p) { return p.is_control() ? kVcCtrl : kVcData; }

// PFC headroom of one ingress: what the upstream may still put into it after the occupancy crosses
// Xoff. The PAUSE reaches the upstream one latency later; until then it starts packets back to
// back, and a packet it started up to latency + switch latency before the crossing is still on its
// way (this engine adds the switch latency to the flight time). So at most
// rate x (2 x latency + switch latency) + one packet arrives after the crossing, plus the crossing
// packet itself: the LAPS artifact's rule 2 x rate x delay + 2 MTU, with the switch latency added
// to the delay (docs/lossless.md derives it).
Bytes pfc_headroom(BitsPerSec rate, SimTime latency, SimTime switch_latency, Bytes packet_bytes);

struct FlowControlConfig {
  FlowControl mode = FlowControl::Lossy;
  Bytes buffer[kNumVcs] = {0, 0};  // credit: bytes per ingress port and VC
  Bytes xoff[kNumVcs] = {0, 0};    // pfc: pause when an ingress priority holds more than this ...
  Bytes xon[kNumVcs] = {0, 0};     // ... and resume when it holds this much or less
  Bytes headroom = 0;              // pfc: bytes above Xoff; 0 = pfc_headroom() of each link
  Bytes packet_bytes = 0;          // full data packet on the wire: a NIC pulls only with room for one
  SimTime stall = 0;               // ports that waited this long and wait only for each other: deadlock
};

// Per port id: the transmit side (credits it holds for the peer's ingress buffer, pause state the
// peer set) and the receive side (occupancy of its ingress buffer at its own switch, pauses it sent).
struct FcPort {
  Bytes credit[kNumVcs] = {0, 0};   // tx, credit mode: bytes the peer's ingress buffer can still take
  Bytes ingress[kNumVcs] = {0, 0};  // rx: bytes that arrived on this port and have not started leaving
  Bytes ingress_max[kNumVcs] = {0, 0};
  Bytes limit[kNumVcs] = {0, 0};  // rx: largest allowed occupancy (credit: buffer; pfc: Xoff + headroom)
  SimTime blocked_since = -1;     // tx: idle with packets waiting that may not be sent (-1 = not)
  SimTime paused_since[kNumVcs] = {-1, -1};
  SimTime blocked_ps = 0;
  SimTime paused_ps[kNumVcs] = {0, 0};
  std::uint64_t blocked_episodes = 0;
  std::uint64_t pauses_sent = 0, resumes_sent = 0;    // rx side, pfc
  std::uint64_t pauses_received = 0;                  // tx side, pfc
  std::uint32_t credits_in_flight[kNumVcs] = {0, 0};  // tx, credit mode: credit messages on their way here
  // tx: the head of this VC (a NIC: a full data packet) may not go since then (-1 = it may, or the
  // queue is empty); reset when a packet of the VC is sent. Unlike blocked_since it keeps running
  // while the port sends in the other VC (a port deadlocked in data still forwards ACKs).
  SimTime held_since[kNumVcs] = {-1, -1};
  bool limited = false;                       // tx: the peer is a switch (hosts sink at line rate)
  bool paused[kNumVcs] = {false, false};      // tx, pfc: the peer paused this priority
  bool pause_sent[kNumVcs] = {false, false};  // rx, pfc: this port paused its upstream
};

// Totals over the ports (summary.json "flow_control").
struct FlowControlStats {
  std::uint64_t credit_returns = 0;
  std::uint64_t blocked_episodes = 0, nic_blocked_episodes = 0;
  double blocked_us = 0, nic_blocked_us = 0;  // switch ports / NICs idle while held back
  std::uint64_t pause_frames = 0, resume_frames = 0;
  std::uint64_t paused_ports = 0;       // transmitters (switch ports, NICs) paused at least once
  double paused_us[kNumVcs] = {0, 0};   // time transmitters spent paused, summed over ports
  Bytes max_ingress[kNumVcs] = {0, 0};  // largest occupancy of one ingress buffer (switches)
  Bytes max_headroom = 0;               // pfc: largest headroom of a switch ingress
};

// A lossless run that deadlocked: a set of waiting ports (each waited at least network.stall_us,
// or nothing was left to run) whose heads wait only for room that other ports of the set hold, and
// a cycle of that set in the wait-for graph (port -> a port at the next switch that holds packets in
// the buffer it waits for).
struct StallReport {
  SimTime time = 0;             // when the stall was detected
  SimTime quiet = 0;            // every deadlocked port had waited at least this long
  bool events_ran_dry = false;  // nothing was scheduled any more (everything waits forever)
  std::uint64_t queued_packets = 0;
  std::uint64_t waiting_ports = 0;     // ports (switch ports and NICs) waiting at that time
  std::uint64_t deadlocked_ports = 0;  // ports of the closed set (they wait only on each other)
  struct Hop {
    std::uint32_t port = 0;  // global port id
    std::int32_t node = -1, local = -1, peer = -1, vc = 0;
    std::string node_label, peer_label;
    Bytes queued_bytes = 0;
  };
  std::vector<Hop> cycle;    // empty when no cycle was found
  std::string text() const;  // multi-line report for stderr
};

}  // namespace lbsim::net
