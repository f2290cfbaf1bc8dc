#include "sim/simulation.h"
#include "sim/layered_router.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <fmt/core.h>
#include <fmt/ostream.h>

#include "core/error.h"
#include "core/text.h"
#include "lb/policy.h"
#include "lb/reps.h"
#include "routing/adaptive.h"
#include "routing/bounded_paths.h"
#include "routing/source_guided.h"
#include "topo/dragonfly.h"
#include "topo/fat_tree.h"
#include "topo/slim_fly.h"
#include "workload/adversarial.h"
#include "workload/workload_params.h"
#include "workload/patterns.h"
#include "workload/validate.h"

namespace lbsim::sim {

namespace fs = std::filesystem;

namespace {
BitsPerSec rate_of(double gbps_value) {
  return static_cast<BitsPerSec>(std::llround(gbps_value * 1e9));
}

std::string resolve_relative(const Config& cfg, const std::string& path) {
  if (path.empty() || fs::path(path).is_absolute() || cfg.source_file.empty()) return path;
  return (fs::path(cfg.source_file).parent_path() / path).string();
}
}  // namespace

topo::Topology build_topology(const Config& cfg) {
  if (cfg.topo_kind == "fat_tree") {
    topo::FatTreeParams p;
    p.hosts = static_cast<int>(cfg.hosts);
    p.tiers = static_cast<int>(cfg.tiers);
    p.radix = static_cast<int>(cfg.radix);
    p.hosts_per_tor = static_cast<int>(cfg.hosts_per_tor);
    p.oversubscription = static_cast<int>(cfg.oversubscription);
    p.host_rate = rate_of(cfg.host_rate_gbps);
    p.tier1_rate = rate_of(cfg.tier1_rate_gbps);
    p.tier2_rate = rate_of(cfg.tier2_rate_gbps);
    p.host_latency = from_ns(cfg.host_latency_ns);
    p.tier1_latency = from_ns(cfg.tier1_latency_ns);
    p.tier2_latency = from_ns(cfg.tier2_latency_ns);
    return topo::build_fat_tree(p);
  }
  if (cfg.topo_kind == "dragonfly") {
    topo::DragonflyParams p;
    if (cfg.p > 0) p.p = static_cast<int>(cfg.p);
    p.a = static_cast<int>(cfg.a);
    p.h = static_cast<int>(cfg.h);
    p.g = cfg.g > 0 ? static_cast<int>(cfg.g) : -1;
    p.arrangement = cfg.arrangement;
    p.global_map_file = resolve_relative(cfg, cfg.global_map);
    p.rate = rate_of(cfg.link_rate_gbps);
    p.host_latency = from_ns(cfg.host_latency_ns);
    p.local_latency = from_ns(cfg.local_latency_ns);
    p.global_latency = from_ns(cfg.global_latency_ns);
    return topo::build_dragonfly(p);
  }
  if (cfg.topo_kind == "slim_fly") {
    topo::SlimFlyParams p;
    p.q = static_cast<int>(cfg.q);
    p.p = cfg.p > 0 ? static_cast<int>(cfg.p) : -1;
    p.rate = rate_of(cfg.link_rate_gbps);
    p.host_latency = from_ns(cfg.host_latency_ns);
    p.local_latency = from_ns(cfg.local_latency_ns);
    p.global_latency = from_ns(cfg.global_latency_ns);
    return topo::build_slim_fly(p);
  }
  throw UserError("topology.kind '" + cfg.topo_kind + "' is not supported");
}

namespace {
SimTime unit_of(const std::string& u) {
  if (u == "ps") return 1;
  if (u == "ns") return ns(1);
  if (u == "ms") return ms(1);
  return us(1);
}
}  // namespace

workload::Workload build_workload(const Config& cfg, const topo::Topology& topo) {
  const auto n = topo.num_hosts;
  const auto seed = static_cast<std::uint64_t>(cfg.seed);
  const SimTime start = from_us(cfg.start_us);
  workload::Workload w;
  if (cfg.wl_kind == "adversarial" || (cfg.wl_kind == "permutation" && cfg.outside_group)) {
    workload::AdversarialParams p;
    p.bytes = cfg.size_bytes;
    p.start = start;
    if (cfg.wl_kind == "permutation")
      w = workload::make_permutation_outside_group(topo, p, seed);
    else if (topo.kind == "dragonfly")
      w = workload::make_dragonfly_group_shift(topo, p, seed, static_cast<int>(cfg.shift));
    else if (topo.kind == "slim_fly")
      w = workload::make_slim_fly_adversarial(topo, p, seed);
    else
      throw UserError("workload.kind = \"adversarial\" is defined for dragonfly and slim_fly topologies; use "
                      "tornado for a fat tree's worst case");
    workload::validate_workload(w, n);
    return w;
  }
  auto params = workload::default_workload_params(cfg.wl_kind);
  const std::string file = resolve_relative(cfg, cfg.wl_file);
  std::visit(
      [&](auto& p) {
        using P = std::decay_t<decltype(p)>;
        if constexpr (std::is_same_v<P, workload::PermutationParams> || std::is_same_v<P, workload::TornadoParams>) {
          p.bytes = cfg.size_bytes;
          p.start = start;
        } else if constexpr (std::is_same_v<P, workload::IncastParams>) {
          p.bytes = cfg.size_bytes;
          p.start = start;
          if (cfg.incast_receiver >= n)
            throw UserError(fmt::format("workload.incast_receiver = {} but the topology has only {} hosts",
                                        cfg.incast_receiver, n));
          p.receiver = static_cast<std::int32_t>(cfg.incast_receiver);
          p.senders = static_cast<std::int32_t>(cfg.incast_senders);
          if (p.senders >= n)
            throw UserError(fmt::format("workload.incast_senders = {} needs more than {} hosts", p.senders, n));
          // k consecutive hosts (skipping the receiver), from incast_first_sender or after the receiver.
          std::int32_t h = cfg.incast_first_sender >= 0 ? static_cast<std::int32_t>(cfg.incast_first_sender) % n
                                                         : (p.receiver + 1) % n;
          while (static_cast<std::int32_t>(p.sender_list.size()) < p.senders) {
            if (h != p.receiver) p.sender_list.push_back(h);
            h = (h + 1) % n;
          }
          p.bystanders = cfg.incast_bystanders;
        } else if constexpr (std::is_same_v<P, workload::FlowsCsvParams>) {
          p.path = file;
        } else if constexpr (std::is_same_v<P, workload::CdfTraceParams>) {
          p.cdf = cfg.cdf.find('/') != std::string::npos || cfg.cdf.find('.') != std::string::npos
                      ? resolve_relative(cfg, cfg.cdf) : cfg.cdf;
          p.load = cfg.load;
          p.host_rate = topo.links[topo.ports[0][0].link].rate;
          p.start = start;
          p.duration = from_us(cfg.duration_us);
          p.warmup = from_us(cfg.warmup_us);
          p.max_senders_per_receiver = static_cast<std::int32_t>(cfg.max_senders_per_receiver);
          p.destinations = cfg.destinations == "all_to_one"   ? workload::TraceDestinations::kAllToOne
                           : cfg.destinations == "one_to_all" ? workload::TraceDestinations::kOneToAll
                                                              : workload::TraceDestinations::kUniform;
          p.root = static_cast<std::int32_t>(cfg.root);
          p.incast_mean_interval = from_us(cfg.incast_interval_us);
          p.incast_senders = static_cast<std::int32_t>(cfg.incast_senders);
          p.incast_bytes = cfg.incast_bytes;
          p.monitored_fraction = cfg.monitored_fraction;
        } else if constexpr (std::is_same_v<P, workload::Ns3FlowParams>) {
          p.path = file;
          p.topology_path = resolve_relative(cfg, cfg.ns3_topology);
        } else if constexpr (std::is_same_v<P, workload::HtsimCmParams>) {
          p.path = file;
          p.start_unit = unit_of(cfg.htsim_start_unit);
        } else if constexpr (std::is_same_v<P, workload::GoalParams>) {
          p.path = file;
          p.calc_unit = from_ns(cfg.calc_unit_ns);
        } else if constexpr (std::is_same_v<P, workload::CollectiveParams>) {
          p.bytes = cfg.size_bytes;
          p.ranks = static_cast<std::int32_t>(cfg.ranks);
          p.random_subset = cfg.random_subset;
          p.first_host = static_cast<std::int32_t>(cfg.first_host);
          p.window = static_cast<std::int32_t>(cfg.window);
          p.butterfly = cfg.butterfly == "recursive_doubling" ? workload::ButterflyVariant::kRecursiveDoubling
                                                              : workload::ButterflyVariant::kHalvingDoubling;
          p.root = static_cast<std::int32_t>(cfg.root);
          p.start = start;
          p.background = cfg.background;
          p.background_bytes = cfg.background_bytes;
          p.background_lb = cfg.background_lb;
        }
      },
      params);
  std::vector<std::string> warnings;
  w = workload::make_workload(params, n, seed, &warnings);
  for (const auto& wmsg : warnings) fmt::print(stderr, "lbsim: warning: {}\n", wmsg);
  workload::validate_workload(w, n);
  return w;
}

PathModel::PathModel(const topo::Topology& t, SimTime switch_latency) : t_(t), sw_lat_(switch_latency) {
  const auto nsw = t.num_switches();
  parent_link_.assign(nsw, {});
  std::vector<std::int32_t> queue;
  for (std::int32_t s = 0; s < nsw; ++s) {
    auto& parent = parent_link_[s];
    parent.assign(t.size(), -2);
    const std::int32_t root = t.switch_node(s);
    parent[root] = -1;
    queue.assign(1, root);
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const std::int32_t u = queue[head];
      for (const auto& p : t.ports[u]) {
        if (t.is_host(p.peer) || parent[p.peer] != -2) continue;
        parent[p.peer] = p.link;
        queue.push_back(p.peer);
      }
    }
  }
}

