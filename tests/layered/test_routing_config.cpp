// The small TOML reader of `lbsim layers` / `lbsim mat`.
#include <gtest/gtest.h>

#include "analysis/routing_config.h"
#include "core/error.h"

namespace lbsim::analysis {
using namespace routing;  // the layered-routing types and functions (routing/layered.h)
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_routing_config(text, "cfg.toml");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

TEST(RoutingConfig, ReadsSlimFly) {
  auto c = parse_routing_config("[topology]\nkind = \"slim_fly\"\nq = 5\np = 4\n", "x.toml");
  EXPECT_EQ(c.kind, "slim_fly");
  EXPECT_EQ(c.q, 5);
  EXPECT_EQ(c.p, 4);
  auto g = build_switch_graph(c);
  EXPECT_EQ(g.adj.size(), 50u);
  EXPECT_EQ(g.endpoints_per_switch, 4);
  // Default p = ceil(k'/2) = ceil(7/2) = 4 (sec. 3.2).
  EXPECT_EQ(build_switch_graph(parse_routing_config("[topology]\nq = 5\n", "x")).endpoints_per_switch, 4);
}

TEST(RoutingConfig, UnknownKeysNameFileLineAndKey) {
  std::string e = error_of("[topology]\nkind = \"slim_fly\"\nq = 5\nqq = 3\n");
  EXPECT_NE(e.find("cfg.toml:4"), std::string::npos) << e;
  EXPECT_NE(e.find("topology.qq"), std::string::npos) << e;
  e = error_of("[topology]\nq = 5\n[routing]\nx = 1\n");
  EXPECT_NE(e.find("cfg.toml:3"), std::string::npos) << e;
  EXPECT_NE(e.find("routing"), std::string::npos) << e;
  EXPECT_NE(error_of("[topology]\nq = \"five\"\n").find("integer"), std::string::npos);
  EXPECT_NE(error_of("[topology]\nkind = \"slim_fly\"\n").find("required"), std::string::npos);
  EXPECT_NE(error_of("[topology]\nkind = \"torus\"\nn = 4\n").find("torus"), std::string::npos);
  EXPECT_NE(error_of("[topology\n").find("cfg.toml:1"), std::string::npos);
  // q = 6 is no prime power: the Slim Fly builder rejects it.
  EXPECT_THROW(build_switch_graph(parse_routing_config("[topology]\nq = 6\n", "x")), UserError);
}

// Slim Fly files are shared with `lbsim cabling` (analysis/toolkit_config.h): its tables are valid.
TEST(RoutingConfig, AcceptsToolkitTables) {
  auto c = parse_routing_config(
      "[topology]\nkind = \"slim_fly\"\nq = 7\n[cabling]\nswitch_ports = 36\n[cost.radix36]\nswitch = 1.0\n",
      "x.toml");
  EXPECT_EQ(c.q, 7);
  EXPECT_EQ(build_switch_graph(c).endpoints_per_switch, 6);  // ceil(11/2)
  EXPECT_NE(error_of("[topology]\nkind = \"ring\"\nn = 4\n[cabling]\nswitch_ports = 36\n").find("cfg.toml:4"),
            std::string::npos);
}

TEST(RoutingConfig, RingAndComplete) {
  auto g = build_switch_graph(parse_routing_config("[topology]\nkind = \"ring\"\nn = 6\np = 1\n", "x"));
  ASSERT_EQ(g.adj.size(), 6u);
  for (const auto& a : g.adj) EXPECT_EQ(a.size(), 2u);
  auto k = build_switch_graph(parse_routing_config("[topology]\nkind = \"complete\"\nn = 5\n", "x"));
  for (const auto& a : k.adj) EXPECT_EQ(a.size(), 4u);
  EXPECT_EQ(k.endpoints_per_switch, 2);  // ceil(4/2)
}

}  // namespace
}  // namespace lbsim::analysis
