// LAPS as its authors ran it (wany16/Laps-ns3 at 4a4be642; docs/laps.md): the artifact's sender
// (lb.laps_sender = "artifact": not paced, its own window), its rate rule (lb.laps_rate_rule = "ns3"),
// its probing (lb.laps_probe_rule = "artifact"), the baselines' next hops over the union of the
// candidate paths (routing.next_hops = "candidates") and the load rule of its traffic generator
// (workload.load_rule = "laps_artifact").
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <tuple>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "../sim/helpers.h"
#include "lb/laps.h"
#include "routing/candidate_hops.h"
#include "routing/source_route.h"
#include "routing/tables.h"
#include "sim/simulation.h"
#include "topo/registry.h"
#include "workload/registry.h"

using namespace lbsim;

namespace {

// The artifact's Rail (8 x 8, 200 Gb/s GPU links, 100 Gb/s elsewhere, 1 us per link).
config::Config rail200(int nodes = 8, int gpus = 8) {
  config::Config c;
  c.set("topology.kind", "rail");
  c.set("topology.rail_nodes", nodes);
  c.set("topology.rail_gpus", gpus);
  c.set("topology.link_rate_gbps", 100);
  c.set("topology.rail_host_rate_gbps", 200);
  c.set("topology.host_latency_ns", 1000);
  c.set("topology.global_latency_ns", 1000);
  c.set("topology.nvlink_latency_ns", 1000);
  c.set("network.mtu", 1000);
  c.set("network.header_bytes", 48);
  c.set("network.switch_latency_ns", 0);
  c.set("routing.source_paths", "rail");
  c.set("run.progress", "off");
  return c;
}

config::Config laps_artifact(config::Config c) {
  c.set("routing.algorithm", "source_route");
  c.set("lb.algorithm", "laps");
  c.set("lb.laps_sender", "artifact");
  c.set("lb.laps_header", "none");
  c.set("lb.laps_min_rate_gbps", 1.0);
  c.set("transport.cc", "none");
  c.set("transport.cwnd_packets", 1000);
  c.set("transport.ack_every", 1);
  return c;
}

std::string flows_file(const std::string& name, const std::vector<std::tuple<int, int, long, double>>& flows) {
  const auto dir = test::temp_dir(name);
  std::string csv = "src,dst,bytes,start_us\n";
  for (const auto& [s, d, b, t] : flows) csv += fmt::format("{},{},{},{}\n", s, d, b, t);
  return test::write_file(dir + "/flows.csv", csv);
}

// A LAPS policy on given candidate paths, outside a simulation.
struct Bench {
  lb::CandidateSet set;
  std::shared_ptr<lb::LapsShared> sh = std::make_shared<lb::LapsShared>();
  std::int64_t cwnd = 1000;  // transport.cwnd_packets
  std::unique_ptr<lb::LapsPolicy> make(std::vector<SimTime> base, std::vector<SimTime> theoretical, double rate_bps,
                                       bool artifact, std::uint64_t seed = 1) {
    set.base_latency = std::move(base);
    set.theoretical = std::move(theoretical);
    set.anchors.assign(set.base_latency.size(), 1);
    sh->p.beta = 1.0;
    sh->p.header = false;
    sh->p.min_rate_bps = 1e9;
    if (artifact) {
      sh->p.sender = lb::LapsSender::Artifact;
      sh->p.rate_rule = lb::LapsRateRule::Ns3;
      sh->p.probe_artifact = true;
      sh->p.spray_all = true;
      sh->p.transport_cwnd_packets = cwnd;
    }
    lb::PolicyContext ctx;
    ctx.src = 0;
    ctx.dst = 1;
    ctx.hosts = 2;
    ctx.host_rate_bps = rate_bps;
    ctx.pair_paths = &set;
    ctx.rng = Rng(seed, hash_name("laps-artifact-test"));
    return std::make_unique<lb::LapsPolicy>(std::move(ctx), sh);
  }
};

lb::AckDetail ack(std::uint32_t ev, SimTime one_way, SimTime now, bool probe = false) {
  lb::AckDetail a;
  a.ev = ev;
  a.one_way = one_way;
  a.now = now;
  a.probe = probe;
  return a;
}

lb::SendView inflight(Bytes b) {
  lb::SendView v;
  v.inflight = b;
  return v;
}

}  // namespace

