// Layering check; see layer_check.h for the rules.
#include "layer_check.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <functional>
#include <optional>
#include <regex>
#include <sstream>

namespace fs = std::filesystem;

namespace lbsim::archcheck {

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string strip_backticks(const std::string& s) {
  std::string out;
  for (char c : s)
    if (c != '`') out += c;
  return trim(out);
}

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

// Cells of a markdown table row "| a | b |" (escaped "\|" stays inside its cell).
std::vector<std::string> split_row(const std::string& line) {
  std::string s = trim(line);
  if (!s.empty() && s.front() == '|') s.erase(0, 1);
  if (!s.empty() && s.back() == '|' && (s.size() < 2 || s[s.size() - 2] != '\\')) s.pop_back();
  std::vector<std::string> cells;
  std::string cur;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '|' && (i == 0 || s[i - 1] != '\\')) {
      cells.push_back(trim(cur));
      cur.clear();
    } else {
      cur += s[i];
    }
  }
  cells.push_back(trim(cur));
  return cells;
}

bool is_table_line(const std::string& line) {
  const std::string t = trim(line);
  return !t.empty() && t.front() == '|';
}

const std::regex kLayerName("[a-z][a-z0-9_]*");

std::string join(const std::set<std::string>& s) {
  if (s.empty()) return "-";
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "" : ", ") + x;
  return out;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string rel(const fs::path& p, const fs::path& root) { return p.lexically_relative(root).generic_string(); }

// ---- include scan ----------------------------------------------------------------------------

// Where the compiler would find an include: a quoted one first next to the including file,
// then (quoted or angled) under src/, the one include root all layers share. Headers found
// nowhere under src/ (system and third-party ones) are not layer edges.
std::optional<fs::path> resolve_include(const fs::path& src, const fs::path& including_file, char open,
                                        const std::string& name) {
  std::vector<fs::path> candidates;
  if (open == '"') candidates.push_back(including_file.parent_path() / name);
  candidates.push_back(src / name);
  for (const auto& c : candidates) {
    const fs::path n = c.lexically_normal();
    std::error_code ec;
    if (fs::is_regular_file(n, ec)) return n;
  }
  return std::nullopt;
}

void scan_includes(const fs::path& root, const fs::path& src, LayerReport& r) {
  static const std::regex kInclude(R"(^\s*#\s*include\s*([<"])([^">]+)[">])");
  const std::string arch = "docs/architecture.md";
  for (const auto& layer : r.table.order) {
    const fs::path dir = src / layer;
    if (!fs::is_directory(dir)) continue;  // reported by the folder check
    std::vector<fs::path> files;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
      const std::string ext = e.path().extension().string();
      if (e.is_regular_file() && (ext == ".h" || ext == ".hpp" || ext == ".cpp" || ext == ".cc"))
        files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    const std::set<std::string> allowed = allowed_layers(r.table, layer);
    for (const auto& f : files) {
      ++r.files_scanned;
      const auto lines = split_lines(read_file(f));
      for (size_t i = 0; i < lines.size(); ++i) {
        std::smatch m;
        if (!std::regex_search(lines[i], m, kInclude)) continue;
        const char open = m[1].str()[0];
        const std::string name = m[2].str();
        const auto target = resolve_include(src, f, open, name);
        if (!target) continue;
        const fs::path in_src = target->lexically_relative(src);
        if (in_src.empty() || *in_src.begin() == "..") continue;  // outside src/
        const std::string to = in_src.begin()->string();
        if (to == layer) continue;
        const std::string written = open == '"' ? "\"" + name + "\"" : "<" + name + ">";
        const int line = static_cast<int>(i) + 1;
        r.edges.push_back({rel(f, root), line, layer, to, written});
        if (allowed.count(to)) continue;
        std::string why;
        if (!r.table.has(to))
          why = "'" + to + "' is not a layer in the table of " + arch;
        else
          why = arch + " allows " + layer + " only: " + join(allowed) + " (direct: " + join(r.table.direct.at(layer)) +
                "; includes may use their transitive closure)";
        r.findings.push_back({Finding::Kind::Include, rel(f, root), line,
                              "layer '" + layer + "' includes " + written + " of layer '" + to + "', but " + why});
      }
    }
  }
}

// ---- CMake -------------------------------------------------------------------------------------

// Drops "# ..." comments (outside quoted strings), keeping the line structure.
std::string strip_cmake_comments(const std::string& text) {
  std::string out;
  bool in_string = false, in_comment = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      in_comment = false;
      out += c;
      continue;
    }
    if (in_comment) continue;
    if (c == '"' && (i == 0 || text[i - 1] != '\\')) in_string = !in_string;
    if (c == '#' && !in_string) {
      in_comment = true;
      continue;
    }
    out += c;
  }
  return out;
}

