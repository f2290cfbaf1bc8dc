#include "sim/memory.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <utility>

#include <fmt/core.h>

#include "core/error.h"
#include "lb/registry.h"
#include "metrics/report.h"
#include "metrics/value_log.h"
#include "net/network.h"
#include "net/packet.h"
#include "routing/registry.h"
#include "transport/transport.h"
#include "workload/flow_spec.h"
#include "workload/validate.h"

namespace lbsim::sim {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
// A std::vector filled by push_back holds on average ~1.5x its elements (capacity doubling).
constexpr double kGrowth = 1.5;
// The executable, its libraries, the event-queue wheel and the other fixed tables of a small run
// (measured: a 16-host run peaks at ~10 MiB; docs/reliability.md).
constexpr double kBase = 12.0 * 1024 * 1024;
// Assumed base RTT when the switch buffers are sized in BDPs (the BDP needs the built topology):
// generous for the datacenter and HPC configs of examples/ (2-10 us).
constexpr double kAssumedRttSeconds = 10e-6;

// 1234567 -> "1,234,567" (values beyond 1e18 in exponent form).
std::string grouped(double v) {
  if (!(v < 1e18)) return fmt::format("{:.3g}", v);
  const std::string digits = fmt::format("{:.0f}", std::max(0.0, v));
  std::string s;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) s += ',';
    s += digits[i];
  }
  return s;
}

}  // namespace

std::string format_bytes(double b) {
  if (b >= 1024 * kGiB) return fmt::format("{:.1f} TiB", b / (1024 * kGiB));
  if (b >= kGiB) return fmt::format("{:.1f} GiB", b / kGiB);
  if (b >= 1024 * 1024) return fmt::format("{:.1f} MiB", b / (1024 * 1024));
  return fmt::format("{:.1f} KiB", b / 1024);
}

