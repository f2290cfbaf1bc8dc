#include "sim/config.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include <fmt/core.h>
#include <toml++/toml.h>

#include "core/error.h"
#include "core/text.h"
#include "lb/policy.h"
#include "routing/router.h"
#include "transport/cc.h"
#include "workload/workload_params.h"

namespace lbsim::sim {

namespace {

// Switch routing names: the routing layer's registry plus `layered`, which the sim layer builds
// (its tables come from the analysis layer; see sim/layered_router.h).
std::vector<std::string> routing_choices() {
  auto r = routing::routing_names();
  r.push_back("layered");
  return r;
}

std::vector<std::string> workload_kind_names() {
  auto k = workload::workload_kinds();
  k.push_back("adversarial");
  return k;
}

std::vector<KeyDef> make_keys() {
  using C = Config;
  std::vector<KeyDef> k;
  auto add = [&](std::string key, Field f, std::string unit, std::string doc) -> KeyDef& {
    k.push_back(KeyDef{std::move(key), f, std::move(unit), std::move(doc), {}, -1e300, 1e300, false});
    return k.back();
  };
  auto range = [](KeyDef& d, double lo, double hi) -> KeyDef& { d.min = lo; d.max = hi; return d; };

  // [topology]
  add("topology.kind", &C::topo_kind, "", "Topology generator: fat_tree ([REPS] 4.1), dragonfly ([Spritz] II-A, docs/topologies.md), slim_fly (MMS graph, [SlimFly] sec. 2).").choices = {"fat_tree", "dragonfly", "slim_fly"};
  range(add("topology.hosts", &C::hosts, "hosts", "Number of hosts (endpoints)."), 2, 1e7);
  range(add("topology.tiers", &C::tiers, "", "Fat tree: 2 (ToR + spine) or 3 (ToR + aggregation + core, in pods)."), 2, 3);
  range(add("topology.radix", &C::radix, "ports", "Fat tree: switch port count k."), 2, 4096);
  range(add("topology.hosts_per_tor", &C::hosts_per_tor, "hosts", "Fat tree: hosts per ToR; 0 = radix/2."), 0, 4096);
  range(add("topology.oversubscription", &C::oversubscription, "r in r:1", "Fat tree: ToR oversubscription; ToR uplinks = hosts_per_tor / r."), 1, 4096);
  range(add("topology.host_rate_gbps", &C::host_rate_gbps, "Gb/s", "Rate of host links (NIC)."), 1e-3, 1e6);
  range(add("topology.tier1_rate_gbps", &C::tier1_rate_gbps, "Gb/s", "Fat tree: rate of ToR-aggregation (T0-T1) links."), 1e-3, 1e6);
  range(add("topology.tier2_rate_gbps", &C::tier2_rate_gbps, "Gb/s", "Fat tree: rate of aggregation-core (T1-T2) links."), 1e-3, 1e6);
  range(add("topology.host_latency_ns", &C::host_latency_ns, "ns", "Propagation latency of host links."), 0, 1e9);
  range(add("topology.tier1_latency_ns", &C::tier1_latency_ns, "ns", "Fat tree: latency of T0-T1 links."), 0, 1e9);
  range(add("topology.tier2_latency_ns", &C::tier2_latency_ns, "ns", "Fat tree: latency of T1-T2 links."), 0, 1e9);
  range(add("topology.p", &C::p, "hosts", "Dragonfly / Slim Fly: hosts per switch; 0 = default (Dragonfly 4, Slim Fly ceil(k'/2))."), 0, 4096);
  range(add("topology.a", &C::a, "switches", "Dragonfly: switches per group."), 1, 4096);
  range(add("topology.h", &C::h, "links", "Dragonfly: global links per switch."), 1, 4096);
  range(add("topology.g", &C::g, "groups", "Dragonfly: groups; 0 = a*h + 1 (one global link per group pair)."), 0, 1e6);
  add("topology.arrangement", &C::arrangement, "", "Dragonfly: global-link arrangement (docs/topologies.md).").choices = {"consecutive", "absolute", "palmtree"};
  add("topology.global_map", &C::global_map, "path", "Dragonfly: explicit global-link map file (overrides arrangement), relative to the config file.");
  range(add("topology.q", &C::q, "", "Slim Fly: the prime power q of the MMS construction (q = 4w + delta)."), 2, 1e4);
  range(add("topology.link_rate_gbps", &C::link_rate_gbps, "Gb/s", "Dragonfly / Slim Fly: rate of every link (host links included)."), 1e-3, 1e6);
  range(add("topology.local_latency_ns", &C::local_latency_ns, "ns", "Dragonfly / Slim Fly: latency of local (intra-group / intra-rack) links ([Spritz] Table II: 25)."), 0, 1e9);
  range(add("topology.global_latency_ns", &C::global_latency_ns, "ns", "Dragonfly / Slim Fly: latency of global (inter-group / inter-rack) links (Table II: 500)."), 0, 1e9);
  // [network]
  range(add("network.switch_latency_ns", &C::switch_latency_ns, "ns", "Fixed switch traversal latency, added when a packet arrives at a switch."), 0, 1e9);
  range(add("network.mtu", &C::mtu, "bytes", "Payload bytes of a full data packet (the wire adds header_bytes)."), 1, 1 << 20).size = true;
  range(add("network.header_bytes", &C::header_bytes, "bytes", "Header bytes of every packet; also the size of ACKs, NACKs and trimmed packets."), 1, 65536).size = true;
  range(add("network.queue_bdp", &C::queue_bdp, "BDP", "Data queue capacity per port as a multiple of the BDP (used unless queue_bytes or queue_packets is set)."), 1e-6, 1e6);
  range(add("network.queue_bytes", &C::queue_bytes, "bytes", "Data queue capacity per port in bytes; 0 = use queue_packets or queue_bdp."), 0, 1e15).size = true;
  range(add("network.queue_packets", &C::queue_packets, "packets", "Data queue capacity per port in full packets; 0 = use queue_bdp."), 0, 1e9);
  range(add("network.ctrl_queue_bytes", &C::ctrl_queue_bytes, "bytes", "Capacity of the priority control queue (ACK/NACK/trimmed headers); 0 = same as the data queue."), 0, 1e15).size = true;
  range(add("network.kmin", &C::kmin, "fraction of queue", "ECN marking starts above this queue fill (RED Kmin)."), 0, 1);
  range(add("network.kmax", &C::kmax, "fraction of queue", "Every packet is marked at or above this queue fill (RED Kmax)."), 0, 1);
  add("network.ecn", &C::ecn, "", "Enable ECN marking.");
  add("network.trimming", &C::trimming, "", "Trim packets that overflow the data queue (else tail-drop them).");
  range(add("network.ev_bits", &C::ev_bits, "bits", "Width of the entropy value; EVs are drawn from [0, 2^ev_bits)."), 1, 24);
  add("network.bdp_path", &C::bdp_path, "", "Path the base RTT (and so BDP, queues, windows, RTO) is taken from: shortest (longest shortest path) or longest_bounded (longest bounded simple path of topo/paths.h, as [Spritz] V-A sizes the BDP \"based on the longest path\").").choices = {"shortest", "longest_bounded"};
  // [routing]
  add("routing.algorithm", &C::routing, "", "Switch routing plug-in (minimal, valiant, ugal_l, ecmp_paths: docs/topologies.md \"Switch routing\").").choices = routing_choices();
  range(add("routing.layers", &C::layers, "layers", "layered: number of routing layers L (layer 0 = all links, minimal paths); a packet uses layer EV mod L ([SlimFly] sec. 4-5)."), 1, 64);
  add("routing.layer_scheme", &C::layer_scheme, "", "layered: how layers are built: layered (Algorithm 1 / App. B), rues or fatpaths (baselines, docs/layered-routing.md).").choices = {"layered", "rues", "fatpaths"};
  range(add("routing.layer_keep_fraction", &C::layer_keep_fraction, "", "layered with rues/fatpaths: fraction of links kept in each layer >= 1."), 0.01, 1);
  add("routing.valiant_mode", &C::valiant_mode, "", "valiant: per_hop (next hop drawn uniformly at each switch, the Spritz implementation) or path (uniform over whole Valiant paths, Valiant's definition); [Spritz] V-A.").choices = {"per_hop", "path"};
  add("routing.ugal", &C::ugal, "", "ugal_l: local (UGAL-L, q x h with the source switch's output queues) or global (UGAL-G, queues summed along each path).").choices = {"local", "global"};
  // [transport]
  add("transport.cc", &C::cc, "", "Congestion control: dctcp_ack (per-ACK DCTCP variant of MPRDMA/REPS), dctcp (classic), none (fixed window).").choices = transport::cc_names();
  range(add("transport.init_cwnd_bdp", &C::init_cwnd_bdp, "BDP", "Initial congestion window."), 1e-6, 1e6);
  range(add("transport.max_cwnd_bdp", &C::max_cwnd_bdp, "BDP", "Maximum congestion window."), 1e-6, 1e6);
  range(add("transport.ecn_decrease", &C::ecn_decrease, "fraction of acked bytes", "dctcp_ack: window decrease per ECN-marked ACK."), 0, 100);
  range(add("transport.nack_decrease", &C::nack_decrease, "MTUs", "Window decrease per NACK (trimmed packet)."), 0, 1e6);
  range(add("transport.timeout_decrease", &C::timeout_decrease, "MTUs", "Window decrease per retransmission timeout."), 0, 1e6);
  range(add("transport.dctcp_g", &C::dctcp_g, "", "dctcp: EWMA gain g of alpha."), 0, 1);
  add("transport.quick_adapt", &C::quick_adapt, "", "SMaRTT QuickAdapt: on NACK/timeout set the window to the bytes delivered in the last base RTT, once per base RTT, when that is below max window / 2^quick_adapt_gate; the congestion signals of the bytes then in flight cause no further decrease (src/transport/cc.h).");
  range(add("transport.quick_adapt_gate", &C::quick_adapt_gate, "", "SMaRTT QA gate: QuickAdapt acts only when the bytes delivered in the last base RTT are below max window / 2^gate (3 = 12.5%); 0 = every loss episode."), 0, 30);
  add("transport.fast_increase", &C::fast_increase, "", "SMaRTT FastIncrease: after a window of unmarked ACKs grow by fast_increase_gain x acked per ACK.");
  range(add("transport.fast_increase_gain", &C::fast_increase_gain, "", "FastIncrease growth per acked byte."), 0, 100);
  range(add("transport.rto_us", &C::rto_us, "us", "Retransmission timeout; 0 = max unloaded RTT + drain time of every full queue on the longest path, both directions."), 0, 1e9);
  range(add("transport.ack_every", &C::ack_every, "packets", "ACK coalescing: one ACK per n data packets (1 = per-packet ACKs)."), 1, 64);
  range(add("transport.ack_delay_us", &C::ack_delay_us, "us", "With ack_every > 1: send a partial ACK after this delay."), 0, 1e9);
  // [lb]
  add("lb.algorithm", &C::lb, "", "Sender-side load balancer (EV choice per packet).").choices = lb::policy_names();
  range(add("lb.spritz_buffer_size", &C::spritz_buffer_size, "EVs", "Spritz-Scout/-Spray: positions of buffer_paths, the cache of good paths ([Spritz] sec. IV: 8)."), 1, 255);
  range(add("lb.spritz_explore_threshold", &C::spritz_explore_threshold, "packets", "Spritz-Scout/-Spray: Alg. 1 samples a fresh path once packet_count exceeds this (Table II: 44, ~0.5 BDP)."), 0, 1e9);
  range(add("lb.spritz_ecn_threshold", &C::spritz_ecn_threshold, "packets", "Spritz-Scout: a cached path is dropped after more than this many ECN-marked ACKs (Alg. 2, Table II: 8)."), 0, 65535);
  range(add("lb.spritz_w_scale", &C::spritz_w_scale, "", "ops_w / spritz_*_w / flicr_w: Eq. 1 weights stretched as 1 + w_scale (lat_longest / lat_i - 1); the longest path keeps 1.0 (sec. V-A: 3; docs/spritz.md)."), 0, 1e6);
  range(add("lb.spritz_min_bias_factor", &C::spritz_min_bias_factor, "weight", "Spritz-Scout/-Spray: w[0] (shortest path) while the ECN rate of a base RTT exceeds spritz_ecn_bias_rate (Alg. 2 l. 23-24)."), 0, 1e12);
  range(add("lb.spritz_ecn_bias_rate", &C::spritz_ecn_bias_rate, "fraction of ACKs", "Spritz-Scout/-Spray: ECN rate above which the sender biases towards the minimal path (Alg. 2: 90%)."), 0, 1);
  range(add("lb.spritz_reinsert_holdoff_rtts", &C::spritz_reinsert_holdoff_rtts, "base RTTs", "Spritz-Scout, our extension (0 = Alg. 2 as written): after removing a path, ignore its unmarked ACKs for this many base RTTs so the ACKs of packets already in flight on it do not re-insert it (docs/spritz.md)."), 0, 1e6);
  range(add("lb.spritz_restore_us", &C::spritz_restore_us, "us", "Spritz-Scout/-Spray: global timer that restores the Eq. 1 weight of timed-out paths (sec. IV-A); 0 = 10 x RTO."), 0, 1e12);
  range(add("lb.flicr_ecn_fraction", &C::flicr_ecn_fraction, "fraction of ACKs", "Flicr: move to a new path when more than this fraction of one base RTT's ACKs is ECN-marked (sec. V-A)."), 0, 1);
  range(add("lb.reps_buffer_size", &C::reps_buffer_size, "EVs", "REPS: circular buffer elements ([REPS] sec. 3.1: 8; Table 1 sizes the state for 1 and 8)."), 1, 255);
  add("lb.reps_freezing", &C::reps_freezing, "", "REPS: enter freezing mode on a detected failure ([REPS] sec. 3.2; off = App. C.4).");
  range(add("lb.reps_freezing_timeout_us", &C::reps_freezing_timeout_us, "us", "REPS: time in freezing mode before exploring again; 0 = the RTO."), 0, 1e12);
  range(add("lb.reps_idle_us", &C::reps_idle_us, "us", "REPS: a connection that sent nothing for this long counts as new and explores its first BDP again; 0 = never."), 0, 1e12);
  add("lb.reps_ack_mode", &C::reps_ack_mode, "", "REPS with ACK coalescing ([REPS] sec. 4.5.1): plain (the ACK's own EV), carry (ACK + Carry EVs: the ACK carries every non-ECN EV it covers, at most 8; needs ev_bits <= 16), reuse (ACK + Reuse EVs: each cached EV is used reps_reuse times).").choices = {"plain", "carry", "reuse"};
  range(add("lb.reps_reuse", &C::reps_reuse, "uses", "REPS reuse mode: uses per cached EV; 0 = transport.ack_every."), 0, 255);
  range(add("lb.reps_failure_rtt_factor", &C::reps_failure_rtt_factor, "x min RTT", "REPS without trimming (App. A): a timeout is a failure when the ACKs of the preceding one to two RTOs had RTTs all below this multiple of the connection's smallest RTT (no recent ACK: not a failure)."), 0, 1e6);
  range(add("lb.plb_threshold", &C::plb_threshold, "fraction of ACKs", "plb: a round (one base RTT) is congested when at least this fraction of its ACKs is ECN-marked."), 0, 1);
  range(add("lb.plb_rounds", &C::plb_rounds, "rounds", "plb: repath after this many consecutive congested rounds ([REPS] 4.1: aggressive, FlowBender-like)."), 1, 1000);
  range(add("lb.flowlet_timeout_us", &C::flowlet_timeout_us, "us", "flowlet: idle gap that starts a new flowlet on a new EV; 0 = half the base RTT ([REPS] 4.1)."), 0, 1e12);
  range(add("lb.mptcp_subflows", &C::mptcp_subflows, "subflows", "mptcp: subflows per connection, each on its own fixed EV ([REPS] 4.1: 8)."), 1, 1024);
  range(add("lb.bitmap_evs", &C::bitmap_evs, "EVs", "bitmap: EVs per connection with a penalty counter."), 1, 1 << 24);
  range(add("lb.bitmap_ecn_penalty", &C::bitmap_ecn_penalty, "draws", "bitmap: penalty added to an EV per ECN-marked ACK."), 0, 255);
  range(add("lb.bitmap_nack_penalty", &C::bitmap_nack_penalty, "draws", "bitmap: penalty added to an EV per NACK."), 0, 255);
  range(add("lb.bitmap_timeout_penalty", &C::bitmap_timeout_penalty, "draws", "bitmap: penalty added to an EV per timeout."), 0, 255);
  // [workload]
  add("workload.kind", &C::wl_kind, "", "Traffic source; docs/workloads.md describes each. permutation/tornado/incast/flows_csv use size, start_us, file; adversarial is the topology's worst case (Dragonfly group shift, Slim Fly distance-2 pattern, docs/topologies.md).").choices = workload_kind_names();
  range(add("workload.size", &C::size_bytes, "bytes", "Message size of generated flows (e.g. 8388608 or \"8MiB\")."), 0, 1e15).size = true;
  range(add("workload.start_us", &C::start_us, "us", "Start time of generated flows."), 0, 1e12);
  range(add("workload.incast_senders", &C::incast_senders, "hosts", "incast: number of senders (hosts after the receiver, wrapping)."), 1, 1e7);
  range(add("workload.incast_receiver", &C::incast_receiver, "host id", "incast: receiving host."), 0, 1e7);
  add("workload.file", &C::wl_file, "path", "flows_csv / ns3 / htsim_cm / goal: input file, relative to the config file.");
  range(add("workload.incast_first_sender", &C::incast_first_sender, "host id", "incast: first of the k consecutive sender hosts (skipping the receiver); -1 = the hosts after the receiver."), -1, 1e7);
  add("workload.incast_bystanders", &C::incast_bystanders, "", "incast: the other hosts run a permutation among themselves (tag bystander; [Spritz] V-C).");
  add("workload.outside_group", &C::outside_group, "", "permutation: receivers outside the sender's group (Dragonfly group, Slim Fly rack, fat-tree pod/ToR; [Spritz] V-B).");
  range(add("workload.shift", &C::shift, "groups", "adversarial on a Dragonfly: group i sends to group i + shift."), 1, 1e6);
  add("workload.cdf", &C::cdf, "", "cdf_trace: flow-size distribution, a built-in name (websearch, datamining, hadoop, alistorage, googlerpc, enterprise) or a CDF file.");
  range(add("workload.load", &C::load, "fraction of host rate", "cdf_trace: offered load per sending host."), 1e-6, 100);
  range(add("workload.duration_us", &C::duration_us, "us", "cdf_trace: arrivals during this long after start_us."), 0, 1e12);
  range(add("workload.warmup_us", &C::warmup_us, "us", "cdf_trace: flows starting in the first warmup_us are tagged warmup."), 0, 1e12);
  range(add("workload.max_senders_per_receiver", &C::max_senders_per_receiver, "hosts", "cdf_trace: cap on simultaneous senders per receiver; 0 = none."), 0, 1e7);
  range(add("workload.incast_interval_us", &C::incast_interval_us, "us", "cdf_trace: mean time between Poisson incast events (0 = none); each has incast_senders senders of incast_bytes."), 0, 1e12);
  range(add("workload.incast_bytes", &C::incast_bytes, "bytes", "cdf_trace: bytes per incast sender."), 1, 1e15).size = true;
  range(add("workload.monitored_fraction", &C::monitored_fraction, "", "cdf_trace: fraction of flows tagged monitored."), 0, 1);
  add("workload.destinations", &C::destinations, "", "cdf_trace: receiver choice.").choices = {"uniform", "all_to_one", "one_to_all"};
  range(add("workload.ranks", &C::ranks, "hosts", "Collectives: participating endpoints; 0 = all hosts."), 0, 1e7);
  add("workload.random_subset", &C::random_subset, "", "Collectives: choose the ranks at random (seeded) instead of contiguously from first_host.");
  range(add("workload.first_host", &C::first_host, "host id", "Collectives: first host of a contiguous subset."), 0, 1e7);
  range(add("workload.window", &C::window, "connections", "alltoall: parallel connections per endpoint."), 1, 1e7);
  range(add("workload.root", &C::root, "rank", "ps_allreduce / allscatter / all_to_one / one_to_all: the root."), 0, 1e7);
  add("workload.butterfly", &C::butterfly, "", "butterfly_allreduce variant.").choices = {"halving_doubling", "recursive_doubling"};
  add("workload.background", &C::background, "", "Collectives: endpoints outside the collective run a permutation (tag background).");
  range(add("workload.background_bytes", &C::background_bytes, "bytes", "Collectives: background message size; 0 = size."), 0, 1e15).size = true;
  add("workload.background_lb", &C::background_lb, "", "Collectives: load balancer of the background permutation ([Spritz] V-B: ecmp).");
  add("workload.htsim_start_unit", &C::htsim_start_unit, "", "htsim_cm: unit of the connection start times (UEC htsim: us; REPS artifact: ps).").choices = {"ps", "ns", "us", "ms"};
  range(add("workload.calc_unit_ns", &C::calc_unit_ns, "ns", "goal: duration of one calc unit."), 0, 1e12);
  add("workload.ns3_topology", &C::ns3_topology, "path", "ns3: HPCC topology file giving the switch node ids (node ids are hosts first otherwise).");
  range(add("workload.ecmp_fraction", &C::ecmp_fraction, "fraction of transfers", "This seeded fraction of the transfers (those without their own lb) uses ECMP, tagged ecmp_background ([REPS] sec. 4.3.2: REPS next to ECMP-hashed traffic)."), 0, 1);
  // [failures] (docs/reps.md "Failures", src/net/failures.h)
  add("failures.file", &C::failures_file, "path", "Failure schedule file (one failure per line: <start_us> <kind> <target> [for_us=] [from=] [rate_gbps=] [prob=]), relative to the config file.");
  range(add("failures.random_fraction", &C::fail_fraction, "fraction of links", "Fail this fraction of the random_links class at random (seeded by run.seed; at least one link when > 0)."), 0, 1);
  add("failures.random_links", &C::fail_links, "", "Class of links random failures pick from: tor_uplinks (fat tree ToR-to-T1 links), switch_links (every switch-to-switch link), all.").choices = {"tor_uplinks", "switch_links", "all"};
  add("failures.random_kind", &C::fail_kind, "", "What the random failures do, in both directions: down (black hole), degrade (random_rate_gbps), loss (random_loss).").choices = {"down", "degrade", "loss"};
  range(add("failures.random_start_us", &C::fail_start_us, "us", "Start time of the random failures."), 0, 1e12);
  range(add("failures.random_duration_us", &C::fail_duration_us, "us", "Duration of the random failures; 0 = permanent."), 0, 1e12);
  range(add("failures.random_rate_gbps", &C::fail_rate_gbps, "Gb/s", "Rate of a degraded link (random_kind = degrade)."), 1e-3, 1e6);
  range(add("failures.random_loss", &C::fail_loss, "probability", "Per-packet drop probability (random_kind = loss)."), 0, 1);
  range(add("failures.converge_us", &C::converge_us, "us", "Routing removes a down link (or switch) from the ECMP groups this long after it fails and adds it back this long after it recovers; 0 = routing never reacts ([REPS] sec. 3.2)."), 0, 1e12);
  // [output]
  add("output.dir", &C::out_dir, "path", "Run folder (created); overridden by --out.");
  add("output.flows_csv", &C::flows_csv, "", "Write flows.csv (one row per workload entry).");
  add("output.ports_csv", &C::ports_csv, "", "Write ports.csv (per-port counters and utilisation).");
  add("output.path_usage_tag", &C::path_usage_tag, "", "Write path_usage.csv: per EV, what each flow with this tag sent and got back (ACKs, ECN, NACKs, timeouts) and, under source_guided routing, the path the EV names; empty = off.");
  range(add("output.queue_sample_us", &C::queue_sample_us, "us", "Sample switch queue occupancy every this many us into queues.csv; 0 = off."), 0, 1e12);
  // [run]
  range(add("run.seed", &C::seed, "", "Seed of the run; every component derives its own random stream from it."), 0, 9.2e18);
  range(add("run.end_us", &C::end_us, "us", "Simulated end time; flows unfinished by then are reported (exit code 3)."), 0, 1e15);
  add("run.progress", &C::progress, "", "Progress line on stderr: auto (when stderr is a terminal), on, off.").choices = {"auto", "on", "off"};
  return k;
}

const KeyDef* find_key(const std::string& key) {
  for (const auto& d : config_keys())
    if (d.key == key) return &d;
  return nullptr;
}

std::string where(const std::string& file, const toml::source_region& src) {
  if (src.begin.line == 0) return file;
  return fmt::format("{}:{}", file, src.begin.line);
}

const char* type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a number";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::array: return "an array";
    case toml::node_type::table: return "a table";
    default: return "a date/time";
  }
}

