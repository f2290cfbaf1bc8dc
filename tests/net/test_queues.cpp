// Queue behaviour of a single switch port: RED-style ECN, trimming, tail drop, priority.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "../net/star.h"
#include "net/network.h"
#include "topo/topology.h"

using namespace lbsim;

namespace {

using test::star;
using test::ToDst;

struct Sink : net::HostHandler {
  net::Network* net = nullptr;
  std::vector<net::Packet> got;
  void on_packet(std::uint32_t pkt) override {
    got.push_back(net->pkt(pkt));
    net->packets().release(pkt);
  }
  std::uint32_t pull_data(std::int32_t) override { return net::kNil; }
};

struct Bench {
  topo::Topology t = star(2);
  ToDst router{t};
  Sink sink;
  std::unique_ptr<net::Network> net;
  explicit Bench(net::NetConfig cfg, std::uint64_t seed = 1) {
    net = std::make_unique<net::Network>(t, cfg, seed);
    net->set_router(&router);
    sink.net = net.get();
    net->set_host_handler(&sink);
  }
  // Puts `n` data packets of `size` bytes into the switch port towards host 1 at time 0.
  void burst(int n, std::uint32_t size) {
    const std::uint32_t port = net->port_id(t.switch_node(0), t.ports[1][0].peer_port);
    for (int i = 0; i < n; ++i) {
      const auto pi = net->packets().alloc();
      auto& p = net->pkt(pi);
      p.type = net::PacketType::Data;
      p.psn = static_cast<std::uint32_t>(i);
      p.src = 0;
      p.dst = 1;
      p.size = size;
      p.payload = size - 64;
      net->enqueue(port, pi);
    }
    net->run(kTimeNever);
  }
};

net::NetConfig config(Bytes limit, bool trimming) {
  net::NetConfig c;
  c.queue.data_limit = limit;
  c.queue.ctrl_limit = limit;
  c.queue.kmin = 0.2;
  c.queue.kmax = 0.8;
  c.queue.trimming = trimming;
  return c;
}

}  // namespace

TEST(Queue, EcnProbabilityFollowsKminKmaxLine) {
  // Packet i of a burst sees (i - 1) packets waiting (packet 0 goes straight onto the wire).
  // RED: p(q) = 0 for q <= Kmin, (q - Kmin) / (Kmax - Kmin) in between, 1 at or above Kmax.
  const std::uint32_t size = 1000;
  const int n = 101;
  const Bytes limit = 100 * size;  // Kmin = 20 packets, Kmax = 80 packets
  const int trials = 600;
  std::vector<int> marked(n, 0);
  for (int t = 0; t < trials; ++t) {
    Bench b(config(limit, true), static_cast<std::uint64_t>(t + 1));
    b.burst(n, size);
    ASSERT_EQ(b.sink.got.size(), static_cast<std::size_t>(n));
    for (const auto& p : b.sink.got)
      if (p.ecn()) ++marked[p.psn];
  }
  double max_err = 0;
  for (int i = 1; i < n; ++i) {
    const double q = (i - 1) * static_cast<double>(size);
    const double expect = q <= 0.2 * limit ? 0.0 : q >= 0.8 * limit ? 1.0 : (q - 0.2 * limit) / (0.6 * limit);
    const double got = marked[i] / static_cast<double>(trials);
    if (expect == 0.0 || expect == 1.0) {
      EXPECT_EQ(got, expect) << "packet " << i << " saw " << q << " bytes";
    } else {
      // Binomial standard deviation <= sqrt(0.25 / 600) = 0.0204; allow 4 sigma.
      EXPECT_NEAR(got, expect, 0.082) << "packet " << i;
      max_err = std::max(max_err, std::abs(got - expect));
    }
  }
  EXPECT_EQ(marked[0], 0);
  EXPECT_GT(max_err, 0.0);  // the marking is random, not a step
}

