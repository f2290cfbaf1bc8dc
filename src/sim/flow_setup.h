// Per-flow load-balancer setup for a run: which policy each workload entry gets and what it needs.
//   - workload.ecmp_fraction: a seeded fraction of the transfers switches to ECMP ([REPS] sec. 4.3.2);
//   - Spritz EV entry lists ([Spritz] sec. III-C): one per (source switch, destination switch) pair
//     the workload uses, built from the source-guided router's tables and shared by the connections;
//   - pinned flows (lb = via_group:<g>): the EV of their lowest-latency source-guided path through
//     group g, routed by a fine-grained source-guided router whatever the run's routing;
//   - output.path_usage_tag: a recorder around the policy of every flow with that tag;
//   - one maker per load balancer the workload names (lb/registry.h), built before the run so an
//     unknown name is an error up front.
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
#include "lb/endpoint_table.h"
#include "lb/recording.h"
#include "lb/registry.h"
#include "net/network.h"
#include "routing/source_guided.h"
#include "routing/source_route.h"
#include "routing/tables.h"
#include "sim/derived.h"
#include "topo/topology.h"
#include "transport/transport.h"
#include "core/rng.h"
#include "workload/flow_spec.h"
#include "workload/stream.h"

namespace lbsim::sim {

class FlowSetup {
 public:
  // May retag entries of `wl` (ecmp_fraction); `run_router` is the run's switch routing.
  FlowSetup(const config::Config& cfg, const topo::Topology& topo, workload::Workload& wl, const Derived& d,
            const routing::MinimalTables& tables, net::Router& run_router);
  ~FlowSetup();

  // The router the network uses: `run_router`, or a dispatcher that sends pinned packets to a
  // fine-grained source-guided router first.
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
  // EV lists and candidate paths of the switch pairs used, one maker per load balancer), then
  // restarts the coins so that the run's entries (fed through retag) draw them again.
  void prepare_stream(workload::EntryStream& stream, workload::Workload& tags);
  // workload.ecmp_fraction: entry by entry in id order (one coin per transfer without an lb).
  void retag(workload::FlowSpec& f);

  // summary.json blocks: "spritz" (endpoint tables) and each load balancer's own block.
  void add_summary(nlohmann::json& j, const transport::Transport& tr) const;
  // The load balancers' own run files (lb::LbPlugin::write_files) into `dir`.
  void write_lb_files(const std::string& dir, const transport::Transport& tr) const;
  // path_usage.csv (output.path_usage_tag, docs/outputs.md).
  void write_path_usage(std::ostream& os) const;
  bool recording() const { return record_tag_ >= 0; }

 private:
  std::string lb_name(const workload::FlowSpec& s) const { return s.lb.empty() ? default_lb_ : s.lb; }
  std::vector<const lb::EntropyPolicy*> policies_of(const std::string& name, const transport::Transport& tr) const;
  void resolve_pins(const routing::SourceGuidedRouter& sg);
  void restart_retag();
  void add_ev_list(const workload::FlowSpec& f);
  void add_candidates(const workload::FlowSpec& f);
  void add_maker(const workload::FlowSpec& f);

  const config::Config& cfg_;
  const topo::Topology& topo_;
  const workload::Workload& wl_;
  std::string default_lb_;
  std::uint64_t seed_;
  lb::PolicyContext run_ctx_;  // the run-wide part of every flow's context
  std::map<std::string, lb::PolicyMaker> makers_;
  const routing::SourceGuidedRouter* sg_ = nullptr;  // the run's router when it is source-guided
  // Flows pinned with via_group under a routing other than fine-grained source_guided: their own
  // source-guided router and the dispatcher in front of the run's router (null otherwise).
  std::unique_ptr<routing::SourceGuidedRouter> pin_sg_;
  std::unique_ptr<net::Router> dispatch_;
  // EV entry lists per (source switch, destination switch), key src * 2^32 + dst node ids;
  // std::map keeps the addresses the policies hold stable.
  std::map<std::uint64_t, lb::EvEntryList> ev_lists_;
  std::map<std::uint64_t, lb::CandidateSet> candidates_;  // source_route: per switch pair in use
  std::map<std::uint32_t, std::uint32_t> pinned_evs_;     // by workload index
  std::int32_t record_tag_ = -1;
  struct Recorded {
    std::uint32_t id;
    std::int32_t src, dst;
    const lb::RecordingPolicy* rec;  // owned by the flow
  };
  std::vector<Recorded> recorders_;
  double ecmp_fraction_ = 0;
  std::int32_t ecmp_tag_ = -1;
  Rng ecmp_pick_;
  double w_scale_ = 1;
  routing::SourceRouteRouter* sr_ = nullptr;
  // Per load balancer with a summary fold (lb::LbPlugin::fold): the policies freed so far, folded.
  struct Folded {
    std::unique_ptr<lb::SummaryFold> fold;
    std::size_t flows = 0;
  };
  std::map<std::string, Folded> folded_;
};

}  // namespace lbsim::sim
