// LAPS ([LAPS] sec. 3) and its substrate: the Rail topology (sec. 4.1), source routing over candidate
// paths (sec. 3.2-3.5), Eq. 1 spraying, the sec. 3.6 rate controller and sec. 3.7 per-path loss
// detection.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <tuple>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "../sim/helpers.h"
#include "lb/laps.h"
#include "routing/source_route.h"
#include "routing/tables.h"
#include "sim/simulation.h"
#include "topo/registry.h"

using namespace lbsim;

namespace {

// The paper's Rail: 8 clusters x 8 GPUs, 100 Gb/s, the authors' 1 us links and 1000 B payloads.
config::Config common() {
  config::Config c;
  c.set("topology.link_rate_gbps", 100);
  c.set("topology.host_latency_ns", 1000);
  c.set("topology.global_latency_ns", 1000);
  c.set("network.mtu", 1000);
  c.set("network.header_bytes", 48);
  c.set("network.switch_latency_ns", 0);
  c.set("routing.algorithm", "source_route");
  c.set("lb.algorithm", "laps");
  c.set("transport.cc", "none");
  c.set("run.progress", "off");
  return c;
}

config::Config rail(int nodes = 8, int gpus = 8) {
  config::Config c = common();
  c.set("topology.kind", "rail");
  c.set("topology.rail_nodes", nodes);
  c.set("topology.rail_gpus", gpus);
  c.set("topology.nvlink_latency_ns", 1000);
  return c;
}

// The LAPS Dragonfly (Fig. 1a): a = 4, p = 4, h = 2: 9 groups, 36 switches, 144 servers.
config::Config laps_dragonfly() {
  config::Config c = common();
  c.set("topology.kind", "dragonfly");
  c.set("topology.a", 4);
  c.set("topology.p", 4);
  c.set("topology.h", 2);
  c.set("topology.local_latency_ns", 1000);
  return c;
}

std::string flows_file(const std::string& name, const std::vector<std::tuple<int, int, long, double>>& flows) {
  const auto dir = test::temp_dir(name);
  std::string csv = "src,dst,bytes,start_us\n";
  for (const auto& [s, d, b, t] : flows) csv += fmt::format("{},{},{},{}\n", s, d, b, t);
  return test::write_file(dir + "/flows.csv", csv);
}

// Records every routing decision (switch sequence per transmission) and optionally drops one packet.
class Recorder final : public net::Router {
 public:
  explicit Recorder(net::Router& inner) : inner_(inner) {}
  std::int32_t route(std::int32_t node, net::Packet& p) override {
    const bool probe = p.flags & net::kFlagProbe;
    auto& walk = walks[{static_cast<int>(p.type), probe, p.flow, p.psn, p.sent_time, p.ev}];
    walk.ev = p.ev;
    walk.src = p.src;
    walk.dst = p.dst;
    walk.nodes.push_back(node);
    if (p.hops == 1) first_hop.push_back({p.type, probe, p.ev, p.size, p.payload});
    if (p.type == net::PacketType::Data && !probe && (p.flags & net::kFlagRetransmit) && p.hops == 1)
      resent.push_back(p.psn);
    if (p.type == net::PacketType::Data && !probe && p.flow == drop_flow && p.psn == drop_psn && !dropped &&
        p.hops == 2) {
      dropped = true;
      return -1;
    }
    return inner_.route(node, p);
  }
  struct Walk {
    std::uint32_t ev = 0;
    std::int32_t src = -1, dst = -1;
    std::vector<std::int32_t> nodes;
  };
  std::map<std::tuple<int, bool, std::uint32_t, std::uint32_t, SimTime, std::uint32_t>, Walk> walks;
  struct Seen {  // a packet at its first switch
    net::PacketType type;
    bool probe;
    std::uint32_t ev, size, payload;
  };
  std::vector<Seen> first_hop;
  std::vector<std::uint32_t> resent;
  std::uint32_t drop_flow = ~0u, drop_psn = ~0u;
  bool dropped = false;

 private:
  net::Router& inner_;
};

std::unique_ptr<routing::SourceRouteRouter> source_router(const config::Config& c, const routing::MinimalTables& mt) {
  const auto& t = mt.topology();
  return std::make_unique<routing::SourceRouteRouter>(
      mt, routing::CandidatePaths::rule_of(c.text("routing.source_paths"), t),
      static_cast<int>(c.integer("routing.source_paths_k")), from_ns(c.real("network.switch_latency_ns")),
      c.integer("network.mtu") + c.integer("network.header_bytes"));
}

// A policy on given candidate paths, outside a simulation.
struct Bench {
  lb::CandidateSet set;
  std::shared_ptr<lb::LapsShared> sh = std::make_shared<lb::LapsShared>();
  std::unique_ptr<lb::LapsPolicy> make(std::vector<SimTime> base, double beta, std::uint64_t seed = 1) {
    set.base_latency = std::move(base);
    set.anchors.assign(set.base_latency.size(), 1);
    sh->p.beta = beta;
    sh->p.probing = false;
    lb::PolicyContext ctx;
    ctx.src = 0;
    ctx.dst = 1;
    ctx.hosts = 2;
    ctx.host_rate_bps = 100e9;
    ctx.pair_paths = &set;
    ctx.rng = Rng(seed, hash_name("laps-test"));
    return std::make_unique<lb::LapsPolicy>(std::move(ctx), sh);
  }
};

lb::AckDetail ack(std::uint32_t ev, SimTime one_way, SimTime now, std::uint32_t psn = 0, SimTime sent = 0) {
  lb::AckDetail a;
  a.ev = ev;
  a.one_way = one_way;
  a.now = now;
  a.psn = psn;
  a.sent = sent;
  return a;
}

// Pearson's chi-square of `counts` against probabilities `p`.
double chi_square(const std::vector<std::uint64_t>& counts, const std::vector<double>& p, double n) {
  double x = 0;
  for (std::size_t i = 0; i < p.size(); ++i) x += std::pow(static_cast<double>(counts[i]) - n * p[i], 2) / (n * p[i]);
  return x;
}

}  // namespace