TEST(Queue, TrimmingCutsPayloadAndJumpsTheQueue) {
  Bench b(config(10 * 4160, true));
  b.burst(20, 4160);
  auto& got = b.sink.got;
  ASSERT_EQ(got.size(), 20u);
  // Packet 0 is on the wire at once, packets 1..10 fill the 10-packet data queue, 11..19 are trimmed
  // to their 64-byte header and sent through the priority queue ahead of the waiting data.
  EXPECT_EQ(got[0].psn, 0u);
  EXPECT_FALSE(got[0].trimmed());
  for (int i = 1; i <= 9; ++i) {
    EXPECT_TRUE(got[i].trimmed());
    EXPECT_EQ(got[i].psn, static_cast<std::uint32_t>(10 + i));
    EXPECT_EQ(got[i].size, 64u);
    // The payload count survives the trim (net/packet.h): size + payload is the original wire size,
    // the bytes a Flowcut switch counted for it and its NACK subtracts.
    EXPECT_EQ(got[i].size + got[i].payload, 4160u);
  }
  for (int i = 10; i < 20; ++i) {
    EXPECT_FALSE(got[i].trimmed());
    EXPECT_EQ(got[i].psn, static_cast<std::uint32_t>(i - 9));
  }
  const auto& st = b.net->port(b.net->port_id(b.t.switch_node(0), 1)).stats;
  EXPECT_EQ(st.trims, 9u);
  EXPECT_EQ(st.drops, 0u);
  EXPECT_EQ(b.net->dropped(), 0u);
}

TEST(Queue, TailDropWithoutTrimming) {
  Bench b(config(10 * 4160, false));
  b.burst(20, 4160);
  EXPECT_EQ(b.sink.got.size(), 11u);
  EXPECT_EQ(b.net->dropped(), 9u);
  const auto& st = b.net->port(b.net->port_id(b.t.switch_node(0), 1)).stats;
  EXPECT_EQ(st.drops, 9u);
  EXPECT_EQ(st.trims, 0u);
  // Conservation: every packet created was delivered or dropped.
  EXPECT_EQ(b.net->packets().allocated(), b.net->delivered() + b.net->dropped() + b.net->packets().live());
  EXPECT_EQ(b.net->packets().live(), 0u);
}

