// RCCC, the Ultra Ethernet receiver-credit congestion control (UEC 1.0 sec. 3.6, "RCCC"; the
// receiver-driven credit scheme of EQDS, [EQDS]; docs/rccc.md): a transport mode beside the sender's
// congestion control (`transport.receiver_cc = "rccc"`, keys declared in rccc.cpp), not a
// `transport.cc` plug-in, so that it combines with any of them ("both": a window AND credit).
//   sender    starts with speculative credit (transport.rccc_initial_credit_bdp) and sends a data
//             packet only while it holds credit (> 0; a packet may take it one packet below zero);
//             every data packet carries its cumulative credit request (granted so far + what it still
//             needs beyond the credit it holds, at most rccc_max_credit_bdp and the window + 1 MTU);
//             its first feedback (ACK, NACK or CREDIT) ends the speculation: unspent initial credit
//             is dropped and from then on it sends only against granted credit;
//   receiver  a pull pacer per host, shared by every flow into it: round robin over the flows whose
//             request exceeds what they were granted, rccc_credit_per_pull bytes per CREDIT packet, at
//             rccc_pull_rate x the host's link rate (the next grant waits for the previous one's
//             bytes at that rate), so the data it pulls never exceeds the receiver's link;
//   trims     a trimmed packet's bytes are granted again: its header raises the flow's request by the
//             packet's wire bytes at once (the retransmission needs credit the sender spent on it), on
//             top of the sender's requests: a later packet's request, sent before the sender knew of
//             the trim, must not absorb it (else a sender at zero credit with only the retransmission
//             left would never ask again: seen on the Spritz Slim Fly permutation, docs/rccc.md);
//   timeouts  a packet the RTO declares lost gets its credit back at the sender (no RTS packet: see
//             docs/rccc.md "Known deviations").
// Credit is counted in quanta of 256 bytes (UEC's pull quantum) so that 32-bit cumulative counters
// (Packet::cum_ack of data and CREDIT packets) cover 1 TiB per flow.
#pragma once
#include <cstdint>
#include <deque>

#include "core/config.h"
#include "core/time.h"

namespace lbsim::transport {

inline constexpr Bytes kCreditQuantum = 256;

inline std::uint32_t credit_quanta(Bytes b) {
  return static_cast<std::uint32_t>((b + kCreditQuantum - 1) / kCreditQuantum);
}

struct RcccParams {
  bool on = false;
  Bytes initial_credit = 0;       // a new flow's speculative credit (wire bytes)
  Bytes max_credit = 0;           // the most credit a sender holds or asks for beyond what it holds
  Bytes credit_per_pull = 16384;  // bytes per CREDIT packet (4 x 4096 B, UEC's default of 4 MTUs)
  double pull_rate = 0.99;        // the pacer's rate, a fraction of the receiver's link rate
};

// The RCCC counters of one flow, kept by the transport beside its FlowLive while it is live (the
// FlowLive's spare bytes hold the sender's credit and speculation flag: rc_credit, rc_speculating);
// each end reads only its own fields.
struct RcccFlow {
  std::uint32_t seen = 0;     // sender: cumulative quanta granted, as the latest CREDIT packet said
  std::uint32_t asked = 0;    // receiver: the highest cumulative request the data packets carried (quanta)
  std::uint32_t trims = 0;    // receiver: quanta added for trimmed packets (each one's wire bytes)
  std::uint32_t wanted = 0;   // receiver: asked + trims, what the flow is to be granted in all
  std::uint32_t granted = 0;  // receiver: cumulative quanta granted
  bool in_pull = false;       // receiver: in its host's pull queue
};

// One receiving host's pull pacer: its flows with credit still to grant, in round-robin order.
struct PullPacer {
  std::deque<std::uint32_t> queue;
  SimTime free_at = 0;  // the next grant may go from this time on
  bool armed = false;   // a kEvCreditPace event is pending
};

// transport.receiver_cc and the rccc_* keys, with the run's BDP (bytes) for the credit sizes.
RcccParams receiver_cc_params(const config::Config& c, Bytes bdp);

}  // namespace lbsim::transport
