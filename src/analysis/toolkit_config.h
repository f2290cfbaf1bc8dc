// Minimal configuration reader for the Slim Fly toolkit commands (`lbsim cabling`, `lbsim scale`).
// Stand-in for the project's main config loader: kept separate so it can later be swapped for it
// without touching the cabling/scale code. Accepted TOML (every key optional unless noted):
//
//   [topology]
//   kind = "slim_fly"        # the only kind the toolkit plans
//   q = 5                    # prime power, q % 4 != 2 (required by `cabling`)
//   p = 4                    # endpoints per switch; default ceil(k'/2)
//
//   [cabling]
//   switch_ports = 36        # physical ports per switch (>= p + k'); default p + k'
//   name_prefix = "sf"       # switch names are <prefix>-<S>-<R>-<I>
//
//   [cost.radix36]           # prices in USD per item for switches of that radix (any radix)
//   switch = 12250.0
//   switch_cable = 980.0     # switch-switch cable (AOC, [SlimFly] App. D)
//   endpoint_cable = 245.0   # endpoint-switch cable (DAC, App. D)
//
// Unknown tables/keys and wrong types are lbsim::UserError naming file, line, key and the expected
// form (with the closest valid key as a hint).
#pragma once
#include <map>
#include <string>
#include <string_view>

namespace lbsim::analysis {

struct Prices {
  double switch_price = 0;    // one switch
  double switch_cable = 0;    // one switch-switch cable (AOC)
  double endpoint_cable = 0;  // one endpoint-switch cable (DAC)
};

struct ToolkitConfig {
  std::string source = "<defaults>";  // file name, for messages
  std::string kind = "slim_fly";
  int q = -1;  // -1 = not given
  int p = -1;  // -1 = ceil(k'/2)
  int switch_ports = -1;  // -1 = p + k'
  std::string name_prefix = "sf";
  std::map<int, Prices> prices;  // by switch radix; defaults for 36, 40, 64 (see scale.h)
  // Source lines of the topology keys (0 = not given), so later checks (e.g. "q is not a prime
  // power") can point at the line.
  int q_line = 0, p_line = 0, switch_ports_line = 0;
  // "file:line" of a key for messages ("file" alone if the key was not given).
  std::string where(int line) const;
};

// Defaults only (prices from analysis/scale.h default_prices()).
ToolkitConfig default_toolkit_config();
// Parses TOML text; `name` is used in messages (file name).
ToolkitConfig parse_toolkit_config(std::string_view text, const std::string& name);
// Reads and parses a file; a missing/unreadable file is a UserError.
ToolkitConfig load_toolkit_config(const std::string& path);

}  // namespace lbsim::analysis
