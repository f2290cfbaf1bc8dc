#include "sim/flow_setup.h"

#include <algorithm>

#include <fmt/core.h>
#include <fmt/ostream.h>

#include "core/error.h"
#include "core/rng.h"
#include "core/text.h"

namespace lbsim::sim {

FlowSetup::FlowSetup(const config::Config& cfg, const topo::Topology& topo, workload::Workload& wl, const Derived& d,
                     const routing::MinimalTables& tables, net::Router& run_router)
    : cfg_(cfg),
      topo_(topo),
      wl_(wl),
      default_lb_(cfg.text("lb.algorithm")),
      seed_(static_cast<std::uint64_t>(cfg.integer("run.seed"))),
      ecmp_(cfg, wl) {
  pair_source_ = dynamic_cast<routing::PairPathSource*>(&run_router);
  const bool pins = std::any_of(wl.flows.begin(), wl.flows.end(), [](const auto& f) { return lb::is_pinned(f.lb); });
  if (pins) pins_ = std::make_unique<routing::PinnedPaths>(tables, run_router, seed_);

  // Background traffic that keeps ECMP while the rest uses lb.algorithm ([REPS] sec. 4.3.2).
  if (ecmp_.on())
    for (auto& f : wl.flows) ecmp_.retag(f);

  // What the routing tells the connections of every switch pair the workload uses (e.g. Spritz EV
  // entry lists, [Spritz] sec. III-C), built once here, before the run, and shared by them.
  for (const auto& f : wl.flows) prepare_pair(f);

  if (pins) resolve_pins();

  if (const auto& tag = cfg.text("output.path_usage_tag"); !tag.empty()) {
    const auto it = std::find(wl.tags.begin(), wl.tags.end(), tag);
    if (it == wl.tags.end())
      throw UserError(
          fmt::format("{}output.path_usage_tag: no workload entry has the tag '{}' (tags of this workload: {})",
                      cfg.where("output.path_usage_tag"), tag, config::join(wl.tags)));
    record_tag_ = static_cast<std::int32_t>(it - wl.tags.begin());
  }

  run_ctx_.ev_space = d.ev_space;
  run_ctx_.hosts = static_cast<std::size_t>(topo.num_hosts);
  run_ctx_.bdp_packets = d.bdp_packets;
  run_ctx_.base_rtt = d.base_rtt;
  run_ctx_.rto = d.rto;
  run_ctx_.trimming = cfg.flag("network.trimming");
  run_ctx_.host_rate_bps = static_cast<double>(topo.host_rate());
  // One maker per load balancer the workload uses (pinned flows need none).
  for (const auto& f : wl.flows) add_maker(f);
}

void FlowSetup::retag(workload::FlowSpec& f) { ecmp_.retag(f); }

void FlowSetup::prepare_pair(const workload::FlowSpec& f) {
  if (!pair_source_ || f.is_compute()) return;
  pair_source_->pair_paths(topo_.host_switch(f.src), topo_.host_switch(f.dst));
}

void FlowSetup::add_maker(const workload::FlowSpec& f) {
  if (f.is_compute() || lb::is_pinned(f.lb)) return;
  const std::string name = lb_name(f);
  if (makers_.count(name)) return;
  const auto* plugin = lb::balancers().find(name);
  if (!plugin)
    throw UserError(fmt::format(
        "workload: unknown load balancer '{}' (one of the lb.algorithm names, via_group:<group> or pinned_ecmp){}",
        name, config::did_you_mean(name, lb::balancers().names())));
  makers_.emplace(name, plugin->make(cfg_, run_ctx_));
}

void FlowSetup::prepare_stream(workload::EntryStream& stream, workload::Workload& tags) {
  workload::FlowSpec f;
  std::uint32_t id = 0;
  while (stream.next(f, tags)) {
    if (lb::is_pinned(f.lb))
      throw UserError(
          fmt::format("workload entry {}: lb '{}' pins the flow, which workload.stream does not support", id, f.lb));
    retag(f);
    prepare_pair(f);
    add_maker(f);
    ++id;
  }
  ecmp_.restart();  // the run draws the same coins again
}

FlowSetup::~FlowSetup() = default;

// via_group:<g>: the lowest-latency bounded path of the flow's switch pair through group g.
// pinned_ecmp: one of the pair's paths, drawn uniformly from (run.seed, workload index): the same
// path under every routing and load balancer (routing::PinnedPaths).
void FlowSetup::resolve_pins() {
  for (std::size_t i = 0; i < wl_.flows.size(); ++i) {
    const auto& f = wl_.flows[i];
    if (lb::is_pinned_ecmp(f.lb) && !f.is_compute()) {
      Rng pick(seed_, hash_name("pinned_ecmp"), i);
      pinned_evs_[static_cast<std::uint32_t>(i)] =
          pins_->pinned_ecmp(topo_.host_switch(f.src), topo_.host_switch(f.dst), pick);
      continue;
    }
    if (!lb::is_via_group(f.lb)) continue;
    const std::string where = fmt::format("workload entry {} ({} -> {}), lb '{}'", i, f.src, f.dst, f.lb);
    std::int32_t g = -1;
    try {
      std::size_t used = 0;
      const std::string num = f.lb.substr(lb::kViaGroupPrefix.size());
      g = std::stoi(num, &used);
      if (used != num.size() || g < 0) g = -1;
    } catch (const std::exception&) {
      g = -1;
    }
    if (g < 0) throw UserError(where + ": expected via_group:<non-negative group number>");
    std::uint32_t ev = 0;
    if (!pins_->via_group(topo_.host_switch(f.src), topo_.host_switch(f.dst), g, ev))
      throw UserError(where + ": no bounded path of this pair passes through group " + std::to_string(g));
    pinned_evs_[static_cast<std::uint32_t>(i)] = ev;
  }
}

net::Router& FlowSetup::router(net::Router& run_router) { return pins_ ? pins_->router() : run_router; }
std::unique_ptr<lb::EntropyPolicy> FlowSetup::make_policy(const workload::FlowSpec& s, std::uint32_t id) {
  lb::PolicyContext ctx = run_ctx_;
  ctx.flow = id;
  ctx.src = s.src;
  ctx.dst = s.dst;
  ctx.bytes = s.bytes;
  ctx.rng = Rng(seed_, hash_name("lb"), id);
  if (pair_source_) ctx.pair_paths = &pair_source_->pair_paths(topo_.host_switch(s.src), topo_.host_switch(s.dst));
  const auto pin = pinned_evs_.find(id);
  std::unique_ptr<lb::EntropyPolicy> policy = pin != pinned_evs_.end()
                                                  ? std::make_unique<lb::FixedEvPolicy>(pin->second)
                                                  : makers_.at(lb_name(s))(std::move(ctx));
  if (s.tag != record_tag_) return policy;
  auto recorder = std::make_unique<lb::RecordingPolicy>(std::move(policy));
  recorders_.push_back(Recorded{id, s.src, s.dst, recorder.get()});
  return recorder;
}

bool FlowSetup::keeps_policy(const workload::FlowSpec& s, std::uint32_t id) const {
  if (s.tag == record_tag_) return true;
  if (pinned_evs_.count(id)) return false;
  const auto* plugin = lb::balancers().find(lb_name(s));
  return plugin && plugin->summarize && !plugin->fold;
}

void FlowSetup::policy_done(const workload::FlowSpec& s, std::uint32_t id, const lb::EntropyPolicy& policy) {
  if (s.is_compute() || pinned_evs_.count(id)) return;
  const auto* plugin = lb::balancers().find(lb_name(s));
  if (!plugin || !plugin->summarize || !plugin->fold) return;
  auto& f = folded_[plugin->name];
  if (!f.fold) f.fold = plugin->fold();
  f.fold->add(policy);
  ++f.flows;
}

// The policies of the flows still held that balance with the plug-in `name` (pinned and compute
// entries excluded): what its summary block and its run files read.
std::vector<const lb::EntropyPolicy*> FlowSetup::policies_of(const std::string& name,
                                                             const transport::Transport& tr) const {
  std::vector<const lb::EntropyPolicy*> used;
  tr.for_each_held([&](const transport::FlowState& f) {
    if (f.lb && !f.spec->is_compute() && !pinned_evs_.count(f.id) && lb_name(*f.spec) == name)
      used.push_back(&f.lb->inner());
  });
  return used;
}

void FlowSetup::add_summary(nlohmann::json& j, const transport::Transport& tr) const {
  // Each load balancer's own block (e.g. REPS state and freezing), over the flows that used it.
  for (const auto& plugin : lb::balancers().entries()) {
    if (!plugin.summarize) continue;
    const auto used = policies_of(plugin.name, tr);
    if (plugin.fold) {
      // The policies freed during the run are folded already; the ones still held (flows not over,
      // flows recorded for path usage) are added to a copy.
      const auto it = folded_.find(plugin.name);
      if (used.empty() && (it == folded_.end() || it->second.flows == 0)) continue;
      auto fold = it != folded_.end() && it->second.fold ? it->second.fold->clone() : plugin.fold();
      for (const auto* p : used) fold->add(*p);
      j[plugin.summary_key] = fold->json();
      continue;
    }
    if (!used.empty()) j[plugin.summary_key] = plugin.summarize(used);
  }
}

void FlowSetup::write_lb_files(const std::string& dir, const transport::Transport& tr) const {
  for (const auto& plugin : lb::balancers().entries()) {
    if (!plugin.write_files) continue;
    const auto used = policies_of(plugin.name, tr);
    if (!used.empty()) plugin.write_files(used, dir);
  }
}

void FlowSetup::write_path_usage(std::ostream& os) const {
  os << "flow,src,dst,ev,ev1,ev2,entry,latency_ns,switch_hops,category,path,sent,acks,ecn_acks,nacks,timeouts,"
        "first_sent_us,last_sent_us\n";
  auto recs = recorders_;
  std::sort(recs.begin(), recs.end(), [](const auto& x, const auto& y) { return x.id < y.id; });
  for (const auto& r : recs) {
    const std::uint32_t id = r.id;
    const auto* rec = r.rec;
    const std::int32_t a = topo_.host_switch(r.src), b = topo_.host_switch(r.dst);
    const bool pinned = pinned_evs_.count(id) != 0;
    for (const auto& [ev, u] : rec->usage()) {
      // The EV's entry in the pair's list of the run's routing, and the switches it leads through
      // where the routing can replay it (a pinned flow's: its own router's).
      auto d = pair_source_ ? pair_source_->describe_ev(a, b, ev) : routing::PairPathSource::EvPath{};
      if (pinned) {
        d.walked = true;
        d.switches = pins_->walk(a, b, ev);
      }
      const std::int32_t entry = d.entry;
      std::string latency, hops, path;
      if (entry >= 0) latency = fmt::format("{:.3f}", static_cast<double>(d.latency) / 1e3);
      const std::string& category = d.category;
      if (d.walked) {
        hops = std::to_string(d.switches.size());
        for (const auto n : d.switches) path += topo_.nodes[n].label + ">";
        path += topo_.nodes[b].label;
      }
      fmt::print(os, "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.3f},{:.3f}\n", id, r.src, r.dst, ev, ev >> 8,
                 ev & 0xFF, entry, latency, hops, category, csv_field(path), u.sent, u.acks, u.ecn_acks, u.nacks,
                 u.timeouts, to_us(u.first_sent), to_us(u.last_sent));
    }
  }
}

}  // namespace lbsim::sim
