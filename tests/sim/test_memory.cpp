// The up-front memory guard ([issue 14] "No size guard"; docs/reliability.md "Limits"): the sizes the
// plug-ins predict from their keys match what they build, and configs that would allocate terabytes
// are refused with exit 2 before anything is built, naming the keys.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>

#include "config/reader.h"
#include "core/error.h"
#include "helpers.h"
#include "lb/endpoint_table.h"
#include "metrics/report.h"
#include "metrics/value_log.h"
#include "routing/bounded_paths.h"
#include "sim/memory.h"
#include "topo/paths.h"
#include "transport/transport.h"
#include "workload/cdf.h"
#include "workload/registry.h"

using namespace lbsim;

namespace {

#define EXPECT_CONTAINS(haystack, needle) EXPECT_NE((haystack).find(needle), std::string::npos) << (haystack)

config::Config with(std::initializer_list<std::pair<const char*, config::Value>> kv) {
  config::Config c;
  c.set("run.progress", "off");
  for (const auto& [k, v] : kv) c.set(k, v);
  return c;
}

// A config file (the messages name it) with `body` plus a small permutation.
std::string config_file(const std::string& name, const std::string& body) {
  const auto dir = test::temp_dir("mem-" + name);
  return test::write_file(dir + "/" + name + ".toml", body);
}

// The sizes a topology plug-in predicts are those of the graph it builds.
void expect_size_matches(const config::Config& c) {
  const auto s = topo::topology_size(c);
  const auto t = topo::build_topology(c);
  EXPECT_EQ(s.hosts, t.num_hosts) << c.text("topology.kind");
  EXPECT_EQ(s.switches, t.num_switches()) << c.text("topology.kind");
  EXPECT_EQ(s.links, static_cast<double>(t.links.size())) << c.text("topology.kind");
  EXPECT_EQ(s.host_rate_bps, static_cast<double>(t.host_rate())) << c.text("topology.kind");
}

// The entries a workload plug-in predicts are those it generates.
double built_entries(const config::Config& c) {
  const auto t = topo::build_topology(c);
  return static_cast<double>(workload::build_workload(c, t, nullptr).flows.size());
}
double predicted_entries(const config::Config& c) { return workload::workload_size(c, topo::topology_size(c)).entries; }

}  // namespace

TEST(MemoryGuard, EveryTopologyAndWorkloadPredictsItsSize) {
  for (const auto& e : topo::topologies().entries()) EXPECT_TRUE(static_cast<bool>(e.size)) << e.name;
  for (const auto& e : workload::workloads().entries()) EXPECT_TRUE(static_cast<bool>(e.size)) << e.name;
}

// Every generator predicts the host rate of the graph it builds (the memory guard and load-driven
// workloads read the prediction, a run the built graph's Topology::host_rate()), rates that differ
// from the defaults included. ns3 reads only its file's first line for its size: an estimate.
TEST(MemoryGuard, EveryTopologyPredictsItsHostRate) {
  for (const auto& e : topo::topologies().entries()) {
    if (e.name == "ns3") continue;
    for (const char* rates : {"", "topology.link_rate_gbps=123", "topology.host_rate_gbps=77"}) {
      config::Config c;
      config::apply_override(c, "topology.kind=" + e.name);
      if (e.name == "fat_tree") c.set("topology.hosts", 8);
      for (const auto& o : e.example) config::apply_override(c, o);
      if (*rates && (e.name == "fat_tree") == (std::string(rates).find("host_rate") != std::string::npos))
        config::apply_override(c, rates);
      const auto t = topo::build_topology(c);
      ASSERT_GT(t.host_rate(), 0) << e.name;
      EXPECT_EQ(topo::topology_size(c).host_rate_bps, static_cast<double>(t.host_rate())) << e.name << " " << rates;
    }
  }
}