// "8MiB" -> 8388608; returns false when the text is not a size.
bool parse_size(const std::string& s, std::int64_t& out) {
  std::size_t i = 0;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
  if (i == 0) return false;
  double v = 0;
  try {
    v = std::stod(s.substr(0, i));
  } catch (...) {
    return false;
  }
  std::string unit = s.substr(i);
  unit.erase(std::remove(unit.begin(), unit.end(), ' '), unit.end());
  double mul = 0;
  if (unit.empty() || unit == "B") mul = 1;
  else if (unit == "KiB") mul = 1024.0;
  else if (unit == "MiB") mul = 1024.0 * 1024;
  else if (unit == "GiB") mul = 1024.0 * 1024 * 1024;
  else if (unit == "KB" || unit == "kB") mul = 1e3;
  else if (unit == "MB") mul = 1e6;
  else if (unit == "GB") mul = 1e9;
  else return false;
  out = static_cast<std::int64_t>(std::llround(v * mul));
  return true;
}

void set_value(Config& cfg, const KeyDef& d, const toml::node& n, const std::string& loc) {
  const auto fail = [&](const std::string& expected) {
    throw UserError(fmt::format("{}: key '{}': expected {}, got {}", loc, d.key, expected, type_name(n)));
  };
  const auto check_range = [&](double v) {
    if (v < d.min || v > d.max)
      throw UserError(fmt::format("{}: key '{}': value {} is out of range [{}, {}]{}", loc, d.key, v,
                                  d.min, d.max, d.unit.empty() ? "" : " (" + d.unit + ")"));
  };
  std::visit(
      [&](auto member) {
        using T = std::remove_reference_t<decltype(cfg.*member)>;
        if constexpr (std::is_same_v<T, bool>) {
          if (!n.is_boolean()) fail("true or false");
          cfg.*member = n.as_boolean()->get();
        } else if constexpr (std::is_same_v<T, std::int64_t>) {
          std::int64_t v = 0;
          if (n.is_integer()) {
            v = n.as_integer()->get();
          } else if (d.size && n.is_string()) {
            if (!parse_size(n.as_string()->get(), v))
              throw UserError(fmt::format("{}: key '{}': '{}' is not a size (expected bytes, e.g. 4096, \"4KiB\", \"8MiB\", \"1GB\")",
                                          loc, d.key, n.as_string()->get()));
          } else {
            fail(d.size ? "an integer number of bytes or a size string like \"8MiB\"" : "an integer");
          }
          check_range(static_cast<double>(v));
          cfg.*member = v;
        } else if constexpr (std::is_same_v<T, double>) {
          double v = 0;
          if (n.is_floating_point()) v = n.as_floating_point()->get();
          else if (n.is_integer()) v = static_cast<double>(n.as_integer()->get());
          else fail("a number");
          if (!std::isfinite(v)) fail("a finite number");
          check_range(v);
          cfg.*member = v;
        } else {
          if (!n.is_string()) fail("a string");
          std::string v = n.as_string()->get();
          if (!d.choices.empty() && std::find(d.choices.begin(), d.choices.end(), v) == d.choices.end()) {
            std::string list;
            for (const auto& c : d.choices) list += (list.empty() ? "" : ", ") + c;
            throw UserError(fmt::format("{}: key '{}': '{}' is not one of: {}", loc, d.key, v, list));
          }
          cfg.*member = v;
        }
      },
      d.field);
}

