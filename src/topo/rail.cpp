// The Rail topology of [LAPS] sec. 4.1, Fig. 1(b): `rail_nodes` clusters (servers) of `rail_gpus`
// GPUs. Every cluster has a scale-up switch (NVLink-like, its own rate and latency); GPU g of every
// cluster reaches rail switch g for scale-out. As in the authors' ns-3 build (docs/laps.md), every
// GPU sits behind its own NIC switch, linked to its cluster's NVLink switch and to its rail switch:
// a lbsim host has one port, and the NIC switch is where a GPU's traffic chooses between the scale-up
// and the scale-out side. Traffic inside a cluster goes GPU -> NIC -> NVLink -> NIC -> GPU; between
// clusters there is one path per rail r: through the source cluster's NVLink switch to the NIC of
// GPU r unless the source is GPU r itself, rail switch r, and the NVLink hop at the far end unless
// the destination is GPU r (LAPS sec. 2: "a packet can be routed to any node in the same cluster
// first before being forwarded to the scale-out network").
//
// Layout: host h = c * G + g (cluster c, GPU g), labelled "gpu<c>.<g>"; switches: NIC switches
// "nic<c>.<g>" (index c * G + g, group c), then NVLink switches "nvl<c>" (group c), then rail
// switches "rail<g>" (group -1). Link kinds: GPU-NIC HostLink (topology.host_latency_ns), NIC-NVLink
// Local (topology.nvlink_rate_gbps / nvlink_latency_ns), NIC-rail Global (topology.global_latency_ns);
// scale-out links run at topology.link_rate_gbps, host links at topology.rail_host_rate_gbps (0: the
// same).
#include <string>

#include <fmt/core.h>

#include "topo/registry.h"

namespace lbsim::topo {

namespace {

struct RailParams {
  int nodes = 8, gpus = 8;
  BitsPerSec rate = 0, nvlink_rate = 0, host_rate = 0;
  SimTime host_latency = 0, nvlink_latency = 0, rail_latency = 0;
};

RailParams rail_params(const config::Config& c) {
  RailParams p;
  p.nodes = static_cast<int>(c.integer("topology.rail_nodes"));
  p.gpus = static_cast<int>(c.integer("topology.rail_gpus"));
  p.rate = rate_gbps(c.real("topology.link_rate_gbps"));
  const double nv = c.real("topology.nvlink_rate_gbps");
  p.nvlink_rate = nv > 0 ? rate_gbps(nv) : p.rate;
  const double hr = c.real("topology.rail_host_rate_gbps");
  p.host_rate = hr > 0 ? rate_gbps(hr) : p.rate;
  p.host_latency = from_ns(c.real("topology.host_latency_ns"));
  p.nvlink_latency = from_ns(c.real("topology.nvlink_latency_ns"));
  p.rail_latency = from_ns(c.real("topology.global_latency_ns"));
  return p;
}

Topology build_rail(const config::Config& c) {
  const RailParams p = rail_params(c);
  const int n = p.nodes, g = p.gpus;
  Topology t;
  t.kind = "rail";
  t.rail_planes = true;
  for (int ci = 0; ci < n; ++ci)
    for (int gi = 0; gi < g; ++gi) t.add_host(fmt::format("gpu{}.{}", ci, gi));
  for (int ci = 0; ci < n; ++ci)
    for (int gi = 0; gi < g; ++gi) t.add_switch(fmt::format("nic{}.{}", ci, gi), ci, 1);
  for (int ci = 0; ci < n; ++ci) t.add_switch(fmt::format("nvl{}", ci), ci, 2);
  for (int gi = 0; gi < g; ++gi) t.add_switch(fmt::format("rail{}", gi), -1, 2);
  const auto nic = [&](int ci, int gi) { return t.switch_node(ci * g + gi); };
  const auto nvl = [&](int ci) { return t.switch_node(n * g + ci); };
  const auto rail = [&](int gi) { return t.switch_node(n * g + n + gi); };
  for (int ci = 0; ci < n; ++ci)
    for (int gi = 0; gi < g; ++gi) t.connect(ci * g + gi, nic(ci, gi), p.host_rate, p.host_latency, LinkKind::HostLink);
  for (int ci = 0; ci < n; ++ci)
    for (int gi = 0; gi < g; ++gi) t.connect(nic(ci, gi), nvl(ci), p.nvlink_rate, p.nvlink_latency, LinkKind::Local);
  for (int gi = 0; gi < g; ++gi)
    for (int ci = 0; ci < n; ++ci) t.connect(nic(ci, gi), rail(gi), p.rate, p.rail_latency, LinkKind::Global);
  t.set_param("nodes", std::to_string(n));
  t.set_param("gpus_per_node", std::to_string(g));
  t.set_param("hosts", std::to_string(n * g));
  t.set_param("nic_switches", std::to_string(n * g));
  t.set_param("nvlink_switches", std::to_string(n));
  t.set_param("rail_switches", std::to_string(g));
  t.set_param("switches", std::to_string(n * g + n + g));
  t.set_param("inter_node_paths", std::to_string(g));
  t.set_param("nvlink_rate_gbps", fmt::format("{}", static_cast<double>(p.nvlink_rate) / 1e9));
  t.set_param("host_rate_gbps", fmt::format("{}", static_cast<double>(p.host_rate) / 1e9));
  return t;
}

TopologySize rail_size(const config::Config& c) {
  const RailParams p = rail_params(c);
  TopologySize s;
  s.hosts = static_cast<double>(p.nodes) * p.gpus;
  s.switches = s.hosts + p.nodes + p.gpus;
  s.links = 3 * s.hosts;
  s.next_hops = 1.5;
  s.host_rate_bps = static_cast<double>(p.host_rate);
  s.keys = "topology.rail_nodes, topology.rail_gpus";
  return s;
}

using namespace config;
const RegisterTopology kRail{
    {{"rail",
      "Rail ([LAPS] sec. 4.1, Fig. 1b): clusters of GPUs with an NVLink-like scale-up switch each; GPU g of every "
      "cluster on rail switch g (docs/laps.md).",
      {
          integer("topology.rail_nodes", 8, "clusters",
                  "Rail: clusters (servers), each with one NVLink switch ([LAPS] sec. 4.1: 8).")
              .range(1, 4096),
          integer("topology.rail_gpus", 8, "GPUs", "Rail: GPUs per cluster = rail switches ([LAPS] sec. 4.1: 8).")
              .range(1, 1024),
          real("topology.nvlink_rate_gbps", 0, "Gb/s",
               "Rail: rate of the NIC-NVLink (scale-up) links; 0 = topology.link_rate_gbps ([LAPS] sec. 4.1: all links "
               "100 Gb/s).")
              .range(0, 1e6),
          real("topology.rail_host_rate_gbps", 0, "Gb/s",
               "Rail: rate of the GPU-NIC (host) links; 0 = topology.link_rate_gbps ([LAPS] sec. 4.1: all links 100 "
               "Gb/s; the authors' ns-3 Rail topology file has 200 Gb/s host links, docs/laps.md).")
              .range(0, 1e6),
          real("topology.nvlink_latency_ns", 25, "ns", "Rail: latency of the NIC-NVLink (scale-up) links.")
              .range(0, 1e9),
      },
      {"topology.rail_nodes=2", "topology.rail_gpus=2"}},
     &build_rail,
     &rail_size}};
}  // namespace

}  // namespace lbsim::topo