// The artifact's window: 2 x T x the NIC rate of payload, T = the pair's largest theoretical latency
// in whole ns (AddQueuePairForLaps). Paths of 9,257.6 and 6,912 ns at 200 Gb/s: 2 x 9,257 ns x
// 25 B/ns = 462,850 B. The sender holds (until an ACK) only when the payload in flight plus one more
// full packet would pass it: 462 full packets of 1000 B fit, the 463rd does not.
TEST(LapsArtifact, WindowIsTwiceTTimesTheNicRate) {
  Bench b;
  auto pol = b.make({from_ns(8586.88), from_ns(6414)}, {from_ns(9257.6), from_ns(6912)}, 200e9, true);
  EXPECT_EQ(pol->artifact_window(), 462850);
  const Bytes wire = 1048;
  EXPECT_EQ(pol->hold(us(1), inflight(461 * wire)), lb::kSendNow);  // the 462nd packet fits
  EXPECT_EQ(pol->hold(us(1), inflight(462 * wire)), kTimeNever);    // the 463rd would not
  EXPECT_EQ(pol->hold(us(1), inflight(0)), lb::kSendNow);
  // The paper's sender has no window of its own (the transport's applies).
  Bench p;
  auto paper = p.make({from_ns(8586.88)}, {from_ns(9257.6)}, 200e9, false);
  EXPECT_EQ(paper->artifact_window(), 0);
  EXPECT_EQ(paper->hold(us(1), inflight(10000 * wire)), lb::kSendNow);
}

// The transport's window must not bind before LAPS's: a config whose cwnd_packets is below the
// LAPS window is an error naming the key.
TEST(LapsArtifact, TransportWindowBelowLapsWindowIsAnError) {
  for (const std::int64_t cwnd : {0, 461, 462}) {
    Bench b;
    b.cwnd = cwnd;
    if (cwnd < 462)
      EXPECT_THROW(b.make({from_ns(8586.88)}, {from_ns(9257.6)}, 200e9, true), UserError) << cwnd;
    else
      EXPECT_EQ(b.make({from_ns(8586.88)}, {from_ns(9257.6)}, 200e9, true)->artifact_window(), 462850);
  }
}

// Not paced: after every packet the next may go at once, whatever curRate is. A rate change moves
// the next send time once, by the last packet's time at the new rate minus at the old (in whole ns,
// as ns-3's Time): 100 -> 50 Gb/s after a 1048 B packet: 168 - 84 = +84 ns; the packet after it
// goes without a gap again.
TEST(LapsArtifact, NeverWaitsOnItsRate) {
  Bench b;
  auto pol = b.make({us(5), us(8)}, {from_ns(5500), from_ns(8500)}, 100e9, true);
  SimTime now = us(10);
  for (int k = 0; k < 50; ++k) {
    ASSERT_EQ(pol->hold(now, inflight(k * 1048)), lb::kSendNow) << k;
    pol->on_sent(static_cast<std::uint32_t>(k), pol->next_ev(now), now, 1048);
  }
  // Every path above T = 8.5 us: a decrease (the first ACK may adjust: the timers start at 0).
  pol->on_ack_detail(ack(0, us(9), now));
  pol->on_ack_detail(ack(1, us(9), now));
  ASSERT_EQ(pol->rate().decreases(), 1u);
  EXPECT_DOUBLE_EQ(pol->rate().rate(), 50e9);
  EXPECT_EQ(pol->hold(now, inflight(0)), now + from_ns(84));  // 1048 B: 167.68 -> 168 ns, 83.84 -> 84 ns
  now += from_ns(84);
  EXPECT_EQ(pol->hold(now, inflight(0)), lb::kSendNow);
  pol->on_sent(50, pol->next_ev(now), now, 1048);
  EXPECT_EQ(pol->hold(now, inflight(1048)), lb::kSendNow) << "at 50 Gb/s the paper's sender would wait 167.68 ns";
  // The paper's sender paces: the next packet 1048 B at curRate later.
  Bench p;
  auto paper = p.make({us(5), us(8)}, {from_ns(5500), from_ns(8500)}, 100e9, false);
  paper->on_sent(0, paper->next_ev(us(10)), us(10), 1048);
  EXPECT_EQ(paper->hold(us(10), inflight(1048)), us(10) + from_ns(83.84));
}

