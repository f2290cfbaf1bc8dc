// Collectives as dependency graphs of transfers.
//
// AI collectives of [Spritz] sec. V-B b) and [REPS] sec. 4.2 ("Allreduce implemented via the ring
// and butterfly algorithm, Alltoall ... where we limit the number of parallel connections per node (n
// connections)"), and the patterns of [LAPS] sec. 4.1 ("AllReduce based on parameter server, all the
// other servers/GPUs send traffic to one server/GPU; AllScatter, one server/GPU sends traffic to all
// the other servers/GPUs"). Every message is tagged "step<s>" so reports can give per-step times.
//
//  - ring allreduce over k ranks: 2(k-1) steps; in step s rank i sends chunk (i - s) mod k (size
//    bytes/k, the first bytes%k chunks one byte larger) to rank i+1. Steps 0..k-2 are the
//    reduce-scatter, k-1..2k-3 the allgather; the chunk sent in step s is the one received in step
//    s-1, so step s of rank i depends on the message rank i received in step s-1;
//  - butterfly allreduce (k a power of two): halving-doubling (Rabenseifner): log2 k reduce-scatter
//    steps with partner i xor k/2^(s+1) and size bytes/2^(s+1), then log2 k allgather steps with
//    partner i xor 2^(s-log2 k) and the sizes in reverse; or plain recursive doubling: log2 k steps of
//    the full vector with partner i xor 2^s. Step s of rank i depends on what it received in step s-1;
//  - alltoall (bytes per destination): rank i sends to i+1, i+2, ..., i+k-1 (mod k) in that order with
//    at most `window` (n) sends in flight: its (q+n)-th send depends on the completion of its q-th;
//    tag "step<q>" is the q-th destination offset;
//  - ps_allreduce: every rank but root sends `bytes` to root (step0); with ps_broadcast the root then
//    sends `bytes` back to every rank (step1), each after all of step0 has arrived;
//  - allscatter: root sends `bytes` to every other rank (step0).
//
// make_collective runs the collective on `ranks` endpoints (a contiguous block from first_host, or a
// seeded random subset sorted by host id; rank r = r-th chosen host) and, as in [Spritz] sec. V-B b),
// lets all other endpoints run a permutation among themselves tagged "background" with
// lb = background_lb ("ecmp"), to mimic other jobs sharing the network.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/time.h"
#include "workload/flow_spec.h"

namespace lbsim::workload {

enum class CollectiveKind { kRingAllreduce, kButterflyAllreduce, kAlltoall, kPsAllreduce, kAllscatter };
enum class ButterflyVariant { kHalvingDoubling, kRecursiveDoubling };

struct CollectiveParams {
  CollectiveKind kind = CollectiveKind::kRingAllreduce;
  Bytes bytes = 4 << 20;   // allreduce: vector per rank; alltoall: per destination; ps/allscatter: per message
  std::int32_t ranks = 0;  // participating endpoints; 0 = all hosts
  bool random_subset = false;
  std::int32_t first_host = 0;  // contiguous subset start
  std::int32_t window = 1;      // alltoall: parallel connections per endpoint (n >= 1)
  ButterflyVariant butterfly = ButterflyVariant::kHalvingDoubling;
  std::int32_t root = 0;  // rank index for ps_allreduce / allscatter
  bool ps_broadcast = false;
  SimTime start = 0;
  std::string lb;              // for the collective's messages ("" = run default)
  bool background = true;      // other endpoints run a permutation among themselves
  Bytes background_bytes = 0;  // 0 = same as bytes
  std::string background_lb = "ecmp";
};

Workload make_collective(const CollectiveParams& p, std::int32_t num_hosts, std::uint64_t seed);

// Building blocks: append the collective over `hosts` (rank r runs on hosts[r]); return the index of
// the first appended entry.
std::size_t append_ring_allreduce(Workload& w, const std::vector<std::int32_t>& hosts, Bytes bytes, SimTime start,
                                  const std::string& lb);
std::size_t append_butterfly_allreduce(Workload& w, const std::vector<std::int32_t>& hosts, Bytes bytes, SimTime start,
                                       const std::string& lb, ButterflyVariant v);
std::size_t append_alltoall(Workload& w, const std::vector<std::int32_t>& hosts, Bytes bytes, std::int32_t window,
                            SimTime start, const std::string& lb);
std::size_t append_ps_allreduce(Workload& w, const std::vector<std::int32_t>& hosts, std::int32_t root, Bytes bytes,
                                bool broadcast, SimTime start, const std::string& lb);
std::size_t append_allscatter(Workload& w, const std::vector<std::int32_t>& hosts, std::int32_t root, Bytes bytes,
                              SimTime start, const std::string& lb);

}  // namespace lbsim::workload
