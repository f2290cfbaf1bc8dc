// Whole-simulation tests of the core engine on fat trees (issue: core packet engine).
#include <gtest/gtest.h>

#include <fmt/core.h>

#include "helpers.h"
#include "routing/ecmp.h"
#include "routing/registry.h"
#include "routing/tables.h"

using namespace lbsim;
using lbsim::test::conserved;

namespace {

config::Config one_flow(const std::string& name, int src, int dst, Bytes bytes, const std::string& lb = "ops") {
  auto c = test::small_fat_tree();
  const auto dir = test::temp_dir(name);
  c.set("workload.kind", "flows_csv");
  c.set("workload.file",
        test::write_file(dir + "/flows.csv", fmt::format("src,dst,bytes,start_us\n{},{},{},0\n", src, dst, bytes)));
  c.set("lb.algorithm", lb);
  return c;
}

}  // namespace

// A lone flow's FCT is exactly serialization + propagation + switch latencies (to the picosecond).
// 400 Gb/s: a full 4160-byte packet takes 83,200 ps. Links 500 ns, switches 500 ns.
// The NIC streams packets back to back; a partial last packet trails its predecessor at each later
// hop, so FCT = (n-1)*S_full [NIC] + (h-1)*S_full [later hops of packet n-2] + S_last [last link]
//             + h*500 ns [links] + (h-1)*500 ns [switches].
TEST(Engine, LoneFlowFctIsExact) {
  struct Case {
    int src, dst, hops;
    Bytes bytes;
  };
  const Case cases[] = {
      {0, 1, 2, 100000},    // same ToR: host link, ToR, host link
      {0, 127, 4, 100000},  // across a spine
      {5, 64, 4, 40960},    // exactly 10 full packets
      {3, 100, 4, 1000},    // a single small packet
  };
  for (const auto& k : cases) {
    // ECMP keeps a lone flow on one path; with OPS a shorter last packet may overtake on another
    // spine, so only the FCT (not the order) is the same.
    for (const std::string lb : {"ecmp", "ops"}) {
      auto s = sim::Simulation(one_flow("lone", k.src, k.dst, k.bytes, lb));
      ASSERT_EQ(s.run(), 0);
      const SimTime n = (k.bytes + 4095) / 4096;
      const SimTime last = 64 + k.bytes - (n - 1) * 4096;
      const SimTime s_last = last * 20;  // 20 ps per byte at 400 Gb/s
      const SimTime expect =
          n == 1 ? k.hops * s_last + k.hops * 500'000 + (k.hops - 1) * 500'000
                 : (n - 1) * 83'200 + (k.hops - 1) * 83'200 + s_last + k.hops * 500'000 + (k.hops - 1) * 500'000;
      const auto r = s.flow_results().at(0);
      EXPECT_EQ(r.fct(), expect) << k.src << "->" << k.dst << " " << k.bytes << " B";
      EXPECT_EQ(r.ideal, expect);
      EXPECT_EQ(r.retransmits, 0u);
      if (lb == "ecmp") {
        EXPECT_EQ(r.ooo, 0u);
      }
      EXPECT_TRUE(conserved(s));
    }
  }
}

