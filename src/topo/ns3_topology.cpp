// `ns3`: a network read from an HPCC / ns-3 topology file (issue 18 "Faithful imports": HPCC users
// bring their networks). Format (HPCC simulation/mix/*.txt, e.g. data/ns3-hpcc/fat.txt):
//   <nodes> <switches> <links>
//   <switch node id> ... (the switch ids, whitespace separated, possibly over several lines)
//   <a> <b> <rate> <delay> <error_rate>      one line per link, e.g. "0 320 100Gbps 1000ns 0.000000"
// Every node id that is not a switch is a host; host h is the h-th host id in increasing order (the
// mapping the `ns3` workload reader uses, so flow files address the same hosts). Hosts come first,
// then the switches in the order of the switch-id line; nodes are labelled "n<id>" with the file's
// ids. Each host must have exactly one link, to a switch (its port 0); links are connected in file
// order, so a switch's ports follow the file. Rates take bps/Kbps/Mbps/Gbps/Tbps, delays
// s/ms/us/ns/ps. A non-zero error rate is refused (random loss is configured with [failures]).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <fmt/core.h>

#include "core/error.h"
#include "topo/registry.h"

namespace lbsim::topo {

namespace {

struct Reader {
  std::string path;
  std::ifstream in;
  int line = 0;
  std::istringstream cur;

