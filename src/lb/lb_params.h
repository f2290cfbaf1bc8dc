// Tuning of the sender-side load balancers beyond their name (config section [lb]).
// Kept apart from policy.h so the registry header stays small.
#pragma once
#include <cstdint>

#include "core/time.h"

namespace lbsim::lb {

// How REPS learns EVs when the receiver coalesces ACKs ([REPS] sec. 4.5.1).
enum class RepsAckMode : std::uint8_t {
  Plain,  // only the EV echoed in the ACK header is cached
  Carry,  // "ACK + Carry EVs": the coalesced ACK carries every non-ECN EV it covers
  Reuse,  // "ACK + Reuse EVs": each cached EV may be reused `reuse` times before it is invalid
};

struct RepsParams {
  std::uint32_t buffer_size = 8;  // circular buffer elements ([REPS] sec. 3.1: 8)
  bool freezing = true;           // freezing mode (sec. 3.2); off = App. C.4 "no freezing"
  SimTime freezing_timeout = 0;   // 0 = the RTO
  SimTime idle_timeout = 0;       // a connection idle this long explores again; 0 = never
  RepsAckMode ack_mode = RepsAckMode::Plain;
  std::uint32_t reuse = 1;  // Reuse mode: uses per cached EV
  // Failure detection without trimming (App. A): a timeout is a failure when the largest RTT seen
  // during the preceding one to two RTOs is below this multiple of the connection's smallest RTT.
  double failure_rtt_factor = 2.0;
};

// Tuning of the baseline balancers ([REPS] sec. 4.1; src/lb/baselines.h).
struct BaselineParams {
  double plb_threshold = 0.25;        // PLB: a round is congested when this fraction of ACKs is ECN-marked
  std::uint32_t plb_rounds = 1;       // PLB: repath after this many consecutive congested rounds
  std::uint32_t plb_idle_rounds = 0;  // PLB: repath after this many when nothing is in flight (0 = off)
  SimTime flowlet_timeout = 0;        // Flowlet: idle gap that starts a new flowlet; 0 = base RTT / 2
  std::uint32_t mptcp_subflows = 8;   // MPTCP-like: subflows (each its own EV)
  std::uint32_t bitmap_evs = 256;     // Bitmap: EVs a connection keeps penalties for
  std::uint32_t bitmap_ecn_penalty = 1, bitmap_nack_penalty = 4, bitmap_timeout_penalty = 16;
};

}  // namespace lbsim::lb