std::vector<std::int32_t> PathModel::path_links(std::int32_t a, std::int32_t b) const {
  const std::int32_t sa = t_.host_switch(a), sb = t_.host_switch(b);
  std::vector<std::int32_t> rev;
  rev.push_back(t_.ports[b][0].link);
  const auto& parent = parent_link_[t_.switch_index(sa)];
  for (std::int32_t n = sb; n != sa;) {
    const std::int32_t l = parent[n];
    if (l < 0) throw UserError(fmt::format("host {} cannot reach host {}", a, b));
    rev.push_back(l);
    const auto& link = t_.links[l];
    n = link.a == n ? link.b : link.a;
  }
  rev.push_back(t_.ports[a][0].link);
  return {rev.rbegin(), rev.rend()};
}

SimTime PathModel::ideal_fct(std::int32_t a, std::int32_t b, Bytes bytes, Bytes mtu, Bytes header) const {
  const Bytes n = (bytes + mtu - 1) / mtu;
  if (n <= 0) return 0;
  const Bytes full = mtu + header;
  const Bytes last = header + bytes - (n - 1) * mtu;
  if (n == 1) return one_way(a, b, last);
  // The NIC sends the n-1 full packets back to back; the last (possibly shorter) packet then trails
  // the previous full packet at every later hop, so it leaves each hop one full-packet time after
  // its predecessor started there, and is serialized itself only on the final link.
  const auto links = path_links(a, b);
  SimTime t = serialization_ps((n - 1) * full, t_.links[links.front()].rate);
  for (std::size_t i = 1; i < links.size(); ++i) t += serialization_ps(full, t_.links[links[i]].rate);
  t += serialization_ps(last, t_.links[links.back()].rate);
  for (auto l : links) t += t_.links[l].latency;
  return t + static_cast<SimTime>(links.size() - 1) * sw_lat_;
}

