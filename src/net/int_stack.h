// In-band network telemetry (INT) as HPCC uses it ([HPCC] sec. 3): each switch a data packet
// leaves through appends one record of the egress port (its queue, its transmitted bytes, the time,
// its line rate); the receiver echoes the records in the ACK. The records live beside the packet
// pool, indexed by the packet's pool index (IntTable), and only when a run turns INT on: struct
// Packet stays one cache line and a run without INT allocates nothing here.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "core/time.h"

namespace lbsim::net {

// The authors' INT header holds at most this many hops (their ns-3 IntHeader::maxHop); a packet
// that crosses more switches keeps the first ones.
inline constexpr std::uint32_t kIntMaxHops = 5;

struct IntHop {
  SimTime ts = 0;              // time the packet left the port
  std::uint64_t tx_bytes = 0;  // the port's bytes transmitted before this packet (cumulative)
  std::uint32_t qlen = 0;      // bytes still queued at the port when the packet left it
  std::uint32_t port = 0;      // global port id (to match a hop with the previous ACK's)
  BitsPerSec rate = 0;         // the port's line rate
};

struct IntStack {
  std::uint32_t n = 0;  // hops recorded
  IntHop hop[kIntMaxHops];
};

// One IntStack per packet-pool index, grown with the pool's peak (packets in flight), never shrunk.
class IntTable {
 public:
  IntStack& operator[](std::uint32_t i) {
    if (i >= rec_.size()) rec_.resize(std::max<std::size_t>(i + 1, rec_.size() * 2));
    return rec_[i];
  }
  std::size_t size() const { return rec_.size(); }

 private:
  std::vector<IntStack> rec_;
};

}  // namespace lbsim::net
