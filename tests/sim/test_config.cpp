// Every configuration error path gives a message naming the file, line and key.
#include <gtest/gtest.h>

#include "core/error.h"
#include "helpers.h"

using namespace lbsim;

namespace {

std::string load_error(const std::string& toml) {
  const auto dir = test::temp_dir("cfg");
  const auto path = test::write_file(dir + "/c.toml", toml);
  try {
    config::Config c;
    config::load_file(c, path);
    config::check(c);
    topo::build_topology(c);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

#define EXPECT_CONTAINS(haystack, needle) EXPECT_NE((haystack).find(needle), std::string::npos) << (haystack)

}  // namespace

TEST(Config, UnknownKeyNamesFileLineAndSuggests) {
  const auto e = load_error("[network]\nkmin = 0.2\nkmim = 0.3\n");
  EXPECT_CONTAINS(e, "c.toml:3");
  EXPECT_CONTAINS(e, "unknown key 'network.kmim'");
  EXPECT_CONTAINS(e, "did you mean 'network.kmin'");
}

TEST(Config, UnknownSectionAndKeyOutsideSection) {
  EXPECT_CONTAINS(load_error("[netwrk]\nkmin = 0.2\n"), "unknown section [netwrk] (did you mean [network]?");
  const auto e = load_error("seed = 3\n");
  EXPECT_CONTAINS(e, "c.toml:1");
  EXPECT_CONTAINS(e, "must be inside a section");
}

TEST(Config, WrongType) {
  const auto e = load_error("[network]\n\nkmin = \"high\"\n");
  EXPECT_CONTAINS(e, "c.toml:3");
  EXPECT_CONTAINS(e, "key 'network.kmin': expected a number, got a string");
  EXPECT_CONTAINS(load_error("[network]\necn = 1\n"), "expected true or false");
  EXPECT_CONTAINS(load_error("[topology]\nhosts = 1.5\n"), "expected an integer");
}

TEST(Config, BadValues) {
  EXPECT_CONTAINS(load_error("[workload]\nsize = -5\n"), "out of range");
  EXPECT_CONTAINS(load_error("[workload]\nsize = \"8 bananas\"\n"), "is not a size");
  EXPECT_CONTAINS(load_error("[network]\nkmin = 1.5\n"), "out of range [0, 1]");
  EXPECT_CONTAINS(load_error("[network]\nkmin = 0.9\nkmax = 0.5\n"), "must be below network.kmax");
  EXPECT_CONTAINS(load_error("[lb]\nalgorithm = \"fastest\"\n"), "'fastest' is not one of: bitmap, ecmp, flicr_u");
  EXPECT_CONTAINS(load_error("[workload]\nkind = \"flows_csv\"\n"), "needs workload.file");
  // Time keys are capped at what int64 picoseconds hold (issue 14: run.end_us = 1e15 used to end
  // the run at t = 0 with every flow unfinished).
  EXPECT_CONTAINS(load_error("[run]\nend_us = 1e15\n"),
                  "c.toml:2: key 'run.end_us': value 1000000000000000 is out of range [0, 9000000000000]");
  EXPECT_CONTAINS(load_error("[workload]\nstart_us = 1e13\n"),
                  "key 'workload.start_us': value 10000000000000 is out of range");
}

TEST(Config, ImpossibleTopology) {
  EXPECT_CONTAINS(load_error("[topology]\nhosts = 1000\nradix = 16\n"), "a spine of radix 16 reaches at most 16 ToRs");
  EXPECT_CONTAINS(load_error("[topology]\noversubscription = 3\n"), "divide the 8 hosts per ToR");
}

TEST(Config, MissingFileAndSyntaxError) {
  try {
    config::Config c;
    config::load_file(c, "/nonexistent/x.toml");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_CONTAINS(std::string(e.what()), "cannot open config file '/nonexistent/x.toml'");
  }
  const auto e = load_error("[network]\nkmin = = 3\n");
  EXPECT_CONTAINS(e, "c.toml:2");
  EXPECT_CONTAINS(e, "TOML syntax error");
}

TEST(Config, SizesAndOverrides) {
  config::Config c;
  config::apply_override(c, "workload.size=\"8MiB\"");
  EXPECT_EQ(c.integer("workload.size"), 8 << 20);
  config::apply_override(c, "workload.size=4KiB");
  EXPECT_EQ(c.integer("workload.size"), 4096);
  config::apply_override(c, "lb.algorithm=ecmp");
  EXPECT_EQ(c.text("lb.algorithm"), "ecmp");
  config::apply_override(c, "network.kmin=0.1");
  EXPECT_DOUBLE_EQ(c.real("network.kmin"), 0.1);
  try {
    config::apply_override(c, "network.kmn=0.1");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_CONTAINS(std::string(e.what()), "--set: unknown key 'network.kmn' (did you mean 'network.kmin'?)");
  }
  try {
    config::apply_override(c, "kmin");
    FAIL();
  } catch (const UserError& e) {
    EXPECT_CONTAINS(std::string(e.what()), "expected section.key=value");
  }
}

TEST(Config, ResolvedConfigRoundTrips) {
  config::Config c;
  c.set("network.kmin", 0.15);
  c.set("lb.algorithm", "ecmp");
  c.set("workload.size", 12345);
  const auto dir = test::temp_dir("roundtrip");
  const auto path = test::write_file(dir + "/r.toml", config::to_toml(c));
  config::Config d;
  config::load_file(d, path);
  EXPECT_EQ(config::to_toml(d), config::to_toml(c));
}

TEST(Config, DocsAreInSync) {
  const auto doc = test::read_file(std::string(LBSIM_SOURCE_DIR) + "/docs/config.md");
  EXPECT_EQ(doc, config::keys_markdown()) << "regenerate with: ./build/lbsim config --markdown > docs/config.md";
}