// The layer whose target this is: lbsim_<layer>, and the executable `lbsim` for the cli folder.
std::string layer_of_target(const std::string& target) {
  if (target == "lbsim") return "cli";
  // The shared library of every layer (LBSIM_SHARED_LAYERS, src/CMakeLists.txt) links them all, like
  // lbsim_link_layers(); it is not a layer.
  if (target == "lbsim_layers") return "";
  if (target.rfind("lbsim_", 0) == 0) return target.substr(6);
  return "";
}

std::string target_of_layer(const std::string& layer) { return layer == "cli" ? "lbsim" : "lbsim_" + layer; }

struct LinkSite {
  std::string file;
  int line = 0;
};

// sites: where each (layer, dependency) link is written; calls: each layer target's first call.
void scan_cmake_file(const fs::path& root, const fs::path& file, LayerReport& r,
                     std::map<std::pair<std::string, std::string>, LinkSite>& sites,
                     std::map<std::string, LinkSite>& calls) {
  const std::string text = strip_cmake_comments(read_file(file));
  static const std::regex kCall(R"(\btarget_link_libraries\s*\()", std::regex::icase);
  static const std::set<std::string> kKeywords = {"PUBLIC",      "PRIVATE",      "INTERFACE",
                                                  "LINK_PUBLIC", "LINK_PRIVATE", "LINK_INTERFACE_LIBRARIES"};
  const std::string fname = rel(file, root);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), kCall); it != std::sregex_iterator(); ++it) {
    const size_t open = static_cast<size_t>(it->position(0) + it->length(0));
    const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + it->position(0), '\n'));
    // Arguments up to the matching ')' (a call may span several lines).
    int depth = 1;
    size_t close = open;
    for (; close < text.size() && depth > 0; ++close) {
      if (text[close] == '(') ++depth;
      if (text[close] == ')') --depth;
    }
    if (depth != 0) {
      r.findings.push_back({Finding::Kind::Cmake, fname, line, "unterminated target_link_libraries("});
      continue;
    }
    std::istringstream args(text.substr(open, close - 1 - open));
    std::string target, item;
    args >> target;
    const std::string layer = layer_of_target(target);
    std::vector<std::string> deps;
    while (args >> item) {
      if (kKeywords.count(item)) continue;
      // lbsim_link_layers() links every layer into an executable through lbsim_${layer}.
      if (item.find("${") != std::string::npos) continue;
      const std::string d = layer_of_target(item);
      if (!d.empty() && item != "lbsim") deps.push_back(d);
    }
    if (target.find("${") != std::string::npos) {
      // A link inside foreach(layer ...) applies to several layers; the check cannot tell which.
      if (!deps.empty())
        r.findings.push_back({Finding::Kind::Cmake, fname, line,
                              "target_link_libraries(" + target +
                                  " ...) links a layer library through a variable target name; "
                                  "write each layer's layer dependencies out explicitly"});
      continue;
    }
    if (layer.empty()) continue;  // not a layer target (e.g. a test)
    if (!r.table.has(layer)) {
      if (!deps.empty())
        r.findings.push_back({Finding::Kind::Cmake, fname, line,
                              "target " + target + " links layer libraries, but '" + layer +
                                  "' is not a layer in docs/architecture.md's table"});
      continue;
    }
    calls.emplace(layer, LinkSite{fname, line});
    for (const auto& d : deps) {
      if (!r.table.has(d)) {
        r.findings.push_back(
            {Finding::Kind::Cmake, fname, line,
             target + " links lbsim_" + d + ", but '" + d + "' is not a layer in docs/architecture.md's table"});
        continue;
      }
      r.cmake_deps[layer].insert(d);
      sites.emplace(std::make_pair(layer, d), LinkSite{fname, line});
    }
  }
}

