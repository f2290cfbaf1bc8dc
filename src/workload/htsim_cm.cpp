#include "workload/htsim_cm.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "workload/parse_util.h"
#include "workload/validate.h"
#include "workload/registry.h"

namespace lbsim::workload {

using namespace detail;

namespace {

enum class TrigType { kOneshot, kMultishot, kBarrier };

struct TriggerDef {
  TrigType type = TrigType::kOneshot;
  std::int64_t count = 0;
  int line = 0;
};

struct Conn {
  int line = 0;
  double start = -1;                  // the `start` value as written (unit not applied yet), -1 without one
  std::int64_t trigger = 0;           // 0 = none
  std::vector<std::int64_t> signals;  // triggers this connection signals on completion
};

}  // namespace

Workload parse_htsim_cm(std::istream& in, std::string_view name, const HtsimCmParams& p, std::int32_t num_hosts) {
  if (p.start_unit <= 0) throw UserError("htsim connection matrix: start_unit must be > 0 ps");
  Workload w;
  std::vector<Conn> conns;
  std::map<std::int64_t, TriggerDef> triggers;
  std::set<std::int64_t> flow_ids;
  std::int64_t nodes = -1, declared_conns = -1, declared_triggers = -1;
  int header_line[3] = {0, 0, 0};
  bool in_body = false;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    const Where at{name, lineno};
    const auto tok = split_ws(trim(strip_comment(line, "#")));
    if (tok.empty()) continue;
    auto need_value = [&](std::size_t i, std::string_view key) {
      if (i + 1 >= tok.size()) fail(at, fmt::format("'{}' needs a value", key));
      return tok[i + 1];
    };
    if (tok[0] == "Nodes" || tok[0] == "Connections" || tok[0] == "Triggers" || tok[0] == "Failures") {
      if (in_body) fail(at, fmt::format("'{}' after the first connection; header lines come first", tok[0]));
      if (tok.size() != 2) fail(at, fmt::format("expected '{} <count>'", tok[0]));
      const auto v = parse_nonneg_int(tok[1], tok[0], at);
      if (tok[0] == "Nodes") {
        nodes = v;
        header_line[0] = lineno;
      } else if (tok[0] == "Connections") {
        declared_conns = v;
        header_line[1] = lineno;
      } else if (tok[0] == "Triggers") {
        declared_triggers = v;
        header_line[2] = lineno;
      } else if (v > 0) {
        fail(at, "failures in connection matrices are not supported; configure failures in the run config");
      }
      continue;
    }
    in_body = true;
    if (tok[0] == "failure") fail(at, "failure lines are not supported; configure failures in the run config");
    if (tok[0] == "trigger") {
      TriggerDef t;
      t.line = lineno;
      std::int64_t id = 0;
      bool have_type = false;
      for (std::size_t i = 1; i < tok.size(); ++i) {
        if (tok[i] == "id") {
          id = parse_int(need_value(i, "id"), "trigger id", at);
          ++i;
        } else if (tok[i] == "count") {
          t.count = parse_nonneg_int(need_value(i, "count"), "count", at);
          ++i;
        } else if (tok[i] == "oneshot" || tok[i] == "multishot" || tok[i] == "barrier") {
          if (have_type) fail(at, "a trigger has exactly one type");
          have_type = true;
          t.type = tok[i] == "oneshot"     ? TrigType::kOneshot
                   : tok[i] == "multishot" ? TrigType::kMultishot
                                           : TrigType::kBarrier;
        } else {
          fail(at, fmt::format("unknown trigger attribute '{}'; expected id, count, oneshot, multishot or "
                               "barrier",
                               tok[i]));
        }
      }
      if (id <= 0) fail(at, "trigger without a positive 'id'");
      if (!have_type) fail(at, "trigger without a type; expected oneshot, multishot or barrier");
      if (t.type == TrigType::kBarrier && t.count <= 0) fail(at, "barrier trigger needs 'count <K>' with K > 0");
      if (triggers.count(id))
        fail(at, fmt::format("trigger {} defined twice (first on line {})", id, triggers[id].line));
      triggers[id] = t;
      continue;
    }
    const auto arrow = tok[0].find("->");
    if (arrow == std::string_view::npos)
      fail(at, fmt::format("unexpected '{}'; expected '<src>-><dst> ...', 'trigger ...' or a header line "
                           "(Nodes, Connections, Triggers)",
                           tok[0]));
    FlowSpec f;
    Conn c;
    c.line = lineno;
    const auto src = parse_int(tok[0].substr(0, arrow), "src", at);
    const auto dst = parse_int(tok[0].substr(arrow + 2), "dst", at);
    check_host(src, num_hosts, "src", at);
    check_host(dst, num_hosts, "dst", at);
    if (nodes >= 0 && (src >= nodes || dst >= nodes))
      fail(at, fmt::format("host {} is not below 'Nodes {}'", src >= nodes ? src : dst, nodes));
    if (src == dst) fail(at, fmt::format("a connection from host {} to itself", src));
    f.src = static_cast<std::int32_t>(src);
    f.dst = static_cast<std::int32_t>(dst);
    bool have_start = false, have_size = false;
    for (std::size_t i = 1; i < tok.size(); ++i) {
      const auto key = tok[i];
      if (key == "addon") continue;
      const auto v = need_value(i, key);
      ++i;
      if (key == "start") {
        const double t = parse_double(v, "start", at);
        if (t < 0) fail(at, fmt::format("start {} is negative", t));
        c.start = t;  // the unit is applied once every start is known (detect_unit)
        have_start = true;
      } else if (key == "size") {
        f.bytes = parse_nonneg_int(v, "size", at);
        if (f.bytes == 0)
          fail(at,
               "size 0: htsim runs such a connection as an unbounded flow (it sends until the simulation "
               "ends); lbsim transfers have a size: give one in bytes");
        have_size = true;
      } else if (key == "id") {
        const auto id = parse_int(v, "id", at);
        if (id <= 0) fail(at, "flow id must be > 0");
        if (!flow_ids.insert(id).second) fail(at, fmt::format("flow id {} used twice", id));
      } else if (key == "trigger") {
        c.trigger = parse_int(v, "trigger", at);
        if (c.trigger <= 0) fail(at, "trigger id must be > 0");
      } else if (key == "send_done_trigger" || key == "recv_done_trigger") {
        const auto t = parse_int(v, key, at);
        if (t <= 0) fail(at, "trigger id must be > 0");
        c.signals.push_back(t);
      } else if (key == "prio") {
        (void)parse_int(v, "prio", at);
      } else {
        fail(at, fmt::format("unknown connection attribute '{}'; expected id, start, size, trigger, "
                             "send_done_trigger, recv_done_trigger, prio or addon",
                             key));
      }
    }
    if (!have_size) fail(at, "connection without 'size <bytes>'");
    if (have_start && c.trigger) fail(at, "connection has both a start time and a trigger; give one");
    if (!have_start && !c.trigger) fail(at, "connection has neither 'start <t>' nor 'trigger <id>'");
    f.lb = p.lb;
    w.flows.push_back(std::move(f));
    conns.push_back(std::move(c));
  }
  // Start times: the unit (given, or detected from the largest start), then each entry's time.
  SimTime unit = p.start_unit;
  if (p.detect_unit) {
    double largest = 0;
    for (const auto& c : conns) largest = std::max(largest, c.start);
    unit = largest >= 1e6 ? SimTime{1} : us(1);
    if (unit == 1 && p.warnings != nullptr)
      p.warnings->push_back(fmt::format(
          "{}: start times up to {} read as picoseconds (workload.htsim_start_unit = \"auto\": a start of 1e6 or "
          "more is taken as htsim's ps, as its generators write them; set the key to \"us\" or \"ps\" to choose)",
          name, largest));
  }
  for (std::size_t i = 0; i < conns.size(); ++i) {
    const double t = conns[i].start;
    if (t < 0) continue;
    if (!fits_sim_time(t * static_cast<double>(unit)))
      fail(Where{name, conns[i].line}, fmt::format("start {} is beyond the largest simulated time (9e12 us)", t));
    w.flows[i].start = static_cast<SimTime>(std::llround(t * static_cast<double>(unit)));
  }
  if (nodes < 0) fail(Where{name, 0}, "missing 'Nodes <N>' header");
  if (declared_conns < 0) fail(Where{name, 0}, "missing 'Connections <C>' header");
  if (declared_conns != static_cast<std::int64_t>(conns.size()))
    fail(Where{name, header_line[1]},
         fmt::format("'Connections {}' but the file has {} connections", declared_conns, conns.size()));
  if (declared_triggers >= 0 && declared_triggers != static_cast<std::int64_t>(triggers.size()))
    fail(Where{name, header_line[2]},
         fmt::format("'Triggers {}' but the file defines {} triggers", declared_triggers, triggers.size()));
  if (nodes > 0 && num_hosts > 0 && nodes > num_hosts)
    fail(Where{name, header_line[0]}, fmt::format("'Nodes {}' but the topology has only {} hosts", nodes, num_hosts));

