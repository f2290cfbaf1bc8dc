// HPCC (src/transport/hpcc.h) against its rules ([HPCC] sec. 3, Algorithm 1) with hand-made INT
// records, and in whole simulations against what a window that holds the most loaded link at eta
// must do:
//  - a lone flow is paced at W / T with U measured on its own links: it runs at eta of the line
//    rate, in wire bytes, INT header included;
//  - every data packet and ACK carries the INT header's 2 + 8 x 5 bytes (byte counts exact);
//  - 16 flows with staggered starts into one host: fair shares (Jain >= 0.99 over the last half),
//    the receiver's link busy at the equilibrium utilisation, an almost empty queue;
//  - OPS and REPS over HPCC complete with every packet accounted for;
//  - bad hpcc_* values exit 2 naming the key.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <sstream>

#include "../sim/helpers.h"
#include "net/int_stack.h"
#include "sim/simulation.h"
#include "transport/hpcc.h"
#include "transport/registry.h"

using namespace lbsim;
using namespace lbsim::transport;

namespace {
constexpr Bytes kMtu = 1000;
constexpr BitsPerSec kRate = 100'000'000'000;  // 100 Gb/s: 12.5 bytes per ns
const SimTime kT = 10'000'000;                 // T = 10 us: B x T = 125,000 bytes

CcParams params(double wai = 100) {
  CcParams p;
  p.name = "hpcc";
  p.mtu = kMtu;
  p.init_cwnd = 125'000;  // B x T
  p.max_cwnd = 250'000;
  p.base_rtt = kT;
  p.hpcc.wai_bytes = wai;
  p.uses_int = true;
  return p;
}

// One INT record per hop: hop h at port 10 + h, the time, the port's cumulative bytes, its queue.
net::IntStack stack(SimTime ts, std::vector<std::pair<std::uint64_t, std::uint32_t>> hops) {
  net::IntStack s;
  for (const auto& [tx, q] : hops) {
    net::IntHop& h = s.hop[s.n];
    h.ts = ts;
    h.tx_bytes = tx;
    h.qlen = q;
    h.port = 10 + s.n;
    h.rate = kRate;
    ++s.n;
  }
  return s;
}
}  // namespace

