#include "sim/simulation.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>

#include <fmt/core.h>

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
  transport::apply_preset(cfg_);  // before the checks: the preset's values are checked like any other
  config::check(cfg_);
  check_memory(cfg_);  // before anything is built (docs/reliability.md "Limits")
  topo_ = topo::build_topology(cfg_);
  std::vector<std::string> warnings;
  wl_ = workload::build_workload(cfg_, topo_, &warnings);
  for (const auto& w : warnings) fmt::print(stderr, "lbsim: warning: {}\n", w);
  workload::check_packet_counts(wl_, cfg_.integer("network.mtu"),
                                cfg_.where_any({"workload.file", "workload.size", "network.mtu"}));
  paths_ = std::make_unique<routing::PathModel>(topo_, from_ns(cfg_.real("network.switch_latency_ns")));
  d_ = derive(cfg_, topo_, *paths_);

  const auto seed = static_cast<std::uint64_t>(cfg_.integer("run.seed"));
  net_ = std::make_unique<net::Network>(topo_, net_config(cfg_, d_), seed);
  tables_ = std::make_unique<routing::MinimalTables>(topo_);
  router_ = routing::make_router(routing::RoutingContext{cfg_, *tables_, *net_, seed, d_.base_rtt});
  flows_ = std::make_unique<FlowSetup>(cfg_, topo_, wl_, d_, *tables_, *router_);
  failures_ = std::make_unique<FailureSchedule>(cfg_, topo_);
  net::Router& router = failures_->attach(*net_, flows_->router(*router_), *tables_, seed);

  transport::TransportParams tp;
  tp.mtu = cfg_.integer("network.mtu");
  tp.header = cfg_.integer("network.header_bytes");
  tp.rto = d_.rto;
  tp.ack_every = static_cast<std::uint32_t>(cfg_.integer("transport.ack_every"));
  tp.ack_delay = from_us(cfg_.real("transport.ack_delay_us"));
  tp.ack_carry_evs = cfg_.text("lb.reps_ack_mode") == "carry";
  tp.delivery = cfg_.text("transport.delivery") == "in_order" ? transport::Delivery::InOrder : transport::Delivery::Ooo;
  tp.recovery = cfg_.text("transport.in_order_recovery") == "go_back_n" ? transport::Recovery::GoBackN
                                                                        : transport::Recovery::Buffer;
  fct_at_sender_ = cfg_.text("output.fct_at") == "sender";
  tp.wait_senders = fct_at_sender_;
  tp.pause_timeout = cfg_.real("transport.pause_timeout_us") > 0 ? from_us(cfg_.real("transport.pause_timeout_us")) : d_.rto;
  transport::CcParams cc;
  cc.init_cwnd = d_.init_cwnd;
  cc.max_cwnd = d_.max_cwnd;
  cc.base_rtt = d_.base_rtt;
  tp.cc = transport::cc_params(cfg_, cc);
  tr_ = std::make_unique<transport::Transport>(
      *net_, wl_, tp, [f = flows_.get()](const workload::FlowSpec& s, std::uint32_t id) { return f->make_policy(s, id); });
  net_->set_router(&router);
  net_->set_host_handler(tr_.get());
  net_->on(net::kEvQueueSample, this);
  queue_sample_ = from_us(cfg_.real("output.queue_sample_us"));
  const auto& prog = cfg_.text("run.progress");
  progress_on_ = prog == "on" || (prog == "auto" && isatty(STDERR_FILENO));
}

Simulation::~Simulation() = default;

void Simulation::on_event(const Event&) {
  // Queue sampling: every non-empty switch queue (docs/outputs.md queues.csv).
  for (std::uint32_t i = 0; i < net_->num_ports(); ++i) {
    const auto& p = net_->port(i);
    if (p.is_nic || (p.data.bytes == 0 && p.ctrl.bytes == 0)) continue;
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
  if (!s->progress_on_) return;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count() - s->run_start_;
  if (elapsed - s->progress_last_ < 0.5) return;
  s->progress_last_ = elapsed;
  const double done = static_cast<double>(s->tr_->completed()) / static_cast<double>(std::max<std::size_t>(1, s->wl_.flows.size()));
  const double tfrac = static_cast<double>(now) / std::max(1.0, s->cfg_.real("run.end_us") * 1e6);
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
  net_->set_progress_hook(&Simulation::progress, this);
  tr_->start();
  if (queue_sample_ > 0) net_->events().push(0, net::kEvQueueSample, 0);
  failures_->schedule();
  quiet_from_ = failures_->last_change();
  if (const double w = cfg_.real("run.watchdog_us"); w > 0) watchdog_ = std::max(from_us(w), 20 * d_.rto);
  const double end_us = cfg_.real("run.end_us");
  if (interrupt_requested())
    interrupted_ = true;  // interrupted while the run was being built: nothing simulated
  else
    net_->run(end_us > 0 ? from_us(end_us) : kTimeNever);
  wall_s_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (progress_on_) fmt::print(stderr, "\n");
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
