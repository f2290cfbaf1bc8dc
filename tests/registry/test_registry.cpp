// Every registered plug-in - topology, switch routing, load balancer, congestion control, workload -
// builds and runs a small scenario end to end, and appears in docs/config.md with its keys. The
// lists come from the registries themselves, so a new plug-in is covered without editing this file.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "../sim/helpers.h"
#include "config/reader.h"
#include "lb/registry.h"
#include "routing/registry.h"
#include "transport/registry.h"
#include "workload/registry.h"

using namespace lbsim;

namespace {

// A small scenario: a 4-host fat tree with 64 KiB messages, then the plug-in's own example overrides.
config::Config small(const std::string& key, const std::string& name, const std::vector<std::string>& example) {
  config::Config c;
  c.set("workload.size", 64 << 10);
  c.set("run.progress", "off");
  c.set("run.end_us", 20000.0);
  for (const auto& o : example) config::apply_override(c, o);
  config::apply_override(c, key + "=" + name);
  if (c.text("topology.kind") == "fat_tree") {  // another topology's keys are an error
    if (!c.given("topology.hosts")) c.set("topology.hosts", 4);
    if (!c.given("topology.radix")) c.set("topology.radix", 4);
  }
  config::check(c);
  return c;
}

void runs_to_completion(const config::Config& c, const std::string& what) {
  sim::Simulation s(c);
  const int rc = s.run();
  const auto j = s.summary();
  EXPECT_EQ(rc, 0) << what;
  EXPECT_GT(j["completed"].get<std::uint64_t>(), 0u) << what;
  EXPECT_EQ(j["unfinished"].get<std::uint64_t>(), 0u) << what;
  EXPECT_TRUE(test::conserved(s)) << what;
}

template <class Registry>
void every_plugin_runs(const Registry& r) {
  ASSERT_FALSE(r.entries().empty());
  for (const auto& e : r.entries()) runs_to_completion(small(r.key(), e.name, e.example), r.what() + " " + e.name);
}

template <class Registry>
void every_plugin_is_documented(const Registry& r, const std::string& doc) {
  for (const auto& e : r.entries()) {
    EXPECT_NE(doc.find("| `" + e.name + "` |"), std::string::npos)
        << r.what() << " " << e.name << " missing from docs/config.md";
    for (const auto& k : e.keys)
      EXPECT_NE(doc.find("| `" + k.key + "` |"), std::string::npos) << k.key << " missing from docs/config.md";
  }
}

}  // namespace

TEST(Registry, EveryTopologyRuns) {
  const auto& r = topo::topologies();
  ASSERT_FALSE(r.entries().empty());
  for (const auto& e : r.entries()) {
    auto example = e.example;
    // The one topology read from a file: HPCC's 320-host fat tree (data/ns3-hpcc/fat.txt).
    if (e.name == "ns3") example.push_back("topology.file=\"" LBSIM_SOURCE_DIR "/data/ns3-hpcc/fat.txt\"");
    runs_to_completion(small(r.key(), e.name, example), r.what() + " " + e.name);
  }
}
TEST(Registry, EveryRoutingRuns) { every_plugin_runs(routing::routings()); }
TEST(Registry, EveryLoadBalancerRuns) { every_plugin_runs(lb::balancers()); }
TEST(Registry, EveryCongestionControlRuns) { every_plugin_runs(transport::congestion_controls()); }

TEST(Registry, EveryWorkloadRuns) {
  const auto dir = test::temp_dir("registry-wl");
  const auto csv = test::write_file(dir + "/f.csv", "src,dst,bytes,start_us\n0,3,10000,0\n1,2,10000,1\n");
  const auto cm = test::write_file(dir + "/f.cm", "Nodes 4\nConnections 1\n0->3 start 0 size 10000\n");
  const auto ns3 = test::write_file(dir + "/f.txt", "1\n0 3 3 100 10000 0.000001\n");
  const auto goal = test::write_file(dir + "/f.goal",
                                     "num_ranks 2\nrank 0 {\nl1: send 1000b to 1 tag 0\n}\n"
                                     "rank 1 {\nl1: recv 1000b from 0 tag 0\n}\n");
  for (const auto& e : workload::workloads().entries()) {
    auto example = e.example;
    if (e.needs_file) {
      const std::string f = e.name == "flows_csv" ? csv : e.name == "htsim_cm" ? cm : e.name == "ns3" ? ns3 : goal;
      example.push_back("workload.file=\"" + f + "\"");
    }
    runs_to_completion(small("workload.kind", e.name, example), "workload " + e.name);
  }
}

TEST(Registry, EveryPluginIsInTheDocs) {
  const auto doc = test::read_file(std::string(LBSIM_SOURCE_DIR) + "/docs/config.md");
  every_plugin_is_documented(topo::topologies(), doc);
  every_plugin_is_documented(routing::routings(), doc);
  every_plugin_is_documented(lb::balancers(), doc);
  every_plugin_is_documented(transport::congestion_controls(), doc);
  every_plugin_is_documented(workload::workloads(), doc);
}

// The selecting keys offer exactly the registered names.
TEST(Registry, ChoicesComeFromTheRegistries) {
  EXPECT_EQ(config::find_key("lb.algorithm")->allowed(), lb::balancers().names());
  EXPECT_EQ(config::find_key("routing.algorithm")->allowed(), routing::routings().names());
  EXPECT_EQ(config::find_key("transport.cc")->allowed(), transport::congestion_controls().names());
  EXPECT_EQ(config::find_key("topology.kind")->allowed(), topo::topologies().names());
  EXPECT_EQ(config::find_key("workload.kind")->allowed(), workload::workloads().names());
}
