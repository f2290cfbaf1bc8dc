#include "workload/registry.h"

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include <fmt/core.h>

#include "core/error.h"
#include "workload/validate.h"

namespace lbsim::workload {

config::Registry<WorkloadPlugin>& workloads() {
  static config::Registry<WorkloadPlugin> r("workload kind", "workload.kind");
  return r;
}

WorkloadSize workload_size(const config::Config& cfg, const topo::TopologySize& topo) {
  const auto& e = workloads().get(cfg.text("workload.kind"));
  if (!e.size) throw std::logic_error("the workload '" + e.name + "' has no size estimate");
  return e.size(WorkloadSizeContext{cfg, topo});
}

WorkloadSize messages_of_size(const config::Config& cfg, double messages) {
  WorkloadSize s;
  s.entries = messages;
  s.concurrent_bytes = messages * static_cast<double>(cfg.integer("workload.size"));
  s.largest_message = static_cast<double>(cfg.integer("workload.size"));
  s.keys = "workload.size";
  return s;
}

WorkloadSize file_entries(const WorkloadSizeContext& c) {
  WorkloadSize s;
  s.entries = count_lines(c.cfg.path("workload.file"));
  s.keys = "workload.file";
  return s;
}

double count_lines(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return 0;
  std::vector<char> buf(1 << 16);
  double lines = 0;
  while (in.read(buf.data(), static_cast<std::streamsize>(buf.size())) || in.gcount() > 0) {
    const auto n = static_cast<std::size_t>(in.gcount());
    lines += static_cast<double>(std::count(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n), '\n'));
    if (n < buf.size()) break;
  }
  return lines + 1;
}

SimTime start_time(const config::Config& cfg) { return from_us(cfg.real("workload.start_us")); }

Workload build_workload(const config::Config& cfg, const topo::Topology& topo, std::vector<std::string>* warnings) {
  const auto& plugin = workloads().get(cfg.text("workload.kind"));
  Workload w = plugin.make(WorkloadContext{cfg, topo, static_cast<std::uint64_t>(cfg.integer("run.seed")), warnings});
  validate_workload(w, topo.num_hosts);
  return w;
}

std::vector<std::string> streamable_workloads() {
  std::vector<std::string> names;
  for (const auto& e : workloads().entries())
    if (e.stream) names.push_back(e.name);
  return names;
}

std::unique_ptr<EntryStream> open_stream(const config::Config& cfg, const topo::Topology& topo,
                                         std::vector<std::string>* warnings) {
  const auto& plugin = workloads().get(cfg.text("workload.kind"));
  if (!plugin.stream) return nullptr;
  return plugin.stream(WorkloadContext{cfg, topo, static_cast<std::uint64_t>(cfg.integer("run.seed")), warnings});
}

Workload drain(EntryStream& s) {
  Workload w;
  FlowSpec f;
  while (s.next(f, w)) w.flows.push_back(std::move(f));
  return w;
}

namespace {
std::vector<std::string> kinds() { return workloads().names(); }

// The keys several generators share, each with the generators that read it (a key no selected
// generator reads is refused: config::check_keys_read); each generator declares its own.
const std::vector<std::string> kCollectives{"ring_allreduce", "butterfly_allreduce", "alltoall", "ps_allreduce",
                                            "allscatter"};
std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

[[maybe_unused]] const bool declared = [] {
  using namespace config;
  const std::string kind = "workload.kind";
  declare({
      text("workload.kind", "permutation", "Traffic source (the plug-ins below; docs/workloads.md describes each).")
          .one_of(&kinds),
      bytes("workload.size", 8 << 20,
            "Message size of generated flows (e.g. 8388608 or \"8MiB\"): permutation, tornado, incast, collectives, "
            "adversarial. At most 4,294,967,294 packets of network.mtu (32-bit sequence numbers).")
          .range(1, 1e15)
          .read_by(kind, with({"permutation", "tornado", "incast", "adversarial"}, kCollectives)),
      real("workload.start_us", 0, "us", "Start time of generated flows.")
          .range(0, 1e12)
          .read_by(kind, with({"permutation", "tornado", "incast", "adversarial", "cdf_trace"}, kCollectives)),
      file("workload.file", "flows_csv / ns3 / htsim_cm / goal: input file, relative to the config file.")
          .read_by(kind, {"flows_csv", "ns3", "htsim_cm", "goal"}),
      integer("workload.incast_senders", 8, "hosts",
              "incast: number of senders (hosts after the receiver, wrapping); cdf_trace: senders per Poisson incast "
              "event.")
          .range(1, 1e7)
          .read_by(kind, {"incast", "cdf_trace"}),
      integer("workload.root", 0, "rank", "ps_allreduce / allscatter, and cdf_trace all_to_one / one_to_all: the root.")
          .range(0, 1e7)
          .read_by(kind, {"ps_allreduce", "allscatter", "cdf_trace"}),
  });
  declare_check([](const Config& c) {
    const auto* e = workloads().find(c.text("workload.kind"));
    if (e && e->needs_file && c.text("workload.file").empty())
      throw UserError(fmt::format("{}workload.kind = \"{}\" needs workload.file", c.where("workload.kind"), e->name));
  });
  return true;
}();
}  // namespace

}  // namespace lbsim::workload