TEST(MemoryGuard, TopologySizesMatchTheBuiltGraphs) {
  expect_size_matches(with({{"topology.hosts", std::int64_t{128}}, {"topology.radix", std::int64_t{16}}}));
  // 3 tiers with a partly filled last pod: 100 hosts / 4 per ToR = 25 ToRs in 7 pods of 4.
  expect_size_matches(with({{"topology.hosts", std::int64_t{100}},
                            {"topology.tiers", std::int64_t{3}},
                            {"topology.radix", std::int64_t{8}}}));
  // 2:1 oversubscription: 8 hosts and 4 uplinks per ToR.
  expect_size_matches(with({{"topology.hosts", std::int64_t{64}},
                            {"topology.radix", std::int64_t{16}},
                            {"topology.hosts_per_tor", std::int64_t{8}},
                            {"topology.oversubscription", std::int64_t{2}}}));
  expect_size_matches(with(
      {{"topology.kind", std::string("dragonfly")}, {"topology.a", std::int64_t{4}}, {"topology.h", std::int64_t{2}}}));
  expect_size_matches(with({{"topology.kind", std::string("dragonfly")},
                            {"topology.p", std::int64_t{2}},
                            {"topology.a", std::int64_t{4}},
                            {"topology.h", std::int64_t{3}},
                            {"topology.g", std::int64_t{5}}}));
  expect_size_matches(with({{"topology.kind", std::string("slim_fly")}, {"topology.q", std::int64_t{5}}}));
  expect_size_matches(with(
      {{"topology.kind", std::string("slim_fly")}, {"topology.q", std::int64_t{7}}, {"topology.p", std::int64_t{3}}}));
  expect_size_matches(with({{"topology.kind", std::string("ring")}, {"topology.n", std::int64_t{6}}}));
  expect_size_matches(with({{"topology.kind", std::string("ring")}, {"topology.n", std::int64_t{2}}}));
  expect_size_matches(with({{"topology.kind", std::string("complete")}, {"topology.n", std::int64_t{5}}}));
}

// The bounded paths per switch pair a topology prices (source-guided runs' EV lists and tables)
// bound the largest pair of the built graph (topo/paths.h, counted over every pair) from above,
// and by less than 2x (a useful estimate, not a blanket bound; Slim Fly q = 5: 57 for 37, q = 29: 1,725
// for 1,694).
void expect_bounded_paths_bound(const config::Config& c) {
  const auto s = topo::topology_size(c);
  const auto t = topo::build_topology(c);
  const topo::PathEnumerator pe(t);
  std::int64_t largest = 0;
  for (std::int32_t a = 0; a < t.num_switches(); ++a) {
    const auto counts = pe.counts_from(t.switch_node(a));
    for (std::int32_t b = 0; b < t.num_switches(); ++b)
      if (a != b) largest = std::max(largest, counts[static_cast<std::size_t>(b)]);
  }
  EXPECT_GE(s.bounded_paths, static_cast<double>(largest)) << c.text("topology.kind");
  EXPECT_LT(s.bounded_paths, 2.0 * static_cast<double>(largest)) << c.text("topology.kind");
}

TEST(MemoryGuard, BoundedPathsPerPairBoundTheBuiltGraphs) {
  expect_bounded_paths_bound(with({{"topology.kind", std::string("slim_fly")}, {"topology.q", std::int64_t{5}}}));
  expect_bounded_paths_bound(with(
      {{"topology.kind", std::string("slim_fly")}, {"topology.q", std::int64_t{9}}, {"topology.p", std::int64_t{1}}}));
  expect_bounded_paths_bound(with(
      {{"topology.kind", std::string("dragonfly")}, {"topology.a", std::int64_t{4}}, {"topology.h", std::int64_t{2}}}));
  expect_bounded_paths_bound(with({{"topology.kind", std::string("dragonfly")},
                                   {"topology.p", std::int64_t{1}},
                                   {"topology.a", std::int64_t{4}},
                                   {"topology.h", std::int64_t{3}},
                                   {"topology.g", std::int64_t{5}}}));
}

