#include "workload/goal.h"

#include <fmt/format.h>

#include <deque>
#include <limits>
#include <map>
#include <sstream>
#include <tuple>
#include <unordered_map>

#include "workload/parse_util.h"
#include "workload/validate.h"
#include "workload/registry.h"

namespace lbsim::workload {

using namespace detail;

namespace {

struct Tok {
  std::string text;
  int line;
};

std::vector<Tok> lex(const std::string& s, std::string_view name) {
  std::vector<Tok> out;
  int line = 1;
  std::size_t i = 0;
  const std::size_t n = s.size();
  auto starts_comment = [&](std::size_t k) {
    return s[k] == '#' || (k + 1 < n && s[k] == '/' && (s[k + 1] == '/' || s[k + 1] == '*'));
  };
  while (i < n) {
    const char c = s[i];
    if (c == '\n') {
      ++line;
      ++i;
    } else if (c == ' ' || c == '\t' || c == '\r' || c == ';') {
      ++i;  // ';' is accepted as a statement separator
    } else if (c == '#' || (c == '/' && i + 1 < n && s[i + 1] == '/')) {
      while (i < n && s[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      const int start_line = line;
      i += 2;
      while (i + 1 < n && !(s[i] == '*' && s[i + 1] == '/')) {
        if (s[i] == '\n') ++line;
        ++i;
      }
      if (i + 1 >= n) fail(Where{name, start_line}, "unterminated '/*' comment");
      i += 2;
    } else if (c == '{' || c == '}' || c == ':') {
      out.push_back({std::string(1, c), line});
      ++i;
    } else {
      const std::size_t b = i;
      while (i < n && s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n' && s[i] != '{' && s[i] != '}' &&
             s[i] != ':' && s[i] != ';' && !starts_comment(i))
        ++i;
      out.push_back({s.substr(b, i - b), line});
    }
  }
  return out;
}

enum class Kind { kSend, kRecv, kCalc };

struct Op {
  Kind kind;
  std::int32_t rank;
  std::string label;
  std::int64_t size;  // bytes, or calc units
  std::int32_t peer = -1;
  std::int64_t tag = 0;
  int line;
  std::uint32_t entry = 0;
};

struct Dep {
  std::string waiter;  // label of the op that waits
  std::string target;  // label it waits for
  bool immediate;      // irequires (start) rather than requires (completion)
  int line;
  std::size_t waiter_op = 0;  // resolved at the end of the rank block
  std::size_t target_op = 0;
};

class Parser {
 public:
  Parser(std::vector<Tok> toks, std::string_view name) : t_(std::move(toks)), name_(name) {}

  bool done() const { return i_ >= t_.size(); }
  const Tok& peek() const { return t_[i_]; }
  int line() const { return done() ? (t_.empty() ? 0 : t_.back().line) : t_[i_].line; }

  const Tok& next(std::string_view what) {
    if (done()) fail(Where{name_, line()}, fmt::format("unexpected end of file; expected {}", what));
    return t_[i_++];
  }
  void expect(std::string_view text) {
    const Tok& k = next(fmt::format("'{}'", text));
    if (k.text != text) fail(Where{name_, k.line}, fmt::format("expected '{}', found '{}'", text, k.text));
  }
  std::int64_t integer(std::string_view what) {
    const Tok& k = next(what);
    return parse_int(k.text, what, Where{name_, k.line});
  }
  // "<n>b" or "<n>".
  std::int64_t size(std::string_view what) {
    const Tok& k = next(what);
    std::string_view v = k.text;
    if (!v.empty() && (v.back() == 'b' || v.back() == 'B')) v.remove_suffix(1);
    return parse_nonneg_int(v, what, Where{name_, k.line});
  }

 private:
  std::vector<Tok> t_;
  std::size_t i_ = 0;
  std::string_view name_;
};

}  // namespace

Workload parse_goal(std::istream& in, std::string_view name, const GoalParams& p, std::int32_t num_hosts,
                    std::vector<std::string>* warnings) {
  if (p.calc_unit < 0) throw UserError("goal: calc_unit must be >= 0");
  std::stringstream ss;
  ss << in.rdbuf();
  Parser ps(lex(ss.str(), name), name);

  if (ps.done()) fail(Where{name, 0}, "empty schedule; expected 'num_ranks <N>'");
  const int nr_line = ps.peek().line;
  ps.expect("num_ranks");
  const std::int64_t num_ranks = ps.integer("the number of ranks");
  if (num_ranks < 1 || num_ranks > std::numeric_limits<std::int32_t>::max())
    fail(Where{name, nr_line},
         fmt::format("num_ranks {} must be in 1..{}", num_ranks, std::numeric_limits<std::int32_t>::max()));

  // Rank -> host (checked before anything is sized by num_ranks).
  std::vector<std::int32_t> mapping = p.rank_to_host;
  if (!p.rank_rule.empty()) {
    if (num_hosts <= 0)
      fail(Where{name, nr_line}, fmt::format("rank_to_host = \"{}\" needs the topology's hosts", p.rank_rule));
    mapping.resize(static_cast<std::size_t>(num_ranks));
    const std::int64_t per = (num_ranks + num_hosts - 1) / num_hosts;  // block: ranks per host
    for (std::int64_t r = 0; r < num_ranks; ++r)
      mapping[static_cast<std::size_t>(r)] =
          static_cast<std::int32_t>(p.rank_rule == "modulo" ? r % num_hosts : r / per);
  }
  if (mapping.empty() && num_hosts > 0 && num_ranks > num_hosts)
    fail(Where{name, nr_line}, fmt::format("num_ranks {} exceeds the {} hosts of the topology; give a "
                                           "rank-to-host mapping: workload.rank_to_host = \"modulo\" (round robin), "
                                           "\"block\" (consecutive ranks share a host) or a file of host ids",
                                           num_ranks, num_hosts));
  if (!mapping.empty() && static_cast<std::int64_t>(mapping.size()) < num_ranks)
    fail(Where{name, nr_line}, fmt::format("the rank-to-host mapping has {} entries but the schedule has {} ranks",
                                           mapping.size(), num_ranks));
  std::vector<std::int32_t> host(static_cast<std::size_t>(num_ranks));
  if (mapping.empty()) {
    for (std::int64_t r = 0; r < num_ranks; ++r) host[static_cast<std::size_t>(r)] = static_cast<std::int32_t>(r);
  } else {
    for (std::int64_t r = 0; r < num_ranks; ++r) {
      const auto h = mapping[static_cast<std::size_t>(r)];
      if (h < 0 || (num_hosts > 0 && h >= num_hosts))
        throw UserError(
            fmt::format("goal: rank {} is mapped to host {}, which is not a host id (0..{})", r, h, num_hosts - 1));
      host[static_cast<std::size_t>(r)] = h;
    }
  }

  std::vector<Op> ops;
  std::vector<Dep> deps;
  std::vector<bool> seen_rank(static_cast<std::size_t>(num_ranks), false);
  // (rank, label) -> op index, per rank.
  std::vector<std::unordered_map<std::string, std::size_t>> labels(static_cast<std::size_t>(num_ranks));

  while (!ps.done()) {
    const Tok& kw = ps.next("'rank'");
    if (kw.text != "rank") fail(Where{name, kw.line}, fmt::format("expected 'rank <R> {{', found '{}'", kw.text));
    const int rank_line = kw.line;
    const std::int64_t r = ps.integer("a rank number");
    if (r < 0 || r >= num_ranks)
      fail(Where{name, rank_line}, fmt::format("rank {} is outside 0..{} (num_ranks {})", r, num_ranks - 1, num_ranks));
    if (seen_rank[static_cast<std::size_t>(r)]) fail(Where{name, rank_line}, fmt::format("rank {} defined twice", r));
    seen_rank[static_cast<std::size_t>(r)] = true;
    ps.expect("{");
    const std::size_t first_dep = deps.size();
    auto& lab = labels[static_cast<std::size_t>(r)];
    for (;;) {
      const Tok& a = ps.next("a statement or '}'");
      if (a.text == "}") break;
      const Where at{name, a.line};
      if (a.text == "{" || a.text == ":") fail(at, fmt::format("unexpected '{}'; expected a label", a.text));
      const Tok& b = ps.next("':', 'requires' or 'irequires'");
      if (b.text == "requires" || b.text == "irequires") {
        const Tok& target = ps.next("a label");
        deps.push_back({a.text, target.text, b.text == "irequires", a.line});
        continue;
      }
      if (b.text != ":")
        fail(Where{name, b.line},
             fmt::format("expected ':' after label '{}', or 'requires'/'irequires', found '{}'", a.text, b.text));
      Op op;
      op.rank = static_cast<std::int32_t>(r);
      op.label = a.text;
      op.line = a.line;
      const Tok& verb = ps.next("send, recv or calc");
      if (verb.text == "send" || verb.text == "recv") {
        op.kind = verb.text == "send" ? Kind::kSend : Kind::kRecv;
        op.size = ps.size("a message size like 1024b");
        ps.expect(op.kind == Kind::kSend ? "to" : "from");
        const Tok& peer = ps.next("a rank");
        const auto pr = parse_int(peer.text, "peer rank", Where{name, peer.line});
        if (pr < 0 || pr >= num_ranks)
          fail(Where{name, peer.line}, fmt::format("peer rank {} is outside 0..{}{}", pr, num_ranks - 1,
                                                   pr < 0 ? " (wildcard sources are not supported)" : ""));
        op.peer = static_cast<std::int32_t>(pr);
      } else if (verb.text == "calc") {
        op.kind = Kind::kCalc;
        op.size = ps.size("a calc amount");
      } else if (verb.text == "put" || verb.text == "get" || verb.text == "append") {
        // The sPIN / one-sided extensions of some GOAL generators (ATLAHS): not modelled (no
        // handler execution on the NIC); docs/workloads.md.
        fail(Where{name, verb.line},
             fmt::format("operation '{}' (sPIN / one-sided GOAL extension) is not supported; lbsim reads send, "
                         "recv and calc (docs/workloads.md, GOAL)",
                         verb.text));
      } else {
        fail(Where{name, verb.line}, fmt::format("unknown operation '{}'; expected send, recv or calc", verb.text));
      }
      // Optional attributes.
      while (!ps.done()) {
        const std::string& k = ps.peek().text;
        if (k != "tag" && k != "cpu" && k != "nic") break;
        const bool is_tag = k == "tag";
        const int kline = ps.peek().line;
        ps.next(k);
        const auto v = ps.integer(is_tag ? "a tag" : "a cpu/nic number");
        if (is_tag) {
          if (op.kind == Kind::kCalc) fail(Where{name, kline}, "calc has no tag");
          op.tag = v;
        }
      }
      if (lab.count(op.label))
        fail(at, fmt::format("label '{}' defined twice in rank {} (first on line {})", op.label, r,
                             ops[lab[op.label]].line));
      lab[op.label] = ops.size();
      ops.push_back(std::move(op));
    }
    // Resolve this rank's dependency statements (labels may be used before they are defined).
    for (std::size_t k = first_dep; k < deps.size(); ++k) {
      Dep& d = deps[k];
      const Where at{name, d.line};
      auto wi = lab.find(d.waiter);
      if (wi == lab.end()) fail(at, fmt::format("unknown label '{}' in rank {}", d.waiter, r));
      auto ti = lab.find(d.target);
      if (ti == lab.end()) fail(at, fmt::format("unknown label '{}' in rank {}", d.target, r));
      if (wi->second == ti->second) fail(at, fmt::format("label '{}' requires itself", d.waiter));
      d.waiter_op = wi->second;
      d.target_op = ti->second;
    }
  }
  for (std::int64_t r = 0; r < num_ranks; ++r)
    if (!seen_rank[static_cast<std::size_t>(r)] && warnings)
      warnings->push_back(fmt::format("{}: rank {} has no block", name, r));

  // Entries in op order.
  Workload w;
  w.flows.resize(ops.size());
  for (std::size_t i = 0; i < ops.size(); ++i) {
    Op& op = ops[i];
    op.entry = static_cast<std::uint32_t>(i);
    FlowSpec& f = w.flows[i];
    const std::int32_t h = host[static_cast<std::size_t>(op.rank)];
    f.src = f.dst = h;
    f.lb = p.lb;
    switch (op.kind) {
      case Kind::kSend: {
        const std::int32_t d = host[static_cast<std::size_t>(op.peer)];
        f.bytes = op.size;
        if (d == h) {
          f.compute = 0;  // same host: no network
        } else {
          f.dst = d;
        }
        break;
      }
      case Kind::kRecv:
        f.compute = 0;
        break;
      case Kind::kCalc:
        // calc amount x calc_unit must stay a representable time (a calc of 1e17 ns overflowed).
        if (p.calc_unit > 0 && !fits_sim_time(static_cast<double>(op.size) * static_cast<double>(p.calc_unit)))
          fail(Where{name, op.line},
               fmt::format("calc {} x calc_unit is beyond the largest simulated time (9e12 us)", op.size));
        f.compute = op.size * p.calc_unit;
        break;
    }
  }

  // Static MPI-like matching: k-th send s->d tag t with k-th recv on d from s tag t.
  std::map<std::tuple<std::int32_t, std::int32_t, std::int64_t>, std::deque<std::size_t>> sends;
  for (std::size_t i = 0; i < ops.size(); ++i)
    if (ops[i].kind == Kind::kSend) sends[{ops[i].rank, ops[i].peer, ops[i].tag}].push_back(i);
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const Op& op = ops[i];
    if (op.kind != Kind::kRecv) continue;
    auto& q = sends[{op.peer, op.rank, op.tag}];
    if (q.empty())
      fail(Where{name, op.line},
           fmt::format("rank {} label '{}': recv of {} bytes from rank {} tag {} has no matching send", op.rank,
                       op.label, op.size, op.peer, op.tag));
    const Op& s = ops[q.front()];
    q.pop_front();
    if (s.size != op.size && warnings)
      warnings->push_back(
          fmt::format("{}:{}: rank {} label '{}' receives {} bytes but the matching send (line {}) "
                      "sends {}; the send's size is used",
                      name, op.line, op.rank, op.label, op.size, s.line, s.size));
    w.flows[i].deps.push_back(s.entry);
  }
  if (warnings) {
    std::size_t unmatched = 0;
    const Op* first = nullptr;
    for (const auto& [key, q] : sends) {
      unmatched += q.size();
      if (!q.empty() && (!first || ops[q.front()].line < first->line)) first = &ops[q.front()];
    }
    if (unmatched > 0)
      warnings->push_back(
          fmt::format("{}:{}: {} send(s) have no matching recv (first: rank {} label '{}'); they "
                      "are still transferred",
                      name, first->line, unmatched, first->rank, first->label));
  }

  for (const Dep& d : deps) {
    auto& f = w.flows[ops[d.waiter_op].entry];
    (d.immediate ? f.start_deps : f.deps).push_back(ops[d.target_op].entry);
  }
  try {
    (void)topological_order(w);
  } catch (const UserError& e) {
    fail(Where{name, 0}, fmt::format("the schedule's dependencies form a cycle: {}", e.what()));
  }
  return w;
}

Workload read_goal(const GoalParams& p, std::int32_t num_hosts, std::vector<std::string>* warnings) {
  auto in = open_input(p.path);
  return parse_goal(in, p.path, p, num_hosts, warnings);
}

namespace {
using namespace config;
// workload.rank_to_host as a file: one host id per line, in rank order; '#' starts a comment.
std::vector<std::int32_t> read_rank_map(const std::string& path, std::int32_t num_hosts) {
  auto in = open_input(path);
  std::vector<std::int32_t> out;
  std::string line;
  int lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    const auto b = line.find_first_not_of(" \t\r");
    if (b == std::string::npos) continue;
    const auto e = line.find_last_not_of(" \t\r");
    const Where at{path, lineno};
    const auto h = parse_int(std::string_view(line).substr(b, e - b + 1), "host id", at);
    if (h < 0 || (num_hosts > 0 && h >= num_hosts))
      fail(at, fmt::format("host {} of rank {} is not a host id (0..{})", h, out.size(), num_hosts - 1));
    out.push_back(static_cast<std::int32_t>(h));
  }
  if (out.empty()) fail(Where{path, 0}, "workload.rank_to_host: the file lists no host");
  return out;
}

const RegisterWorkload kGoal{
    {{"goal",
      "A GOAL schedule (LogGOPSim text format): sends, receives and computations with dependencies "
      "(docs/workloads.md).",
      {real("workload.calc_unit_ns", 1, "ns", "goal: duration of one calc unit.").range(0, 1e12),
       text("workload.rank_to_host", "identity",
            "goal: where ranks run: identity (rank r on host r), modulo (rank r on host r mod hosts: more ranks than "
            "hosts, dealt round robin), block (consecutive ranks share a host: ceil(ranks / hosts) per host), or a "
            "file with one host id per line in rank order ('#' comments). Ranks on one host exchange messages without "
            "the network.")},
      {}},
     [](const WorkloadContext& c) {
       GoalParams p;
       p.path = c.cfg.path("workload.file");
       p.calc_unit = from_ns(c.cfg.real("workload.calc_unit_ns"));
       const std::string& map = c.cfg.text("workload.rank_to_host");
       if (map == "modulo" || map == "block")
         p.rank_rule = map;
       else if (map != "identity" && !map.empty())
         p.rank_to_host = read_rank_map(c.cfg.path("workload.rank_to_host"), c.topo.num_hosts);
       return read_goal(p, c.topo.num_hosts, c.warnings);
     },
     &file_entries,
     true}};
}  // namespace

}  // namespace lbsim::workload
