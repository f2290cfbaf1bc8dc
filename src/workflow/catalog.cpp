#include "workflow/catalog.h"

#include <fmt/core.h>

#include "core/error.h"
#include "config/reader.h"
#include "workflow/paper_reports.h"

namespace lbsim::workflow {

namespace fs = std::filesystem;

namespace {

bool need_met(const Need& n) {
  for (const auto& d : config::keys()) {
    if (n.value.empty() ? d.key.rfind(n.key, 0) == 0 : d.key == n.key) {
      if (n.value.empty()) return true;
      for (const auto& c : d.allowed())
        if (c == n.value) return true;
      return false;
    }
  }
  return false;
}

std::string list(const std::vector<std::string>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + ("\"" + v[i] + "\"");
  return s + "]";
}

// REPS sec. 4.1: fat tree, 400 Gb/s, 4 KiB MTU, 500 ns links and switches, queues of one BDP,
// Kmin/Kmax 20/80 %, trimming, RTO 70 us, the MPRDMA DCTCP variant (dctcp_ack).
std::string reps_net(int hosts, int radix, const std::string& end_us) {
  return fmt::format(R"("topology.kind" = "fat_tree"
"topology.hosts" = {}
"topology.tiers" = 2
"topology.radix" = {}
"topology.host_latency_ns" = 500
"topology.tier1_latency_ns" = 500
"network.switch_latency_ns" = 500
"network.mtu" = 4096
"network.queue_bdp" = 1.0
"network.kmin" = 0.2
"network.kmax" = 0.8
"network.trimming" = true
"transport.cc" = "dctcp_ack"
"transport.rto_us" = 70
"run.end_us" = {}
)",
                     hosts, radix, end_us);
}

// REPS Fig. 3 / 5: synthetic benchmarks on the large fat tree, traces and collectives on the small.
std::string reps_fig3(const std::vector<std::string>& lbs, bool quick, const std::string& extra) {
  const int big = quick ? 128 : 1024, big_radix = quick ? 16 : 64, small = quick ? 32 : 128;
  const std::string size = quick ? "2MiB" : "8MiB";
  const std::string csize = quick ? "1MiB" : "4MiB";
  std::string s = fmt::format(
      "# REPS ([REPS]) Fig. 3: max FCT of incast, permutation, tornado ({} hosts), web-search traces\n"
      "# at 40-100 % load and AI collectives ({} hosts), healthy symmetric fat tree.\n"
      "name = \"reps-fig3\"\n[set]\n{}{}\n[grid]\n\"lb.algorithm\" = {}\n\"run.seed\" = [1]\n",
      big, small, reps_net(big, big_radix, "200000"), extra, list(lbs));
  const auto kase = [&](const std::string& name, const std::string& body) {
    s += fmt::format("\n[[case]]\nname = \"{}\"\n{}", name, body);
  };
  kase("incast", fmt::format("\"workload.kind\" = \"incast\"\n\"workload.incast_senders\" = {}\n"
                             "\"workload.size\" = \"{}\"\n",
                             quick ? 8 : 32, size));
  kase("permutation", fmt::format("\"workload.kind\" = \"permutation\"\n\"workload.size\" = \"{}\"\n", size));
  kase("tornado", fmt::format("\"workload.kind\" = \"tornado\"\n\"workload.size\" = \"{}\"\n", size));
  for (int load : {40, 60, 80, 100}) {
    if (quick && (load == 60 || load == 80)) continue;
    kase(fmt::format("websearch-{}", load),
         fmt::format("\"topology.hosts\" = {}\n\"topology.radix\" = {}\n\"workload.kind\" = \"cdf_trace\"\n"
                     "\"workload.cdf\" = \"websearch\"\n\"workload.load\" = {:.1f}\n\"workload.duration_us\" = {}\n",
                     small, quick ? 8 : 16, load / 100.0, quick ? 100 : 1000));
  }
  for (const char* coll : {"ring_allreduce", "butterfly_allreduce", "alltoall"}) {
    kase(coll, fmt::format("\"topology.hosts\" = {}\n\"topology.radix\" = {}\n\"workload.kind\" = \"{}\"\n"
                           "\"workload.size\" = \"{}\"\n\"workload.background\" = false\n{}",
                           small, quick ? 8 : 16, coll, csize,
                           std::string(coll) == "alltoall" ? "\"workload.window\" = 4\n" : ""));
  }
  return s;
}

// A scheme: a name for results and plots plus its switch routing and sender load balancer.
struct Scheme {
  std::string name, routing, lb;
};

std::string scheme_axis(const std::vector<Scheme>& ss) {
  std::string s = "scheme = [\n";
  for (const auto& x : ss)
    s += fmt::format("  {{name = \"{}\", \"routing.algorithm\" = \"{}\", \"lb.algorithm\" = \"{}\"}},\n", x.name,
                     x.routing, x.lb);
  return s + "]\n";
}

std::vector<Need> scheme_needs(const std::vector<Scheme>& ss) {
  std::vector<Need> out;
  const auto add = [&](const std::string& key, const std::string& v, const std::string& what) {
    for (const auto& n : out)
      if (n.key == key && n.value == v) return;
    out.push_back({key, v, what + " " + v});
  };
  for (const auto& x : ss) add("routing.algorithm", x.routing, "routing");
  for (const auto& x : ss) add("lb.algorithm", x.lb, "lb");
  return out;
}

// [Spritz] sec. V-A baselines: switch routing with a fixed EV, ECMP over the bounded paths, and
// the sender-side schemes over source-guided routing (uniform u / latency-weighted w).
std::vector<Scheme> spritz_schemes() {
  return {{"minimal", "minimal", "ecmp"},
          {"valiant", "valiant", "ecmp"},
          {"ugal_l", "ugal_l", "ecmp"},
          {"ecmp", "ecmp_paths", "ecmp"},
          {"flicr_w", "source_guided", "flicr_w"},
          {"ops_u", "source_guided", "ops_u"},
          {"ops_w", "source_guided", "ops_w"},
          {"scout", "source_guided", "spritz_scout_w"},
          {"spritz_u", "source_guided", "spritz_spray_u"},
          {"spritz_w", "source_guided", "spritz_spray_w"}};
}
// sec. V-D: only the schemes that can adapt to failures.
std::vector<Scheme> spritz_failure_schemes() {
  return {{"valiant", "valiant", "ecmp"},
          {"ops_u", "source_guided", "ops_u"},
          {"ops_w", "source_guided", "ops_w"},
          {"scout", "source_guided", "spritz_scout_w"},
          {"spritz_u", "source_guided", "spritz_spray_u"},
          {"spritz_w", "source_guided", "spritz_spray_w"}};
}
// What the committed baseline build has: minimal and ECMP routing with a fixed EV, OPS spraying.
std::vector<Scheme> baseline_schemes() {
  return {{"minimal", "minimal", "ecmp"}, {"ecmp", "ecmp", "ecmp"}, {"ops", "ecmp", "ops"}};
}

// [Spritz] Table II networks: Dragonfly p=4 a=8 h=4 (1056 endpoints), Slim Fly q=9 p=7 (1134);
// quick: Dragonfly p=2 a=4 h=2 (72), Slim Fly q=5 p=3 (150). 400 Gb/s, 25 ns local / 500 ns global
// links, 500 ns switches, one-BDP queues, Kmin/Kmax 0.2/0.8, trimming, DCTCP with QuickAdapt and
// FastIncrease, window 1.5 BDP (sec. V-A).
// Table II's queues: 88 (DF) / 92 (SF) packets, the ceiling of the BDP of network.bdp_path =
// "longest_bounded_minimal_ack" (one queue_bdp = 87.9 / 91.4 packets); reduced scale: one BDP.
std::string spritz_queue(bool quick, int packets) {
  return quick ? std::string() : fmt::format("\"network.queue_packets\" = {}\n", packets);
}
std::string spritz_topo_cases(bool quick) {
  const std::string common =
      "\"topology.link_rate_gbps\" = 400\n\"topology.host_latency_ns\" = 25\n"
      "\"topology.local_latency_ns\" = 25\n\"topology.global_latency_ns\" = 500\n";
  return fmt::format(
      "\n[[case]]\nname = \"dragonfly\"\n\"topology.kind\" = \"dragonfly\"\n\"topology.p\" = {}\n"
      "\"topology.a\" = {}\n\"topology.h\" = {}\n{}{}"
      "\n[[case]]\nname = \"slim_fly\"\n\"topology.kind\" = \"slim_fly\"\n\"topology.q\" = {}\n"
      "\"topology.p\" = {}\n{}{}",
      quick ? 2 : 4, quick ? 4 : 8, quick ? 2 : 4, common, spritz_queue(quick, 88), quick ? 5 : 9, quick ? 3 : 7,
      common, spritz_queue(quick, 92));
}

// `longest_bdp`: size the BDP on the longest bounded path (sec. V-A) with the ACK back over the
// longest minimal path, the reading that gives Table II's 88 (DF) / 92 (SF) packets
// (scripts/spritz_table2_queue.py), where the build has the key. QuickAdapt measures over the target
// RTT (1.5 base RTTs, SMaRTT / UEC NSCC; docs/spritz.md "QuickAdapt").
std::string spritz_set(bool longest_bdp) {
  return std::string(longest_bdp ? "\"network.bdp_path\" = \"longest_bounded_minimal_ack\"\n" : "") +
         R"("network.switch_latency_ns" = 500
"network.queue_bdp" = 1.0
"network.kmin" = 0.2
"network.kmax" = 0.8
"network.trimming" = true
"transport.cc" = "dctcp_ack"
"transport.quick_adapt" = true
"transport.quick_adapt_window" = "target_rtt"
"transport.fast_increase" = true
"transport.init_cwnd_bdp" = 1.5
"transport.max_cwnd_bdp" = 1.5
"run.end_us" = 1000000
)";
}