// Eq. 1 itself: P(i) = exp(-beta d_i) / sum_j exp(-beta d_j).
TEST(Laps, SoftmaxIsEquationOne) {
  const std::vector<double> d{0.5, 0.75, 1.0, 2.0};
  for (double beta : {0.0, 1.0, 3.0, 10.0}) {
    const auto p = lb::softmax_probabilities(d, beta);
    double z = 0;
    for (double x : d) z += std::exp(-beta * x);
    for (std::size_t i = 0; i < d.size(); ++i) EXPECT_NEAR(p[i], std::exp(-beta * d[i]) / z, 1e-12) << beta;
  }
  // Large beta: argmax (the smallest latency), and excluded paths get nothing.
  const auto big = lb::softmax_probabilities(d, 1e6);
  EXPECT_DOUBLE_EQ(big[0], 1.0);
  const auto some = lb::softmax_probabilities(d, 1.0, {0, 1, 1, 0});
  EXPECT_EQ(some[0], 0.0);
  EXPECT_EQ(some[3], 0.0);
  EXPECT_NEAR(some[1], std::exp(-0.75) / (std::exp(-0.75) + std::exp(-1.0)), 1e-12);
}

// The policy's draws follow Eq. 1 on d_i = realVal / largest idle latency (chi-square, 3 degrees of
// freedom: 16.27 is the 0.1% critical value); beta = 0 is uniform.
TEST(Laps, SprayingFollowsEquationOne) {
  const std::vector<SimTime> base{us(4), us(5), us(6), us(8)};
  for (double beta : {0.0, 1.0, 4.0}) {
    Bench b;
    auto pol = b.make(base, beta);
    // Measured latencies different from the idle ones: 4, 10, 6, 8 us.
    pol->on_ack_detail(ack(1, us(10), us(1)));
    std::vector<double> expect(4);
    const double T = 8.0;
    const double lat[4] = {4, 10, 6, 8};
    double z = 0;
    for (int i = 0; i < 4; ++i) z += std::exp(-beta * lat[i] / T);
    for (int i = 0; i < 4; ++i) expect[static_cast<std::size_t>(i)] = std::exp(-beta * lat[i] / T) / z;
    const int n = 200000;
    std::vector<std::uint64_t> counts(4, 0);
    for (int k = 0; k < n; ++k) ++counts[pol->next_ev(us(2))];
    EXPECT_LT(chi_square(counts, expect, n), 16.27) << "beta " << beta;
    if (beta == 0.0) {
      for (auto c : counts) EXPECT_NEAR(static_cast<double>(c) / n, 0.25, 0.005);
    }
  }
}

// sec. 3.6 step by step: halve on "all slow" (remembering expRate), at most once per 2T, increase
// by (expRate - curRate) / 2, and after N = 3 consecutive increases double expRate per increase.
TEST(Laps, RateControllerSteps) {
  const SimTime T = us(10);
  lb::LapsRate r(100e9, 1e9, 3);
  EXPECT_EQ(r.update(0, true, T), -1);
  EXPECT_DOUBLE_EQ(r.rate(), 50e9);
  EXPECT_DOUBLE_EQ(r.expected(), 100e9);
  EXPECT_EQ(r.update(us(5), true, T), 0);  // within 2T: no adjustment
  EXPECT_EQ(r.update(us(19), false, T), 0);
  EXPECT_DOUBLE_EQ(r.rate(), 50e9);
  EXPECT_EQ(r.update(us(20), true, T), -1);
  EXPECT_DOUBLE_EQ(r.rate(), 25e9);
  EXPECT_DOUBLE_EQ(r.expected(), 50e9);
  EXPECT_EQ(r.update(us(40), false, T), 1);
  EXPECT_DOUBLE_EQ(r.rate(), 37.5e9);
  EXPECT_EQ(r.update(us(60), false, T), 1);
  EXPECT_DOUBLE_EQ(r.rate(), 43.75e9);
  EXPECT_FALSE(r.hyper());
  EXPECT_EQ(r.update(us(80), false, T), 1);
  EXPECT_DOUBLE_EQ(r.rate(), 46.875e9);
  EXPECT_DOUBLE_EQ(r.expected(), 50e9);
  EXPECT_TRUE(r.hyper());                     // N = 3 consecutive increases
  EXPECT_EQ(r.update(us(100), false, T), 1);  // hyper: expRate doubles first
  EXPECT_DOUBLE_EQ(r.expected(), 100e9);
  EXPECT_DOUBLE_EQ(r.rate(), 73.4375e9);
  EXPECT_EQ(r.update(us(110), true, T), 0);
  EXPECT_EQ(r.update(us(120), true, T), -1);  // the decrease ends the hyper phase
  EXPECT_FALSE(r.hyper());
  EXPECT_DOUBLE_EQ(r.expected(), 73.4375e9);
  EXPECT_DOUBLE_EQ(r.rate(), 36.71875e9);
  EXPECT_EQ(r.decreases(), 3u);
  EXPECT_EQ(r.hyper_phases(), 1u);
  // Never below the minimum rate.
  lb::LapsRate m(100e9, 30e9, 3);
  m.update(0, true, T);
  m.update(us(20), true, T);
  EXPECT_DOUBLE_EQ(m.rate(), 30e9);
}