// The rate rule at 4a4be642, step by step (line 100 Gb/s, minimum 1 Gb/s, N = 5; T = 10 us).
TEST(LapsArtifact, Ns3RateRuleSteps) {
  const SimTime T = us(10);
  lb::LapsRate r(100e9, 1e9, 5);
  // Decrease: timer 2 x the largest current latency (here 12 us: next allowed strictly after 25 us).
  EXPECT_EQ(r.update_ns3(us(1), true, us(12), T), -1);
  EXPECT_DOUBLE_EQ(r.rate(), 50e9);
  EXPECT_DOUBLE_EQ(r.expected(), 100e9);
  EXPECT_EQ(r.update_ns3(us(25), true, us(12), T), 0);
  EXPECT_EQ(r.update_ns3(us(25) + 1, true, us(30), T), -1);  // the next one waits 60 us
  EXPECT_DOUBLE_EQ(r.rate(), 25e9);
  EXPECT_DOUBLE_EQ(r.expected(), 50e9);
  EXPECT_EQ(r.update_ns3(us(80), true, us(30), T), 0);
  // Increases have their own timer of 2T: max(cur + 1 Gb/s, (cur + exp) / 2), then exp >= cur.
  SimTime t = us(26);
  EXPECT_EQ(r.update_ns3(t, false, us(9), T), 1);
  EXPECT_DOUBLE_EQ(r.rate(), 37.5e9);
  EXPECT_EQ(r.update_ns3(t + us(20), false, us(9), T), 0);  // not strictly after now + 2T
  double cur = 37.5e9, exp = 50e9;
  for (int k = 2; k <= 6; ++k) {  // increases 2..6: no doubling yet (the count must exceed N = 5)
    t += us(20) + 1;
    ASSERT_EQ(r.update_ns3(t, false, us(9), T), 1) << k;
    cur = std::max(cur + 1e9, (cur + exp) / 2);
    exp = std::max(exp, cur);  // curRate may pass expRate by the 1 Gb/s step: expRate follows
    EXPECT_DOUBLE_EQ(r.rate(), cur) << k;
    EXPECT_DOUBLE_EQ(r.expected(), exp) << k;
  }
  EXPECT_EQ(r.hyper_phases(), 0u);
  for (int k = 7; k <= 8; ++k) {  // from the 7th on every increase doubles exp (its reset is commented out)
    t += us(20) + 1;
    ASSERT_EQ(r.update_ns3(t, false, us(9), T), 1) << k;
    exp = std::min(100e9, exp * 2);
    cur = std::min(100e9, std::max(cur + 1e9, (cur + exp) / 2));
    exp = std::max(exp, cur);
    EXPECT_DOUBLE_EQ(r.expected(), exp) << k;
    EXPECT_DOUBLE_EQ(r.rate(), cur) << k;
  }
  EXPECT_EQ(r.hyper_phases(), 1u);
  // A decrease restarts the count; the minimum is 1 Gb/s.
  lb::LapsRate low(100e9, 1e9, 5);
  SimTime u = us(1);
  for (int k = 0; k < 10; ++k, u += us(100)) low.update_ns3(u, true, us(10), T);
  EXPECT_DOUBLE_EQ(low.rate(), 1e9);
  // From the minimum an increase adds at least 1 Gb/s.
  EXPECT_EQ(low.update_ns3(u, false, us(10), T), 1);
  EXPECT_DOUBLE_EQ(low.rate(), 2e9);
}