// The non-minimal routers' bounded paths are priced per switch pair in use (a permutation: one per
// host) at the layout of routing/bounded_paths.h: per pair an index entry (48 B) and a 16-byte
// record, per path a length byte, a 2-byte non-minimal index and 5 one-byte ports. On this Dragonfly
// (33 groups of 8 switches, 4 hosts each) every inter-group pair has 32 paths, so routing one pair
// per host, all between groups, holds what the estimate says, give or take the index's fill and
// the partly filled chunks (10 %); the (switch, port) hops kept before took 48 B per path.
TEST(MemoryGuard, NonMinimalRoutersPricePathsAsKept) {
  const auto c = with({{"topology.kind", std::string("dragonfly")},
                       {"topology.a", std::int64_t{8}},
                       {"topology.h", std::int64_t{4}},
                       {"routing.algorithm", std::string("ugal_l")},
                       {"workload.kind", std::string("permutation")}});
  const auto m = sim::estimate_memory(c);
  const auto t = topo::build_topology(c);
  ASSERT_EQ(m.path_pairs, t.num_hosts);
  const routing::MinimalRoutes routes(t);
  routing::BoundedPathSet ps(t, routes);
  std::int32_t pairs = 0;
  for (std::int32_t a = 0; a < t.num_switches() && pairs < t.num_hosts; ++a)
    for (std::int32_t b = 0; b < t.num_switches() && pairs < t.num_hosts; ++b)
      if (t.nodes[t.switch_node(a)].group != t.nodes[t.switch_node(b)].group) {
        EXPECT_EQ(ps.pair(t.switch_node(a), t.switch_node(b)).count, 32u);
        ++pairs;
      }
  EXPECT_DOUBLE_EQ(m.paths / m.path_pairs, 48 + 28 + 32 * (1 + 5));  // one minimal path per pair: no index
  EXPECT_EQ(sizeof(routing::BoundedPathSet::Pair), 28u);
  EXPECT_NEAR(static_cast<double>(ps.bytes()) / m.paths, 1.0, 0.15);
}

// A Spritz run on source-guided routing is priced with its EV lists and per-connection path state:
// the Slim Fly q = 29 permutation of docs/results/routing-state.md (1,338 MiB measured peak on 2026-11-30, 1,347 MiB
// with the heap on huge pages) is estimated above that, of which the paths part is at least 25,230 pairs x 1,682
// switches x 15 B of list entries (lb::EvEntryList::kBytesPerEntry).
TEST(MemoryGuard, SourceGuidedSpritzRunPricesItsPaths) {
  auto c = with({{"topology.kind", std::string("slim_fly")},
                 {"topology.q", std::int64_t{29}},
                 {"topology.p", std::int64_t{15}},
                 {"routing.algorithm", std::string("source_guided")},
                 {"lb.algorithm", std::string("spritz_spray_w")},
                 {"workload.kind", std::string("permutation")},
                 {"workload.size", std::int64_t{1} << 20}});
  const auto m = sim::estimate_memory(c);
  EXPECT_EQ(m.path_pairs, 25230);
  EXPECT_GE(m.paths, 25230.0 * 1682 * lb::EvEntryList::kBytesPerEntry);
  EXPECT_GT(m.total(), 1347.0 * (1 << 20));
  c.set("routing.algorithm", std::string("minimal"));
  c.set("lb.algorithm", std::string("ecmp"));
  EXPECT_EQ(sim::estimate_memory(c).paths, 0);
}

TEST(MemoryGuard, Sizes) {
  // Slim Fly q = 5: 2q^2 = 50 switches of degree k' = (3q - delta)/2 = 7 (delta = 1), p = 4 hosts each.
  const auto s =
      topo::topology_size(with({{"topology.kind", std::string("slim_fly")}, {"topology.q", std::int64_t{5}}}));
  EXPECT_EQ(s.switches, 50);
  EXPECT_EQ(s.hosts, 200);
  EXPECT_EQ(s.links, 200 + 50 * 7 / 2);
  // Dragonfly a = h = 4096: g = a h + 1 groups of a switches, far beyond int32 node ids.
  const auto d = topo::topology_size(with({{"topology.kind", std::string("dragonfly")},
                                           {"topology.a", std::int64_t{4096}},
                                           {"topology.h", std::int64_t{4096}}}));
  EXPECT_EQ(d.switches, 4096.0 * (4096.0 * 4096.0 + 1));
}

