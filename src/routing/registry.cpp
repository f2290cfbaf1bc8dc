#include "routing/registry.h"

namespace lbsim::routing {

config::Registry<RoutingPlugin>& routings() {
  static config::Registry<RoutingPlugin> r("switch routing", "routing.algorithm");
  return r;
}

std::unique_ptr<net::Router> make_router(const RoutingContext& ctx) {
  return routings().get(ctx.cfg.text("routing.algorithm")).make(ctx);
}

namespace {
std::vector<std::string> routing_names() { return routings().names(); }

[[maybe_unused]] const bool declared = [] {
  config::declare(
      {config::text("routing.algorithm", "ecmp", "Switch routing plug-in (docs/topologies.md \"Switch routing\").")
           .one_of(&routing_names)});
  return true;
}();
}  // namespace

}  // namespace lbsim::routing
