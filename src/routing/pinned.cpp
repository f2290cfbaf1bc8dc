#include "routing/pinned.h"

#include "routing/source_guided.h"

namespace lbsim::routing {

namespace {
// Packets flagged net::kFlagPinned take the source-guided router, every other packet the run's.
class PinnedDispatchRouter final : public net::Router {
 public:
  PinnedDispatchRouter(net::Router& inner, net::Router& pinned) : inner_(inner), pinned_(pinned) {}
  std::int32_t route(std::int32_t node, net::Packet& p) override {
    return (p.flags & net::kFlagPinned) ? pinned_.route(node, p) : inner_.route(node, p);
  }

 private:
  net::Router& inner_;
  net::Router& pinned_;
};
}  // namespace

PinnedPaths::PinnedPaths(const MinimalTables& tables, net::Router& run_router, std::uint64_t seed) : run_(run_router) {
  const auto* sg = dynamic_cast<const SourceGuidedRouter*>(&run_router);
  if (sg && !sg->coarse()) {
    sg_ = sg;
    return;
  }
  own_ = std::make_unique<SourceGuidedRouter>(tables, false, seed);
  sg_ = own_.get();
}

PinnedPaths::~PinnedPaths() = default;

bool PinnedPaths::via_group(std::int32_t a, std::int32_t b, std::int32_t group, std::uint32_t& ev) const {
  const auto& topo = sg_->tables().topology();
  for (const auto& p : sg_->tables().entries(a, b)) {  // latency order
    bool via = topo.nodes[b].group == group;
    for (const auto& h : p.hops) via = via || topo.nodes[h.node].group == group;
    if (!via) continue;
    ev = p.ev;
    return true;
  }
  return false;
}

std::uint32_t PinnedPaths::pinned_ecmp(std::int32_t a, std::int32_t b, Rng& pick) const {
  const auto entries = sg_->tables().entries(a, b, /*with_hops=*/false);
  return entries.empty() ? 0 : entries[pick.below(entries.size())].ev;
}

net::Router& PinnedPaths::router() {
  if (!own_) return run_;
  if (!dispatch_) dispatch_ = std::make_unique<PinnedDispatchRouter>(run_, *own_);
  return *dispatch_;
}

std::vector<std::int32_t> PinnedPaths::walk(std::int32_t a, std::int32_t b, std::uint32_t ev) const {
  std::vector<std::int32_t> nodes;
  for (const auto& h : sg_->tables().walk(a, b, ev)) nodes.push_back(h.node);
  return nodes;
}

}  // namespace lbsim::routing