// k-to-1 incast: the receiver's link is the bottleneck, so the last flow ends near
// k x size x (4160/4096 wire overhead) / 400 Gb/s; trimming turns overflow into NACKs, not losses.
// The 8 initial windows of 1.5 BDP overflow the 1-BDP queue at once; QuickAdapt (SMaRTT, as used by
// Spritz, [Spritz] IV-C) resizes the windows to what was delivered instead of cutting one MTU per
// NACK down to the 1-MTU floor, which the plain per-ACK rule then climbs back slowly.
TEST(Engine, IncastFinishesNearLineRateWithoutLosses) {
  auto c = test::small_fat_tree();
  c.set("transport.quick_adapt", true);
  c.set("workload.kind", "incast");
  c.set("workload.incast_senders", 8);
  c.set("workload.incast_receiver", 0);
  c.set("workload.size", 1 << 20);
  sim::Simulation s(c);
  ASSERT_EQ(s.run(), 0);
  const double bound_us = 8.0 * (1 << 20) * 4160.0 / 4096.0 * 8 / 400e9 * 1e6;  // 170.4 us
  const auto j = s.summary();
  const double max_fct = j["fct_us"]["max"].get<double>();
  EXPECT_GE(max_fct, bound_us);
  EXPECT_LE(max_fct, bound_us * 1.10) << "incast should run the bottleneck near line rate";
  EXPECT_GT(j["ecn_marks"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(j["drops"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(j["timeouts"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(j["retransmits"].get<std::uint64_t>(), j["trims"].get<std::uint64_t>());
  EXPECT_TRUE(conserved(s));

  c.set("transport.quick_adapt", false);  // plain per-ACK DCTCP: still lossless and complete, but slower
  sim::Simulation plain(c);
  ASSERT_EQ(plain.run(), 0);
  const auto jp = plain.summary();
  EXPECT_EQ(jp["drops"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(jp["timeouts"].get<std::uint64_t>(), 0u);
  EXPECT_GT(jp["fct_us"]["max"].get<double>(), max_fct);
  EXPECT_TRUE(conserved(plain));
}

TEST(Engine, EcmpHashSpreadsFlowsAndKeepsEachFlowOnOnePath) {
  auto c = test::small_fat_tree();
  const auto t = topo::build_topology(c);
  routing::MinimalTables tables(t);
  net::NetConfig nc;
  net::Network net(t, nc, 1);
  routing::EcmpRouter r(tables, 1);
  const auto tor0 = t.host_switch(0);
  ASSERT_EQ(tables.candidates(tor0, t.host_switch(127)).size(), 8u);
  std::map<int, int> per_port;
  Rng rng(3, 3);
  const int flows = 8000;
  for (int f = 0; f < flows; ++f) {
    net::Packet p;
    p.src = static_cast<std::int32_t>(rng.below(8));
    p.dst = 64 + static_cast<std::int32_t>(rng.below(64));
    p.flow = static_cast<std::uint32_t>(f);
    p.ev = static_cast<std::uint32_t>(rng.below(1 << 16));
    const int port = r.route(tor0, p);
    ++per_port[port];
    for (int again = 0; again < 3; ++again) ASSERT_EQ(r.route(tor0, p), port);
  }
  ASSERT_EQ(per_port.size(), 8u);
  for (const auto& [port, n] : per_port) {
    // Expected 1000 per port, binomial sd ~ 30: within 15% is about 5 sd.
    EXPECT_NEAR(n, flows / 8, flows / 8 * 0.15) << "port " << port;
  }
}

// The loop's routing hint (net::Router::prefetch_route) names the port that route() then picks, at
// every switch and for every destination (the destination's own ToR: its host port), and the base
// router gives no hint.
TEST(Engine, EcmpRouteHintNamesThePortTheRoutePicks) {
  auto c = test::small_fat_tree();
  const auto t = topo::build_topology(c);
  routing::MinimalTables tables(t);
  routing::EcmpRouter r(tables, 7);
  Rng rng(5, 5);
  int host_ports = 0, multi = 0;
  for (int i = 0; i < 4000; ++i) {
    net::Packet p;
    p.src = static_cast<std::int32_t>(rng.below(static_cast<std::uint64_t>(t.num_hosts)));
    p.dst = static_cast<std::int32_t>(rng.below(static_cast<std::uint64_t>(t.num_hosts)));
    p.flow = static_cast<std::uint32_t>(i);
    p.ev = static_cast<std::uint32_t>(rng.below(1 << 16));
    const std::int32_t node =
        t.switch_node(static_cast<std::int32_t>(rng.below(static_cast<std::uint64_t>(t.num_switches()))));
    EXPECT_EQ(r.prefetch_route(node, p, 0), -1);  // stage 0 only asks the cache
    const std::int32_t hint = r.prefetch_route(node, p, 1);
    ASSERT_EQ(hint, r.route(node, p)) << "switch " << node << " packet " << p.src << " -> " << p.dst;
    if (node == t.host_switch(p.dst)) ++host_ports;
    if (tables.candidates(node, t.host_switch(p.dst)).size() > 1) ++multi;
  }
  EXPECT_GT(host_ports, 0);  // both kinds of hop were checked
  EXPECT_GT(multi, 1000);
  struct Plain : net::Router {
    std::int32_t route(std::int32_t, net::Packet&) override { return 0; }
  } plain;
  net::Packet p;
  EXPECT_EQ(plain.prefetch_route(t.switch_node(0), p, 1), -1);
}

namespace {
// Data packets that left host 0's ToR on each uplink.
std::vector<std::uint64_t> tor0_uplink_packets(sim::Simulation& s) {
  const auto& t = s.topology();
  const auto tor = t.host_switch(0);
  std::vector<std::uint64_t> out;
  for (std::size_t p = 0; p < t.ports[tor].size(); ++p)
    if (!t.is_host(t.ports[tor][p].peer))
      out.push_back(s.network().port(s.network().port_id(tor, static_cast<int>(p))).stats.tx_packets);
  return out;
}
}  // namespace

TEST(Engine, EcmpFlowUsesOneUplinkOpsSpraysOverAll) {
  const Bytes bytes = 2 << 20;  // 512 packets
  {
    sim::Simulation s(one_flow("ecmp1", 0, 127, bytes, "ecmp"));
    ASSERT_EQ(s.run(), 0);
    EXPECT_TRUE(lbsim::test::conserved(s));
    const auto up = tor0_uplink_packets(s);
    int used = 0;
    for (auto n : up) used += n > 0;
    EXPECT_EQ(used, 1);
    EXPECT_EQ(*std::max_element(up.begin(), up.end()), 512u);
    EXPECT_EQ(s.flow_results()[0].ooo, 0u);
  }
  {
    sim::Simulation s(one_flow("ops1", 0, 127, bytes, "ops"));
    ASSERT_EQ(s.run(), 0);
    EXPECT_TRUE(lbsim::test::conserved(s));
    const auto up = tor0_uplink_packets(s);
    std::uint64_t total = 0;
    for (auto n : up) {
      EXPECT_GT(n, 512u / 8 / 2);
      EXPECT_LT(n, 512u / 8 * 2);
      total += n;
    }
    EXPECT_EQ(total, 512u);
  }
}

// Non-oversubscribed fat tree, permutation: OPS stays close to ideal, ECMP suffers hash collisions.
TEST(Engine, PermutationOpsNearIdealEcmpSlower) {
  auto c = test::small_fat_tree();
  c.set("workload.size", 4 << 20);
  c.set("lb.algorithm", "ops");
  sim::Simulation ops(c);
  ASSERT_EQ(ops.run(), 0);
  c.set("lb.algorithm", "ecmp");
  sim::Simulation ecmp(c);
  ASSERT_EQ(ecmp.run(), 0);
  const auto jo = ops.summary(), je = ecmp.summary();
  const double ideal = jo["ideal_fct_us"]["max"].get<double>();
  // Mean slowdown within 15% of ideal. The last flow is later: transient spraying collisions make
  // queues above Kmin and the per-ACK DCTCP (htsim's MPRDMA rule) trims windows ([REPS] 4.3.1).
  EXPECT_LT(jo["slowdown"]["mean"].get<double>(), 1.15);
  EXPECT_LT(jo["fct_us"]["max"].get<double>(), 1.25 * ideal);
  EXPECT_GT(je["fct_us"]["max"].get<double>(), 1.5 * jo["fct_us"]["max"].get<double>());
  EXPECT_GT(je["slowdown"]["mean"].get<double>(), jo["slowdown"]["mean"].get<double>());
  EXPECT_TRUE(conserved(ops));
  EXPECT_TRUE(conserved(ecmp));
  EXPECT_TRUE(jo["conservation"]["ok"].get<bool>());
}

TEST(Engine, SameSeedSameBytesDifferentSeedDifferent) {
  auto c = test::small_fat_tree();
  c.set("workload.size", 256 << 10);
  c.set("output.queue_sample_us", 5);
  auto run = [&](std::int64_t seed, const std::string& name) {
    c.set("run.seed", seed);
    sim::Simulation s(c);
    s.run();
    const auto dir = test::temp_dir(name);
    s.write_outputs(dir);
    auto j = nlohmann::json::parse(test::read_file(dir + "/summary.json"));
    j.erase("perf");  // wall-clock measurements are the only non-deterministic output
    return std::vector<std::string>{test::read_file(dir + "/flows.csv"), test::read_file(dir + "/ports.csv"),
                                    test::read_file(dir + "/queues.csv"), test::read_file(dir + "/config.toml"),
                                    j.dump()};
  };
  const auto a = run(11, "det-a"), b = run(11, "det-b"), d = run(12, "det-c");
  EXPECT_EQ(a, b);
  EXPECT_NE(a[0], d[0]);
  EXPECT_FALSE(a[2].empty());
}

TEST(Engine, UnfinishedFlowsAreReported) {
  auto c = test::small_fat_tree();
  c.set("run.end_us", 10);  // far too short for 8 MiB
  sim::Simulation s(c);
  EXPECT_EQ(s.run(), 3);
  const auto j = s.summary();
  EXPECT_EQ(j["unfinished"].get<std::uint64_t>(), 128u);
  EXPECT_TRUE(conserved(s));
}

TEST(Engine, ThreeTierAndOversubscribedTreesRun) {
  auto c = test::small_fat_tree();
  c.set("topology.tiers", 3);
  c.set("topology.radix", 8);  // 4 hosts/ToR, 4 ToRs/pod, 8 pods
  c.set("workload.size", 256 << 10);
  sim::Simulation s3(c);
  EXPECT_EQ(s3.topology().num_switches(), 32 + 32 + 16);
  ASSERT_EQ(s3.run(), 0);
  EXPECT_TRUE(conserved(s3));
  auto o = test::small_fat_tree();
  o.set("topology.oversubscription", 4);  // 8 hosts, 2 uplinks per ToR
  o.set("workload.kind", "tornado");
  o.set("workload.size", 512 << 10);
  sim::Simulation so(o);
  ASSERT_EQ(so.run(), 0);
  // Tornado sends everything across the spine: 8 hosts share 2 uplinks, so the flows need about
  // 4x their ideal time.
  const auto j = so.summary();
  EXPECT_GT(j["fct_us"]["max"].get<double>(), 3.5 * j["ideal_fct_us"]["max"].get<double>());
  EXPECT_TRUE(conserved(so));
}

TEST(Engine, AckCoalescingStillCompletes) {
  auto c = test::small_fat_tree();
  c.set("workload.size", 1 << 20);
  c.set("transport.ack_every", 4);
  sim::Simulation s(c);
  ASSERT_EQ(s.run(), 0);
  // One ACK per 4 packets (plus a final one and timer flushes): far fewer ACKs than data packets.
  std::uint64_t data = 0;
  for (const auto& r : s.flow_results()) data += r.packets_sent;
  const auto acks = s.network().packets().allocated() - data;
  EXPECT_LT(acks, data / 3);
  EXPECT_GE(acks, data / 4);
  EXPECT_TRUE(conserved(s));
}

// An interrupt requested before or during run() stops it: exit code 130, "interrupted" in the
// summary, nothing lost from what was built; a run without one is not marked.
TEST(Engine, InterruptStopsTheRun) {
  auto c = lbsim::test::small_fat_tree();
  c.set("workload.size", std::int64_t{1} << 20);
  {
    lbsim::sim::Simulation s(c);
    lbsim::sim::request_interrupt();
    EXPECT_EQ(s.run(), 130);
    EXPECT_TRUE(lbsim::test::conserved(s));
    lbsim::sim::clear_interrupt();
    EXPECT_TRUE(s.interrupted());
    const auto j = s.summary();
    EXPECT_TRUE(j["interrupted"].get<bool>());
    EXPECT_EQ(j["unfinished"].get<int>(), 128);
  }
  lbsim::sim::Simulation s(c);
  EXPECT_EQ(s.run(), 0);
  EXPECT_TRUE(lbsim::test::conserved(s));
  EXPECT_FALSE(s.summary()["interrupted"].get<bool>());
}

// output.trims_csv: one row per trimmed data packet, at the port that trimmed it, with the hop of
// the packet's path there. 8-to-1 incast on the 2-tier fat tree (8 hosts per ToR): senders 4-11 to
// host 0, so the initial windows overflow host 0's down port only; a sender under host 0's ToR
// (4-7) reaches it at its first switch (hop 1), the others over ToR, spine, ToR (hop 3). The file
// adds nothing to the run: flows.csv and ports.csv are the same with it off, and then it is absent.
TEST(Engine, TrimsCsvListsEveryTrimAtItsPortAndHop) {
  auto c = test::small_fat_tree();
  c.set("workload.kind", "incast");
  c.set("workload.incast_senders", 8);
  c.set("workload.incast_first_sender", 4);
  c.set("workload.incast_receiver", 0);
  c.set("workload.size", 1 << 20);
  auto run = [&](bool on, const std::string& name) {
    c.set("output.trims_csv", on);
    sim::Simulation s(c);
    EXPECT_EQ(s.run(), 0);
    EXPECT_TRUE(lbsim::test::conserved(s));
    const auto dir = test::temp_dir(name);
    s.write_outputs(dir);
    return std::make_pair(dir, s.summary());
  };
  const auto [dir, j] = run(true, "trims-on");
  const auto trims = j["trims"].get<std::uint64_t>();
  ASSERT_GT(trims, 0u);
  std::istringstream in(test::read_file(dir + "/trims.csv"));
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "time_us,event,node,node_label,port,peer,peer_label,link_kind,hop,flow,src,dst,psn,ev,retransmit");
  std::uint64_t rows = 0, near = 0, far = 0;
  double last = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::istringstream ls(line);
    for (std::string x; std::getline(ls, x, ',');) f.push_back(x);
    ASSERT_EQ(f.size(), 15u) << line;
    ++rows;
    EXPECT_EQ(f[1], "trim");
    EXPECT_EQ(f[5], "0") << "only host 0's down port overflows: " << line;
    EXPECT_EQ(f[7], "host");
    EXPECT_EQ(f[11], "0");
    const int src = std::stoi(f[10]);
    EXPECT_TRUE(src >= 4 && src <= 11) << line;
    EXPECT_EQ(std::stoi(f[8]), src < 8 ? 1 : 3) << line;
    (src < 8 ? near : far) += 1;
    const double t = std::stod(f[0]);
    EXPECT_GE(t, last) << "rows in time order";
    last = t;
  }
  EXPECT_EQ(rows, trims);
  EXPECT_GT(near, 0u);
  EXPECT_GT(far, 0u);
  const auto [off, jo] = run(false, "trims-off");
  EXPECT_FALSE(std::filesystem::exists(off + "/trims.csv"));
  EXPECT_EQ(test::read_file(off + "/flows.csv"), test::read_file(dir + "/flows.csv"));
  EXPECT_EQ(test::read_file(off + "/ports.csv"), test::read_file(dir + "/ports.csv"));
}

// The far prefetch schedule (run.far_prefetch_mib; docs/scale.md "Prefetch distances from the
// working set") changes which lines the event loop asks for early, never what it does. A 256-host
// permutation holds ~2 MiB of packet records and ports at its peak: under the default bound it runs
// with the near schedule throughout, with bound 0 with the far one throughout, and with 1 MiB it
// switches (the bound is checked every 65,536 events, so the first and last events stay near).
// Flows, ports, queues and the summary are the same in all three, lossy and with credit flow control.
TEST(Engine, FarPrefetchScheduleSameResults) {
  auto c = test::small_fat_tree();
  c.set("topology.hosts", 256);
  c.set("topology.radix", 32);
  c.set("workload.size", 1 << 20);
  c.set("output.queue_sample_us", 5);
  struct Out {
    std::vector<std::string> files;
    std::uint64_t events, far;
  };
  auto run = [&](std::int64_t mib) {
    c.set("run.far_prefetch_mib", mib);
    sim::Simulation s(c);
    EXPECT_EQ(s.run(), 0);
    EXPECT_TRUE(lbsim::test::conserved(s));
    const auto dir = test::temp_dir(fmt::format("far-prefetch-{}-{}", c.text("network.flow_control"), mib));
    s.write_outputs(dir);
    auto j = nlohmann::json::parse(test::read_file(dir + "/summary.json"));
    const auto far = j["perf"]["far_prefetch_events"].get<std::uint64_t>();
    j.erase("perf");  // wall-clock measurements and the schedule's count
    return Out{{test::read_file(dir + "/flows.csv"), test::read_file(dir + "/ports.csv"),
                test::read_file(dir + "/queues.csv"), j.dump()},
               j["events"].get<std::uint64_t>(),
               far};
  };
  for (const char* fc : {"lossy", "credit"}) {  // the loop has a lossless instantiation of its own
    c.set("network.flow_control", fc);
    const Out near = run(32), far = run(0);
    EXPECT_GT(near.events, 500'000u) << fc;
    EXPECT_EQ(near.far, 0u) << fc;
    EXPECT_EQ(far.far, far.events) << fc;
    EXPECT_EQ(far.files, near.files) << fc;
    EXPECT_FALSE(near.files[2].empty()) << fc;
    if (std::string(fc) == "lossy") {
      const Out both = run(1);
      EXPECT_GT(both.far, 65'536u);
      EXPECT_LT(both.far, both.events - 65'536u);
      EXPECT_EQ(both.files, near.files);
    }
  }
}
