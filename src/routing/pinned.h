// Flows pinned to one path whatever the run's routing: the workload lb values via_group:<g> and
// pinned_ecmp (lb/policy.h). This file finds the EV of the path each names and gives the router their
// packets (flagged net::kFlagPinned) take. The paths are those of fine-grained source-guided routing
// ([Spritz] sec. III-A: each EV names one path): the run's own router when it is that, else a router
// of its own behind a dispatcher that sends the pinned packets to it and every other packet to the
// run's router. Not a plug-in: the simulation uses it for any routing.algorithm.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "core/rng.h"
#include "net/network.h"
#include "routing/tables.h"

namespace lbsim::routing {

class SourceGuidedRouter;

class PinnedPaths {
 public:
  PinnedPaths(const MinimalTables& tables, net::Router& run_router, std::uint64_t seed);
  ~PinnedPaths();
  PinnedPaths(const PinnedPaths&) = delete;
  PinnedPaths& operator=(const PinnedPaths&) = delete;

  // via_group:<g>: the EV of the lowest-latency bounded path from switch a to switch b (node ids)
  // through a switch of group g (b's group counts); false when no path passes there.
  bool via_group(std::int32_t a, std::int32_t b, std::int32_t group, std::uint32_t& ev) const;
  // pinned_ecmp: the EV of one of the pair's paths (every bounded path the fine-grained EVs reach),
  // drawn uniformly with `pick` (EV 0 when a == b).
  std::uint32_t pinned_ecmp(std::int32_t a, std::int32_t b, Rng& pick) const;
  // The router the network uses: the run's, or the dispatcher in front of it.
  net::Router& router();
  // The switches a pinned packet with `ev` goes through from a to b (b excluded; path_usage.csv).
  std::vector<std::int32_t> walk(std::int32_t a, std::int32_t b, std::uint32_t ev) const;

 private:
  net::Router& run_;
  std::unique_ptr<SourceGuidedRouter> own_;  // when the run's router is not fine-grained source-guided
  const SourceGuidedRouter* sg_ = nullptr;   // the router whose paths are pinned (the run's or own_)
  std::unique_ptr<net::Router> dispatch_;
};

}  // namespace lbsim::routing
