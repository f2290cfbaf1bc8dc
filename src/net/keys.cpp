// The [network] keys the engine's ports and queues are made from, and the [failures] keys
// (net/failures.h). The simulation turns them into NetConfig and the failure schedule.
#include <fmt/core.h>

#include "core/config.h"
#include "core/error.h"

namespace lbsim::net {
namespace {

[[maybe_unused]] const bool declared = [] {
  using namespace config;
  declare({
      real("network.switch_latency_ns", 500, "ns", "Fixed switch traversal latency, added when a packet arrives at a switch.").range(0, 1e9),
      bytes("network.mtu", 4096, "Payload bytes of a full data packet (the wire adds header_bytes).").range(1, 1 << 20),
      bytes("network.header_bytes", 64, "Header bytes of every packet; also the size of ACKs, NACKs and trimmed packets.").range(1, 65536),
      real("network.queue_bdp", 1.0, "BDP", "Data queue capacity per port as a multiple of the BDP (used unless queue_bytes or queue_packets is set).").range(1e-6, 1e6),
      bytes("network.queue_bytes", 0, "Data queue capacity per port in bytes; 0 = use queue_packets or queue_bdp.").range(0, 1e15),
      integer("network.queue_packets", 0, "packets", "Data queue capacity per port in full packets; 0 = use queue_bdp.").range(0, 1e9),
      bytes("network.ctrl_queue_bytes", 0, "Capacity of the priority control queue (ACK/NACK/trimmed headers); 0 = same as the data queue.").range(0, 1e15),
      real("network.kmin", 0.2, "fraction of queue", "ECN marking starts above this queue fill (RED Kmin).").range(0, 1),
      real("network.kmax", 0.8, "fraction of queue", "Every packet is marked at or above this queue fill (RED Kmax).").range(0, 1),
      flag("network.ecn", true, "Enable ECN marking."),
      flag("network.trimming", true, "Trim packets that overflow the data queue (else tail-drop them)."),
      integer("network.ev_bits", 16, "bits", "Width of the entropy value; EVs are drawn from [0, 2^ev_bits).").range(1, 24),
  });
  declare({
      file("failures.file", "Failure schedule file (one failure per line: <start_us> <kind> <target> [for_us=] [from=] [rate_gbps=] [prob=]), relative to the config file."),
      real("failures.random_fraction", 0, "fraction of links", "Fail this fraction of the random_links class at random (seeded by run.seed; at least one link when > 0).").range(0, 1),
      text("failures.random_links", "tor_uplinks", "Class of links random failures pick from: tor_uplinks (fat tree ToR-to-T1 links), switch_links (every switch-to-switch link), all.").one_of({"tor_uplinks", "switch_links", "all"}),
      text("failures.random_kind", "down", "What the random failures do, in both directions: down (black hole), degrade (random_rate_gbps), loss (random_loss).").one_of({"down", "degrade", "loss"}),
      real("failures.random_start_us", 0, "us", "Start time of the random failures.").range(0, 1e12),
      real("failures.random_duration_us", 0, "us", "Duration of the random failures; 0 = permanent.").range(0, 1e12),
      real("failures.random_rate_gbps", 200, "Gb/s", "Rate of a degraded link (random_kind = degrade).").range(1e-3, 1e6),
      real("failures.random_loss", 0.01, "probability", "Per-packet drop probability (random_kind = loss).").range(0, 1),
      real("failures.converge_us", 0, "us", "Routing removes a down link (or switch) from the ECMP groups this long after it fails and adds it back this long after it recovers; 0 = routing never reacts ([REPS] sec. 3.2).").range(0, 1e12),
  });
  declare_check([](const Config& c) {
    if (c.real("network.kmin") >= c.real("network.kmax"))
      throw UserError(fmt::format("{}network.kmin ({}) must be below network.kmax ({})", c.where_any({"network.kmin", "network.kmax"}),
                                  c.real("network.kmin"), c.real("network.kmax")));
  });
  return true;
}();

}  // namespace
}  // namespace lbsim::net