  // Resolve triggers into completion dependencies.
  std::map<std::int64_t, std::vector<std::uint32_t>> signallers;
  for (std::size_t i = 0; i < conns.size(); ++i)
    for (auto t : conns[i].signals) {
      if (!triggers.count(t))
        fail(Where{name, conns[i].line}, fmt::format("trigger {} is signalled but never defined", t));
      signallers[t].push_back(static_cast<std::uint32_t>(i));
    }
  for (std::size_t i = 0; i < conns.size(); ++i) {
    const auto t = conns[i].trigger;
    if (!t) continue;
    const Where at{name, conns[i].line};
    const auto it = triggers.find(t);
    if (it == triggers.end()) fail(at, fmt::format("trigger {} is used but never defined", t));
    const auto& sig = signallers[t];
    const auto& def = it->second;
    if (def.type == TrigType::kBarrier) {
      if (static_cast<std::int64_t>(sig.size()) != def.count)
        fail(at, fmt::format("barrier trigger {} (line {}) fires after {} signals but {} connections signal "
                             "it; only 'all of them' can be expressed as dependencies",
                             t, def.line, def.count, sig.size()));
    } else if (sig.size() != 1) {
      fail(at, fmt::format("{} trigger {} (line {}) fires on the first of {} signals; 'any of several' "
                           "cannot be expressed as dependencies (exactly one signalling connection is "
                           "supported)",
                           def.type == TrigType::kOneshot ? "oneshot" : "multishot", t, def.line, sig.size()));
    }
    for (auto d : sig) {
      if (d == i) fail(at, fmt::format("connection waits on trigger {}, which only it signals", t));
      w.flows[i].deps.push_back(d);
    }
  }
  try {
    (void)topological_order(w);
  } catch (const UserError& e) {
    fail(Where{name, 0}, fmt::format("triggers form a cycle: {}", e.what()));
  }
  return w;
}

