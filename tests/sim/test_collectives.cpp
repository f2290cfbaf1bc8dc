// Collectives through the engine: every step waits for the messages it depends on, and on an idle
// network the completion time matches the analytic value.
#include <fmt/core.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "helpers.h"

using namespace lbsim;
using namespace lbsim::test;

// Ring allreduce over k = 4 hosts of one ToR (hosts 0-3 of a 16-host fat tree with 4 hosts per ToR):
// 2(k-1) = 6 steps; in each step every rank sends size/k = 1 MiB to its ring neighbour. The four
// messages of a step use four different host links in each direction, so each takes exactly the
// lone-message time (tests/sim/test_engine.cpp): 256 full packets over 2 links and 1 switch:
//   T_msg = 256 * 83.2 ns + 83.2 ns + 2 * 500 ns + 500 ns = 22,881.6 ns.
// A step starts the moment the previous step's message arrived, so T = 6 * T_msg, plus the ACKs
// each NIC interleaves with its data (64 B per 4160 B packet, at most 1.6%).
TEST(Collectives, RingAllreduceMatchesAnalyticTimeOnIdleNetwork) {
  config::Config c;
  c.set("topology.hosts", 16);
  c.set("topology.radix", 8);
  c.set("run.progress", "off");
  c.set("workload.kind", "ring_allreduce");
  c.set("workload.size", 4 << 20);
  c.set("workload.ranks", 4);
  c.set("workload.first_host", 0);
  c.set("workload.background", false);
  sim::Simulation s(c);
  ASSERT_EQ(s.run(), 0);
  const auto rows = s.flow_results();
  std::size_t transfers = 0;
  SimTime end = 0;
  for (const auto& r : rows) {
    ASSERT_TRUE(r.finished);
    end = std::max(end, r.finish);
    if (r.compute) continue;
    ++transfers;
    EXPECT_EQ(r.bytes, 1 << 20);
  }
  EXPECT_EQ(transfers, 6u * 4u);  // 2(k-1) steps x k messages
  const SimTime t_msg = 256 * 83'200 + 83'200 + 2 * 500'000 + 500'000;
  EXPECT_GE(end, 6 * t_msg);
  EXPECT_LE(static_cast<double>(end), 6.0 * static_cast<double>(t_msg) * 1.016);
  // Dependencies hold: no step-s message starts before every step-(s-1) message into its sender ended.
  const auto& wl = s.workload();
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (auto d : wl.flows[i].deps) EXPECT_GE(rows[i].start, rows[d].finish) << "entry " << i << " dep " << d;
  EXPECT_TRUE(test::conserved(s));
}

// The GOAL schedule shipped with LogGOPSim runs to completion through the engine with every receive
// matched (issue: "executed with their dependencies").
TEST(Collectives, GoalBinaryTree32RunsToCompletion) {
  config::Config c;
  c.set("topology.hosts", 32);
  c.set("topology.radix", 8);
  c.set("run.progress", "off");
  c.set("workload.kind", "goal");
  c.set("workload.file", std::string(LBSIM_SOURCE_DIR) + "/data/goal/binary_tree_32.goal");
  sim::Simulation s(c);
  ASSERT_EQ(s.run(), 0);
  const auto rows = s.flow_results();
  std::size_t transfers = 0;
  for (const auto& r : rows) {
    EXPECT_TRUE(r.finished) << "entry " << r.id;
    transfers += r.compute ? 0 : 1;
  }
  EXPECT_EQ(transfers, 31u);  // a binary tree over 32 ranks: one message per non-root rank
  const auto& wl = s.workload();
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (auto d : wl.flows[i].deps) EXPECT_GE(rows[i].start, rows[d].finish);
  EXPECT_TRUE(test::conserved(s));
}

