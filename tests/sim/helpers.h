// Helpers for tests that run whole simulations.
#pragma once
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

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

// A fresh folder per name and process (ctest runs tests of one executable in parallel processes).
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

// Packets created = delivered + dropped + still in the network (DESIGN.md "Tests").
inline bool conserved(sim::Simulation& s) {
  auto& net = s.network();
  return net.packets().allocated() == net.delivered() + net.dropped() + net.packets().live();
}

}  // namespace lbsim::test
