// Routing scenarios on the [Spritz] Table II networks (examples/spritz/*_table2.toml; issue 4):
// Valiant beats Minimal on the adversarial pattern, Minimal is the fastest at light load, and UGAL-L
// routes minimally on an idle network. Message sizes are cut down so each test stays short; the
// claims follow from link loads, not from the size.
#include <gtest/gtest.h>

#include <fmt/core.h>

#include "../sim/helpers.h"
#include "core/rng.h"
#include "routing/minimal.h"
#include "routing/ecmp.h"
#include "routing/registry.h"
#include "routing/tables.h"
#include "config/reader.h"

using namespace lbsim;

namespace {

config::Config table2(const std::string& name) {
  config::Config c;
  config::load_file(c, std::string(LBSIM_SOURCE_DIR) + "/examples/spritz/" + name + "_table2.toml");
  c.set("run.progress", "off");
  return c;
}

double max_fct_us(sim::Simulation& s) {
  SimTime m = 0;
  for (const auto& r : s.flow_results()) m = std::max(m, r.fct());
  return to_us(m);
}

// Records the switch count of every delivered (untrimmed) data packet.
class HopRecorder final : public net::Router {
 public:
  HopRecorder(net::Router& inner, const topo::Topology& t) : inner_(inner), t_(t) {}
  std::int32_t route(std::int32_t node, net::Packet& p) override {
    const std::int32_t out = inner_.route(node, p);
    if (out >= 0 && p.type == net::PacketType::Data && !p.trimmed() && t_.is_host(t_.ports[node][out].peer))
      seen.push_back({p.src, p.dst, p.hops});
    return out;
  }
  struct Seen {
    std::int32_t src, dst, hops;
  };
  std::vector<Seen> seen;

 private:
  net::Router& inner_;
  const topo::Topology& t_;
};

// `n` flows between random hosts of different switches, 100 us apart: each runs alone.
std::string spaced_flows(const std::string& dir, std::int32_t hosts, std::int32_t per_switch, int n, Bytes bytes) {
  Rng rng(11, hash_name("routing-test"));
  std::string csv = "src,dst,bytes,start_us\n";
  for (int i = 0; i < n; ++i) {
    std::int32_t a, b;
    do {
      a = static_cast<std::int32_t>(rng.below(static_cast<std::uint64_t>(hosts)));
      b = static_cast<std::int32_t>(rng.below(static_cast<std::uint64_t>(hosts)));
    } while (a / per_switch == b / per_switch);
    csv += fmt::format("{},{},{},{}\n", a, b, bytes, 100 * i);
  }
  return test::write_file(dir + "/flows.csv", csv);
}

}  // namespace

// Adversarial pattern ([Spritz] V-B; docs/topologies.md): under minimal routing the Dragonfly
// group shift puts all a*p = 32 flows of a group on its single global link to the next group, and
// the Slim Fly pattern puts 2p = 14 flows on every loaded link, so the last flow cannot finish before
// 32 (14) x 128 KiB x 4160/4096 / 400 Gb/s = 85.2 (37.3) us. Valiant spreads the flows over the
// intermediate groups / switches and must beat that bound by 2x; minimal must respect it.
TEST(RoutingScenarios, ValiantBeatsMinimalOnAdversarial) {
  const Bytes bytes = 128 << 10;
  const double per_flow_us = static_cast<double>(bytes) * 4160.0 / 4096.0 * 8 / 400e9 * 1e6;
  for (const auto& [name, sharing] : {std::pair{"dragonfly", 32}, std::pair{"slim_fly", 14}}) {
    double fct[2] = {0, 0};
    int i = 0;
    for (const std::string alg : {"minimal", "valiant"}) {
      auto c = table2(name);
      c.set("workload.kind", "adversarial");
      c.set("workload.size", bytes);
      c.set("routing.algorithm", alg);
      sim::Simulation s(c);
      ASSERT_EQ(s.run(), 0) << name << " " << alg;
      EXPECT_TRUE(test::conserved(s));
      fct[i++] = max_fct_us(s);
    }
    const double bound = sharing * per_flow_us;
    EXPECT_GE(fct[0], bound) << name << ": minimal max FCT";
    EXPECT_LT(fct[1], bound / 2) << name << ": valiant max FCT";
    EXPECT_LT(fct[1], fct[0] / 2) << name;
  }
}