// The makespan of a dependency workload (issue 18 "Tidy results"): examples/workloads/ring4.goal has
// every rank compute 1000 ns, send 64 KiB to its right neighbour, then compute 500 ns after its own
// receive: first start 0, last finish 1 us + the slowest transfer + 0.5 us. summary.json and the
// console report it.
TEST(Collectives, GoalMakespanIsComputeTransferCompute) {
  const std::string d = temp_dir("makespan");
  write_file(d + "/goal.toml",
             "[topology]\nkind = \"fat_tree\"\nhosts = 16\nradix = 8\n[workload]\n"
             "kind = \"goal\"\nfile = \"" LBSIM_SOURCE_DIR "/examples/workloads/ring4.goal\"\n");
  const auto r = run_lbsim("run " + d + "/goal.toml --out " + d + "/out");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = nlohmann::json::parse(read_file(d + "/out/summary.json"));
  EXPECT_TRUE(j["has_dependencies"].get<bool>());
  EXPECT_EQ(j["fct_us"]["count"].get<int>(), 4);
  const double expect = 1.0 + j["fct_us"]["max"].get<double>() + 0.5;
  EXPECT_NEAR(j["makespan_us"].get<double>(), expect, 1e-6);
  EXPECT_NE(r.out.find(fmt::format("makespan {:.2f} us", expect)), std::string::npos) << r.out;
}

// queues.csv (issue 18 "Tidy results"): output.queue_ports = "all" writes every switch port at every
// sample, zeros included, and the busy rows are exactly the default (sparse) file's rows; both carry
// the nodes' labels.
TEST(QueuesCsv, DenseHasEverySwitchPortAndTheSparseRows) {
  const std::string d = temp_dir("queues-dense");
  write_file(d + "/q.toml",
             "[topology]\nkind = \"fat_tree\"\nhosts = 16\nradix = 8\n[workload]\n"
             "kind = \"permutation\"\nsize = \"256KiB\"\n[output]\nqueue_sample_us = 2\n");
  ASSERT_EQ(run_lbsim("run " + d + "/q.toml --quiet --out " + d + "/sparse").code, 0);
  ASSERT_EQ(run_lbsim("run " + d + "/q.toml --quiet --set output.queue_ports=all --out " + d + "/dense").code, 0);
  const auto rows = [](const std::string& file) {
    std::vector<std::vector<std::string>> out;
    std::istringstream in(read_file(file));
    std::string line;
    while (std::getline(in, line)) {
      std::vector<std::string> f;
      std::stringstream ls(line);
      std::string x;
      while (std::getline(ls, x, ',')) f.push_back(x);
      out.push_back(f);
    }
    return out;
  };
  const auto sparse = rows(d + "/sparse/queues.csv"), dense = rows(d + "/dense/queues.csv");
  ASSERT_GT(sparse.size(), 1u);
  EXPECT_EQ(dense[0], (std::vector<std::string>{"time_us", "node", "port", "peer", "data_bytes", "ctrl_bytes",
                                                "blocked", "node_label", "peer_label"}));
  // Switch ports: ports.csv rows whose node is not a host (hosts are nodes 0-15).
  std::size_t switch_ports = 0;
  for (const auto& r : rows(d + "/dense/ports.csv"))
    if (r[0] != "node" && std::stoi(r[0]) >= 16) ++switch_ports;
  EXPECT_EQ(switch_ports, 48u);  // 4 ToRs x 8 ports + 4 spines x 4 ports
  std::set<std::string> times;
  std::set<std::vector<std::string>> busy;
  for (std::size_t i = 1; i < dense.size(); ++i) {
    times.insert(dense[i][0]);
    EXPECT_FALSE(dense[i][7].empty());
    if (dense[i][4] != "0" || dense[i][5] != "0") busy.insert(dense[i]);
  }
  EXPECT_EQ(dense.size() - 1, times.size() * switch_ports);
  EXPECT_EQ(busy, std::set<std::vector<std::string>>(sparse.begin() + 1, sparse.end()));
}
