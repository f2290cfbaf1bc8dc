// Scale and cost tables ([SlimFly] sec. 5.4 Table 2, sec. 7.8 Table 4, App. D).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <fmt/core.h>

#include "analysis/scale.h"
#include "config/reader.h"
#include "core/error.h"
#include "topo/slim_fly.h"

using namespace lbsim;
using namespace lbsim::analysis;

namespace {

struct T2 {
  int addresses, radix, switches, hosts, k_prime, p;
};

// Table 2 as printed (#A, radix, N_r, N, k', p).
const T2 kTable2[] = {
    {1, 36, 512, 6144, 24, 12}, {1, 48, 882, 14112, 31, 16}, {1, 64, 1568, 32928, 42, 21},
    {2, 36, 512, 6144, 24, 12}, {2, 48, 882, 14112, 31, 16}, {2, 64, 1250, 23750, 37, 19},
    {4, 36, 512, 6144, 24, 12}, {4, 48, 800, 12000, 30, 15}, {4, 64, 800, 12000, 30, 15},
    {8, 36, 450, 5400, 23, 12}, {8, 48, 450, 5400, 23, 12},  {8, 64, 450, 5400, 23, 12},
    {16, 36, 288, 2592, 18, 9}, {16, 48, 288, 2592, 18, 9},  {16, 64, 288, 2592, 18, 9},
    {32, 36, 162, 1134, 13, 7}, {32, 48, 162, 1134, 13, 7},  {32, 64, 162, 1134, 13, 7},
    {64, 36, 98, 588, 11, 6},   {64, 48, 98, 588, 11, 6},    {64, 64, 98, 588, 11, 6},
    {128, 36, 72, 360, 9, 5},   {128, 48, 72, 360, 9, 5},    {128, 64, 72, 360, 9, 5},
};

}  // namespace

TEST(ScaleTable2, PaperRuleReproducesEveryCell) {
  // All 24 cells follow from: p = ceil(k'/2), k' + p <= radix, N * #A + N_r <= 49151 (0xBFFF).
  for (const auto& c : kTable2) {
    SCOPED_TRACE(testing::Message() << "#A=" << c.addresses << " radix=" << c.radix);
    const auto s = max_slim_fly_lid(c.radix, c.addresses, SizeRule::Paper);
    ASSERT_TRUE(s);
    EXPECT_EQ(s->switches, c.switches);
    EXPECT_EQ(s->hosts, c.hosts);
    EXPECT_EQ(s->k_prime, c.k_prime);
    EXPECT_EQ(s->p, c.p);
  }
}

TEST(ScaleTable2, StrictRuleAgreesWhereThePaperUsesValidQ) {
  for (const auto& c : kTable2) {
    SCOPED_TRACE(testing::Message() << "#A=" << c.addresses << " radix=" << c.radix);
    const auto s = max_slim_fly_lid(c.radix, c.addresses, SizeRule::Strict);
    ASSERT_TRUE(s);
    EXPECT_TRUE(topo::valid_slim_fly_q(s->q));
    EXPECT_LE(static_cast<long>(s->hosts) * c.addresses + s->switches, kIbUnicastLids);
    EXPECT_LE(s->radix, c.radix);
    const int paper_q = static_cast<int>(std::lround(std::sqrt(c.switches / 2.0)));
    if (topo::valid_slim_fly_q(paper_q)) {
      EXPECT_EQ(s->switches, c.switches);
      EXPECT_EQ(s->hosts, c.hosts);
    } else {
      EXPECT_LT(s->hosts, c.hosts);  // the printed network is not constructible
    }
  }
  // Spot checks of constructible replacements: 48-port #A=1 -> q = 19 (722 switches, 10830 hosts);
  // 64-port #A=1 -> q = 27 (1458, 30618); #A=128 -> q = 5 (the deployed 50-switch cluster).
  EXPECT_EQ(max_slim_fly_lid(48, 1, SizeRule::Strict)->q, 19);
  EXPECT_EQ(max_slim_fly_lid(48, 1, SizeRule::Strict)->hosts, 10830);
  EXPECT_EQ(max_slim_fly_lid(64, 1, SizeRule::Strict)->q, 27);
  EXPECT_EQ(max_slim_fly_lid(64, 1, SizeRule::Strict)->hosts, 30618);
  EXPECT_EQ(max_slim_fly_lid(64, 128, SizeRule::Strict)->q, 5);
  // The LID bound is what limits #A = 8 to q = 15: q = 16 needs 6144*8 + 512 = 49664 > 49151.
  EXPECT_EQ(max_slim_fly_lid(36, 8, SizeRule::Paper, 49664)->q, 16);
}

