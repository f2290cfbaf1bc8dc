// One simulation run assembled from a Config: topology -> workload -> network + routing +
// transport (+ load balancers) -> run -> outputs. The CLI, tests and benchmarks all go through here.
// The pieces live in their own files: derived quantities (sim/derived.h), the failure schedule
// (sim/failure_schedule.h), per-flow policy setup (sim/flow_setup.h) and the reports (sim/report.cpp).
#pragma once
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config.h"
#include "core/spill_file.h"
#include "core/progress.h"
#include "metrics/report.h"
#include "metrics/value_log.h"
#include "net/network.h"
#include "routing/path_model.h"
#include "routing/tables.h"
#include "sim/derived.h"
#include "topo/topology.h"
#include "transport/transport.h"
#include "workload/flow_spec.h"
#include "workload/stream.h"

namespace lbsim::sim {

using config::Config;

class FailureSchedule;
class FlowSetup;

// What summary.json reads of every entry, accumulated in id order (docs/outputs.md): the sums, and
// per finished transfer what its distributions need. A streamed run adds each entry as it leaves the
// transport instead of keeping its record, so the per-transfer part is what grows with the trace.
struct FlowSums {
  std::uint64_t retx = 0, nacks = 0, timeouts = 0, ooo = 0, received = 0, transfers = 0, unfinished = 0;
  std::uint64_t data_sent = 0, rows = 0;
  SimTime first_start = kTimeNever, last_finish = -1;
  bool all_finished = true, computes = false;
  std::uint64_t overtaken = 0, rewinds = 0, pauses = 0, pause_timeouts = 0;
  std::uint32_t max_reorder = 0, rob_max = 0;
  double held_us = 0;
};

// Per finished transfer its FCT, ideal FCT (ps) and tag, in id order (metrics::ValueLog: one block in
// memory, the rest on a temporary file, so nothing here grows with the trace); summary.json's
// microseconds, slowdowns, per-tag FCTs and their exact percentiles are computed from them at the end
// (metrics::distribution_of), to the same doubles as from values held in memory.
struct FlowTotals : FlowSums {
  metrics::ValueLog values;
  void add(const metrics::FlowResult& r, const transport::FlowReport& f, bool fct_at_sender);
  std::size_t finished() const { return values.size(); }
  // Heap bytes of the per-transfer values (tests, docs/scale.md): at most one block.
  std::size_t bytes() const { return values.bytes(); }
};

class Simulation final : public net::EventHandler {
 public:
  explicit Simulation(Config cfg);
  ~Simulation() override;

  // Runs to completion or run.end_us; returns 0 when every entry finished, 3 otherwise, 130 when
  // interrupted (request_interrupt(), e.g. by SIGINT/SIGTERM): the loop stops at its next event
  // batch and what was measured so far stays available to the reports.
  int run();
  bool interrupted() const { return interrupted_; }
  // Set when run.watchdog_us stopped the run: nothing progressed since `stuck_since()`.
  bool stuck() const { return stuck_; }
  SimTime stuck_since() const { return stuck_since_; }
  // Writes config.toml, summary.json, flows.csv, ports.csv (and queues.csv, path_usage.csv) into
  // `dir`, so that it holds exactly this run: the files are written into a temporary sibling folder
  // and moved into place; run files of an earlier run that this one does not write are removed
  // (other files are left alone). Throws UserError when the folder cannot be written.
  void write_outputs(const std::string& dir) const;

  nlohmann::json summary() const;
  // flows.csv's rows (not for workload.stream, whose rows are written as the entries finish).
  std::vector<metrics::FlowResult> flow_results() const;
  bool streamed() const { return stream_; }
  // Entries of the workload, and transfers that start after run.end_us (counted before the run).
  std::size_t entries() const { return entries_; }
  std::size_t late_transfers() const { return late_transfers_; }

  const Config& config() const { return cfg_; }
  const Derived& derived() const { return d_; }
  const topo::Topology& topology() const { return topo_; }
  // The workload (workload.stream: its tags only; the entries are made during the run).
  const workload::Workload& workload() const { return wl_; }
  net::Network& network() { return *net_; }
  const transport::Transport& transport() const { return *tr_; }
  double wall_seconds() const { return wall_s_; }
  // The summary values of the entries that have left the transport (workload.stream; empty otherwise).
  const FlowTotals& retired_totals() const { return totals_; }
  // Replaces the progress display chosen from run.progress (e.g. `compare` labels each run).
  void set_progress(progress::Mode mode, std::string label);

