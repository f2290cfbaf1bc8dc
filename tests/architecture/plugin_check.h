// Plug-in check: the engine's layers name no plug-in (docs/architecture.md "Adding a plug-in"). A
// plug-in is one source file that registers itself; the code that runs every plug-in (src/sim and
// src/net) reaches plug-ins only through their registries and hooks, so that adding, removing or
// renaming one changes nothing there.
//
// Rules, for every .h/.cpp file under the checked folders:
//  - no string literal is a registered plug-in name ("valiant"), or a prefix of such names ending
//    in '_' ("spritz_" selects a family by name), or a plug-in's summary.json block;
//  - no string literal is a key a plug-in declared (KeyDef::owner not empty: "lb.reps_ack_mode");
//  - no #include of a plug-in's header: a header whose own file, or the .cpp of the same name beside
//    it, declares a registrar (`RegisterLb kReps{...}`, `const RegisterRouting k...`).
// Comments do not count. The names and keys come from the registries of the linked layers (the test
// passes them in), so the check follows the plug-ins as they are registered.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "layer_check.h"

namespace lbsim::archcheck {

struct PluginNames {
  std::map<std::string, std::string> names;  // registered name -> what it is ("load balancer"); also summary blocks
  std::map<std::string, std::string> keys;   // key a plug-in declared -> its owner
};

struct PluginReport {
  int files_scanned = 0;
  int literals_scanned = 0;
  int includes_scanned = 0;
  std::vector<Finding> findings;
  bool ok() const { return findings.empty(); }
  std::string str() const;
};

// A string literal of a C++ source (comments, character literals and raw strings handled).
struct Literal {
  int line = 0;  // 1-based
  std::string text;
};
std::vector<Literal> string_literals(const std::string& source);

// Runs the rules on src/<folder>/ for each of `folders` of the tree at repo_root.
PluginReport check_plugin_names(const std::filesystem::path& repo_root, const PluginNames& names,
                                const std::vector<std::string>& folders);

}  // namespace lbsim::archcheck