std::string spritz_header(const std::string& name, const std::string& what, bool quick) {
  return fmt::format("# {} ({}).\nname = \"{}\"\n", what, quick ? "reduced scale: --quick" : "Table II networks", name);
}

// Fig. 6: permutation (receivers outside the group) and the topology's adversarial pattern.
std::string spritz_fig6(const std::string& name, const std::vector<Scheme>& ss, bool full_build, bool quick) {
  return spritz_header(name, "[Spritz] Fig. 6: permutation and adversarial patterns, Dragonfly and Slim Fly", quick) +
         fmt::format(
             "[set]\n{}\"workload.size\" = \"{}\"\n\"workload.outside_group\" = true\n\n[grid]\n"
             "\"workload.kind\" = [\"permutation\", \"adversarial\"]\n{}",
             spritz_set(full_build), quick ? "1MiB" : "8MiB", scheme_axis(ss)) +
         spritz_topo_cases(quick);
}

// Fig. 7: collectives on 128 random endpoints next to an ECMP background permutation, and the
// web-search trace at load 1.0 for 1 ms with a cap on simultaneous senders per receiver. The
// background's load balancer: Fig. 7 pins it (pinned_ecmp: one bounded path per flow, the same in
// every row, so that the rows differ only in the collective's scheme); Fig. 9 keeps `ecmp` (a pinned
// path through a failed link would never deliver, and the paper's failure rows adapt or time out).
std::string spritz_fig7(const std::string& name, const std::string& figure, const std::vector<Scheme>& ss,
                        bool full_build, bool quick, const std::string& background_lb, const std::string& extra = "") {
  const int ranks = quick ? 16 : 128;
  std::string s =
      spritz_header(name, "[Spritz] " + figure + ": AI collectives with background traffic and web-search traces",
                    quick) +
      fmt::format("[set]\n{}{}\n[grid]\n{}\n", spritz_set(full_build), extra, scheme_axis(ss));
  std::string wl = "workload = [\n";
  for (const char* k : {"butterfly_allreduce", "ring_allreduce", "alltoall"})
    wl += fmt::format(
        "  {{name = \"{}\", \"workload.kind\" = \"{}\", \"workload.ranks\" = {}, "
        "\"workload.random_subset\" = true, \"workload.background\" = true, "
        "\"workload.background_lb\" = \"{}\", \"workload.size\" = \"{}\", \"workload.window\" = 4}},\n",
        k, k, ranks, background_lb, quick ? "512KiB" : "4MiB");
  wl += fmt::format(
      "  {{name = \"websearch\", \"workload.kind\" = \"cdf_trace\", \"workload.cdf\" = \"websearch\", "
      "\"workload.load\" = 1.0, \"workload.duration_us\" = {}, \"workload.max_senders_per_receiver\" = 1}},\n]\n",
      quick ? 100 : 1000);
  s.insert(s.find("[grid]\n") + 7, wl);
  return s + spritz_topo_cases(quick);
}

// Fig. 8: 32 x 4 MiB incast (senders 0-31) to node 160 plus a disjoint bystander permutation.
std::string spritz_fig8(const std::vector<Scheme>& ss, bool quick) {
  return spritz_header("spritz-fig8", "[Spritz] Fig. 8: incast with bystanders on Dragonfly", quick) +
         fmt::format(
             "[set]\n{}\"topology.kind\" = \"dragonfly\"\n\"topology.p\" = {}\n\"topology.a\" = {}\n"
             "\"topology.h\" = {}\n\"topology.link_rate_gbps\" = 400\n\"topology.host_latency_ns\" = 25\n"
             "\"topology.local_latency_ns\" = 25\n\"topology.global_latency_ns\" = 500\n"
             "\"workload.kind\" = \"incast\"\n\"workload.incast_receiver\" = {}\n"
             "\"workload.incast_first_sender\" = 0\n\"workload.incast_senders\" = {}\n"
             "\"workload.incast_bystanders\" = true\n\"workload.size\" = \"{}\"\n{}\n[grid]\n{}",
             spritz_set(true), quick ? 2 : 4, quick ? 4 : 8, quick ? 2 : 4, quick ? 40 : 160, quick ? 8 : 32,
             quick ? "1MiB" : "4MiB", spritz_queue(quick, 88), scheme_axis(ss));
}

// REPS failure modes (Fig. 8, [REPS] sec. 4.3.3): each a [[case]]-free named axis value.
std::string reps_failure_axis() {
  return R"(failure = [
  {name = "one-uplink-down", "failures.random_fraction" = 0.0001, "failures.random_kind" = "down", "failures.random_start_us" = 50},
  {name = "3pct-uplinks-down", "failures.random_fraction" = 0.03, "failures.random_kind" = "down", "failures.random_start_us" = 50},
  {name = "3pct-uplinks-200G", "failures.random_fraction" = 0.03, "failures.random_kind" = "degrade", "failures.random_rate_gbps" = 200, "failures.random_start_us" = 50},
  {name = "3pct-uplinks-1pct-loss", "failures.random_fraction" = 0.03, "failures.random_kind" = "loss", "failures.random_loss" = 0.01, "failures.random_start_us" = 50},
]
)";
}

// [Flowcut] sec. III-B1: 1024 nodes, 200 Gb/s, 1 us per link, lossless (credit-based flow control);
// the authors' fat-tree runs: switch latency 0, 4096 B payload + 64 B header; RTT ratio 4, EWMA
// alpha 0.12; in-order receivers (sec. III-C2's out-of-order definition), reorder buffer. Queues
// (= credit buffers per ingress port and VC) of 16 BDP: the authors' "very large port buffers".
std::string flowcut_common() {
  return R"("network.flow_control" = "credit"
"network.trimming" = false
"network.switch_latency_ns" = 0
"network.mtu" = 4096
"network.header_bytes" = 64
"network.queue_bdp" = 16.0
"transport.delivery" = "in_order"
"transport.in_order_recovery" = "buffer"
"flowcut.rtt_ratio" = 4.0
"flowcut.alpha" = 0.12
)";
}

// The fat trees of sec. III-B1: 3 levels, 1024 hosts, radix 16, 8 hosts per ToR (16 pods, 128 ToR,
// 128 aggregation, 64 core at 1:1; 2:1 halves the ToR uplinks: 64 aggregation, 32 core). Quick: the
// authors' 128-host scripts (radix 8, 4 hosts per ToR, 16-host pods).
std::string flowcut_fat_tree(bool quick, int oversubscription) {
  return fmt::format(R"("topology.kind" = "fat_tree"
"topology.hosts" = {}
"topology.tiers" = 3
"topology.radix" = {}
"topology.hosts_per_tor" = {}
"topology.oversubscription" = {}
"topology.host_rate_gbps" = 200
"topology.tier1_rate_gbps" = 200
"topology.tier2_rate_gbps" = 200
"topology.host_latency_ns" = 1000
"topology.tier1_latency_ns" = 1000
"topology.tier2_latency_ns" = 1000
)",
                     quick ? 128 : 1024, quick ? 8 : 16, quick ? 4 : 8, oversubscription);
}