// Light load (one 16 KiB message at a time): Minimal's FCT is the lowest of every routing, exactly
// the sum over its route of serialization + propagation per link plus 500 ns per switch, and UGAL-L
// (whose queues are all empty) takes the same route, so its FCT is identical.
TEST(RoutingScenarios, MinimalFastestAtLightLoadAndUgalStaysMinimal) {
  const Bytes bytes = 16 << 10;  // 4 packets, streamed back to back
  for (const auto& [name, per_switch] : {std::pair{"dragonfly", 4}, std::pair{"slim_fly", 7}}) {
    std::map<std::string, std::vector<SimTime>> fct;
    for (const std::string alg : {"minimal", "ugal_l", "valiant", "ecmp_paths"}) {
      auto c = table2(name);
      const auto dir = test::temp_dir(std::string("routing-light-") + name);
      c.set("workload.kind", "flows_csv");
      const auto probe = topo::build_topology(c);
      c.set("workload.file", spaced_flows(dir, probe.num_hosts, per_switch, 20, bytes));
      c.set("routing.algorithm", alg);
      c.set("lb.algorithm", "ecmp");  // one EV per flow: ecmp_paths keeps each flow on one path
      sim::Simulation s(c);
      const auto& t = s.topology();
      routing::MinimalTables mt(t);
      auto inner = routing::make_router(routing::RoutingContext{c, mt, s.network(), 1});
      HopRecorder rec(*inner, t);
      s.network().set_router(&rec);
      ASSERT_EQ(s.run(), 0) << name << " " << alg;
      EXPECT_TRUE(lbsim::test::conserved(s));
      for (const auto& r : s.flow_results()) fct[alg].push_back(r.fct());
      if (alg == "minimal" || alg == "ugal_l") {
        // Every data packet took the minimal route: switches = minimal distance + 1.
        routing::MinimalRoutes mr(t);
        ASSERT_EQ(rec.seen.size(), 20u * 4u);
        for (const auto& x : rec.seen)
          EXPECT_EQ(x.hops, mr.distance(t.host_switch(x.src), t.host_switch(x.dst)) + 1) << name << " " << alg;
      }
      if (alg == "minimal") {
        // Exact FCT along the l-g-l / min-hop route: 3 full packets then the 64 B + 4096 B last one,
        // all 4160 B: (n - 1 + links) x 83.2 ns + link latencies + 500 ns per switch.
        routing::MinimalRoutes mr(t);
        const auto rs = s.flow_results();
        for (std::size_t i = 0; i < rs.size(); ++i) {
          const auto& f = rs[i];
          std::int32_t node = t.host_switch(f.src);
          const std::int32_t dsw = t.host_switch(f.dst);
          SimTime lat = t.links[t.ports[f.src][0].link].latency + t.links[t.ports[f.dst][0].link].latency;
          std::int32_t links = 2, switches = 1;
          while (node != dsw) {
            const auto port = mr.candidates(node, dsw)[0];
            lat += t.links[t.ports[node][port].link].latency;
            node = t.ports[node][port].peer;
            ++links;
            ++switches;
          }
          EXPECT_EQ(f.fct(), (3 + links) * 83'200 + lat + switches * 500'000) << name << " flow " << i;
        }
      }
    }
    for (std::size_t i = 0; i < fct["minimal"].size(); ++i) {
      EXPECT_EQ(fct["ugal_l"][i], fct["minimal"][i]) << name << " flow " << i;
      EXPECT_LE(fct["minimal"][i], fct["valiant"][i]) << name << " flow " << i;
      EXPECT_LE(fct["minimal"][i], fct["ecmp_paths"][i]) << name << " flow " << i;
    }
    // Valiant detours: on average clearly slower than minimal at light load.
    double sm = 0, sv = 0;
    for (std::size_t i = 0; i < fct["minimal"].size(); ++i) {
      sm += static_cast<double>(fct["minimal"][i]);
      sv += static_cast<double>(fct["valiant"][i]);
    }
    EXPECT_GT(sv, 1.2 * sm) << name;
  }
}

// Loaded permutation (receivers outside the group, [Spritz] V-B): UGAL-L does leave the minimal
// route once queues build, and every routing delivers everything.
TEST(RoutingScenarios, PermutationCompletesAndUgalAdapts) {
  for (const std::string alg : {"minimal", "valiant", "ugal_l", "ecmp_paths"}) {
    auto c = table2("dragonfly");
    c.set("workload.size", 64 << 10);
    c.set("routing.algorithm", alg);
    sim::Simulation s(c);
    const auto& t = s.topology();
    routing::MinimalTables mt(t);
    auto inner = routing::make_router(routing::RoutingContext{c, mt, s.network(), 1});
    HopRecorder rec(*inner, t);
    s.network().set_router(&rec);
    ASSERT_EQ(s.run(), 0) << alg;
    EXPECT_TRUE(test::conserved(s));
    routing::MinimalRoutes mr(t);
    std::size_t longer = 0;
    for (const auto& x : rec.seen) longer += x.hops > mr.distance(t.host_switch(x.src), t.host_switch(x.dst)) + 1;
    if (alg == "minimal") {
      EXPECT_EQ(longer, 0u);
    } else {
      EXPECT_GT(longer, 0u) << alg;
    }
  }
}