TEST(MemoryGuard, WorkloadEntriesMatchTheGeneratedWorkloads) {
  auto c = with({{"topology.hosts", std::int64_t{32}}, {"topology.radix", std::int64_t{8}}});
  EXPECT_EQ(predicted_entries(c), 32);  // permutation: one message per host
  c.set("workload.kind", "tornado");
  EXPECT_EQ(predicted_entries(c), built_entries(c));
  c.set("workload.kind", "incast");
  c.set("workload.incast_senders", 5);
  EXPECT_EQ(predicted_entries(c), 5);
  EXPECT_EQ(predicted_entries(c), built_entries(c));
  c.set("workload.kind", "alltoall");
  EXPECT_EQ(predicted_entries(c), 32 * 31);
  EXPECT_EQ(predicted_entries(c), built_entries(c));
  c.set("workload.kind", "ring_allreduce");
  EXPECT_EQ(predicted_entries(c), 2 * 31 * 32);
  EXPECT_EQ(predicted_entries(c), built_entries(c));
  c.set("workload.kind", "allscatter");
  EXPECT_EQ(predicted_entries(c), built_entries(c));
  c.set("workload.kind", "ps_allreduce");
  EXPECT_EQ(predicted_entries(c), built_entries(c));
  // 8 ranks and a background permutation of the 24 others.
  c.set("workload.ranks", 8);
  EXPECT_EQ(predicted_entries(c), 7 + 24);  // ps_allreduce: every rank but the root sends to it
  EXPECT_EQ(predicted_entries(c), built_entries(c));
}

TEST(MemoryGuard, CdfTraceEntriesFollowRateTimesDurationTimesHosts) {
  // websearch at load 0.5 on 400 Gb/s hosts: 0.5 x 50e9 B/s / mean bytes arrivals per host and second.
  auto c = with({{"topology.hosts", std::int64_t{32}},
                 {"topology.radix", std::int64_t{8}},
                 {"workload.kind", std::string("cdf_trace")},
                 {"workload.duration_us", 200.0}});
  const double mean = workload::load_cdf("websearch").cdf.mean();
  const double expected = 32 * 0.5 * 50e9 / mean * 200e-6;
  EXPECT_NEAR(predicted_entries(c), expected, 1e-6 * expected);
  // Poisson arrivals: the generated count is within a few standard deviations of the mean.
  const double built = built_entries(c);
  EXPECT_NEAR(built, expected, 5 * std::sqrt(expected) + 1);
}

TEST(MemoryGuard, SmallRunFits) {
  auto c = test::small_fat_tree();
  const auto m = sim::estimate_memory(c);
  EXPECT_GT(m.total(), 10.0 * 1024 * 1024);   // at least the executable's fixed part
  EXPECT_LT(m.total(), 200.0 * 1024 * 1024);  // 128 hosts, 24 switches, 128 messages of 8 MiB
  EXPECT_NO_THROW(sim::check_memory(c));
  // The switch-pair tables: a 2-byte set index per ordered switch pair, in runs of 32 with a 4-byte
  // id each (routing/tables.h; estimated as if no two runs were alike), plus per-switch sets that
  // grow with the ports, not with the pairs.
  const auto big = sim::estimate_memory(with({{"topology.hosts", std::int64_t{100000}},
                                              {"topology.tiers", std::int64_t{3}},
                                              {"topology.radix", std::int64_t{64}}}),
                                        sim::MemoryUse::Topology);
  EXPECT_GE(big.tables, big.topo.switches * big.topo.switches * 2);
  EXPECT_LT(big.tables, big.topo.switches * big.topo.switches * 4);
}

