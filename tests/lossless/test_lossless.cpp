// Lossless modes (network.flow_control = credit | pfc; docs/lossless.md): no drops under incast,
// conservation, FCTs derived from the link rates and the credit loop, PFC pause/resume,
// head-of-line blocking of a victim flow, and a planted cyclic route that stalls with a report.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "../sim/helpers.h"
#include "config/reader.h"
#include "core/error.h"
#include "routing/path_model.h"
#include "routing/registry.h"
#include "sim/simulation.h"
#include "topo/registry.h"

using namespace lbsim;

namespace {

// ---- A planted cyclic route (test only): a ring of switches and a routing that always forwards
// clockwise. Every switch-to-switch hop then waits on the next one around the ring: with buffers
// full of packets that have further to go, the channel dependency graph is a cycle and the network
// deadlocks.

// Switches r0..r{n-1}, `p` hosts each (host h on switch h / p). Switch ports: hosts first, then the
// ring links.
topo::Topology ring(int n, int p, BitsPerSec rate, SimTime host_latency, SimTime ring_latency) {
  topo::Topology t;
  t.kind = "test_ring";
  for (int h = 0; h < n * p; ++h) t.add_host("h" + std::to_string(h));
  std::vector<std::int32_t> sw;
  for (int i = 0; i < n; ++i) sw.push_back(t.add_switch("r" + std::to_string(i), i, 1));
  for (int h = 0; h < n * p; ++h) t.connect(h, sw[h / p], rate, host_latency, topo::LinkKind::HostLink);
  for (int i = 0; i < n; ++i) t.connect(sw[i], sw[(i + 1) % n], rate, ring_latency, topo::LinkKind::Local);
  return t;
}

const topo::RegisterTopology kRing{
    {{"test_ring",
      "Test only: a ring of topology.test_ring_switches switches with topology.p hosts each.",
      {config::integer("topology.test_ring_switches", 4, "switches", "test_ring: switches in the ring.").range(3, 64)},
      {}},
     [](const config::Config& c) {
       return ring(static_cast<int>(c.integer("topology.test_ring_switches")),
                   std::max<int>(1, static_cast<int>(c.integer("topology.p"))),
                   topo::rate_gbps(c.real("topology.link_rate_gbps")), from_ns(c.real("topology.host_latency_ns")),
                   from_ns(c.real("topology.local_latency_ns")));
     },
     [](const config::Config& c) {
       topo::TopologySize s;
       s.switches = static_cast<double>(c.integer("topology.test_ring_switches"));
       s.hosts = s.switches * static_cast<double>(std::max<std::int64_t>(1, c.integer("topology.p")));
       s.links = s.hosts + s.switches;
       s.host_rate_bps = static_cast<double>(topo::rate_gbps(c.real("topology.link_rate_gbps")));
       s.keys = "topology.test_ring_switches";
       return s;
     }}};

struct Clockwise final : net::Router {
  const routing::MinimalTables& tables;
  std::vector<std::int32_t> next_port;  // per node: the port to the next switch clockwise
  explicit Clockwise(const routing::MinimalTables& t) : tables(t) {
    const auto& topo = t.topology();
    next_port.assign(static_cast<std::size_t>(topo.size()), -1);
    const std::int32_t n = topo.num_switches();
    for (std::int32_t s = 0; s < n; ++s) {
      const std::int32_t node = topo.switch_node(s), next = topo.switch_node((s + 1) % n);
      for (std::size_t k = 0; k < topo.ports[node].size(); ++k)
        if (topo.ports[node][k].peer == next) next_port[node] = static_cast<std::int32_t>(k);
    }
  }
  std::int32_t route(std::int32_t node, net::Packet& p) override {
    if (tables.topology().host_switch(p.dst) == node) return tables.host_port(p.dst);
    return next_port[node];
  }
};

const routing::RegisterRouting kClockwise{
    {{"test_clockwise", "Test only: always forward to the next switch of a test_ring (a cyclic route).", {}, {}},
     [](const routing::RoutingContext& c) { return std::make_unique<Clockwise>(c.tables); }}};

// ---- helpers

config::Config with(config::Config c, std::initializer_list<const char*> overrides) {
  for (const char* o : overrides) config::apply_override(c, o);
  return c;
}

struct RunResult {
  int rc = -1;
  nlohmann::json j;
  std::vector<metrics::FlowResult> flows;
  sim::Derived d;
  std::string dir;
  std::uint64_t switch_tx = 0;  // packets that started leaving a switch
};

RunResult run(config::Config c, const std::string& name = "") {
  sim::Simulation s(std::move(c));
  RunResult r;
  r.rc = s.run();
  r.j = s.summary();
  r.flows = s.flow_results();
  r.d = s.derived();
  for (std::uint32_t i = 0; i < s.network().num_ports(); ++i)
    if (!s.network().port(i).is_nic) r.switch_tx += s.network().port(i).stats.tx_packets;
  EXPECT_TRUE(test::conserved(s));
  if (!name.empty()) {
    r.dir = test::temp_dir(name);
    s.write_outputs(r.dir);
  }
  return r;
}

SimTime max_finish(const RunResult& r) {
  SimTime t = 0;
  for (const auto& f : r.flows) t = std::max(t, f.finish);
  return t;
}

const metrics::FlowResult& flow(const RunResult& r, std::uint32_t id) { return r.flows.at(id); }

// queues.csv rows as (node, port, data_bytes, blocked).
struct QRow {
  int node, port;
  long data;
  int blocked;
};
std::vector<QRow> queue_rows(const std::string& dir) {
  std::vector<QRow> rows;
  std::istringstream in(test::read_file(dir + "/queues.csv"));
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "time_us,node,port,peer,data_bytes,ctrl_bytes,blocked,node_label,peer_label");
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    rows.push_back({std::stoi(f[1]), std::stoi(f[2]), std::stol(f[4]), std::stoi(f[6])});
  }
  return rows;
}

