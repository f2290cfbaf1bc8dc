#include "sim/simulation.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>

#include <fmt/core.h>

#include "core/error.h"
#include "lb/registry.h"
#include "routing/registry.h"
#include "sim/failure_schedule.h"
#include "sim/flow_setup.h"
#include "sim/memory.h"
#include "transport/registry.h"
#include "topo/registry.h"
#include "workload/registry.h"
#include "workload/validate.h"

namespace lbsim::sim {

namespace {
// Lock-free and written by a signal handler: std::atomic<int> is async-signal-safe where it is lock-free.
std::atomic<int> g_interrupt{0};  // 0 none; -1 requested by a call; else the signal number
static_assert(std::atomic<int>::is_always_lock_free);

extern "C" void on_interrupt_signal(int sig) { g_interrupt.store(sig, std::memory_order_relaxed); }
}  // namespace

void request_interrupt() { g_interrupt.store(-1, std::memory_order_relaxed); }
void clear_interrupt() { g_interrupt.store(0, std::memory_order_relaxed); }
bool interrupt_requested() { return g_interrupt.load(std::memory_order_relaxed) != 0; }
int interrupt_signal() { return std::max(0, g_interrupt.load(std::memory_order_relaxed)); }

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_interrupt_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND;  // a second signal ends the process (default action)
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

Simulation::Simulation(Config cfg) : cfg_(std::move(cfg)) {
  // Lossless modes switch trimming off (nothing overflows); writing it into the run's config keeps
  // config.toml a valid input (the config check rejects trimming = true given with them).
  if (cfg_.text("network.flow_control") != "lossy" && !cfg_.given("network.trimming"))
    cfg_.set("network.trimming", false, "network.flow_control");
  config::apply_presets(cfg_);  // transport.preset, lb.spritz_reading: before the checks, which see their values
  config::check(cfg_);
  check_memory(cfg_);  // before anything is built (docs/reliability.md "Limits")
  topo_ = topo::build_topology(cfg_);
  std::vector<std::string> warnings;
  stream_ = cfg_.flag("workload.stream");
  std::size_t late = 0;
  SimTime first = kTimeNever;
  const double end_us = cfg_.real("run.end_us");
  const auto count_late = [&](const workload::FlowSpec& f) {
    if (end_us <= 0 || f.start <= from_us(end_us)) return;
    ++late;
    first = std::min(first, f.start);
    late_transfers_ += !f.is_compute();
  };
  if (stream_) {
    // Entries made during the run (docs/scale-flows.md): one pass now counts and checks them.
    const auto* plugin = workload::workloads().find(cfg_.text("workload.kind"));
    if (!plugin || !plugin->stream)
      throw UserError(
          fmt::format("{}workload.stream = true: the workload '{}' cannot be streamed (only {} can; workloads with "
                      "dependencies keep their graph)",
                      cfg_.where_any({"workload.stream", "workload.kind"}), cfg_.text("workload.kind"),
                      config::join(workload::streamable_workloads(), " or ")));
    auto pass = workload::open_stream(cfg_, topo_, &warnings);
    const Bytes mtu = cfg_.integer("network.mtu");
    workload::FlowSpec f;
    while (pass->next(f, wl_)) {
      const std::size_t i = entries_++;
      if (f.src < 0 || f.src >= topo_.num_hosts || (!f.is_compute() && (f.dst < 0 || f.dst >= topo_.num_hosts)))
        throw UserError(
            fmt::format("workload entry {}: host {} -> {} out of range (0..{})", i, f.src, f.dst, topo_.num_hosts - 1));
      if (!f.deps.empty() || !f.start_deps.empty())
        throw std::logic_error("a streamed workload entry has dependencies");
      if (!f.is_compute()) {
        ++transfers_;
        const std::int64_t packets = (f.bytes + mtu - 1) / mtu;
        if (packets > workload::kMaxMessagePackets)
          throw UserError(
              fmt::format("{}workload entry {} ({} -> {}): {} bytes are {} packets of network.mtu = {} bytes; "
                          "at most {} packets per message (32-bit sequence numbers)",
                          cfg_.where_any({"workload.size", "network.mtu"}), i, f.src, f.dst, f.bytes, packets, mtu,
                          workload::kMaxMessagePackets));
        total_packets_ += static_cast<std::uint64_t>(packets);
      }
      count_late(f);
    }
  } else {
    wl_ = workload::build_workload(cfg_, topo_, &warnings);
    entries_ = wl_.flows.size();
    for (const auto& f : wl_.flows) count_late(f);
  }
  for (const auto& w : warnings) fmt::print(stderr, "lbsim: warning: {}\n", w);
  // Entries timed after the end never run: say so now, not as "unfinished" at the end (imports whose
  // time unit was misread - htsim .cm in ps, ns-3 flow files - show up here).
  if (late > 0) {
    const auto& unit_key = workload::workloads().get(cfg_.text("workload.kind")).time_unit_key;
    fmt::print(stderr,
               "lbsim: warning: {} of {} workload entries start after run.end_us = {} us (the first at {} us): "
               "they will not run{}\n",
               late, entries_, end_us, to_us(first), unit_key.empty() ? "" : " (check " + unit_key + ")");
  }
  if (!stream_)
    workload::check_packet_counts(wl_, cfg_.integer("network.mtu"),
                                  cfg_.where_any({"workload.file", "workload.size", "network.mtu"}));
  tables_ = std::make_unique<routing::MinimalTables>(topo_);
  paths_ = std::make_unique<routing::PathModel>(*tables_, from_ns(cfg_.real("network.switch_latency_ns")));
  d_ = derive(cfg_, topo_, *paths_);

  const auto seed = static_cast<std::uint64_t>(cfg_.integer("run.seed"));
  net_ = std::make_unique<net::Network>(topo_, net_config(cfg_, d_), seed);
  router_ = routing::make_router(routing::RoutingContext{cfg_, *tables_, *net_, seed, d_.base_rtt});
  flows_ = std::make_unique<FlowSetup>(cfg_, topo_, wl_, d_, *tables_, *router_);
  if (stream_) {
    auto pass = workload::open_stream(cfg_, topo_, nullptr);
    flows_->prepare_stream(*pass, wl_);
    feed_ = workload::open_stream(cfg_, topo_, nullptr);
  }
  failures_ = std::make_unique<FailureSchedule>(cfg_, topo_);
  net::Router& router = failures_->attach(*net_, flows_->router(*router_), *tables_, seed);

  transport::TransportParams tp;
  tp.mtu = cfg_.integer("network.mtu");
  tp.header = cfg_.integer("network.header_bytes");
  tp.rto = d_.rto;
  tp.ack_every = static_cast<std::uint32_t>(cfg_.integer("transport.ack_every"));
  tp.ack_delay = from_us(cfg_.real("transport.ack_delay_us"));
  tp.ack_carry_evs = lb::transport_needs(cfg_).ack_carry_evs;
  tp.ack_bytes = cfg_.integer("transport.ack_bytes");
  tp.ack_on_ecn = cfg_.flag("transport.ack_on_ecn");
  tp.ack_request = cfg_.flag("transport.ack_request");
  tp.last_hop_trim_ack = cfg_.text("transport.last_hop_trim") == "ack";
  tp.pin_acks = cfg_.text("transport.pinned_acks") == "pinned";
  tp.delivery = cfg_.text("transport.delivery") == "in_order" ? transport::Delivery::InOrder : transport::Delivery::Ooo;
  tp.recovery = cfg_.text("transport.in_order_recovery") == "go_back_n" ? transport::Recovery::GoBackN
                                                                        : transport::Recovery::Buffer;
  fct_at_sender_ = cfg_.text("output.fct_at") == "sender";
  tp.wait_senders = fct_at_sender_;
  tp.scan_all = cfg_.text("transport.nic_scheduler") == "scan";
  tp.pause_timeout =
      cfg_.real("transport.pause_timeout_us") > 0 ? from_us(cfg_.real("transport.pause_timeout_us")) : d_.rto;
  transport::CcParams cc;
  cc.init_cwnd = d_.init_cwnd;
  cc.max_cwnd = d_.max_cwnd;
  cc.base_rtt = d_.base_rtt;
  tp.cc = transport::cc_params(cfg_, cc);
  tp.rccc = transport::receiver_cc_params(cfg_, d_.bdp);
  transport::PolicyFactory make = [f = flows_.get()](const workload::FlowSpec& s, std::uint32_t id) {
    return f->make_policy(s, id);
  };
  transport::PolicyKeep keep = [f = flows_.get()](const workload::FlowSpec& s, std::uint32_t id) {
    return f->keeps_policy(s, id);
  };
  transport::PolicyDone done = [f = flows_.get()](const workload::FlowSpec& s, std::uint32_t id,
                                                  const lb::EntropyPolicy& p) { f->policy_done(s, id, p); };
  if (stream_) {
    auto feed = [this](workload::FlowSpec& s) {
      if (!feed_->next(s, wl_)) return false;
      flows_->retag(s);
      return true;
    };
    tr_ = std::make_unique<transport::Transport>(
        *net_, entries_, transfers_, feed, [this](const transport::FlowReport& f) { retire(f); }, tp, std::move(make),
        std::move(keep), std::move(done));
  } else {
    tr_ = std::make_unique<transport::Transport>(*net_, wl_, tp, std::move(make), std::move(keep), std::move(done));
  }
  net_->set_router(&router);
  net_->set_host_handler(tr_.get());
  net_->on(net::kEvQueueSample, this);
  queue_sample_ = from_us(cfg_.real("output.queue_sample_us"));
  trims_csv_ = cfg_.flag("output.trims_csv");
  if (trims_csv_) net_->set_loss_log(&losses_);
  queue_all_ports_ = cfg_.text("output.queue_ports") == "all";
  reorder_sample_ = from_us(cfg_.real("output.reorder_sample_us"));
  meter_ =
      std::make_unique<progress::Meter>("lbsim run", progress::mode_for_stderr(cfg_.text("run.progress")), "packets");
}

void Simulation::set_progress(progress::Mode mode, std::string label) {
  meter_ = std::make_unique<progress::Meter>(std::move(label), mode, "packets");
}

Simulation::~Simulation() = default;

void Simulation::on_event(const Event& e) {
  if (e.obj == 1) {
    // [LAPS] Fig. 9: the reorder-buffer occupancy of every host holding packets (reorder_buffer.csv).
    const auto& rob = tr_->rob_per_host();
    for (std::size_t h = 0; h < rob.size(); ++h)
      if (rob[h] > 0)
        rob_samples_.push_back(
            RobSample{net_->now(), static_cast<std::int32_t>(h), static_cast<std::uint64_t>(rob[h])});
    net_->events().push(net_->now() + reorder_sample_, net::kEvQueueSample, 1);
    return;
  }
  // Queue sampling: every non-empty switch queue, or every switch port with output.queue_ports =
  // "all" (docs/outputs.md queues.csv).
  for (std::uint32_t i = 0; i < net_->num_ports(); ++i) {
    const auto& p = net_->port(i);
    if (p.is_nic || (!queue_all_ports_ && p.data.bytes == 0 && p.ctrl.bytes == 0)) continue;
    queue_samples_.push_back(
        metrics::QueueSample{net_->now(), p.node, p.local, p.peer, p.data.bytes, p.ctrl.bytes, net_->port_blocked(i)});
  }
  net_->events().push(net_->now() + queue_sample_, net::kEvQueueSample, 0);
}

// Called by the event loop every 2^18 events: the interrupt check, then the progress line.
void Simulation::progress(void* self, SimTime now) {
  auto* s = static_cast<Simulation*>(self);
  if (interrupt_requested()) {
    s->interrupted_ = true;
    s->net_->stop();
    return;
  }
  if (s->watchdog_ > 0 && !s->tr_->run_done() && s->tr_->timed_pending() == 0 && now > s->quiet_from_) {
    // run.watchdog_us: unfinished entries and no progress for the window (checked every event batch).
    const SimTime since = std::max(s->tr_->last_progress(), s->quiet_from_);
    if (now - since >= s->watchdog_) {
      s->stuck_ = true;
      s->stuck_since_ = since;
      s->net_->stop();
      return;
    }
  }
  if (s->meter_->mode() == progress::Mode::Off) return;
  // Work done: data packets delivered (first copies) out of the packets the workload's transfers
  // send; a workload without transfers (compute only) counts finished entries.
  const bool by_packets = s->total_packets_ > 0;
  const double done = by_packets ? static_cast<double>(s->tr_->delivered()) : static_cast<double>(s->tr_->completed());
  const double total = by_packets ? static_cast<double>(s->total_packets_) : static_cast<double>(s->entries_);
  const double el = std::max(1e-9, s->meter_->elapsed());
  s->meter_->update(done, total,
                    fmt::format("entries {}/{}  t = {:.1f} us  {:.2f} M events/s", s->tr_->completed(), s->entries_,
                                to_us(now), static_cast<double>(s->net_->events_processed()) / 1e6 / el));
}

int Simulation::run() {
  if (ran_) throw std::logic_error("Simulation::run called twice");
  ran_ = true;
  const auto t0 = std::chrono::steady_clock::now();
  if (!stream_) {
    total_packets_ = 0;
    for (const auto& f : tr_->flows()) total_packets_ += f.npkts;
  } else if (cfg_.flag("output.flows_csv")) {
    // The rows of the entries that leave the transport, in id order, until the outputs are written.
    rows_ = std::make_unique<StreamedRows>();
  }
  // The setup's memory (topology, routing, workload records, base RTT), for the growth during the run,
  // and its CPU time (summary.json perf: setup_rss_mb, setup_peak_rss_mb, setup_cpu_s; scripts/bench.sh).
  // Read once, outside the loop.
  {
    long pages = 0, resident = 0;
    if (std::FILE* f = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
      std::fclose(f);
    }
    setup_rss_mb_ = static_cast<double>(resident) * static_cast<double>(sysconf(_SC_PAGESIZE)) / 1048576.0;
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    // The kernel syncs its resident-page counters lazily (per-thread batches): either reading may
    // trail the other by a fraction of a MiB.
    setup_peak_rss_mb_ = std::max(setup_rss_mb_, static_cast<double>(ru.ru_maxrss) / 1024.0);
    setup_cpu_s_ = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                   static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  }
  meter_->restart();
  net_->set_progress_hook(&Simulation::progress, this);
  tr_->start();
  if (queue_sample_ > 0) net_->events().push(0, net::kEvQueueSample, 0);
  if (reorder_sample_ > 0) net_->events().push(0, net::kEvQueueSample, 1);
  failures_->schedule();
  quiet_from_ = failures_->last_change();
  if (const double w = cfg_.real("run.watchdog_us"); w > 0) watchdog_ = std::max(from_us(w), 20 * d_.rto);
  const double end_us = cfg_.real("run.end_us");
  if (interrupt_requested())
    interrupted_ = true;  // interrupted while the run was being built: nothing simulated
  else
    net_->run(end_us > 0 ? from_us(end_us) : kTimeNever);
  wall_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  tr_->admit_rest();
  meter_->finish();
  if (net_->lossless()) {
    // The enqueue path of the lossless modes has no drop; a congestion drop here is a bug.
    std::uint64_t drops = 0, trims = 0;
    for (std::uint32_t i = 0; i < net_->num_ports(); ++i) {
      drops += net_->port(i).stats.drops;
      trims += net_->port(i).stats.trims;
    }
    if (drops || trims)
      throw std::logic_error(fmt::format("network.flow_control = {}: {} packets dropped and {} trimmed by full queues",
                                         net::flow_control_name(net_->flow_control()), drops, trims));
    if (const auto* st = net_->stall()) fmt::print(stderr, "{}", st->text());
  }
  if (interrupted_) return 130;
  return tr_->run_done() ? 0 : 3;
}

}  // namespace lbsim::sim