// The artifact's probing (rdma-smartflow-routing.cc get_the_expired_paths / get_the_probe_paths):
// a path not measured for more than 2 x the pair's largest realVal and with nothing sent on it for
// more than 2 x the largest realVal of the expired paths; one of them at random.
TEST(LapsArtifact, ProbeChoiceFollowsTheCode) {
  std::vector<lb::PitEntry> pit(3);
  for (auto& e : pit) e.real = us(5);
  pit[2].real = us(8);  // the largest: expiry after 16 us
  const auto first = [](std::size_t) { return std::size_t{0}; };
  // All measured at 0: nothing expired before 16 us.
  EXPECT_EQ(lb::ArtifactProbe::choose(pit, us(16), first), -1);
  // At 17 us all three are expired; path 1 had a packet at 10 us (7 us ago < 2 x 8 us): not probed.
  pit[1].last_sent = us(10);
  const auto p = lb::ArtifactProbe::choose(pit, us(17), first);
  EXPECT_EQ(p, 0);  // candidates {0, 2}: `first` takes 0
  EXPECT_EQ(lb::ArtifactProbe::choose(pit, us(17), [](std::size_t n) { return n - 1; }), 2);
  // A measurement at 15 us keeps path 0 fresh until 31 us.
  pit[0].time = us(15);
  EXPECT_EQ(lb::ArtifactProbe::choose(pit, us(17), first), 2);
  // The probe threshold is 2 x the largest realVal of the expired paths only: with path 2 fresh,
  // path 0 (expired at 40 us, realVal 5) is probed when nothing went on it for more than 10 us.
  pit[2].time = us(39);
  pit[0].time = us(0);
  pit[1].time = us(39);
  pit[0].last_sent = us(31);
  EXPECT_EQ(lb::ArtifactProbe::choose(pit, us(40), first), -1);  // 9 us since the last packet
  pit[0].last_sent = us(29);
  EXPECT_EQ(lb::ArtifactProbe::choose(pit, us(40), first), 0);  // 11 us > 2 x 5 us
}

// In the policy: at most one probe per data packet, sent on a path other than the data packet's
// (the chosen path counts as sent on first), realVal unchanged and the path still in Eq. 1.
TEST(LapsArtifact, AtMostOneProbePerPacketPathStaysInTheSoftmax) {
  Bench b;
  auto pol = b.make({us(4), us(5), us(6), us(8)}, {us(5), us(6), us(7), us(9)}, 100e9, true);
  b.sh->p.probing = true;
  SimTime now = us(100);  // every path expired (never measured) and idle
  std::uint64_t probes = 0;
  for (int k = 0; k < 200; ++k, now += 10) {
    const auto ev = pol->next_ev(now);
    std::uint32_t pev = 0;
    int n = 0;
    while (pol->take_probe(pev, now)) {
      ++n;
      EXPECT_NE(pev, ev);
    }
    EXPECT_LE(n, 1) << k;
    probes += static_cast<std::uint64_t>(n);
  }
  // Every path got a data packet or a probe within the first packets, none again within 2 x 8 us.
  EXPECT_GE(probes, 1u);
  EXPECT_LE(probes, 3u);
  std::vector<double> d;
  std::vector<char> valid;
  pol->inputs(d, valid);
  for (std::size_t i = 0; i < d.size(); ++i) {
    EXPECT_TRUE(valid[i]) << i;
    EXPECT_DOUBLE_EQ(d[i], static_cast<double>(b.set.base_latency[i]) / static_cast<double>(us(8))) << i;
  }
  // A probe's answer refreshes realVal and adjusts no rate (the code adjusts on data ACKs only).
  pol->on_ack_detail(ack(3, us(20), now, true));
  EXPECT_EQ(pol->rate().decreases() + pol->rate().increases(), 0u);
  pol->inputs(d, valid);
  EXPECT_DOUBLE_EQ(d[3], 20.0 / 8.0);
}

