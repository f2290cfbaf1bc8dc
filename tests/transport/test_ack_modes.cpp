// The ACK options of the authors' Spritz transport (htsim uec.cpp; docs/spritz.md "Paper and code"),
// each against per-packet or packet-count coalescing: ACK every N bytes (transport.ack_bytes), at once
// on an ECN mark (ack_on_ecn), on request (ack_request) and last-hop trims heard as ACKs by the load
// balancer (last_hop_trim). The receiver's decisions are checked on what the sender's load balancer
// hears: which EV each ACK names and whether it is marked.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "../net/star.h"
#include "lb/policy.h"
#include "net/network.h"
#include "topo/topology.h"
#include "transport/transport.h"
#include "workload/flow_spec.h"

using namespace lbsim;
using lb::Feedback;

namespace {

constexpr Bytes kMtu = 4096, kHeader = 64, kWire = kMtu + kHeader;
using Heard = std::vector<std::pair<std::uint32_t, Feedback>>;

// EV 100 + n for the n-th packet the flow sends; logs every feedback (EV, kind).
struct Log : lb::EntropyPolicy {
  Heard* heard;
  std::uint32_t next = 100;
  explicit Log(Heard* h) : heard(h) {}
  std::uint32_t next_ev(SimTime) override { return next++; }
  void on_feedback(std::uint32_t ev, Feedback kind, SimTime) override { heard->emplace_back(ev, kind); }
};

// Records the flags of every data packet the switches route (first transmissions and resends).
struct Spy : net::Router {
  net::Router& inner;
  std::vector<std::pair<std::uint32_t, std::uint8_t>> data;  // (psn, flags) at the first switch
  explicit Spy(net::Router& r) : inner(r) {}
  std::int32_t route(std::int32_t node, net::Packet& p) override {
    if (p.type == net::PacketType::Data && p.hops == 1) data.emplace_back(p.psn, p.flags);
    return inner.route(node, p);
  }
};

// Flows of `packets` full packets from each sender to host `dst` of `t`, a fixed window of `window`
// packets; `tp` carries the ACK options under test.
struct Bench {
  topo::Topology t;
  std::unique_ptr<net::Router> base;
  Spy spy;
  workload::Workload wl;
  std::unique_ptr<net::Network> net;
  std::unique_ptr<transport::Transport> tr;
  std::vector<Heard> heard;

  Bench(topo::Topology topo, std::unique_ptr<net::Router> router, std::vector<std::int32_t> senders, std::int32_t dst,
        std::uint32_t packets, transport::TransportParams tp, std::uint32_t window = 1000, Bytes queue = 1 << 22)
      : t(std::move(topo)), base(std::move(router)), spy(*base), heard(senders.size()) {
    for (const auto s : senders) {
      workload::FlowSpec f;
      f.src = s;
      f.dst = dst;
      f.bytes = static_cast<Bytes>(packets) * kMtu;
      wl.flows.push_back(f);
    }
    net::NetConfig nc;
    nc.queue.data_limit = queue;
    nc.queue.ctrl_limit = 1 << 20;
    nc.queue.ecn = false;
    net = std::make_unique<net::Network>(t, nc, 1);
    tp.mtu = kMtu;
    tp.header = kHeader;
    tp.rto = us(50);
    tp.cc.name = "none";
    tp.cc.init_cwnd = tp.cc.max_cwnd = static_cast<Bytes>(window) * kWire;
    tp.cc.base_rtt = us(1);
    tp.wait_senders = true;  // run until every sender has its final ACK, not only every receiver its bytes
    tr = std::make_unique<transport::Transport>(*net, wl, tp, [this](const workload::FlowSpec&, std::uint32_t id) {
      return std::make_unique<Log>(&heard[id]);
    });
    net->set_router(&spy);
    net->set_host_handler(tr.get());
    tr->start();
  }
  // A data packet of flow 0 arriving at its receiver as if it had come through the network.
  void arrive(std::uint32_t psn, std::uint32_t ev, std::uint8_t flags = 0, std::uint8_t hops = 1,
              std::uint8_t trim_hops = 0) {
    const auto i = net->packets().alloc();
    auto& p = net->pkt(i);
    p = net::Packet{};
    p.type = net::PacketType::Data;
    p.flow = 0;
    p.psn = psn;
    p.ev = ev;
    p.src = wl.flows[0].src;
    p.dst = wl.flows[0].dst;
    p.flags = flags;
    p.payload = kMtu;
    p.size = (flags & net::kFlagTrimmed) ? kHeader : kWire;
    p.hops = hops;
    p.trim_hops = trim_hops;
    p.sent_time = net->now();
    ++const_cast<transport::FlowState&>(tr->flows()[0]).in_net;  // it was "sent"
    tr->on_packet(i);
  }
  void cut_sender_link() { net->port(net->nic_port(wl.flows[0].src)).up = false; }
};

std::unique_ptr<net::Router> to_dst(const topo::Topology& t) { return std::make_unique<test::ToDst>(t); }

// Two switches in a row: hosts 0 and 1 on s0, host 2 on s1; the s0 - s1 link at `mid` (a slower one
// is where the senders' packets are trimmed, one hop before the last).
topo::Topology chain(BitsPerSec mid) {
  topo::Topology t;
  t.kind = "chain";
  for (int h = 0; h < 3; ++h) t.add_host("h" + std::to_string(h));
  const auto s0 = t.add_switch("s0"), s1 = t.add_switch("s1");
  t.connect(0, s0, gbps(400), ns(100), topo::LinkKind::HostLink);
  t.connect(1, s0, gbps(400), ns(100), topo::LinkKind::HostLink);
  t.connect(2, s1, gbps(400), ns(100), topo::LinkKind::HostLink);
  t.connect(s0, s1, mid, ns(100), topo::LinkKind::Local);
  return t;
}
struct ChainRouter : net::Router {
  const topo::Topology& t;
  explicit ChainRouter(const topo::Topology& topo) : t(topo) {}
  std::int32_t route(std::int32_t node, net::Packet& p) override {
    const auto& host = t.ports[p.dst][0];
    if (host.peer == node) return host.peer_port;
    for (std::size_t k = 0; k < t.ports[node].size(); ++k)
      if (t.ports[node][k].peer >= t.num_hosts) return static_cast<std::int32_t>(k);
    return -1;
  }
};

std::size_t count(const Heard& h, Feedback k) {
  std::size_t n = 0;
  for (const auto& [ev, kind] : h) n += kind == k;
  return n;
}

}  // namespace