// network.bdp_path = "longest_bounded" ([Spritz] V-A: BDP "calculated based on the longest path";
// Table II: 88 packets DF, 92 SF). Our RTT model on the longest bounded path, from Table I:
//   Dragonfly 3 local + 2 global hops (1491.0 ns incl. serialization) + 2 host links (2 x 108.2 ns)
//     + 6 switches x 500 ns = 4707.4 ns for the data packet; the 64 B ACK back over the same 7 links:
//     3 x 25 + 2 x 500 + 2 x 25 = 1125 ns propagation + 7 x 1.28 ns + 3000 ns = 4133.96 ns.
//     RTT 8841.36 ns x 400 Gb/s = 442,068 B = 106.3 -> 107 packets of 4160 B.
//   Slim Fly 4 global hops (2332.8 ns) + 2 host links (216.4 ns) + 5 switches (2500 ns) = 5049.2 ns;
//     ACK 2050 ns + 6 x 1.28 ns + 2500 ns = 4557.68 ns. RTT 9606.88 ns = 480,344 B -> 116 packets.
// The paper's 88 / 92 are not reproduced by this model; "longest_bounded_minimal_ack" (below) does.
// The default (longest shortest path) stays 79 / 66.
TEST(RoutingScenarios, BdpFromLongestBoundedPath) {
  struct Case {
    const char* name;
    SimTime rtt;
    Bytes bdp;
    std::uint32_t pkts, shortest_pkts;
  };
  for (const auto& k :
       {Case{"dragonfly", 8'841'360, 442'068, 107, 79}, Case{"slim_fly", 9'606'880, 480'344, 116, 66}}) {
    auto c = table2(k.name);
    c.set("workload.kind", "flows_csv");
    const auto dir = test::temp_dir(std::string("routing-bdp-") + k.name);
    c.set("workload.file", test::write_file(dir + "/flows.csv", "src,dst,bytes,start_us\n0,100,4096,0\n"));
    // The example configs set Table II's bdp_path and queue_packets; the queue of one BDP here.
    c.set("network.queue_packets", 0);
    c.set("network.bdp_path", "shortest");
    EXPECT_EQ(sim::Simulation(c).derived().bdp_packets, k.shortest_pkts) << k.name;
    c.set("network.bdp_path", "longest_bounded");
    sim::Simulation s(c);
    EXPECT_EQ(s.derived().base_rtt, k.rtt) << k.name;
    EXPECT_EQ(s.derived().bdp, k.bdp) << k.name;
    EXPECT_EQ(s.derived().bdp_packets, k.pkts) << k.name;
    EXPECT_EQ(s.derived().queue_bytes, k.bdp) << k.name;  // queue_bdp = 1
  }
}

// network.bdp_path = "longest_bounded_minimal_ack": the data packet over the longest bounded path
// (as above), the 64 B ACK back over the pair's longest minimal path - the one reading of
// scripts/spritz_table2_queue.py that gives Table II's 88 / 92 packets:
//   Dragonfly: data 4707.4 ns; ACK local-global-local + 2 host links: 2 x 25 + 2 x 25 + 500 = 600 ns
//     + 5 x 1.28 ns + 4 switches x 500 ns = 2606.4 ns. RTT 7313.8 ns = 365,690 B = 87.9 -> 88 packets.
//   Slim Fly: data 5049.2 ns; ACK 2 global hops + 2 host links: 1050 ns + 4 x 1.28 ns + 3 x 500 ns =
//     2555.12 ns. RTT 7604.32 ns = 380,216 B = 91.4 -> 92 packets.
TEST(RoutingScenarios, BdpTable2DataLongestAckMinimal) {
  struct Case {
    const char* name;
    SimTime rtt;
    Bytes bdp;
    std::uint32_t pkts;
  };
  for (const auto& k : {Case{"dragonfly", 7'313'800, 365'690, 88}, Case{"slim_fly", 7'604'320, 380'216, 92}}) {
    auto c = table2(k.name);
    c.set("workload.kind", "flows_csv");
    const auto dir = test::temp_dir(std::string("routing-bdp2-") + k.name);
    c.set("workload.file", test::write_file(dir + "/flows.csv", "src,dst,bytes,start_us\n0,100,4096,0\n"));
    c.set("network.queue_packets", 0);
    c.set("network.bdp_path", "longest_bounded_minimal_ack");
    sim::Simulation s(c);
    EXPECT_EQ(s.derived().base_rtt, k.rtt) << k.name;
    EXPECT_EQ(s.derived().bdp, k.bdp) << k.name;
    EXPECT_EQ(s.derived().bdp_packets, k.pkts) << k.name;
    EXPECT_EQ(s.derived().queue_bytes, k.bdp) << k.name;  // queue_bdp = 1: 88 / 92 full packets
    // queue_bdp = 1 holds 87.9 / 91.4 packets: the Spritz examples set queue_packets = 88 / 92.
    EXPECT_EQ(s.derived().queue_bytes / s.derived().packet_bytes, k.pkts - 1) << k.name;
    // The example configs as they are: Table II's 88 / 92 full packets.
    EXPECT_EQ(sim::Simulation(table2(k.name)).derived().queue_bytes, k.pkts * 4160) << k.name;
  }
}
