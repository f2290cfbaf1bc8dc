// Load-balancer plug-ins (`lb.algorithm`, or a workload entry's own `lb`): each registers its name,
// its keys and a factory (core/registry.h). A factory reads the plug-in's keys once per run and
// returns the maker that builds one policy per flow. Optional hooks give what the engine would
// otherwise have to know about the plug-in: its summary.json block, its run files, what it asks of
// the transport and its part of the memory estimate. What a policy knows of its switch pair's paths
// comes from the routing (PolicyContext::pair_paths, lb/pair_paths.h).
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config.h"
#include "core/registry.h"
#include "lb/policy.h"

namespace lbsim::lb {

using PolicyMaker = std::function<std::unique_ptr<EntropyPolicy>(PolicyContext)>;

// A load balancer's summary.json block built flow by flow: each policy is added when its flow no
// longer needs it (the transport's final ACK), so the policy can be freed at once instead of being
// kept to the end of the run (docs/scale-flows.md). The block must not depend on the order in which
// the policies are added (sums, counts, minima).
struct SummaryFold {
  virtual ~SummaryFold() = default;
  virtual void add(const EntropyPolicy& policy) = 0;
  virtual std::unique_ptr<SummaryFold> clone() const = 0;
  virtual nlohmann::json json() const = 0;
};

// What a load balancer may ask of the transport for the whole run (the transport's parameters are
// run-wide): the flags of every plug-in's hook are or-ed.
struct TransportNeeds {
  // Coalesced ACKs carry the non-ECN EVs they cover, fed back one by one ([REPS] sec. 4.5.1).
  bool ack_carry_evs = false;
};

struct LbPlugin : config::PluginInfo {
  // `run` is the run-wide part of every flow's context (base RTT, RTO, BDP, EV space, trimming), for
  // defaults derived from it (e.g. REPS' freezing timeout = the RTO).
  std::function<PolicyMaker(const config::Config&, const PolicyContext& run)> make;
  // Optional: a summary.json block ("summary_key") over the policies of every flow that used it.
  std::string summary_key;
  std::function<nlohmann::json(const std::vector<const EntropyPolicy*>&)> summarize;
  // Optional, with `summarize`: the same block as a fold (a fresh, empty one per call). A plug-in that
  // has it does not keep its policies to the end of the run.
  std::function<std::unique_ptr<SummaryFold>()> fold;
  // Optional, with `summarize` and without `fold`: run files of the plug-in's own (e.g. LAPS's
  // laps_trace.csv) written into `dir` from the policies of every flow that used it; each file's
  // name must be in sim::run_files().
  std::function<void(const std::vector<const EntropyPolicy*>&, const std::string& dir)> write_files;
  // The names of the files `write_files` may write (a re-used run folder drops a stale copy:
  // sim::run_files()).
  std::vector<std::string> files;
  // Optional: what the plug-in's keys ask of the transport. Called for every registered load balancer
  // whether or not a flow uses it (its keys are the run's, like every key).
  void (*transport)(const config::Config&, TransportNeeds&) = nullptr;
  // Optional: the memory its policies keep beyond the shared state, for the memory guard of a run
  // whose lb.algorithm it is (sim/memory.h), from the sizes and the routing's share (`path_pairs`,
  // `path_lists`) alone.
  double (*memory)(const config::Config&, const config::MemorySizes&) = nullptr;
};

config::Registry<LbPlugin>& balancers();

// What the registered load balancers' `transport` hooks ask of the transport for this config.
TransportNeeds transport_needs(const config::Config& cfg);

struct RegisterLb {
  explicit RegisterLb(LbPlugin p) { balancers().add(std::move(p)); }
};

// A plug-in whose policy needs only the flow's context: make = the constructor.
template <class P>
std::function<PolicyMaker(const config::Config&, const PolicyContext&)> simple_maker() {
  return [](const config::Config&, const PolicyContext&) -> PolicyMaker {
    return [](PolicyContext ctx) { return std::make_unique<P>(std::move(ctx)); };
  };
}

}  // namespace lbsim::lb