  explicit Reader(std::string p) : path(std::move(p)), in(path) {
    if (!in) throw UserError(fmt::format("{}: cannot open file for reading (topology.file)", path));
  }
  [[noreturn]] void fail(const std::string& msg) const { throw UserError(fmt::format("{}:{}: {}", path, line, msg)); }
  // The next whitespace-separated token, across lines ("" at the end of the file).
  std::string token() {
    std::string t;
    while (!(cur >> t)) {
      std::string l;
      if (!std::getline(in, l)) return "";
      ++line;
      cur.clear();
      cur.str(l);
    }
    return t;
  }
  // The next non-empty line, split into tokens (empty at the end of the file).
  std::vector<std::string> next_line() {
    std::string l;
    while (std::getline(in, l)) {
      ++line;
      std::istringstream ls(l);
      std::vector<std::string> out;
      for (std::string t; ls >> t;) out.push_back(t);
      if (!out.empty()) return out;
    }
    return {};
  }
  std::int64_t integer(const std::string& t, const char* what) const {
    std::size_t used = 0;
    long long v = 0;
    try {
      v = std::stoll(t, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != t.size() || t.empty()) fail(fmt::format("{} '{}': expected an integer", what, t));
    return v;
  }
  // The number at the start of `t` and the text after it (used = 0: no number).
  double number(const std::string& t, std::size_t& used) const {
    used = 0;
    try {
      return std::stod(t, &used);
    } catch (const std::exception&) {
      used = 0;
      return 0;
    }
  }
  // "100Gbps" -> 1e11; "1000ns" -> 1000 (unit scale given per suffix, in the base unit).
  double quantity(const std::string& t, const char* what,
                  std::initializer_list<std::pair<const char*, double>> units) const {
    std::size_t used = 0;
    const double v = number(t, used);
    const std::string unit = used > 0 ? t.substr(used) : "";
    for (const auto& [u, scale] : units)
      if (used > 0 && unit == u && std::isfinite(v) && v >= 0) return v * scale;
    std::string list;
    for (const auto& [u, scale] : units) list += (list.empty() ? "" : ", ") + std::string(u);
    fail(fmt::format("{} '{}': expected a non-negative number with a unit ({})", what, t, list));
  }
};

struct Header {
  std::int64_t nodes = 0, switches = 0, links = 0;
};

Header read_header(Reader& r) {
  const auto h = r.next_line();
  if (h.size() != 3) r.fail("expected the first line '<nodes> <switches> <links>' of an HPCC/ns-3 topology file");
  Header out{r.integer(h[0], "node count"), r.integer(h[1], "switch count"), r.integer(h[2], "link count")};
  if (out.nodes < 1 || out.switches < 1 || out.switches >= out.nodes || out.links < 1 || out.nodes > (1 << 24) ||
      out.links > (1LL << 28))
    r.fail(fmt::format("counts {} nodes, {} switches, {} links: expected 1 <= switches < nodes <= 2^24 and links >= 1",
                       out.nodes, out.switches, out.links));
  return out;
}

Topology build_ns3(const config::Config& c) {
  Reader r(c.path("topology.file"));
  const Header h = read_header(r);
  const auto nodes = static_cast<std::size_t>(h.nodes);
  // Switch ids in file order; position of each node: switch index or host index.
  std::vector<std::int32_t> switch_ids;
  std::vector<char> is_switch(nodes, 0);
  for (std::int64_t i = 0; i < h.switches; ++i) {
    const std::string t = r.token();
    if (t.empty()) r.fail(fmt::format("expected {} switch ids, found {}", h.switches, i));
    const std::int64_t id = r.integer(t, "switch id");
    if (id < 0 || id >= h.nodes) r.fail(fmt::format("switch id {} is outside 0..{}", id, h.nodes - 1));
    if (is_switch[static_cast<std::size_t>(id)]) r.fail(fmt::format("switch id {} listed twice", id));
    is_switch[static_cast<std::size_t>(id)] = 1;
    switch_ids.push_back(static_cast<std::int32_t>(id));
  }
  r.cur.str("");  // the links start on a new line
  r.cur.clear();
  std::vector<std::int32_t> node_of(nodes, -1);  // file id -> lbsim node id
  Topology t;
  t.kind = "ns3";
  for (std::size_t id = 0; id < nodes; ++id)
    if (!is_switch[id]) node_of[id] = t.add_host(fmt::format("n{}", id));
  for (std::size_t s = 0; s < switch_ids.size(); ++s)
    node_of[static_cast<std::size_t>(switch_ids[s])] = t.add_switch(fmt::format("n{}", switch_ids[s]));

  std::vector<int> host_links(nodes, 0);
  for (std::int64_t i = 0; i < h.links; ++i) {
    const auto f = r.next_line();
    if (f.empty()) r.fail(fmt::format("expected {} links, found {}", h.links, i));
    if (f.size() != 5) r.fail("expected a link '<a> <b> <rate> <delay> <error_rate>'");
    const std::int64_t a = r.integer(f[0], "node"), b = r.integer(f[1], "node");
    for (const std::int64_t n : {a, b})
      if (n < 0 || n >= h.nodes) r.fail(fmt::format("node {} is outside 0..{}", n, h.nodes - 1));
    if (a == b) r.fail(fmt::format("link from node {} to itself", a));
    const double bps =
        r.quantity(f[2], "rate", {{"bps", 1}, {"Kbps", 1e3}, {"Mbps", 1e6}, {"Gbps", 1e9}, {"Tbps", 1e12}});
    const double ns = r.quantity(f[3], "delay", {{"s", 1e9}, {"ms", 1e6}, {"us", 1e3}, {"ns", 1}, {"ps", 1e-3}});
    if (bps < 1e6) r.fail(fmt::format("rate '{}': expected at least 1 Mbps", f[2]));
    if (ns > 1e12) r.fail(fmt::format("delay '{}': expected at most 1000 s", f[3]));
    std::size_t used = 0;
    const double err = r.number(f[4], used);
    if (used != f[4].size() || !(err >= 0 && err <= 1))
      r.fail(fmt::format("error rate '{}': expected a number in [0, 1]", f[4]));
    if (err > 0)
      r.fail(
          fmt::format("error rate {}: random loss on a link is not read from the topology file; set it with "
                      "[failures] (docs/failures) and write 0 here",
                      f[4]));
    const bool ha = !is_switch[static_cast<std::size_t>(a)], hb = !is_switch[static_cast<std::size_t>(b)];
    if (ha && hb) r.fail(fmt::format("link between two hosts ({} and {}); a host links to one switch", a, b));
    for (const std::int64_t n : {a, b})
      if (!is_switch[static_cast<std::size_t>(n)] && ++host_links[static_cast<std::size_t>(n)] > 1)
        r.fail(fmt::format("host node {} has a second link; each host links to exactly one switch", n));
    // The host's side first, so that its link is its port 0.
    const std::int64_t x = hb ? b : a, y = hb ? a : b;
    t.connect(node_of[static_cast<std::size_t>(x)], node_of[static_cast<std::size_t>(y)],
              static_cast<BitsPerSec>(std::llround(bps)), from_ns(ns), ha || hb ? LinkKind::HostLink : LinkKind::Local);
  }
  if (!r.next_line().empty()) r.fail(fmt::format("more than the {} links declared on the first line", h.links));
  for (std::size_t id = 0; id < nodes; ++id)
    if (!is_switch[id] && host_links[id] == 0)
      throw UserError(
          fmt::format("{}: host node {} has no link (every node that is not a switch is a host)", r.path, id));
  t.set_param("file", c.path("topology.file"));
  return t;
}

// Sizes from the first line alone (the memory guard runs before the build).
TopologySize ns3_size(const config::Config& c) {
  Reader r(c.path("topology.file"));
  const Header h = read_header(r);
  TopologySize s;
  s.switches = static_cast<double>(h.switches);
  s.hosts = static_cast<double>(h.nodes - h.switches);
  s.links = static_cast<double>(h.links);
  s.next_hops = 2;
  // An estimate (the links are not read here; memory guard: BDP-sized queues, trace entry counts): runs
  // use Topology::host_rate() of the built links.
  s.host_rate_bps = 100e9;
  s.keys = "topology.file";
  return s;
}

using namespace config;
const RegisterTopology kNs3{
    {{"ns3",
      "A network read from an HPCC/ns-3 topology file (topology.file: node/switch/link counts, switch ids, links with "
      "rate and delay; docs/topologies.md).",
      {file("topology.file", "ns3: the HPCC/ns-3 topology file (e.g. HPCC's simulation/mix/fat.txt).")},
      {}},
     &build_ns3,
     &ns3_size}};

}  // namespace

}  // namespace lbsim::topo
