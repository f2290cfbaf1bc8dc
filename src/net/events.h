// Every event kind of the engine, in one place. An event is {time, seq, obj, kind} (core/event_queue.h);
// `obj` is an index whose meaning depends on the kind. The network handles kEvArrive, kEvTxNext and
// the lossless kinds itself and dispatches every other kind to the handler registered for it (Network::on).
#pragma once
#include <cstdint>

namespace lbsim::net {

enum EventKind : std::uint32_t {
  // net: obj = packet index / port id
  kEvArrive = 0,
  kEvTxNext,
  // net, lossless modes only (net/flow_control.h); these must stay right after kEvTxNext (the lossless
  // event loop handles every kind up to kEvStallCheck itself). obj = credit message index /
  // port id x 2 + priority / unused.
  kEvCredit,
  kEvPause,
  kEvResume,
  kEvStallCheck,
  // transport: obj = flow (workload entry) index
  kEvEntryStart,
  kEvRto,
  kEvComputeDone,
  kEvAckFlush,
  kEvHoldWake,      // a flow held by its load balancer may send again (EntropyPolicy::hold)
  kEvPauseTimeout,  // a flow paused by a switch (FGFC / PFC) resumes without XON ([Flowcut] sec. IV-A)
  kEvPaceWake,      // a paced flow (rate-based CC, e.g. dcqcn) may send its next packet
  kEvCreditPace,    // RCCC: a receiving host's pull pacer may grant credit again (obj = host)
  // sim: queue sampling (obj unused), failure schedule (obj = failure index)
  kEvQueueSample,
  kEvFailStart,
  kEvFailEnd,
  kEvRouteDead,
  kEvRouteAlive,
  // routing: a timer or control message of a stateful switch routing (obj = the router's own index),
  // e.g. ConWeave's RTT_REPLY / CLEAR / NOTIFY and reorder-queue flush timers (routing/conweave.h)
  kEvRouterTimer,
  kNumEventKinds
};

// The name of an event kind as summary.json's "events_by_kind" spells it (docs/outputs.md).
inline const char* event_kind_name(std::uint32_t kind) {
  // Unsized so that a kind added without a name fails to compile instead of naming it nullptr.
  static constexpr const char* kNames[] = {
      "arrive",       "tx_next",      "credit",    "pause",      "resume",        "stall_check", "entry_start",
      "rto",          "compute_done", "ack_flush", "hold_wake",  "pause_timeout", "pace_wake",   "credit_pace",
      "queue_sample", "fail_start",   "fail_end",  "route_dead", "route_alive",   "router_timer"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == kNumEventKinds, "every event kind needs a name");
  return kind < kNumEventKinds ? kNames[kind] : "?";
}

}  // namespace lbsim::net
