// The [output] and [run] keys, and the keys the simulation itself interprets in other sections
// (network.bdp_path: how the base RTT is derived; workload.stream: entries made during the run).
#include "core/config.h"

namespace lbsim::sim {
namespace {

[[maybe_unused]] const bool declared = [] {
  using namespace config;
  declare({
      text("network.bdp_path", "shortest",
           "Path the base RTT (and so BDP, queues, windows, RTO) is taken from: shortest (longest shortest path) or "
           "longest_bounded (longest bounded simple path of topo/paths.h, as [Spritz] V-A sizes the BDP \"based on the "
           "longest path\"; data and ACK over that path) or longest_bounded_minimal_ack (data over the longest bounded "
           "path, ACK back over the longest minimal path: the reading that gives [Spritz] Table II's 88 / 92 packets, "
           "scripts/spritz_table2_queue.py).")
          .one_of({"shortest", "longest_bounded", "longest_bounded_minimal_ack"}),
      flag("workload.stream", false,
           "Make the workload's entries during the run, each shortly before its start, and let each entry's record go "
           "as soon as it is over, out of id order (a compact row waits for its flows.csv row to be written in id "
           "order: at most 65,536 in memory, the others in a temporary file in $TMPDIR, else /tmp, like the flows.csv "
           "rows and the summary values), so memory follows the entries in flight, not the entries of the trace "
           "(cdf_trace only; same outputs as false; docs/scale-flows.md)."),
      text("output.dir", "results/run", "Run folder (created); overridden by --out."),
      flag("output.flows_csv", true, "Write flows.csv (one row per workload entry)."),
      flag("output.ports_csv", true, "Write ports.csv (per-port counters and utilisation)."),
      text("output.path_usage_tag", "",
           "Write path_usage.csv: per EV, what each flow with this tag sent and got back (ACKs, ECN, NACKs, timeouts) "
           "and, under source_guided routing, the path the EV names; empty = off."),
      text("output.fct_at", "receiver",
           "The FCT that summary.json's fct_us, slowdown and fct_us_by_tag (and so sweep results) use: receiver (the "
           "receiver holds every byte: flows.csv fct_us) or sender (the sender got the final ACK: flows.csv "
           "sender_fct_us, as htsim reports; docs/htsim.md). sender also keeps the run going until the last sender is "
           "done (receiver stops it when the last receiver is, so the last senders' sender_fct_us can be -1).")
          .one_of({"receiver", "sender"}),
      flag("output.trims_csv", false,
           "Write trims.csv: one row per data packet trimmed or dropped by a full queue (time, port, link kind, the "
           "hop of the packet's path, flow, EV); for finding where and when a scheme loses packets "
           "(docs/results/spritz.md \"Why Spray trims more at full scale\")."),
      real("output.queue_sample_us", 0, "us",
           "Sample switch queue occupancy every this many us into queues.csv; 0 = off.")
          .range(0, 1e12),
      real("output.reorder_sample_us", 0, "us",
           "Sample every host's reorder-buffer occupancy (packets held above its flows' gaps; transport.delivery = "
           "in_order) every this many us into reorder_buffer.csv ([LAPS] Fig. 9); 0 = off.")
          .range(0, 1e12),
      text("output.queue_ports", "busy",
           "Which switch ports queues.csv lists at each sample: busy (those with a non-empty data or control queue) or "
           "all (every switch port, zeros written: ports x samples rows).")
          .one_of({"busy", "all"}),
      integer("run.far_prefetch_mib", 32, "MiB",
              "Engine tuning, no effect on results: once the packet records in existence and the ports take this much "
              "memory, the event loop asks for the state of coming events twice as many events ahead (their lines then "
              "come from main memory, not the last-level cache; docs/scale.md \"Prefetch distances from the working "
              "set\"). summary.json perf.far_prefetch_events counts the events run so. 0 = always.")
          .range(0, 1e9),
      integer("run.seed", 1, "", "Seed of the run; every component derives its own random stream from it.")
          .range(0, 9.2e18),
      real("run.end_us", 100000, "us",
           "Simulated end time; flows unfinished by then are reported (exit code 3). 0 = no end time: the run ends "
           "when every entry has finished, when nothing is left to simulate, or by run.watchdog_us.")
          .range(0, 1e15),
      real("run.watchdog_us", 10000, "us",
           "Stop a run in which entries are unfinished and nothing has progressed (no data packet delivered for the "
           "first time, no entry started or finished, no scheduled start, compute step or failure change pending) for "
           "this long, with exit code 3 and a list of the stuck flows; the window used is at least 20 x the RTO. 0 = "
           "off (the run goes on to run.end_us). With run.end_us = 0 (no end time) the watchdog is what stops a run "
           "with stuck flows.")
          .range(0, 1e15),
      real("run.max_memory_gb", 0, "GiB",
           "Refuse a run (exit 2, before building anything) whose estimated memory exceeds this; 0 = 80% of this "
           "machine's memory (docs/reliability.md; `lbsim topo` prints the estimate).")
          .range(0, 1e9),
      text("run.progress", "auto",
           "Progress on stderr, with an ETA from the work done (data packets delivered out of those to send): auto (a "
           "bar with rate when stderr is a terminal, else one line per minute), on (the bar), log (one line per "
           "minute), off.")
          .one_of({"auto", "on", "log", "off"}),
  });
  return true;
}();

}  // namespace
}  // namespace lbsim::sim
