// The TOML reader of `lbsim paths` (src/cli/paths_config.cpp). The cli layer has no library target,
// so its one source file is compiled into this test directly.
#include "cli/paths_config.cpp"  // NOLINT(bugprone-suspicious-include)

#include <gtest/gtest.h>

using namespace lbsim;
using namespace lbsim::cli;

namespace {
std::string error_of(const std::string& text) {
  try {
    parse_paths_config(text, "cfg.toml");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(PathsConfig, DefaultsAreTableII) {
  auto c = parse_paths_config("", "cfg.toml");
  EXPECT_EQ(c.kind, "dragonfly");
  EXPECT_EQ(c.paths.packet_bytes, 4160);
  EXPECT_EQ(c.dragonfly.rate, gbps(400));
  auto t = build_paths_topology(c);
  EXPECT_EQ(t.num_switches(), 264);
}

TEST(PathsConfig, ReadsDragonflyAndNetwork) {
  auto c = parse_paths_config(R"(
[topology]
kind = "dragonfly"
p = 16
a = 16
h = 3
g = 4
arrangement = "palmtree"
[network]
rate_gbps = 200
local_latency_ns = 10.5
global_latency_ns = 300
mtu = 8192
header_bytes = 0
[paths]
rule = "dragonfly"
)", "cfg.toml");
  EXPECT_EQ(c.dragonfly.p, 16);
  EXPECT_EQ(c.dragonfly.g, 4);
  EXPECT_EQ(c.dragonfly.arrangement, "palmtree");
  EXPECT_EQ(c.dragonfly.rate, gbps(200));
  EXPECT_EQ(c.dragonfly.local_latency, 10'500);
  EXPECT_EQ(c.slim_fly.global_latency, ns(300));
  EXPECT_EQ(c.paths.packet_bytes, 8192);
  auto t = build_paths_topology(c);
  EXPECT_EQ(t.num_hosts, 1024);
  // One global hop: 300 ns + 8192 B at 200 Gb/s (327.68 ns).
  topo::PathEnumerator pe(t, c.paths);
  EXPECT_EQ(pe.hop_latency(t.links[t.ports[t.switch_node(0)][16 + 15].link]), 300'000 + 327'680);
}

TEST(PathsConfig, SlimFlyAndRelativeMap) {
  auto c = parse_paths_config("[topology]\nkind = \"slim_fly\"\nq = 7\np = 2\n", "cfg.toml");
  EXPECT_EQ(c.slim_fly.q, 7);
  EXPECT_EQ(build_paths_topology(c).num_hosts, 2 * 98);
  auto d = parse_paths_config("[topology]\nglobal_map = \"x.map\"\n", "cfg.toml", "/some/dir");
  EXPECT_EQ(d.dragonfly.global_map_file, "/some/dir/x.map");
}

TEST(PathsConfig, ExampleFilesLoad) {
  const std::string dir = std::string(LBSIM_SOURCE_DIR) + "/examples/dragonfly/";
  for (const char* f : {"paths_dragonfly.toml", "paths_slim_fly.toml", "paths_flowcut.toml", "paths_laps_map.toml"}) {
    auto c = read_paths_config(dir + f);
    auto t = build_paths_topology(c);
    EXPECT_GT(t.num_switches(), 0) << f;
  }
  auto laps = build_paths_topology(read_paths_config(dir + "paths_laps_map.toml"));
  EXPECT_EQ(laps.num_switches(), 36);
  // The map file spells out the palmtree arrangement: same links as the generator's.
  topo::DragonflyParams prm;
  prm.a = 4;
  prm.h = 2;
  prm.arrangement = "palmtree";
  auto gen = topo::build_dragonfly(prm);
  ASSERT_EQ(gen.links.size(), laps.links.size());
  std::multiset<std::pair<int, int>> a, b;
  for (const auto& l : gen.links) a.insert({std::min(l.a, l.b), std::max(l.a, l.b)});
  for (const auto& l : laps.links) b.insert({std::min(l.a, l.b), std::max(l.a, l.b)});
  EXPECT_EQ(a, b);
}

TEST(PathsConfig, Errors) {
  EXPECT_EQ(error_of("[topology]\nkind = \"dragonfly\"\nhh = 3\n"),
            "cfg.toml:3: unknown key 'topology.hh' for kind 'dragonfly' (did you mean 'h'?)");
  EXPECT_EQ(error_of("[topology]\nkind = \"slim_fly\"\na = 3\n"),
            "cfg.toml:3: unknown key 'topology.a' for kind 'slim_fly' (did you mean 'p'?)");
  EXPECT_EQ(error_of("\n[netwrk]\nmtu = 1\n"),
            "cfg.toml:2: unknown section 'netwrk' (did you mean 'network'?); valid sections: [topology], [network], [paths]");
  EXPECT_EQ(error_of("[network]\nrate_gbps = \"fast\"\n"), "cfg.toml:2: key 'network.rate_gbps' must be a number");
  EXPECT_EQ(error_of("[topology]\np = 1.5\n"), "cfg.toml:2: key 'topology.p' must be an integer");
  EXPECT_EQ(error_of("[topology]\nkind = \"torus\"\n"),
            "cfg.toml:2: topology.kind 'torus' is not supported by lbsim paths (valid: dragonfly, slim_fly)");
  EXPECT_EQ(error_of("[network]\nmtu = 0\n"), "cfg.toml:2: key 'network.mtu' must be in [1, 1048576] bytes");
  EXPECT_NE(error_of("[network\n").find("cfg.toml:1:"), std::string::npos);
  EXPECT_NE(error_of("x = 1\n").find("unknown section 'x'"), std::string::npos);
  EXPECT_THROW(read_paths_config("/nonexistent/cfg.toml"), UserError);
}
