// The [network] keys the engine's ports and queues are made from (including the lossless modes,
// net/flow_control.h), and the [failures] keys (net/failures.h). The simulation turns them into
// NetConfig and the failure schedule.
#include <fmt/core.h>

#include "core/config.h"
#include "core/error.h"

namespace lbsim::net {
namespace {

[[maybe_unused]] const bool declared = [] {
  using namespace config;
  declare({
      integer("network.max_hops", 64, "switches",
              "A packet reaching its (max_hops + 1)-th switch is dropped and counted in summary.json's ttl_drops (a "
              "routing loop ends instead of running forever).")
          .range(1, 254),
      real("network.switch_latency_ns", 500, "ns",
           "Fixed switch traversal latency, added when a packet arrives at a switch.")
          .range(0, 1e9),
      bytes("network.mtu", 4096, "Payload bytes of a full data packet (the wire adds header_bytes).").range(1, 1 << 20),
      bytes("network.header_bytes", 64,
            "Header bytes of every packet; also the size of ACKs, NACKs and trimmed packets.")
          .range(1, 65536),
      real("network.queue_bdp", 1.0, "BDP",
           "Data queue capacity per port as a multiple of the BDP (used unless queue_bytes or queue_packets is set).")
          .range(1e-6, 1e6),
      bytes("network.queue_bytes", 0, "Data queue capacity per port in bytes; 0 = use queue_packets or queue_bdp.")
          .range(0, 1e15),
      integer("network.queue_packets", 0, "packets", "Data queue capacity per port in full packets; 0 = use queue_bdp.")
          .range(0, 1e9),
      bytes("network.ctrl_queue_bytes", 0,
            "Capacity of the priority control queue (ACK/NACK/trimmed headers); 0 = same as the data queue.")
          .range(0, 1e15),
      real("network.kmin", 0.2, "fraction of queue", "ECN marking starts above this queue fill (RED Kmin).")
          .range(0, 1),
      real("network.kmax", 0.8, "fraction of queue", "Every packet is marked at or above this queue fill (RED Kmax).")
          .range(0, 1),
      flag("network.ecn", true, "Enable ECN marking."),
      text("network.ecn_mark_at", "enqueue",
           "Where a switch port ECN-marks a data packet: enqueue (on the bytes queued ahead of it when it arrives) or "
           "dequeue (on the bytes still queued behind it when it starts leaving, as htsim does: a signal one queueing "
           "delay fresher; REPS artifact (htsim), docs/htsim.md).")
          .one_of({"enqueue", "dequeue"}),
      text("network.drop_policy", "tail",
           "A data packet that finds the data queue full: tail = it is the victim (trimmed, or dropped with trimming "
           "off); random_evict = with probability 0.5 the last queued data packet is the victim instead and the "
           "arrival is queued (htsim's CompositeQueue; seeded per port by run.seed; docs/htsim.md).")
          .one_of({"tail", "random_evict"}),
      flag("network.trimming", true,
           "Trim packets that overflow the data queue (else tail-drop them); off in the lossless modes "
           "(network.flow_control)."),
      integer("network.ev_bits", 16, "bits", "Width of the entropy value; EVs are drawn from [0, 2^ev_bits).")
          .range(1, 24),
      text("network.flow_control", "lossy",
           "Link-level flow control (docs/lossless.md): lossy (queues trim or drop), credit (per-link, "
           "per-virtual-channel credits; [Flowcut] sec. III-B1) or pfc (pause/resume per port and priority at Xoff/Xon "
           "with headroom; [LAPS] sec. 4.1). credit and pfc never drop: trimming is off and the queue limits are not "
           "enforced.")
          .one_of({"lossy", "credit", "pfc"}),
      bytes("network.ingress_buffer_bytes", 0,
            "credit: buffer of each switch ingress port per virtual channel (data, control), i.e. the credits its "
            "upstream transmitter starts with; 0 = the data queue size (queue_bytes / queue_packets / queue_bdp).")
          .range(0, 1e15),
      bytes("network.pfc_xoff_bytes", 0,
            "pfc: an ingress port pauses its upstream for a priority when it holds more than this; 0 = the data queue "
            "size (queue_bytes / queue_packets / queue_bdp).")
          .range(0, 1e15),
      bytes("network.pfc_xon_bytes", 0,
            "pfc: ... and resumes it when it holds this much or less; 0 = Xoff minus two full packets (at least 0).")
          .range(0, 1e15),
      bytes("network.pfc_headroom_bytes", 0,
            "pfc: buffer above Xoff for the bytes in flight when a pause is sent; 0 = per link rate x (2 x latency + "
            "switch latency) + 2 full packets (the LAPS artifact's 2 x rate x delay + 2 MTU); a value below that is an "
            "error.")
          .range(0, 1e15),
      real("network.stall_us", 0, "us",
           "credit / pfc: stop the run (exit code 3) when ports that have waited this long wait only for each other (a "
           "deadlock), and report their cycle; 0 = 10 x the RTO.")
          .range(0, 1e12),
  });
  declare({
      file("failures.file",
           "Failure schedule file (one failure per line: <start_us> <kind> <target> [for_us=] [from=] [rate_gbps=] "
           "[prob=] [queue=]), relative to the config file."),
      real("failures.random_fraction", 0, "fraction of links",
           "Fail this fraction of the random_links class at random (seeded by run.seed; at least one link when > 0).")
          .range(0, 1),
      text("failures.random_links", "tor_uplinks",
           "Class of links random failures pick from: tor_uplinks (fat tree ToR-to-T1 links), switch_links (every "
           "switch-to-switch link), all; or first_uplinks (not random: every ToR's first round(random_fraction x its "
           "uplinks) uplinks in port order, at least one, failed only in the ToR-to-T1 direction, as htsim's \"X% "
           "failed cables\"; docs/htsim.md).")
          .one_of({"tor_uplinks", "switch_links", "all", "first_uplinks"}),
      text("failures.random_kind", "down",
           "What the random failures do, in both directions: down (black hole), degrade (random_rate_gbps), loss "
           "(random_loss).")
          .one_of({"down", "degrade", "loss"}),
      real("failures.random_start_us", 0, "us", "Start time of the random failures.").range(0, 1e12),
      real("failures.random_duration_us", 0, "us", "Duration of the random failures; 0 = permanent.").range(0, 1e12),
      text("failures.degrade_queues", "keep",
           "What a degrade failure does to the port's data queue and ECN thresholds: keep them, or scale them with the "
           "rate (rate_gbps / link rate; restored when it ends), as htsim sizes a slower port's queue (REPS artifact "
           "(htsim)). A failure-file line's queue=scale|keep overrides it.")
          .one_of({"keep", "scale"}),
      real("failures.random_rate_gbps", 200, "Gb/s", "Rate of a degraded link (random_kind = degrade).")
          .range(1e-3, 1e6),
      real("failures.random_loss", 0.01, "probability", "Per-packet drop probability (random_kind = loss).")
          .range(0, 1),
      real("failures.converge_us", 0, "us",
           "Routing removes a down link (or switch) from the ECMP groups this long after it fails and adds it back "
           "this long after it recovers; 0 = routing never reacts ([REPS] sec. 3.2).")
          .range(0, 1e12),
  });
  declare_check([](const Config& c) {
    if (c.real("network.kmin") >= c.real("network.kmax"))
      throw UserError(fmt::format("{}network.kmin ({}) must be below network.kmax ({})",
                                  c.where_any({"network.kmin", "network.kmax"}), c.real("network.kmin"),
                                  c.real("network.kmax")));
  });
  declare_check([](const Config& c) {
    const std::string& mode = c.text("network.flow_control");
    if (mode == "lossy") return;
    // A lossless network never has a full queue, so there is nothing to trim: the default (true)
    // is switched off, a trimming = true that the config asks for is a contradiction.
    if (c.given("network.trimming") && c.flag("network.trimming"))
      throw UserError(
          fmt::format("{}network.trimming = true contradicts network.flow_control = \"{}\": a lossless network "
                      "never fills a queue, so nothing is trimmed (remove network.trimming or set it to false)",
                      c.where_any({"network.trimming", "network.flow_control"}), mode));
    const std::int64_t packet = c.integer("network.mtu") + c.integer("network.header_bytes");
    const std::int64_t buffer = c.integer("network.ingress_buffer_bytes");
    if (mode == "credit" && buffer > 0 && buffer < packet)
      throw UserError(fmt::format(
          "{}network.ingress_buffer_bytes ({}) must hold at least one full packet (network.mtu + "
          "network.header_bytes = {} bytes), or no full packet ever gets credit",
          c.where_any({"network.ingress_buffer_bytes", "network.mtu", "network.header_bytes"}), buffer, packet));
    const std::int64_t xoff = c.integer("network.pfc_xoff_bytes"), xon = c.integer("network.pfc_xon_bytes");
    if (mode == "pfc" && xoff > 0 && xon > 0 && xon >= xoff)
      throw UserError(fmt::format("{}network.pfc_xon_bytes ({}) must be below network.pfc_xoff_bytes ({})",
                                  c.where_any({"network.pfc_xon_bytes", "network.pfc_xoff_bytes"}), xon, xoff));
  });
  return true;
}();

}  // namespace
}  // namespace lbsim::net
