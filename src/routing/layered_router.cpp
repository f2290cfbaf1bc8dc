#include "routing/layered_router.h"

#include "core/error.h"
#include "routing/registry.h"

namespace lbsim::routing {

LayeredRouter::LayeredRouter(const topo::Topology& t, RoutingLayers layers)
    : t_(t), layers_(std::move(layers)), nsw_(static_cast<std::size_t>(t.num_switches())) {
  if (layers_.num_switches() != t.num_switches())
    throw UserError("layered routing: the layers were built for a different topology");
  port_to_.assign(nsw_ * nsw_, -1);
  for (std::size_t s = 0; s < nsw_; ++s) {
    const auto& ports = t.ports[t.switch_node(static_cast<std::int32_t>(s))];
    // First port towards each neighbour (parallel links collapse into one link of the layer).
    for (std::size_t p = ports.size(); p-- > 0;)
      if (!t.is_host(ports[p].peer))
        port_to_[s * nsw_ + static_cast<std::size_t>(t.switch_index(ports[p].peer))] = static_cast<std::int16_t>(p);
  }
  host_port_.resize(t.num_hosts);
  for (std::int32_t h = 0; h < t.num_hosts; ++h) host_port_[h] = static_cast<std::int16_t>(t.ports[h][0].peer_port);
}

std::int32_t LayeredRouter::route(std::int32_t node, net::Packet& p) {
  const std::int32_t dst_sw = t_.host_switch(p.dst);
  if (node == dst_sw) return host_port_[p.dst];
  const int layer = static_cast<int>(p.ev % static_cast<std::uint32_t>(layers_.num_layers()));
  const int s = t_.switch_index(node), d = t_.switch_index(dst_sw);
  const int nh = layers_.next_hop(layer, s, d);
  return port_to_[static_cast<std::size_t>(s) * nsw_ + static_cast<std::size_t>(nh)];
}

namespace {
using namespace config;
const RegisterRouting kLayered{{{"layered",
                                 "Layered multipath routing: one destination-based forwarding table per layer, layer = "
                                 "EV mod L ([SlimFly] sec. 4-5).",
                                 {
                                     integer("routing.layers", 4, "layers",
                                             "layered: number of routing layers L (layer 0 = all links, minimal "
                                             "paths); a packet uses layer EV mod L ([SlimFly] sec. 4-5).")
                                         .range(1, 64),
                                     text("routing.layer_scheme", "layered",
                                          "layered: how layers are built: layered (Algorithm 1 / App. B), rues or "
                                          "fatpaths (baselines, docs/layered-routing.md).")
                                         .one_of({"layered", "rues", "fatpaths"}),
                                     real("routing.layer_keep_fraction", 0.6, "",
                                          "layered with rues/fatpaths: fraction of links kept in each layer >= 1.")
                                         .range(0.01, 1),
                                 },
                                 {"topology.kind=slim_fly", "topology.q=3", "topology.p=1"}},
                                [](const RoutingContext& c) {
                                  LayerOptions lo;
                                  lo.layers = static_cast<int>(c.cfg.integer("routing.layers"));
                                  lo.scheme = parse_layer_scheme(c.cfg.text("routing.layer_scheme"));
                                  lo.keep_fraction = c.cfg.real("routing.layer_keep_fraction");
                                  lo.seed = c.seed;
                                  const auto& t = c.tables.topology();
                                  return std::make_unique<LayeredRouter>(
                                      t, build_layers(normalize_graph(t.switch_adjacency()), lo));
                                }}};
}  // namespace

}  // namespace lbsim::routing
