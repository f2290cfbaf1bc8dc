// Packets and the packet pool.
// A packet is a fixed-size record in a pool, addressed by a 32-bit index; queues link packets
// through `next`, so nothing is allocated per packet once the pool has grown to the peak number of
// packets in flight (docs/architecture.md "How a packet moves").
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "core/time.h"

namespace lbsim::net {

inline constexpr std::uint32_t kNil = 0xFFFFFFFFu;
inline constexpr std::uint32_t kMaxCarriedEvs = 8;

// Pause: a flow-control frame from a switch to a host NIC (the FGFC XOFF/XON of [Flowcut] sec. II-B,
// or a PFC pause of the NIC's class); it is sent straight out of the switch's host port, never routed.
// Credit: a receiver's grant of credit to a sender (transport.receiver_cc = "rccc", transport/rccc.h).
enum class PacketType : std::uint8_t { Data = 0, Ack = 1, Nack = 2, Pause = 3, Credit = 4 };

enum PacketFlag : std::uint8_t {
  kFlagEcn = 1,          // data: CE mark set by a queue; ack / nack: echo of the data packet's mark
  kFlagTrimmed = 2,      // data: payload was cut by a full queue (packet trimming)
  kFlagRetransmit = 4,   // data: this is a retransmission
  kFlagPinned = 8,       // data: follows the source-guided path its EV names, whatever the run's
                         // routing (flows pinned with lb = via_group:<g> or pinned_ecmp); also their
                         // ACKs / NACKs with transport.pinned_acks = "pinned" (from the receiver's switch)
  kFlagGoBackN = 16,     // nack: go-back-N (transport.in_order_recovery): `psn` is the PSN the
                         // receiver expects; the sender resends from there
  kFlagAckRequest = 16,  // data (transport.ack_request): the receiver ACKs this packet at once
  kFlagResume = 32,      // pause: XON (resume); without it XOFF
  kFlagClassPause = 64,  // pause: pause the NIC's whole traffic class (PFC) instead of one flow (FGFC)
  kFlagProbe = 128,      // data / ack: a header-only path probe and its answer ([LAPS] sec. 3.2 "Type",
                         // 3.4 active probing); no PSN, nothing delivered
};

// One cache line (alignas(64), 63 bytes used): every event of a packet reads or writes it, and a
// packet that straddled two lines cost a second miss (docs/scale.md "Cost per event"). The ACK fields
// only the transport reads (SACK word, carried EVs, receive stamp) sit beside it in the pool
// (AckFields, PacketPool::ack).
struct alignas(64) Packet {
  SimTime sent_time = 0;        // data: time the sender put it on the wire; ack/nack: echoed
  std::uint32_t flow = 0;       // flow (workload entry) index
  std::uint32_t psn = 0;        // data: sequence number; ack/nack: the psn it answers
  std::uint32_t cum_ack = 0;    // ack: every psn < cum_ack has been received; with RCCC (transport/rccc.h)
                                // data: the sender's cumulative credit request, credit: the cumulative
                                // grant (both in 256-byte quanta)
  std::uint32_t ev = 0;         // entropy value (configurable width, <= 24 bits); echoed by acks
  std::int32_t src = -1;        // sending host
  std::int32_t dst = -1;        // destination host
  std::int32_t node = -1;       // node the packet travels to next (set when it is put on a link)
  std::uint32_t next = kNil;    // intrusive queue / free-list link
  std::uint32_t size = 0;       // bytes on the wire (header + payload)
  std::uint32_t payload = 0;    // data: payload bytes the sender put in (kept when the packet is trimmed:
                                // its original wire size is then size + payload); ack/nack: the wire bytes
                                // of the data packet(s) it answers ([Flowcut] sec. II-A: an ACK carries
                                // the size of its data packet, for the switches' in-flight counters)
  std::int32_t route_aux = -1;  // routing scratch: Valiant intermediate, layer id, path category
  std::uint16_t in_port = 0;    // port the packet arrives on at `node`
  std::uint16_t ecn_count = 0;  // ack: number of CE-marked data packets this ack covers
  PacketType type = PacketType::Data;
  std::uint8_t flags = 0;
  std::uint8_t hops = 0;         // switches traversed
  std::uint8_t route_state = 0;  // routing scratch: phase (e.g. Valiant before/after intermediate)
  // ack with "ACK + Carry EVs" ([REPS] sec. 4.5.1): the number of carried EVs (AckFields::carry_ev).
  std::uint8_t carry_n = 0;
  std::uint8_t echo_hops = 0;  // ack/nack: `hops` of the data packet it answers ([Flowcut] sec. II-B)
  // data: `hops` when a full queue trimmed it (so it was trimmed at its last hop, the queue into its
  // destination host, iff trim_hops == hops on arrival); nack: the same, echoed
  std::uint8_t trim_hops = 0;