class Lossless : public ::testing::TestWithParam<std::string> {};

// ---- 8-to-1 incast (1 MiB each to host 0 of the 128-host fat tree): nothing dropped, every packet
// sent is delivered once, every flow completes.
//
// FCT bound, with fixed windows (transport.cc = none, 1.5 BDP per flow): the receiver link must carry
// 8 x (1 MiB + 256 headers of 64 bytes), so the last flow ends no earlier than that at 400 Gb/s
// (`drain`). It ends at most one base RTT later: the first packet reaches the receiver within one
// unloaded one-way trip (below the base RTT), and from then on the link never idles, because the
// senders' windows (12 BDP together, and 1.5 BDP for the last flow alone) always keep packets queued
// at the receiver's port; in a lossless network none of them is lost, so none has to be resent.
// (With DCTCP the windows shrink on ECN marks and the tail depends on how fair the marks were; the
// second part checks only losslessness there.)
TEST_P(Lossless, IncastHasNoDropsAndRunsAtTheReceiverLinkRate) {
  const Bytes size = 1 << 20;
  for (const char* cc : {"none", "dctcp_ack"}) {
    SCOPED_TRACE(cc);
    auto c = with(test::small_fat_tree(), {"workload.kind=\"incast\"", "workload.incast_senders=8",
                                           "workload.incast_receiver=0", "workload.size=1048576"});
    c.set("network.flow_control", GetParam());
    c.set("transport.cc", cc);
    const RunResult r = run(c);
    ASSERT_EQ(r.rc, 0);
    EXPECT_EQ(r.j["completed"], 8u);
    EXPECT_EQ(r.j["drops"], 0u);
    EXPECT_EQ(r.j["trims"], 0u);
    EXPECT_EQ(r.j["failure_drops"], 0u);
    EXPECT_EQ(r.j["conservation"]["dropped"], 0u);
    EXPECT_TRUE(r.j["conservation"]["ok"].get<bool>());
    EXPECT_EQ(r.j["flow_control"]["mode"], GetParam());
    // Sent = delivered: each data packet went out once (nothing lost, nothing timed out) and arrived once.
    for (const auto& f : r.flows) {
      EXPECT_EQ(f.packets_sent, f.packets) << "flow " << f.id;
      EXPECT_EQ(f.retransmits, 0u) << "flow " << f.id;
      EXPECT_EQ(f.timeouts, 0u) << "flow " << f.id;
      EXPECT_EQ(f.duplicates, 0u) << "flow " << f.id;
      EXPECT_EQ(f.nacks, 0u) << "flow " << f.id;
    }
    const auto& fc = r.j["flow_control"];
    if (GetParam() == "pfc") {
      // The receiver port's queue grows past Xoff at the ToR ingresses: pauses go out, and once the
      // incast has drained every pause has been resumed.
      EXPECT_GT(fc["pause_frames"].get<std::uint64_t>(), 0u);
      EXPECT_EQ(fc["resume_frames"], fc["pause_frames"]);
      EXPECT_GT(fc["paused_us"].get<double>(), 0.0);
      EXPECT_GT(fc["max_ingress_bytes"].get<Bytes>(), fc["xoff_bytes"].get<Bytes>());
      EXPECT_LE(fc["max_ingress_bytes"].get<Bytes>(),
                fc["xoff_bytes"].get<Bytes>() + fc["headroom_bytes_max"].get<Bytes>());
    } else {
      EXPECT_LE(fc["max_ingress_bytes"].get<Bytes>(), fc["ingress_buffer_bytes"].get<Bytes>());
      EXPECT_GT(fc["nic_blocked_episodes"].get<std::uint64_t>(), 0u);  // the senders were held back by credits
    }
    if (std::string(cc) != "none") continue;
    const Bytes packets = size / 4096, wire = size + packets * 64;
    const SimTime drain = serialization_ps(8 * wire, gbps(400));
    const SimTime fct = max_finish(r);
    EXPECT_GE(fct, drain);
    EXPECT_LE(fct, drain + r.d.base_rtt) << "drain " << to_us(drain) << " us, base RTT " << to_us(r.d.base_rtt)
                                         << " us";
  }
}