// transport.ack_bytes = 16 KiB: with 4160-byte packets the 4th, 8th and 12th packets (16,640 B each
// time) trigger the ACKs, each naming that packet's EV; per-packet ACKs name all twelve.
TEST(AckModes, BytesCoalescingAcksEveryFourthPacketNamingIt) {
  transport::TransportParams tp;
  tp.ack_bytes = 16384;
  const auto st = test::star(2);
  Bench b(st, to_dst(st), {0}, 1, 12, tp);
  b.net->run(us(100));
  ASSERT_TRUE(b.tr->flows()[0].finished);
  EXPECT_EQ(b.heard[0], (Heard{{103, Feedback::Ack}, {107, Feedback::Ack}, {111, Feedback::Ack}}));

  Bench every(st, to_dst(st), {0}, 1, 12, transport::TransportParams{});
  every.net->run(us(100));
  ASSERT_EQ(every.heard[0].size(), 12u);
  for (std::uint32_t k = 0; k < 12; ++k) EXPECT_EQ(every.heard[0][k], std::make_pair(100 + k, Feedback::Ack));
}

// transport.ack_on_ecn: the marked packet (psn 1, EV 201) is ACKed at once and the ACK names it; the
// next ACK comes 4 packets later. Without it the mark rides on the 4th packet's ACK, which names EV
// 203: the load balancer blames the wrong path.
TEST(AckModes, MarkedPacketIsAckedAtOnceNamingItsPath) {
  for (const bool at_once : {true, false}) {
    transport::TransportParams tp;
    tp.ack_bytes = 16384;
    tp.ack_on_ecn = at_once;
    const auto st = test::star(2);
    Bench b(st, to_dst(st), {0}, 1, 12, tp);
    b.cut_sender_link();  // the sender's own packets vanish; the receiver sees only these
    b.net->run(ns(500));
    for (std::uint32_t psn = 0; psn < 6; ++psn) b.arrive(psn, 200 + psn, psn == 1 ? net::kFlagEcn : 0);
    b.net->run(us(3));  // the ACKs travel back (and a partial one is flushed after 1 us)
    if (at_once) {
      EXPECT_EQ(b.heard[0], (Heard{{201, Feedback::AckEcn}, {205, Feedback::Ack}}));
    } else {
      EXPECT_EQ(b.heard[0], (Heard{{203, Feedback::AckEcn}, {205, Feedback::Ack}}));  // 205: the 1-us flush
    }
  }
}