std::string unknown_key_message(const std::string& loc, const std::string& key) {
  return fmt::format("{}: unknown key '{}' (did you mean '{}'?)", loc, key, closest_key(key));
}

}  // namespace

const std::vector<KeyDef>& config_keys() {
  static const std::vector<KeyDef> keys = make_keys();
  return keys;
}

const std::vector<std::string>& config_sections() {
  static const std::vector<std::string> s{"topology", "network", "routing", "transport",
                                          "lb", "workload", "failures", "output", "run"};
  return s;
}

std::string closest_key(const std::string& key) {
  std::string best;
  std::size_t best_d = ~std::size_t{0};
  for (const auto& d : config_keys()) {
    const std::size_t dist = edit_distance(key, d.key);
    if (dist < best_d) {
      best_d = dist;
      best = d.key;
    }
  }
  return best;
}

void load_config_file(Config& cfg, const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UserError(fmt::format("cannot open config file '{}'", path));
  toml::table root;
  try {
    root = toml::parse(in, path);
  } catch (const toml::parse_error& e) {
    throw UserError(fmt::format("{}:{}:{}: TOML syntax error: {}", path, e.source().begin.line,
                                e.source().begin.column, e.description()));
  }
  cfg.source_file = path;
  for (const auto& [sec_key, sec_node] : root) {
    const std::string sec(sec_key.str());
    const std::string loc = where(path, sec_node.source());
    const auto& secs = config_sections();
    if (!sec_node.is_table()) {
      throw UserError(fmt::format("{}: '{}' must be inside a section ([topology], [network], ...); "
                                  "did you mean '{}'?", loc, sec, closest_key(sec)));
    }
    if (std::find(secs.begin(), secs.end(), sec) == secs.end())
      throw UserError(unknown_key_message(loc, sec));
    for (const auto& [k, v] : *sec_node.as_table()) {
      const std::string full = sec + "." + std::string(k.str());
      const std::string kloc = where(path, v.source());
      const KeyDef* d = find_key(full);
      if (!d) throw UserError(unknown_key_message(kloc, full));
      set_value(cfg, *d, v, kloc);
    }
  }
}