TEST(Queue, DeliveryTimesAreSerializationPlusLatency) {
  // Back-to-back packets leave the port one serialization time apart and arrive latency later.
  Bench b(config(100 * 4160, true));
  std::vector<SimTime> times;
  struct Timed : net::HostHandler {
    net::Network* net;
    std::vector<SimTime>* times;
    void on_packet(std::uint32_t pkt) override {
      times->push_back(net->now());
      net->packets().release(pkt);
    }
    std::uint32_t pull_data(std::int32_t) override { return net::kNil; }
  } timed;
  timed.net = b.net.get();
  timed.times = &times;
  b.net->set_host_handler(&timed);
  b.burst(3, 4160);
  ASSERT_EQ(times.size(), 3u);
  EXPECT_EQ(times[0], 83'200 + 100'000);  // serialization + 100 ns link (the peer is a host: no switch latency)
  EXPECT_EQ(times[1] - times[0], 83'200);
  EXPECT_EQ(times[2] - times[1], 83'200);
}

// A packet reference stays valid while the pool grows: the transport holds the data packet while it
// allocates the ACK/NACK for it (a growing vector once moved packets under it: a use-after-free
// whenever a NACK was created exactly when the pool had to grow).
TEST(PacketPool, ReferencesSurviveGrowth) {
  net::PacketPool pool;
  const auto first = pool.alloc();
  net::Packet& p = pool[first];
  p.psn = 4242;
  p.flow = 7;
  const net::Packet* addr = &p;
  for (int i = 0; i < 3 * static_cast<int>(net::PacketPool::kChunk); ++i) pool.alloc();
  EXPECT_EQ(&pool[first], addr);
  EXPECT_EQ(p.psn, 4242u);
  EXPECT_EQ(p.flow, 7u);
  EXPECT_EQ(pool.live(), 1u + 3 * net::PacketPool::kChunk);
  pool.release(first);
  const auto again = pool.alloc();  // the free list hands the slot back, reset
  EXPECT_EQ(again, first);
  EXPECT_EQ(pool[again].psn, 0u);
}

// ACKs come from chunks of their own, the only ones with ACK fields: 5,000 data packets and 3 ACKs
// take two data chunks and one ACK chunk (records made: 5,003), a released record goes back to its
// own kind's free list, an ACK's fields survive the other kind's growth, and the peak counts the most
// records in existence at once, of both kinds.
TEST(PacketPool, AcksHaveChunksOfTheirOwn) {
  net::PacketPool pool;
  std::vector<std::uint32_t> data, acks;
  for (int i = 0; i < 5000; ++i) {
    data.push_back(pool.alloc());
    if (i % 2000 == 0) {
      acks.push_back(pool.alloc_ack());
      pool.new_ack(acks.back()).sack = 0xF0u + static_cast<std::uint64_t>(i);
    }
  }
  ASSERT_EQ(acks.size(), 3u);
  EXPECT_EQ(pool.capacity(), 5003u);
  EXPECT_EQ(pool.ack_capacity(), 3u);
  EXPECT_EQ(pool.peak_live(), 5003u);
  // The ACKs share one chunk, apart from the data chunks they were made between.
  EXPECT_EQ(acks[1], acks[0] + 1);
  EXPECT_EQ(acks[2], acks[0] + 2);
  EXPECT_NE(acks[0] >> net::PacketPool::kChunkBits, data[0] >> net::PacketPool::kChunkBits);
  EXPECT_NE(acks[0] >> net::PacketPool::kChunkBits, data[4999] >> net::PacketPool::kChunkBits);
  EXPECT_EQ(pool.ack(acks[2]).sack, 0xF0u + 4000);
  // Released: a data record goes back to the data list, an ACK's to the ACK list.
  pool.release(data[10]);
  pool.release(acks[1]);
  EXPECT_EQ(pool.live(), 5001u);
  EXPECT_EQ(pool.alloc_ack(), acks[1]);
  EXPECT_EQ(pool.alloc(), data[10]);
  EXPECT_EQ(pool.capacity(), 5003u);  // nothing new made
  for (const auto i : data) pool.release(i);
  EXPECT_EQ(pool.live(), 3u);
  EXPECT_EQ(pool.peak_live(), 5003u);
}

namespace {

// Two switches joined by one link, a host on each; the router sends every packet to the other
// switch, so nothing is ever delivered: a routing loop.
struct PingPong : net::Router {
  const topo::Topology& t;
  explicit PingPong(const topo::Topology& topo) : t(topo) {}
  std::int32_t route(std::int32_t node, net::Packet&) override {
    for (std::size_t i = 0; i < t.ports[node].size(); ++i)
      if (!t.is_host(t.ports[node][i].peer)) return static_cast<std::int32_t>(i);
    return -1;
  }
};

}  // namespace

// Issue 14: `hops` is 8 bits and a loop ran forever; a packet now dies at its (max_hops + 1)-th
// switch: exactly max_hops switch forwards, counted as a TTL drop, and the run ends.
TEST(Network, RoutingLoopEndsAtMaxHops) {
  topo::Topology t;
  t.kind = "pair";
  t.add_host("h0");
  t.add_host("h1");
  const auto s0 = t.add_switch("s0"), s1 = t.add_switch("s1");
  t.connect(0, s0, gbps(400), ns(100), topo::LinkKind::HostLink);
  t.connect(1, s1, gbps(400), ns(100), topo::LinkKind::HostLink);
  t.connect(s0, s1, gbps(400), ns(100), topo::LinkKind::Local);
  for (int max_hops : {1, 7, 254}) {
    net::NetConfig cfg = config(1 << 20, false);
    cfg.max_hops = static_cast<std::uint8_t>(max_hops);
    net::Network net(t, cfg, 1);
    PingPong router(t);
    Sink sink;
    sink.net = &net;
    net.set_router(&router);
    net.set_host_handler(&sink);
    const auto pi = net.packets().alloc();
    auto& p = net.pkt(pi);
    p.type = net::PacketType::Data;
    p.src = 0;
    p.dst = 1;
    p.size = 4160;
    p.payload = 4096;
    net.enqueue(net.port_id(0, 0), pi);  // host 0's NIC
    net.run(kTimeNever);
    EXPECT_EQ(net.ttl_drops(), 1u) << max_hops;
    EXPECT_EQ(net.dropped(), 1u) << max_hops;
    EXPECT_TRUE(sink.got.empty());
    // Switches 1..max_hops forward it, each over the s0-s1 link; the next switch drops it.
    const auto a = net.port_id(s0, 1), b = net.port_id(s1, 1);
    EXPECT_EQ(net.port(a).stats.tx_packets + net.port(b).stats.tx_packets, static_cast<std::uint64_t>(max_hops))
        << max_hops;
  }
}

// network.ecn_mark_at = "dequeue" (REPS artifact (htsim)): a packet is marked on the bytes still
// waiting behind it when it leaves. In a burst of 101 packets into a 100-packet queue every packet
// arrives before the first leaves, so packet i (i >= 1) leaves with 100 - i packets behind it:
// the first ones (>= Kmax = 80 behind, i <= 20) are always marked, the last ones (<= Kmin = 20
// behind, i >= 80) never: the mirror image of marking at enqueue.
TEST(Queue, DequeueMarkingSeesTheQueueBehind) {
  const std::uint32_t size = 1000;
  auto cfg = config(100 * size, true);
  cfg.queue.ecn_at_dequeue = true;
  Bench b(cfg);
  b.burst(101, size);
  ASSERT_EQ(b.sink.got.size(), 101u);
  for (const auto& p : b.sink.got) {
    const int behind = p.psn == 0 ? 0 : 100 - static_cast<int>(p.psn);
    if (behind >= 80) {
      EXPECT_TRUE(p.ecn()) << "psn " << p.psn;
    } else if (behind <= 20) {
      EXPECT_FALSE(p.ecn()) << "psn " << p.psn;
    }
  }
  cfg.queue.ecn_at_dequeue = false;  // at enqueue: the same line over the bytes ahead
  Bench e(cfg);
  e.burst(101, size);
  for (const auto& p : e.sink.got) {
    const int ahead = p.psn == 0 ? 0 : static_cast<int>(p.psn) - 1;
    if (ahead >= 80) {
      EXPECT_TRUE(p.ecn()) << "psn " << p.psn;
    } else if (ahead <= 20) {
      EXPECT_FALSE(p.ecn()) << "psn " << p.psn;
    }
  }
}

// network.drop_policy = "random_evict" (REPS artifact (htsim)): 100 equal packets into a 10-packet
// queue without trimming. Packet 0 goes onto the wire, 1..10 fill the queue, and each of the 89
// later arrivals overflows. With tail drop they are the victims: 0..10 arrive. With eviction each
// overflow, with probability 1/2, drops the last queued packet and queues the arrival in its place,
// so the same 89 packets are lost but the last slot ends up holding the latest arrival that evicted
// (PSN > 10 unless all 89 coin flips said no: 2^-89). The flips are the port's seeded stream.
TEST(Queue, RandomEvictReplacesTheLastQueuedPacket) {
  const std::uint32_t size = 4160;
  auto cfg = config(10 * size, false);
  auto delivered = [&](std::uint64_t seed) {
    Bench b(cfg, seed);
    b.burst(100, size);
    const auto& st = b.net->port(b.net->port_id(b.t.switch_node(0), 1)).stats;
    EXPECT_EQ(st.drops, 89u);
    std::vector<std::uint32_t> psns;
    for (const auto& p : b.sink.got) psns.push_back(p.psn);
    return psns;
  };
  std::vector<std::uint32_t> first11(11);
  for (std::uint32_t i = 0; i < 11; ++i) first11[i] = i;
  EXPECT_EQ(delivered(1), first11);
  cfg.queue.random_evict = true;
  std::set<std::uint32_t> last;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const auto got = delivered(seed);
    ASSERT_EQ(got.size(), 11u);
    for (std::uint32_t i = 0; i < 10; ++i) EXPECT_EQ(got[i], i);
    EXPECT_GT(got[10], 10u);
    EXPECT_EQ(got, delivered(seed));  // deterministic for a seed
    last.insert(got[10]);
  }
  // The survivor is the last arrival whose flip said "evict": P(PSN 99) = 1/2, P(98) = 1/4, ...
  EXPECT_GT(last.size(), 1u);
  EXPECT_TRUE(last.count(99));
}