// ---- One flow with buffers larger than the credit loop: nothing waits, so the FCT is the lossy FCT
// to the picosecond (the lossless machinery adds events but no delay).
TEST_P(Lossless, SingleFlowWithLargeBuffersHasTheLossyFct) {
  const std::string dir = test::temp_dir("single-flow");
  const std::string flows = test::write_file(dir + "/flows.csv", "src,dst,bytes,start_us\n0,127,1048576,0\n");
  auto c = with(test::small_fat_tree(), {"workload.kind=\"flows_csv\""});
  c.set("workload.file", flows);
  const RunResult lossy = run(c);
  c.set("network.flow_control", GetParam());
  const RunResult ll = run(c);
  ASSERT_EQ(lossy.rc, 0);
  ASSERT_EQ(ll.rc, 0);
  EXPECT_EQ(flow(ll, 0).fct(), flow(lossy, 0).fct());
  EXPECT_EQ(flow(ll, 0).fct(), flow(lossy, 0).ideal);  // alone on the network: the ideal FCT
  const auto& fc = ll.j["flow_control"];
  EXPECT_EQ(fc["blocked_episodes"], 0u);
  EXPECT_EQ(fc["nic_blocked_episodes"], 0u);
  if (GetParam() == "credit") {
    EXPECT_GT(ll.d.ingress_buffer, ll.d.credit_loop_max);
    // One credit per packet that started leaving a switch (data and ACKs), at least the 3 switch
    // hops of each of the 256 data packets.
    EXPECT_EQ(fc["credit_returns"], ll.switch_tx);
    EXPECT_GE(ll.switch_tx, 3u * 256u);
  } else {
    EXPECT_EQ(fc["pause_frames"], 0u);
  }
}

