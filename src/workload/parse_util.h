// Small helpers shared by the workload readers (CSV flow lists, CDF files, ns-3 flow files, htsim
// connection matrices, GOAL schedules). Every reader reports user errors the same way:
// "<file>:<line>: <what was wrong>; expected <what is allowed>" as an lbsim::UserError, so a user can
// jump to the offending line (docs/reliability.md: errors name file, line and what was expected).
#pragma once
#include <fmt/format.h>

#include <charconv>
#include <cstdint>
#include <fstream>
#include <istream>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "core/error.h"

namespace lbsim::workload::detail {

// A source position for error messages. `line` is 1-based; 0 means "the whole file".
struct Where {
  std::string_view file;
  int line = 0;
};

[[noreturn]] inline void fail(const Where& w, const std::string& msg) {
  if (w.line > 0) throw UserError(fmt::format("{}:{}: {}", w.file, w.line, msg));
  throw UserError(fmt::format("{}: {}", w.file, msg));
}

inline std::string_view trim(std::string_view s) {
  const char* ws = " \t\r\n\f\v";
  const auto b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(ws);
  return s.substr(b, e - b + 1);
}

// Drops everything from the first occurrence of `marker` (a comment) to the end of the line.
inline std::string_view strip_comment(std::string_view s, std::string_view marker) {
  const auto p = s.find(marker);
  return p == std::string_view::npos ? s : s.substr(0, p);
}

inline std::vector<std::string_view> split_ws(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) ++i;
    std::size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t' && s[j] != '\r') ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

inline std::vector<std::string_view> split_char(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (;;) {
    const auto p = s.find(sep, start);
    out.push_back(trim(s.substr(start, p == std::string_view::npos ? std::string_view::npos : p - start)));
    if (p == std::string_view::npos) break;
    start = p + 1;
  }
  return out;
}

// Whole-token integer parse; the error says which field was wrong and what it held.
inline std::int64_t parse_int(std::string_view tok, std::string_view field, const Where& w) {
  std::int64_t v = 0;
  const char* b = tok.data();
  const char* e = tok.data() + tok.size();
  if (!tok.empty() && *b == '+') ++b;
  auto [p, ec] = std::from_chars(b, e, v);
  if (tok.empty() || ec != std::errc() || p != e) fail(w, fmt::format("{} '{}' is not an integer", field, tok));
  return v;
}

inline std::int64_t parse_nonneg_int(std::string_view tok, std::string_view field, const Where& w) {
  const std::int64_t v = parse_int(tok, field, w);
  if (v < 0) fail(w, fmt::format("{} {} is negative; expected a value >= 0", field, v));
  return v;
}

inline double parse_double(std::string_view tok, std::string_view field, const Where& w) {
  double v = 0;
  const char* b = tok.data();
  const char* e = tok.data() + tok.size();
  if (!tok.empty() && *b == '+') ++b;
  auto [p, ec] = std::from_chars(b, e, v);
  if (tok.empty() || ec != std::errc() || p != e || !(v == v) || v == std::numeric_limits<double>::infinity() ||
      v == -std::numeric_limits<double>::infinity())
    fail(w, fmt::format("{} '{}' is not a finite number", field, tok));
  return v;
}

inline std::ifstream open_input(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw UserError(fmt::format("{}: cannot open file for reading", path));
  return in;
}

// Checks a host id read from a file against the number of hosts of the topology (0 = unknown: only
// non-negativity is checked, so readers stay usable before the topology is built).
inline void check_host(std::int64_t h, std::int32_t num_hosts, std::string_view field, const Where& w) {
  if (h < 0) fail(w, fmt::format("{} {} is negative; expected a host id >= 0", field, h));
  if (num_hosts > 0 && h >= num_hosts)
    fail(w, fmt::format("{} {} is out of range; the topology has {} hosts (ids 0..{})", field, h, num_hosts,
                        num_hosts - 1));
  if (h > std::numeric_limits<std::int32_t>::max()) fail(w, fmt::format("{} {} is too large", field, h));
}

}  // namespace lbsim::workload::detail
