// Parsers of the OpenSM files that opensm.cpp writes (lfts.dump, guid2lid, opensm.conf, path-sl.txt,
// sl2vl dump), with file:line errors; the install-and-walk check reads its tables through them. See opensm.h.
#include "analysis/opensm.h"

#include <array>
#include <cstdlib>
#include <sstream>

#include <fmt/core.h>
#include <fmt/format.h>

#include "core/error.h"

namespace lbsim::analysis {

// ============================================================================ parsers

namespace {

[[noreturn]] void fail(const std::string& src, long line, const std::string& msg) {
  throw UserError(fmt::format("{}:{}: {}", src, line, msg));
}

// Calls fn(line_number, line) for every line (without '\n'; a trailing '\r' removed).
template <class Fn>
void for_lines(std::string_view text, Fn fn, long first = 0) {
  long ln = first;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view l = text.substr(pos, nl - pos);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    fn(++ln, l);
    pos = nl + 1;
  }
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// strtoull-like: digits of `base` from position i (no sign, no "0x" here); returns chars consumed.
std::size_t read_number(std::string_view s, std::size_t i, int base, unsigned long long& v) {
  // Digit values by character (-1: not a digit); hex letters in either case.
  static const auto kDigit = [] {
    std::array<signed char, 256> d{};
    d.fill(-1);
    for (int c = '0'; c <= '9'; ++c) d[static_cast<std::size_t>(c)] = static_cast<signed char>(c - '0');
    for (int c = 'a'; c <= 'f'; ++c)
      d[static_cast<std::size_t>(c)] = d[static_cast<std::size_t>(c - 'a' + 'A')] =
          static_cast<signed char>(10 + c - 'a');
    return d;
  }();
  const unsigned long long b = static_cast<unsigned long long>(base);
  std::size_t j = i;
  v = 0;
  while (j < s.size()) {
    const int d = kDigit[static_cast<unsigned char>(s[j])];
    if (d < 0 || d >= base) break;
    // 0 (no number) when the value does not fit.
    if (__builtin_mul_overflow(v, b, &v) || __builtin_add_overflow(v, static_cast<unsigned long long>(d), &v)) return 0;
    ++j;
  }
  return j - i;
}

std::string guid_hex(unsigned long long v) { return fmt::format("{:016x}", v); }

}  // namespace

std::vector<LftDumpSwitch> parse_lfts_dump(std::string_view text, const std::string& src, long line_offset) {
  std::vector<LftDumpSwitch> out;
  for_lines(
      text,
      [&](long ln, std::string_view l) {
        std::size_t p = 0;
        while (p < l.size() && is_space(l[p])) ++p;
        const std::string_view r = l.substr(p);
        if (r.empty() || r[0] == '#') return;
        if (r.rfind("Multicast mlids", 0) == 0)
          fail(src, ln, "multicast dump detected (OpenSM ERR 6303: not an LFT file)");
        if (r.rfind("Unicast lids", 0) == 0) {
          const auto g = r.find(" guid 0x");
          if (g == std::string_view::npos) fail(src, ln, "cannot parse switch definition (no ' guid 0x<hex>')");
          unsigned long long v = 0;
          const std::size_t used = read_number(r, g + 8, 16, v);
          if (used == 0 || g + 8 + used >= r.size() || !is_space(r[g + 8 + used]))
            fail(src, ln, "cannot parse switch guid (hex digits followed by a blank expected)");
          out.push_back({guid_hex(v), static_cast<int>(ln), {}});
          return;
        }
        if (out.empty() || r.rfind("0x", 0) != 0) return;  // OpenSM ignores every other line
        unsigned long long lid = 0, port = 0;
        std::size_t i = 2;
        std::size_t used = read_number(r, i, 16, lid);
        if (used == 0 || i + used >= r.size() || !is_space(r[i + used])) fail(src, ln, "cannot parse lid");
        i += used;
        while (i < r.size() && is_space(r[i])) ++i;
        used = read_number(r, i, 10, port);
        if (used == 0 || i + used >= r.size() || !is_space(r[i + used])) fail(src, ln, "cannot parse port");
        i += used;
        if (lid > 0xFFFF) fail(src, ln, fmt::format("LID {:#x} is beyond 16 bits", lid));
        if (port > 255) fail(src, ln, fmt::format("port {} is beyond 8 bits", port));
        LftEntry e;
        e.lid = static_cast<int>(lid);
        e.port = static_cast<std::uint16_t>(port);
        const auto pg = r.find(" portguid 0x", i);
        if (pg != std::string_view::npos) {
          unsigned long long g = 0;
          const std::size_t gu = read_number(r, pg + 12, 16, g);
          // OpenSM takes the GUID when it ends at a blank or ':' and ignores it (warning) otherwise.
          if (gu > 0 && pg + 12 + gu < r.size() && (is_space(r[pg + 12 + gu]) || r[pg + 12 + gu] == ':')) {
            e.port_guid = g;
            e.has_port_guid = true;
          }
        }
        out.back().entries.push_back(e);
      },
      line_offset);
  return out;
}

std::map<std::string, std::pair<int, int>> parse_guid2lid(std::string_view text, const std::string& src) {
  std::map<std::string, std::pair<int, int>> out;
  std::map<std::string, long> line_of;
  bool in_key = false;
  std::string key, value;
  long key_line = 0;
  auto finish = [&]() {
    // The key must be a number (osm_db_restore), here a GUID; the value "<min> <max>" (unpack_lids).
    std::string_view k = key;
    if (k.rfind("0x", 0) == 0 || k.rfind("0X", 0) == 0) k.remove_prefix(2);
    unsigned long long g = 0;
    if (k.empty() || read_number(k, 0, 16, g) != k.size())
      fail(src, key_line, fmt::format("key '{}' is not a GUID", key));
    std::istringstream vs(value);
    std::string a, b;
    vs >> a >> b;
    auto num = [&](const std::string& t) {
      char* end = nullptr;
      const unsigned long v = std::strtoul(t.c_str(), &end, 0);
      if (t.empty() || *end != '\0' || v > 0xFFFF) fail(src, key_line, fmt::format("'{}' is not a LID", t));
      return static_cast<int>(v);
    };
    if (b.empty()) fail(src, key_line, fmt::format("entry {} needs '<min lid> <max lid>', got '{}'", key, value));
    const int mn = num(a), mx = num(b);
    if (mn < 1 || mx < mn || mx > kMaxUnicastLid)
      fail(src, key_line, fmt::format("LID range {:#x}-{:#x} of {} is not a unicast range", mn, mx, key));
    const std::string gk = guid_hex(g);
    if (auto it = line_of.find(gk); it != line_of.end())
      fail(src, key_line, fmt::format("GUID {} is listed twice (first at line {})", gk, it->second));
    line_of[gk] = key_line;
    out[gk] = {mn, mx};
    in_key = false;
  };
  for_lines(text, [&](long ln, std::string_view l) {
    if (!in_key) {
      if (l.empty()) return;
      if (l[0] == ' ' || l[0] == '\t') fail(src, ln, "an entry must start at column 0 (osm_db format)");
      const auto sp = l.find_first_of(" \t");
      key = std::string(l.substr(0, sp));
      value = sp == std::string_view::npos ? "" : std::string(l.substr(sp + 1));
      key_line = ln;
      in_key = true;
      return;
    }
    if (l.empty()) {
      finish();
      return;
    }
    value += " " + std::string(l);
  });
  if (in_key) finish();
  return out;
}

std::map<std::string, std::string> parse_opensm_conf(std::string_view text, const std::string& src) {
  std::map<std::string, std::string> out;
  for_lines(text, [&](long ln, std::string_view l) {
    std::size_t p = 0;
    while (p < l.size() && is_space(l[p])) ++p;
    if (p == l.size() || l[p] == '#') return;
    std::size_t q = p;
    while (q < l.size() && !is_space(l[q])) ++q;
    const std::string key(l.substr(p, q - p));
    while (q < l.size() && is_space(l[q])) ++q;
    std::string val(l.substr(q));
    while (!val.empty() && is_space(val.back())) val.pop_back();
    if (val.empty()) fail(src, ln, fmt::format("option '{}' has no value", key));
    if (out.count(key)) fail(src, ln, fmt::format("option '{}' is set twice", key));
    out[key] = val;
  });
  return out;
}

namespace {

// The next blank-separated word of l from position i on (empty at the end), as istream >> string.
std::string_view next_word(std::string_view l, std::size_t& i) {
  while (i < l.size() && is_space(l[i])) ++i;
  const std::size_t b = i;
  while (i < l.size() && !is_space(l[i])) ++i;
  return l.substr(b, i - b);
}

// A whole word as a (small) decimal int with an optional sign; false if it is not one.
bool small_int(std::string_view w, int& v) {
  std::size_t k = 0;
  const bool neg = !w.empty() && w[0] == '-';
  if (!w.empty() && (w[0] == '-' || w[0] == '+')) k = 1;
  if (k == w.size() || w.size() - k > 9) return false;
  long x = 0;
  for (; k < w.size(); ++k) {
    if (w[k] < '0' || w[k] > '9') return false;
    x = x * 10 + (w[k] - '0');
  }
  v = static_cast<int>(neg ? -x : x);
  return true;
}

}  // namespace

PathSlTable parse_path_sl(std::string_view text, const std::string& src) {
  PathSlTable t;
  std::vector<int>* cur = nullptr;
  for_lines(text, [&](long ln, std::string_view l) {
    if (l.empty() || l[0] == '#') return;
    std::size_t i = 0;
    const std::string_view w = next_word(l, i);
    if (w == "scheme") {
      t.scheme = std::string(next_word(l, i));
      return;
    }
    if (w == "switch") {
      const std::string_view g = next_word(l, i);
      unsigned long long v = 0;
      if (g.rfind("0x", 0) != 0 || read_number(g, 2, 16, v) != g.size() - 2)
        fail(src, ln, fmt::format("bad switch GUID '{}'", g));
      cur = &t.by_switch[guid_hex(v)];
      return;
    }
    if (!cur) fail(src, ln, "LID range before the first 'switch' line");
    const auto dash = w.find('-');
    // Named strings: strtol's end pointer must point into a string that is still alive when read.
    const std::string lo(w.substr(0, dash)),
        hi = dash == std::string_view::npos ? std::string() : std::string(w.substr(dash + 1));
    char* end = nullptr;
    const long a = std::strtol(lo.c_str(), &end, 0);
    if (lo.empty() || *end != '\0') fail(src, ln, fmt::format("bad LID range '{}'", w));
    const long b = dash == std::string_view::npos ? a : std::strtol(hi.c_str(), &end, 0);
    if ((dash != std::string_view::npos && hi.empty()) || *end != '\0' || a < 1 || b < a || b > kMaxUnicastLid)
      fail(src, ln, fmt::format("bad LID range '{}'", w));
    if (static_cast<long>(cur->size()) <= b) cur->resize(static_cast<std::size_t>(b) + 1, -1);
    for (long lid = a; lid <= b; ++lid) {
      int sl = -1;
      if (!small_int(next_word(l, i), sl) || sl < 0 || sl > 15)
        fail(src, ln, fmt::format("expected {} SLs (0..15) for {}", b - a + 1, w));
      (*cur)[static_cast<std::size_t>(lid)] = sl;
    }
    if (const std::string_view extra = next_word(l, i); !extra.empty())
      fail(src, ln, fmt::format("more SLs than LIDs in {}", extra));
  });
  return t;
}

Sl2VlDump parse_sl2vl_dump(std::string_view text, const std::string& src) {
  Sl2VlDump d;
  std::map<std::pair<int, int>, std::array<int, 16>>* cur = nullptr;
  for_lines(text, [&](long ln, std::string_view l) {
    if (l.empty() || l[0] == '#') return;
    if (l.rfind("Switch 0x", 0) == 0 || l.rfind("Channel Adapter 0x", 0) == 0 || l.rfind("Router 0x", 0) == 0) {
      const auto at = l.find("0x");
      unsigned long long v = 0;
      const std::size_t used = read_number(l, at + 2, 16, v);
      if (used == 0 || at + 2 + used >= l.size() || l[at + 2 + used] != ',')
        fail(src, ln, "expected '<type> 0x<guid>, base LID ...'");
      cur = &d.by_guid[guid_hex(v)];
      return;
    }
    if (!cur) fail(src, ln, "table row before the first port header");
    std::istringstream in{std::string(l)};
    int a = -1, b = -1;
    std::string colon;
    if (!(in >> a >> b >> colon) || colon != ":" || a < 0 || b < 0 || a > 255 || b > 255)
      fail(src, ln, "expected '<in port> <out port> : <16 VLs>'");
    std::array<int, 16> vl{};
    for (auto& v : vl)
      if (!(in >> v) || v < 0 || v > 15) fail(src, ln, "expected 16 VLs (0..15)");
    if (!cur->emplace(std::make_pair(a, b), vl).second) fail(src, ln, fmt::format("row {} {} listed twice", a, b));
  });
  return d;
}

}  // namespace lbsim::analysis