// W_init = B x T, paced at W / T = the line rate; the first ACK only stores its records.
TEST(Hpcc, StartsAtLineRateAndFirstAckOnlyStores) {
  Hpcc cc(params());
  cc.set_line_rate(kRate);
  EXPECT_TRUE(cc.paced());
  EXPECT_DOUBLE_EQ(cc.window_bytes(), 125'000);
  EXPECT_EQ(cc.rate(0), kRate);
  cc.on_int(stack(0, {{0, 50'000}}), -kT, 0);
  EXPECT_DOUBLE_EQ(cc.window_bytes(), 125'000);
  EXPECT_DOUBLE_EQ(cc.utilisation(), 1.0);
}

// U over tau = T (a whole T between two records): U = u of the most loaded hop. Hop 0 sends at half
// the line rate with no queue (u = 0.5), hop 1 at the full rate with min(q) = 25,000 bytes = 0.2 B T
// queued (u = 1.2). U = 1.2 >= eta: W = Wc / (1.2 / 0.95) + W_AI; Wc updated (the packet was sent
// after the first ACK, the last update).
TEST(Hpcc, MultiplicativeUpdateFromTheMostLoadedHop) {
  Hpcc cc(params());
  cc.set_line_rate(kRate);
  cc.on_int(stack(0, {{0, 0}, {0, 30'000}}), -kT, 0);
  cc.on_int(stack(kT, {{62'500, 0}, {125'000, 25'000}}), 0, kT);
  EXPECT_NEAR(cc.utilisation(), 1.2, 1e-12);
  const double w = 125'000 / (1.2 / 0.95) + 100;
  EXPECT_NEAR(cc.window_bytes(), w, 1e-6);
  EXPECT_NEAR(cc.reference_window(), w, 1e-6);
  EXPECT_EQ(cc.rate(kT), std::llround(w * 8 / 10e-6));  // W / T
  // The ACK of a packet sent before that update (at kT / 2): W from the unchanged Wc, Wc kept.
  cc.on_int(stack(2 * kT, {{125'000, 0}, {250'000, 25'000}}), kT / 2, 2 * kT);
  EXPECT_NEAR(cc.utilisation(), 1.2, 1e-12);
  EXPECT_NEAR(cc.window_bytes(), w / (1.2 / 0.95) + 100, 1e-6);
  EXPECT_NEAR(cc.reference_window(), w, 1e-6);
  EXPECT_EQ(cc.updates(), 1u);
}

// tau < T: U = (1 - tau/T) U + tau/T u. tau = T/4, u = 0.5: U = 0.75 x 1 + 0.25 x 0.5 = 0.875.
// Below eta: additive increase W = Wc + W_AI for maxStage updates, then a multiplicative one.
TEST(Hpcc, EwmaAndAdditiveStagesThenMultiplicative) {
  Hpcc cc(params());
  cc.set_line_rate(kRate);
  const SimTime q = kT / 4;
  std::uint64_t tx = 0;
  cc.on_int(stack(0, {{tx, 0}}), -q, 0);
  double u = 1.0, wc = 125'000;
  for (int k = 1; k <= 7; ++k) {
    tx += 15'625;                                            // half of the line rate over T/4 (31,250 bytes)
    cc.on_int(stack(k * q, {{tx, 0}}), (k - 1) * q, k * q);  // sent at the last update: a new RTT
    u = 0.75 * u + 0.25 * 0.5;
    ASSERT_NEAR(cc.utilisation(), u, 1e-12) << k;
    const bool md = u >= 0.95 || k == 6;  // after 5 additive stages the 6th update multiplies
    wc = md ? wc / (u / 0.95) + 100 : wc + 100;
    ASSERT_NEAR(cc.window_bytes(), wc, 1e-6) << k;
  }
}

// A hop whose port differs from the previous ACK's (another path) gives no sample: only the
// matching hop counts, and the EWMA is not touched when no hop matches.
TEST(Hpcc, HopsOfAnotherPathAreSkipped) {
  Hpcc cc(params());
  cc.set_line_rate(kRate);
  net::IntStack a = stack(0, {{0, 0}, {0, 0}});
  net::IntStack b = stack(kT, {{125'000, 0}, {62'500, 0}});
  b.hop[0].port = 99;  // hop 0 now another switch port: its full rate is not a sample
  cc.on_int(a, -kT, 0);
  cc.on_int(b, 0, kT);
  EXPECT_NEAR(cc.utilisation(), 0.5, 1e-12);
  const double w = cc.window_bytes();
  cc.on_int(stack(2 * kT, {{250'000, 0}}), kT, 2 * kT);  // hop 0 back at port 10, b had 99
  EXPECT_NEAR(cc.utilisation(), 0.5, 1e-12);
  EXPECT_DOUBLE_EQ(cc.window_bytes(), w);
}

namespace {
constexpr Bytes kInt = 2 + 8 * 5;  // the INT header on the wire (the authors' 5-hop header)

config::Config hpcc_net(const std::string& dir, const std::string& flows) {
  config::Config c = test::leaf_spine();
  c.set("workload.kind", "flows_csv");
  c.set("workload.file", test::write_file(dir + "/flows.csv", flows));
  c.set("transport.cc", "hpcc");
  c.set("transport.init_cwnd_bdp", 1.0);
  c.set("network.mtu", 1024);
  return c;
}
}  // namespace

// One flow from host 20 to host 0. Every link is 100 Gb/s, so the flow's own switch ports see
// txRate = W / T and no queue: U -> W / (B T) and the window settles where U = eta + W_AI / (B T)
// (ComputeWind's fixed point W = W / (U / eta) + W_AI), 0.9504 with the default W_AI = B T / 2500.
// In wire bytes (INT included) the flow runs at that fraction of the line rate, so its FCT is the
// ideal one x (packet + INT) / packet / U, within 1.5 % (start-up at line rate, the last RTT).
TEST(HpccSim, LoneFlowRunsAtEtaOfTheLineRate) {
  const std::string dir = test::temp_dir("hpcc-lone");
  sim::Simulation s(hpcc_net(dir, "src,dst,bytes,start_us\n20,0,20000000,0\n"));
  ASSERT_EQ(s.run(), 0);
  EXPECT_TRUE(test::conserved(s));
  const auto r = s.flow_results().at(0);
  EXPECT_EQ(r.nacks, 0u);
  const double pb = static_cast<double>(s.derived().packet_bytes);
  const double u = 0.95 + 1.0 / 2500;
  const double expect = static_cast<double>(r.ideal) * (pb + kInt) / pb / u;
  const double ratio = static_cast<double>(r.fct()) / expect;
  std::printf("lone: fct %.2f us, ideal %.2f us, expected %.2f us (ratio %.4f)\n", to_us(r.fct()), to_us(r.ideal),
              expect * 1e-6, ratio);
  EXPECT_NEAR(ratio, 1.0, 0.015);
}

// The INT header is on the wire: the sender's NIC transmits exactly N data packets of
// packet_bytes + 42 and the receiver's NIC N ACKs of ack bytes + 42 (a fixed window: no loss, so
// no retransmission; ack_every 1).
TEST(HpccSim, IntHeaderBytesAreOnTheWire) {
  const std::string dir = test::temp_dir("hpcc-bytes");
  sim::Simulation s(hpcc_net(dir, "src,dst,bytes,start_us\n20,0,1024000,0\n"));
  ASSERT_EQ(s.run(), 0);
  EXPECT_TRUE(test::conserved(s));
  const auto r = s.flow_results().at(0);
  ASSERT_EQ(r.packets_sent, 1000u);
  const auto& net = s.network();
  const Bytes pb = s.derived().packet_bytes;
  const Bytes ack = s.config().integer("network.header_bytes");
  EXPECT_EQ(net.port(net.nic_port(20)).stats.tx_bytes, 1000 * (pb + kInt));
  EXPECT_EQ(net.port(net.nic_port(0)).stats.tx_bytes, 1000 * (ack + kInt));
}

namespace {
struct IncastRun {
  std::map<std::int32_t, std::uint64_t> rcv;  // src -> packets received by the end
  std::vector<double> queue;                  // bottleneck queue (switch -> host 0) samples, bytes
  SimTime base_rtt = 0;
  Bytes packet_bytes = 0;
  int rc = 0;
  std::uint64_t nacks = 0;
};

// 16 senders (hosts 4-19, on leaves 1-4: three switches to host 0) starting 50 us apart into host 0,
// run to end_us. W_AI = (1 - eta) B T / (2 N): half the paper's bound W_init (1 - eta) / N, so that
// the N flows' additive increase stays within the (1 - eta) headroom.
IncastRun run_incast(const std::string& name, double end_us, double wai, bool sample) {
  const std::string dir = test::temp_dir(name);
  std::ostringstream flows;
  flows << "src,dst,bytes,start_us\n";
  for (int i = 0; i < 16; ++i) flows << 4 + i << ",0,1000000000," << 50 * i << "\n";
  config::Config c = hpcc_net(dir, flows.str());
  c.set("run.end_us", end_us);
  c.set("transport.hpcc_wai_bytes", wai);
  if (sample) {
    c.set("output.queue_sample_us", 0.5);
    c.set("output.queue_ports", "all");
  }
  sim::Simulation s(c);
  IncastRun r;
  r.rc = s.run();
  EXPECT_TRUE(test::conserved(s));
  r.base_rtt = s.derived().base_rtt;
  r.packet_bytes = s.derived().packet_bytes;
  s.transport().for_each_report([&](const FlowReport& f) {
    r.rcv[f.src] = f.rcv_count;
    r.nacks += f.n.nacks;
  });
  if (sample) {
    s.write_outputs(dir + "/out");
    r.queue = test::queue_samples(dir + "/out/queues.csv", 0, end_us / 2);  // the last half
  }
  return r;
}
}  // namespace

// Fair shares: every update scales all windows by the same eta / U and adds the same W_AI, so the
// differences shrink by eta / U per RTT. Utilisation: with queue ~0 the N windows settle where
// U = eta + N W_AI / (B T) (ComputeWind's fixed point summed over the flows: N W = U B T), in wire
// bytes (INT included) on the receiver's link: 0.95 + 16 x 0.025 / 16 = 0.975; the band [0.96, 0.985]
// allows the EWMA's wobble and the packets' INT share. Queue: below 1 the link drains what arrives
// and the queue holds only the bursts of paced packets that meet. Each sender is paced at W / T, about
// 1/N of the line rate, so within N packet times it sends at most one packet: the queue never holds
// more than N packets (18 KB, 0.2 BDP here), and its mean and its largest sample of the last half
// stay below that, far under one BDP.
TEST(HpccSim, IncastConvergesToFairSharesAtEtaWithAnEmptyQueue) {
  constexpr double kEnd = 3000;               // us
  const double bdp = 100e9 / 8 * 7.36864e-6;  // B x T of this fabric (base RTT 7.37 us at 1 KiB)
  const double wai = 0.05 * bdp / 32;
  const IncastRun half = run_incast("hpcc-incast-a", kEnd / 2, wai, false);
  const IncastRun full = run_incast("hpcc-incast-b", kEnd, wai, true);
  ASSERT_EQ(full.rc, 3);  // nothing finishes: the flows are far longer than the run
  ASSERT_NEAR(static_cast<double>(bytes_in(full.base_rtt, gbps(100))), bdp, 2);
  std::vector<double> rates;
  double total = 0;
  for (int src = 4; src < 20; ++src) {
    const double pk = static_cast<double>(full.rcv.at(src) - half.rcv.at(src));
    rates.push_back(pk);
    total += pk;
  }
  const double j = test::jain(rates);
  EXPECT_GE(j, 0.99);
  const double wire = static_cast<double>(full.packet_bytes + kInt);
  const double util = total * wire * 8 / (100e9 * kEnd / 2 * 1e-6);
  const double u_star = 0.95 + 16 * wai / bdp;
  EXPECT_GT(util, u_star - 0.015);
  EXPECT_LT(util, u_star + 0.01);
  ASSERT_FALSE(full.queue.empty());
  double q = 0;
  for (double v : full.queue) q += v;
  q /= static_cast<double>(full.queue.size());
  const double qmax = *std::max_element(full.queue.begin(), full.queue.end());
  EXPECT_LT(q, 16 * wire);
  EXPECT_LT(qmax, 16 * wire);
  // Trims (NACKs) only at the joins: a new flow's first window (W_init = B T) arrives at line rate on
  // a busy link and the buffer (one BDP) takes what it can; the worst case trims every flow's whole
  // first window once: 16 BDPs of packets over the run.
  EXPECT_LT(static_cast<double>(full.nacks), 16 * bdp / static_cast<double>(full.packet_bytes));
  std::printf("jain %.5f util %.4f (U* %.4f) mean queue %.0f B (%.3f BDP) max %.0f B nacks %llu\n", j, util, u_star, q,
              q / bdp, qmax, static_cast<unsigned long long>(full.nacks));
}

// The load balancers over HPCC: OPS and REPS spray each packet on its own path, so hop records of
// successive ACKs often name other ports (skipped); the last hop (the receiver's ToR port) is always
// the same. A permutation and a 16-to-1 incast complete, every packet accounted for: each packet sent
// once plus one retransmission per NACK or timeout at most.
TEST(HpccSim, OpsAndRepsOverHpccComplete) {
  for (const char* lb : {"ops", "reps"}) {
    for (const char* kind : {"permutation", "incast"}) {
      config::Config c = test::leaf_spine();
      c.set("workload.kind", kind);
      c.set("workload.size", std::int64_t{1 << 20});
      if (std::string(kind) == "incast") {  // 16 senders on leaves 1-4 into host 0, all at once
        c.set("workload.incast_senders", 16);
        c.set("workload.incast_receiver", 0);
        c.set("workload.incast_first_sender", 4);
      }
      c.set("lb.algorithm", lb);
      c.set("transport.cc", "hpcc");
      c.set("transport.init_cwnd_bdp", 1.0);
      sim::Simulation s(c);
      EXPECT_EQ(s.run(), 0) << lb << " " << kind;
      EXPECT_TRUE(test::conserved(s)) << lb << " " << kind;
      std::uint64_t flows = 0, pk = 0, sent = 0, rtx = 0, nacks = 0, timeouts = 0;
      for (const auto& f : s.flow_results()) {
        EXPECT_TRUE(f.finished) << lb << " " << kind;
        ++flows;
        pk += f.packets;
        sent += f.packets_sent;
        rtx += f.retransmits;
        nacks += f.nacks;
        timeouts += f.timeouts;
      }
      EXPECT_EQ(flows, std::string(kind) == "incast" ? 16u : 32u) << lb << " " << kind;
      EXPECT_EQ(sent, pk + rtx) << lb << " " << kind;  // every packet sent once, plus the retransmissions
      EXPECT_LE(rtx, nacks + timeouts) << lb << " " << kind;
      std::printf("%s %s: packets %llu sent %llu nacks %llu timeouts %llu\n", lb, kind,
                  static_cast<unsigned long long>(pk), static_cast<unsigned long long>(sent),
                  static_cast<unsigned long long>(nacks), static_cast<unsigned long long>(timeouts));
    }
  }
}

// Bad values exit 2 naming the key; the SMaRTT options are refused, not ignored.
TEST(HpccSim, BadKeysExitTwo) {
  const std::string dir = test::temp_dir("hpcc-bad");
  const std::string base =
      "[topology]\nkind = \"fat_tree\"\nhosts = 32\ntiers = 2\nradix = 8\n[workload]\nkind = \"permutation\"\n"
      "size = \"64KB\"\n[transport]\ncc = \"hpcc\"\n";
  for (const std::string& bad :
       {std::string("hpcc_eta = 1.5"), std::string("hpcc_eta = 0"), std::string("hpcc_max_stage = -1"),
        std::string("hpcc_wai_bytes = -3"), std::string("hpcc_t_us = -1"), std::string("hpcc_int_hops = 6"),
        std::string("hpcc_int_hops = 0"), std::string("quick_adapt = true")}) {
    const std::string file = test::write_file(dir + "/bad.toml", base + bad + "\n");
    const auto r = test::run_lbsim("run " + file + " --out " + dir + "/out --quiet");
    EXPECT_EQ(r.code, 2) << bad << "\n" << r.out;
    const std::string key = "transport." + bad.substr(0, bad.find(' '));
    EXPECT_NE(r.out.find(key), std::string::npos) << bad << "\n" << r.out;
  }
}