void check_cmake(const fs::path& root, const fs::path& src, LayerReport& r) {
  const fs::path main = src / "CMakeLists.txt";
  if (!fs::is_regular_file(main)) {
    r.findings.push_back({Finding::Kind::Cmake, "src/CMakeLists.txt", 0, "file not found"});
    return;
  }
  std::map<std::pair<std::string, std::string>, LinkSite> sites;
  std::map<std::string, LinkSite> calls;
  scan_cmake_file(root, main, r, sites, calls);
  std::vector<fs::path> extra;
  if (fs::is_directory(src))
    for (const auto& e : fs::directory_iterator(src))
      if (e.is_directory() && fs::is_regular_file(e.path() / "layer.cmake")) extra.push_back(e.path() / "layer.cmake");
  std::sort(extra.begin(), extra.end());
  for (const auto& f : extra) scan_cmake_file(root, f, r, sites, calls);

  const std::string arch = "docs/architecture.md";
  for (const auto& layer : r.table.order) {
    // The executable links every layer's objects (lbsim_link_layers: static plug-in registration
    // needs all of them); for cli only the include rule applies.
    if (layer == "cli") continue;
    const auto& want = r.table.direct.at(layer);
    const auto& have = r.cmake_deps[layer];
    const std::string target = target_of_layer(layer);
    const std::string row = arch + ":" + std::to_string(r.table.row_line.at(layer));
    // A missing link is reported at the target's first link call, if it has one.
    const LinkSite call = calls.count(layer) ? calls.at(layer) : LinkSite{"src/CMakeLists.txt", 0};
    for (const auto& d : want)
      if (!have.count(d))
        r.findings.push_back({Finding::Kind::Cmake, call.file, call.line,
                              target + " does not link lbsim_" + d + ", but " + row + " says " + layer +
                                  " depends on " + d + " (add it to target_link_libraries(" + target + " ...))"});
    for (const auto& d : have)
      if (!want.count(d)) {
        const LinkSite& s = sites.at({layer, d});
        r.findings.push_back({Finding::Kind::Cmake, s.file, s.line,
                              target + " links lbsim_" + d + ", but " + row + " does not list " + d + " among " +
                                  layer + "'s dependencies (" + join(want) + ")"});
      }
  }
}

}  // namespace

const char* kind_name(Finding::Kind k) {
  switch (k) {
    case Finding::Kind::Table:
      return "layer table";
    case Finding::Kind::Folder:
      return "layer folder";
    case Finding::Kind::Include:
      return "forbidden include";
    case Finding::Kind::UnusedDependency:
      return "unused dependency";
    case Finding::Kind::Cmake:
      return "cmake dependency";
    case Finding::Kind::PluginName:
      return "plug-in named";
    case Finding::Kind::PluginKey:
      return "plug-in key named";
    case Finding::Kind::PluginHeader:
      return "plug-in header included";
  }
  return "?";
}

std::string LayerReport::str() const {
  std::string out;
  for (const auto& f : findings)
    out += f.file + ":" + std::to_string(f.line) + ": " + kind_name(f.kind) + ": " + f.message + "\n";
  return out;
}

LayerTable parse_layer_table(const std::string& markdown, const std::string& file, std::vector<Finding>& findings) {
  LayerTable t;
  auto fail = [&](int line, const std::string& msg) { findings.push_back({Finding::Kind::Table, file, line, msg}); };
  const auto lines = split_lines(markdown);
  size_t i = 0;
  while (i < lines.size() && trim(lines[i]) != "## Layers") ++i;
  if (i == lines.size()) {
    fail(0, "no '## Layers' section (the layer table lives there)");
    return t;
  }
  // The first table of the section (it ends at the next heading).
  const int section_line = static_cast<int>(i) + 1;
  for (++i; i < lines.size() && !is_table_line(lines[i]); ++i)
    if (trim(lines[i]).rfind("#", 0) == 0) break;
  if (i == lines.size() || !is_table_line(lines[i])) {
    fail(section_line,
         "no layer table under '## Layers' (expected a header row like "
         "'| layer | what it holds | depends on |')");
    return t;
  }
  const int header_line = static_cast<int>(i) + 1;
  const auto header = split_row(lines[i]);
  int col_layer = -1, col_deps = -1;
  for (size_t c = 0; c < header.size(); ++c) {
    const std::string h = lower(header[c]);
    if (h == "layer") col_layer = static_cast<int>(c);
    if (h == "depends on") col_deps = static_cast<int>(c);
  }
  if (col_layer < 0 || col_deps < 0) {
    fail(header_line, "the table under '## Layers' has no 'layer' and 'depends on' columns");
    return t;
  }
  ++i;
  static const std::regex kSeparator(R"(^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$)");
  if (i == lines.size() || !std::regex_match(lines[i], kSeparator)) {
    fail(header_line + 1, "expected the '|---|---|' separator row after the table header");
    return t;
  }
  // Counted from the end, so that an unescaped '|' in a prose column does not shift it.
  const size_t deps_from_end = header.size() - static_cast<size_t>(col_deps);
  for (++i; i < lines.size() && is_table_line(lines[i]); ++i) {
    const int line = static_cast<int>(i) + 1;
    const auto cells = split_row(lines[i]);
    if (cells.size() < header.size()) {
      fail(line, "row has " + std::to_string(cells.size()) + " cells, the header " + std::to_string(header.size()));
      continue;
    }
    const std::string layer = strip_backticks(cells[static_cast<size_t>(col_layer)]);
    if (!std::regex_match(layer, kLayerName)) {
      fail(line, "'" + layer + "' is not a layer name (a src/ folder name)");
      continue;
    }
    if (t.has(layer)) {
      fail(line, "layer '" + layer + "' is listed twice");
      continue;
    }
    // "core, topo (graph only)": parenthesised remarks are prose, not dependencies.
    const std::string deps_cell =
        trim(std::regex_replace(cells[cells.size() - deps_from_end], std::regex(R"(\([^)]*\))"), ""));
    std::set<std::string> deps;
    if (deps_cell != "-" && !deps_cell.empty()) {
      std::istringstream in(deps_cell);
      std::string d;
      while (std::getline(in, d, ',')) {
        d = strip_backticks(d);
        if (!std::regex_match(d, kLayerName))
          fail(line, "'" + d + "' in the 'depends on' of " + layer +
                         " is not a layer name (write a comma-separated list of layers, or -)");
        else
          deps.insert(d);
      }
    }
    t.order.push_back(layer);
    t.direct[layer] = deps;
    t.row_line[layer] = line;
  }
  if (t.order.empty()) fail(header_line, "the layer table has no rows");
  for (const auto& layer : t.order)
    for (const auto& d : t.direct.at(layer)) {
      if (d == layer)
        fail(t.row_line.at(layer), "layer '" + layer + "' depends on itself");
      else if (!t.has(d))
        fail(t.row_line.at(layer), layer + " depends on '" + d + "', which is not a row of the table");
    }
  // Layers form a DAG; a cycle would make "below" meaningless.
  std::map<std::string, int> state;  // 0 new, 1 on the stack, 2 done
  std::vector<std::string> stack;
  std::function<void(const std::string&)> visit = [&](const std::string& l) {
    state[l] = 1;
    stack.push_back(l);
    for (const auto& d : t.direct.at(l)) {
      if (!t.has(d) || d == l) continue;
      if (state[d] == 1) {
        std::string cyc;
        for (auto it = std::find(stack.begin(), stack.end(), d); it != stack.end(); ++it) cyc += *it + " -> ";
        fail(t.row_line.at(l), "dependency cycle: " + cyc + d);
      } else if (state[d] == 0) {
        visit(d);
      }
    }
    stack.pop_back();
    state[l] = 2;
  };
  for (const auto& l : t.order)
    if (state[l] == 0) visit(l);
  return t;
}

