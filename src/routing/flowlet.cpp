// Flowlet switching in the switches ([Flowcut] sec. I-B, III-C2; CONGA / LetFlow): every switch
// keeps, per flow, the port of the flow's current flowlet and the time its last packet passed. A
// packet that arrives more than routing.flowlet_timeout_us after the previous one of its flow starts
// a new flowlet, which takes the switch's adaptive choice (the same choice as a new flowcut,
// flowcut.select semantics: least-loaded shortest-path port, or UGAL on Dragonfly); other packets
// follow the flowlet's port and path state. ACKs are routed like any packet of the plain router.
//
// The authors' fat-tree simulator models Flowlet at the sender instead (a new random path after an
// idle gap): that is the load balancer lb.algorithm = "flowlet" with routing "ecmp"
// (docs/flowcut.md "Baselines").
//
// Entries of flows whose last packet is older than the timeout are equivalent to no entry; they are
// swept when the table has doubled since the last sweep, so the table follows the active flows.
#include "routing/flowlet.h"

#include "core/rng.h"
#include "routing/candidate_hops.h"
#include "routing/ecmp.h"
#include "routing/registry.h"

namespace lbsim::routing {

FlowletRouter::FlowletRouter(const MinimalTables& tables, ChoiceRouters routers, SimTime timeout,
                             const net::Network& net)
    : topo_(tables.topology()),
      net_(net),
      choice_(std::move(routers.choice)),
      plain_(std::move(routers.plain)),
      timeout_(timeout) {
  plain_ptr_ = plain_ ? plain_.get() : choice_.get();
}

std::int32_t FlowletRouter::route(std::int32_t node, net::Packet& p) {
  if (p.type != net::PacketType::Data) return plain_ptr_->route(node, p);
  const SimTime now = net_.now();
  const std::uint64_t k = (static_cast<std::uint64_t>(topo_.switch_index(node)) << 32) | p.flow;
  std::uint32_t idx = map_.find(k);
  if (idx != FlowKeyMap::kNone && now - pool_[idx].last <= timeout_) {
    Entry& e = pool_[idx];
    e.last = now;
    p.route_aux = e.route_aux;
    p.route_state = e.route_state;
    return e.out;
  }
  // A new flowlet: the switch's adaptive choice.
  const std::int32_t out = choice_->route(node, p);
  if (out < 0) return out;
  if (idx == FlowKeyMap::kNone) {
    if (map_.size() >= 2 * swept_size_ && map_.size() >= 4096) sweep(now);
    idx = take_slot(pool_, free_);
    map_.insert(k, idx);
    peak_ = std::max(peak_, map_.size());
  }
  Entry& e = pool_[idx];
  e.key = k;
  e.last = now;
  e.out = static_cast<std::int16_t>(out);
  e.route_aux = p.route_aux;
  e.route_state = p.route_state;
  ++flowlets_;
  return out;
}

void FlowletRouter::sweep(SimTime now) {
  for (std::uint32_t i = 0; i < pool_.size(); ++i) {
    Entry& e = pool_[i];
    if (e.key == kFree || now - e.last <= timeout_) continue;
    map_.erase(e.key);
    e.key = kFree;
    free_.push_back(i);
  }
  swept_size_ = map_.size();
}

// LetFlow ([LetFlow] sec. 3): a new flowlet takes a uniformly random port among the switch's
// shortest-path (equal-cost) next hops; at the destination's switch the host port.
RandomMinimalRouter::RandomMinimalRouter(const MinimalTables& tables, std::uint64_t seed)
    : tables_(tables), topo_(tables.topology()), rng_(seed, hash_name("letflow")) {}

std::int32_t RandomMinimalRouter::route(std::int32_t node, net::Packet& p) {
  const std::int32_t dst_sw = topo_.host_switch(p.dst);
  if (node == dst_sw) return tables_.host_port(p.dst);
  const auto c = tables_.candidates(node, dst_sw);
  if (c.empty()) return -1;
  if (c.size() == 1) return c[0];
  return c[rng_.below(c.size())];
}

namespace {
using namespace config;
std::vector<std::string> select_choices() { return {"auto", "least_loaded", "ugal"}; }

const RegisterRouting kFlowlet{
    {{"flowlet",
      "Flowlet switching at every switch: a flow's packet after an idle gap longer than routing.flowlet_timeout_us "
      "takes the switch's adaptive choice ([Flowcut] sec. III-C2).",
      {
          real("routing.flowlet_timeout_us", 0, "us",
               "flowlet: idle gap that starts a new flowlet at a switch; 0 = half the base RTT (the authors' runs: "
               "0.99, 1.58, 4.08 us).")
              .range(0, 1e9),
          text("routing.flowlet_select", "auto",
               "flowlet: port of a new flowlet: least_loaded (least-loaded shortest-path port), ugal (UGAL-L at the "
               "source switch), auto = ugal on Dragonfly, else least_loaded.")
              .one_of(&select_choices),
      },
      {}},
     [](const RoutingContext& c) -> std::unique_ptr<net::Router> {
       const double t = c.cfg.real("routing.flowlet_timeout_us");
       const SimTime timeout = t > 0 ? from_us(t) : c.base_rtt / 2;
       return std::make_unique<FlowletRouter>(c.tables, make_choice_routers(c, c.cfg.text("routing.flowlet_select")),
                                              timeout, c.net);
     },
     "flowlet",
     [](const net::Router& r, SimTime) -> nlohmann::json {
       const auto& f = static_cast<const FlowletRouter&>(r);
       return {{"flowlets", f.flowlets()}, {"timeout_us", to_us(f.timeout())}, {"peak_entries", f.peak_entries()}};
     }}};

// LetFlow (Vanini et al., NSDI'17; the LAPS evaluation's baseline): flowlet switching at every
// switch with a random port for a new flowlet ([LetFlow] sec. 3: "picks a path at random"; no
// congestion information). ACKs take plain ECMP.
const RegisterRouting kLetflow{
    {{"letflow",
      "LetFlow: flowlet switching at every switch; a new flowlet (idle gap > routing.letflow_timeout_us) takes a "
      "uniformly random shortest-path port ([LetFlow] sec. 3; docs/baselines.md), or one of the candidate paths' "
      "next hops (routing.next_hops = candidates).",
      {
          real("routing.letflow_timeout_us", 10, "us",
               "letflow: idle gap of a flow at a switch that starts a new flowlet (the LAPS artifact: 10).")
              .range(1e-6, 1e9),
      },
      {}},
     [](const RoutingContext& c) -> std::unique_ptr<net::Router> {
       ChoiceRouters r;
       if (candidate_next_hops(c)) {
         // The LAPS artifact's switches: new flowlets and ACKs over the union of the candidates' next hops.
         r.choice = std::make_unique<CandidateRandomRouter>(c.tables, CandidateUnionHops::from(c), c.seed);
         r.plain = std::make_unique<CandidateEcmpRouter>(c.tables, CandidateUnionHops::from(c), c.seed);
       } else {
         r.choice = std::make_unique<RandomMinimalRouter>(c.tables, c.seed);
         r.plain = std::make_unique<EcmpRouter>(c.tables, c.seed);
       }
       return std::make_unique<FlowletRouter>(c.tables, std::move(r), from_us(c.cfg.real("routing.letflow_timeout_us")),
                                              c.net);
     },
     "flowlet",
     [](const net::Router& r, SimTime) -> nlohmann::json {
       const auto& f = static_cast<const FlowletRouter&>(r);
       return {{"flowlets", f.flowlets()}, {"timeout_us", to_us(f.timeout())}, {"peak_entries", f.peak_entries()}};
     }}};
}  // namespace

}  // namespace lbsim::routing
