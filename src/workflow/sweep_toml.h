// The pieces of the sweep-file parser that reproduce manifests share (workflow/manifest.h): a table
// of config-key assignments ([set], a [[case]], a named axis value) and one [grid] axis. Both check
// every key against the config key table and make relative paths absolute against `dir`; errors
// name the file, the line and the key. Internal to the workflow library (it needs toml++).
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include <toml++/toml.h>

#include "workflow/sweep.h"

namespace lbsim::workflow {

// Keys whose value is a path relative to the file that sets it (workload.cdf: when it names a file).
bool is_path_key(const std::string& key, const std::string& value);

std::vector<Assignment> parse_assignments(const std::string& file, const toml::table& t,
                                          const std::filesystem::path& dir, const std::vector<std::string>& skip);

Axis parse_axis(const std::string& file, const std::string& key, const toml::node& value,
                const std::filesystem::path& dir);

}  // namespace lbsim::workflow
