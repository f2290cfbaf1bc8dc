#include "analysis/path_options.h"

namespace lbsim::analysis {

topo::PathOptions path_options(const config::Config& cfg) {
  topo::PathOptions o;
  o.rule = cfg.text("paths.rule");
  o.max_hops = static_cast<int>(cfg.integer("paths.max_hops"));
  o.packet_bytes = cfg.integer("network.mtu") + cfg.integer("network.header_bytes");
  return o;
}

namespace {
[[maybe_unused]] const bool declared = [] {
  using namespace config;
  declare({
      text("paths.rule", "auto",
           "lbsim paths: which bounded paths to enumerate (docs/topologies.md): auto = dragonfly for a Dragonfly, "
           "valiant for a Slim Fly, simple otherwise; dragonfly = group-level Valiant (<= 3 local + 2 global hops), "
           "valiant = minimal to an intermediate switch and on to the destination, simple = every simple path.")
          .one_of({"auto", "dragonfly", "valiant", "simple"}),
      // 16 = the enumerator's hop buffer (topo/paths.cpp); bounded paths are far shorter.
      integer("paths.max_hops", -1, "hops",
              "lbsim paths: longest path for the valiant and simple rules; -1 = the rule's default (valiant: 2 x "
              "switch diameter, simple: the diameter).")
          .range(-1, 16),
  });
  return true;
}();
}  // namespace

}  // namespace lbsim::analysis
