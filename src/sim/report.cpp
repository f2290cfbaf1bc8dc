// What a run reports: per-flow results, summary.json, and the run folder (docs/outputs.md). The file
// formats are written by metrics/report.h; this file gathers the run's data into them.
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>

#include <fmt/core.h>

#include "config/reader.h"
#include "core/error.h"
#include "core/huge_pages.h"
#include "core/text.h"
#include "lb/registry.h"
#include "routing/registry.h"
#include "sim/failure_schedule.h"
#include "sim/flow_setup.h"
#include "sim/simulation.h"
#include "workload/registry.h"

namespace lbsim::sim {

namespace fs = std::filesystem;

metrics::FlowResult Simulation::result(const transport::FlowReport& f) const {
  const auto& s = f;
  metrics::FlowResult r;
  r.id = f.id;
  r.src = s.src;
  r.dst = s.dst;
  r.bytes = s.bytes;
  r.tag = wl_.tags.at(static_cast<std::size_t>(s.tag));
  r.lb = s.is_compute() ? "" : (s.lb->empty() ? cfg_.text("lb.algorithm") : *s.lb);
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
  r.max_reorder = f.n.max_reorder;
  r.duplicates = f.n.duplicates;
  r.trimmed_rx = f.n.trimmed_rx;
  if (s.is_compute()) {
    r.ideal = s.compute;
  } else if (f.npkts > 0) {
    r.ideal =
        paths_->ideal_fct(s.src, s.dst, s.bytes, cfg_.integer("network.mtu"), cfg_.integer("network.header_bytes"));
  }
  return r;
}

std::vector<metrics::FlowResult> Simulation::flow_results() const {
  if (stream_) throw std::logic_error("workload.stream: the flows.csv rows are written as the entries finish");
  std::vector<metrics::FlowResult> out;
  out.reserve(wl_.flows.size());
  for (const auto& f : tr_->flows()) out.push_back(result(tr_->report(f)));
  return out;
}

void FlowTotals::add(const metrics::FlowResult& r, const transport::FlowReport& f, bool fct_at_sender) {
  ++rows;
  if (r.start >= 0) first_start = std::min(first_start, r.start);
  if (r.finished) last_finish = std::max(last_finish, r.finish);
  all_finished = all_finished && r.finished;
  computes = computes || r.compute;
  received += f.rcv_count;
  overtaken += f.n.overtaken;
  rewinds += f.n.rewinds;
  pauses += f.n.pauses;
  pause_timeouts += f.n.pause_timeouts;
  max_reorder = std::max(max_reorder, f.n.max_reorder);
  rob_max = std::max(rob_max, f.n.rob_max);
  held_us += to_us(f.n.held);
  if (r.compute) return;
  ++transfers;
  data_sent += r.packets_sent;
  retx += r.retransmits;
  nacks += r.nacks;
  timeouts += r.timeouts;
  ooo += r.ooo;
  // output.fct_at: the receiver's FCT (all bytes held) or the sender's (final ACK, htsim's).
  const SimTime t = fct_at_sender ? r.sender_fct() : r.fct();
  if (t < 0) {
    ++unfinished;
    return;
  }
  values.push({t, r.ideal, f.tag});
}

void Simulation::retire(const transport::FlowReport& f) {
  const auto r = result(f);
  totals_.add(r, f, fct_at_sender_);
  if (rows_) {
    metrics::write_flow_row(rows_->buf, r);
    if (rows_->buf.tellp() >= (1 << 16)) rows_->flush();
  }
}

namespace {
// summary.json "events_by_kind" (docs/outputs.md, docs/scale.md): events processed per kind (kinds
// that ran), the split of arrivals (host / switch) and of TX_NEXT (sent / idle), and every count per
// data packet put on the wire by a host.
nlohmann::json events_by_kind(const net::Network& n, std::uint64_t data_sent) {
  nlohmann::json counts = nlohmann::json::object();
  for (std::uint32_t k = 0; k < net::kNumEventKinds; ++k)
    if (const auto c = n.events_of_kind(k)) counts[net::event_kind_name(k)] = c;
  const std::uint64_t arrive = n.events_of_kind(net::kEvArrive), tx = n.events_of_kind(net::kEvTxNext);
  counts["arrive_host"] = n.host_arrivals();
  counts["arrive_switch"] = arrive - n.host_arrivals();
  counts["tx_next_idle"] = n.idle_tx_next();
  counts["tx_next_sent"] = tx - n.idle_tx_next();
  nlohmann::json per = nlohmann::json::object();
  if (data_sent > 0)
    for (const auto& [k, v] : counts.items())
      per[k] = static_cast<double>(v.get<std::uint64_t>()) / static_cast<double>(data_sent);
  return {{"data_packets_sent", data_sent},
          {"total_per_data_packet",
           data_sent ? static_cast<double>(n.events_processed()) / static_cast<double>(data_sent) : 0.0},
          {"counts", counts},
          {"per_data_packet", per}};
}
}  // namespace

nlohmann::json Simulation::summary() const {
  using nlohmann::json;
  // Every entry in id order: a streamed run's retired entries are summed already, the records and
  // waiting rows still held follow (every entry in an eager run).
  // The sums go on from the retired entries' (in the same order); the per-transfer values of the
  // entries still held go into `t`'s own vectors and follow the retired ones'.
  FlowTotals t;
  static_cast<FlowSums&>(t) = totals_;
  tr_->for_each_report([&](const transport::FlowReport& f) { t.add(result(f), f, fct_at_sender_); });
  // Each distribution walks the finished transfers' values in id order (the retired entries', then
  // those of the entries still held), as often as its exact percentiles need, holding none of them.
  const auto each_transfer = [&](const std::function<void(const metrics::TransferValues&)>& fn) {
    totals_.values.for_each(fn);
    t.values.for_each(fn);
  };
  const auto values = [&](auto&& fn) -> metrics::ValueSource {
    return [&each_transfer, fn](const std::function<void(double)>& out) {
      each_transfer([&](const metrics::TransferValues& v) { fn(out, v); });
    };
  };
  const std::uint64_t retx = t.retx, nacks = t.nacks, timeouts = t.timeouts, ooo = t.ooo, received = t.received,
                      transfers = t.transfers, unfinished = t.unfinished, data_sent = t.data_sent;
  // Makespan (issue 18, collectives and GOAL schedules): first entry start to last entry finish over
  // every entry, computations included; none while an entry is unfinished.
  const bool all_finished = t.rows > 0 && t.all_finished;
  bool dependent = t.computes;
  for (const auto& s : wl_.flows) dependent = dependent || !s.deps.empty() || !s.start_deps.empty();
  const json makespan = all_finished ? json(to_us(t.last_finish - t.first_start)) : json(nullptr);
  std::uint64_t drops = 0, trims = 0, marks = 0, fdrops = 0;
  for (std::uint32_t i = 0; i < net_->num_ports(); ++i) {
    const auto& st = net_->port(i).stats;
    drops += st.drops;
    trims += st.trims;
    marks += st.ecn_marks;
    fdrops += st.failure_drops;
  }
  const std::uint64_t counted_drops = drops + fdrops + net_->ttl_drops() + net_->no_route_drops();
  // A statistic over no transfer has no value: null, never 0.
  auto dist = [](const metrics::ValueSource& v) {
    const auto d = metrics::distribution_of(v);
    if (d.count == 0)
      return json{{"count", 0},     {"max", nullptr}, {"mean", nullptr},
                  {"p50", nullptr}, {"p99", nullptr}, {"min", nullptr}};
    return json{{"count", d.count}, {"max", d.max}, {"mean", d.mean}, {"p50", d.p50}, {"p99", d.p99}, {"min", d.min}};
  };
  // How the run ended (docs/outputs.md): every view (console, compare, report, plots, Python) states it.
  const char* status = interrupted_                                        ? "interrupted"
                       : stuck_                                            ? "watchdog"
                       : net_->stall()                                     ? "stalled"
                       : unfinished > 0 || (t.rows > 0 && !t.all_finished) ? "unfinished"
                                                                           : "completed";
  using Out = const std::function<void(double)>&;
  const json fct_dist = dist(values([](Out out, const metrics::TransferValues& v) { out(to_us(v.fct)); }));
  const json ideal_dist = dist(values([](Out out, const metrics::TransferValues& v) { out(to_us(v.ideal)); }));
  const json slow_dist = dist(values([](Out out, const metrics::TransferValues& v) {
    if (v.ideal > 0) out(static_cast<double>(v.fct) / static_cast<double>(v.ideal));
  }));
  json tags = json::object();
  {
    // FCTs by tag name (tags of the same name together), in id order.
    std::vector<char> used(wl_.tags.size(), 0);
    each_transfer([&](const metrics::TransferValues& v) { used.at(static_cast<std::size_t>(v.tag)) = 1; });
    std::map<std::string, std::vector<char>> of_name;  // per tag name, which tag ids carry it
    for (std::size_t i = 0; i < used.size(); ++i)
      if (used[i]) of_name.try_emplace(wl_.tags[i], used.size(), 0).first->second[i] = 1;
    for (const auto& entry : of_name) {
      const std::vector<char>& of = entry.second;  // a named variable: clang 14 cannot capture a structured binding
      tags[entry.first] = dist(values([&of](Out out, const metrics::TransferValues& v) {
        if (of[static_cast<std::size_t>(v.tag)]) out(to_us(v.fct));
      }));
    }
  }
  const auto& pool = net_->packets();
  const std::uint64_t created = pool.allocated(), live = pool.live();
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  const double evps = wall_s_ > 0 ? static_cast<double>(net_->events_processed()) / wall_s_ : 0.0;
  json j = {
      {"lbsim_version", "0.1.0"},
      {"seed", cfg_.integer("run.seed")},
      {"topology",
       {{"kind", topo_.kind},
        {"hosts", topo_.num_hosts},
        {"switches", topo_.num_switches()},
        {"links", topo_.links.size()}}},
      {"load_balancer", cfg_.text("lb.algorithm")},
      {"routing", cfg_.text("routing.algorithm")},
      {"congestion_control", cfg_.text("transport.cc")},
      {"workload", {{"kind", cfg_.text("workload.kind")}, {"entries", tr_->entries()}, {"transfers", transfers}}},
      {"status", status},
      {"completed", transfers - unfinished},
      {"unfinished", unfinished},
      {"interrupted", interrupted_},
      {"end_time_us", to_us(net_->now())},
      {"fct_at", fct_at_sender_ ? "sender" : "receiver"},
      {"fct_us", fct_dist},
      {"ideal_fct_us", ideal_dist},
      {"slowdown", slow_dist},
      {"fct_us_by_tag", tags},
      {"makespan_us", makespan},
      {"has_dependencies", dependent},
      {"drops", drops},
      {"failure_drops", fdrops},
      {"ttl_drops", net_->ttl_drops()},
      {"no_route_drops", net_->no_route_drops()},
      {"trims", trims},
      {"ecn_marks", marks},
      {"nacks", nacks},
      {"retransmits", retx},
      {"timeouts", timeouts},
      {"ooo_packets", ooo},
      {"ooo_pct", received ? 100.0 * static_cast<double>(ooo) / static_cast<double>(received) : 0.0},
      {"sim_time_us", to_us(net_->now())},
      {"events", net_->events_processed()},
      {"events_by_kind", events_by_kind(*net_, data_sent)},
      {"derived",
       {{"base_rtt_us", to_us(d_.base_rtt)},
        {"packet_bytes", d_.packet_bytes},
        {"bdp_bytes", d_.bdp},
        {"bdp_packets", d_.bdp_packets},
        {"queue_bytes", d_.queue_bytes},
        {"ctrl_queue_bytes", d_.ctrl_queue_bytes},
        {"rto_us", to_us(d_.rto)},
        {"init_cwnd_bytes", d_.init_cwnd},
        {"max_cwnd_bytes", d_.max_cwnd},
        {"ev_space", d_.ev_space}}},
      // Every packet made is delivered, dropped by one of the counters above, or still in the
      // network: created = delivered + drops + failure_drops + ttl_drops + no_route_drops + in_flight.
      {"conservation",
       {{"created", created},
        {"delivered", net_->delivered()},
        {"dropped", net_->dropped()},
        {"in_flight", live},
        {"ok", created == net_->delivered() + counted_drops + live && counted_drops == net_->dropped()}}},
      // Peak state, for memory per active transfer / in-flight packet (scripts/bench.sh, docs/scale.md):
      // deterministic (the transport's live-record counter and the packet pool's most records at
      // once). A data record is a packet; an ACK's has its ACK fields beside it.
      {"peaks",
       {{"live_transfers", tr_->memory().peak_live},
        {"packets", pool.peak_live()},
        {"packet_record_bytes", sizeof(net::Packet)},
        {"ack_record_bytes", sizeof(net::Packet) + sizeof(net::AckFields)}}},
      {"perf",
       {{"wall_s", wall_s_},
        {"events_per_s", evps},
        {"peak_rss_mb", static_cast<double>(ru.ru_maxrss) / 1024.0},
        {"packet_pool", pool.capacity()},
        {"setup_rss_mb", setup_rss_mb_},
        {"setup_peak_rss_mb", setup_peak_rss_mb_},
        {"setup_cpu_s", setup_cpu_s_},
        {"huge_pages", huge_pages::heap_backing()},
        {"far_prefetch_events", net_->far_prefetch_events()}}},
  };
  // The unit the workload read its start times in (workload::WorkloadPlugin::time_unit_key).
  if (const auto& key = workload::workloads().get(cfg_.text("workload.kind")).time_unit_key; !key.empty())
    j["workload"][key.substr(key.find('.') + 1)] = cfg_.text(key);
  if (!d_.warnings.empty()) j["warnings"] = d_.warnings;
  if (net_->lossless()) j["flow_control"] = flow_control_summary();
  if (stuck_) j["watchdog"] = watchdog_summary();
  if (!failures_->empty()) j["failures"] = failures_->summary(topo_);
  flows_->add_summary(j, *tr_);
  // The routing plug-in's own block (Flowcut tables, flowlets, source-guided endpoint tables).
  const auto& rp = routing::routings().get(cfg_.text("routing.algorithm"));
  if (rp.summarize)
    if (auto block = rp.summarize(*router_, net_->now()); !block.is_null()) j[rp.summary_key] = std::move(block);
  // In-order delivery, holds and pauses ([Flowcut] sec. II-B, III-C2), over all transfers.
  j["transport"] = {{"delivery", cfg_.text("transport.delivery")},
                    {"in_order_recovery", cfg_.text("transport.in_order_recovery")},
                    {"max_reorder", t.max_reorder},
                    {"overtaken_packets", t.overtaken},
                    {"reorder_buffer_max_packets", t.rob_max},
                    {"go_back_n_rewinds", t.rewinds},
                    {"pauses", t.pauses},
                    {"pause_timeouts", t.pause_timeouts},
                    {"held_us_total", t.held_us}};
  // [LAPS] Fig. 9: the receiving host's reorder-buffer occupancy after every data arrival.
  if (const auto& hist = tr_->rob_histogram(); !hist.empty()) {
    std::uint64_t n = 0;
    double sum = 0;
    for (std::size_t i = 0; i < hist.size(); ++i) {
      n += hist[i];
      sum += static_cast<double>(i) * static_cast<double>(hist[i]);
    }
    const auto quantile = [&](double q) {
      std::uint64_t acc = 0;
      for (std::size_t i = 0; i < hist.size(); ++i)
        if ((acc += hist[i]) >= static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(n)))) return i;
      return hist.size() - 1;
    };
    const auto mtu = static_cast<double>(cfg_.integer("network.mtu"));
    std::uint64_t above30 = 0;
    nlohmann::json bins = nlohmann::json::array();
    for (std::size_t i = 0; i < hist.size(); ++i) {
      if (static_cast<double>(i) * mtu > 30e3) above30 += hist[i];
      if (hist[i]) bins.push_back({i, hist[i]});
    }
    j["reorder_buffer"] = {{"samples", n},
                           {"mean_packets", n ? sum / static_cast<double>(n) : 0.0},
                           {"mean_kb", n ? sum / static_cast<double>(n) * mtu / 1e3 : 0.0},
                           {"p50_packets", quantile(0.5)},
                           {"p99_packets", quantile(0.99)},
                           {"max_packets", quantile(1.0)},
                           {"share_above_30kb", n ? static_cast<double>(above30) / static_cast<double>(n) : 0.0},
                           {"histogram_packets_count", bins}};
  }
  return j;
}