MemoryEstimate estimate_memory(const config::Config& cfg, MemoryUse use) {
  MemoryEstimate m;
  m.topo = topo::topology_size(cfg);
  const auto& t = m.topo;
  const bool run = use == MemoryUse::Run;
  const double nodes = t.hosts + t.switches, ports = 2 * t.links;
  m.base = kBase;

  // Topology graph (topo::Topology) and, in a run, the network's port records.
  m.graph = nodes * static_cast<double>(sizeof(topo::Node) + sizeof(std::vector<topo::Port>)) +
            ports * kGrowth * static_cast<double>(sizeof(topo::Port)) +
            t.links * kGrowth * static_cast<double>(sizeof(topo::Link));
  if (run) m.graph += ports * static_cast<double>(sizeof(net::Port)) + nodes * 4;

  // Per (switch, destination switch): MinimalTables keeps a 16-bit index into its switch's list of
  // distinct (distance, ports) sets (routing/tables.h; a run and `lbsim topo` build them), in runs
  // of 32 destinations kept once each: per (switch, run) a 4-byte run id, and at most one distinct
  // run of 64 B (the bound: a Slim Fly's runs are nearly all distinct, a fat tree's or Dragonfly's
  // are shared, docs/scale.md "Runs of 32 destinations"); the path model walks them (no state) and
  // the graph statistics search one switch at a time. Per switch: the sets, at most one per (port,
  // distance class) plus the shared multi-port ones (estimated as 2 per port + 4, measured:
  // docs/scale.md), 8 B each plus 2 B per next hop.
  const double pair_tables = t.switches * std::ceil(t.switches / 32) * (4 + 64);
  const double ports_per_switch = t.switches > 0 ? std::max(0.0, ports - t.hosts) / t.switches : 0;
  const double sets_per_switch = std::min(t.switches, 2 * ports_per_switch + 4);
  m.tables = pair_tables + t.switches * (4 + sets_per_switch * (8 + 2 * t.next_hops)) + t.hosts * 2;
  if (!run) return m;

  m.workload = workload::workload_size(cfg, t);
  const auto& w = m.workload;
  const double mtu = static_cast<double>(cfg.integer("network.mtu"));
  const double packet_bytes = mtu + static_cast<double>(cfg.integer("network.header_bytes"));
  // Per entry: its spec, the transport's flow state, its result, and the per-flow objects (load
  // balancer, congestion control, dependency lists) made when it starts.
  const double per_record = static_cast<double>(sizeof(workload::FlowSpec) + sizeof(transport::FlowState) + 160);
  if (cfg.flag("workload.stream")) {
    // workload.stream (docs/scale-flows.md): full records only for the entries in progress (and their
    // per-flow objects); the summary values' block in memory (sim::FlowTotals, metrics::ValueLog: the
    // rest of them, like the flows.csv rows, go to temporary files) and, at worst (one early entry
    // outlives the trace), a slot index per entry in the window, doubled when full, and the waiting
    // rows kept in memory (at most Transport::default_rows_in_memory(); the others on a file).
    const double in_progress = w.in_progress > 0 ? std::min(w.entries, w.in_progress) : w.entries;
    const double rows = std::min(w.entries, static_cast<double>(transport::Transport::default_rows_in_memory()));
    m.entries = in_progress * per_record +
                static_cast<double>(metrics::ValueLog::kDefaultMemoryRecords * sizeof(metrics::TransferValues)) +
                rows * static_cast<double>(sizeof(transport::FlowRow)) +
                w.entries * 2 * static_cast<double>(sizeof(std::uint32_t));
  } else {
    m.entries = w.entries * (per_record + static_cast<double>(sizeof(metrics::FlowResult)));
  }
  // Packets in flight: at most what the switch buffers hold (data queue per switch port) and what
  // the workload has in progress.
  const double message_psns = std::ceil(w.concurrent_bytes / mtu);
  double queue = static_cast<double>(cfg.integer("network.queue_bytes"));
  if (queue <= 0 && cfg.integer("network.queue_packets") > 0)
    queue = static_cast<double>(cfg.integer("network.queue_packets")) * packet_bytes;
  if (queue <= 0) queue = cfg.real("network.queue_bdp") * t.host_rate_bps / 8 * kAssumedRttSeconds;
  const double switch_ports = std::max(0.0, ports - t.hosts);  // every port but the NICs
  m.packets_in_flight = std::min(message_psns, switch_ports * std::ceil(queue / packet_bytes) + 2 * t.hosts);
  // Per-PSN state exists only for the PSNs in play (transport/psn_ring.h): per message in progress a
  // ring from its cumulative point's 64-PSN block to its highest PSN sent, rounded up to a power of
  // two blocks, i.e. at most twice (its PSNs sent and not yet acknowledged + 64). Those PSNs are in
  // flight (data or ACK) or lost, so in all at most 2 x (64 per message + the packets in flight), and
  // never more than the messages' own PSNs. Per PSN: the sender's entry (send time, EV, state), its
  // send-log record, SACK and receive bits.
  const double messages = w.in_progress > 0 ? std::min(w.entries, w.in_progress)
                          : w.largest_message > 0
                              ? std::min(w.entries, std::ceil(w.concurrent_bytes / w.largest_message))
                              : w.entries;
  m.packets_per_entry_state = std::min(message_psns, 2 * (64 * messages + m.packets_in_flight));
  m.psn_state = m.packets_per_entry_state *
                (static_cast<double>(sizeof(transport::PsnEntry) + sizeof(std::pair<std::uint32_t, SimTime>)) + 0.25);
  m.packets = m.packets_in_flight * static_cast<double>(sizeof(net::Packet) + sizeof(net::AckFields)) * kGrowth;
  // What the run's routing and load balancer keep of their own (their `memory` hooks): routing
  // tables beyond the shared ones, the switch pairs the workload uses with their paths (EV entry
  // lists, path records), and per-connection state over those paths.
  config::MemorySizes sizes;
  sizes.hosts = t.hosts;
  sizes.switches = t.switches;
  sizes.links = t.links;
  sizes.bounded_paths = t.bounded_paths;
  sizes.minimal_one_global_hop = t.minimal_one_global_hop;
  sizes.pair_tables = pair_tables;
  sizes.entries = w.entries;
  sizes.concurrent_bytes = w.concurrent_bytes;
  sizes.largest_message = w.largest_message;
  if (const auto* r = routing::routings().find(cfg.text("routing.algorithm")); r && r->memory) {
    const config::MemoryShare share = r->memory(cfg, sizes);
    m.tables += share.tables;
    m.path_pairs = share.path_pairs;
    m.paths = share.paths;
    sizes.path_pairs = share.path_pairs;
    sizes.path_lists = share.path_lists;
  }
  if (const auto* lb = lb::balancers().find(cfg.text("lb.algorithm")); lb && lb->memory)
    m.paths += lb->memory(cfg, sizes);
  return m;
}

