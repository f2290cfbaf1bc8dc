// Helpers for tests that run whole simulations.
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "config/reader.h"
#include "sim/simulation.h"
#include "topo/registry.h"

namespace lbsim::test {

// A 2-tier, 128-host fat tree with the REPS evaluation parameters ([REPS] sec. 4.1).
inline config::Config small_fat_tree() {
  config::Config c;
  c.set("topology.hosts", 128);
  c.set("topology.radix", 16);
  c.set("run.progress", "off");
  return c;
}

// The leaf-spine of the LAPS baselines' tests: a 2-tier fat tree of 32 hosts (radix 8: 8 leaves of
// 4 hosts, 4 spines), 100 Gb/s everywhere; `c` keeps what it already sets.
inline config::Config leaf_spine(config::Config c = {}) {
  c.set("topology.kind", "fat_tree");
  c.set("topology.hosts", 32);
  c.set("topology.tiers", 2);
  c.set("topology.radix", 8);
  c.set("topology.host_rate_gbps", 100.0);
  c.set("topology.tier1_rate_gbps", 100.0);
  c.set("run.progress", "off");
  return c;
}

// A fresh folder per name and process (ctest runs tests of one executable in parallel processes).
// The lbsim binary of this build run as a user runs it: exit code and stdout + stderr.
struct CliResult {
  int code;
  std::string out;
};
// `env` (e.g. "LBSIM_HUGEPAGES=0") goes before the command, as a shell takes it.
inline CliResult run_lbsim_env(const std::string& env, const std::string& args) {
  const std::string cmd = (env.empty() ? "" : env + " ") + std::string(LBSIM_BINARY_DIR) + "/lbsim " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}
inline CliResult run_lbsim(const std::string& args) { return run_lbsim_env("", args); }

inline std::string temp_dir(const std::string& name) {
  auto d = std::filesystem::temp_directory_path() / ("lbsim-test-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d.string();
}

inline std::string write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  f << text;
  return path;
}

inline std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Jain's fairness index of the rates x: (sum x)^2 / (n sum x^2); 1 when every rate is equal, 1/n when
// one takes everything. The congestion-control tests take it over the last half's per-flow rates.
inline double jain(const std::vector<double>& x) {
  double s = 0, s2 = 0;
  for (double v : x) {
    s += v;
    s2 += v * v;
  }
  return s * s / (static_cast<double>(x.size()) * s2);
}

// queues.csv (output.queue_sample_us): the data_bytes samples of the ports whose peer is `peer` (a
// host's id: the port into that host), taken at or after `from_us`.
inline std::vector<double> queue_samples(const std::string& queues_csv, int peer, double from_us) {
  std::istringstream in(read_file(queues_csv));
  std::string line;
  std::getline(in, line);
  std::vector<std::string> head;
  for (std::stringstream hs(line); std::getline(hs, line, ',');) head.push_back(line);
  const auto col = [&](const std::string& n) {
    return static_cast<std::size_t>(std::find(head.begin(), head.end(), n) - head.begin());
  };
  const std::size_t ct = col("time_us"), cp = col("peer"), cd = col("data_bytes");
  std::vector<double> out;
  for (std::string row; std::getline(in, row);) {
    std::vector<std::string> v;
    for (std::stringstream rs(row); std::getline(rs, line, ',');) v.push_back(line);
    if (v.size() <= std::max({ct, cp, cd}) || v[cp] != std::to_string(peer)) continue;
    if (std::stod(v[ct]) < from_us) continue;
    out.push_back(std::stod(v[cd]));
  }
  return out;
}

// Every packet made is delivered, counted by exactly one drop counter, or still in the network
// (docs/outputs.md summary.json "conservation"): created = delivered + drops + failure_drops +
// ttl_drops + no_route_drops + in flight. Every test that runs a simulation asserts it:
// EXPECT_TRUE(test::conserved(s)).
inline ::testing::AssertionResult conserved(sim::Simulation& s) {
  auto& net = s.network();
  std::uint64_t drops = 0, failure_drops = 0;
  for (std::uint32_t i = 0; i < net.num_ports(); ++i) {
    drops += net.port(i).stats.drops;
    failure_drops += net.port(i).stats.failure_drops;
  }
  const std::uint64_t counted = drops + failure_drops + net.ttl_drops() + net.no_route_drops();
  const std::uint64_t created = net.packets().allocated(), live = net.packets().live();
  if (created == net.delivered() + counted + live && counted == net.dropped()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "packets created " << created << " != delivered " << net.delivered()
                                       << " + drops " << drops << " + failure_drops " << failure_drops
                                       << " + ttl_drops " << net.ttl_drops() << " + no_route_drops "
                                       << net.no_route_drops() << " + in flight " << live << " (network dropped "
                                       << net.dropped() << ")";
}

}  // namespace lbsim::test