// The Dragonfly of sec. III-B1 (CSCS): p = 16 servers per switch, a = 16 switches per group, h = 3,
// g = 4 groups: 48 global ports per group, 16 links to each other group. Quick: p = 4, a = 4, h = 3,
// g = 4 (64 hosts, 4 links per group pair).
std::string flowcut_dragonfly(bool quick) {
  return fmt::format(R"("topology.kind" = "dragonfly"
"topology.p" = {}
"topology.a" = {}
"topology.h" = 3
"topology.g" = 4
"topology.link_rate_gbps" = 200
"topology.host_latency_ns" = 1000
"topology.local_latency_ns" = 1000
"topology.global_latency_ns" = 1000
)",
                     quick ? 4 : 16, quick ? 4 : 16);
}

// A scheme with its own keys (a TOML inline-table body after the name).
struct FcScheme {
  std::string name, keys;
};
// Sec. III-C2: ECMP, spraying, Flowlet Best / Balanced / Lowest OOO (the authors' timeouts 0.99,
// 1.58, 4.08 us; switch Flowlet, least-loaded port), MPRDMA (delta = 128 packets), Flowcut NIC only
// and full switch.
std::vector<FcScheme> flowcut_fat_tree_schemes() {
  return {{"ecmp", R"("routing.algorithm" = "ecmp", "lb.algorithm" = "ecmp")"},
          {"spraying", R"("routing.algorithm" = "ecmp", "lb.algorithm" = "ops")"},
          {"flowlet_best",
           R"("routing.algorithm" = "flowlet", "routing.flowlet_timeout_us" = 0.99, "lb.algorithm" = "ecmp")"},
          {"flowlet_balanced",
           R"("routing.algorithm" = "flowlet", "routing.flowlet_timeout_us" = 1.58, "lb.algorithm" = "ecmp")"},
          {"flowlet_lowest_ooo",
           R"("routing.algorithm" = "flowlet", "routing.flowlet_timeout_us" = 4.08, "lb.algorithm" = "ecmp")"},
          {"mprdma", R"("routing.algorithm" = "ecmp", "lb.algorithm" = "mprdma", "lb.mprdma_delta" = 128)"},
          {"flowcut_nic", R"("routing.algorithm" = "ecmp", "lb.algorithm" = "flowcut_nic")"},
          {"flowcut_full", R"("routing.algorithm" = "flowcut_full", "lb.algorithm" = "ecmp")"}};
}
// Fig. 12 / Table II: the three variants and ECMP as the reference.
std::vector<FcScheme> flowcut_variant_schemes() {
  return {{"ecmp", R"("routing.algorithm" = "ecmp", "lb.algorithm" = "ecmp")"},
          {"flowcut_nic", R"("routing.algorithm" = "ecmp", "lb.algorithm" = "flowcut_nic")"},
          {"flowcut_ingress", R"("routing.algorithm" = "flowcut_ingress", "lb.algorithm" = "ecmp")"},
          {"flowcut_full", R"("routing.algorithm" = "flowcut_full", "lb.algorithm" = "ecmp")"}};
}
// Sec. III-C4: ECMP, UGAL(-L), Valiant, Flowlet (UGAL-L for a new flowlet), Flowcut full switch
// (UGAL-L for a new flowcut) and NIC only. UGAL-L and Valiant route every packet on its own.
std::vector<FcScheme> flowcut_dragonfly_schemes() {
  return {{"ecmp", R"("routing.algorithm" = "ecmp", "lb.algorithm" = "ecmp")"},
          {"ugal_l", R"("routing.algorithm" = "ugal_l", "lb.algorithm" = "ecmp")"},
          {"valiant", R"("routing.algorithm" = "valiant", "lb.algorithm" = "ecmp")"},
          {"flowlet_best",
           R"("routing.algorithm" = "flowlet", "routing.flowlet_timeout_us" = 0.99, "lb.algorithm" = "ecmp")"},
          {"flowlet_balanced",
           R"("routing.algorithm" = "flowlet", "routing.flowlet_timeout_us" = 1.58, "lb.algorithm" = "ecmp")"},
          {"flowlet_lowest_ooo",
           R"("routing.algorithm" = "flowlet", "routing.flowlet_timeout_us" = 4.08, "lb.algorithm" = "ecmp")"},
          {"flowcut_nic", R"("routing.algorithm" = "ecmp", "lb.algorithm" = "flowcut_nic")"},
          {"flowcut_full", R"("routing.algorithm" = "flowcut_full", "lb.algorithm" = "ecmp")"}};
}
std::string fc_axis(const std::vector<FcScheme>& ss) {
  std::string s = "scheme = [\n";
  for (const auto& x : ss) s += fmt::format("  {{name = \"{}\", {}}},\n", x.name, x.keys);
  return s + "]\n";
}
std::vector<Need> fc_needs(const std::vector<FcScheme>& ss) {
  std::vector<Need> out{{"network.flow_control", "credit", "network.flow_control = credit"},
                        {"transport.delivery", "in_order", "transport.delivery = in_order"}};
  const auto add = [&](const std::string& key, const std::string& v, const std::string& what) {
    for (const auto& n : out)
      if (n.key == key && n.value == v) return;
    out.push_back({key, v, what + " " + v});
  };
  for (const auto& x : ss)
    for (const char* k : {"routing.algorithm", "lb.algorithm"}) {
      const std::string pre = fmt::format("\"{}\" = \"", k);
      const auto at = x.keys.find(pre);
      if (at == std::string::npos) continue;
      const auto b = at + pre.size();
      add(k, x.keys.substr(b, x.keys.find('"', b) - b), std::string(k).substr(0, std::string(k).find('.')));
    }
  return out;
}
std::string fc_header(const std::string& name, const std::string& what, bool quick) {
  return fmt::format("# {} ({}).\n# Tables: python3 scripts/flowcut_tables.py <output folder>\nname = \"{}\"\n", what,
                     quick ? "reduced scale: --quick" : "the paper's 1024-node systems", name);
}
// The workloads of sec. III-B2 / III-C as named axis values or cases. Quick sizes are smaller.
std::string fc_permutation(bool quick) {
  return fmt::format("\"workload.kind\" = \"permutation\"\n\"workload.size\" = \"{}\"\n", quick ? "2MiB" : "8MiB");
}
// Sec. III-B3: 1% of the links at 1/10 of their capacity (20 Gb/s) from the start.
std::string fc_degraded() {
  return "\"failures.random_fraction\" = 0.01\n\"failures.random_links\" = \"switch_links\"\n"
         "\"failures.random_kind\" = \"degrade\"\n\"failures.random_rate_gbps\" = 20\n";
}
std::string fc_alltoall(bool quick) {
  return fmt::format("\"workload.kind\" = \"alltoall\"\n\"workload.size\" = \"{}\"\n\"workload.window\" = 4\n",
                     quick ? "128KiB" : "1MiB");
}
std::string fc_trace(const std::string& cdf, bool quick) {
  return fmt::format(
      "\"workload.kind\" = \"cdf_trace\"\n\"workload.cdf\" = \"{}\"\n\"workload.load\" = 0.5\n"
      "\"workload.duration_us\" = {}\n",
      cdf, quick ? 500 : 1000);
}
// `"k" = v` lines as the body of a TOML inline table ("k" = v, "k2" = v2).
std::string inline_keys(const std::string& lines) {
  std::string out;
  std::size_t b = 0;
  while (b < lines.size()) {
    const auto e = lines.find('\n', b);
    const auto line = lines.substr(b, e == std::string::npos ? std::string::npos : e - b);
    if (!line.empty()) out += (out.empty() ? "" : ", ") + line;
    if (e == std::string::npos) break;
    b = e + 1;
  }
  return out;
}
std::string fc_case(const std::string& name, const std::string& body) {
  return fmt::format("\n[[case]]\nname = \"{}\"\n{}", name, body);
}
// The uniform flow-size CDF of Fig. 13 (the paper names a "Random" distribution without a range).
const char* kUniformCdf =
    "# [Flowcut] Fig. 13 \"Random\" distribution: sizes uniform in 4 KiB - 1 MiB (the range is lbsim's choice).\n"
    "0 0\n4096 0\n1048576 100\n";
