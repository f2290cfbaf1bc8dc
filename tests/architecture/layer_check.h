// Layering check: compares the layer table of docs/architecture.md ("## Layers", columns
// `layer` and `depends on`) with the code. The table is the single source of the allowed edges,
// so adding a layer or a dependency means editing the table, not this checker.
//
// Rules (also stated in docs/architecture.md):
//  - the table lists each layer's DIRECT dependencies; a layer's files may include headers of
//    any layer in the transitive closure of them (a header reached through a dependency is
//    legitimately usable);
//  - every direct dependency is used: some file of the layer includes a header of it;
//  - the CMake dependencies of lbsim_<layer> (the executable `lbsim` for `cli`) on other layer
//    libraries, in src/CMakeLists.txt and src/*/layer.cmake, equal the table's direct ones;
//  - every folder under src/ is a row of the table and every row has a folder.
#pragma once

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace lbsim::archcheck {

struct Finding {
  // PluginName / PluginKey / PluginHeader: plugin_check.h's rules.
  enum class Kind { Table, Folder, Include, UnusedDependency, Cmake, PluginName, PluginKey, PluginHeader };
  Kind kind;
  std::string file;  // relative to the repository root
  int line = 0;      // 1-based; 0 = the file as a whole
  std::string message;
};

const char* kind_name(Finding::Kind k);

struct LayerTable {
  std::vector<std::string> order;                       // layers in table order
  std::map<std::string, std::set<std::string>> direct;  // layer -> its "depends on"
  std::map<std::string, int> row_line;                  // layer -> line of its row
  bool has(const std::string& layer) const { return direct.count(layer) != 0; }
};

// One #include whose header lies in another layer's folder (allowed or not).
struct IncludeEdge {
  std::string file;  // relative to the repository root
  int line = 0;
  std::string from, to;  // layers
  std::string include;   // as written, e.g. "topo/topology.h" or <topo/topology.h>
};

struct LayerReport {
  LayerTable table;
  std::vector<IncludeEdge> edges;
  std::map<std::string, std::set<std::string>> cmake_deps;  // layer -> layers its target links
  int files_scanned = 0;
  std::vector<Finding> findings;

  bool ok() const { return findings.empty(); }
  // One "file:line: kind: message" line per finding (for test failure output).
  std::string str() const;
};

// Parses the "## Layers" table of an architecture.md text. Problems go to `findings` with
// `file` as their file name; a missing table yields an empty table and a Table finding.
LayerTable parse_layer_table(const std::string& markdown, const std::string& file, std::vector<Finding>& findings);

// The layers `layer` may include: the transitive closure of its direct dependencies.
std::set<std::string> allowed_layers(const LayerTable& table, const std::string& layer);

// Runs every check on the tree at repo_root (docs/architecture.md, src/).
LayerReport check_layers(const std::filesystem::path& repo_root);

}  // namespace lbsim::archcheck
