// The config of `lbsim paths`: the one reader (config/reader.h) with the run config's keys for the
// topology, link rate and latencies ([topology]), packet size ([network] mtu + header_bytes) and
// the [paths] keys (analysis/path_options.h).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "analysis/path_options.h"
#include "config/reader.h"
#include "core/error.h"
#include "topo/dragonfly.h"
#include "topo/paths.h"
#include "topo/registry.h"
#include "topo/slim_fly.h"

using namespace lbsim;

namespace {
config::Config parse(const std::string& text) {
  config::Config c;
  config::load_text(c, text, "cfg.toml");
  return c;
}

std::string error_of(const std::string& text) {
  try {
    auto c = parse(text);
    config::check(c);
    topo::build_topology(c);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(PathsConfig, DefaultsAreTableII) {
  auto c = parse("[topology]\nkind = \"dragonfly\"\n");
  EXPECT_EQ(analysis::path_options(c).packet_bytes, 4160);
  EXPECT_EQ(analysis::path_options(c).rule, "auto");
  EXPECT_EQ(analysis::path_options(c).max_hops, -1);
  EXPECT_EQ(topo::dragonfly_params(c).rate, gbps(400));
  EXPECT_EQ(topo::build_topology(c).num_switches(), 264);
}

TEST(PathsConfig, ReadsDragonflyAndNetwork) {
  auto c = parse(R"(
[topology]
kind = "dragonfly"
p = 16
a = 16
h = 3
g = 4
arrangement = "palmtree"
link_rate_gbps = 200
local_latency_ns = 10.5
global_latency_ns = 300
[network]
mtu = 8192
header_bytes = 1
[paths]
rule = "dragonfly"
max_hops = 5
)");
  const auto df = topo::dragonfly_params(c);
  EXPECT_EQ(df.p, 16);
  EXPECT_EQ(df.g, 4);
  EXPECT_EQ(df.arrangement, "palmtree");
  EXPECT_EQ(df.rate, gbps(200));
  EXPECT_EQ(df.local_latency, 10'500);
  EXPECT_EQ(topo::slim_fly_params(c).global_latency, ns(300));
  const auto opt = analysis::path_options(c);
  EXPECT_EQ(opt.packet_bytes, 8193);
  EXPECT_EQ(opt.rule, "dragonfly");
  EXPECT_EQ(opt.max_hops, 5);
  auto t = topo::build_topology(c);
  EXPECT_EQ(t.num_hosts, 1024);
  // One global hop: 300 ns + 8193 B at 200 Gb/s (327.72 ns).
  topo::PathEnumerator pe(t, opt);
  EXPECT_EQ(pe.hop_latency(t.links[t.ports[t.switch_node(0)][16 + 15].link]), 300'000 + 327'720);
}

TEST(PathsConfig, SlimFlyAndRelativeMap) {
  auto c = parse("[topology]\nkind = \"slim_fly\"\nq = 7\np = 2\n");
  EXPECT_EQ(topo::slim_fly_params(c).q, 7);
  EXPECT_EQ(topo::build_topology(c).num_hosts, 2 * 98);
  config::Config d;
  config::load_text(d, "[topology]\nglobal_map = \"x.map\"\n", "/some/dir/cfg.toml");
  EXPECT_EQ(topo::dragonfly_params(d).global_map_file, "/some/dir/x.map");
}

TEST(PathsConfig, ExampleFilesLoad) {
  const std::string dir = std::string(LBSIM_SOURCE_DIR) + "/examples/dragonfly/";
  for (const char* f : {"paths_dragonfly.toml", "paths_slim_fly.toml", "paths_flowcut.toml", "paths_laps_map.toml"}) {
    auto c = config::load(dir + f, {});
    auto t = topo::build_topology(c);
    EXPECT_GT(t.num_switches(), 0) << f;
    EXPECT_EQ(analysis::path_options(c).packet_bytes, 4160) << f;
  }
  auto laps_cfg = config::load(dir + "paths_laps_map.toml", {});
  EXPECT_EQ(topo::dragonfly_params(laps_cfg).rate, gbps(100));
  auto laps = topo::build_topology(laps_cfg);
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
            "cfg.toml:3: unknown key 'topology.hh' (did you mean 'topology.h'?)");
  EXPECT_EQ(error_of("\n[netwrk]\nmtu = 1\n"),
            "cfg.toml:2: unknown section [netwrk] (did you mean [network]? sections: topology, network, routing, "
            "transport, lb, "
            "workload, failures, output, run, balls, cabling, cost, flowcut, paths)");
  // The stand-in reader's key for the link rate is now an error with the unified name as hint.
  EXPECT_EQ(error_of("[network]\nrate_gbps = 400\n").rfind("cfg.toml:2: unknown key 'network.rate_gbps'", 0), 0u);
  EXPECT_EQ(error_of("[topology]\nlink_rate_gbps = \"fast\"\n"),
            "cfg.toml:2: key 'topology.link_rate_gbps': expected a number, got a string");
  EXPECT_EQ(error_of("[topology]\np = 1.5\n"), "cfg.toml:2: key 'topology.p': expected an integer, got a number");
  EXPECT_NE(error_of("[topology]\nkind = \"torus\"\n").find("cfg.toml:2: key 'topology.kind': 'torus' is not one of"),
            std::string::npos);
  EXPECT_EQ(error_of("[network]\nmtu = 0\n").rfind("cfg.toml:2: key 'network.mtu': value 0 is out of range", 0), 0u);
  EXPECT_NE(error_of("[paths]\nrule = \"valiantt\"\n").find("did you mean 'valiant'?"), std::string::npos);
  EXPECT_NE(error_of("[paths]\nmax_hops = 17\n").find("cfg.toml:2: key 'paths.max_hops'"), std::string::npos);
  EXPECT_NE(error_of("[network\n").find("cfg.toml:1:"), std::string::npos);
  EXPECT_NE(error_of("x = 1\n").find("cfg.toml:1: 'x' must be inside a section"), std::string::npos);
  EXPECT_THROW(config::load("/nonexistent/cfg.toml", {}), UserError);
}