TEST(ScaleTable4, MaximumSizesMatchThePaper) {
  struct Row {
    const char* fam;
    int radix;
    long endpoints, switches, links;
  };
  // Table 4, left three column groups (SF with the paper rule: 64 ports -> q = 28 as printed).
  const Row rows[] = {
      {"FT2", 36, 648, 54, 648},        {"FT2-B", 36, 972, 45, 324},     {"FT3", 36, 11664, 1620, 23328},
      {"HX2", 36, 2028, 169, 2028},     {"SF", 36, 6144, 512, 6144},     {"FT2", 40, 800, 60, 800},
      {"FT2-B", 40, 1200, 50, 400},     {"FT3", 40, 16000, 2000, 32000}, {"HX2", 40, 2744, 196, 2548},
      {"SF", 40, 7514, 578, 7225},      {"FT2", 64, 2048, 96, 2048},     {"FT2-B", 64, 3072, 80, 1024},
      {"FT3", 64, 65536, 5120, 131072}, {"HX2", 64, 10648, 484, 10164},  {"SF", 64, 32928, 1568, 32928},
  };
  for (const auto& r : rows) {
    SCOPED_TRACE(testing::Message() << r.fam << " " << r.radix);
    const auto n = max_network(r.fam, r.radix, SizeRule::Paper);
    EXPECT_EQ(n.endpoints, r.endpoints);
    EXPECT_EQ(n.switches, r.switches);
    EXPECT_EQ(n.links, r.links);
  }
  // Strict: the 64-port SF becomes q = 27 (28 is not a prime power); 36 and 40 ports agree.
  const auto sf64 = max_network("SF", 64, SizeRule::Strict);
  EXPECT_EQ(sf64.switches, 1458);
  EXPECT_EQ(sf64.endpoints, 30618);
  EXPECT_EQ(sf64.links, 1458L * 41 / 2);
  EXPECT_EQ(max_network("SF", 40, SizeRule::Strict).endpoints, 7514);
  EXPECT_THROW(max_network("torus", 36), UserError);
}

TEST(ScaleTable4, FixedClusterColumn) {
  // "2048 nodes clusters": FT2/FT2-B on 64 ports, HX2 on 40, SF and FT3 on 36.
  const auto ft2 = network_for("FT2", 64, 2048);
  EXPECT_EQ(ft2.switches, 96);
  EXPECT_EQ(ft2.links, 2048);
  EXPECT_EQ(ft2.endpoints, 2048);
  const auto ft2b = network_for("FT2-B", 64, 2048);
  EXPECT_EQ(ft2b.switches, 59);  // 43 leaves + 16 spines, as printed
  EXPECT_EQ(ft2b.links, 688);    // the paper prints 344 (= 688 / 2): 43 leaves x 16 uplinks each
  const auto ft3 = network_for("FT3", 36, 2048);
  EXPECT_EQ(ft3.switches, 303);
  EXPECT_EQ(ft3.links, 4320);
  const auto hx = network_for("HX2", 40, 2048);
  EXPECT_EQ(hx.switches, 169);
  EXPECT_EQ(hx.endpoints, 2197);
  EXPECT_EQ(hx.links, 2028);
  const auto sf = network_for("SF", 36, 2048);
  EXPECT_EQ(sf.switches, 242);
  EXPECT_EQ(sf.endpoints, 2178);
  EXPECT_EQ(sf.links, 2057);
  EXPECT_THROW(network_for("FT2", 36, 5000), UserError);  // more than k^2/2 = 648
}