// In a simulation: a lone 2 MB flow on the artifact's Rail (200 Gb/s GPU link, two 100 Gb/s paths
// out of its NIC switch) with the artifact's sender finishes faster than one 100 Gb/s path allows
// (it sprays over both at the NIC's 200 Gb/s, nothing paces it), and never holds more than its
// window in flight.
TEST(LapsArtifact, LoneFlowUsesBothPathsOutOfTheNicSwitch) {
  auto c = laps_artifact(rail200());
  c.set("workload.kind", "flows_csv");
  c.set("workload.file", flows_file("laps-artifact-lone", {{0, 9, 2000000, 0.0}}));
  c.set("output.laps_trace", true);
  sim::Simulation s(c);
  ASSERT_EQ(s.run(), 0);
  const auto f = s.flow_results().at(0);                 // a copy: flow_results() returns by value
  const double one_path_us = 2000.0 * 1048 * 8 / 100e3;  // 2000 packets at 100 Gb/s: 167.7 us
  EXPECT_GT(f.fct(), 0);
  EXPECT_LT(to_us(f.fct()), one_path_us * 0.8);
  const auto j = s.summary();
  EXPECT_EQ(j["laps"]["sender"], "artifact");
  EXPECT_EQ(j["laps"]["rate_rule"], "ns3");
  EXPECT_EQ(j["laps"]["probe_rule"], "artifact");
}

// The baselines' next hops (routing.next_hops = "candidates") are, at every switch, the union of the
// out ports of the pair's candidate paths through it, and every hop-by-hop walk over them reaches
// the destination switch. On Rail 64 from GPU 0.0 to GPU 1.0: the NIC switch offers rail 0 and the
// NVLink switch, the NVLink switch the seven other NIC switches of cluster 0, each of those its own
// rail, each far NIC switch its NVLink switch, which offers NIC 1.0: 8 paths, 7 of them 8 links.
TEST(LapsArtifact, NextHopsAreTheUnionOfTheCandidatesNextHops) {
  for (const bool dragonfly : {false, true}) {
    auto c = rail200();
    if (dragonfly) {
      c.set("topology.kind", "dragonfly");
      c.set("topology.a", 4);
      c.set("topology.p", 4);
      c.set("topology.h", 2);
      c.set("routing.source_paths", "dragonfly");
    }
    const auto topo = topo::build_topology(c);
    routing::MinimalTables mt(topo);
    routing::CandidateUnionHops hops(mt, dragonfly ? routing::PathRule::Dragonfly : routing::PathRule::Rail, 8, 0,
                                     1048);
    routing::CandidatePaths paths(mt, dragonfly ? routing::PathRule::Dragonfly : routing::PathRule::Rail, 8, 0, 1048);
    std::size_t pairs = 0, longer = 0;
    for (std::int32_t a = topo.num_hosts; a < topo.size(); ++a)
      for (std::int32_t b = topo.num_hosts; b < topo.size(); ++b) {
        if (topo.hosts_of(a).empty() || topo.hosts_of(b).empty() || a == b) continue;
        ++pairs;
        std::map<std::int32_t, std::set<std::int16_t>> expect;
        for (const auto& p : paths.paths(a, b))
          for (std::size_t i = 0; i + 1 < p.nodes.size(); ++i) expect[p.nodes[i]].insert(p.out_ports[i]);
        for (std::int32_t n = topo.num_hosts; n < topo.size(); ++n) {
          const auto got = hops.ports(n, a, b);
          const std::set<std::int16_t> g(got.begin(), got.end());
          const auto it = expect.find(n);
          ASSERT_EQ(g, it == expect.end() ? std::set<std::int16_t>{} : it->second) << a << "->" << b << " at " << n;
        }
        // Every walk ends at b: count the walks and their lengths by depth-first enumeration.
        std::vector<std::pair<std::int32_t, int>> stack{{a, 0}};
        while (!stack.empty()) {
          const auto [n, len] = stack.back();
          stack.pop_back();
          ASSERT_LT(len, 16);
          if (n == b) {
            longer += len > static_cast<int>(mt.distance(a, b));
            continue;
          }
          const auto ps = hops.ports(n, a, b);
          ASSERT_FALSE(ps.empty()) << "a walk stopped at " << n;
          for (auto port : ps) stack.emplace_back(topo.ports[n][port].peer, len + 1);
        }
      }
    EXPECT_GT(pairs, 0u);
    EXPECT_GT(longer, 0u) << "some walks are longer than the shortest path";
  }
  // The worked example on Rail 64.
  const auto topo = topo::build_topology(rail200());
  routing::MinimalTables mt(topo);
  routing::CandidateUnionHops hops(mt, routing::PathRule::Rail, 8, 0, 1048);
  const auto nic = [&](int c, int g) { return topo.switch_node(c * 8 + g); };
  const auto nvl = [&](int c) { return topo.switch_node(64 + c); };
  const auto peers = [&](std::int32_t n) {
    std::set<std::int32_t> s;
    for (auto p : hops.ports(n, nic(0, 0), nic(1, 0))) s.insert(topo.ports[n][p].peer);
    return s;
  };
  EXPECT_EQ(peers(nic(0, 0)), (std::set<std::int32_t>{nvl(0), topo.switch_node(72)}));
  std::set<std::int32_t> others;
  for (int g = 1; g < 8; ++g) others.insert(nic(0, g));
  EXPECT_EQ(peers(nvl(0)), others);
  EXPECT_EQ(peers(nic(0, 3)), (std::set<std::int32_t>{topo.switch_node(72 + 3)}));
  EXPECT_EQ(peers(nic(1, 3)), (std::set<std::int32_t>{nvl(1)}));
  EXPECT_EQ(peers(nvl(1)), (std::set<std::int32_t>{nic(1, 0)}));
  // Shortest-path ECMP has only rail 0 there.
  EXPECT_EQ(mt.candidates(nic(0, 0), nic(1, 0)).size(), 1u);
}