Workload read_htsim_cm(const HtsimCmParams& p, std::int32_t num_hosts) {
  auto in = open_input(p.path);
  return parse_htsim_cm(in, p.path, p, num_hosts);
}

namespace {
using namespace config;
const RegisterWorkload kHtsimCm{
    {{"htsim_cm",
      "An htsim connection matrix (.cm) with optional triggers (docs/workloads.md).",
      {text("workload.htsim_start_unit", "auto",
            "htsim_cm: unit of the connection start times: auto (ps when the largest start is 1e6 or more, as htsim's "
            "generators and the REPS artifact write them, else us as in hand-written UEC htsim files; a warning names "
            "ps when chosen), ps, ns, us, ms. A warning counts the connections that start after run.end_us.")
           .one_of({"auto", "ps", "ns", "us", "ms"})},
      {}},
     [](const WorkloadContext& c) {
       HtsimCmParams p;
       p.path = c.cfg.path("workload.file");
       const auto& u = c.cfg.text("workload.htsim_start_unit");
       p.start_unit = u == "ps" ? SimTime{1} : u == "ns" ? ns(1) : u == "ms" ? ms(1) : us(1);
       p.detect_unit = u == "auto";
       p.warnings = c.warnings;
       return read_htsim_cm(p, c.topo.num_hosts);
     },
     &file_entries,
     true,
     {},
     "workload.htsim_start_unit"}};
}  // namespace

}  // namespace lbsim::workload