void apply_override(Config& cfg, const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw UserError(fmt::format("--set '{}': expected section.key=value", assignment));
  std::string key = assignment.substr(0, eq);
  const std::string value = assignment.substr(eq + 1);
  const KeyDef* d = find_key(key);
  if (!d) throw UserError(unknown_key_message("--set", key));
  toml::table t;
  try {
    t = toml::parse("v = " + value);
  } catch (const toml::parse_error&) {
    t = toml::table{{"v", value}};  // a bare word: take it as a string (e.g. lb.algorithm=ops)
  }
  set_value(cfg, *d, *t.get("v"), "--set");
}

void validate(const Config& c) {
  if (c.kmin >= c.kmax)
    throw UserError(fmt::format("network.kmin ({}) must be below network.kmax ({})", c.kmin, c.kmax));
  if (c.max_cwnd_bdp < c.init_cwnd_bdp)
    throw UserError(fmt::format("transport.max_cwnd_bdp ({}) is below transport.init_cwnd_bdp ({})",
                                c.max_cwnd_bdp, c.init_cwnd_bdp));
  for (const char* k : {"flows_csv", "ns3", "htsim_cm", "goal"})
    if (c.wl_kind == k && c.wl_file.empty())
      throw UserError(fmt::format("workload.kind = \"{}\" needs workload.file", k));
  if (c.reps_ack_mode == "carry" && c.ev_bits > 16)
    throw UserError(fmt::format("lb.reps_ack_mode = \"carry\" carries 16-bit EVs; network.ev_bits = {} is too wide",
                                c.ev_bits));
}