// summary.json "watchdog" (run.watchdog_us stopped the run; docs/outputs.md, docs/reliability.md):
// when progress stopped and the first stuck entries (started, unfinished) with what they got through.
nlohmann::json Simulation::watchdog_summary() const {
  constexpr std::size_t kListed = 10;
  nlohmann::json list = nlohmann::json::array();
  std::size_t started = 0, waiting = 0;
  tr_->for_each_held([&](const transport::FlowState& f) {
    if (!tr_->waiting_for(f)) return;
    if (!f.started) {
      ++waiting;  // waits for an entry that is stuck
      return;
    }
    if (started++ < kListed)
      list.push_back({{"id", f.id},
                      {"src", f.spec->src},
                      {"dst", f.spec->dst},
                      {"bytes", f.spec->bytes},
                      {"received_packets", f.rcv_count},
                      {"packets", f.npkts},
                      {"retransmits", f.n.retransmits},
                      {"timeouts", f.n.timeouts},
                      {"start_us", to_us(f.start_time)}});
  });
  return {{"window_us", to_us(watchdog_)},
          {"no_progress_since_us", to_us(stuck_since_)},
          {"stopped_at_us", to_us(net_->now())},
          {"stuck_started", started},
          {"stuck_waiting", waiting},
          {"first_stuck", list}};
}