std::string MemoryEstimate::describe() const {
  const double topo_part = base + graph + tables;
  std::string s =
      fmt::format("{} (topology {}: {} switches, {} hosts, {} links; {} of tables per switch pair ({} pairs)",
                  format_bytes(total()), format_bytes(topo_part), grouped(topo.switches), grouped(topo.hosts),
                  grouped(topo.links), format_bytes(tables), grouped(topo.switches * topo.switches));
  const double wl = entries + psn_state + packets;
  if (wl > 0)
    s += fmt::format("; workload {}: {} entries, {} PSNs of per-PSN state, {} packets in flight", format_bytes(wl),
                     grouped(workload.entries), grouped(packets_per_entry_state), grouped(packets_in_flight));
  if (paths > 0)
    s += fmt::format("; bounded paths {}: {} switch pairs in use x up to {} paths", format_bytes(paths),
                     grouped(path_pairs), grouped(topo.bounded_paths));
  return s + ")";
}

double machine_memory_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("MemTotal:", 0) == 0) {
      std::istringstream ss(line.substr(9));
      double kib = 0;
      ss >> kib;
      return kib * 1024;
    }
  return 0;
}

double memory_limit_bytes(const config::Config& cfg, std::string* why) {
  const double gb = cfg.real("run.max_memory_gb");
  if (gb > 0) {
    if (why) *why = fmt::format("run.max_memory_gb = {:g}", gb);
    return gb * kGiB;
  }
  const double machine = machine_memory_bytes();
  if (machine <= 0) {
    if (why) *why = "none (run.max_memory_gb = 0 and this machine's memory is unknown)";
    return 0;
  }
  if (why)
    *why = fmt::format("run.max_memory_gb = {:.1f} (80% of this machine's {:.1f} GiB)", 0.8 * machine / kGiB,
                       machine / kGiB);
  return 0.8 * machine;
}

void check_memory(const config::Config& cfg, MemoryUse use) {
  const MemoryEstimate m = estimate_memory(cfg, use);
  // A message beyond the 32-bit sequence numbers is the config's error whatever memory it would
  // take (the same limit check_packet_counts applies to the built workload, here from the keys).
  const double mtu = static_cast<double>(cfg.integer("network.mtu"));
  if (const double packets = std::ceil(m.workload.largest_message / mtu);
      packets > static_cast<double>(workload::kMaxMessagePackets))
    throw UserError(fmt::format(
        "{}workload.size = {} bytes are {:.0f} packets of network.mtu = {:.0f} bytes; a message holds at "
        "most {} packets (32-bit sequence numbers): lower it or raise network.mtu",
        cfg.where("workload.size"), cfg.integer("workload.size"), packets, mtu, workload::kMaxMessagePackets));
  std::string why;
  const double limit = memory_limit_bytes(cfg, &why);
  if (limit <= 0 || m.total() <= limit) return;
  // Name the keys of the part that does not fit on its own (the topology first: a workload that
  // scales with the hosts shrinks with it), else of both.
  const double topo_part = m.base + m.graph + m.tables, wl_part = m.entries + m.psn_state + m.packets + m.paths;
  std::string keys = topo_part > limit || wl_part <= topo_part ? m.topo.keys : m.workload.keys;
  if (topo_part <= limit && wl_part <= limit && !m.workload.keys.empty())
    keys = topo_part >= wl_part ? m.topo.keys + " or " + m.workload.keys : m.workload.keys + " or " + m.topo.keys;
  const std::string file = cfg.source_file.empty() ? std::string() : cfg.source_file + ": ";
  throw UserError(fmt::format("{}estimated memory {} exceeds {}; lower {} or raise run.max_memory_gb", file,
                              m.describe(), why, keys.empty() ? "the size" : keys));
}

}  // namespace lbsim::sim
