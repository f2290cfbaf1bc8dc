// Per-flow load-balancer setup for a run: which policy each workload entry gets and what it needs.
//   - workload.ecmp_fraction: a seeded fraction of the transfers switches to ECMP ([REPS] sec. 4.3.2;
//     workload/ecmp_background.h);
//   - what the run's routing tells a switch pair's connections about its paths (a
//     routing::PairPathSource, e.g. Spritz EV entry lists): asked for every (source switch,
//     destination switch) pair the workload uses before the run, handed to each flow's policy;
//   - pinned flows (lb = via_group:<g>, pinned_ecmp): the EV of their path, routed by
//     routing::PinnedPaths whatever the run's routing;
//   - output.path_usage_tag: a recorder around the policy of every flow with that tag;
//   - one maker per load balancer the workload names (lb/registry.h), built before the run so an
//     unknown name is an error up front, and the load balancers' summary.json blocks and run files.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config.h"
#include "lb/recording.h"
#include "lb/registry.h"
#include "net/network.h"
#include "routing/pinned.h"
#include "routing/registry.h"
#include "routing/tables.h"
#include "sim/derived.h"
#include "topo/topology.h"
#include "transport/transport.h"
#include "workload/ecmp_background.h"
#include "workload/flow_spec.h"
#include "workload/stream.h"

namespace lbsim::sim {

class FlowSetup {
 public:
  // May retag entries of `wl` (ecmp_fraction); `run_router` is the run's switch routing.
  FlowSetup(const config::Config& cfg, const topo::Topology& topo, workload::Workload& wl, const Derived& d,
            const routing::MinimalTables& tables, net::Router& run_router);
  ~FlowSetup();

  // The router the network uses: `run_router`, or a dispatcher that sends pinned packets to their
  // own router first (routing::PinnedPaths).
  net::Router& router(net::Router& run_router);
  // One policy per flow (handed to the transport).
  std::unique_ptr<lb::EntropyPolicy> make_policy(const workload::FlowSpec& s, std::uint32_t id);
  // Whether entry id's policy must stay after its transfer (transport::PolicyKeep): its plug-in has a
  // summary.json block over every flow's policy, or the flow's path usage is recorded.
  bool keeps_policy(const workload::FlowSpec& s, std::uint32_t id) const;
  // Entry id's policy is about to be freed (transport::PolicyDone): its plug-in's summary fold takes
  // what the summary.json block needs from it.
  void policy_done(const workload::FlowSpec& s, std::uint32_t id, const lb::EntropyPolicy& policy);
  // workload.stream: the constructor saw no entries; this sees them all once (ECMP fraction coins,
  // the paths of the switch pairs used, one maker per load balancer), then restarts the coins so
  // that the run's entries (fed through retag) draw them again.
  void prepare_stream(workload::EntryStream& stream, workload::Workload& tags);
  // workload.ecmp_fraction: entry by entry in id order (one coin per transfer without an lb).
  void retag(workload::FlowSpec& f);

  // summary.json: each load balancer's own block.
  void add_summary(nlohmann::json& j, const transport::Transport& tr) const;
  // The load balancers' own run files (lb::LbPlugin::write_files) into `dir`.
  void write_lb_files(const std::string& dir, const transport::Transport& tr) const;
  // path_usage.csv (output.path_usage_tag, docs/outputs.md).
  void write_path_usage(std::ostream& os) const;
  bool recording() const { return record_tag_ >= 0; }

 private:
  std::string lb_name(const workload::FlowSpec& s) const { return s.lb.empty() ? default_lb_ : s.lb; }
  std::vector<const lb::EntropyPolicy*> policies_of(const std::string& name, const transport::Transport& tr) const;
  void resolve_pins();
  void prepare_pair(const workload::FlowSpec& f);
  void add_maker(const workload::FlowSpec& f);

  const config::Config& cfg_;
  const topo::Topology& topo_;
  const workload::Workload& wl_;
  std::string default_lb_;
  std::uint64_t seed_;
  lb::PolicyContext run_ctx_;  // the run-wide part of every flow's context
  std::map<std::string, lb::PolicyMaker> makers_;
  // The run's router when it tells connections about their switch pair's paths (null otherwise).
  routing::PairPathSource* pair_source_ = nullptr;
  std::unique_ptr<routing::PinnedPaths> pins_;         // when some entry is pinned
  std::map<std::uint32_t, std::uint32_t> pinned_evs_;  // by workload index
  std::int32_t record_tag_ = -1;
  struct Recorded {
    std::uint32_t id;
    std::int32_t src, dst;
    const lb::RecordingPolicy* rec;  // owned by the flow
  };
  std::vector<Recorded> recorders_;
  workload::EcmpBackground ecmp_;
  // Per load balancer with a summary fold (lb::LbPlugin::fold): the policies freed so far, folded.
  struct Folded {
    std::unique_ptr<lb::SummaryFold> fold;
    std::size_t flows = 0;
  };
  std::map<std::string, Folded> folded_;
};

}  // namespace lbsim::sim
