// `lbsim reproduce`: the papers' experiments as sweeps (docs/workflow.md lists every entry).
// Each entry generates a self-contained sweep file (no base config) at full scale (the paper's
// parameters) or reduced (--quick). An entry that needs a mechanism not in this build (a load
// balancer or routing name absent from the config key table, or a feature with no config key yet)
// reports "needs: ..." and refuses to run.
#pragma once
#include <string>
#include <vector>

#include <fmt/core.h>

#include "sim/config.h"

namespace lbsim::cli::wf {

struct Need {
  std::string kind;  // "lb", "routing" (a name in that key's choices) or "key" (a config key prefix)
  std::string what;  // the name / key prefix
  std::string label; // shown to the user
};

struct Entry {
  std::string name;
  std::string source;  // paper and figure
  std::string what;
  std::vector<Need> needs;
  std::string full;   // sweep TOML at the paper's scale
  std::string quick;  // sweep TOML at a reduced scale
  std::string runtime_full, runtime_quick;  // measured or estimated wall time (2 workers)
};

inline bool need_met(const Need& n) {
  const auto choices_of = [](const std::string& key) -> std::vector<std::string> {
    for (const auto& d : sim::config_keys())
      if (d.key == key) return d.choices;
    return {};
  };
  if (n.kind == "lb" || n.kind == "routing") {
    const auto c = choices_of(n.kind == "lb" ? "lb.algorithm" : "routing.algorithm");
    for (const auto& x : c)
      if (x == n.what) return true;
    return false;
  }
  for (const auto& d : sim::config_keys())
    if (d.key.rfind(n.what, 0) == 0) return true;
  return false;
}

inline std::vector<std::string> missing_needs(const Entry& e) {
  std::vector<std::string> out;
  for (const auto& n : e.needs)
    if (!need_met(n)) out.push_back(n.label);
  return out;
}

namespace catalog_detail {

inline std::string list(const std::vector<std::string>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + ("\"" + v[i] + "\"");
  return s + "]";
}

// REPS sec. 4.1: fat tree, 400 Gb/s, 4 KiB MTU, 500 ns links and switches, queues of one BDP,
// Kmin/Kmax 20/80 %, trimming, RTO 70 us, the MPRDMA DCTCP variant (dctcp_ack).
inline std::string reps_net(int hosts, int radix, const std::string& end_us) {
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
inline std::string reps_fig3(const std::vector<std::string>& lbs, bool quick, const std::string& extra) {
  const int big = quick ? 64 : 1024, big_radix = quick ? 16 : 64, small = quick ? 32 : 128;
  const std::string size = quick ? "256KiB" : "8MiB";
  const std::string csize = quick ? "256KiB" : "4MiB";
  std::string s = fmt::format(
      "# REPS (reps.txt) Fig. 3: max FCT of incast, permutation, tornado ({} hosts), web-search traces\n"
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

// spritz.txt Table II networks: Dragonfly p=4 a=8 h=4 (1056 endpoints), Slim Fly q=9 p=7 (1134);
// quick: Dragonfly p=2 a=4 h=2 (72), Slim Fly q=5 p=3 (150). 400 Gb/s, 25 ns local / 500 ns global
// links, 500 ns switches, one-BDP queues, Kmin/Kmax 0.2/0.8, trimming, DCTCP with QuickAdapt and
// FastIncrease, window 1.5 BDP.
inline std::string spritz_topo_cases(bool quick, const std::string& workload) {
  std::string s;
  const std::string common =
      "\"topology.link_rate_gbps\" = 400\n\"topology.host_latency_ns\" = 25\n"
      "\"topology.local_latency_ns\" = 25\n\"topology.global_latency_ns\" = 500\n";
  s += fmt::format("\n[[case]]\nname = \"dragonfly\"\n\"topology.kind\" = \"dragonfly\"\n\"topology.p\" = {}\n"
                   "\"topology.a\" = {}\n\"topology.h\" = {}\n{}{}",
                   quick ? 2 : 4, quick ? 4 : 8, quick ? 2 : 4, common, workload);
  s += fmt::format("\n[[case]]\nname = \"slim_fly\"\n\"topology.kind\" = \"slim_fly\"\n\"topology.q\" = {}\n"
                   "\"topology.p\" = {}\n{}{}",
                   quick ? 5 : 9, quick ? 3 : 7, common, workload);
  return s;
}

inline std::string spritz_set() {
  return R"("network.switch_latency_ns" = 500
"network.queue_bdp" = 1.0
"network.kmin" = 0.2
"network.kmax" = 0.8
"network.trimming" = true
"transport.cc" = "dctcp_ack"
"transport.quick_adapt" = true
"transport.fast_increase" = true
"transport.init_cwnd_bdp" = 1.5
"transport.max_cwnd_bdp" = 1.5
"run.end_us" = 1000000
)";
}

// spritz.txt Fig. 6: permutation (receivers outside the group) and the topology's adversarial
// pattern, FCT distribution, drops and out-of-order packets.
inline std::string spritz_fig6(const std::vector<std::string>& routings, const std::vector<std::string>& lbs,
                               bool quick, const std::string& name) {
  const std::string size = quick ? "256KiB" : "8MiB";
  std::string s = fmt::format(
      "# spritz.txt Fig. 6: permutation (outside the group) and adversarial patterns on Dragonfly and\n"
      "# Slim Fly (Table II networks{}).\nname = \"{}\"\n[set]\n{}\"workload.size\" = \"{}\"\n"
      "\"workload.outside_group\" = true\n\n[grid]\n\"workload.kind\" = [\"permutation\", \"adversarial\"]\n"
      "\"routing.algorithm\" = {}\n\"lb.algorithm\" = {}\n",
      quick ? ", reduced" : "", name, spritz_set(), size, list(routings), list(lbs));
  return s + spritz_topo_cases(quick, "");
}

// spritz.txt Fig. 7: collectives on 128 random endpoints with an ECMP background permutation.
inline std::string spritz_fig7(const std::vector<std::string>& routings, const std::vector<std::string>& lbs,
                               bool quick) {
  std::string s = fmt::format(
      "# spritz.txt Fig. 7: AI collectives on {} random endpoints with a background ECMP permutation.\n"
      "name = \"spritz-fig7\"\n[set]\n{}\"workload.ranks\" = {}\n\"workload.random_subset\" = true\n"
      "\"workload.background\" = true\n\"workload.background_lb\" = \"ecmp\"\n\"workload.size\" = \"{}\"\n"
      "\"workload.window\" = 4\n\n[grid]\n"
      "\"workload.kind\" = [\"butterfly_allreduce\", \"ring_allreduce\", \"alltoall\"]\n"
      "\"routing.algorithm\" = {}\n\"lb.algorithm\" = {}\n",
      quick ? 16 : 128, spritz_set(), quick ? 16 : 128, quick ? "128KiB" : "4MiB", list(routings), list(lbs));
  return s + spritz_topo_cases(quick, "");
}

// spritz.txt Fig. 8: 32 x 4 MiB incast (senders 0-31) to node 160 plus a bystander permutation.
inline std::string spritz_fig8(const std::vector<std::string>& routings, const std::vector<std::string>& lbs,
                               bool quick) {
  return fmt::format(
      "# spritz.txt Fig. 8: incast to node {} from nodes 0-{} with bystanders (Dragonfly).\n"
      "name = \"spritz-fig8\"\n[set]\n{}\"topology.kind\" = \"dragonfly\"\n\"topology.p\" = {}\n"
      "\"topology.a\" = {}\n\"topology.h\" = {}\n\"topology.link_rate_gbps\" = 400\n"
      "\"topology.host_latency_ns\" = 25\n\"topology.local_latency_ns\" = 25\n"
      "\"topology.global_latency_ns\" = 500\n\"workload.kind\" = \"incast\"\n"
      "\"workload.incast_receiver\" = {}\n\"workload.incast_first_sender\" = 0\n"
      "\"workload.incast_senders\" = {}\n\"workload.incast_bystanders\" = true\n\"workload.size\" = \"{}\"\n\n"
      "[grid]\n\"routing.algorithm\" = {}\n\"lb.algorithm\" = {}\n",
      quick ? 40 : 160, quick ? 7 : 31, spritz_set(), quick ? 2 : 4, quick ? 4 : 8, quick ? 2 : 4, quick ? 40 : 160,
      quick ? 8 : 32, quick ? "256KiB" : "4MiB", list(routings), list(lbs));
}

}  // namespace catalog_detail

// The catalogue, in display order. Scheme names follow docs/config.md where they exist and the
// names planned in ../shared/DESIGN.md ("reps", "valiant", "ugal_l", "spritz_scout",
// "spritz_spray", "ops_weighted") where they do not yet.
inline std::vector<Entry> catalog() {
  using namespace catalog_detail;
  const Need reps{"lb", "reps", "lb reps"};
  const Need valiant{"routing", "valiant", "routing valiant"};
  const Need ugal{"routing", "ugal_l", "routing ugal_l"};
  const Need scout{"lb", "spritz_scout", "lb spritz_scout"};
  const Need spray{"lb", "spritz_spray", "lb spritz_spray"};
  const Need opsw{"lb", "ops_weighted", "lb ops_weighted"};
  const Need failures{"key", "failures.", "failure injection ([failures] config keys)"};
  const Need degraded{"key", "failures.degraded", "degraded link rates ([failures] config keys)"};
  const Need mixed{"key", "workload.ecmp_fraction", "mixed REPS/ECMP traffic (workload.ecmp_fraction)"};
  const Need fig5wl{"key", "workload.free_groups", "the Fig. 5 free-groups workload (workload.free_groups)"};
  const std::vector<std::string> spritz_routing{"minimal", "ecmp", "valiant", "ugal_l"};
  const std::vector<std::string> spritz_lbs{"ecmp", "ops", "ops_weighted", "spritz_scout", "spritz_spray"};
  std::vector<Entry> c;
  {
    Entry e{"demo", "README (REPS sec. 4.1 parameters)", "ECMP vs OPS, 128-host fat tree, 4 MiB permutation",
            {}, "", "", "~25 s", "~2 s"};
    const auto mk = [](int hosts, const char* size) {
      return fmt::format("# The README demo as a sweep: ECMP vs OPS on a permutation.\nname = \"demo\"\n"
                         "[set]\n{}\"workload.kind\" = \"permutation\"\n\"workload.size\" = \"{}\"\n\n"
                         "[grid]\n\"lb.algorithm\" = [\"ecmp\", \"ops\"]\n",
                         reps_net(hosts, 16, "100000"), size);
    };
    e.full = mk(128, "4MiB");
    e.quick = mk(32, "512KiB");
    c.push_back(e);
  }
  {
    Entry e{"reps-fig3", "reps.txt Fig. 3", "healthy fat tree: synthetic, traces, collectives; ECMP, OPS, REPS",
            {reps}, reps_fig3({"ecmp", "ops", "reps"}, false, ""), reps_fig3({"ecmp", "ops", "reps"}, true, ""),
            "~1 h", "~1 min"};
    c.push_back(e);
    Entry b{"reps-fig3-baselines", "reps.txt Fig. 3 (ECMP and OPS columns only)",
            "the Fig. 3 scenarios with the baselines available now", {}, reps_fig3({"ecmp", "ops"}, false, ""),
            reps_fig3({"ecmp", "ops"}, true, ""), "~40 min", "~40 s"};
    b.full.replace(b.full.find("name = \"reps-fig3\""), 18, "name = \"reps-fig3-baselines\"");
    b.quick.replace(b.quick.find("name = \"reps-fig3\""), 18, "name = \"reps-fig3-baselines\"");
    c.push_back(b);
  }
  c.push_back({"reps-fig4", "reps.txt Fig. 4", "one ToR uplink at 200 Gb/s, n x 32 MiB through one switch; OPS vs REPS",
               {reps, degraded}, "", "", "-", "-"});
  c.push_back({"reps-fig5", "reps.txt Fig. 5", "Fig. 3 scenarios with 3 % of ToR uplinks at 200 Gb/s",
               {reps, degraded}, "", "", "-", "-"});
  c.push_back({"reps-fig6", "reps.txt Fig. 6", "REPS traffic sharing the network with 10 % ECMP traffic",
               {reps, mixed}, "", "", "-", "-"});
  c.push_back({"reps-fig7", "reps.txt Fig. 7",
               "64 MiB permutation, two uplink failures (100-200 us, 350-550 us); OPS vs REPS",
               {reps, failures}, "", "", "-", "-"});
  c.push_back({"reps-fig8", "reps.txt Fig. 8", "failure modes: 8 MiB permutation, traces at 100 %, ring allreduce",
               {reps, failures}, "", "", "-", "-"});
  c.push_back({"spritz-table3", "spritz.txt Table III", "FCT of the monitored 4 MiB flow in the Fig. 5 scenario",
               {valiant, ugal, opsw, scout, spray, fig5wl}, "", "", "-", "-"});
  c.push_back({"spritz-fig6", "spritz.txt Fig. 6", "permutation and adversarial on Dragonfly and Slim Fly, all schemes",
               {valiant, ugal, opsw, scout, spray}, spritz_fig6(spritz_routing, spritz_lbs, false, "spritz-fig6"),
               spritz_fig6(spritz_routing, spritz_lbs, true, "spritz-fig6"), "~2 h", "~2 min"});
  c.push_back({"spritz-fig6-baselines", "spritz.txt Fig. 6 (Minimal, ECMP, OPS only)",
               "Fig. 6 with the routing and load balancers available now", {},
               spritz_fig6({"minimal", "ecmp"}, {"ecmp", "ops"}, false, "spritz-fig6-baselines"),
               spritz_fig6({"minimal", "ecmp"}, {"ecmp", "ops"}, true, "spritz-fig6-baselines"), "~1 h", "~1 min"});
  c.push_back({"spritz-fig7", "spritz.txt Fig. 7", "collectives on 128 random endpoints with ECMP background",
               {valiant, ugal, opsw, scout, spray}, spritz_fig7(spritz_routing, spritz_lbs, false),
               spritz_fig7(spritz_routing, spritz_lbs, true), "~1 h", "~2 min"});
  c.push_back({"spritz-fig8", "spritz.txt Fig. 8", "32 x 4 MiB incast to node 160 with 1023 bystander flows",
               {valiant, ugal, opsw, scout, spray}, spritz_fig8(spritz_routing, spritz_lbs, false),
               spritz_fig8(spritz_routing, spritz_lbs, true), "~30 min", "~1 min"});
  c.push_back({"spritz-fig9", "spritz.txt Fig. 9", "2 % of links failed: permutation, collectives, traces",
               {valiant, opsw, scout, spray, failures}, "", "", "-", "-"});
  return c;
}

}  // namespace lbsim::cli::wf
