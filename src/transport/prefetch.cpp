// The prefetch stages of the transport (net::HostHandler::prefetch_pull, prefetch_arrival): the
// event loop asks for the chain of records a NIC's next pull or a packet's arrival will walk, one link
// per stage, a few events ahead. Hints only: the results do not change.
#include "transport/transport.h"

#include <cstddef>

#include "core/prefetch.h"

namespace lbsim::transport {

using net::Packet;
using net::PacketType;

// The chain pull_data walks, one link per stage (HostHandler::prefetch_pull): the host's flow list,
// the slot at its cursor, the flow's record, its live state (with the spec and the policy's first
// line), then what the send reads and writes (the window, the per-PSN arrays at the next new PSN,
// the send log, the policy's own lines: EntropyPolicy::prefetch).
// Hints only; a stage whose link is not there yet (or a streamed entry not held) asks for nothing.
void Transport::prefetch_pull(std::int32_t host, int stage) {
  const HostQueue& q = hosts_[static_cast<std::size_t>(host)];
  if (stage == 0) {
    __builtin_prefetch(&q);
    return;
  }
  if (q.bits || q.cursor >= q.slots.size()) return;
  if (stage == 1) {
    __builtin_prefetch(&q.slots[q.cursor]);
    return;
  }
  const std::uint32_t id = q.slots[q.cursor];
  if (id == net::kNil || !held(id)) return;
  const FlowState& f = at(id);
  if (stage == 2) {
    prefetch_range(&f, kFlowStateHotBytes);
    return;
  }
  const FlowLive* L = f.live.get();
  if (L == nullptr) return;
  if (stage == 3) {
    prefetch_range(L, offsetof(FlowLive, received));  // the sender's fields
    __builtin_prefetch(f.spec);
    __builtin_prefetch(f.lb.get());
    return;
  }
  if (L->cc) L->cc->prefetch();
  const std::uint32_t psn = L->next_new;
  if (const void* e = L->sent.entry_addr(psn)) __builtin_prefetch(e);
  if (L->sendlog.size() < L->sendlog.capacity()) __builtin_prefetch(L->sendlog.data() + L->sendlog.size());
  if (f.caps & lb::kCapPrefetch) f.lb->prefetch();
}

// The chain on_packet walks for packet pkt at its host (HostHandler::prefetch_arrival): the flow's
// record (and an ACK's fields beside the packet), its live state (and an ACK's policy's first line),
// then the receiver's bitmap word of a data packet or the sender's per-PSN entries, window and policy
// of an ACK.
void Transport::prefetch_arrival(std::uint32_t pkt, int stage) {
  const Packet& p = net_.pkt(pkt);
  if (!held(p.flow)) return;
  const FlowState& f = at(p.flow);
  if (stage == 0) {
    prefetch_range(&f, kFlowStateHotBytes);
    if (p.type == PacketType::Ack) __builtin_prefetch(&net_.packets().ack(pkt));
    return;
  }
  const FlowLive* L = f.live.get();
  if (L == nullptr) return;
  if (stage == 1) {
    if (p.type == PacketType::Data)
      prefetch_range(&L->received,
                     offsetof(FlowLive, parked_since) - offsetof(FlowLive, received));  // the receiver's fields
    else {
      prefetch_range(L, offsetof(FlowLive, received));
      __builtin_prefetch(f.lb.get());
    }
    return;
  }
  const std::uint32_t psn = p.psn;
  if (p.type == PacketType::Data) {
    if (const void* w = L->received.word_addr(psn)) __builtin_prefetch(w);
  } else if (const void* e = L->sent.entry_addr(psn)) {
    __builtin_prefetch(e);
    __builtin_prefetch(L->sent.word_addr(psn));
    if (L->cc) L->cc->prefetch();
    if (f.caps & lb::kCapPrefetch) f.lb->prefetch();
  }
}

}  // namespace lbsim::transport
