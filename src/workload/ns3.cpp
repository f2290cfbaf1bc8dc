#include "workload/ns3.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "workload/parse_util.h"
#include "workload/registry.h"

namespace lbsim::workload {

using namespace detail;

std::vector<std::int32_t> parse_ns3_switch_ids(std::istream& in, std::string_view path) {
  std::string line;
  int lineno = 0;
  std::int64_t nodes = -1, switches = -1;
  std::vector<std::int32_t> ids;
  while (std::getline(in, line)) {
    ++lineno;
    const Where at{path, lineno};
    const auto tok = split_ws(trim(line));
    if (tok.empty()) continue;
    if (nodes < 0) {
      if (tok.size() < 2) fail(at, "expected '<nodes> <switches> <links>' on the first line of an HPCC topology file");
      nodes = parse_nonneg_int(tok[0], "node count", at);
      switches = parse_nonneg_int(tok[1], "switch count", at);
      if (switches == 0) return ids;
      continue;
    }
    for (auto t : tok) {
      const auto id = parse_nonneg_int(t, "switch id", at);
      if (id >= nodes) fail(at, fmt::format("switch id {} >= node count {}", id, nodes));
      ids.push_back(static_cast<std::int32_t>(id));
    }
    if (static_cast<std::int64_t>(ids.size()) > switches)
      fail(at, fmt::format("more switch ids than the {} declared on line 1", switches));
    if (static_cast<std::int64_t>(ids.size()) == switches) return ids;
  }
  fail(Where{path, lineno}, fmt::format("expected {} switch ids, found {}", switches < 0 ? 0 : switches, ids.size()));
}

std::vector<std::int32_t> read_ns3_switch_ids(const std::string& path) {
  auto in = open_input(path);
  return parse_ns3_switch_ids(in, path);
}

Workload parse_ns3_flows(std::istream& in, std::string_view name, const Ns3FlowParams& p, std::int32_t num_hosts,
                         std::vector<std::string>* warnings) {
  std::vector<std::int32_t> sw = p.switch_ids;
  std::sort(sw.begin(), sw.end());
  auto to_host = [&](std::int64_t node, const char* field, const Where& at) -> std::int32_t {
    if (node < 0) fail(at, fmt::format("{} node {} is negative", field, node));
    if (sw.empty()) {
      check_host(node, num_hosts, field, at);
      return static_cast<std::int32_t>(node);
    }
    const auto it = std::lower_bound(sw.begin(), sw.end(), node);
    if (it != sw.end() && *it == node)
      fail(at, fmt::format("{} node {} is a switch; flows must start and end at hosts", field, node));
    const std::int64_t host = node - (it - sw.begin());
    check_host(host, num_hosts, field, at);
    return static_cast<std::int32_t>(host);
  };

  Workload w;
  std::string line;
  int lineno = 0, count_line = 0;
  std::int64_t declared = -1;
  int trailing = 0, first_trailing = 0;
  while (std::getline(in, line)) {
    ++lineno;
    const Where at{name, lineno};
    const auto s = trim(strip_comment(line, "#"));
    if (s.empty()) continue;
    if (declared >= 0 && static_cast<std::int64_t>(w.flows.size()) == declared) {
      if (trailing++ == 0) first_trailing = lineno;
      continue;
    }
    const auto tok = split_ws(s);
    if (declared < 0) {
      if (tok.size() != 1) fail(at, "expected the number of flows alone on the first line");
      declared = parse_nonneg_int(tok[0], "flow count", at);
      count_line = lineno;
      continue;
    }
    if (tok.size() != 6)
      fail(at, fmt::format("{} fields; expected '<src> <dst> <pg> <dport> <bytes> <start_s>'", tok.size()));
    FlowSpec f;
    f.src = to_host(parse_int(tok[0], "src", at), "src", at);
    f.dst = to_host(parse_int(tok[1], "dst", at), "dst", at);
    const auto pg = parse_nonneg_int(tok[2], "priority group", at);
    (void)parse_nonneg_int(tok[3], "dport", at);
    f.bytes = parse_nonneg_int(tok[4], "bytes", at);
    const double start_s = parse_double(tok[5], "start time", at);
    if (start_s < 0) fail(at, fmt::format("start time {} s is negative", start_s));
    if (!fits_sim_time(start_s * 1e12))
      fail(at, fmt::format("start time {} s is beyond the largest simulated time (9e6 s)", start_s));
    f.start = static_cast<SimTime>(std::llround(start_s * 1e12));
    if (f.src == f.dst) fail(at, fmt::format("src and dst are the same host {}", f.src));
    if (p.tag_priority_group) f.tag = w.tag(fmt::format("pg{}", pg));
    f.lb = p.lb;
    w.flows.push_back(std::move(f));
  }
  if (declared < 0) fail(Where{name, 0}, "empty file; expected the number of flows on the first line");
  if (static_cast<std::int64_t>(w.flows.size()) < declared)
    fail(Where{name, count_line}, fmt::format("declares {} flows but the file has only {}", declared, w.flows.size()));
  if (trailing > 0 && warnings)
    warnings->push_back(fmt::format("{}:{}: ignored {} line(s) after the {} flows declared on line {}", name,
                                    first_trailing, trailing, declared, count_line));
  return w;
}

Workload read_ns3_flows(const Ns3FlowParams& p, std::int32_t num_hosts, std::vector<std::string>* warnings) {
  Ns3FlowParams q = p;
  if (q.switch_ids.empty() && !q.topology_path.empty()) q.switch_ids = read_ns3_switch_ids(q.topology_path);
  auto in = open_input(p.path);
  return parse_ns3_flows(in, p.path, q, num_hosts, warnings);
}

namespace {
using namespace config;
const RegisterWorkload kNs3{
    {{"ns3",
      "An HPCC/ns-3 flow file (src dst pg dport bytes start_s), node ids mapped to hosts (docs/workloads.md).",
      {file("workload.ns3_topology",
            "ns3: HPCC topology file giving the switch node ids (default: topology.file when topology.kind = \"ns3\"; "
            "otherwise node ids are hosts first).")},
      {}},
     [](const WorkloadContext& c) {
       Ns3FlowParams p;
       p.path = c.cfg.path("workload.file");
       p.topology_path = c.cfg.path("workload.ns3_topology");
       // A network read from an ns-3 topology file (topology.kind = "ns3") gives the switch ids too.
       if (p.topology_path.empty() && c.cfg.text("topology.kind") == "ns3")
         p.topology_path = c.cfg.path("topology.file");
       return read_ns3_flows(p, c.topo.num_hosts, c.warnings);
     },
     &file_entries,
     true}};
}  // namespace

}  // namespace lbsim::workload
