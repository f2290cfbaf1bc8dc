// A host whose NIC pull sends a control packet of its own (LAPS's probes leave from inside
// Transport::pull_data, LAPS sec. 3.4) must not start a second transmission on the NIC: the link
// carries one packet at a time, in lossy and in lossless mode.
#include <gtest/gtest.h>

#include <vector>

#include "../net/star.h"
#include "net/network.h"
#include "topo/topology.h"

using namespace lbsim;

namespace {

constexpr std::uint32_t kData = 4160;  // 83.2 ns at 400 Gb/s
constexpr std::uint32_t kProbe = 64;   // 1.28 ns
constexpr int kPackets = 40;

// Records when each packet reaches the switch (the router is asked at its arrival).
struct Recorder : net::Router {
  const topo::Topology& t;
  net::Network* net = nullptr;
  std::vector<std::pair<SimTime, std::uint32_t>> at_switch;  // (arrival, size)
  explicit Recorder(const topo::Topology& topo) : t(topo) {}
  std::int32_t route(std::int32_t, net::Packet& p) override {
    at_switch.emplace_back(net->now(), p.size);
    return t.ports[p.dst][0].peer_port;
  }
};

// Host 0 sends kPackets data packets; on every second pull it first sends a probe through
// send_control, as the transport does for a load balancer's probe.
struct ProbingSender : net::HostHandler {
  net::Network* net = nullptr;
  int pulled = 0;
  int probes = 0;
  int delivered = 0;
  void on_packet(std::uint32_t pkt) override {
    ++delivered;
    net->packets().release(pkt);
  }
  std::uint32_t make(std::uint32_t size, bool probe) {
    const auto pi = net->packets().alloc();
    auto& p = net->pkt(pi);
    p.type = net::PacketType::Data;
    if (probe) p.flags = net::kFlagProbe;
    p.src = 0;
    p.dst = 1;
    p.size = size;
    p.payload = size > 64 ? size - 64 : 0;
    return pi;
  }
  std::uint32_t pull_data(std::int32_t host) override {
    if (host != 0 || pulled == kPackets) return net::kNil;
    const std::uint32_t data = make(kData, false);
    if (pulled++ % 2 == 0) {
      ++probes;
      net->send_control(0, make(kProbe, true));
    }
    return data;
  }
};

void check_one_packet_at_a_time(net::NetConfig cfg) {
  const topo::Topology t = test::star(2);
  Recorder router{t};
  ProbingSender host;
  net::Network net(t, cfg, 1);
  router.net = &net;
  host.net = &net;
  net.set_router(&router);
  net.set_host_handler(&host);
  net.kick_nic(0);
  net.run(kTimeNever);
  ASSERT_EQ(host.pulled, kPackets);
  ASSERT_EQ(host.delivered, kPackets + host.probes);
  ASSERT_EQ(router.at_switch.size(), static_cast<std::size_t>(kPackets + host.probes));
  // Store and forward over one 400 Gb/s link: a packet reaches the switch one serialization time
  // of its own after the one before it, at the earliest.
  for (std::size_t i = 1; i < router.at_switch.size(); ++i) {
    const auto [t_prev, s_prev] = router.at_switch[i - 1];
    const auto [t_now, size] = router.at_switch[i];
    EXPECT_GE(t_now - t_prev, static_cast<SimTime>(size) * 8 * 1000 / 400) << "packet " << i;
  }
  // The NIC is busy for exactly the bytes it sent: the last packet reaches the switch after all of
  // them were serialized one after another, plus the link latency.
  SimTime wire = 0;
  for (const auto& [when, size] : router.at_switch) wire += static_cast<SimTime>(size) * 8 * 1000 / 400;
  EXPECT_GE(router.at_switch.back().first, wire + ns(100));
}

}  // namespace

TEST(NicPull, ControlPacketSentDuringThePullWaitsForTheLinkLossy) {
  net::NetConfig cfg;
  cfg.queue.data_limit = 1 << 20;
  cfg.queue.ctrl_limit = 1 << 20;
  check_one_packet_at_a_time(cfg);
}

TEST(NicPull, ControlPacketSentDuringThePullWaitsForTheLinkPfc) {
  net::NetConfig cfg;
  cfg.queue.data_limit = 1 << 20;
  cfg.queue.ctrl_limit = 1 << 20;
  cfg.fc.mode = net::FlowControl::Pfc;
  for (int vc = 0; vc < net::kNumVcs; ++vc) {
    cfg.fc.xoff[vc] = 64 * 1024;
    cfg.fc.xon[vc] = 32 * 1024;
  }
  cfg.fc.packet_bytes = kData;
  check_one_packet_at_a_time(cfg);
}
