#include "workload/workload_params.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.h"

namespace lbsim::workload {

namespace {

struct CollectiveName {
  const char* name;
  CollectiveKind kind;
};
constexpr CollectiveName kCollectives[] = {{"ring_allreduce", CollectiveKind::kRingAllreduce},
                                           {"butterfly_allreduce", CollectiveKind::kButterflyAllreduce},
                                           {"alltoall", CollectiveKind::kAlltoall},
                                           {"ps_allreduce", CollectiveKind::kPsAllreduce},
                                           {"allscatter", CollectiveKind::kAllscatter}};

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

}  // namespace

std::vector<std::string> workload_kinds() {
  std::vector<std::string> v = {"permutation", "tornado", "incast", "flows_csv", "cdf_trace",
                                "ns3",         "htsim_cm", "goal"};
  for (const auto& c : kCollectives) v.emplace_back(c.name);
  return v;
}

WorkloadParams default_workload_params(std::string_view kind) {
  if (kind == "permutation") return PermutationParams{};
  if (kind == "tornado") return TornadoParams{};
  if (kind == "incast") return IncastParams{};
  if (kind == "flows_csv") return FlowsCsvParams{};
  if (kind == "cdf_trace") return CdfTraceParams{};
  if (kind == "ns3") return Ns3FlowParams{};
  if (kind == "htsim_cm") return HtsimCmParams{};
  if (kind == "goal") return GoalParams{};
  for (const auto& c : kCollectives)
    if (kind == c.name) {
      CollectiveParams p;
      p.kind = c.kind;
      return p;
    }
  throw UserError(fmt::format("unknown workload kind '{}'; expected one of: {}", kind, fmt::join(workload_kinds(), ", ")));
}

std::string workload_kind(const WorkloadParams& p) {
  return std::visit(Overloaded{[](const PermutationParams&) { return std::string("permutation"); },
                               [](const TornadoParams&) { return std::string("tornado"); },
                               [](const IncastParams&) { return std::string("incast"); },
                               [](const FlowsCsvParams&) { return std::string("flows_csv"); },
                               [](const CdfTraceParams&) { return std::string("cdf_trace"); },
                               [](const Ns3FlowParams&) { return std::string("ns3"); },
                               [](const HtsimCmParams&) { return std::string("htsim_cm"); },
                               [](const GoalParams&) { return std::string("goal"); },
                               [](const CollectiveParams& c) {
                                 for (const auto& n : kCollectives)
                                   if (n.kind == c.kind) return std::string(n.name);
                                 return std::string("collective");
                               }},
                    p);
}

Workload make_workload(const WorkloadParams& p, std::int32_t num_hosts, std::uint64_t seed,
                       std::vector<std::string>* warnings) {
  return std::visit(
      Overloaded{[&](const PermutationParams& q) { return make_permutation(q, num_hosts, seed); },
                 [&](const TornadoParams& q) { return make_tornado(q, num_hosts); },
                 [&](const IncastParams& q) { return make_incast(q, num_hosts, seed); },
                 [&](const FlowsCsvParams& q) { return read_flows_csv(q.path, num_hosts); },
                 [&](const CdfTraceParams& q) { return make_cdf_trace(q, num_hosts, seed, warnings); },
                 [&](const Ns3FlowParams& q) { return read_ns3_flows(q, num_hosts, warnings); },
                 [&](const HtsimCmParams& q) { return read_htsim_cm(q, num_hosts); },
                 [&](const GoalParams& q) { return read_goal(q, num_hosts, warnings); },
                 [&](const CollectiveParams& q) { return make_collective(q, num_hosts, seed); }},
      p);
}

}  // namespace lbsim::workload