// In a run: ECMP flows between GPUs of equal index cross NVLink links only with the artifact's next
// hops (their shortest path is the one rail); ACKs included, every packet arrives.
TEST(LapsArtifact, EcmpOverTheUnionTakesTheNonMinimalPaths) {
  const auto nvlink_bytes = [](const std::string& next_hops) {
    auto c = rail200();
    c.set("routing.algorithm", "ecmp");
    c.set("routing.next_hops", next_hops);
    c.set("lb.algorithm", "ecmp");
    c.set("workload.kind", "flows_csv");
    std::vector<std::tuple<int, int, long, double>> flows;
    for (int k = 0; k < 32; ++k) flows.emplace_back(8 * (k % 8), 8 * ((k + 1) % 8), 20000, 0.5 * k);
    c.set("workload.file", flows_file("laps-artifact-ecmp-" + next_hops, flows));
    sim::Simulation s(c);
    EXPECT_EQ(s.run(), 0);
    for (const auto& f : s.flow_results()) EXPECT_GT(f.fct(), 0);
    double nv = 0;
    const auto& t = s.topology();
    for (std::int32_t n = 0; n < t.size(); ++n)
      for (std::int32_t k = 0; k < static_cast<std::int32_t>(t.ports[n].size()); ++k)
        if (t.links[t.ports[n][k].link].kind == topo::LinkKind::Local)
          nv += static_cast<double>(s.network().port(s.network().port_id(n, k)).stats.tx_bytes);
    return nv;
  };
  EXPECT_EQ(nvlink_bytes("shortest"), 0.0);
  EXPECT_GT(nvlink_bytes("candidates"), 0.0);
}

// routing.next_hops = "candidates" is read by ecmp and letflow only; another router is told so.
TEST(LapsArtifact, NextHopsKeyOnOtherRoutersIsAnError) {
  auto c = rail200();
  c.set("routing.algorithm", "minimal");
  c.set("routing.next_hops", "candidates");
  c.set("workload.kind", "permutation");
  EXPECT_THROW(sim::Simulation s(c), UserError);
}