// summary.json "flow_control" (lossless modes; docs/outputs.md): the buffers and thresholds used,
// what the credits / pauses did, and the stall report when the run stopped on one.
nlohmann::json Simulation::flow_control_summary() const {
  using nlohmann::json;
  const auto st = net_->fc_stats();
  json j = {{"mode", net::flow_control_name(net_->flow_control())},
            {"stall_us", to_us(d_.stall)},
            {"max_ingress_bytes", st.max_ingress[net::kVcData]},
            {"max_ingress_ctrl_bytes", st.max_ingress[net::kVcCtrl]},
            {"blocked_episodes", st.blocked_episodes},
            {"blocked_us", st.blocked_us},
            {"nic_blocked_episodes", st.nic_blocked_episodes},
            {"nic_blocked_us", st.nic_blocked_us}};
  if (net_->flow_control() == net::FlowControl::Credit) {
    j["ingress_buffer_bytes"] = d_.ingress_buffer;
    j["credit_loop_bytes"] = d_.credit_loop_max;
    j["credit_returns"] = st.credit_returns;
  } else {
    j["xoff_bytes"] = d_.pfc_xoff;
    j["xon_bytes"] = d_.pfc_xon;
    j["headroom_bytes_max"] = st.max_headroom;
    j["pause_frames"] = st.pause_frames;
    j["resume_frames"] = st.resume_frames;
    j["paused_ports"] = st.paused_ports;
    j["paused_us"] = st.paused_us[net::kVcData];
    j["paused_ctrl_us"] = st.paused_us[net::kVcCtrl];
  }
  if (const auto* r = net_->stall()) {
    json cycle = json::array();
    for (const auto& h : r->cycle)
      cycle.push_back({{"node", h.node},
                       {"label", h.node_label},
                       {"port", h.local},
                       {"peer", h.peer},
                       {"peer_label", h.peer_label},
                       {"vc", h.vc == net::kVcCtrl ? "control" : "data"},
                       {"queued_bytes", h.queued_bytes}});
    j["stall"] = {{"time_us", to_us(r->time)},
                  {"quiet_us", to_us(r->quiet)},
                  {"events_ran_dry", r->events_ran_dry},
                  {"queued_packets", r->queued_packets},
                  {"waiting_ports", r->waiting_ports},
                  {"deadlocked_ports", r->deadlocked_ports},
                  {"cycle", cycle}};
  }
  return j;
}