std::set<std::string> allowed_layers(const LayerTable& table, const std::string& layer) {
  std::set<std::string> seen;
  if (!table.has(layer)) return seen;
  std::vector<std::string> todo(table.direct.at(layer).begin(), table.direct.at(layer).end());
  while (!todo.empty()) {
    const std::string l = todo.back();
    todo.pop_back();
    if (!seen.insert(l).second || !table.has(l)) continue;
    for (const auto& d : table.direct.at(l)) todo.push_back(d);
  }
  seen.erase(layer);  // only reachable through a cycle, which is reported separately
  return seen;
}

LayerReport check_layers(const fs::path& repo_root) {
  LayerReport r;
  const fs::path root = fs::absolute(repo_root).lexically_normal();
  const fs::path src = root / "src";
  const fs::path arch = root / "docs" / "architecture.md";
  if (!fs::is_regular_file(arch)) {
    r.findings.push_back({Finding::Kind::Table, "docs/architecture.md", 0, "file not found"});
    return r;
  }
  r.table = parse_layer_table(read_file(arch), "docs/architecture.md", r.findings);
  // Checking the code against a table that did not parse would bury the table error under
  // findings that follow from it.
  if (!r.findings.empty()) return r;

  // Folders and rows correspond one to one; an unlisted folder's includes could not be checked.
  std::set<std::string> folders;
  if (fs::is_directory(src))
    for (const auto& e : fs::directory_iterator(src))
      if (e.is_directory()) folders.insert(e.path().filename().string());
  for (const auto& f : folders)
    if (!r.table.has(f))
      r.findings.push_back({Finding::Kind::Folder, "src/" + f, 0,
                            "src/" + f + "/ is not a row of the layer table in docs/architecture.md"});
  for (const auto& l : r.table.order)
    if (!folders.count(l))
      r.findings.push_back({Finding::Kind::Folder, "docs/architecture.md", r.table.row_line.at(l),
                            "the table lists layer '" + l + "' but src/" + l + "/ does not exist"});

  scan_includes(root, src, r);

  // A listed dependency that no file includes is stale (it also forces a needless link).
  for (const auto& l : r.table.order) {
    if (!folders.count(l)) continue;
    for (const auto& d : r.table.direct.at(l)) {
      const bool used =
          std::any_of(r.edges.begin(), r.edges.end(), [&](const IncludeEdge& e) { return e.from == l && e.to == d; });
      if (!used)
        r.findings.push_back({Finding::Kind::UnusedDependency, "docs/architecture.md", r.table.row_line.at(l),
                              "the table says " + l + " depends on " + d + ", but no file under src/" + l +
                                  "/ includes a header of " + d + "; drop it from the table and from " +
                                  target_of_layer(l) + "'s target_link_libraries"});
    }
  }

  check_cmake(root, src, r);
  return r;
}

}  // namespace lbsim::archcheck