// ---- A buffer smaller than the credit loop limits the rate to buffer / loop: with room for m = 2
// packets per ingress, a sender puts 2 packets on the wire and waits for the first credit, which
// returns when the first packet starts leaving the next switch: serialization + latency + switch
// latency there, latency back. Every hop of the fat tree has the same loop, so pairs flow through the
// pipeline unhindered: the last pair leaves the NIC (N/2 - 1) loops after the first and arrives like
// an isolated 2-packet message, FCT = (N/2 - 1) x loop + ideal FCT of 2 packets.
TEST(Lossless, CreditLoopLimitsTheRateExactly) {
  const std::string dir = test::temp_dir("credit-loop");
  const Bytes size = 64 * 4096;
  const std::string flows =
      test::write_file(dir + "/flows.csv", "src,dst,bytes,start_us\n0,127," + std::to_string(size) + ",0\n");
  auto c = with(test::small_fat_tree(), {"workload.kind=\"flows_csv\"", "network.flow_control=\"credit\"",
                                         "network.ingress_buffer_bytes=8320"});
  c.set("workload.file", flows);
  sim::Simulation s(c);
  ASSERT_EQ(s.run(), 0);
  EXPECT_TRUE(lbsim::test::conserved(s));
  const Bytes packet = 4096 + 64;
  const SimTime ser = serialization_ps(packet, gbps(400));
  const SimTime loop = ser + 2 * ns(500) + ns(500);  // host and tier1 links: 500 ns, switch 500 ns
  ASSERT_GT(loop, 2 * ser);                          // the buffer, not the link, is the limit
  const routing::MinimalTables tables(s.topology());
  routing::PathModel pm(tables, ns(500));
  const SimTime pair = pm.ideal_fct(0, 127, 2 * 4096, 4096, 64);
  const auto fr = s.flow_results();
  EXPECT_EQ(fr[0].fct(), (64 / 2 - 1) * loop + pair);
  const auto fc = s.summary()["flow_control"];
  EXPECT_GT(fc["nic_blocked_episodes"].get<std::uint64_t>(), 0u);
  EXPECT_GE(fc["max_ingress_bytes"].get<Bytes>(), packet);
  EXPECT_LE(fc["max_ingress_bytes"].get<Bytes>(), 2 * packet);
}