const std::vector<std::string>& run_files() {
  static const std::vector<std::string> files = [] {
    std::vector<std::string> f{"config.toml",    "summary.json", "flows.csv",          "ports.csv",
                               "path_usage.csv", "queues.csv",   "reorder_buffer.csv", "trims.csv"};
    for (const auto& p : lb::balancers().entries()) f.insert(f.end(), p.files.begin(), p.files.end());
    return f;
  }();
  return files;
}

namespace {

// "runs/a/" -> /abs/runs/a (no trailing separator, so that parent_path() is the parent folder).
fs::path folder_path(const std::string& dir) {
  if (dir.empty()) throw UserError("output folder: empty path (set output.dir or --out)");
  fs::path p = fs::absolute(fs::path(dir)).lexically_normal();
  if (p.filename().empty() && p.has_parent_path() && p != p.root_path()) p = p.parent_path();
  return p;
}

// A fresh private folder next to `dest` (.NAME.tmp-XXXXXX), readable like a folder made by mkdir.
fs::path make_temp_sibling(const fs::path& dest) {
  std::string tmpl = (dest.parent_path() / ("." + dest.filename().string() + ".tmp-XXXXXX")).string();
  if (mkdtemp(tmpl.data()) == nullptr)
    throw UserError(fmt::format("output folder '{}': cannot create a folder in {}: {}", dest.string(),
                                dest.parent_path().string(), std::strerror(errno)));
  const mode_t mask = umask(0);
  umask(mask);
  chmod(tmpl.c_str(), 0777 & ~mask);
  return tmpl;
}

void make_folder(const fs::path& p) {
  std::error_code ec;
  if (fs::exists(p, ec) && !fs::is_directory(p, ec))
    throw UserError(fmt::format("output folder '{}': not a folder", p.string()));
  fs::create_directories(p, ec);
  if (ec) throw UserError(fmt::format("output folder '{}': cannot create it: {}", p.string(), ec.message()));
  if (!fs::is_directory(p, ec)) throw UserError(fmt::format("output folder '{}': not a folder", p.string()));
}

// Moves the files of the finished temporary folder `tmp` into `dest`: a rename of the whole folder
// when `dest` does not exist yet, else file by file, removing the run files that this run did not write.
void publish(const fs::path& tmp, const fs::path& dest) {
  std::error_code ec;
  if (!fs::exists(dest, ec)) {
    fs::rename(tmp, dest, ec);
    if (!ec) return;
  }
  make_folder(dest);
  for (const auto& name : run_files()) {
    if (fs::exists(tmp / name, ec)) {
      fs::rename(tmp / name, dest / name, ec);
      if (ec) throw UserError(fmt::format("cannot write {}: {}", (dest / name).string(), ec.message()));
    } else {
      fs::remove(dest / name, ec);
      if (ec)
        throw UserError(
            fmt::format("cannot remove {} (left by an earlier run): {}", (dest / name).string(), ec.message()));
    }
  }
  fs::remove_all(tmp, ec);
}

}  // namespace