// What the routing plug-ins add per switch pair to the min-hop tables (routing/minimal.h
// minimal_routes()): on the Dragonfly `minimal` keeps its l-g-l routes (the tables' layout: a
// 4-byte id and at most 64 B of distinct run per switch and 32 destinations) and the non-minimal
// routers those and the path enumerator's distance (+ 2 B); elsewhere the minimal routes are the
// min-hop tables, so `minimal` adds nothing and the non-minimal routers only the distance.
TEST(MemoryGuard, OwnMinimalRoutesOnlyOnTheDragonfly) {
  auto extra = [](config::Config c, const char* routing) {
    const double base = sim::estimate_memory(c).tables;
    c.set("routing.algorithm", std::string(routing));
    const auto m = sim::estimate_memory(c);
    return (m.tables - base) / (m.topo.switches * m.topo.switches);
  };
  const auto sf = with({{"topology.kind", std::string("slim_fly")}, {"topology.q", std::int64_t{13}}});
  const auto df = with(
      {{"topology.kind", std::string("dragonfly")}, {"topology.a", std::int64_t{8}}, {"topology.h", std::int64_t{4}}});
  const double n = sim::estimate_memory(df).topo.switches;
  const double routes = n * std::ceil(n / 32) * (4 + 64) / (n * n);  // the l-g-l routes' bytes per pair
  const auto ft = with({{"topology.hosts", std::int64_t{1024}},
                        {"topology.tiers", std::int64_t{3}},
                        {"topology.radix", std::int64_t{16}}});
  for (const auto* r : {"valiant", "ugal_l", "ecmp_paths"}) {
    EXPECT_DOUBLE_EQ(extra(sf, r), 2) << r;
    EXPECT_DOUBLE_EQ(extra(ft, r), 2) << r;
    EXPECT_DOUBLE_EQ(extra(df, r), routes + 2) << r;
  }
  EXPECT_DOUBLE_EQ(extra(sf, "minimal"), 0);
  EXPECT_DOUBLE_EQ(extra(ft, "minimal"), 0);
  EXPECT_DOUBLE_EQ(extra(df, "minimal"), routes);
  EXPECT_GT(routes, 2);  // at least the 2 B of a set index per pair
}

TEST(MemoryGuard, LimitFromTheKey) {
  auto c = test::small_fat_tree();
  const double total = sim::estimate_memory(c).total();
  c.set("run.max_memory_gb", 0.001);  // 1 MiB: the topology alone does not fit
  try {
    sim::check_memory(c);
    FAIL() << "a 1 MiB limit must refuse a 128-host run";
  } catch (const UserError& e) {
    EXPECT_CONTAINS(std::string(e.what()), "exceeds run.max_memory_gb = 0.001");
    EXPECT_CONTAINS(std::string(e.what()), "; lower topology.hosts, topology.radix, topology.tiers or raise");
  }
  // Just below the total: each part fits alone, both are named, the larger first. Here that is the
  // topology (12 MiB: the executable's fixed part and the graph) over the workload (9 MiB: per-PSN
  // state only for the PSNs in play, 2 x (64 per message + the packets in flight)).
  const auto m = sim::estimate_memory(c);
  ASSERT_GT(m.base + m.graph + m.tables, m.entries + m.psn_state + m.packets + m.paths);
  c.set("run.max_memory_gb", 0.99 * total / (1024.0 * 1024 * 1024));
  try {
    sim::check_memory(c);
    FAIL() << "a limit below the estimate must refuse";
  } catch (const UserError& e) {
    EXPECT_CONTAINS(std::string(e.what()),
                    "; lower topology.hosts, topology.radix, topology.tiers or workload.size or raise");
  }
  c.set("run.max_memory_gb", 0.0);
  std::string why;
  EXPECT_NEAR(sim::memory_limit_bytes(c, &why), 0.8 * sim::machine_memory_bytes(), 1.0);
  EXPECT_CONTAINS(why, "80% of this machine's");
}

