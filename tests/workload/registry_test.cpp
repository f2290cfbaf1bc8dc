// Every registered workload kind builds a valid workload from the config keys alone.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/error.h"
#include "topo/registry.h"
#include "workload/registry.h"
#include "workload/validate.h"

namespace lbsim::workload {
namespace {

const std::string kData = LBSIM_SOURCE_DIR "/data/";

TEST(WorkloadRegistry, EveryKindBuildsAValidWorkload) {
  const auto dir = std::filesystem::temp_directory_path();
  const std::string csv = (dir / "lbsim_wl_registry_test.csv").string();
  const std::string cm = (dir / "lbsim_wl_registry_test.cm").string();
  std::ofstream(csv) << "src,dst,bytes,start_us\n0,1,100,0\n";
  std::ofstream(cm) << "Nodes 4\nConnections 1\n0->3 start 0 size 100\n";
  for (const auto& e : workloads().entries()) {
    config::Config c;
    c.set("topology.hosts", 64);
    c.set("workload.kind", e.name);
    c.set("workload.duration_us", 100.0);
    c.set("workload.ranks", 16);
    // Readers need a file: point them at the reference files.
    if (e.name == "flows_csv") c.set("workload.file", csv);
    if (e.name == "ns3") c.set("workload.file", kData + "ns3-hpcc/flow.txt");
    if (e.name == "goal") c.set("workload.file", kData + "goal/binary_tree_32.goal");
    if (e.name == "htsim_cm") c.set("workload.file", cm);
    if (e.name == "adversarial") {  // defined on Dragonfly and Slim Fly
      c.set("topology.kind", "dragonfly");
      c.set("topology.p", 2);
      c.set("topology.a", 4);
      c.set("topology.h", 2);
    }
    const auto t = topo::build_topology(c);
    std::vector<std::string> warn;
    const auto w = build_workload(c, t, &warn);
    EXPECT_FALSE(w.flows.empty()) << e.name;
    validate_workload(w, t.num_hosts);
  }
  std::filesystem::remove(csv);
  std::filesystem::remove(cm);
}

TEST(WorkloadRegistry, UnknownKindListsTheValidOnesAndSuggests) {
  try {
    config::Config c;
    c.set("workload.kind", "permutaton");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("is not one of:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("permutation, ps_allreduce"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("did you mean 'permutation'"), std::string::npos) << e.what();
  }
}

TEST(WorkloadRegistry, ReadersNeedAFile) {
  config::Config c;
  c.set("workload.kind", "flows_csv");
  try {
    config::check(c);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("workload.kind = \"flows_csv\" needs workload.file"), std::string::npos);
  }
}

}  // namespace
}  // namespace lbsim::workload