std::string to_toml(const Config& cfg) {
  std::ostringstream os;
  os << "# Resolved lbsim configuration: every key with the value this run used.\n";
  std::string cur;
  for (const auto& d : config_keys()) {
    const auto dot = d.key.find('.');
    const std::string sec = d.key.substr(0, dot), name = d.key.substr(dot + 1);
    if (sec != cur) {
      os << (cur.empty() ? "" : "\n") << "[" << sec << "]\n";
      cur = sec;
    }
    os << name << " = ";
    std::visit(
        [&](auto member) {
          using T = std::remove_cvref_t<decltype(cfg.*member)>;
          const auto& v = cfg.*member;
          if constexpr (std::is_same_v<T, bool>) os << (v ? "true" : "false");
          else if constexpr (std::is_same_v<T, std::int64_t>) os << v;
          else if constexpr (std::is_same_v<T, double>) {
            std::string s = fmt::format("{}", v);
            if (s.find_first_of(".eEin") == std::string::npos) s += ".0";
            os << s;
          } else {
            os << toml::value<std::string>(v);
          }
        },
        d.field);
    os << "\n";
  }
  return os.str();
}

std::string keys_markdown() {
  std::ostringstream os;
  os << "# Configuration reference\n\n"
        "Generated by `lbsim config --markdown` from the key table in src/sim/config.cpp (a test keeps "
        "this file in sync). Config files are TOML with the sections below; `--set section.key=value` "
        "overrides any key on the command line. Unknown keys, wrong types and out-of-range values are "
        "errors that name the file, the line and the key.\n";
  std::string cur;
  const Config def;
  for (const auto& d : config_keys()) {
    const auto dot = d.key.find('.');
    const std::string sec = d.key.substr(0, dot);
    if (sec != cur) {
      os << "\n## [" << sec << "]\n\n| key | default | unit | meaning |\n|---|---|---|---|\n";
      cur = sec;
    }
    std::string dflt;
    std::visit(
        [&](auto member) {
          using T = std::remove_cvref_t<decltype(def.*member)>;
          const auto& v = def.*member;
          if constexpr (std::is_same_v<T, bool>) dflt = v ? "true" : "false";
          else if constexpr (std::is_same_v<T, std::string>) dflt = "\"" + v + "\"";
          else dflt = fmt::format("{}", v);
        },
        d.field);
    std::string doc = d.doc;
    if (!d.choices.empty()) {
      doc += " One of:";
      for (std::size_t i = 0; i < d.choices.size(); ++i) doc += (i ? ", `" : " `") + d.choices[i] + "`";
      doc += ".";
    }
    if (d.size) doc += " Accepts a size string (\"4KiB\", \"8MiB\", \"1GB\").";
    os << "| `" << d.key << "` | `" << dflt << "` | " << d.unit << " | " << doc << " |\n";
  }
  return os.str();
}

}  // namespace lbsim::sim