// ---- Head-of-line blocking. One spine (ToR uplinks at 4 x the host rate, so no uplink is
// oversubscribed); hosts 1, 2, 3 and host 4 (on tor1) send 8 MiB each to host 0 (on tor0), and
// victim host 5 (tor1) sends 2 MiB to host 8 (tor2) from 40 us on, when the incast's back-pressure
// has built up, through tor1's uplink like host 4's flow. Fixed windows of 8 BDP (no ECN), so the
// senders keep the buffers full. Lossy: the incast is trimmed at host 0's port and the victim's path
// is idle, so it runs at its ideal FCT. Lossless: tor0's buffer for the spine link fills with
// host 4's packets, which leave at host 4's share of host 0's link (a quarter), so the spine's
// buffer for tor1 fills with them too; tor1's uplink then waits for credit / is paused with host 4's
// packets at the head, and the victim's packets, which could go straight through, wait behind them:
// the victim gets about as much of the uplink as host 4 (a quarter of the host rate), four times
// its ideal FCT. The test asks for twice.
TEST_P(Lossless, HeadOfLineBlockingSlowsAVictimSharingAnUpstreamPort) {
  const std::string dir = test::temp_dir("hol");
  const std::string flows = test::write_file(dir + "/flows.csv",
                                             "src,dst,bytes,start_us,tag\n1,0,8388608,0,incast\n2,0,8388608,0,"
                                             "incast\n3,0,8388608,0,incast\n4,0,8388608,0,incast\n"
                                             "5,8,2097152,40,victim\n");
  auto c =
      with(config::Config{}, {"topology.hosts=12", "topology.radix=8", "topology.hosts_per_tor=4",
                              "topology.oversubscription=4", "topology.tier1_rate_gbps=1600", "run.progress=\"off\"",
                              "workload.kind=\"flows_csv\"", "transport.cc=\"none\"", "transport.init_cwnd_bdp=8",
                              "transport.max_cwnd_bdp=8", "network.ecn=false", "output.queue_sample_us=1"});
  c.set("workload.file", flows);
  const RunResult lossy = run(c, "hol-lossy");
  c.set("network.flow_control", GetParam());
  const RunResult ll = run(c, "hol-" + GetParam());
  ASSERT_EQ(lossy.rc, 0);
  ASSERT_EQ(ll.rc, 0);
  const auto& v_lossy = flow(lossy, 4);
  const auto& v_ll = flow(ll, 4);
  EXPECT_LE(v_lossy.fct(), v_lossy.ideal * 11 / 10);  // lossy: the victim does not notice the incast
  EXPECT_GE(v_ll.fct(), 2 * v_lossy.fct())
      << "victim FCT lossy " << to_us(v_lossy.fct()) << " us, " << GetParam() << " " << to_us(v_ll.fct()) << " us";
  EXPECT_EQ(ll.j["drops"], 0u);
  // queues.csv shows it: tor1's uplink (node 12 + 1 = 13, port 4) holds packets while blocked.
  const int tor1 = 12 + 1;
  int blocked_rows = 0;
  for (const auto& q : queue_rows(ll.dir))
    if (q.node == tor1 && q.port == 4 && q.blocked && q.data > 0) ++blocked_rows;
  EXPECT_GT(blocked_rows, 0);
  for (const auto& q : queue_rows(lossy.dir)) EXPECT_EQ(q.blocked, 0);
  EXPECT_GT(ll.j["flow_control"]["blocked_us"].get<double>(), 0.0);
}

// ---- The planted cyclic route: 4 switches, 2 hosts each, every host sends to a host 3 switches
// further clockwise, buffers of 2 packets. The run must end (no hang) with exit code 3 and a stall
// report that names the cycle r0 -> r1 -> r2 -> r3 -> r0 of ring ports.
config::Config ring_config(const std::string& mode, const std::string& dir) {
  std::string csv = "src,dst,bytes,start_us\n";
  for (int h = 0; h < 8; ++h) csv += std::to_string(h) + "," + std::to_string((h + 6) % 8) + ",262144,0\n";
  const std::string flows = test::write_file(dir + "/flows.csv", csv);
  auto c = with(config::Config{},
                {"topology.kind=\"test_ring\"", "topology.test_ring_switches=4", "topology.p=2",
                 "routing.algorithm=\"test_clockwise\"", "lb.algorithm=\"ecmp\"", "workload.kind=\"flows_csv\"",
                 "transport.cc=\"none\"", "run.progress=\"off\"", "network.ingress_buffer_bytes=8320",
                 "network.pfc_xoff_bytes=8320", "network.pfc_xon_bytes=4160"});
  c.set("workload.file", flows);
  c.set("network.flow_control", mode);
  return c;
}