TEST(ScaleCost, DefaultPricesReproduceTable4Costs) {
  // Printed costs [M$]; the default prices are fitted to all 20 of them (App. D gives no numbers;
  // scripts/table4_fit.py), so every cell must be within 3.5 %: 9 prices explain 20 cells, which is
  // the only check the fit gives.
  struct Row {
    const char* fam;
    int radix;
    double cost_m;
  };
  const Row rows[] = {{"FT2", 36, 1.5}, {"FT2-B", 36, 1.1}, {"FT3", 36, 45},   {"HX2", 36, 4.5},  {"SF", 36, 13.8},
                      {"FT2", 40, 2.4}, {"FT2-B", 40, 1.7}, {"FT3", 40, 84.2}, {"HX2", 40, 7.8},  {"SF", 40, 22.4},
                      {"FT2", 64, 9},   {"FT2-B", 64, 7.2}, {"FT3", 64, 491},  {"HX2", 64, 45.5}, {"SF", 64, 146}};
  const auto prices = default_prices();
  for (const auto& r : rows) {
    SCOPED_TRACE(testing::Message() << r.fam << " " << r.radix);
    const auto c = network_cost(max_network(r.fam, r.radix, SizeRule::Paper), prices);
    ASSERT_TRUE(c);
    EXPECT_NEAR(*c / 1e6, r.cost_m, r.cost_m * 0.035);
  }
  const Row cluster[] = {{"FT2", 64, 7.5}, {"FT2-B", 64, 2.7}, {"FT3", 36, 8.3}, {"HX2", 40, 6.4}, {"SF", 36, 5.8}};
  for (const auto& r : cluster) {
    SCOPED_TRACE(testing::Message() << "2048 endpoints " << r.fam);
    EXPECT_NEAR(*network_cost(network_for(r.fam, r.radix, 2048, SizeRule::Paper), prices) / 1e6, r.cost_m,
                r.cost_m * 0.035);
  }
  // Cost is linear in the configured prices.
  NetworkSize n;
  n.radix = 48;
  n.switches = 2;
  n.links = 3;
  n.endpoints = 5;
  EXPECT_FALSE(network_cost(n, prices));
  auto p2 = prices;
  p2[48] = Prices{100, 10, 1};
  EXPECT_DOUBLE_EQ(*network_cost(n, p2), 2 * 100 + 3 * 10 + 5 * 1);
}

// Table 4's 2048-endpoint FT2 / FT2-B rows: the paper rule reproduces the printed counts (FT2-B
// 344 links = 43 leaves x 16 uplinks / 2) and prices no endpoint cables; the strict rule is the
// tree that is built (688 links, every cable priced).
TEST(ScaleCost, ClusterFatTreeRowsPaperAndBuilt) {
  const auto prices = default_prices();
  const auto p64 = prices.at(64);
  const auto b = network_for("FT2-B", 64, 2048, SizeRule::Strict);
  EXPECT_EQ(b.switches, 59);  // ceil(2048 / 48) = 43 leaves + 16 spines
  EXPECT_EQ(b.links, 688);
  EXPECT_TRUE(b.endpoint_cables_priced);
  EXPECT_DOUBLE_EQ(*network_cost(b, prices),
                   59 * p64.switch_price + 688 * p64.switch_cable + 2048 * p64.endpoint_cable);
  const auto bp = network_for("FT2-B", 64, 2048, SizeRule::Paper);
  EXPECT_EQ(bp.switches, 59);
  EXPECT_EQ(bp.links, 344);
  EXPECT_EQ(bp.endpoints, 2048);
  EXPECT_FALSE(bp.endpoint_cables_priced);
  EXPECT_DOUBLE_EQ(*network_cost(bp, prices), 59 * p64.switch_price + 344 * p64.switch_cable);
  const auto f = network_for("FT2", 64, 2048, SizeRule::Strict);
  const auto fp = network_for("FT2", 64, 2048, SizeRule::Paper);
  EXPECT_EQ(f.switches, 96);
  EXPECT_EQ(fp.switches, 96);
  EXPECT_EQ(f.links, 2048);
  EXPECT_EQ(fp.links, 2048);
  // Identical network: the paper's cluster row differs from the maximum-size 64-port FT2 (9 M$) by
  // exactly the 2048 endpoint cables.
  EXPECT_DOUBLE_EQ(*network_cost(f, prices) - *network_cost(fp, prices), 2048 * p64.endpoint_cable);
  EXPECT_DOUBLE_EQ(*network_cost(f, prices), *network_cost(max_network("FT2", 64), prices));
  // Other families are the same under both rules.
  for (const char* fam : {"FT3", "HX2", "SF"}) {
    const int k = std::string(fam) == "HX2" ? 40 : 36;
    const auto s = network_for(fam, k, 2048, SizeRule::Strict), p = network_for(fam, k, 2048, SizeRule::Paper);
    EXPECT_EQ(s.links, p.links);
    EXPECT_EQ(*network_cost(s, prices), *network_cost(p, prices));
  }
}