// transport.ack_request: the receiver ACKs the flow's first packet and any packet flagged AR at once;
// the sender flags the packet after which one more would reach the window (in flight + 1 packet >=
// window, htsim's rule), and the flow's last packet.
TEST(AckModes, AckRequestAcksFlaggedAndFirstPacketsAtOnce) {
  transport::TransportParams tp;
  tp.ack_bytes = 16384;
  tp.ack_request = true;
  const auto st = test::star(2);
  Bench b(st, to_dst(st), {0}, 1, 12, tp);
  b.cut_sender_link();
  b.net->run(ns(500));
  b.arrive(0, 300);
  b.arrive(1, 301);
  b.arrive(2, 302, net::kFlagAckRequest);
  b.arrive(3, 303);
  b.net->run(ns(1400));  // back at the sender, before the partial ACK of 303 is flushed (1.5 us)
  EXPECT_EQ(b.heard[0], (Heard{{300, Feedback::Ack}, {302, Feedback::Ack}}));

  // Sender: window 3 packets, 7 packets. 0: 2 in flight after it, no; 1: 2 + 1 >= 3, AR; 2: AR; then
  // one packet per ACK, each refilling the window (AR); the last (6) AR.
  Bench s(st, to_dst(st), {0}, 1, 7, tp, 3);
  s.net->run(us(100));
  ASSERT_TRUE(s.tr->flows()[0].finished);
  std::vector<std::uint32_t> ar;
  for (const auto& [psn, flags] : s.spy.data)
    if (flags & net::kFlagAckRequest) ar.push_back(psn);
  EXPECT_EQ(ar, (std::vector<std::uint32_t>{1, 2, 3, 4, 5, 6}));
  transport::TransportParams off;
  off.ack_bytes = 16384;
  Bench n(st, to_dst(st), {0}, 1, 7, off, 3);
  n.net->run(us(100));
  for (const auto& [psn, flags] : n.spy.data) EXPECT_FALSE(flags & net::kFlagAckRequest) << psn;
}

// transport.last_hop_trim = "ack": two senders into one host through one switch trim at the queue into
// the host, their last hop; the load balancers hear every such NACK as an ACK (none as a NACK), while
// the transport still counts and resends them. With "nack" every NACK reaches the load balancer. Two
// switches with a slow link between them trim one hop earlier: NACKs again under "ack".
TEST(AckModes, LastHopTrimsAreHeardAsAcks) {
  const auto st = test::star(3);
  for (const std::string mode : {"ack", "nack"}) {
    transport::TransportParams tp;
    tp.last_hop_trim_ack = mode == "ack";
    Bench b(st, to_dst(st), {0, 1}, 2, 64, tp, 1000, 4 * kWire);
    b.net->run(ms(1));
    std::uint64_t nacks = 0;
    std::size_t heard_nacks = 0, heard_acks = 0;
    for (std::size_t f = 0; f < 2; ++f) {
      ASSERT_TRUE(b.tr->flows()[f].finished);
      nacks += b.tr->flows()[f].n.nacks;
      heard_nacks += count(b.heard[f], Feedback::Nack);
      heard_acks += count(b.heard[f], Feedback::Ack);
    }
    EXPECT_GT(nacks, 20u);
    EXPECT_EQ(heard_nacks, mode == "ack" ? 0 : nacks) << mode;
    EXPECT_EQ(heard_acks, mode == "ack" ? 128 + nacks : 128) << mode;  // one ACK per delivered packet
  }
  const auto ch = chain(gbps(100));
  transport::TransportParams tp;
  tp.last_hop_trim_ack = true;
  Bench c(ch, std::make_unique<ChainRouter>(ch), {0, 1}, 2, 64, tp, 1000, 4 * kWire);
  c.net->run(ms(1));
  std::uint64_t nacks = 0;
  std::size_t heard_nacks = 0;
  for (std::size_t f = 0; f < 2; ++f) {
    ASSERT_TRUE(c.tr->flows()[f].finished);
    nacks += c.tr->flows()[f].n.nacks;
    heard_nacks += count(c.heard[f], Feedback::Nack);
  }
  EXPECT_GT(nacks, 20u);
  EXPECT_EQ(heard_nacks, nacks);
}

// Crafted trimmed arrivals: trimmed where it arrived (trim_hops == hops) is a last-hop trim, heard as
// the ACK of its path, marked if the packet was; trimmed a hop earlier it stays a NACK.
TEST(AckModes, TrimHopDecidesWhatTheLoadBalancerHears) {
  transport::TransportParams tp;
  tp.last_hop_trim_ack = true;
  const auto st = test::star(2);
  Bench b(st, to_dst(st), {0}, 1, 12, tp);
  b.cut_sender_link();
  b.net->run(ns(500));
  b.arrive(0, 400, net::kFlagTrimmed, 2, 2);
  b.arrive(1, 401, net::kFlagTrimmed | net::kFlagEcn, 2, 2);
  b.arrive(2, 402, net::kFlagTrimmed, 2, 1);
  b.net->run(us(2));
  EXPECT_EQ(b.heard[0], (Heard{{400, Feedback::Ack}, {401, Feedback::AckEcn}, {402, Feedback::Nack}}));
}
