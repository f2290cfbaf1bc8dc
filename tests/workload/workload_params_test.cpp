#include "workload/workload_params.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "workload/validate.h"

namespace lbsim::workload {
namespace {

const std::string kData = LBSIM_SOURCE_DIR "/data/";

TEST(WorkloadParams, EveryKindRoundTripsAndBuildsAValidWorkload) {
  const std::int32_t hosts = 64;
  const auto dir = std::filesystem::temp_directory_path();
  const std::string csv = (dir / "lbsim_wl_params_test.csv").string();
  const std::string cm = (dir / "lbsim_wl_params_test.cm").string();
  std::ofstream(csv) << "src,dst,bytes,start_us\n0,1,100,0\n";
  std::ofstream(cm) << "Nodes 4\nConnections 1\n0->3 start 0 size 100\n";
  for (const auto& kind : workload_kinds()) {
    auto p = default_workload_params(kind);
    EXPECT_EQ(workload_kind(p), kind);
    // Readers need a file: point them at the reference files in data/.
    if (auto* q = std::get_if<FlowsCsvParams>(&p)) q->path = csv;
    if (auto* q = std::get_if<Ns3FlowParams>(&p)) q->path = kData + "ns3-hpcc/flow.txt";
    if (auto* q = std::get_if<GoalParams>(&p)) q->path = kData + "goal/binary_tree_32.goal";
    if (auto* q = std::get_if<HtsimCmParams>(&p)) q->path = cm;
    if (auto* q = std::get_if<CdfTraceParams>(&p)) q->duration = us(100);
    if (auto* q = std::get_if<CollectiveParams>(&p)) q->ranks = 16;
    std::vector<std::string> warn;
    auto w = make_workload(p, hosts, 1, &warn);
    EXPECT_FALSE(w.flows.empty()) << kind;
    validate_workload(w, hosts);
  }
  std::filesystem::remove(csv);
  std::filesystem::remove(cm);
}

TEST(WorkloadParams, UnknownKindListsTheValidOnes) {
  try {
    default_workload_params("permutaton");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("expected one of: permutation, tornado"), std::string::npos);
  }
}

}  // namespace
}  // namespace lbsim::workload