SimTime PathModel::one_way(std::int32_t a, std::int32_t b, Bytes bytes) const {
  const auto links = path_links(a, b);
  SimTime t = 0;
  for (auto l : links) t += serialization_ps(bytes, t_.links[l].rate) + t_.links[l].latency;
  return t + static_cast<SimTime>(links.size() - 1) * sw_lat_;
}

Simulation::Simulation(Config cfg) : cfg_(std::move(cfg)) {
  validate(cfg_);
  topo_ = build_topology(cfg_);
  wl_ = build_workload(cfg_, topo_);
  const SimTime sw_lat = from_ns(cfg_.switch_latency_ns);
  paths_ = std::make_unique<PathModel>(topo_, sw_lat);

  // Derived quantities ([REPS] sec. 4.1: queue = 1 BDP, Kmin/Kmax fractions of it; RTO = time to
  // traverse every full queue plus the network-wide RTT).
  d_.packet_bytes = cfg_.mtu + cfg_.header_bytes;
  std::vector<std::int32_t> rep;  // one host per switch that has hosts
  for (std::int32_t s = 0; s < topo_.num_switches(); ++s) {
    auto hs = topo_.hosts_of(topo_.switch_node(s));
    if (!hs.empty()) rep.push_back(hs.front());
  }
  std::int32_t far_a = rep.front(), far_b = rep.back();
  for (auto a : rep)
    for (auto b : rep) {
      if (a == b && rep.size() > 1) continue;
      const std::int32_t bb = a == b ? (a + 1) % topo_.num_hosts : b;
      const SimTime rtt = paths_->one_way(a, bb, d_.packet_bytes) + paths_->one_way(bb, a, cfg_.header_bytes);
      if (rtt > d_.base_rtt) {
        d_.base_rtt = rtt;
        far_a = a;
        far_b = bb;
      }
    }
  if (cfg_.bdp_path == "longest_bounded")  // [Spritz] V-A: BDP "based on the longest path"
    d_.base_rtt = std::max(d_.base_rtt, routing::longest_bounded_rtt(topo_, sw_lat, d_.packet_bytes, cfg_.header_bytes));
  const BitsPerSec host_rate = topo_.links[topo_.ports[0][0].link].rate;
  d_.bdp = bytes_in(d_.base_rtt, host_rate);
  d_.bdp_packets = static_cast<std::uint32_t>((d_.bdp + d_.packet_bytes - 1) / d_.packet_bytes);
  if (cfg_.queue_bytes > 0)
    d_.queue_bytes = cfg_.queue_bytes;
  else if (cfg_.queue_packets > 0)
    d_.queue_bytes = cfg_.queue_packets * d_.packet_bytes;
  else
    d_.queue_bytes = std::llround(cfg_.queue_bdp * static_cast<double>(d_.bdp));
  d_.queue_bytes = std::max(d_.queue_bytes, d_.packet_bytes);
  d_.ctrl_queue_bytes = cfg_.ctrl_queue_bytes > 0 ? cfg_.ctrl_queue_bytes : d_.queue_bytes;
  if (cfg_.rto_us > 0) {
    d_.rto = from_us(cfg_.rto_us);
  } else {
    d_.rto = d_.base_rtt;
    for (auto [x, y] : {std::pair{far_a, far_b}, std::pair{far_b, far_a}}) {
      const auto links = paths_->path_links(x, y);
      for (std::size_t i = 1; i < links.size(); ++i)
        d_.rto += serialization_ps(d_.queue_bytes, topo_.links[links[i]].rate);
    }
  }
  d_.init_cwnd = std::max<Bytes>(d_.packet_bytes, std::llround(cfg_.init_cwnd_bdp * static_cast<double>(d_.bdp)));
  d_.max_cwnd = std::max<Bytes>(d_.packet_bytes, std::llround(cfg_.max_cwnd_bdp * static_cast<double>(d_.bdp)));
  d_.ev_space = 1u << cfg_.ev_bits;

  net::NetConfig nc;
  nc.switch_latency = sw_lat;
  nc.queue.data_limit = d_.queue_bytes;
  nc.queue.ctrl_limit = d_.ctrl_queue_bytes;
  nc.queue.kmin = cfg_.kmin;
  nc.queue.kmax = cfg_.kmax;
  nc.queue.ecn = cfg_.ecn;
  nc.queue.trimming = cfg_.trimming;
  nc.queue.header_bytes = cfg_.header_bytes;
  const auto seed = static_cast<std::uint64_t>(cfg_.seed);
  net_ = std::make_unique<net::Network>(topo_, nc, seed);
  tables_ = std::make_unique<routing::MinimalTables>(topo_);
  routing::RoutingParams rp;
  rp.name = cfg_.routing;
  rp.seed = seed;
  rp.valiant_mode = cfg_.valiant_mode;
  rp.ugal = cfg_.ugal;
  if (cfg_.routing == "layered") {
    analysis::LayerOptions lo;
    lo.layers = static_cast<int>(cfg_.layers);
    lo.scheme = analysis::parse_layer_scheme(cfg_.layer_scheme);
    lo.keep_fraction = cfg_.layer_keep_fraction;
    lo.seed = seed;
    router_ = std::make_unique<LayeredRouter>(
        topo_, analysis::build_layers(analysis::normalize_graph(topo_.switch_adjacency()), lo));
  } else {
    router_ = routing::make_router(rp, *tables_, *net_);
  }
  const auto* sg_run = dynamic_cast<const routing::SourceGuidedRouter*>(router_.get());
  if ((!sg_run || sg_run->coarse()) &&
      std::any_of(wl_.flows.begin(), wl_.flows.end(), [](const auto& f) { return lb::is_via_group(f.lb); })) {
    pin_sg_ = std::make_unique<routing::SourceGuidedRouter>(*tables_, false, seed);
    dispatch_ = std::make_unique<routing::PinnedDispatchRouter>(*router_, *pin_sg_);
  }
  net::Router& base_router = dispatch_ ? *dispatch_ : *router_;

  // Failures ([REPS] sec. 4.3.3, App. C): a schedule file and/or a random fraction of links.
  if (!cfg_.failures_file.empty()) failures_ = net::read_failure_file(resolve_relative(cfg_, cfg_.failures_file), topo_);
  if (cfg_.fail_fraction > 0) {
    net::RandomFailures rf;
    rf.fraction = cfg_.fail_fraction;
    rf.links = cfg_.fail_links;
    rf.kind = cfg_.fail_kind == "degrade" ? net::FailureKind::Degrade
              : cfg_.fail_kind == "loss"  ? net::FailureKind::Loss
                                          : net::FailureKind::Down;
    rf.start = from_us(cfg_.fail_start_us);
    rf.duration = from_us(cfg_.fail_duration_us);
    rf.rate = rate_of(cfg_.fail_rate_gbps);
    rf.loss = cfg_.fail_loss;
    for (const auto& f : net::random_failures(rf, topo_, seed)) failures_.push_back(f);
  }
  converge_ = from_us(cfg_.converge_us);
  if (converge_ > 0 && !failures_.empty())
    mask_ = std::make_unique<routing::FailureMaskRouter>(base_router, *tables_, *net_, seed);

  // Background traffic that keeps ECMP while the rest uses lb.algorithm ([REPS] sec. 4.3.2).
  if (cfg_.ecmp_fraction > 0) {
    Rng pick(seed, hash_name("ecmp_fraction"));
    const auto tag = wl_.tag("ecmp_background");
    for (auto& f : wl_.flows)
      if (!f.is_compute() && f.lb.empty() && pick.bernoulli(cfg_.ecmp_fraction)) {
        f.lb = "ecmp";
        f.tag = tag;
      }
  }

  // Spritz endpoint tables ([Spritz] sec. III-C): the EV entry list of every switch pair the
  // workload uses, built once from the source-guided router's tables and shared by the connections.
  if (const auto* sg = dynamic_cast<const routing::SourceGuidedRouter*>(router_.get())) {
    for (const auto& f : wl_.flows) {
      if (f.is_compute()) continue;
      const std::int32_t a = topo_.host_switch(f.src), b = topo_.host_switch(f.dst);
      const std::uint64_t key = (static_cast<std::uint64_t>(a) << 32) | static_cast<std::uint32_t>(b);
      if (ev_lists_.count(key)) continue;
      std::vector<lb::EvEntry> entries;
      for (const auto& p : sg->tables().entries(a, b))
        entries.push_back(lb::EvEntry{p.ev, lb::ev_meta(p.category == routing::PathCategory::NonMinimal,
                                                        static_cast<int>(p.hops.size())), 1.0, p.latency});
      if (entries.empty()) entries.push_back(lb::EvEntry{0, lb::ev_meta(false, 0), 1.0, 0});  // same switch
      ev_lists_.emplace(key, lb::EvEntryList(std::move(entries), cfg_.spritz_w_scale));
    }
  }

  transport::TransportParams tp;
  tp.mtu = cfg_.mtu;
  tp.header = cfg_.header_bytes;
  tp.rto = d_.rto;
  tp.ack_every = static_cast<std::uint32_t>(cfg_.ack_every);
  tp.ack_delay = from_us(cfg_.ack_delay_us);
  tp.ack_carry_evs = cfg_.reps_ack_mode == "carry";
  tp.cc.name = cfg_.cc;
  tp.cc.init_cwnd = d_.init_cwnd;
  tp.cc.max_cwnd = d_.max_cwnd;
  tp.cc.base_rtt = d_.base_rtt;
  tp.cc.ecn_decrease = cfg_.ecn_decrease;
  tp.cc.nack_decrease = cfg_.nack_decrease;
  tp.cc.timeout_decrease = cfg_.timeout_decrease;
  tp.cc.dctcp_g = cfg_.dctcp_g;
  tp.cc.quick_adapt = cfg_.quick_adapt;
  tp.cc.quick_adapt_gate = static_cast<int>(cfg_.quick_adapt_gate);
  tp.cc.fast_increase = cfg_.fast_increase;
  tp.cc.fast_increase_gain = cfg_.fast_increase_gain;

  // Per-flow load balancers: the entry's own `lb` or the run default, each with its own stream.
  // `via_group:<g>` pins the flow to its lowest-latency source-guided path through group g (used to
  // place background traffic on chosen links, e.g. the Spritz Fig. 5 scenario).
  const auto& names = lb::policy_names();
  const routing::SourceGuidedRouter* sg_router = pin_sg_ ? pin_sg_.get() : sg_run;
  for (std::size_t i = 0; i < wl_.flows.size(); ++i) {
    const auto& f = wl_.flows[i];
    if (f.lb.empty() || std::find(names.begin(), names.end(), f.lb) != names.end()) continue;
    if (!lb::is_via_group(f.lb))
      throw UserError("workload: unknown load balancer '" + f.lb + "' (one of the lb.algorithm names or via_group:<group>)");
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
    for (const auto& p : sg_router->tables().entries(a, b)) {  // latency order
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
  const Derived d = d_;
  const std::string default_lb = cfg_.lb;
  lb::PolicyParams tuned;  // [lb] tuning shared by every flow ([REPS] sec. 3, 4.5.1)
  tuned.reps.buffer_size = static_cast<std::uint32_t>(cfg_.reps_buffer_size);
  tuned.reps.freezing = cfg_.reps_freezing;
  tuned.reps.freezing_timeout = cfg_.reps_freezing_timeout_us > 0 ? from_us(cfg_.reps_freezing_timeout_us) : d_.rto;
  tuned.reps.idle_timeout = from_us(cfg_.reps_idle_us);
  tuned.reps.ack_mode = cfg_.reps_ack_mode == "carry"   ? lb::RepsAckMode::Carry
                        : cfg_.reps_ack_mode == "reuse" ? lb::RepsAckMode::Reuse
                                                        : lb::RepsAckMode::Plain;
  tuned.reps.reuse = static_cast<std::uint32_t>(cfg_.reps_reuse > 0 ? cfg_.reps_reuse : cfg_.ack_every);
  tuned.reps.failure_rtt_factor = cfg_.reps_failure_rtt_factor;
  tuned.base.plb_threshold = cfg_.plb_threshold;
  tuned.base.plb_rounds = static_cast<std::uint32_t>(cfg_.plb_rounds);
  tuned.base.flowlet_timeout = from_us(cfg_.flowlet_timeout_us);
  tuned.base.mptcp_subflows = static_cast<std::uint32_t>(cfg_.mptcp_subflows);
  tuned.base.bitmap_evs = static_cast<std::uint32_t>(cfg_.bitmap_evs);
  tuned.base.bitmap_ecn_penalty = static_cast<std::uint32_t>(cfg_.bitmap_ecn_penalty);
  tuned.base.bitmap_nack_penalty = static_cast<std::uint32_t>(cfg_.bitmap_nack_penalty);
  tuned.base.bitmap_timeout_penalty = static_cast<std::uint32_t>(cfg_.bitmap_timeout_penalty);
  tuned.spritz.buffer_size = static_cast<std::uint32_t>(cfg_.spritz_buffer_size);
  tuned.spritz.explore_threshold = static_cast<std::uint32_t>(cfg_.spritz_explore_threshold);
  tuned.spritz.ecn_threshold = static_cast<std::uint32_t>(cfg_.spritz_ecn_threshold);
  tuned.spritz.min_bias_factor = cfg_.spritz_min_bias_factor;
  tuned.spritz.ecn_bias_rate = cfg_.spritz_ecn_bias_rate;
  tuned.spritz.restore_interval = cfg_.spritz_restore_us > 0 ? from_us(cfg_.spritz_restore_us) : 10 * d_.rto;
  tuned.spritz.flicr_ecn_fraction = cfg_.flicr_ecn_fraction;
  tuned.spritz.reinsert_holdoff_rtts = cfg_.spritz_reinsert_holdoff_rtts;
  const bool trimming = cfg_.trimming;
  std::int32_t record_tag = -1;  // output.path_usage_tag
  if (!cfg_.path_usage_tag.empty()) {
    const auto it = std::find(wl_.tags.begin(), wl_.tags.end(), cfg_.path_usage_tag);
    if (it == wl_.tags.end()) {
      std::string known;
      for (const auto& t : wl_.tags) known += (known.empty() ? "" : ", ") + t;
      throw UserError("output.path_usage_tag: no workload entry has the tag '" + cfg_.path_usage_tag +
                      "' (tags of this workload: " + known + ")");
    }
    record_tag = static_cast<std::int32_t>(it - wl_.tags.begin());
  }
  auto factory = [d, default_lb, seed, tuned, trimming, record_tag, rec = &recorders_, sg_lists = &ev_lists_,
                  pinned = &pinned_evs_, topo = &topo_](const workload::FlowSpec& s, std::uint32_t id) -> std::unique_ptr<lb::EntropyPolicy> {
    lb::PolicyContext ctx;
    ctx.flow = id;
    ctx.src = s.src;
    ctx.dst = s.dst;
    ctx.ev_space = d.ev_space;
    ctx.bdp_packets = d.bdp_packets;
    ctx.base_rtt = d.base_rtt;
    ctx.rto = d.rto;
    ctx.trimming = trimming;
    ctx.rng = Rng(seed, hash_name("lb"), id);
    if (!sg_lists->empty()) {
      const std::uint64_t key = (static_cast<std::uint64_t>(topo->host_switch(s.src)) << 32) |
                                static_cast<std::uint32_t>(topo->host_switch(s.dst));
      const auto it = sg_lists->find(key);
      if (it != sg_lists->end()) ctx.paths = &it->second;
    }
    lb::PolicyParams pp = tuned;
    pp.name = s.lb.empty() ? default_lb : s.lb;
    const auto pin = pinned->find(id);
    auto policy = pin != pinned->end() ? std::make_unique<lb::FixedEvPolicy>(pin->second) : lb::make_policy(pp, std::move(ctx));
    if (s.tag != record_tag) return policy;
    auto recorder = std::make_unique<lb::RecordingPolicy>(std::move(policy));
    rec->emplace_back(id, recorder.get());
    return recorder;
  };
  tr_ = std::make_unique<transport::Transport>(*net_, wl_, tp, factory);
  net_->set_router(mask_ ? mask_.get() : &base_router);
  net_->set_host_handler(tr_.get());
  net_->set_event_sink(this);
  queue_sample_ = from_us(cfg_.queue_sample_us);
  progress_on_ = cfg_.progress == "on" || (cfg_.progress == "auto" && isatty(STDERR_FILENO));
}

Simulation::~Simulation() = default;

void Simulation::on_failure_event(const Event& e) {
  const auto& f = failures_[e.obj];
  const bool down = f.kind == net::FailureKind::Down || f.kind == net::FailureKind::SwitchDown;
  auto* mask = static_cast<routing::FailureMaskRouter*>(mask_.get());
  switch (e.kind) {
    case kEvFailStart:
      net::apply_failure(*net_, f, true);
      if (mask && down) net_->events().push(net_->now() + converge_, kEvRouteDead, e.obj);
      break;
    case kEvFailEnd:
      net::apply_failure(*net_, f, false);
      if (mask && down) net_->events().push(net_->now() + converge_, kEvRouteAlive, e.obj);
      break;
    case kEvRouteDead:
    case kEvRouteAlive:
      for (const auto p : net::failure_ports(f, *net_)) mask->set_dead(p, e.kind == kEvRouteDead);
      break;
    default: break;
  }
}

void Simulation::on_event(const Event& e) {
  if (e.kind >= kEvFailStart && e.kind <= kEvRouteAlive) {
    on_failure_event(e);
    return;
  }
  if (e.kind == kEvQueueSample) {
    sample_queues();
    net_->events().push(net_->now() + queue_sample_, kEvQueueSample, 0);
    return;
  }
  tr_->on_event(e);
}

void Simulation::sample_queues() {
  const double t = to_us(net_->now());
  for (std::uint32_t i = 0; i < net_->num_ports(); ++i) {
    const auto& p = net_->port(i);
    if (p.is_nic || (p.data.bytes == 0 && p.ctrl.bytes == 0)) continue;
    queue_rows_.push_back(fmt::format("{:.3f},{},{},{},{},{}", t, p.node, p.local, p.peer, p.data.bytes, p.ctrl.bytes));
  }
}

void Simulation::progress(void* self, SimTime now) {
  auto* s = static_cast<Simulation*>(self);
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count() - s->run_start_;
  if (elapsed - s->progress_last_ < 0.5) return;
  s->progress_last_ = elapsed;
  const double done = static_cast<double>(s->tr_->completed()) / static_cast<double>(std::max<std::size_t>(1, s->wl_.flows.size()));
  const double tfrac = static_cast<double>(now) / std::max(1.0, s->cfg_.end_us * 1e6);
  const double frac = std::max(done, tfrac);
  const double eta = frac > 0 ? elapsed * (1 - frac) / frac : 0;
  fmt::print(stderr, "\rlbsim: t = {:.1f} us  entries {}/{}  events {:.1f}M ({:.2f}M/s)  ETA {:.0f} s   ",
             to_us(now), s->tr_->completed(), s->wl_.flows.size(),
             static_cast<double>(s->net_->events_processed()) / 1e6,
             static_cast<double>(s->net_->events_processed()) / 1e6 / std::max(1e-9, elapsed), eta);
}

int Simulation::run() {
  if (ran_) throw std::logic_error("Simulation::run called twice");
  ran_ = true;
  const auto t0 = std::chrono::steady_clock::now();
  run_start_ = std::chrono::duration<double>(t0.time_since_epoch()).count();
  if (progress_on_) net_->set_progress_hook(&Simulation::progress, this);
  tr_->start();
  if (queue_sample_ > 0) net_->events().push(0, kEvQueueSample, 0);
  for (std::uint32_t i = 0; i < failures_.size(); ++i) {
    net_->events().push(failures_[i].start, kEvFailStart, i);
    if (failures_[i].duration > 0) net_->events().push(failures_[i].start + failures_[i].duration, kEvFailEnd, i);
  }
  const SimTime end = cfg_.end_us > 0 ? from_us(cfg_.end_us) : kTimeNever;
  net_->run(end);
  wall_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (progress_on_) fmt::print(stderr, "\n");
  return tr_->all_done() ? 0 : 3;
}

std::vector<metrics::FlowResult> Simulation::flow_results() const {
  std::vector<metrics::FlowResult> out;
  out.reserve(wl_.flows.size());
  const auto& flows = tr_->flows();
  for (std::size_t i = 0; i < flows.size(); ++i) {
    const auto& f = flows[i];
    const auto& s = wl_.flows[i];
    metrics::FlowResult r;
    r.id = static_cast<std::uint32_t>(i);
    r.src = s.src;
    r.dst = s.dst;
    r.bytes = s.bytes;
    r.tag = wl_.tags.at(static_cast<std::size_t>(s.tag));
    r.lb = s.is_compute() ? "" : (s.lb.empty() ? cfg_.lb : s.lb);
    r.compute = s.is_compute();
    r.finished = f.finished;
    r.start = f.start_time;
    r.finish = f.finish_time;
    r.sender_done = f.sender_done_time;
    r.packets = f.npkts;
    r.packets_sent = f.n.packets_sent;
    r.retransmits = f.n.retransmits;
    r.nacks = f.n.nacks;
    r.timeouts = f.n.timeouts;
    r.ecn_acks = f.n.ecn_acks;
    r.ooo = f.n.ooo;
    r.duplicates = f.n.duplicates;
    r.trimmed_rx = f.n.trimmed_rx;
    if (s.is_compute()) {
      r.ideal = s.compute;
    } else if (f.npkts > 0) {
      r.ideal = paths_->ideal_fct(s.src, s.dst, s.bytes, cfg_.mtu, cfg_.header_bytes);
    }
    out.push_back(std::move(r));
  }
  return out;
}

nlohmann::json Simulation::summary() const {
  using nlohmann::json;
  const auto rows = flow_results();
  std::vector<double> fct, ideal, slow;
  std::map<std::string, std::vector<double>> by_tag;
  std::uint64_t retx = 0, nacks = 0, timeouts = 0, ooo = 0, received = 0, transfers = 0, unfinished = 0;
  for (const auto& r : rows) {
    if (r.compute) continue;
    ++transfers;
    retx += r.retransmits;
    nacks += r.nacks;
    timeouts += r.timeouts;
    ooo += r.ooo;
    if (!r.finished) {
      ++unfinished;
      continue;
    }
    fct.push_back(to_us(r.fct()));
    ideal.push_back(to_us(r.ideal));
    if (r.ideal > 0) slow.push_back(static_cast<double>(r.fct()) / static_cast<double>(r.ideal));
    by_tag[r.tag].push_back(to_us(r.fct()));
  }
  for (const auto& f : tr_->flows()) received += f.rcv_count;
  std::uint64_t drops = 0, trims = 0, marks = 0, fdrops = 0;
  for (std::uint32_t i = 0; i < net_->num_ports(); ++i) {
    const auto& st = net_->port(i).stats;
    drops += st.drops;
    trims += st.trims;
    marks += st.ecn_marks;
    fdrops += st.failure_drops;
  }
  auto dist = [](const std::vector<double>& v) {
    const auto d = metrics::distribution(v);
    return json{{"count", d.count}, {"max", d.max}, {"mean", d.mean}, {"p50", d.p50}, {"p99", d.p99}, {"min", d.min}};
  };
  json tags = json::object();
  for (const auto& [k, v] : by_tag) tags[k] = dist(v);
  const auto& pool = const_cast<net::Network&>(*net_).packets();
  const std::uint64_t created = pool.allocated(), live = pool.live();
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  const double evps = wall_s_ > 0 ? static_cast<double>(net_->events_processed()) / wall_s_ : 0.0;
  json j = {
      {"lbsim_version", "0.1.0"},
      {"seed", cfg_.seed},
      {"topology", {{"kind", topo_.kind}, {"hosts", topo_.num_hosts}, {"switches", topo_.num_switches()}, {"links", topo_.links.size()}}},
      {"load_balancer", cfg_.lb},
      {"routing", cfg_.routing},
      {"congestion_control", cfg_.cc},
      {"workload", {{"kind", cfg_.wl_kind}, {"entries", wl_.flows.size()}, {"transfers", transfers}}},
      {"completed", transfers - unfinished},
      {"unfinished", unfinished},
      {"fct_us", dist(fct)},
      {"ideal_fct_us", dist(ideal)},
      {"slowdown", dist(slow)},
      {"fct_us_by_tag", tags},
      {"drops", drops},
      {"failure_drops", fdrops},
      {"trims", trims},
      {"ecn_marks", marks},
      {"nacks", nacks},
      {"retransmits", retx},
      {"timeouts", timeouts},
      {"ooo_packets", ooo},
      {"ooo_pct", received ? 100.0 * static_cast<double>(ooo) / static_cast<double>(received) : 0.0},
      {"sim_time_us", to_us(net_->now())},
      {"events", net_->events_processed()},
      {"derived", {{"base_rtt_us", to_us(d_.base_rtt)}, {"packet_bytes", d_.packet_bytes}, {"bdp_bytes", d_.bdp},
                   {"bdp_packets", d_.bdp_packets}, {"queue_bytes", d_.queue_bytes}, {"ctrl_queue_bytes", d_.ctrl_queue_bytes},
                   {"rto_us", to_us(d_.rto)}, {"init_cwnd_bytes", d_.init_cwnd}, {"max_cwnd_bytes", d_.max_cwnd},
                   {"ev_space", d_.ev_space}}},
      {"conservation", {{"created", created}, {"delivered", net_->delivered()}, {"dropped", net_->dropped()},
                        {"in_flight", live}, {"ok", created == net_->delivered() + net_->dropped() + live}}},
      {"perf", {{"wall_s", wall_s_}, {"events_per_s", evps}, {"peak_rss_mb", static_cast<double>(ru.ru_maxrss) / 1024.0},
                {"packet_pool", pool.capacity()}}},
  };
  if (cfg_.wl_kind == "htsim_cm") j["workload"]["htsim_start_unit"] = cfg_.htsim_start_unit;
  if (!failures_.empty()) {
    json list = json::array();
    for (const auto& f : failures_) {
      json e = {{"kind", net::failure_kind_name(f.kind)}, {"start_us", to_us(f.start)},
                {"duration_us", f.duration > 0 ? json(to_us(f.duration)) : json(nullptr)}};
      if (f.link >= 0) e["link"] = f.link;
      if (f.link >= 0) e["ends"] = {topo_.nodes[topo_.links[f.link].a].label, topo_.nodes[topo_.links[f.link].b].label};
      if (f.node >= 0) e["switch"] = topo_.nodes[f.node].label;
      if (f.from >= 0) e["from"] = topo_.nodes[f.from].label;
      list.push_back(e);
    }
    j["failures"] = {{"count", failures_.size()}, {"converge_us", cfg_.converge_us}, {"list", list}};
  }
  // Spritz endpoint table ([Spritz] sec. III-C, Fig. 3): one EV entry list (24 bits per entry) per
  // destination switch, shared by the endpoints of a source switch. Measured exactly for up to 8 of
  // the source switches the workload uses (the tables of Table II networks are near-symmetric).
  if (const auto* sg = dynamic_cast<const routing::SourceGuidedRouter*>(router_.get()); sg && !ev_lists_.empty()) {
    std::vector<std::int32_t> srcs;
    for (const auto& [key, list] : ev_lists_) {
      const auto a = static_cast<std::int32_t>(key >> 32);
      if (std::find(srcs.begin(), srcs.end(), a) == srcs.end() && srcs.size() < 8) srcs.push_back(a);
    }
    std::int64_t max_bytes = 0, max_paths = 0;
    for (auto a : srcs) {
      std::int64_t bits = 0;
      for (std::int32_t b = 0; b < topo_.num_switches(); ++b) {
        const auto n = static_cast<std::int64_t>(sg->tables().entries(a, topo_.switch_node(b)).size());
        bits += n * lb::kEvEntryBits;
        max_paths = std::max(max_paths, n);
      }
      max_bytes = std::max(max_bytes, (bits + 7) / 8);
    }
    std::size_t lists_bytes = 0;
    for (const auto& [key, list] : ev_lists_) lists_bytes += (list.bits() + 7) / 8;
    j["spritz"] = {{"endpoint_table_bytes_per_endpoint", max_bytes}, {"max_paths_per_destination", max_paths},
                   {"sampled_source_switches", srcs.size()}, {"ev_lists", ev_lists_.size()},
                   {"ev_lists_bytes", lists_bytes}, {"w_scale", cfg_.spritz_w_scale},
                   {"switch_table_bytes", sg->tables().table_bytes()}};
  }
  // REPS: per-connection state ([REPS] Table 1) and freezing-mode activity (sec. 3.2).
  std::uint64_t reps_flows = 0, reps_frozen = 0, reps_entries = 0, reps_failures = 0;
  std::size_t reps_bits = 0;
  SimTime reps_first = -1;
  for (const auto& f : tr_->flows()) {
    const auto* r = dynamic_cast<const lb::RepsPolicy*>(f.lb.get());
    if (!r) continue;
    ++reps_flows;
    reps_bits = r->state_bits();
    reps_entries += r->freeze_entries();
    reps_failures += r->failures_detected();
    if (r->freeze_entries()) ++reps_frozen;
    if (r->first_freeze_time() >= 0 && (reps_first < 0 || r->first_freeze_time() < reps_first))
      reps_first = r->first_freeze_time();
  }
  if (reps_flows)
    j["reps"] = {{"state_bits", reps_bits}, {"state_bytes", (reps_bits + 7) / 8}, {"flows", reps_flows},
                 {"failures_detected", reps_failures}, {"freeze_entries", reps_entries}, {"flows_frozen", reps_frozen},
                 {"first_freeze_us", reps_first < 0 ? nlohmann::json(nullptr) : nlohmann::json(to_us(reps_first))}};
  return j;
}

void Simulation::write_outputs(const std::string& dir) const {
  fs::create_directories(dir);
  auto open = [&](const std::string& name) {
    std::ofstream f(fs::path(dir) / name);
    if (!f) throw UserError("cannot write " + (fs::path(dir) / name).string());
    return f;
  };
  {
    auto f = open("config.toml");
    f << to_toml(cfg_);
  }
  {
    auto f = open("summary.json");
    f << summary().dump(2) << "\n";
  }
  if (cfg_.flows_csv) {
    auto f = open("flows.csv");
    metrics::write_flows_csv(f, flow_results());
  }
  if (cfg_.ports_csv) {
    auto f = open("ports.csv");
    f << "node,node_label,port,peer,peer_label,link_kind,rate_gbps,tx_packets,tx_bytes,utilization,drops,trims,ecn_marks,failure_drops,max_queue_bytes\n";
    const double t = static_cast<double>(std::max<SimTime>(1, net_->now()));
    for (std::uint32_t i = 0; i < net_->num_ports(); ++i) {
      const auto& p = net_->port(i);
      const auto& st = p.stats;
      const double util = static_cast<double>(st.tx_bytes) * 8e12 / static_cast<double>(p.rate) / t;
      fmt::print(f, "{},{},{},{},{},{},{:.3f},{},{},{:.6f},{},{},{},{},{}\n", p.node, csv_field(topo_.nodes[p.node].label), p.local, p.peer,
                 csv_field(topo_.nodes[p.peer].label), topo::link_kind_name(topo_.links[p.link].kind), static_cast<double>(p.rate) / 1e9,
                 st.tx_packets, st.tx_bytes, util, st.drops, st.trims, st.ecn_marks, st.failure_drops, st.max_data_bytes);
    }
  }
  if (!cfg_.path_usage_tag.empty()) {
    auto f = open("path_usage.csv");
    write_path_usage(f);
  }
  if (queue_sample_ > 0) {
    auto f = open("queues.csv");
    f << "time_us,node,port,peer,data_bytes,ctrl_bytes\n";
    for (const auto& r : queue_rows_) f << r << "\n";
  }
}

void Simulation::write_path_usage(std::ostream& os) const {
  os << "flow,src,dst,ev,ev1,ev2,entry,latency_ns,switch_hops,category,path,sent,acks,ecn_acks,nacks,timeouts,"
        "first_sent_us,last_sent_us\n";
  const auto* sg = dynamic_cast<const routing::SourceGuidedRouter*>(router_.get());
  auto recs = recorders_;
  std::sort(recs.begin(), recs.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  for (const auto& [id, rec] : recs) {
    const auto& s = wl_.flows[id];
    const std::int32_t a = topo_.host_switch(s.src), b = topo_.host_switch(s.dst);
    const auto it = ev_lists_.find((static_cast<std::uint64_t>(a) << 32) | static_cast<std::uint32_t>(b));
    const lb::EvEntryList* list = it == ev_lists_.end() ? nullptr : &it->second;
    for (const auto& [ev, u] : rec->usage()) {
      const std::int32_t entry = list ? list->index_of(ev) : -1;
      std::string latency, hops, category, path;
      if (entry >= 0) {
        const auto& e = (*list)[static_cast<std::size_t>(entry)];
        latency = fmt::format("{:.3f}", static_cast<double>(e.latency) / 1e3);
        category = e.minimal() ? "minimal" : "non_minimal";
      }
      // Fine-grained source-guided routing: the switches the EV leads through (replayed).
      if (sg && !sg->coarse()) {
        const auto walk = sg->tables().walk(a, b, ev);
        hops = std::to_string(walk.size());
        for (const auto& h : walk) path += topo_.nodes[h.node].label + ">";
        path += topo_.nodes[b].label;
      }
      fmt::print(os, "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.3f},{:.3f}\n", id, s.src, s.dst, ev, ev >> 8, ev & 0xFF,
                 entry, latency, hops, category, csv_field(path), u.sent, u.acks, u.ecn_acks, u.nacks, u.timeouts,
                 to_us(u.first_sent), to_us(u.last_sent));
    }
  }
}

}  // namespace lbsim::sim
