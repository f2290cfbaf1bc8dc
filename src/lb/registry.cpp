#include "lb/registry.h"

namespace lbsim::lb {

config::Registry<LbPlugin>& balancers() {
  static config::Registry<LbPlugin> r("load balancer", "lb.algorithm");
  return r;
}

TransportNeeds transport_needs(const config::Config& cfg) {
  TransportNeeds n;
  for (const auto& p : balancers().entries())
    if (p.transport) p.transport(cfg, n);
  return n;
}

namespace {
std::vector<std::string> lb_names() { return balancers().names(); }

[[maybe_unused]] const bool declared = [] {
  config::declare(
      {config::text("lb.algorithm", "ops", "Sender-side load balancer (EV choice per packet).").one_of(&lb_names)});
  return true;
}();
}  // namespace

}  // namespace lbsim::lb