// The artifact's load rule: a sender offers load x pair_load_factor x (hosts - 1) of its NIC rate,
// divided by 100 for a CDF file in percent (its avg_cdf is 100 x the mean). Flows of exactly 1000 B
// on the Rail (64 GPUs at 200 Gb/s), load 0.8, factor 0.0158: 0.796 x 25 GB/s / 1000 B = 19.9 flows
// per us per GPU. Counted over 1 us (fraction file) and 100 us (percent file): 1,274 flows expected
// either way (Poisson: 5 standard deviations = 178).
TEST(LapsArtifact, LoadRuleOfTheArtifact) {
  for (const bool percent : {false, true}) {
    const auto dir = test::temp_dir(percent ? "laps-load-pct" : "laps-load-frac");
    const auto cdf = test::write_file(dir + "/cdf.txt", percent ? "1000 0\n1000 100\n" : "1000 0\n1000 1\n");
    auto c = rail200();
    c.set("workload.kind", "cdf_trace");
    c.set("workload.cdf", cdf);
    c.set("workload.load_rule", "laps_artifact");
    c.set("workload.pair_load_factor", 0.0158);
    c.set("workload.load", 0.8);
    c.set("workload.duration_us", percent ? 100.0 : 1.0);
    const auto topo = topo::build_topology(c);
    std::vector<std::string> warnings;
    const auto w = workload::build_workload(c, topo, &warnings);
    const double expect = 0.8 * 0.0158 * 63 * 25e9 / 1000 * 1e-6 * 64;
    EXPECT_NEAR(static_cast<double>(w.flows.size()), expect, 178) << (percent ? "percent" : "fraction");
  }
  // Bad combinations are errors: the factor without the rule, the rule without a factor.
  auto c = rail200();
  c.set("workload.kind", "cdf_trace");
  c.set("workload.pair_load_factor", 0.01);
  EXPECT_THROW(config::check(c), UserError);
  c = rail200();
  c.set("workload.kind", "cdf_trace");
  c.set("workload.load_rule", "laps_artifact");
  EXPECT_THROW(config::check(c), UserError);
}

// The artifact sender's keys: its rate rule, probing and spraying are the defaults ("sender"), an
// explicit choice wins (an ablation); it needs transport.cc = "none" and transport.cwnd_packets.
TEST(LapsArtifact, SenderKeysAreChecked) {
  const auto run = [](const std::function<void(config::Config&)>& edit) {
    auto c = laps_artifact(rail200(2, 2));
    c.set("workload.kind", "flows_csv");
    c.set("workload.file", flows_file("laps-artifact-keys", {{0, 3, 10000, 0.0}}));
    edit(c);
    sim::Simulation s(c);
    EXPECT_EQ(s.run(), 0);
    return s.summary()["laps"];
  };
  const auto j = run([](config::Config&) {});
  EXPECT_EQ(j["rate_rule"], "ns3");
  EXPECT_EQ(j["probe_rule"], "artifact");
  EXPECT_EQ(j["spray_paths"], "all");
  const auto k = run([](config::Config& c) {
    c.set("lb.laps_rate_rule", "paper");
    c.set("lb.laps_probe_rule", "paper");
    c.set("lb.laps_spray_paths", "valid");
  });
  EXPECT_EQ(k["sender"], "artifact");
  EXPECT_EQ(k["rate_rule"], "paper");
  EXPECT_EQ(k["probe_rule"], "paper");
  EXPECT_EQ(k["spray_paths"], "valid");
  const auto paper = run([](config::Config& c) { c.set("lb.laps_sender", "paper"); });
  EXPECT_EQ(paper["rate_rule"], "paper");
  EXPECT_EQ(paper["probe_rule"], "paper");
  EXPECT_EQ(paper["spray_paths"], "valid");
  EXPECT_THROW(run([](config::Config& c) { c.set("transport.cc", "dctcp"); }), UserError);
  EXPECT_THROW(run([](config::Config& c) { c.set("transport.cwnd_packets", 0); }), UserError);
  EXPECT_THROW(run([](config::Config& c) { c.set("transport.cwnd_packets", 100); }), UserError);
}