// The four reproducers of the issue: each used to allocate until std::bad_alloc or the OOM killer.
TEST(MemoryGuard, FatTreeOfTenMillionHostsIsRefused) {
  const auto f = config_file(
      "ft", "[topology]\nkind = \"fat_tree\"\nhosts = 10000000\ntiers = 3\nradix = 512\n[run]\nmax_memory_gb = 16\n");
  const auto r = test::run_lbsim("run " + f + " --out " + test::temp_dir("mem-ft-out") + "/r");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_CONTAINS(r.out, "ft.toml: estimated memory");
  EXPECT_CONTAINS(r.out, "143,767 switches, 10,000,000 hosts");
  EXPECT_CONTAINS(r.out, "exceeds run.max_memory_gb = 16");
  EXPECT_CONTAINS(r.out, "lower topology.hosts");
}

TEST(MemoryGuard, DragonflyA4096H4096IsRefused) {
  // No run.max_memory_gb: the default (80% of this machine) is named; a petabyte exceeds any machine.
  const auto f = config_file("df", "[topology]\nkind = \"dragonfly\"\na = 4096\nh = 4096\n");
  const auto r = test::run_lbsim("run " + f + " --out " + test::temp_dir("mem-df-out") + "/r");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_CONTAINS(r.out, "df.toml: estimated memory");
  EXPECT_CONTAINS(r.out, "(80% of this machine's");
  EXPECT_CONTAINS(r.out, "lower topology.a, topology.h");
}

TEST(MemoryGuard, SlimFlyQ1021IsRefused) {
  const auto f = config_file("sf", "[topology]\nkind = \"slim_fly\"\nq = 1021\n[run]\nmax_memory_gb = 16\n");
  const auto r = test::run_lbsim("run " + f + " --out " + test::temp_dir("mem-sf-out") + "/r");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_CONTAINS(r.out, "2,084,882 switches");  // 2 q^2
  EXPECT_CONTAINS(r.out, "lower topology.q");
  // The toolkit commands that build the topology's tables check the same estimate.
  const auto l = test::run_lbsim("layers " + f + " --layers 2");
  EXPECT_EQ(l.code, 2) << l.out;
  EXPECT_CONTAINS(l.out, "lower topology.q");
  const auto t = test::run_lbsim("topo " + f);
  EXPECT_EQ(t.code, 2) << t.out;
  EXPECT_CONTAINS(t.out, "lower topology.q");
}

TEST(MemoryGuard, CdfTraceOfABillionMicrosecondsIsRefused) {
  const auto f =
      config_file("cdf",
                  "[topology]\nhosts = 128\nradix = 16\n[workload]\nkind = \"cdf_trace\"\nduration_us = 1e9\n"
                  "[run]\nmax_memory_gb = 16\n");
  const auto r = test::run_lbsim("run " + f + " --out " + test::temp_dir("mem-cdf-out") + "/r");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_CONTAINS(r.out, "cdf.toml: estimated memory");
  EXPECT_CONTAINS(r.out, "lower workload.duration_us");
}

TEST(MemoryGuard, NormalConfigRunsAndTopoPrintsTheEstimate) {
  const auto t = test::run_lbsim("topo " + std::string(LBSIM_SOURCE_DIR) + "/examples/demo.toml");
  EXPECT_EQ(t.code, 0) << t.out;
  EXPECT_CONTAINS(t.out, "memory estimate of a run: ");
  EXPECT_CONTAINS(t.out, "24 switches, 128 hosts, 256 links");
  EXPECT_CONTAINS(t.out, "memory limit: ");
  const auto r =
      test::run_lbsim("run " + std::string(LBSIM_SOURCE_DIR) + "/examples/demo.toml --set workload.size=64KiB --out " +
                      test::temp_dir("mem-demo") + "/r");
  EXPECT_EQ(r.code, 0) << r.out;
}

