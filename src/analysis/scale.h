// Scale and cost of Slim Fly versus fat trees and HyperX ([SlimFly] sec. 5.4 / Table 2,
// sec. 7.8 / Table 4, App. D).
//
// Table 2: the largest full-global-bandwidth Slim Fly (p = ceil(k'/2), App. A.1) that fits a switch
// radix k (k' + p <= k) and one InfiniBand subnet when every endpoint gets #A = 2^LMC addresses
// (sec. 5.1). Unicast LIDs are 0x0001..0xBFFF (49151, IB spec vol. 1 sec. 4.1.3); every endpoint
// uses #A LIDs and every switch one (switch port 0, LMC 0): N * #A + N_r <= 49151. This bound
// reproduces every row of Table 2 (e.g. #A = 8 excludes q = 16: 6144 * 8 + 512 = 49664 > 49151).
//
// SizeRule: the paper's Table 2 and Table 4 use q values that are not prime powers (21, 28, 20, 15,
// 12) or have q % 4 == 2 (6, with k' = 3q/2), for which no MMS graph exists. SizeRule::Paper
// applies the size formulas to every integer q >= 3 (delta = 0 when q % 4 == 2, as the q = 6 row
// implies) and so reproduces the printed numbers; SizeRule::Strict (the default) uses only valid q
// (topo::valid_slim_fly_q), i.e. networks that can actually be built.
//
// Table 4 network models (links = switch-switch cables, the table's "Links" row):
//   FT2   (k-port, non-blocking 2-level): k leaves x k/2 endpoints, k/2 spines, every leaf one link
//         to every spine: N = k^2/2, switches 3k/2, links k^2/2.
//   FT2-B (3:1 oversubscribed): leaves with 3k/4 down and k/4 up ports, k leaves, k/4 spines.
//   FT3   (3-level, non-blocking): N = k^3/4, switches 5k^2/4, links k^3/2.
//   HX2   (2-D HyperX S x S): switch has 2(S-1) network ports and p = min(S, k - 2(S-1))
//         endpoints; S maximises S^2 p. (Reproduces 169/196/484 switches.)
//   SF    (Slim Fly): the largest q with k' + ceil(k'/2) <= k.
// Fixed-size columns ("2048 nodes clusters"): the smallest network of each family with >= N
// endpoints (for trees: ceil(N / down-ports) leaves; FT2/FT2-B spines = uplinks per leaf; FT3 whole
// pods of k/2 aggregation switches and aggs * (k/2) / k cores — this reproduces the paper's 303
// switches and 4320 links). Trees report N endpoints attached (the last leaf partly filled), the
// direct networks their full p per switch, as the paper does.
// The printed FT2 / FT2-B cluster rows follow a different bookkeeping, which SizeRule::Paper
// reproduces (found by fitting, see docs/slimfly-toolkit.md section 5): their cost leaves out the
// endpoint (DAC) cables, and FT2-B counts half of its leaf-spine cables (344 = 43 leaves x 16
// uplinks / 2). SizeRule::Strict prices the tree that is built (688 links, every cable).
// Cost (App. D): switches x switch price + switch-switch links x AOC price + endpoints x DAC price.
// App. D names the equipment (36-port Mellanox SB7800 EDR, 40-port Quantum QM8700 HDR, 64-port
// QM9700 NDR, AOC for switch-switch, DAC for endpoint cables) but prints no prices: default_prices()
// are least-squares fits (relative error) to all 20 cost cells of Table 4 (the 15 maximum-size cells
// and the 5 cluster cells under SizeRule::Paper), which they reproduce within 3.3 %. Other prices
// come from a price list file named by the key cost.prices (configured_prices below).
#pragma once
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/config.h"
#include "topo/slim_fly.h"

namespace lbsim::analysis {

inline constexpr long kIbUnicastLids = 0xBFFF;  // 49151 unicast LIDs per subnet

enum class SizeRule { Strict, Paper };
SizeRule parse_size_rule(const std::string& s);  // "strict" | "paper"
const char* size_rule_name(SizeRule r);

struct Prices {
  double switch_price = 0;    // one switch
  double switch_cable = 0;    // one switch-switch cable (AOC)
  double endpoint_cable = 0;  // one endpoint-switch cable (DAC)
  bool operator==(const Prices&) const = default;
};

// By switch radix (36, 40, 64).
std::map<int, Prices> default_prices();

// A price list: CSV with the header `radix,switch,switch_cable,endpoint_cable` (USD per item), one
// row per switch radix, '#' comment lines and blank lines allowed. A list of prices per radix
// does not fit the flat section.key table, so the key names the file. Errors are UserErrors
// "name:line: ...".
std::map<int, Prices> parse_prices_csv(std::istream& in, const std::string& name);
// The prices of a config: default_prices() with the rows of the file `cost.prices` (relative to
// the config file; "" = none) replacing the built-in prices of their radix.
std::map<int, Prices> configured_prices(const config::Config& cfg);

// Size of a full-bandwidth Slim Fly for q under a rule; nothing if q is not allowed by the rule.
std::optional<topo::SlimFlySize> sf_size(int q, SizeRule rule);

// Table 2 cell: the largest Slim Fly (by endpoints) with radix <= `radix` and
// N * addresses + N_r <= lid_limit.
std::optional<topo::SlimFlySize> max_slim_fly_lid(int radix, int addresses, SizeRule rule,
                                                  long lid_limit = kIbUnicastLids);

struct NetworkSize {
  std::string family;  // FT2, FT2-B, FT3, HX2, SF
  int radix = 0;
  long endpoints = 0, switches = 0, links = 0;
  bool endpoint_cables_priced = true;  // false: the cost leaves out the endpoint cables (paper's cluster FT2 rows)
  std::string detail;                  // e.g. "q=16 k'=24 p=12"
};

// Maximum size for a switch radix (Table 4 left columns). Throws UserError if none fits.
NetworkSize max_network(const std::string& family, int radix, SizeRule rule = SizeRule::Strict);
// Smallest network with >= endpoints (Table 4 "2048 nodes clusters"). SizeRule::Paper: FT2 and
// FT2-B rows as printed (no endpoint cables priced; FT2-B with half of its leaf-spine links).
NetworkSize network_for(const std::string& family, int radix, long endpoints, SizeRule rule = SizeRule::Strict);
const std::vector<std::string>& network_families();  // FT2, FT2-B, FT3, HX2, SF

// Cost in USD; nothing if no prices for the radix.
std::optional<double> network_cost(const NetworkSize& n, const std::map<int, Prices>& prices);

struct ScaleOptions {
  SizeRule rule = SizeRule::Strict;
  std::vector<int> table2_radices{36, 48, 64};
  std::vector<int> table4_radices{36, 40, 64};
  long cluster_endpoints = 2048;
  // Radix per family for the fixed-size columns (Table 4 caption).
  std::map<std::string, int> cluster_radix{{"FT2", 64}, {"FT2-B", 64}, {"HX2", 40}, {"SF", 36}, {"FT3", 36}};
};

// The two tables as printable text (fixed-width), and as JSON text.
std::string format_table2(const ScaleOptions& o);
std::string format_table4(const ScaleOptions& o, const std::map<int, Prices>& prices);

}  // namespace lbsim::analysis
