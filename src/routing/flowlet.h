// Flowlet switching at every switch (routing.algorithm = "flowlet", and "letflow" with a random port
// per new flowlet); see flowlet.cpp.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

#include "core/rng.h"
#include "routing/flowcut.h"

namespace lbsim::routing {

// A uniformly random shortest-path next hop per call (LetFlow's choice for a new flowlet).
class RandomMinimalRouter final : public net::Router {
 public:
  RandomMinimalRouter(const MinimalTables& tables, std::uint64_t seed);
  std::int32_t route(std::int32_t node, net::Packet& p) override;

 private:
  const MinimalTables& tables_;
  const topo::Topology& topo_;
  Rng rng_;
};

class FlowletRouter final : public net::Router {
 public:
  FlowletRouter(const MinimalTables& tables, ChoiceRouters routers, SimTime timeout, const net::Network& net);
  std::int32_t route(std::int32_t node, net::Packet& p) override;
  std::uint64_t flowlets() const { return flowlets_; }
  SimTime timeout() const { return timeout_; }
  std::size_t peak_entries() const { return peak_; }

 private:
  static constexpr std::uint64_t kFree = ~0ULL;
  struct Entry {
    std::uint64_t key = kFree;
    SimTime last = 0;
    std::int32_t route_aux = -1;
    std::int16_t out = -1;
    std::uint8_t route_state = 0;
  };
  void sweep(SimTime now);

  const topo::Topology& topo_;
  const net::Network& net_;
  std::unique_ptr<net::Router> choice_, plain_;
  net::Router* plain_ptr_ = nullptr;
  SimTime timeout_;
  FlowKeyMap map_;
  std::vector<Entry> pool_;
  std::vector<std::uint32_t> free_;
  std::size_t swept_size_ = 0, peak_ = 0;
  std::uint64_t flowlets_ = 0;
};

}  // namespace lbsim::routing
