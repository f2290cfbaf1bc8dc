// The one configuration reader of every command (run, compare, topo, paths, cabling, layers, mat,
// scale, sweep): TOML files with sections, `--set section.key=value` overrides, the resolved
// configuration written with every run, and docs/config.md. The keys themselves are declared by the
// layers and plug-ins (core/config.h, core/registry.h). Unknown keys, wrong types and bad values are
// UserErrors naming the file, the line and the key, with the closest valid key.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "core/config.h"

namespace lbsim::config {

// Reads a TOML file into `cfg` (on top of what it holds) and records it as cfg.source_file.
void load_file(Config& cfg, const std::string& path);
// The same for TOML text; `name` is used in messages (and as the source file when not empty).
void load_text(Config& cfg, std::string_view text, const std::string& name);
// One `section.key=value` override; the value is parsed as TOML, else taken as a bare string.
void apply_override(Config& cfg, const std::string& assignment);
// The same override as a TOML line `"section.key" = value` for a sweep's [set] table (the key and
// the value are checked as apply_override checks them; a bare word becomes a TOML string).
std::string override_line(const std::string& assignment);
// File (optional) + overrides + the cross-key checks + the refusal of keys no selected plug-in reads
// (check_keys_read): what every command does with its arguments. `lbsim compare` passes
// check_reads = false and checks its runs' configs together (a key needs one run that reads it).
Config load(const std::string& file, const std::vector<std::string>& overrides, bool check_reads = true);

// The resolved configuration as TOML (every key, in table order; a key the run does not read - another
// plug-in's - is written as a comment with its default, so the file loads again and shows every key).
std::string to_toml(const Config& cfg);
// Markdown reference of every key and plug-in (docs/config.md).
std::string keys_markdown();

// "8MiB" -> 8388608; false when the text is not a size (a number with an optional unit B, KiB, MiB,
// GiB, KB/kB, MB, GB).
bool parse_size(std::string_view s, std::int64_t& out);

}  // namespace lbsim::config