// workload.stream prices what a streamed run holds (docs/scale-flows.md): full records for the
// entries in progress (cdf_trace: 4 per sender), and per entry its summary values (FCT and ideal FCT
// in ps and, with several tags, its tag, in growing vectors) and at worst a waiting row and slot index in a window
// doubled when full; the eager run holds a spec, a record and a result row per entry. Ten times the trace adds ten
// times the per-entry part, and the streamed part per entry is under half the eager one.
TEST(MemoryGuard, StreamedTracePricesRecordsInProgressAndCompactRows) {
  const auto at = [](double duration_us, bool stream) {
    auto c = test::small_fat_tree();
    c.set("workload.kind", "cdf_trace");
    c.set("workload.duration_us", duration_us);
    c.set("workload.stream", stream);
    return sim::estimate_memory(c);
  };
  const auto eager = at(1000, false), s1 = at(1000, true), s100 = at(100000, true);
  ASSERT_GT(s1.workload.entries, 1000);
  EXPECT_EQ(s1.workload.in_progress, 128 * 4);
  const double per_record = sizeof(workload::FlowSpec) + sizeof(transport::FlowState) + 160;
  // Per entry the window's slot at worst (doubled when full); the waiting rows in memory: at most
  // 65,536 (the rest on a temporary file); the summary values: one block of metrics::ValueLog whatever
  // the trace (the rest on a temporary file).
  const double per_entry = 2 * 4;
  const double values = metrics::ValueLog::kDefaultMemoryRecords * sizeof(metrics::TransferValues);
  const double rows = std::min(s1.workload.entries, 65536.0) * sizeof(transport::FlowRow);
  ASSERT_LT(s1.workload.entries, 65536);
  EXPECT_DOUBLE_EQ(s1.entries, 512 * per_record + values + rows + s1.workload.entries * per_entry);
  ASSERT_GT(s100.workload.entries, 65536);  // beyond the rows in memory: 8 B per added entry
  EXPECT_NEAR(s100.entries - s1.entries,
              (s100.workload.entries - s1.workload.entries) * per_entry +
                  (65536 - s1.workload.entries) * sizeof(transport::FlowRow),
              1e-3);
  EXPECT_DOUBLE_EQ(eager.entries, eager.workload.entries * (per_record + sizeof(metrics::FlowResult)));
  EXPECT_LT(per_entry * 2, per_record + sizeof(metrics::FlowResult));
  EXPECT_LT(s100.entries, at(100000, false).entries / 10);
}

// Per-PSN state is priced for the PSNs in play (transport/psn_ring.h), not for the messages' PSNs: on
// a 1024-host permutation, 256 MiB and 1 GiB messages (65,536 and 262,144 PSNs each) cost the same,
// 2 x (64 per message + the packets in flight) PSNs, while 64 KiB messages (16 PSNs each) cost their
// own PSNs, fewer than that bound.
TEST(MemoryGuard, PerPsnStateFollowsThePsnsInPlay) {
  auto c = with({{"topology.hosts", std::int64_t{1024}},
                 {"topology.radix", std::int64_t{64}},
                 {"workload.kind", std::string("permutation")},
                 {"workload.size", std::int64_t{256} << 20}});
  const auto big = sim::estimate_memory(c);
  c.set("workload.size", std::int64_t{1} << 30);
  const auto huge = sim::estimate_memory(c);
  EXPECT_DOUBLE_EQ(big.packets_per_entry_state, 2 * (64 * 1024 + big.packets_in_flight));
  EXPECT_DOUBLE_EQ(huge.psn_state, big.psn_state);
  EXPECT_LT(big.psn_state, 1024.0 * 65536 * 12 / 10);  // a tenth of a 12-byte entry per message PSN
  c.set("workload.size", std::int64_t{64} << 10);
  const auto small = sim::estimate_memory(c);
  EXPECT_DOUBLE_EQ(small.packets_per_entry_state, 1024 * 16);
}