  // kEvQueueSample (obj 0: switch queues, obj 1: reorder buffers)
  void on_event(const Event& e) override;

 private:
  static void progress(void* self, SimTime now);
  metrics::FlowResult result(const transport::FlowReport& f) const;
  void retire(const transport::FlowReport& f);           // workload.stream: an entry leaves the transport
  void scan_stream(std::vector<std::string>& warnings);  // workload.stream: count and check every entry once
  void write_run_files(const std::string& dir) const;    // every run file into `dir` (write_outputs)
  nlohmann::json flow_control_summary() const;
  nlohmann::json watchdog_summary() const;

  Config cfg_;
  topo::Topology topo_;
  workload::Workload wl_;
  Derived d_;
  std::unique_ptr<routing::MinimalTables> tables_;
  std::unique_ptr<routing::PathModel> paths_;  // walks tables_
  std::unique_ptr<net::Network> net_;
  std::unique_ptr<net::Router> router_;  // the run's switch routing (routing.algorithm)
  std::unique_ptr<FailureSchedule> failures_;
  std::unique_ptr<FlowSetup> flows_;
  std::unique_ptr<transport::Transport> tr_;
  SimTime queue_sample_ = 0;
  bool queue_all_ports_ = false;  // output.queue_ports = "all"
  std::vector<metrics::QueueSample> queue_samples_;
  // output.trims_csv: every data packet a full queue trimmed or dropped (Network::set_loss_log).
  std::vector<net::LossRecord> losses_;
  bool trims_csv_ = false;
  // output.reorder_sample_us ([LAPS] Fig. 9): (time, host, packets held) for every host with a
  // non-empty reorder buffer at each sample.
  struct RobSample {
    SimTime time;
    std::int32_t host;
    std::uint64_t packets;
  };
  SimTime reorder_sample_ = 0;
  std::vector<RobSample> rob_samples_;
  double wall_s_ = 0;
  double setup_rss_mb_ = 0, setup_peak_rss_mb_ = 0;  // resident / peak resident memory as the event loop starts
  double setup_cpu_s_ = 0;                           // process CPU time (user + sys) as the event loop starts
  std::unique_ptr<progress::Meter> meter_;           // run.progress (or set_progress)
  std::uint64_t total_packets_ = 0;                  // data packets of every transfer (the progress total)
  bool ran_ = false;
  bool interrupted_ = false;
  SimTime watchdog_ = 0;    // run.watchdog_us (at least 20 x RTO); 0 = off
  SimTime quiet_from_ = 0;  // FailureSchedule::last_change()
  bool stuck_ = false;
  SimTime stuck_since_ = 0;
  bool fct_at_sender_ = false;  // output.fct_at = "sender"
  // workload.stream (docs/scale-flows.md)
  bool stream_ = false;
  std::unique_ptr<workload::EntryStream> feed_;  // the run's pass over the entries
  std::size_t entries_ = 0, transfers_ = 0, late_transfers_ = 0;
  FlowTotals totals_;  // of the retired entries
  // Their flows.csv rows, in id order: formatted into `buf`, appended to a nameless temporary file
  // (core/spill_file.h) 64 KiB at a time.
  struct StreamedRows {
    SpillFile file{"the flows.csv rows of the finished entries"};
    std::ostringstream buf;
    void flush() {
      const std::string s = buf.str();
      file.append(s.data(), s.size());
      buf.str("");
    }
  };
  std::unique_ptr<StreamedRows> rows_;
};

// The files a run folder may hold (write_outputs); a re-used folder loses the ones a run does not write.
const std::vector<std::string>& run_files();
// Creates `dir` when missing and checks that a run folder can be written there (the folder itself and
// a temporary sibling); throws UserError naming the folder and the reason. Commands call it before
// the simulation so that an unwritable --out is found at once.
void check_output_dir(const std::string& dir);

// Interruption (docs/reliability.md): install_interrupt_handlers() makes the first SIGINT or SIGTERM
// call request_interrupt(); the second one ends the process as usual. A running Simulation checks the
// request every event batch (2^18 events), so the hot path is unchanged.
void install_interrupt_handlers();
void request_interrupt();
void clear_interrupt();
bool interrupt_requested();
// The signal that requested the interrupt (0 when none or request_interrupt() was called directly).
int interrupt_signal();

}  // namespace lbsim::sim