// [LAPS] sec. 4.1-4.2: the schemes of Fig. 5-8 and Table 1 that lbsim has, each with the sender
// its implementation ran in the paper's evaluation (ns-3, reusing the ConWeave/PLB/CONGA codebases
// with their defaults; the authors' artifact settles what the paper leaves open, docs/laps.md
// "Transport per scheme"): the RoCE baselines (ECMP, LetFlow, ConWeave) run DCQCN with go-back-N
// recovery, in-order delivery and a window of one BDP (the artifact's "window = the largest
// shortest-path BDP"); PLB runs over DCTCP (g = 1/256, 50 % marked ACKs per congested round,
// re-hash after 12 rounds, or 3 with nothing in flight) with the same RoCE recovery; LAPS paces by its own rate (cc =
// none) and recovers selectively from its per-path ACK order (sec. 3.7), keeping the base config's window. ConWeave and
// CONGA run on the LAPS candidate paths (docs/baselines.md, docs/laps.md "CONGA on Rail and the Dragonfly"; CONGA
// compares 4 of them drawn at random per new flowlet, as the artifact); LetFlow on the Dragonfly has a single shortest
// path to choose from. Every scheme on the lossless network, as the authors' ns-3 runs (PFC with ECN, 1 MiB per port;
// the paper does not name the flow control): `--set network.flow_control=lossy` gives the examples'
// lossy network.
#define LAPS_FC "\"network.flow_control\" = \"pfc\"\n"
std::string laps_roce(const char* cc) {
  return fmt::format(R"("transport.cc" = "{}", "transport.delivery" = "in_order", )"
                     R"("transport.in_order_recovery" = "go_back_n", "transport.init_cwnd_bdp" = 1.0, )"
                     R"("transport.max_cwnd_bdp" = 1.0)",
                     cc);
}
// The full entries run seeds 1-3; the quick ones the base config's seed (1), so that `--seeds N`
// can run them over seeds 1..N.
std::string laps_seeds(bool quick) { return quick ? "" : "\"run.seed\" = [1, 2, 3]\n"; }
std::vector<FcScheme> laps_schemes() {
  return {{"ecmp", R"("routing.algorithm" = "ecmp", "lb.algorithm" = "ecmp", )" + laps_roce("dcqcn")},
          {"letflow", R"("routing.algorithm" = "letflow", "lb.algorithm" = "ecmp", )" + laps_roce("dcqcn")},
          {"conga", R"("routing.algorithm" = "conga", "routing.conga_candidates" = 4, "lb.algorithm" = "ecmp", )" +
                        laps_roce("dcqcn")},
          {"plb", R"("routing.algorithm" = "ecmp", "lb.algorithm" = "plb", )" + laps_roce("dctcp") +
                      R"(, "transport.dctcp_g" = 0.00390625, "lb.plb_threshold" = 0.5, "lb.plb_rounds" = 12, )"
                      R"("lb.plb_idle_rounds" = 3)"},
          {"conweave", R"("routing.algorithm" = "conweave", "lb.algorithm" = "ecmp", )" + laps_roce("dcqcn")},
          {"laps", R"("routing.algorithm" = "source_route", "lb.algorithm" = "laps", "transport.cc" = "none", )"
                   R"("transport.delivery" = "ooo")"}};
}
std::vector<Need> laps_needs() {
  return {{"lb.algorithm", "laps", "lb laps"},
          {"routing.algorithm", "source_route", "routing source_route"},
          {"routing.algorithm", "letflow", "routing letflow"},
          {"routing.algorithm", "conweave", "routing conweave"},
          {"routing.algorithm", "conga", "routing conga"},
          {"lb.algorithm", "plb", "lb plb"},
          {"transport.cc", "dcqcn", "transport dcqcn"}};
}
// Fig. 5-8: a flow-size CDF at loads 50-100 % (quick: 50 and 80 %), All2all Poisson traffic over a
// launch window (the paper's is longer; quick windows keep a run to seconds).
std::string laps_fig(const std::string& name, const std::string& what, const std::string& cdf, int window_us,
                     bool quick) {
  return fmt::format("# {} ({}).\nname = \"{}\"\nbase = \"@BASE@\"\n\n[set]\n" LAPS_FC
                     "\"workload.cdf\" = \"{}\"\n"
                     "\"workload.duration_us\" = {}\n\n[grid]\n{}\"workload.load\" = {}\n{}",
                     what, quick ? "reduced: --quick" : "loads 50-100 %", name, cdf, window_us, fc_axis(laps_schemes()),
                     quick ? "[0.5, 0.8]" : "[0.5, 0.6, 0.7, 0.8, 0.9, 1.0]", laps_seeds(quick));
}
// Table 1: LLM gradient aggregation (parameter-server AllReduce: every GPU to one) on Rail, with and
// without 0.0001 % random drops on every link. The paper's 64 MB per sender; quick: 1 MiB. No end
// time (run.end_us = 0): 63 x 64 MB through one 100 Gb/s link take at least 338 ms, past the
// default 100 ms; the watchdog still stops a run that stops progressing.
std::string laps_table1(bool quick) {
  return fmt::format(
      "# [LAPS] Table 1: gradient aggregation (ps_allreduce, {} per sender) on Rail, drop ratio 0 and 1e-6.\n"
      "name = \"laps-table1\"\nbase = \"@BASE@\"\n\n[set]\n" LAPS_FC
      "\"workload.kind\" = \"ps_allreduce\"\n"
      "\"workload.size\" = \"{}\"\n\"failures.random_links\" = \"all\"\n\"failures.random_kind\" = \"loss\"\n"
      "\"failures.random_loss\" = 0.000001\n\"run.end_us\" = 0\n\n[grid]\n{}{}\n[[case]]\nname = \"drop_0\"\n"
      "\"failures.random_fraction\" = 0.0\n\n[[case]]\nname = \"drop_1e-6\"\n\"failures.random_fraction\" = 1.0\n",
      quick ? "1 MiB" : "64 MB", quick ? "1MiB" : "64MB", fc_axis(laps_schemes()), laps_seeds(quick));
}
// [LAPS] sec. 4.1 "Patterns": All2all (every GPU to the others), AllReduce over a parameter server
// (every other GPU to one) and AllScatter (one GPU to every other), each with the STR flow sizes and
// Poisson arrivals (cdf_trace destinations uniform / all_to_one / one_to_all, root GPU 0) on the
// Rail. The load is the bottleneck's: All2all offers it at every GPU, AllReduce divides it among the
// 63 senders so the root's link carries it, AllScatter offers it at the root. The paper plots only
// All2all (Fig. 5-8); the other two are lbsim's scenarios for the same comparison. The one-link
// patterns get longer launch windows so that they hold as many flows as a few hundred.
std::string laps_patterns(bool quick) {
  const int hosts = 64;
  std::string cases;
  for (const double load : quick ? std::vector<double>{0.8} : std::vector<double>{0.5, 0.6, 0.7, 0.8, 0.9, 1.0}) {
    const auto one = [&](const char* pattern, const char* dest, double per_sender, int window) {
      cases += fmt::format(
          "\n[[case]]\nname = \"{}-load-{:g}\"\n\"workload.destinations\" = \"{}\"\n"
          "\"workload.load\" = {:.6g}\n\"workload.duration_us\" = {}\n",
          pattern, load, dest, per_sender, window);
    };
    one("All2all", "uniform", load, quick ? 100 : 500);
    one("AllReduce", "all_to_one", load / (hosts - 1), quick ? 2000 : 10000);
    one("AllScatter", "one_to_all", load, quick ? 2000 : 10000);
  }
  return fmt::format(
      "# [LAPS] sec. 4.1 patterns: All2all, AllReduce (parameter server), AllScatter on Rail 64, STR flow "
      "sizes ({}).\nname = \"laps-patterns\"\nbase = \"@BASE@\"\n\n[set]\n" LAPS_FC
      "\"workload.cdf\" = \"alistorage\"\n"
      "\"workload.root\" = 0\n\n[grid]\n{}{}{}",
      quick ? "reduced: --quick, load 0.8" : "loads 50-100 %", fc_axis(laps_schemes()), laps_seeds(quick), cases);
}
// [LAPS] Fig. 9 (sec. 4.2 "Buffer size"): LAPS's receiver reorder buffer in LLM training on Rail, an
// AllScatter (GPU 0 to every other) and a parameter-server AllReduce (every other GPU to GPU 0),
// each the gradient size per flow (the paper's 64 MB; quick 1 MiB). LAPS delivers in order through
// a reorder buffer here (an RDMA NIC's, as the paper's measurement assumes); the baselines run as in
// the other entries, for their FCTs.
std::vector<FcScheme> laps_fig9_schemes() {
  auto s = laps_schemes();
  for (auto& x : s)
    if (x.name == "laps")
      x.keys = R"("routing.algorithm" = "source_route", "lb.algorithm" = "laps", "transport.cc" = "none", )"
               R"("transport.delivery" = "in_order", "transport.in_order_recovery" = "buffer")";
  return s;
}
std::string laps_fig9(bool quick) {
  return fmt::format(
      "# [LAPS] Fig. 9: reorder buffer under LLM training collectives on Rail, {} per flow.\n"
      "name = \"laps-fig9\"\nbase = \"@BASE@\"\n\n[set]\n" LAPS_FC
      "\"workload.size\" = \"{}\"\n\"workload.root\" = 0\n"
      "\"run.end_us\" = 0\n"
      "\n[grid]\n{}{}\n[[case]]\nname = \"AllScatter\"\n\"workload.kind\" = \"allscatter\"\n"
      "\n[[case]]\nname = \"AllReduce\"\n\"workload.kind\" = \"ps_allreduce\"\n",
      quick ? "1 MiB" : "64 MB", quick ? "1MiB" : "64MB", fc_axis(laps_fig9_schemes()), laps_seeds(quick));
}
}  // namespace

