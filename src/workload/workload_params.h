// One entry point for the config layer: `[workload] kind = "..."` selects a params struct, the config
// fills its fields, and make_workload() builds the Workload. Every generator is a pure function of
// (params, number of hosts, seed); readers take their file path from the params.
//
// kind                  params                 generator / reader
// "permutation"         PermutationParams      make_permutation        (patterns.h)
// "tornado"             TornadoParams          make_tornado            (patterns.h)
// "incast"              IncastParams           make_incast             (patterns.h)
// "flows_csv"           FlowsCsvParams         read_flows_csv          (patterns.h)
// "cdf_trace"           CdfTraceParams         make_cdf_trace          (trace.h)
// "ns3"                 Ns3FlowParams          read_ns3_flows          (ns3.h)
// "htsim_cm"            HtsimCmParams          read_htsim_cm           (htsim_cm.h)
// "goal"                GoalParams             read_goal               (goal.h)
// "ring_allreduce", "butterfly_allreduce", "alltoall", "ps_allreduce", "allscatter"
//                       CollectiveParams       make_collective         (collectives.h)
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "workload/collectives.h"
#include "workload/flow_spec.h"
#include "workload/goal.h"
#include "workload/htsim_cm.h"
#include "workload/ns3.h"
#include "workload/patterns.h"
#include "workload/trace.h"

namespace lbsim::workload {

struct FlowsCsvParams {
  std::string path;
};

using WorkloadParams = std::variant<PermutationParams, TornadoParams, IncastParams, FlowsCsvParams, CdfTraceParams,
                                    Ns3FlowParams, HtsimCmParams, GoalParams, CollectiveParams>;

// All valid kind names, in the order of the table above.
std::vector<std::string> workload_kinds();
// Default params for a kind (collective kinds get CollectiveParams::kind set). Throws UserError
// listing the valid kinds for an unknown name.
WorkloadParams default_workload_params(std::string_view kind);
// The kind name of a params value (for the resolved config written with every run).
std::string workload_kind(const WorkloadParams& p);
// Builds the workload; reader and CDF warnings are appended to `warnings` when given.
Workload make_workload(const WorkloadParams& p, std::int32_t num_hosts, std::uint64_t seed,
                       std::vector<std::string>* warnings = nullptr);

}  // namespace lbsim::workload