TEST(ScaleFormat, TablesMentionTheirSources) {
  ScaleOptions o;
  const std::string t2 = format_table2(o);
  EXPECT_NE(t2.find("49151"), std::string::npos);
  const std::string t4 = format_table4(o, default_prices());
  EXPECT_NE(t4.find("2048 endpoint clusters"), std::string::npos);
  EXPECT_NE(t4.find("q=11 k'=17 p=9"), std::string::npos);
  EXPECT_THROW(parse_size_rule("loose"), UserError);
}

namespace {
std::string prices_error(const std::string& csv) {
  std::istringstream in(csv);
  try {
    parse_prices_csv(in, "p.csv");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}
}  // namespace

// The price list of `cost.prices`: CSV rows radix,switch,switch_cable,endpoint_cable.
TEST(ScalePrices, CsvRows) {
  std::istringstream in(
      "# USD per item\n\nradix,switch,switch_cable,endpoint_cable\n48,20000,1000.5,100\r\n  # comment\n36, 1, 2 ,3\n");
  const auto p = parse_prices_csv(in, "p.csv");
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p.at(48), (Prices{20000, 1000.5, 100}));
  EXPECT_EQ(p.at(36), (Prices{1, 2, 3}));
}

TEST(ScalePrices, ErrorsNameFileAndLine) {
  const std::string header = "radix,switch,switch_cable,endpoint_cable\n";
  EXPECT_EQ(prices_error("# c\nradix,switch,cable\n"),
            "p.csv:2: expected the header 'radix,switch,switch_cable,endpoint_cable', got 'radix,switch,cable'");
  EXPECT_EQ(prices_error("# only comments\n"), "p.csv: no header 'radix,switch,switch_cable,endpoint_cable'");
  EXPECT_EQ(prices_error(header + "36,1,2\n"),
            "p.csv:2: expected 4 fields (radix,switch,switch_cable,endpoint_cable), got 3");
  EXPECT_EQ(prices_error(header + "x36,1,2,3\n"), "p.csv:2: radix 'x36' is not an integer in [2, 4096]");
  EXPECT_EQ(prices_error(header + "1,1,2,3\n"), "p.csv:2: radix '1' is not an integer in [2, 4096]");
  EXPECT_EQ(prices_error(header + "36,1,-2,3\n"), "p.csv:2: switch_cable '-2' is not a price (a number >= 0)");
  EXPECT_EQ(prices_error(header + "36,1,2,nan\n"), "p.csv:2: endpoint_cable 'nan' is not a price (a number >= 0)");
  EXPECT_EQ(prices_error(header + "36,1,2,3\n\n36,4,5,6\n"), "p.csv:4: radix 36 is listed twice (first on line 2)");
}

// Rows replace the built-in prices of their radix; the others stay. Errors name the key and the
// config line that set it.
TEST(ScalePrices, ConfigKey) {
  const auto dir = std::filesystem::temp_directory_path() / "lbsim-test-prices";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "p.csv") << "radix,switch,switch_cable,endpoint_cable\n36,1,2,3\n48,4,5,6\n";
  std::ofstream(dir / "c.toml") << "# prices\n[cost]\nprices = \"p.csv\"\n";
  const auto c = config::load((dir / "c.toml").string(), {});
  const auto p = configured_prices(c);
  EXPECT_EQ(p.at(36), (Prices{1, 2, 3}));
  EXPECT_EQ(p.at(48), (Prices{4, 5, 6}));
  EXPECT_EQ(p.at(40), default_prices().at(40));
  EXPECT_EQ(configured_prices(config::Config()), default_prices());
  std::ofstream(dir / "bad.toml") << "[cost]\nprices = \"missing.csv\"\n";
  try {
    configured_prices(config::load((dir / "bad.toml").string(), {}));
    ADD_FAILURE();
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()), fmt::format("{}:2: cost.prices: cannot open the price list '{}'",
                                                 (dir / "bad.toml").string(), (dir / "missing.csv").string()));
  }
  std::ofstream(dir / "p.csv") << "radix,switch,switch_cable,endpoint_cable\n36,1,2\n";
  try {
    configured_prices(c);
    ADD_FAILURE();
  } catch (const UserError& e) {
    EXPECT_EQ(std::string(e.what()).rfind((dir / "p.csv").string() + ":2: expected 4 fields", 0), 0u) << e.what();
  }
  // The example price list is the built-in one.
  EXPECT_EQ(configured_prices(config::load(std::string(LBSIM_SOURCE_DIR) + "/examples/slimfly/prices.toml", {})),
            default_prices());
}
