#include "sim/flow_setup.h"

#include <algorithm>

#include <fmt/core.h>
#include <fmt/ostream.h>

#include "core/error.h"
#include "core/rng.h"
#include "core/text.h"

namespace lbsim::sim {

namespace {
std::uint64_t pair_key(std::int32_t a, std::int32_t b) {
  return (static_cast<std::uint64_t>(a) << 32) | static_cast<std::uint32_t>(b);
}
}  // namespace

FlowSetup::FlowSetup(const config::Config& cfg, const topo::Topology& topo, workload::Workload& wl, const Derived& d,
                     const routing::MinimalTables& tables, net::Router& run_router)
    : cfg_(cfg),
      topo_(topo),
      wl_(wl),
      default_lb_(cfg.text("lb.algorithm")),
      seed_(static_cast<std::uint64_t>(cfg.integer("run.seed"))) {
  sg_ = dynamic_cast<const routing::SourceGuidedRouter*>(&run_router);
  const bool pins = std::any_of(wl.flows.begin(), wl.flows.end(), [](const auto& f) { return lb::is_pinned(f.lb); });
  if ((!sg_ || sg_->coarse()) && pins) pin_sg_ = std::make_unique<routing::SourceGuidedRouter>(tables, false, seed_);

  // Background traffic that keeps ECMP while the rest uses lb.algorithm ([REPS] sec. 4.3.2).
  if (const double frac = cfg.real("workload.ecmp_fraction"); frac > 0) {
    ecmp_fraction_ = frac;
    ecmp_tag_ = wl.tag("ecmp_background");
    restart_retag();
    for (auto& f : wl.flows) retag(f);
  }

  // Spritz endpoint tables ([Spritz] sec. III-C): the EV entry list of every switch pair the
  // workload uses, built once from the source-guided router's tables and shared by the connections.
  w_scale_ = cfg.real("lb.spritz_w_scale");
  for (const auto& f : wl.flows) add_ev_list(f);

  if (pins) resolve_pins(pin_sg_ ? *pin_sg_ : *sg_);

  // source_route ([LAPS] sec. 3.3): the candidate paths of every switch pair the workload uses, built
  // once here (the router caches them) and handed to the flows' policies as their PIT's paths.
  sr_ = dynamic_cast<routing::SourceRouteRouter*>(&run_router);
  for (const auto& f : wl.flows) add_candidates(f);

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

void FlowSetup::retag(workload::FlowSpec& f) {
  if (ecmp_fraction_ > 0 && !f.is_compute() && f.lb.empty() && ecmp_pick_.bernoulli(ecmp_fraction_)) {
    f.lb = "ecmp";
    f.tag = ecmp_tag_;
  }
}

void FlowSetup::restart_retag() { ecmp_pick_ = Rng(seed_, hash_name("ecmp_fraction")); }

void FlowSetup::add_ev_list(const workload::FlowSpec& f) {
  if (!sg_ || f.is_compute()) return;
  const std::int32_t a = topo_.host_switch(f.src), b = topo_.host_switch(f.dst);
  const std::uint64_t key = pair_key(a, b);
  if (ev_lists_.count(key)) return;
  const auto paths = sg_->tables().entries(a, b, /*with_hops=*/false);
  std::vector<lb::EvEntry> entries;
  entries.reserve(paths.size());
  for (const auto& p : paths)
    entries.push_back(
        lb::EvEntry{p.ev, lb::ev_meta(p.category == routing::PathCategory::NonMinimal, p.local + p.global), p.latency});
  if (entries.empty()) entries.push_back(lb::EvEntry{0, lb::ev_meta(false, 0), 0});  // same switch
  ev_lists_.emplace(key, lb::EvEntryList(entries, w_scale_));
}

void FlowSetup::add_candidates(const workload::FlowSpec& f) {
  if (!sr_ || f.is_compute()) return;
  const std::int32_t a = topo_.host_switch(f.src), b = topo_.host_switch(f.dst);
  const std::uint64_t key = pair_key(a, b);
  if (candidates_.count(key)) return;
  lb::CandidateSet set;
  for (const auto& p : sr_->candidates().paths(a, b)) {
    set.base_latency.push_back(p.base_latency);
    set.slack.push_back(p.slack);
    set.ps_per_byte.push_back(p.ps_per_byte);
    set.anchors.push_back(static_cast<std::uint8_t>(std::min<std::size_t>(p.anchors.size(), 255)));
  }
  candidates_.emplace(key, std::move(set));
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
    add_ev_list(f);
    add_candidates(f);
    add_maker(f);
    ++id;
  }
  restart_retag();  // the run draws the same coins again
}

FlowSetup::~FlowSetup() = default;

// via_group:<g>: the lowest-latency bounded path of the flow's switch pair through group g.
// pinned_ecmp: one of the pair's EV entries (every bounded path the fine-grained EVs reach), drawn
// uniformly from (run.seed, workload index): the same path under every routing and load balancer.
void FlowSetup::resolve_pins(const routing::SourceGuidedRouter& sg) {
  for (std::size_t i = 0; i < wl_.flows.size(); ++i) {
    const auto& f = wl_.flows[i];
    if (lb::is_pinned_ecmp(f.lb) && !f.is_compute()) {
      const auto entries = sg.tables().entries(topo_.host_switch(f.src), topo_.host_switch(f.dst), /*with_hops=*/false);
      Rng pick(seed_, hash_name("pinned_ecmp"), i);
      pinned_evs_[static_cast<std::uint32_t>(i)] = entries.empty() ? 0 : entries[pick.below(entries.size())].ev;
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
    const std::int32_t a = topo_.host_switch(f.src), b = topo_.host_switch(f.dst);
    bool found = false;
    for (const auto& p : sg.tables().entries(a, b)) {  // latency order
      bool via = false;
      for (const auto& h : p.hops) via = via || topo_.nodes[h.node].group == g;
      via = via || topo_.nodes[b].group == g;
      if (!via) continue;
      pinned_evs_[static_cast<std::uint32_t>(i)] = p.ev;
      found = true;
      break;
    }
    if (!found) throw UserError(where + ": no bounded path of this pair passes through group " + std::to_string(g));
  }
}

net::Router& FlowSetup::router(net::Router& run_router) {
  if (!pin_sg_) return run_router;
  if (!dispatch_) dispatch_ = std::make_unique<routing::PinnedDispatchRouter>(run_router, *pin_sg_);
  return *dispatch_;
}

std::unique_ptr<lb::EntropyPolicy> FlowSetup::make_policy(const workload::FlowSpec& s, std::uint32_t id) {
  lb::PolicyContext ctx = run_ctx_;
  ctx.flow = id;
  ctx.src = s.src;
  ctx.dst = s.dst;
  ctx.rng = Rng(seed_, hash_name("lb"), id);
  if (!ev_lists_.empty()) {
    const auto it = ev_lists_.find(pair_key(topo_.host_switch(s.src), topo_.host_switch(s.dst)));
    if (it != ev_lists_.end()) ctx.paths = &it->second;
  }
  if (!candidates_.empty()) {
    const auto it = candidates_.find(pair_key(topo_.host_switch(s.src), topo_.host_switch(s.dst)));
    if (it != candidates_.end()) ctx.candidates = &it->second;
  }
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
  // Spritz endpoint table ([Spritz] sec. III-C, Fig. 3): one EV entry list (24 bits per entry) per
  // destination switch, shared by the endpoints of a source switch. Measured exactly for up to 8 of
  // the source switches the workload uses (the tables of Table II networks are near-symmetric), at
  // most ~4,096 switch pairs in all: one source switch in networks of more than 2,048 switches
  // (each pair's paths are enumerated; Slim Fly q = 29: ~1,800 paths for each of 1,682 pairs).
  if (sg_ && !ev_lists_.empty()) {
    // What the run built, read before the sample below builds the tables of every destination of
    // the sampled source switches.
    const std::size_t table_bytes = sg_->tables().table_bytes(), table_pairs = sg_->tables().built_pairs();
    const std::size_t max_srcs =
        std::clamp<std::size_t>(4096 / static_cast<std::size_t>(std::max(1, topo_.num_switches())), 1, 8);
    std::vector<std::int32_t> srcs;
    for (const auto& [key, list] : ev_lists_) {
      const auto a = static_cast<std::int32_t>(key >> 32);
      if (std::find(srcs.begin(), srcs.end(), a) == srcs.end() && srcs.size() < max_srcs) srcs.push_back(a);
    }
    std::int64_t max_bytes = 0, max_paths = 0;
    for (auto a : srcs) {
      std::int64_t bits = 0;
      for (std::int32_t b = 0; b < topo_.num_switches(); ++b) {
        const auto n =
            static_cast<std::int64_t>(sg_->tables().entries(a, topo_.switch_node(b), /*with_hops=*/false).size());
        bits += n * lb::kEvEntryBits;
        max_paths = std::max(max_paths, n);
      }
      max_bytes = std::max(max_bytes, (bits + 7) / 8);
    }
    std::size_t lists_bytes = 0, lists_memory = 0;
    for (const auto& [key, list] : ev_lists_) {
      lists_bytes += (list.bits() + 7) / 8;
      lists_memory += list.bytes();
    }
    j["spritz"] = {{"endpoint_table_bytes_per_endpoint", max_bytes},
                   {"max_paths_per_destination", max_paths},
                   {"sampled_source_switches", srcs.size()},
                   {"ev_lists", ev_lists_.size()},
                   {"ev_lists_bytes", lists_bytes},
                   {"ev_lists_memory_bytes", lists_memory},
                   {"w_scale", cfg_.real("lb.spritz_w_scale")},
                   {"switch_table_bytes", table_bytes},
                   {"switch_table_pairs", table_pairs}};
  }
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
    const auto it = ev_lists_.find(pair_key(a, b));
    const lb::EvEntryList* list = it == ev_lists_.end() ? nullptr : &it->second;
    for (const auto& [ev, u] : rec->usage()) {
      const std::int32_t entry = list ? list->index_of(ev) : -1;
      std::string latency, hops, category, path;
      if (entry >= 0) {
        const auto& e = (*list)[static_cast<std::size_t>(entry)];
        latency = fmt::format("{:.3f}", static_cast<double>(e.latency) / 1e3);
        category = e.minimal() ? "minimal" : "non_minimal";
      }
      // Fine-grained source-guided routing (the run's, or the pinned flows' own): the switches the
      // EV leads through (replayed).
      const routing::SourceGuidedRouter* walker =
          pinned_evs_.count(id) ? (pin_sg_ ? pin_sg_.get() : sg_) : (sg_ && !sg_->coarse() ? sg_ : nullptr);
      if (walker) {
        const auto walk = walker->tables().walk(a, b, ev);
        hops = std::to_string(walk.size());
        for (const auto& h : walk) path += topo_.nodes[h.node].label + ">";
        path += topo_.nodes[b].label;
      }
      fmt::print(os, "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.3f},{:.3f}\n", id, r.src, r.dst, ev, ev >> 8,
                 ev & 0xFF, entry, latency, hops, category, csv_field(path), u.sent, u.acks, u.ecn_acks, u.nacks,
                 u.timeouts, to_us(u.first_sent), to_us(u.last_sent));
    }
  }
}

}  // namespace lbsim::sim