  bool ecn() const { return flags & kFlagEcn; }
  bool trimmed() const { return flags & kFlagTrimmed; }
  bool is_control() const { return type != PacketType::Data || trimmed(); }
};

static_assert(sizeof(Packet) == 64, "Packet grew past one cache line: every queued packet and the pool pay for it");

// The ACK fields only the sender's transport reads, kept beside the packet (PacketPool::ack):
// valid only in an ACK whose creator took them with PacketPool::new_ack.
struct AckFields {
  std::uint64_t sack = 0;  // bit i set = psn (psn - i) has been received (i < 64)
  union {
    // "ACK + Carry EVs" ([REPS] sec. 4.5.1): the non-ECN EVs of the data packets this coalesced
    // ack covers (Packet::carry_n of them, at most kMaxCarriedEvs; 16-bit EVs as in [REPS] Table 1).
    std::uint16_t carry_ev[kMaxCarriedEvs] = {};
    // ack without carried EVs: the time the receiver got the data packet it answers (the receiver's
    // stamp of [LAPS] sec. 3.2 INT, from which the sender reads the one-way path latency)
    SimTime rx_time;
  };
};

// Packets live in fixed-size chunks, so a Packet& stays valid while other packets are allocated
// (a growing std::vector would move them: code that holds a packet while creating its ACK or NACK
// must not see it move). ACKs come from chunks of their own, the only ones with ACK fields beside
// them (alloc_ack): the data packets, most of the records in flight, carry none (docs/scale.md
// "ACK fields for ACKs only").
class PacketPool {
 public:
  static constexpr std::uint32_t kChunkBits = 12;
  static constexpr std::uint32_t kChunk = 1u << kChunkBits;

  // A packet without ACK fields: data, NACK, pause, probe.
  std::uint32_t alloc() { return take(data_); }
  // An ACK: a packet with ACK fields beside it (new_ack, ack).
  std::uint32_t alloc_ack() { return take(acks_); }
  void release(std::uint32_t i) {
    --live_;
    Kind& k = ack_chunks_[i >> kChunkBits] ? acks_ : data_;
    (*this)[i].next = k.free;
    k.free = i;
  }
  Packet& operator[](std::uint32_t i) { return chunks_[i >> kChunkBits][i & (kChunk - 1)]; }
  const Packet& operator[](std::uint32_t i) const { return chunks_[i >> kChunkBits][i & (kChunk - 1)]; }
  // The ACK fields of packet i, an ACK from alloc_ack (AckFields): new_ack clears them for an ACK
  // being built.
  AckFields& new_ack(std::uint32_t i) { return ack(i) = AckFields{}; }
  AckFields& ack(std::uint32_t i) { return ack_chunks_[i >> kChunkBits][i & (kChunk - 1)]; }
  const AckFields& ack(std::uint32_t i) const { return ack_chunks_[i >> kChunkBits][i & (kChunk - 1)]; }
  std::uint64_t live() const { return live_; }                        // packets currently in existence
  std::uint64_t peak_live() const { return peak_live_; }              // the most packets in existence at once
  std::uint64_t allocated() const { return allocated_; }              // packets ever created
  std::size_t capacity() const { return data_.slots + acks_.slots; }  // records made (data and ACK)
  std::size_t ack_capacity() const { return acks_.slots; }            // of which ACK records

 private:
  // One kind of record: its free list and the chunk it is filling.
  struct Kind {
    std::uint32_t free = kNil;
    std::uint32_t next = 0, end = 0;  // the next never-used index and the end of its chunk
    std::size_t slots = 0;            // records made
    bool ack = false;
  };
  std::uint32_t take(Kind& k) {
    if (++live_ > peak_live_) peak_live_ = live_;
    ++allocated_;
    if (k.free != kNil) {
      std::uint32_t i = k.free;
      k.free = (*this)[i].next;
      // The new head may have been released long ago (deep in the stack) and left the cache: ask for
      // it now rather than stall the next alloc on its `next` (docs/scale.md "Prefetching the host's
      // state").
      if (k.free != kNil) __builtin_prefetch(&(*this)[k.free]);
      (*this)[i] = Packet{};
      return i;
    }
    if (k.next == k.end) {
      const auto c = static_cast<std::uint32_t>(chunks_.size());
      chunks_.push_back(std::make_unique<Packet[]>(kChunk));
      ack_chunks_.push_back(k.ack ? std::make_unique<AckFields[]>(kChunk) : nullptr);
      k.next = c << kChunkBits;
      k.end = k.next + kChunk;
    }
    ++k.slots;
    return k.next++;
  }

  std::vector<std::unique_ptr<Packet[]>> chunks_;
  std::vector<std::unique_ptr<AckFields[]>> ack_chunks_;  // null for the chunks of data records
  Kind data_, acks_{kNil, 0, 0, 0, true};
  std::uint64_t live_ = 0;
  std::uint64_t peak_live_ = 0;
  std::uint64_t allocated_ = 0;
};

}  // namespace lbsim::net