TEST_P(Lossless, PlantedCyclicRouteStallsWithACycleReport) {
  const std::string dir = test::temp_dir("ring-" + GetParam());
  sim::Simulation s(ring_config(GetParam(), dir));
  const int rc = s.run();
  EXPECT_EQ(rc, 3);
  const auto* st = s.network().stall();
  ASSERT_NE(st, nullptr);
  EXPECT_GT(st->queued_packets, 0u);
  ASSERT_EQ(st->cycle.size(), 4u) << st->text();
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(st->cycle[i].node_label, "r" + std::to_string(i)) << st->text();
    EXPECT_EQ(st->cycle[i].peer_label, "r" + std::to_string((i + 1) % 4)) << st->text();
    EXPECT_EQ(st->cycle[i].vc, net::kVcData);
  }
  EXPECT_NE(st->text().find("wait-for cycle of 4 ports"), std::string::npos) << st->text();
  EXPECT_NE(st->text().find("r3 port 3 -> r0"), std::string::npos) << st->text();
  // Reported in summary.json too.
  const auto j = s.summary();
  ASSERT_TRUE(j["flow_control"].contains("stall"));
  EXPECT_EQ(j["flow_control"]["stall"]["cycle"].size(), 4u);
  EXPECT_EQ(j["flow_control"]["stall"]["cycle"][0]["label"], "r0");
  EXPECT_GT(j["unfinished"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(j["drops"], 0u);
  EXPECT_TRUE(test::conserved(s));
}

// An idle-waiting port schedules nothing: once the ring has deadlocked, the run ends after the
// same number of events whether the stall time is short or ten times longer (a port polling for
// credit would add events in proportion to the time waited).
TEST_P(Lossless, WaitingPortsScheduleNoEvents) {
  std::int64_t events[2];
  for (int k = 0; k < 2; ++k) {
    const std::string dir = test::temp_dir("ring-idle-" + GetParam() + std::to_string(k));
    auto c = ring_config(GetParam(), dir);
    const SimTime stall = k == 0 ? us(200) : us(2000);
    c.set("network.stall_us", to_us(stall));
    c.set("output.queue_sample_us", 50.0);  // keeps events coming, so the timed detector is what stops the run
    sim::Simulation s(c);
    EXPECT_EQ(s.run(), 3);
    EXPECT_TRUE(lbsim::test::conserved(s));
    const auto* st = s.network().stall();
    ASSERT_NE(st, nullptr);
    EXPECT_FALSE(st->events_ran_dry);
    // Checks run every stall / 4: the first one at which every port of the cycle has waited
    // stall_us declares it.
    EXPECT_GE(st->quiet, stall);
    EXPECT_LT(st->quiet, stall + stall / 4);
    // The 4 ring ports and the 8 senders' NICs, whose first buffers are full of packets waiting at
    // the ring ports.
    EXPECT_EQ(st->deadlocked_ports, 12u);
    EXPECT_EQ(st->cycle.size(), 4u);
    // The events the test itself adds: queue samples (t = 0, 50, ... us) and stall checks.
    const SimTime now = s.network().now();
    const auto added = static_cast<std::int64_t>(now / us(50) + 1 + now / (stall / 4));
    events[k] = static_cast<std::int64_t>(s.network().events_processed()) - added;
  }
  // Everything else (packets, credits, pauses, timers) is the same in both runs: the deadlocked ports
  // waited ten times longer in the second without a single event (up to the sample that may share
  // its time with the final check).
  EXPECT_LE(std::abs(events[1] - events[0]), 2) << events[0] << " vs " << events[1];
}

// A deadlock in part of the network is found while the rest keeps running: host 2 sends 32 MiB to
// host 0, both on r0 (it needs no ring link), while the hosts 0 and 1 of every switch deadlock the
// ring as above. Nothing stops moving globally until the local flow ends (at about 690 us), but the
// four ring ports wait only for each other: the run stops one stall time after the ring deadlocked.
TEST_P(Lossless, PartialDeadlockIsFoundWhileOtherTrafficRuns) {
  const std::string dir = test::temp_dir("ring-partial-" + GetParam());
  std::string csv = "src,dst,bytes,start_us\n2,0,33554432,0\n";
  for (int s = 0; s < 4; ++s)
    for (int k = 0; k < 2; ++k)
      csv += std::to_string(3 * s + k) + "," + std::to_string(3 * ((s + 3) % 4) + k) + ",262144,0\n";
  auto c = ring_config(GetParam(), dir);
  c.set("topology.p", 3);
  c.set("workload.file", test::write_file(dir + "/flows.csv", csv));
  c.set("network.stall_us", 100.0);
  sim::Simulation s(c);
  EXPECT_EQ(s.run(), 3);
  EXPECT_TRUE(lbsim::test::conserved(s));
  const auto* st = s.network().stall();
  ASSERT_NE(st, nullptr);
  EXPECT_FALSE(st->events_ran_dry);
  ASSERT_EQ(st->cycle.size(), 4u) << st->text();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(st->cycle[i].peer_label, "r" + std::to_string((i + 1) % 4)) << st->text();
  EXPECT_GE(st->deadlocked_ports, 4u) << st->text();
  const auto local = s.flow_results()[0];
  EXPECT_FALSE(local.finished);      // still running when the deadlock was reported
  EXPECT_LT(st->time, local.ideal);  // long before it could have finished
  EXPECT_GT(s.network().port(s.network().port_id(s.topology().switch_node(0), 0)).stats.tx_packets, 0u);
}

// ACKs have their own virtual channel / priority, so a NIC whose data is deadlocked still sends
// them. In the deadlocked ring (as above), host 0's data waits forever in the cycle; host 2, on the
// same switch, sends 1 MiB to host 0 from 150 us on (after the ring deadlocked at about 95 us).
// Its data needs no ring link and its ACKs leave through host 0's NIC in the control channel: it
// completes within one base RTT of its rate bound, before the stall is reported. Were the
// ACKs in the data channel, they would wait behind host 0's stuck data for good and the flow would
// never complete.
TEST_P(Lossless, AcksLeaveANicWhoseDataIsDeadlocked) {
  const std::string dir = test::temp_dir("ring-acks-" + GetParam());
  std::string csv = "src,dst,bytes,start_us\n2,0,1048576,150\n";
  for (int s = 0; s < 4; ++s)
    for (int k = 0; k < 2; ++k)
      csv += std::to_string(3 * s + k) + "," + std::to_string(3 * ((s + 3) % 4) + k) + ",262144,0\n";
  auto c = ring_config(GetParam(), dir);
  c.set("topology.p", 3);
  c.set("workload.file", test::write_file(dir + "/flows.csv", csv));
  c.set("network.stall_us", 1000.0);
  sim::Simulation s(c);
  EXPECT_EQ(s.run(), 3);
  EXPECT_TRUE(lbsim::test::conserved(s));
  const auto* st = s.network().stall();
  ASSERT_NE(st, nullptr);
  ASSERT_EQ(st->cycle.size(), 4u) << st->text();
  const auto local = s.flow_results()[0];
  ASSERT_TRUE(local.finished);
  EXPECT_LT(local.finish, st->time);
  // credit: the ring's 2-packet buffers cap host 2 at 2 packets per credit loop (serialization,
  // host link there, switch latency, credit back), as in CreditLoopLimitsTheRateExactly; pfc: Xoff
  // plus headroom lets it run at line rate.
  const SimTime ser = serialization_ps(s.derived().packet_bytes, gbps(400));
  const SimTime lat = from_ns(c.real("topology.host_latency_ns")), sw = from_ns(c.real("network.switch_latency_ns"));
  const SimTime bound = GetParam() == "credit" ? (256 / 2) * (ser + 2 * lat + sw) : local.ideal;
  EXPECT_GE(local.finish - local.start, local.ideal);
  EXPECT_LE(local.finish - local.start, bound + s.derived().base_rtt)
      << "FCT " << to_us(local.finish - local.start) << " us, ideal " << to_us(local.ideal) << " us, bound "
      << to_us(bound);
  EXPECT_EQ(local.retransmits, 0u);
  EXPECT_FALSE(s.flow_results()[1].finished);  // host 0's own flow is in the deadlock
}

INSTANTIATE_TEST_SUITE_P(Modes, Lossless, ::testing::Values("credit", "pfc"));

// ---- Config checks name the keys.
std::string load_error(const std::string& toml) {
  const std::string dir = test::temp_dir("lossless-config");
  const std::string file = test::write_file(dir + "/c.toml", toml);
  try {
    config::load(file, {});
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(LosslessConfig, TrimmingWithALosslessModeIsRejected) {
  const auto msg = load_error("[network]\nflow_control = \"credit\"\ntrimming = true\n");
  EXPECT_NE(msg.find("c.toml:3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("network.trimming"), std::string::npos) << msg;
  EXPECT_NE(msg.find("network.flow_control"), std::string::npos) << msg;
  EXPECT_EQ(load_error("[network]\nflow_control = \"credit\"\ntrimming = false\n"), "");
  EXPECT_EQ(load_error("[network]\nflow_control = \"lossy\"\ntrimming = true\n"), "");
}

TEST(LosslessConfig, BuffersAndThresholdsAreChecked) {
  auto msg = load_error("[network]\nflow_control = \"credit\"\ningress_buffer_bytes = 1000\n");
  EXPECT_NE(msg.find("network.ingress_buffer_bytes (1000)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("4160"), std::string::npos) << msg;
  msg = load_error("[network]\nflow_control = \"pfc\"\npfc_xoff_bytes = 10000\npfc_xon_bytes = 20000\n");
  EXPECT_NE(msg.find("network.pfc_xon_bytes (20000) must be below network.pfc_xoff_bytes (10000)"), std::string::npos)
      << msg;
  msg = load_error("[network]\nflow_control = \"dropless\"\n");
  EXPECT_NE(msg.find("network.flow_control"), std::string::npos) << msg;
  // Thresholds that need the topology are checked when the run is built.
  auto c = with(test::small_fat_tree(), {"network.flow_control=\"pfc\"", "network.pfc_headroom_bytes=10000"});
  try {
    sim::Simulation s(c);
    ADD_FAILURE() << "a headroom below the in-flight bytes was accepted";
  } catch (const UserError& e) {
    // 400 Gb/s x (2 x 500 ns + 500 ns) + 2 x 4160 bytes = 75000 + 8320.
    EXPECT_NE(std::string(e.what()).find("network.pfc_headroom_bytes (10000)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("83320"), std::string::npos) << e.what();
  }
  c = with(test::small_fat_tree(), {"network.flow_control=\"pfc\"", "network.pfc_xon_bytes=100000000"});
  EXPECT_THROW(sim::Simulation{c}, UserError);
}

// A lossless run switches the default trimming off and writes that into config.toml, which is then
// a valid config again (the check rejects only trimming = true given with a lossless mode).
TEST(LosslessConfig, ResolvedConfigOfALosslessRunLoadsAgain) {
  auto c = with(test::small_fat_tree(), {"network.flow_control=\"credit\"", "workload.kind=\"incast\"",
                                         "workload.incast_senders=2", "workload.size=65536"});
  sim::Simulation s(c);
  EXPECT_FALSE(s.config().flag("network.trimming"));
  ASSERT_EQ(s.run(), 0);
  EXPECT_TRUE(lbsim::test::conserved(s));
  const std::string dir = test::temp_dir("resolved");
  s.write_outputs(dir);
  const auto again = config::load(dir + "/config.toml", {});
  EXPECT_EQ(again.text("network.flow_control"), "credit");
  EXPECT_FALSE(again.flag("network.trimming"));
}

// Lossy runs have no flow-control block and never report a blocked port.
TEST(LosslessConfig, LossyRunsHaveNoFlowControlState) {
  auto c =
      with(test::small_fat_tree(), {"workload.kind=\"incast\"", "workload.incast_senders=8", "workload.size=262144"});
  sim::Simulation s(c);
  ASSERT_EQ(s.run(), 0);
  EXPECT_TRUE(lbsim::test::conserved(s));
  EXPECT_FALSE(s.summary().contains("flow_control"));
  EXPECT_FALSE(s.network().lossless());
  EXPECT_GT(s.summary()["trims"].get<std::uint64_t>(), 0u);  // the same incast trims when lossy
  for (std::uint32_t i = 0; i < s.network().num_ports(); ++i) EXPECT_FALSE(s.network().port_blocked(i));
}

}  // namespace