// In the policy: a slow path alone does not slow the flow; all valid paths above T (the largest
// idle latency, 8 us) do.
TEST(Laps, DecreaseOnlyWhenAllPathsSlow) {
  Bench b;
  auto pol = b.make({us(5), us(8)}, 1.0);
  pol->on_ack_detail(ack(0, us(30), us(1)));  // path 0 slow, path 1 still at its idle 8 us
  EXPECT_DOUBLE_EQ(pol->rate().rate(), 100e9);
  EXPECT_EQ(pol->rate().decreases(), 0u);
  pol->on_ack_detail(ack(1, us(9), us(17)));  // 16 us later (2T): both above T
  EXPECT_DOUBLE_EQ(pol->rate().rate(), 50e9);
  pol->on_ack_detail(ack(1, us(9), us(20)));  // within 2T: unchanged
  EXPECT_DOUBLE_EQ(pol->rate().rate(), 50e9);
  pol->on_ack_detail(ack(0, us(5), us(33)));  // path 0 recovered: increase towards expRate
  EXPECT_DOUBLE_EQ(pol->rate().rate(), 75e9);
}

// NIC pacing follows curRate: when the rate changes, the pending send time becomes the last packet's
// size at the new rate (the authors' code moves nextAvail by the difference), so a decrease delays
// the next packet at once and an increase brings it forward.
TEST(Laps, PacingFollowsRateChanges) {
  Bench b;
  auto pol = b.make({us(5)}, 1.0);  // one path, T = 5 us: 2T = 10 us between adjustments
  lb::SendView v;
  pol->on_sent(0, 0, 0, 1000);  // 80 ns on the wire at 100 Gb/s
  EXPECT_EQ(pol->hold(1, v), 80'000);
  pol->on_ack_detail(ack(0, us(30), 10'000));  // above T: halve to 50 Gb/s
  ASSERT_DOUBLE_EQ(pol->rate().rate(), 50e9);
  EXPECT_EQ(pol->hold(10'000, v), 160'000);  // 1000 B at 50 Gb/s after the packet's start
  pol->on_sent(1, 0, us(20), 1000);          // next send: 20 us + 160 ns
  EXPECT_EQ(pol->hold(us(20), v), us(20) + 160'000);
  pol->on_ack_detail(ack(0, us(1), us(20) + 1000));  // below T, 2T later: 50 -> 75 Gb/s
  ASSERT_DOUBLE_EQ(pol->rate().rate(), 75e9);
  EXPECT_EQ(pol->hold(us(20) + 1000, v), us(20) + 106'667);  // 1000 B at 75 Gb/s
}

// A fixed receiver-minus-sender clock offset cancels: with idleVal measured, the spraying
// probabilities and the rate decisions are those without the offset.
TEST(Laps, ClockOffsetCancels) {
  Bench b0, b1;
  auto p0 = b0.make({us(5), us(6), us(8)}, 2.0);
  auto p1 = b1.make({us(5), us(6), us(8)}, 2.0);
  b0.sh->p.idle_measured = b1.sh->p.idle_measured = true;
  const SimTime off = us(123);
  // Once every path has a sample (the first three ACKs), everything is relative.
  const SimTime seq[][3] = {{0, 5, 1},   {1, 6, 2},   {2, 8, 3},    {0, 12, 20},  {1, 15, 40},  {2, 9, 60},
                            {2, 20, 80}, {0, 6, 100}, {0, 25, 120}, {1, 30, 140}, {2, 40, 160}, {1, 7, 180}};
  int step = 0;
  for (const auto& s : seq) {
    p0->on_ack_detail(ack(static_cast<std::uint32_t>(s[0]), us(s[1]), us(s[2])));
    p1->on_ack_detail(ack(static_cast<std::uint32_t>(s[0]), us(s[1]) + off, us(s[2])));
    if (++step <= 3) continue;
    std::vector<double> d0, d1;
    std::vector<char> v0, v1;
    p0->inputs(d0, v0);
    p1->inputs(d1, v1);
    const auto q0 = lb::softmax_probabilities(d0, 2.0, v0), q1 = lb::softmax_probabilities(d1, 2.0, v1);
    for (std::size_t i = 0; i < q0.size(); ++i) EXPECT_NEAR(q0[i], q1[i], 1e-9);
    EXPECT_DOUBLE_EQ(p0->rate().rate(), p1->rate().rate());
  }
  EXPECT_GT(p0->rate().decreases(), 0u);
}

// sec. 3.7 on the detector: an ACK on a path declares exactly the older unacknowledged sends of that
// path lost; other paths and unknown ACKs change nothing.
TEST(Laps, PathLossDetectorUnit) {
  lb::PathLossDetector d(2);
  d.sent(0, 10, 1);
  d.sent(1, 11, 2);
  d.sent(0, 12, 3);
  d.sent(0, 13, 4);
  std::vector<std::pair<std::uint32_t, SimTime>> lost;
  d.acked(0, 13, 4, lost);
  EXPECT_EQ(lost, (std::vector<std::pair<std::uint32_t, SimTime>>{{10, 1}, {12, 3}}));
  lost.clear();
  d.acked(1, 11, 2, lost);
  EXPECT_TRUE(lost.empty());
  d.acked(0, 99, 9, lost);
  EXPECT_TRUE(lost.empty());
  EXPECT_EQ(d.outstanding(0), 0u);
}

// A planted drop: the one lost packet is resent (exactly it, once) on the next ACK of its path,
// long before the RTO.
TEST(Laps, PerPathLossRetransmitsExactlyTheDropped) {
  auto c = rail(2, 2);
  c.set("workload.kind", "flows_csv");
  c.set("workload.file", flows_file("laps-drop", {{0, 3, 200000, 0.0}}));
  c.set("network.trimming", false);
  c.set("transport.rto_us", 1000);
  sim::Simulation s(c);
  routing::MinimalTables mt(s.topology());
  auto inner = source_router(c, mt);
  Recorder rec(*inner);
  rec.drop_flow = 0;
  rec.drop_psn = 40;
  s.network().set_router(&rec);
  ASSERT_EQ(s.run(), 0);
  EXPECT_TRUE(lbsim::test::conserved(s));
  EXPECT_TRUE(rec.dropped);
  EXPECT_EQ(rec.resent, std::vector<std::uint32_t>{40});
  const auto& f = s.transport().flows()[0];
  EXPECT_EQ(f.n.timeouts, 0u);
  EXPECT_EQ(f.n.retransmits, 1u);
  EXPECT_EQ(s.summary()["laps"]["path_losses"], 1);
  // The FCT is far below the RTO: the loss was repaired from the path's ACK order.
  EXPECT_LT(s.flow_results()[0].fct(), us(200));
}

// Source routing on the LAPS Dragonfly: every data packet walks its candidate path's switches in
// order (its anchors included), every ACK the same switches backwards; 3 candidates inside a
// group, 8 between groups.
TEST(Laps, SourceRoutingWalksAnchorsAndAcksReverse) {
  auto c = laps_dragonfly();
  c.set("workload.kind", "flows_csv");
  // host 0 (switch 0, group 0) -> host 4 (switch 1, group 0) and -> host 100 (group 6)
  c.set("workload.file", flows_file("laps-walk", {{0, 4, 60000, 0.0}, {0, 100, 60000, 0.0}, {50, 7, 60000, 1.0}}));
  c.set("lb.laps_beta", 0.0);        // uniform: every candidate gets packets
  c.set("output.fct_at", "sender");  // run until the last ACK is home
  sim::Simulation s(c);
  const auto& t = s.topology();
  EXPECT_EQ(t.num_hosts, 144);
  EXPECT_EQ(t.num_switches(), 36);
  routing::MinimalTables mt(t);
  auto inner = source_router(c, mt);
  Recorder rec(*inner);
  s.network().set_router(&rec);
  ASSERT_EQ(s.run(), 0);
  EXPECT_TRUE(lbsim::test::conserved(s));
  auto& cand = inner->candidates();
  EXPECT_EQ(cand.paths(t.host_switch(0), t.host_switch(4)).size(), 3u);
  EXPECT_EQ(cand.paths(t.host_switch(0), t.host_switch(100)).size(), 8u);
  std::size_t data = 0, acks = 0, partial = 0;
  std::map<std::uint32_t, std::set<std::uint32_t>> evs;  // flow -> paths used
  for (const auto& [key, w] : rec.walks) {
    const auto type = static_cast<net::PacketType>(std::get<0>(key));
    const bool fwd = type == net::PacketType::Data;
    const std::int32_t a = t.host_switch(fwd ? w.src : w.dst), b = t.host_switch(fwd ? w.dst : w.src);
    const auto& list = cand.paths(a, b);
    const auto& path = list[w.ev % list.size()];
    std::vector<std::int32_t> expect = path.nodes;
    if (!fwd) std::reverse(expect.begin(), expect.end());
    // A packet dropped on the way walked a prefix of its path.
    ASSERT_LE(w.nodes.size(), expect.size());
    ASSERT_TRUE(std::equal(w.nodes.begin(), w.nodes.end(), expect.begin()));
    if (w.nodes.size() < expect.size()) {
      ++partial;
      continue;
    }
    // The anchors are on the walk, in order.
    auto it = path.nodes.begin();
    for (auto anchor : path.anchors) {
      it = std::find(it, path.nodes.end(), anchor);
      ASSERT_NE(it, path.nodes.end());
    }
    if (fwd) {
      ++data;
      if (!std::get<1>(key)) evs[std::get<2>(key)].insert(w.ev);
    } else {
      ++acks;
    }
  }
  EXPECT_GT(data, 150u);
  EXPECT_GT(acks, 150u);
  EXPECT_EQ(partial, 0u);
  EXPECT_EQ(evs[0].size(), 3u);
  EXPECT_EQ(evs[1].size(), 8u);
  EXPECT_EQ(evs[2].size(), 8u);
}

// Rail: traffic inside a cluster never touches a rail switch; between clusters it uses all 8 rails.
TEST(Laps, RailIntraClusterAvoidsRailsInterUsesAllEight) {
  auto c = rail();
  c.set("workload.kind", "flows_csv");
  c.set("workload.file",
        flows_file("laps-rail",
                   {{0, 5, 100000, 0.0}, {9, 14, 100000, 0.0}, {0, 63, 300000, 0.0}, {18, 42, 300000, 0.0}}));
  sim::Simulation s(c);
  const auto& t = s.topology();
  EXPECT_EQ(t.num_hosts, 64);
  EXPECT_EQ(t.num_switches(), 64 + 8 + 8);
  routing::MinimalTables mt(t);
  auto inner = source_router(c, mt);
  Recorder rec(*inner);
  s.network().set_router(&rec);
  ASSERT_EQ(s.run(), 0);
  EXPECT_TRUE(lbsim::test::conserved(s));
  const auto is_rail = [&](std::int32_t n) { return t.nodes[static_cast<std::size_t>(n)].label.rfind("rail", 0) == 0; };
  std::map<std::uint32_t, std::set<std::int32_t>> rails;
  std::size_t intra_packets = 0;
  for (const auto& [key, w] : rec.walks) {
    const auto flow = std::get<2>(key);
    for (auto n : w.nodes)
      if (is_rail(n)) rails[flow].insert(n);
    if (flow < 2) {
      ++intra_packets;
      EXPECT_EQ(w.nodes.size(), 3u);  // NIC, NVLink, NIC
    }
  }
  EXPECT_GT(intra_packets, 100u);
  EXPECT_TRUE(rails[0].empty());
  EXPECT_TRUE(rails[1].empty());
  EXPECT_EQ(rails[2].size(), 8u);
  EXPECT_EQ(rails[3].size(), 8u);
  EXPECT_EQ(inner->candidates().paths(t.host_switch(0), t.host_switch(63)).size(), 8u);
  EXPECT_EQ(inner->candidates().paths(t.host_switch(0), t.host_switch(5)).size(), 1u);
}

// Yen's rule: k loopless paths, shortest first, all distinct.
TEST(Laps, YenCandidates) {
  config::Config c;
  c.set("topology.kind", "complete");
  c.set("topology.n", 5);
  c.set("topology.p", 1);
  const auto t = topo::build_topology(c);
  routing::MinimalTables mt(t);
  routing::CandidatePaths cp(mt, routing::PathRule::Yen, 6, 0, 1000);
  const auto& ps = cp.paths(t.switch_node(0), t.switch_node(1));
  ASSERT_EQ(ps.size(), 6u);
  EXPECT_EQ(ps[0].nodes.size(), 2u);                                      // the direct link
  for (std::size_t i = 1; i < 4; ++i) EXPECT_EQ(ps[i].nodes.size(), 3u);  // the 3 two-hop detours
  for (std::size_t i = 4; i < 6; ++i) EXPECT_EQ(ps[i].nodes.size(), 4u);
  std::set<std::vector<std::int32_t>> distinct;
  for (const auto& p : ps) {
    distinct.insert(p.nodes);
    std::set<std::int32_t> u(p.nodes.begin(), p.nodes.end());
    EXPECT_EQ(u.size(), p.nodes.size());
  }
  EXPECT_EQ(distinct.size(), 6u);
  EXPECT_EQ(cp.pairs(), 1u);  // built for the pair asked, nothing else
}

// A full run with clock offsets and the summary's table sizes.
TEST(Laps, RunReportsTablesAndReorderBuffer) {
  auto c = rail(2, 4);
  c.set("workload.kind", "flows_csv");
  c.set("workload.file",
        flows_file("laps-tables", {{0, 4, 50000, 0.0}, {1, 6, 50000, 0.0}, {0, 7, 50000, 0.0}, {5, 0, 50000, 0.0}}));
  c.set("transport.delivery", "in_order");
  c.set("lb.laps_clock_offset_us", 50);
  c.set("lb.laps_idle", "measured");
  sim::Simulation s(c);
  ASSERT_EQ(s.run(), 0);
  EXPECT_TRUE(lbsim::test::conserved(s));
  const auto j = s.summary();
  EXPECT_EQ(j["laps"]["pst_entries_max_per_host"], 2);  // host 0 sends to 4 and 7
  EXPECT_EQ(j["laps"]["pit_entries_max_per_host"], 8);  // 4 rails each
  EXPECT_EQ(j["laps"]["host_pairs"], 4);
  EXPECT_GT(j["laps"]["pit_bytes_max_per_host"].get<int>(), 0);
  EXPECT_EQ(j["source_route"]["pairs_built"], 4);
  EXPECT_GT(j["reorder_buffer"]["samples"].get<int>(), 150);
  for (const auto& r : s.flow_results()) EXPECT_GT(r.fct(), 0);
}

// The authors' rate rule at 0154ca8 (lb.laps_rate_rule = "ns3_0154ca8", rdma-hw.cc UpdateRateForLaps):
// decreases and increases have separate 2T timers, so an increase may follow a decrease at once; after
// more than N increases the next one first doubles expRate.
TEST(Laps, Ns3EarlyRateRuleSteps) {
  const SimTime T = us(10);
  lb::LapsRate r(100e9, 1e9, 2);
  EXPECT_EQ(r.update_ns3_0154ca8(us(1), true, T), -1);
  EXPECT_DOUBLE_EQ(r.rate(), 50e9);
  EXPECT_EQ(r.update_ns3_0154ca8(us(5), true, T), 0);  // decrease timer (strictly after it, as the code): once per 2T
  EXPECT_EQ(r.update_ns3_0154ca8(us(22), true, T), -1);
  EXPECT_DOUBLE_EQ(r.rate(), 25e9);
  EXPECT_DOUBLE_EQ(r.expected(), 50e9);
  EXPECT_EQ(r.update_ns3_0154ca8(us(23), false, T), 1);  // the increase timer is its own
  EXPECT_DOUBLE_EQ(r.rate(), 37.5e9);
  EXPECT_EQ(r.update_ns3_0154ca8(us(30), false, T), 0);  // within 2T of the last increase
  EXPECT_EQ(r.update_ns3_0154ca8(us(44), false, T), 1);
  EXPECT_DOUBLE_EQ(r.rate(), 43.75e9);
  EXPECT_EQ(r.update_ns3_0154ca8(us(65), false, T), 1);
  EXPECT_DOUBLE_EQ(r.rate(), 46.875e9);
  EXPECT_EQ(r.hyper_phases(), 0u);
  EXPECT_EQ(r.update_ns3_0154ca8(us(86), false, T), 1);  // 3 > N = 2 increases: expRate doubles first
  EXPECT_EQ(r.hyper_phases(), 1u);
  EXPECT_DOUBLE_EQ(r.expected(), 100e9);
  EXPECT_DOUBLE_EQ(r.rate(), 73.4375e9);
  EXPECT_EQ(r.decreases(), 2u);
  EXPECT_EQ(r.increases(), 4u);
}

// The two readings of "slow" (docs/laps.md): the paper compares every valid path with T, the largest
// idle latency of the pair; the authors' code at 0154ca8 compares each path with its own theoretical
// latency (idle plus one packet per link). Paths of 5 and 8 us idle, theoretical 6 and 9 us.
TEST(Laps, Ns3SlowTestIsPerPath) {
  for (const bool ns3 : {false, true}) {
    Bench b;
    b.sh->p.rate_rule = ns3 ? lb::LapsRateRule::Ns3Early : lb::LapsRateRule::Paper;
    b.set.theoretical = {us(6), us(9)};
    auto pol = b.make({us(5), us(8)}, 1.0);
    // Path 0 at 7 us: above its own 6 us, below T = 8 us; path 1 at 9.5 us: above both readings.
    pol->on_ack_detail(ack(1, us(9) + us(1) / 2, us(1)));
    pol->on_ack_detail(ack(0, us(7), us(2)));
    if (ns3) {
      EXPECT_EQ(pol->rate().decreases(), 1u) << "both paths above their own idle + slack";
      EXPECT_DOUBLE_EQ(pol->rate().rate(), 50e9);
    } else {
      EXPECT_EQ(pol->rate().decreases(), 0u) << "path 0 is below T = 8 us";
      EXPECT_DOUBLE_EQ(pol->rate().rate(), 100e9);
    }
  }
}

// The theoretical latency of a candidate path (the artifact's) is its idle latency plus one full
// packet's serialisation at its slowest link per link, host links included: on the LAPS Dragonfly,
// 1048 B at 100 Gb/s = 83.84 ns per link.
TEST(Laps, CandidateTheoreticalIsOnePacketPerLink) {
  auto c = laps_dragonfly();
  c.set("routing.source_paths", "dragonfly");
  c.set("workload.kind", "flows_csv");
  c.set("workload.file", flows_file("laps-slack", {{0, 100, 1000, 0.0}}));
  sim::Simulation s(c);
  const auto& t = s.topology();
  routing::MinimalTables mt(t);
  auto r = source_router(c, mt);
  const auto& paths = r->candidates().paths(t.host_switch(0), t.host_switch(100));
  ASSERT_EQ(paths.size(), 8u);
  for (const auto& p : paths)
    EXPECT_EQ(p.theoretical - p.base_latency, static_cast<SimTime>(p.nodes.size() + 1) * from_ns(83.84));
}

// In a run: a lone flow never sees every path above T, the largest theoretical latency (no decrease
// under the ns-3 rule), an 8-to-1 incast congests every path of each pair at the receiver's link
// (decreases).
TEST(Laps, Ns3RuleInSimulation) {
  for (const bool incast : {false, true}) {
    auto c = laps_dragonfly();
    c.set("transport.ack_every", 1);
    c.set("lb.laps_rate_rule", "ns3");
    c.set("lb.laps_spray_paths", "all");
    c.set("workload.kind", "flows_csv");
    std::vector<std::tuple<int, int, long, double>> flows;
    if (incast)
      for (int s = 0; s < 8; ++s) flows.emplace_back(20 + 16 * s, 0, 200000, 0.0);
    else
      flows.emplace_back(20, 0, 200000, 0.0);
    c.set("workload.file", flows_file(incast ? "laps-ns3-incast" : "laps-ns3-lone", flows));
    sim::Simulation s(c);
    ASSERT_EQ(s.run(), 0);
    EXPECT_TRUE(lbsim::test::conserved(s));
    const auto j = s.summary();
    EXPECT_EQ(j["laps"]["rate_rule"], "ns3");
    EXPECT_EQ(j["laps"]["spray_paths"], "all");
    for (const auto& f : s.flow_results()) EXPECT_GT(f.fct(), 0);
    if (incast)
      EXPECT_GT(j["laps"]["rate_decreases"].get<int>(), 0);
    else
      EXPECT_EQ(j["laps"]["rate_decreases"].get<int>(), 0);
  }
}

// docs/results/laps-paper-setup.md "Mechanism of the gap": on the LAPS Dragonfly every inter-group detour crosses two
// global links instead of one. With the minimal path as the only candidate (yen, k = 1) no packet
// crosses more than one global link, so the global links carry at most what the hosts send
// (data one way, ACKs back on the same path); with the paper's candidates (minimal + one through
// each third group) and beta = 1 on idle-normalised latencies most packets of a pair without
// measurements detour, so the global links carry clearly more than the hosts send.
TEST(Laps, DragonflyDetoursLoadGlobalLinks) {
  const auto global_per_host_byte = [](bool minimal_only) {
    auto c = laps_dragonfly();
    c.set("transport.ack_every", 1);
    c.set("workload.kind", "cdf_trace");
    c.set("workload.cdf", "googlerpc");
    c.set("workload.load", 0.5);
    c.set("workload.duration_us", 5);
    c.set("run.seed", 1);
    if (minimal_only) {
      c.set("routing.source_paths", "yen");
      c.set("routing.source_paths_k", 1);
    }
    sim::Simulation s(c);
    EXPECT_EQ(s.run(), 0);
    EXPECT_TRUE(lbsim::test::conserved(s));
    double global = 0, host = 0;
    const auto& t = s.topology();
    for (std::int32_t n = 0; n < static_cast<std::int32_t>(t.ports.size()); ++n)
      for (std::int32_t k = 0; k < static_cast<std::int32_t>(t.ports[n].size()); ++k) {
        const auto kind = t.links[t.ports[n][k].link].kind;
        const double b = static_cast<double>(s.network().port(s.network().port_id(n, k)).stats.tx_bytes);
        if (kind == topo::LinkKind::Global) global += b;
        if (kind == topo::LinkKind::HostLink && t.is_host(n)) host += b;
      }
    EXPECT_GT(host, 0);
    return global / host;
  };
  const double minimal = global_per_host_byte(true), laps = global_per_host_byte(false);
  EXPECT_LE(minimal, 1.0);
  EXPECT_GT(laps, minimal * 1.3);
}

// [LAPS] Fig. 9 over time: output.reorder_sample_us writes reorder_buffer.csv, one row per sample
// and host holding packets. A parameter-server AllReduce (63 GPUs to GPU 0, 64 KiB each) on the
// Rail sprays over 8 rails with in-order delivery, so the receiver holds packets at some samples;
// no sample can exceed what the senders send (63 x 66 packets of 1000 B), and only the receiver
// ever holds packets.
TEST(Laps, ReorderBufferTimeSeries) {
  const auto dir = test::temp_dir("laps-rob-series");
  const auto r = test::run_lbsim("run " + std::string(LBSIM_SOURCE_DIR) +
                                 "/examples/laps/rail_64.toml --set transport.delivery=in_order" +
                                 " --set output.reorder_sample_us=0.5 --set workload.kind=ps_allreduce" +
                                 " --set workload.size=64KiB --set output.ports_csv=false --quiet --out " + dir);
  ASSERT_EQ(r.code, 0) << r.out;
  const auto csv = test::read_file(dir + "/reorder_buffer.csv");
  std::istringstream in(csv);
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  EXPECT_EQ(line, "time_us,host,host_label,packets,kb");
  const std::uint64_t max_packets = 63 * 66;
  int rows = 0;
  std::set<std::string> hosts;
  double last_t = -1;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::istringstream l(line);
    std::string c;
    while (std::getline(l, c, ',')) f.push_back(c);
    ASSERT_EQ(f.size(), 5u) << line;
    const double t = std::stod(f[0]);
    EXPECT_GE(t, last_t);
    last_t = t;
    hosts.insert(f[1]);
    const auto packets = std::stoull(f[3]);
    EXPECT_GT(packets, 0u);
    EXPECT_LE(packets, max_packets);
    EXPECT_NEAR(std::stod(f[4]), static_cast<double>(packets) * 1000 / 1e3, 1e-6);
    ++rows;
  }
  EXPECT_GT(rows, 0);
  EXPECT_EQ(hosts.size(), 1u);
}

// output.laps_trace: one row per ACK and probe answer of every LAPS flow, and the rows are the rate
// controller's own decisions (sec. 3.6): a decrease only when every valid path is above T, curRate
// halved (not below the minimum) with expRate = the rate before, one decision per flow per 2T.
TEST(Laps, TraceRowsAreTheRateDecisions) {
  const auto dir = test::temp_dir("laps-trace");
  const auto r =
      test::run_lbsim("run " + std::string(LBSIM_SOURCE_DIR) + "/examples/laps/rail_64.toml" +
                      " --set network.flow_control=pfc --set workload.kind=ps_allreduce" +
                      " --set workload.size=64KiB --set transport.delivery=ooo --set output.laps_trace=true" +
                      " --set output.fct_at=sender --quiet --out " + dir);
  ASSERT_EQ(r.code, 0) << r.out;
  const auto sum = nlohmann::json::parse(test::read_file(dir + "/summary.json"));
  ASSERT_EQ(sum["retransmits"].get<int>(), 0);
  std::istringstream in(test::read_file(dir + "/laps_trace.csv"));
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  EXPECT_EQ(line,
            "time_us,flow,src,dst,path,probe,sent_us,one_way_us,read_us,T_us,min_valid_us,valid,slow,action,"
            "cur_gbps,exp_gbps,hyper,bytes");
  std::uint64_t data = 0, probes = 0, dec = 0, inc = 0;
  struct Last {
    double cur = 100, t = -1;
  };
  std::map<int, Last> last;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::istringstream l(line);
    std::string c;
    while (std::getline(l, c, ',')) f.push_back(c);
    ASSERT_EQ(f.size(), 18u) << line;
    const double t = std::stod(f[0]), T = std::stod(f[9]), cur = std::stod(f[14]), exp = std::stod(f[15]);
    const int flow = std::stoi(f[1]), valid = std::stoi(f[11]), slow = std::stoi(f[12]), action = std::stoi(f[13]);
    (f[5] == "1" ? probes : data) += 1;
    EXPECT_NEAR(std::stod(f[8]), std::stod(f[7]), 1e-6) << line;  // no clock offsets: LAPS reads the true latency
    auto& L = last[flow];
    if (action != 0) {
      if (L.t >= 0) {
        EXPECT_GE(t - L.t, 2 * T - 1e-6) << line;  // once per 2T
      }
      L.t = t;
    }
    if (action < 0) {
      ++dec;
      EXPECT_GT(valid, 0) << line;
      EXPECT_EQ(slow, valid) << line;
      EXPECT_DOUBLE_EQ(exp, L.cur) << line;
      EXPECT_NEAR(cur, std::max(0.1, L.cur / 2), 1e-5 * L.cur) << line;
    } else if (action > 0) {
      ++inc;
      EXPECT_LT(slow, valid) << line;
      EXPECT_GT(cur, L.cur * (1 - 1e-9)) << line;
    } else {
      EXPECT_DOUBLE_EQ(cur, L.cur) << line;
    }
    L.cur = cur;
  }
  // Every data packet's ACK and every probe answer, once (the run lasts until the last sender is done).
  EXPECT_EQ(data, 63u * 66u);
  EXPECT_EQ(probes, sum["laps"]["probe_answers"].get<std::uint64_t>());
  EXPECT_EQ(dec, sum["laps"]["rate_decreases"].get<std::uint64_t>());
  EXPECT_EQ(inc, sum["laps"]["rate_increases"].get<std::uint64_t>());
  EXPECT_GT(dec, 63u);  // the incast slows every sender
}

// topology.rail_host_rate_gbps: the GPU-NIC links at their own rate (the authors' Rail file: 200 Gb/s),
// the NIC-rail and NIC-NVLink links unchanged; 0 keeps the link rate.
TEST(Laps, RailHostRate) {
  for (const double host : {0.0, 200.0}) {
    auto c = rail();
    c.set("topology.rail_host_rate_gbps", host);
    const auto t = topo::build_topology(c);
    int hosts = 0, others = 0;
    for (const auto& l : t.links) {
      const bool host_link = l.kind == topo::LinkKind::HostLink;
      EXPECT_EQ(static_cast<double>(l.rate), host_link && host > 0 ? 200e9 : 100e9);
      (host_link ? hosts : others) += 1;
    }
    EXPECT_EQ(hosts, 64);
    EXPECT_EQ(others, 128);
  }
}

// The sec. 3.2 header on the wire (lb.laps_header = "paper"): every data packet, ACK and probe of a
// path with n anchor switches carries 9 + 2 + 4 n bytes more than network.header_bytes (the NIC
// ports' byte counters, summed from the recorded walks); "none" (the authors' ns-3 tags) adds none.
// The paths' idle latencies grow with the header, so a lone flow on an idle Rail, whose paths are
// all as long as T, never sees every path above T (no decrease).
TEST(Laps, HeaderBytesOnTheWire) {
  for (const bool paper : {true, false}) {
    auto c = rail(2, 2);
    c.set("workload.kind", "flows_csv");
    c.set("workload.file", flows_file("laps-header", {{0, 3, 200000, 0.0}}));
    c.set("lb.laps_header", paper ? "paper" : "none");
    sim::Simulation s(c);
    const auto& t = s.topology();
    routing::MinimalTables mt(t);
    auto inner = source_router(c, mt);
    Recorder rec(*inner);
    s.network().set_router(&rec);
    ASSERT_EQ(s.run(), 0);
    EXPECT_TRUE(lbsim::test::conserved(s));
    const auto& paths = inner->candidates().paths(t.host_switch(0), t.host_switch(3));
    ASSERT_EQ(paths.size(), 2u);  // one per rail
    const auto extra = [&](std::uint32_t ev) -> std::uint64_t {
      return paper ? static_cast<std::uint64_t>(
                         lb::laps_header_bytes(static_cast<std::uint32_t>(paths.at(ev).anchors.size())))
                   : 0;
    };
    std::uint64_t sent = 0, acked = 0, data = 0, acks = 0;
    for (const auto& x : rec.first_hop) {
      const bool payload = x.type == net::PacketType::Data && !x.probe;
      EXPECT_EQ(x.size, 48 + extra(x.ev) + (payload ? 1000 : 0));
      EXPECT_EQ(x.payload, payload ? 1000u : x.type == net::PacketType::Data ? 0u : 1048 + extra(x.ev));
      (x.type == net::PacketType::Data ? sent : acked) += x.size;
      data += payload;
      acks += x.type == net::PacketType::Ack;
    }
    EXPECT_EQ(data, 200u);
    EXPECT_EQ(s.network().port(s.network().nic_port(0)).stats.tx_bytes, sent);
    // The run ends when the last data packet is in: the last few ACKs are still on the receiver's
    // link then (sent, not yet at a switch).
    const auto& nic3 = s.network().port(s.network().nic_port(3)).stats;
    ASSERT_EQ(nic3.tx_packets, 200u);
    ASSERT_LE(acks, 200u);
    ASSERT_GE(nic3.tx_bytes, acked);
    EXPECT_GE(nic3.tx_bytes - acked, (200 - acks) * (48 + extra(0) + extra(1) - std::max(extra(0), extra(1))));
    EXPECT_LE(nic3.tx_bytes - acked, (200 - acks) * (48 + std::max(extra(0), extra(1))));
    if (paper) {
      // One rail is on the shortest path (no anchor: 11 B), the other is named by its rail switch (15 B).
      std::multiset<std::size_t> anchors;
      for (const auto& p : paths) anchors.insert(p.anchors.size());
      EXPECT_EQ(anchors, (std::multiset<std::size_t>{0, 1}));
      EXPECT_GE(sent, 200u * (1048 + 11));
    } else {
      EXPECT_EQ(sent, 200u * 1048);
    }
    EXPECT_EQ(s.summary()["laps"]["rate_decreases"], 0);
  }
  // A leaf-spine with Yen candidates: the 4 paths through the 4 spines are equally long, so T is every
  // path's idle latency and a header left out of it would put every idle path above T.
  auto c = test::leaf_spine(common());
  c.set("routing.source_paths", "yen");
  c.set("routing.source_paths_k", 4);
  c.set("workload.kind", "flows_csv");
  c.set("workload.file", flows_file("laps-header-ls", {{0, 31, 2000000, 0.0}}));
  sim::Simulation s(c);
  ASSERT_EQ(s.run(), 0);
  EXPECT_TRUE(lbsim::test::conserved(s));
  EXPECT_EQ(s.summary()["laps"]["rate_decreases"], 0);
  EXPECT_GT(s.summary()["laps"]["rate_increases"].get<int>(), 5);
  // 2000 packets of 1059-1063 B at 100 Gb/s: 170 us, + the path (a header left out of T: 2.6 ms).
  EXPECT_LT(s.flow_results()[0].fct(), us(180));
}
