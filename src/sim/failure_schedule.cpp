#include "sim/failure_schedule.h"

#include "routing/failure_mask.h"
#include "topo/registry.h"

namespace lbsim::sim {

FailureSchedule::FailureSchedule(const config::Config& cfg, const topo::Topology& topo) {
  if (!cfg.text("failures.file").empty()) failures_ = net::read_failure_file(cfg.path("failures.file"), topo);
  if (cfg.real("failures.random_fraction") > 0) {
    net::RandomFailures rf;
    rf.fraction = cfg.real("failures.random_fraction");
    rf.links = cfg.text("failures.random_links");
    const auto& kind = cfg.text("failures.random_kind");
    rf.kind = kind == "degrade" ? net::FailureKind::Degrade
              : kind == "loss"  ? net::FailureKind::Loss
                                : net::FailureKind::Down;
    rf.start = from_us(cfg.real("failures.random_start_us"));
    rf.duration = from_us(cfg.real("failures.random_duration_us"));
    rf.rate = topo::rate_gbps(cfg.real("failures.random_rate_gbps"));
    rf.loss = cfg.real("failures.random_loss");
    for (const auto& f : net::random_failures(rf, topo, static_cast<std::uint64_t>(cfg.integer("run.seed"))))
      failures_.push_back(f);
  }
  converge_us_ = cfg.real("failures.converge_us");
  scale_queues_ = cfg.text("failures.degrade_queues") == "scale";
  converge_ = from_us(converge_us_);
}

net::Router& FailureSchedule::attach(net::Network& net, net::Router& router, const routing::MinimalTables& tables,
                                     std::uint64_t seed) {
  net_ = &net;
  active_ = std::make_unique<net::ActiveFailures>(failures_, scale_queues_);
  for (const auto k : {net::kEvFailStart, net::kEvFailEnd, net::kEvRouteDead, net::kEvRouteAlive}) net.on(k, this);
  if (converge_ <= 0 || failures_.empty()) return router;
  mask_ = std::make_unique<routing::FailureMaskRouter>(router, tables, net, seed);
  return *mask_;
}

void FailureSchedule::schedule() {
  for (std::uint32_t i = 0; i < failures_.size(); ++i) {
    net_->events().push(failures_[i].start, net::kEvFailStart, i);
    if (failures_[i].duration > 0) net_->events().push(failures_[i].start + failures_[i].duration, net::kEvFailEnd, i);
  }
}

SimTime FailureSchedule::last_change() const {
  SimTime t = 0;
  for (const auto& f : failures_) t = std::max(t, f.start + f.duration + (mask_ ? converge_ : 0));
  return t;
}

void FailureSchedule::on_event(const Event& e) {
  const auto& f = failures_[e.obj];
  const bool down = f.kind == net::FailureKind::Down || f.kind == net::FailureKind::SwitchDown;
  auto* mask = static_cast<routing::FailureMaskRouter*>(mask_.get());
  switch (e.kind) {
    case net::kEvFailStart:
      active_->start(*net_, e.obj);
      if (mask && down) net_->events().push(net_->now() + converge_, net::kEvRouteDead, e.obj);
      break;
    case net::kEvFailEnd:
      active_->end(*net_, e.obj);
      if (mask && down) net_->events().push(net_->now() + converge_, net::kEvRouteAlive, e.obj);
      break;
    case net::kEvRouteDead:
    case net::kEvRouteAlive:
      // Routing revives a port only when no other down failure holds it (failures nest).
      for (const auto p : net::failure_ports(f, *net_))
        mask->set_dead(p, e.kind == net::kEvRouteDead || !net_->port(p).up);
      break;
    default:
      break;
  }
}

nlohmann::json FailureSchedule::summary(const topo::Topology& topo) const {
  using nlohmann::json;
  json list = json::array();
  for (const auto& f : failures_) {
    json e = {{"kind", net::failure_kind_name(f.kind)},
              {"start_us", to_us(f.start)},
              {"duration_us", f.duration > 0 ? json(to_us(f.duration)) : json(nullptr)}};
    if (f.link >= 0) e["link"] = f.link;
    if (f.link >= 0) e["ends"] = {topo.nodes[topo.links[f.link].a].label, topo.nodes[topo.links[f.link].b].label};
    if (f.node >= 0) e["switch"] = topo.nodes[f.node].label;
    if (f.from >= 0) e["from"] = topo.nodes[f.from].label;
    list.push_back(e);
  }
  return {{"count", failures_.size()}, {"converge_us", converge_us_}, {"list", list}};
}

}  // namespace lbsim::sim
