// Plug-in check; see plugin_check.h for the rules.
#include "plugin_check.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace lbsim::archcheck {

namespace {

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool is_source(const fs::path& p) {
  const std::string ext = p.extension().string();
  return ext == ".h" || ext == ".hpp" || ext == ".cpp" || ext == ".cc";
}

// A registrar object: `RegisterLb kReps{`, `const RegisterRouting kValiant{`, `RegisterCc x(`.
bool declares_registrar(const std::string& text) {
  static const std::regex kRegistrar(R"(\bRegister[A-Z][A-Za-z]*\s+[A-Za-z_]\w*\s*[\{\(])");
  return std::regex_search(text, kRegistrar);
}

// The file of `header` that registers a plug-in (the header itself, or the .cpp of the same name
// beside it), or "" when neither does.
std::string registering_file(const fs::path& header) {
  if (declares_registrar(read_text(header))) return header.string();
  fs::path cpp = header;
  cpp.replace_extension(".cpp");
  std::error_code ec;
  if (cpp != header && fs::is_regular_file(cpp, ec) && declares_registrar(read_text(cpp))) return cpp.string();
  return "";
}

// The source with its comments replaced by spaces (newlines kept), for the include scan.
std::string code_only(const std::string& s) {
  std::string out = s;
  for (std::size_t i = 0; i < s.size();) {
    const char c = s[i];
    std::size_t end = i;
    if (c == '"') {  // a literal: a "//" inside it starts no comment
      for (++i; i < s.size() && s[i] != '"' && s[i] != '\n'; ++i)
        if (s[i] == '\\') ++i;
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      end = s.find('\n', i);
      if (end == std::string::npos) end = s.size();
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      end = s.find("*/", i + 2);
      end = end == std::string::npos ? s.size() : end + 2;
    } else {
      ++i;
      continue;
    }
    for (std::size_t k = i; k < end; ++k)
      if (out[k] != '\n') out[k] = ' ';
    i = end;
  }
  return out;
}

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Whether the 'R' at `i` opens a raw string: R"( with nothing, L, u, U or u8 before it in the same token.
bool raw_prefix(const std::string& s, std::size_t i) {
  std::size_t b = i;
  while (b > 0 && ident_char(s[b - 1])) --b;
  const std::string prefix = s.substr(b, i - b);
  return prefix.empty() || prefix == "L" || prefix == "u" || prefix == "U" || prefix == "u8";
}

}  // namespace

std::vector<Literal> string_literals(const std::string& s) {
  std::vector<Literal> out;
  int line = 1;
  const auto count_lines = [&](std::size_t from, std::size_t to) {
    line += static_cast<int>(std::count(s.begin() + static_cast<std::ptrdiff_t>(from),
                                        s.begin() + static_cast<std::ptrdiff_t>(std::min(to, s.size())), '\n'));
  };
  for (std::size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (c == '\n') {
      ++line;
      ++i;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      i = s.find('\n', i);
      if (i == std::string::npos) break;
    } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      const std::size_t end = s.find("*/", i + 2);
      const std::size_t stop = end == std::string::npos ? s.size() : end + 2;
      count_lines(i, stop);
      i = stop;
    } else if (c == 'R' && i + 1 < s.size() && s[i + 1] == '"' && raw_prefix(s, i)) {
      // R"delim( ... )delim"
      const std::size_t open = s.find('(', i + 2);
      if (open == std::string::npos) break;
      const std::string close = ")" + s.substr(i + 2, open - i - 2) + "\"";
      const std::size_t end = s.find(close, open + 1);
      const std::size_t stop = end == std::string::npos ? s.size() : end;
      out.push_back({line, s.substr(open + 1, stop - open - 1)});
      count_lines(i, stop);
      i = end == std::string::npos ? s.size() : end + close.size();
    } else if (c == '"' || c == '\'') {
      const int start_line = line;
      std::string text;
      std::size_t k = i + 1;
      for (; k < s.size() && s[k] != c && s[k] != '\n'; ++k) {
        if (s[k] == '\\' && k + 1 < s.size()) text += s[k++];
        text += s[k];
      }
      if (c == '"') out.push_back({start_line, text});
      i = k + 1;
    } else {
      ++i;
    }
  }
  return out;
}

std::string PluginReport::str() const {
  std::string out;
  for (const auto& f : findings)
    out += f.file + ":" + std::to_string(f.line) + ": " + kind_name(f.kind) + ": " + f.message + "\n";
  return out;
}

PluginReport check_plugin_names(const fs::path& repo_root, const PluginNames& names,
                                const std::vector<std::string>& folders) {
  PluginReport r;
  const fs::path root = fs::absolute(repo_root).lexically_normal();
  const fs::path src = root / "src";
  static const std::regex kInclude(R"(^\s*#\s*include\s*([<"])([^">]+)[">])");
  for (const auto& folder : folders) {
    const fs::path dir = src / folder;
    if (!fs::is_directory(dir)) {
      r.findings.push_back({Finding::Kind::Folder, "src/" + folder, 0, "folder not found"});
      continue;
    }
    std::vector<fs::path> files;
    for (const auto& e : fs::recursive_directory_iterator(dir))
      if (e.is_regular_file() && is_source(e.path())) files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      ++r.files_scanned;
      const std::string file = f.lexically_relative(root).generic_string();
      const std::string text = read_text(f);
      for (const auto& lit : string_literals(text)) {
        ++r.literals_scanned;
        if (const auto it = names.names.find(lit.text); it != names.names.end()) {
          r.findings.push_back({Finding::Kind::PluginName, file, lit.line,
                                "\"" + lit.text + "\" names the " + it->second + " '" + lit.text +
                                    "': reach it through its registry and hooks (docs/architecture.md)"});
          continue;
        }
        if (const auto it = names.keys.find(lit.text); it != names.keys.end()) {
          r.findings.push_back({Finding::Kind::PluginKey, file, lit.line,
                                "\"" + lit.text + "\" is a key of the plug-in '" + it->second +
                                    "': only the plug-in reads its keys (give it a hook instead)"});
          continue;
        }
        if (lit.text.size() >= 2 && lit.text.back() == '_') {
          std::vector<std::string> family;
          for (const auto& [name, what] : names.names)
            if (name.rfind(lit.text, 0) == 0) family.push_back(name);
          if (!family.empty()) {
            std::string list;
            for (const auto& n : family) list += (list.empty() ? "" : ", ") + n;
            r.findings.push_back({Finding::Kind::PluginName, file, lit.line,
                                  "\"" + lit.text + "\" names plug-ins by their prefix (" + list + ")"});
          }
        }
      }
      // Includes (outside comments) of a plug-in's header.
      std::istringstream lines(code_only(text));
      std::string line;
      for (int n = 1; std::getline(lines, line); ++n) {
        std::smatch m;
        if (!std::regex_search(line, m, kInclude)) continue;
        ++r.includes_scanned;
        const std::string name = m[2].str();
        std::vector<fs::path> candidates;
        if (m[1].str() == "\"") candidates.push_back(f.parent_path() / name);
        candidates.push_back(src / name);
        for (const auto& c : candidates) {
          const fs::path h = c.lexically_normal();
          std::error_code ec;
          if (!fs::is_regular_file(h, ec)) continue;
          const std::string reg = registering_file(h);
          if (!reg.empty())
            r.findings.push_back({Finding::Kind::PluginHeader, file, n,
                                  "includes \"" + name + "\", the header of the plug-in(s) registered in " +
                                      fs::path(reg).lexically_relative(root).generic_string()});
          break;
        }
      }
    }
  }
  return r;
}

}  // namespace lbsim::archcheck