void check_output_dir(const std::string& dir) {
  const fs::path dest = folder_path(dir);
  make_folder(dest);
  fs::remove_all(make_temp_sibling(dest));
  const fs::path probe = dest / fmt::format(".lbsim-write-check-{}", getpid());
  {
    std::ofstream f(probe);
    if (!f || !(f << "x") || !f.flush())
      throw UserError(fmt::format("output folder '{}': cannot write files in it", dest.string()));
  }
  std::error_code ec;
  fs::remove(probe, ec);
}

void Simulation::write_outputs(const std::string& out) const {
  const fs::path dest = folder_path(out);
  make_folder(dest.parent_path());
  const fs::path tmp = make_temp_sibling(dest);
  try {
    write_run_files(tmp.string());
  } catch (...) {
    std::error_code ec;
    fs::remove_all(tmp, ec);
    throw;
  }
  publish(tmp, dest);
}

void Simulation::write_run_files(const std::string& dir) const {
  auto open = [&](const std::string& name) {
    std::ofstream f(fs::path(dir) / name);
    if (!f) throw UserError("cannot write " + (fs::path(dir) / name).string());
    return f;
  };
  {
    auto f = open("config.toml");
    f << config::to_toml(cfg_);
  }
  {
    auto f = open("summary.json");
    f << summary().dump(2) << "\n";
  }
  if (cfg_.flag("output.flows_csv")) {
    auto f = open("flows.csv");
    if (!stream_) {
      metrics::write_flows_csv(f, flow_results());
    } else {
      // The retired entries' rows (written during the run, in id order), then the records and waiting
      // rows still held.
      f << metrics::flows_csv_header();
      if (rows_) {
        rows_->flush();
        rows_->file.copy_to(f);
      }
      tr_->for_each_report([&](const transport::FlowReport& fs) { metrics::write_flow_row(f, result(fs)); });
    }
  }
  if (cfg_.flag("output.ports_csv")) {
    std::vector<metrics::PortRow> rows;
    rows.reserve(net_->num_ports());
    // The time the run covers: to run.end_us when it stopped there (its last event may come earlier:
    // nothing happened in between), else to its last event.
    SimTime until = net_->now();
    if (const double end_us = cfg_.real("run.end_us");
        end_us > 0 && !interrupted_ && !stuck_ && !net_->stall() && !tr_->run_done())
      until = std::max(until, from_us(end_us));
    const double t = static_cast<double>(std::max<SimTime>(1, until));
    for (std::uint32_t i = 0; i < net_->num_ports(); ++i) {
      const auto& p = net_->port(i);
      const auto& st = p.stats;
      metrics::PortRow r;
      r.node = p.node;
      r.port = p.local;
      r.peer = p.peer;
      r.node_label = topo_.nodes[p.node].label;
      r.peer_label = topo_.nodes[p.peer].label;
      r.link_kind = topo::link_kind_name(topo_.links[p.link].kind);
      r.rate_gbps = static_cast<double>(p.rate) / 1e9;
      r.tx_packets = st.tx_packets;
      r.tx_bytes = st.tx_bytes;
      // What was on the wire within [0, end]: the bytes put on the link, less the part of the packet
      // still being serialised at the end (tx_bytes counts a packet when it starts). At most 1.
      const double unsent =
          static_cast<double>(std::max<SimTime>(0, p.busy_until - until)) * static_cast<double>(p.rate) / 8e12;
      const double wire = std::max(0.0, static_cast<double>(st.tx_bytes) - unsent);
      r.utilization = std::min(1.0, wire * 8e12 / static_cast<double>(p.rate) / t);
      r.drops = st.drops;
      r.trims = st.trims;
      r.ecn_marks = st.ecn_marks;
      r.failure_drops = st.failure_drops;
      r.no_route_drops = net_->no_route_drops(i);
      r.max_queue_bytes = st.max_data_bytes;
      rows.push_back(std::move(r));
    }
    auto f = open("ports.csv");
    metrics::write_ports_csv(f, rows);
  }
  if (flows_->recording()) {
    auto f = open("path_usage.csv");
    flows_->write_path_usage(f);
  }
  flows_->write_lb_files(dir, *tr_);
  if (reorder_sample_ > 0) {
    auto f = open("reorder_buffer.csv");
    const auto mtu = static_cast<double>(cfg_.integer("network.mtu"));
    f << "time_us,host,host_label,packets,kb\n";
    for (const auto& s : rob_samples_)
      f << fmt::format("{:.3f},{},{},{},{:.3f}\n", to_us(s.time), s.host, topo_.nodes[s.host].label, s.packets,
                       static_cast<double>(s.packets) * mtu / 1e3);
  }
  if (trims_csv_) {
    auto f = open("trims.csv");
    f << "time_us,event,node,node_label,port,peer,peer_label,link_kind,hop,flow,src,dst,psn,ev,retransmit\n";
    for (const auto& r : losses_) {
      const auto& p = net_->port(r.port);
      f << fmt::format("{:.6f},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", to_us(r.time), r.dropped ? "drop" : "trim",
                       p.node, csv_field(topo_.nodes[p.node].label), p.local, p.peer,
                       csv_field(topo_.nodes[p.peer].label), topo::link_kind_name(topo_.links[p.link].kind), r.hops,
                       r.flow, r.src, r.dst, r.psn, r.ev, r.retransmit ? 1 : 0);
    }
  }
  if (queue_sample_ > 0) {
    auto f = open("queues.csv");
    metrics::write_queues_csv(f, queue_samples_,
                              [this](std::int32_t n) -> const std::string& { return topo_.nodes[n].label; });
  }
}

}  // namespace lbsim::sim