std::vector<std::string> missing_needs(const Entry& e) {
  std::vector<std::string> out;
  for (const auto& n : e.needs)
    if (!need_met(n)) out.push_back(n.label);
  return out;
}

std::vector<Entry> catalog() {
  const std::vector<std::string> reps_lbs{"ecmp", "ops", "reps"};
  const Need reps{"lb.algorithm", "reps", "lb reps"};
  const Need failures{"failures.random_fraction", "", "failure injection (failures.* keys)"};
  const Need fail_file{"failures.file", "", "failure schedules (failures.file)"};
  const Need mixed{"workload.ecmp_fraction", "", "mixed REPS/ECMP traffic (workload.ecmp_fraction)"};
  const Need bdp{"network.bdp_path", "longest_bounded_minimal_ack",
                 "Table II's BDP (network.bdp_path = longest_bounded_minimal_ack)"};
  const Need fig5wl{"network.queue_packets", "",
                    "Table II queue size in packets (network.queue_packets; the Fig. 5 scenario)"};
  const auto with = [](std::vector<Need> a, std::initializer_list<Need> b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
  };
  const auto rename = [](std::string text, const std::string& from, const std::string& to) {
    const std::string f = "name = \"" + from + "\"";
    text.replace(text.find(f), f.size(), "name = \"" + to + "\"");
    return text;
  };
  std::vector<Entry> c;
  {
    Entry e{"demo",
            "README (REPS sec. 4.1 parameters)",
            "ECMP vs OPS, 128-host fat tree, 4 MiB permutation",
            {},
            "",
            "",
            "1 s",
            "3 s",
            {}};
    const auto mk = [](int hosts, const char* size) {
      return fmt::format(
          "# The README demo as a sweep: ECMP vs OPS on a permutation.\nname = \"demo\"\n"
          "[set]\n{}\"workload.kind\" = \"permutation\"\n\"workload.size\" = \"{}\"\n\n"
          "[grid]\n\"lb.algorithm\" = [\"ecmp\", \"ops\"]\n",
          reps_net(hosts, 16, "100000"), size);
    };
    e.full = mk(128, "4MiB");
    e.quick = mk(32, "512KiB");
    c.push_back(e);
  }
  c.push_back({"reps-fig3",
               "[REPS] Fig. 3",
               "healthy fat tree: synthetic, traces, collectives; ECMP, OPS, REPS",
               {reps},
               reps_fig3(reps_lbs, false, ""),
               reps_fig3(reps_lbs, true, ""),
               "5.5 min",
               "12 s",
               {}});
  c.push_back({"reps-fig3-baselines",
               "[REPS] Fig. 3 (ECMP, OPS only)",
               "the Fig. 3 scenarios with the committed baselines",
               {},
               rename(reps_fig3({"ecmp", "ops"}, false, ""), "reps-fig3", "reps-fig3-baselines"),
               rename(reps_fig3({"ecmp", "ops"}, true, ""), "reps-fig3", "reps-fig3-baselines"),
               "~4 min",
               "11 s",
               {}});
  {
    // Fig. 4: one uplink at 200 Gb/s while every host sends 32 MiB (the paper watches one switch
    // with n flows; here every ToR has them and one random ToR uplink is degraded).
    const auto mk = [&](bool quick) {
      return fmt::format(
          "# [REPS] Fig. 4: one ToR uplink degraded to 200 Gb/s, {} permutation, OPS vs REPS.\n"
          "name = \"reps-fig4\"\n[set]\n{}\"workload.kind\" = \"permutation\"\n\"workload.size\" = \"{}\"\n"
          "\"failures.random_fraction\" = 0.0001\n\"failures.random_kind\" = \"degrade\"\n"
          "\"failures.random_rate_gbps\" = 200\n\"output.queue_sample_us\" = {}\n\n[grid]\n"
          "\"lb.algorithm\" = [\"ops\", \"reps\"]\n",
          quick ? "2 MiB" : "32 MiB", reps_net(quick ? 32 : 128, 16, "200000"), quick ? "2MiB" : "32MiB",
          quick ? 5 : 20);
    };
    c.push_back({"reps-fig4",
                 "[REPS] Fig. 4",
                 "one ToR uplink at 200 Gb/s, 32 MiB per host; OPS vs REPS",
                 {reps, failures},
                 mk(false),
                 mk(true),
                 "6 s",
                 "3 s",
                 {}});
  }
  {
    const std::string deg =
        "\"failures.random_fraction\" = 0.03\n\"failures.random_links\" = \"tor_uplinks\"\n"
        "\"failures.random_kind\" = \"degrade\"\n\"failures.random_rate_gbps\" = 200\n";
    c.push_back({"reps-fig5",
                 "[REPS] Fig. 5",
                 "Fig. 3 scenarios with 3 % of ToR uplinks at 200 Gb/s",
                 {reps, failures},
                 rename(reps_fig3(reps_lbs, false, deg), "reps-fig3", "reps-fig5"),
                 rename(reps_fig3(reps_lbs, true, deg), "reps-fig3", "reps-fig5"),
                 "~6 min",
                 "14 s",
                 {}});
    const std::string mix = "\"workload.ecmp_fraction\" = 0.1\n";
    c.push_back({"reps-fig6",
                 "[REPS] Fig. 6",
                 "REPS / OPS traffic next to 10 % ECMP-hashed traffic",
                 {reps, mixed},
                 rename(reps_fig3(reps_lbs, false, mix), "reps-fig3", "reps-fig6"),
                 rename(reps_fig3(reps_lbs, true, mix), "reps-fig3", "reps-fig6"),
                 "~6 min",
                 "16 s",
                 {}});
  }
  {
    // Fig. 7: 64 MiB permutation; ToR uplink failures at 100 us for 100 us and at 350 us for 200 us.
    const auto mk = [&](bool quick) {
      return fmt::format(
          "# [REPS] Fig. 7: {} permutation with two uplink failures (failures.txt), OPS vs REPS.\n"
          "name = \"reps-fig7\"\n[set]\n{}\"workload.kind\" = \"permutation\"\n\"workload.size\" = \"{}\"\n"
          "\"failures.file\" = \"failures.txt\"\n\"output.queue_sample_us\" = 10\n\n[grid]\n"
          "\"lb.algorithm\" = [\"ops\", \"reps\"]\n",
          quick ? "8 MiB" : "64 MiB", reps_net(quick ? 32 : 128, 16, "1000000"), quick ? "8MiB" : "64MiB");
    };
    c.push_back({"reps-fig7",
                 "[REPS] Fig. 7",
                 "64 MiB permutation, uplink failures 100-200 us and 350-550 us",
                 {reps, fail_file},
                 mk(false),
                 mk(true),
                 "11 s",
                 "4 s",
                 {{"failures.txt",
                   "# [REPS] sec. 4.3.3: two ToR uplink failures (a shorter and a longer one).\n"
                   "100 down tor0-spine0 for_us=100\n350 down tor1-spine1 for_us=200\n"}}});
  }
  {
    const auto mk = [&](bool quick) {
      std::string s = reps_fig3(reps_lbs, quick, "");
      s = rename(s, "reps-fig3", "reps-fig8");
      // Fig. 8 uses the 8 MiB permutation, the traces at 100 % and the ring allreduce only.
      std::string out;
      std::size_t pos = 0;
      while (true) {
        const auto next = s.find("\n[[case]]\n", pos + 1);
        const std::string chunk = s.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
        const bool keep =
            chunk.find("[[case]]") == std::string::npos || chunk.find("\"permutation\"") != std::string::npos ||
            chunk.find("websearch-100") != std::string::npos || chunk.find("\"ring_allreduce\"") != std::string::npos;
        if (keep) out += chunk;
        if (next == std::string::npos) break;
        pos = next;
      }
      out.insert(out.find("[grid]\n") + 7, reps_failure_axis());
      return out;
    };
    c.push_back({"reps-fig8",
                 "[REPS] Fig. 8",
                 "failure modes: 8 MiB permutation, traces at 100 %, ring allreduce",
                 {reps, failures},
                 mk(false),
                 mk(true),
                 "~12 min",
                 "28 s",
                 {}});
  }
  {
    // Table III: the Fig. 5 scenario (examples/spritz/motivational.toml and its flow files: the
    // monitored 4 MiB flow 0 -> 1037, background flows pinned to minimal paths into the congested
    // groups), loaded and alone ("solo"), for every scheme.
    const std::string t = std::string(
                              "# [Spritz] Table III: FCT of the monitored flow of the Fig. 5 scenario, every scheme.\n"
                              "name = \"spritz-table3\"\nbase = \"@BASE@\"\n\n[grid]\n") +
                          scheme_axis(spritz_schemes()) +
                          "\n[[case]]\nname = \"loaded\"\n\"workload.file\" = \"@BASEDIR@/motivational_flows.csv\"\n"
                          "\n[[case]]\nname = \"solo\"\n\"workload.file\" = \"@BASEDIR@/motivational_solo.csv\"\n";
    Entry e{"spritz-table3",
            "[Spritz] Table III",
            "FCT of the monitored 4 MiB flow in the Fig. 5 scenario",
            with(scheme_needs(spritz_schemes()), {fig5wl, bdp}),
            t,
            t,
            "24 s",
            "24 s",
            {}};
    e.base = "examples/spritz/motivational.toml";
    e.report = spritz_table3_report;
    c.push_back(e);
  }
  {
    Entry e{"spritz-fig6",
            "[Spritz] Fig. 6",
            "permutation and adversarial, Dragonfly and Slim Fly, all schemes",
            with(scheme_needs(spritz_schemes()), {bdp}),
            spritz_fig6("spritz-fig6", spritz_schemes(), true, false),
            spritz_fig6("spritz-fig6", spritz_schemes(), true, true),
            "~15 min",
            "17 s",
            {}};
    e.report = spritz_fig6_report;
    c.push_back(e);
  }
  c.push_back({"spritz-fig6-baselines",
               "[Spritz] Fig. 6 (Minimal, ECMP, OPS)",
               "Fig. 6 with the committed routing and load balancers",
               scheme_needs(baseline_schemes()),
               spritz_fig6("spritz-fig6-baselines", baseline_schemes(), false, false),
               spritz_fig6("spritz-fig6-baselines", baseline_schemes(), false, true),
               "~5 min",
               "10 s",
               {}});
  c.back().report = spritz_fig6_report;
  c.push_back({"spritz-fig7",
               "[Spritz] Fig. 7",
               "collectives (128 random endpoints, ECMP background), traces",
               with(scheme_needs(spritz_schemes()), {bdp}),
               spritz_fig7("spritz-fig7", "Fig. 7", spritz_schemes(), true, false, "pinned_ecmp"),
               spritz_fig7("spritz-fig7", "Fig. 7", spritz_schemes(), true, true, "pinned_ecmp"),
               "~30 min",
               "34 s",
               {}});
  c.back().report = spritz_fig7_report;
  c.push_back({"spritz-fig8",
               "[Spritz] Fig. 8",
               "32 x 4 MiB incast to node 160 with 1023 bystander flows",
               with(scheme_needs(spritz_schemes()), {bdp}),
               spritz_fig8(spritz_schemes(), false),
               spritz_fig8(spritz_schemes(), true),
               "4 min",
               "9 s",
               {}});
  c.back().report = spritz_fig8_report;
  {
    const std::string fail =
        "\"failures.random_fraction\" = 0.02\n\"failures.random_links\" = \"switch_links\"\n"
        "\"failures.random_kind\" = \"down\"\n";
    auto full = spritz_fig7("spritz-fig9", "Fig. 9 (2 % of the links failed)", spritz_failure_schemes(), true, false,
                            "ecmp", fail);
    auto quick = spritz_fig7("spritz-fig9", "Fig. 9 (2 % of the links failed)", spritz_failure_schemes(), true, true,
                             "ecmp", fail);
    // Fig. 9 adds the permutation microbenchmark to the collectives and traces.
    const auto add_perm = [](std::string& s, const char* size) {
      s.insert(
          s.find("workload = [\n") + 13,
          fmt::format(
              "  {{name = \"permutation\", \"workload.kind\" = \"permutation\", \"workload.outside_group\" = true, "
              "\"workload.size\" = \"{}\"}},\n",
              size));
    };
    add_perm(full, "8MiB");
    add_perm(quick, "1MiB");
    c.push_back({"spritz-fig9",
                 "[Spritz] Fig. 9",
                 "2 % of links failed: permutation, collectives, traces",
                 with(scheme_needs(spritz_failure_schemes()), {bdp, failures}),
                 full,
                 quick,
                 "~40 min",
                 "70 s",
                 {}});
    c.back().report = spritz_fig9_report;
  }
  {
    // [REPS] sec. 4.5.2 and 5.1: the balls-into-bins models (lbsim balls, no packets; every
    // parameter explicit so that the entries do not follow later changes of the key defaults) and
    // the EVS-size scenario of Fig. 15 (a sweep).
    const Need balls{"balls.", "", "balls-into-bins models (balls.* keys)"};
    const auto entry = [&](std::string name, std::string source, std::string what, std::vector<std::string> full,
                           std::vector<std::string> quick, std::string rt_full, std::string rt_quick) {
      Entry e{std::move(name),
              std::move(source),
              std::move(what),
              {balls},
              "",
              "",
              std::move(rt_full),
              std::move(rt_quick),
              {}};
      e.command = std::move(full);
      e.command_quick = std::move(quick);
      return e;
    };
    c.push_back(entry("reps-fig14", "[REPS] Fig. 14",
                      "EVS-size load imbalance: 1 and 32 flows x 2^1..2^16 EVs on 32 uplinks, uniform and ECMP hash",
                      {"balls", "evs", "--set", "balls.evs_bins=32", "--set", "balls.evs_flows=1,32", "--set",
                       "balls.evs_bits_min=1", "--set", "balls.evs_bits_max=16", "--set", "balls.evs_ecmp_hash=true",
                       "--set", "balls.evs_trials=1000", "--set", "run.seed=1"},
                      {"balls", "evs", "--set", "balls.evs_bins=32", "--set", "balls.evs_flows=1,32", "--set",
                       "balls.evs_bits_min=1", "--set", "balls.evs_bits_max=16", "--set", "balls.evs_ecmp_hash=true",
                       "--set", "balls.evs_trials=100", "--set", "run.seed=1"},
                      "27 s", "11 s"));
    {
      // [REPS] sec. 4.5.2, Fig. 15 (left): the 8 MiB permutation on the 1024-host fat tree (32 uplinks
      // per ToR, the switch of Fig. 14) with 32, 256 and 64K EVs, OPS and REPS, five seeds.
      const auto mk = [&](bool quick) {
        return fmt::format(
            "# [REPS] Fig. 15 (left): {} permutation with network.ev_bits = 5, 8, 16 (32, 256, 64K EVs),\n"
            "# OPS vs REPS; completion time relative to 2^16 EVs (printed by lbsim reproduce).\n"
            "name = \"reps-fig15\"\n[set]\n{}\"workload.kind\" = \"permutation\"\n\"workload.size\" = \"{}\"\n\n"
            "[grid]\n\"lb.algorithm\" = [\"ops\", \"reps\"]\n\"network.ev_bits\" = [5, 8, 16]\n\"run.seed\" = {}\n",
            quick ? "2 MiB" : "8 MiB", reps_net(quick ? 128 : 1024, quick ? 16 : 64, "200000"), quick ? "2MiB" : "8MiB",
            quick ? "[1, 2, 3]" : "[1, 2, 3, 4, 5]");
      };
      Entry e{"reps-fig15",
              "[REPS] Fig. 15 (left)",
              "EVS size 32 / 256 / 64K EVs, 8 MiB permutation on 1024 hosts; OPS vs REPS, 5 seeds",
              {reps},
              mk(false),
              mk(true),
              "9 min",
              "20 s",
              {}};
      e.report = reps_fig15_report;
      c.push_back(e);
    }
    const std::vector<std::string> fig17{"balls", "queue",
                                         "--set", "balls.queue_models=ops",
                                         "--set", "balls.queue_bins=8,16,32,64,128",
                                         "--set", "balls.queue_lambda=0.99",
                                         "--set", "balls.queue_steps=1000",
                                         "--set", "balls.queue_bin_seeds=1",
                                         "--set", "run.seed=1"};
    // 100 seeds: the max queue grows only like log n, so fewer seeds can leave neighbouring n
    // (32 and 64) out of order by chance.
    auto fig17q = fig17;
    fig17q.insert(fig17q.end(), {"--set", "balls.seeds=20"});
    auto fig17f = fig17;
    fig17f.insert(fig17f.end(), {"--set", "balls.seeds=100"});
    c.push_back(entry("reps-fig17", "[REPS] Fig. 17",
                      "OPS queues at lambda = 0.99, 1000 steps, n = 8..128 bins, 100 seeds", fig17f, fig17q, "4 s",
                      "5 s"));
    const std::vector<std::string> fig18{"balls", "queue",
                                         "--set", "balls.queue_models=ops,recycled",
                                         "--set", "balls.queue_bins=5",
                                         "--set", "balls.queue_lambda=1",
                                         "--set", "balls.queue_steps=200",
                                         "--set", "balls.queue_bin_seeds=1",
                                         "--set", "balls.tau=0",
                                         "--set", "balls.colors_per_bin=0",
                                         "--set", "balls.tau_count=before",
                                         "--set", "balls.recycle=removed",
                                         "--set", "run.seed=1"};
    auto fig18q = fig18;
    fig18q.insert(fig18q.end(), {"--set", "balls.seeds=5"});
    auto fig18f = fig18;
    fig18f.insert(fig18f.end(), {"--set", "balls.seeds=20"});
    c.push_back(entry("reps-fig18", "[REPS] Fig. 18",
                      "OPS vs recycled balls-into-bins, n = 5, 200 steps, lambda = 1, tau drawn, 20 seeds", fig18f,
                      fig18q, "2 s", "4 s"));
    c.push_back(
        entry("reps-thm51", "[REPS] Theorem 5.1",
              "recycled balls-into-bins: steps to convergence and max queue, n = 16..128, 20 seeds",
              {"balls", "theorem", "--set", "balls.theorem_bins=16,32,64,128", "--set", "balls.seeds=20", "--set",
               "balls.theorem_max_steps=1000000", "--set", "balls.tau=0", "--set", "balls.colors_per_bin=0", "--set",
               "balls.tau_count=before", "--set", "balls.recycle=removed", "--set", "run.seed=1"},
              {"balls", "theorem", "--set", "balls.theorem_bins=16,32", "--set", "balls.seeds=5", "--set",
               "balls.theorem_max_steps=1000000", "--set", "balls.tau=0", "--set", "balls.colors_per_bin=0", "--set",
               "balls.tau_count=before", "--set", "balls.recycle=removed", "--set", "run.seed=1"},
              "2 s", "4 s"));
  }

  {
    // [Flowcut] sec. III-C (docs/results/flowcut.md "Measured on the paper's systems"): every entry runs on the
    // credit-based lossless network with in-order receivers; scripts/flowcut_tables.py prints the tables.
    const auto ft = fc_axis(flowcut_fat_tree_schemes());
    const auto fig8 = [&](bool quick) {
      return fc_header("flowcut-fig8", "[Flowcut] Fig. 8: permutation on the 1:1 fat tree, every scheme", quick) +
             fmt::format("[set]\n{}{}{}\n[grid]\n{}\"run.seed\" = [1]\n", flowcut_common(), flowcut_fat_tree(quick, 1),
                         fc_permutation(quick), ft);
    };
    c.push_back({"flowcut-fig8",
                 "[Flowcut] Fig. 8",
                 "8 MiB permutation, 1:1 fat tree, credit; ECMP, spraying, Flowlet x3, MPRDMA, Flowcut NIC/full",
                 fc_needs(flowcut_fat_tree_schemes()),
                 fig8(false),
                 fig8(true),
                 "~8 min",
                 "14 s",
                 {}});
    const auto fig9 = [&](bool quick) {
      return fc_header("flowcut-fig9", "[Flowcut] Fig. 9: permutation with 1% of the switch links at 20 Gb/s", quick) +
             fmt::format("[set]\n{}{}{}{}\n[grid]\n{}\"run.seed\" = [1]\n", flowcut_common(),
                         flowcut_fat_tree(quick, 1), fc_permutation(quick), fc_degraded(), ft);
    };
    c.push_back({"flowcut-fig9",
                 "[Flowcut] Fig. 9",
                 "Fig. 8 with 1 % of the switch links degraded to 1/10 (20 Gb/s)",
                 with(fc_needs(flowcut_fat_tree_schemes()), {failures}),
                 fig9(false),
                 fig9(true),
                 "~10 min",
                 "11 s",
                 {}});
    const auto fig10 = [&](bool quick) {
      return fc_header("flowcut-fig10", "[Flowcut] Fig. 10: all-to-all on the 1:1 fat tree", quick) +
             fmt::format("[set]\n{}{}{}\n[grid]\n{}\"run.seed\" = [1]\n", flowcut_common(), flowcut_fat_tree(quick, 1),
                         fc_alltoall(quick), ft);
    };
    c.push_back({"flowcut-fig10",
                 "[Flowcut] Fig. 10",
                 "1 MiB all-to-all (window 4), 1:1 fat tree, every scheme",
                 fc_needs(flowcut_fat_tree_schemes()),
                 fig10(false),
                 fig10(true),
                 "hours",
                 "102 s",
                 {}});
    const auto fig11 = [&](bool quick) {
      return fc_header("flowcut-fig11", "[Flowcut] Fig. 11: datamining flow sizes on the 2:1 fat tree", quick) +
             fmt::format("[set]\n{}{}{}\n[grid]\n{}\"run.seed\" = [1]\n", flowcut_common(), flowcut_fat_tree(quick, 2),
                         fc_trace("datamining", quick), ft);
    };
    c.push_back({"flowcut-fig11",
                 "[Flowcut] Fig. 11",
                 "datamining at 50 % load, 2:1 fat tree, every scheme",
                 fc_needs(flowcut_fat_tree_schemes()),
                 fig11(false),
                 fig11(true),
                 "~30 min",
                 "47 s",
                 {}});
    const auto fig12 = [&](bool quick) {
      return fc_header("flowcut-fig12", "[Flowcut] Fig. 12: Flowcut variants in the scenarios of Fig. 8-11", quick) +
             fmt::format("[set]\n{}\n[grid]\n{}\"run.seed\" = [1]\n", flowcut_common(),
                         fc_axis(flowcut_variant_schemes())) +
             fc_case("permutation", flowcut_fat_tree(quick, 1) + fc_permutation(quick)) +
             fc_case("degraded", flowcut_fat_tree(quick, 1) + fc_permutation(quick) + fc_degraded()) +
             fc_case("alltoall", flowcut_fat_tree(quick, 1) + fc_alltoall(quick)) +
             fc_case("datamining_2to1", flowcut_fat_tree(quick, 2) + fc_trace("datamining", quick));
    };
    c.push_back({"flowcut-fig12",
                 "[Flowcut] Fig. 12",
                 "NIC only, ingress only, full switch (and ECMP) in the Fig. 8-11 scenarios",
                 with(fc_needs(flowcut_variant_schemes()), {failures}),
                 fig12(false),
                 fig12(true),
                 "hours",
                 "87 s",
                 {}});
    const auto dfly = [&](const std::string& name, const std::string& what, const std::string& cdf, bool quick) {
      return fc_header(name, what, quick) + fmt::format("[set]\n{}{}{}\n[grid]\n{}\"run.seed\" = [1]\n",
                                                        flowcut_common(), flowcut_dragonfly(quick),
                                                        fc_trace(cdf, quick), fc_axis(flowcut_dragonfly_schemes()));
    };
    c.push_back(
        {"flowcut-fig13",
         "[Flowcut] Fig. 13",
         "Dragonfly 4 x 256, uniform 4 KiB-1 MiB flows to random partners at 50 % load; ECMP, UGAL-L, Valiant, Flowlet "
         "x3, Flowcut NIC/full",
         fc_needs(flowcut_dragonfly_schemes()),
         dfly("flowcut-fig13", "[Flowcut] Fig. 13: random uniform traffic on the Dragonfly", "uniform.cdf", false),
         dfly("flowcut-fig13", "[Flowcut] Fig. 13: random uniform traffic on the Dragonfly", "uniform.cdf", true),
         "~20 min",
         "8 s",
         {{"uniform.cdf", kUniformCdf}}});
    c.push_back({"flowcut-fig14",
                 "[Flowcut] Fig. 14",
                 "Dragonfly 4 x 256, enterprise flow sizes at 50 % load, the Fig. 13 schemes",
                 fc_needs(flowcut_dragonfly_schemes()),
                 dfly("flowcut-fig14", "[Flowcut] Fig. 14: enterprise traffic on the Dragonfly", "enterprise", false),
                 dfly("flowcut-fig14", "[Flowcut] Fig. 14: enterprise traffic on the Dragonfly", "enterprise", true),
                 "~20 min",
                 "6 s",
                 {}});
    const auto table4 = [&](bool quick) {
      return fc_header("flowcut-table4", "[Flowcut] Table IV: share of the FCT spent draining, Flowcut full switch",
                       quick) +
             fmt::format(
                 "[set]\n{}{}\"routing.algorithm\" = \"flowcut_full\"\n\"lb.algorithm\" = \"ecmp\"\n\"run.seed\" = 1\n"
                 "\n[grid]\nworkload = [\n  {{name = \"permutation\", {}}},\n  {{name = \"permutation_failures\", "
                 "{}}},\n"
                 "  {{name = \"websearch\", {}}},\n  {{name = \"alltoall\", {}}},\n]\n",
                 flowcut_common(), flowcut_fat_tree(quick, 1), inline_keys(fc_permutation(quick)),
                 inline_keys(fc_permutation(quick) + fc_degraded()), inline_keys(fc_trace("websearch", quick)),
                 inline_keys(fc_alltoall(quick)));
    };
    c.push_back({"flowcut-table4",
                 "[Flowcut] Table IV",
                 "draining overhead of Flowcut full switch: permutation, with failures, web search, all-to-all",
                 with(fc_needs(flowcut_variant_schemes()), {failures}),
                 table4(false),
                 table4(true),
                 "hours",
                 "19 s",
                 {}});
    const auto fig7 = [&](bool quick) {
      return fc_header("flowcut-fig7",
                       "[Flowcut] Fig. 7: mean FCT over RTT ratio x alpha, Flowcut full switch, permutation", quick) +
             fmt::format(
                 "[set]\n{}{}{}\"routing.algorithm\" = \"flowcut_full\"\n\"lb.algorithm\" = \"ecmp\"\n\"run.seed\" = "
                 "1\n"
                 "\n[grid]\n\"flowcut.rtt_ratio\" = {}\n\"flowcut.alpha\" = {}\n",
                 flowcut_common(), flowcut_fat_tree(quick, 1), fc_permutation(quick),
                 quick ? "[1.0, 2.0, 3.0, 4.0, 5.0]" : "[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0]",
                 quick ? "[0.12, 0.5, 1.0]" : "[0.05, 0.12, 0.25, 0.5, 0.75, 1.0]");
    };
    c.push_back({"flowcut-fig7",
                 "[Flowcut] Fig. 7",
                 "heatmap: mean FCT of the permutation over flowcut.rtt_ratio x flowcut.alpha, full switch",
                 fc_needs(flowcut_variant_schemes()),
                 fig7(false),
                 fig7(true),
                 "~45 min",
                 "19 s",
                 {}});
  }
  {
    // [LAPS] sec. 4.2 (docs/laps.md): Fig. 5-8 and Table 1 at lbsim's scale, with the examples'
    // network (examples/laps/*.toml); the report prints the average and p99 FCT per scheme and load
    // next to the paper's numbers.
    const auto fig = [&](const std::string& name, const std::string& src, const std::string& what,
                         const std::string& base, const std::string& cdf, int window_full, int window_quick,
                         const std::string& rt_full, const std::string& rt_quick) {
      Entry e{name,
              src,
              what,
              with(laps_needs(), {}),
              laps_fig(name, src + ": " + what, cdf, window_full, false),
              laps_fig(name, src + ": " + what, cdf, window_quick, true),
              rt_full,
              rt_quick,
              {}};
      e.base = base;
      e.report = laps_report;
      return e;
    };
    c.push_back(fig("laps-fig5", "[LAPS] Fig. 5",
                    "Rail 64 GPUs, DM, All2all, loads 50-100 %; ECMP, LetFlow, CONGA, PLB, ConWeave, LAPS",
                    "examples/laps/rail_64.toml", "@BASEDIR@/../../data/flow-size-cdf/VL2_CDF.txt", 1000, 200, "66 s",
                    "~40 s"));
    c.push_back(fig("laps-fig6", "[LAPS] Fig. 6",
                    "Rail 64 GPUs, STR, All2all, loads 50-100 %; ECMP, LetFlow, CONGA, PLB, ConWeave, LAPS",
                    "examples/laps/rail_64.toml", "alistorage", 500, 100, "109 s", "~40 s"));
    c.push_back(fig("laps-fig7", "[LAPS] Fig. 7",
                    "Dragonfly 144, RPC, All2all, loads 50-100 %; ECMP, LetFlow, CONGA, PLB, ConWeave, LAPS",
                    "examples/laps/dragonfly_144.toml", "googlerpc", 100, 20, "120 s", "~30 s"));
    c.push_back(fig("laps-fig8", "[LAPS] Fig. 8",
                    "Dragonfly 144, HDP, All2all, loads 50-100 %; ECMP, LetFlow, CONGA, PLB, ConWeave, LAPS",
                    "examples/laps/dragonfly_144.toml", "hadoop", 300, 50, "95 s", "~60 s"));
    Entry t{"laps-table1",
            "[LAPS] Table 1",
            "Rail, parameter-server gradient aggregation, drop ratio 0 and 0.0001 %",
            with(laps_needs(), {failures}),
            laps_table1(false),
            laps_table1(true),
            "~5 min",
            "~60 s",
            {}};
    t.base = "examples/laps/rail_64.toml";
    t.report = laps_report;
    c.push_back(t);
    Entry pt{"laps-patterns",
             "[LAPS] sec. 4.1",
             "Rail 64 GPUs, STR, All2all / AllReduce (parameter server) / AllScatter, loads 50-100 %",
             with(laps_needs(), {}),
             laps_patterns(false),
             laps_patterns(true),
             "141 s",
             "~10 s",
             {}};
    pt.base = "examples/laps/rail_64.toml";
    pt.report = laps_report;
    c.push_back(pt);
    Entry f9{"laps-fig9",
             "[LAPS] Fig. 9",
             "Rail 64 GPUs, LLM training AllScatter and AllReduce: LAPS's reorder buffer, FCT per scheme",
             with(laps_needs(), {}),
             laps_fig9(false),
             laps_fig9(true),
             "~5 min",
             "~20 s",
             {}};
    f9.base = "examples/laps/rail_64.toml";
    f9.report = laps_report;
    c.push_back(f9);
  }
  return c;
}

std::string sweep_text(const Entry& e, bool quick, const fs::path& source_dir) {
  std::string text = quick ? e.quick : e.full;
  if (!e.base.empty()) {
    const fs::path base = source_dir / e.base;
    if (!fs::is_regular_file(base))
      throw UserError(fmt::format("{}: needs {} from the lbsim source tree (set LBSIM_SOURCE_DIR)", e.name, e.base));
    for (const auto& [key, val] :
         {std::pair<std::string, std::string>{"@BASEDIR@", base.parent_path().string()}, {"@BASE@", base.string()}})
      for (auto pos = text.find(key); pos != std::string::npos; pos = text.find(key, pos + val.size()))
        text.replace(pos, key.size(), val);
  }
  if (text.empty()) throw UserError(fmt::format("{}: no sweep is defined for this experiment yet", e.name));
  return text;
}

}  // namespace lbsim::workflow
