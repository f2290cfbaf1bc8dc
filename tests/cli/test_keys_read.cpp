// A key that no selected plug-in reads is refused (issue "Every output tells the truth", item 1):
// topology.link_rate_gbps on a fat tree used to run the 400 Gb/s network with exit 0.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "../sim/helpers.h"
#include "config/reader.h"
#include "core/error.h"

namespace {

namespace fs = std::filesystem;
using lbsim::test::run_lbsim;
const std::string kDemo = std::string(LBSIM_SOURCE_DIR) + "/examples/demo.toml";

TEST(KeysRead, SharedTopologyKeysOnAFatTreeAreRefused) {
  const auto dir = lbsim::test::temp_dir("keys-shared");
  for (const char* key : {"topology.link_rate_gbps=0.001", "topology.local_latency_ns=10",
                          "topology.global_latency_ns=10", "topology.n=4"}) {
    const auto r = run_lbsim("run " + kDemo + " --quiet --out " + dir + "/o --set " + key);
    EXPECT_EQ(r.code, 2) << key << ": " << r.out;
    const std::string name = std::string(key).substr(0, std::string(key).find('='));
    EXPECT_NE(r.out.find("--set: key '" + name + "' is read only by topology.kind = "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("not by \"fat_tree\""), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(dir + "/o")) << "refused before the run folder is made";
  }
  // From a file: its line, and every generator that reads the key.
  const auto cfg = lbsim::test::write_file(dir + "/c.toml", "[topology]\nhosts = 16\nradix = 8\nlink_rate_gbps = 1\n");
  const auto r = run_lbsim("topo " + cfg);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("c.toml:4: key 'topology.link_rate_gbps' is read only by topology.kind = \"dragonfly\", "
                       "\"slim_fly\", \"ring\", \"complete\" or \"rail\", not by \"fat_tree\""),
            std::string::npos)
      << r.out;
  // The same key on a generator that reads it is fine.
  const auto ring = lbsim::test::write_file(dir + "/ring.toml", "[topology]\nkind = \"ring\"\nlink_rate_gbps = 1\n");
  EXPECT_EQ(run_lbsim("topo " + ring).code, 0);
}

// Every selecting key: routing.algorithm, lb.algorithm, transport.cc, workload.kind.
TEST(KeysRead, PluginKeysOfUnselectedPluginsAreRefused) {
  const auto dir = lbsim::test::temp_dir("keys-plugins");
  const auto cfg = lbsim::test::write_file(dir + "/c.toml", "[topology]\nhosts = 16\nradix = 8\n");
  const std::vector<std::pair<std::string, std::string>> refused{
      {"lb.reps_freezing=false", "lb.algorithm = \"reps\", not by \"ops\""},
      {"routing.ugal=\"global\"", "routing.algorithm = \"ugal_l\", not by \"ecmp\""},
      {"transport.dcqcn_g=0.5", "transport.cc = \"dcqcn\", not by \"dctcp_ack\""},
      {"workload.incast_receiver=3", "workload.kind = \"incast\", not by \"permutation\""},
      {"workload.window=4", "workload.kind = \"alltoall\", not by \"permutation\""},
      {"workload.file=\"x.csv\"", "workload.kind = \"flows_csv\", \"ns3\", \"htsim_cm\" or \"goal\""},
      {"routing.source_paths_k=4",
       "routing.algorithm = \"source_route\", \"conga\", \"conweave\" or routing.next_hops = \"candidates\""},
  };
  for (const auto& [set, msg] : refused) {
    const auto r = run_lbsim("topo " + cfg + " --set " + set);
    EXPECT_EQ(r.code, 2) << set << ": " << r.out;
    EXPECT_NE(r.out.find(msg), std::string::npos) << set << ": " << r.out;
  }
  // Selected, the same keys load.
  for (const auto& sets : std::vector<std::vector<std::string>>{
           {"lb.algorithm=reps", "lb.reps_freezing=false"},
           {"workload.kind=alltoall", "workload.window=4"},
           {"workload.kind=cdf_trace", "workload.incast_senders=4"},
           // The background permutation of a collective uses its load balancer's keys.
           {"workload.kind=ring_allreduce", "workload.background_lb=reps", "lb.reps_freezing=false"},
           // A flows CSV names load balancers per row: any load balancer's keys may be read.
           {"workload.kind=flows_csv", "workload.file=x.csv", "lb.reps_freezing=false"},
           // A preset chooses the load balancer when the config does not: its keys count.
           {"transport.preset=laps_plb", "lb.plb_threshold=0.4"},
       }) {
    lbsim::config::Config c;
    EXPECT_NO_THROW(c = lbsim::config::load("", sets)) << sets[0];
  }
}

// A base file written for one plug-in, run with another chosen on the command line (a sweep's grid, a
// script's --set workload.kind): the file's keys of the replaced plug-in are not this run's.
TEST(KeysRead, AFileKeyOfAPluginReplacedByAnOverrideIsNotRefused) {
  const auto dir = lbsim::test::temp_dir("keys-override");
  const auto cfg = lbsim::test::write_file(dir + "/c.toml",
                                           "[topology]\nhosts = 16\nradix = 8\n[workload]\nkind = \"cdf_trace\"\n"
                                           "load = 0.3\n");
  EXPECT_EQ(run_lbsim("topo " + cfg + " --set workload.kind=ps_allreduce").code, 0);
  // Chosen in the same file, the key is refused.
  const auto same = lbsim::test::write_file(dir + "/same.toml",
                                            "[topology]\nhosts = 16\nradix = 8\n[workload]\nkind = \"incast\"\n"
                                            "load = 0.3\n");
  const auto r = run_lbsim("topo " + same);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("same.toml:6: key 'workload.load' is read only by workload.kind = \"cdf_trace\""),
            std::string::npos)
      << r.out;
}

TEST(KeysRead, ConfigWritesUnreadKeysAsComments) {
  const auto r = run_lbsim("config");
  ASSERT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("\n# link_rate_gbps = 400.0  # read only by topology.kind = \"dragonfly\""), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("\nlink_rate_gbps"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n# reps_freezing = "), std::string::npos);
  EXPECT_EQ(r.out.find("\nreps_freezing"), std::string::npos);
  EXPECT_NE(r.out.find("\nhosts = 128\n"), std::string::npos) << "the fat tree's own keys stay";
  // It loads again, and so does a resolved config whose unread keys came from a compare.
  const auto dir = lbsim::test::temp_dir("keys-config");
  lbsim::test::write_file(dir + "/all.toml", r.out);
  EXPECT_EQ(run_lbsim("config --check " + dir + "/all.toml").code, 0);
}

// `lbsim compare` and sweeps: a key must be read by one of the runs; each run's config.toml writes
// the keys it does not read as comments.
TEST(KeysRead, CompareAndSweepNeedOneRunThatReadsTheKey) {
  const auto dir = lbsim::test::temp_dir("keys-compare");
  const std::string small = " --set topology.hosts=16 --set workload.size=\\\"16KiB\\\"";
  auto r = run_lbsim("compare " + kDemo + " --lb ecmp,ops --out " + dir + "/no --set lb.reps_freezing=false" + small);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("not by \"ecmp\" / \"ops\""), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(dir + "/no/ecmp")) << "refused before the first run";
  r = run_lbsim("compare " + kDemo + " --lb ecmp,reps --out " + dir + "/yes --set lb.reps_freezing=false" + small);
  ASSERT_EQ(r.code, 0) << r.out;
  const auto ecmp = lbsim::test::read_file(dir + "/yes/ecmp/config.toml");
  const auto reps = lbsim::test::read_file(dir + "/yes/reps/config.toml");
  EXPECT_NE(ecmp.find("\n# reps_freezing = true  # read only by lb.algorithm = \"reps\""), std::string::npos);
  EXPECT_NE(reps.find("\nreps_freezing = false\n"), std::string::npos) << reps;
  // A sweep over load balancers.
  const auto sweep = lbsim::test::write_file(
      dir + "/s.toml", "name = \"s\"\nbase = \"" + kDemo +
                           "\"\n[set]\n\"lb.reps_freezing\" = false\n[grid]\n\"lb.algorithm\" = [\"ecmp\", \"ops\"]\n");
  r = run_lbsim("sweep " + sweep + " --dry-run --out " + dir + "/sw");
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("s.toml: key 'lb.reps_freezing' is read only by lb.algorithm = \"reps\""), std::string::npos)
      << r.out;
}

// Every example config loads: an example that sets a key its plug-ins do not read is a bug in it.
TEST(KeysRead, EveryExampleConfigLoads) {
  int loaded = 0;
  for (const auto& e : fs::recursive_directory_iterator(std::string(LBSIM_SOURCE_DIR) + "/examples")) {
    if (e.path().extension() != ".toml") continue;
    // The experiments of examples/<paper>/reproduce and the sweeps of .../sweeps are not configs.
    const auto parent = e.path().parent_path().filename();
    if (parent == "reproduce" || parent == "sweeps") continue;
    const std::string text = lbsim::test::read_file(e.path().string());
    if (text.find("\nbase = ") != std::string::npos || text.rfind("name = ", 0) == 0 ||
        text.find("\n[grid]") != std::string::npos)
      continue;  // a sweep file
    try {
      (void)lbsim::config::load(e.path().string(), {});
      ++loaded;
    } catch (const lbsim::UserError& err) {
      ADD_FAILURE() << e.path() << ": " << err.what();
    }
  }
  EXPECT_GT(loaded, 50);
}

}  // namespace
