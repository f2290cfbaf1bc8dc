#include "workload/patterns.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

#include "core/error.h"
#include "workload/parse_util.h"
#include "workload/registry.h"
#include "workload/adversarial.h"
#include <fmt/core.h>

namespace lbsim::workload {

namespace {

std::int32_t tag_or_default(Workload& w, const std::string& name) { return name.empty() ? 0 : w.tag(name); }

void shuffle(std::vector<std::int32_t>& v, Rng& rng) {
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.below(i)]);
}

void check_common(Bytes bytes, SimTime start, std::int32_t num_hosts, const char* what) {
  if (bytes < 0) throw UserError(fmt::format("{}: bytes = {} is negative", what, bytes));
  if (start < 0) throw UserError(fmt::format("{}: start time is negative", what));
  if (num_hosts < 2) throw UserError(fmt::format("{}: needs at least 2 hosts, the topology has {}", what, num_hosts));
}

std::vector<std::int32_t> all_hosts(std::int32_t n) {
  std::vector<std::int32_t> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), 0);
  return v;
}

}  // namespace

FlowSpec make_transfer(std::int32_t src, std::int32_t dst, Bytes bytes, SimTime start, std::int32_t tag,
                       const std::string& lb) {
  FlowSpec f;
  f.src = src;
  f.dst = dst;
  f.bytes = bytes;
  f.start = start;
  f.tag = tag;
  f.lb = lb;
  return f;
}

std::vector<std::int32_t> random_derangement(const std::vector<std::int32_t>& hosts, Rng& rng,
                                             std::int32_t group_size) {
  const std::size_t n = hosts.size();
  if (n < 2) throw UserError(fmt::format("a permutation without self-sends needs at least 2 hosts, got {}", n));
  auto bad = [&](std::int32_t a, std::int32_t b) {
    return a == b || (group_size > 0 && a / group_size == b / group_size);
  };
  std::vector<std::int32_t> t = hosts;
  if (group_size <= 0) {
    // Rejection sampling: a uniform shuffle is a derangement with probability ~1/e, so this is uniform
    // over derangements and takes ~2.7 shuffles on average.
    for (int attempt = 0; attempt < 1000; ++attempt) {
      t = hosts;
      shuffle(t, rng);
      bool ok = true;
      for (std::size_t i = 0; i < n && ok; ++i) ok = t[i] != hosts[i];
      if (ok) return t;
    }
  } else {
    shuffle(t, rng);
  }
  // Repair by swaps: position i with a forbidden target swaps targets with a position j such that both
  // end up allowed. A swap never breaks position j (checked) and positions < i are untouched unless
  // they are j (checked too).
  for (std::size_t i = 0; i < n; ++i) {
    if (!bad(hosts[i], t[i])) continue;
    bool fixed = false;
    for (int tries = 0; tries < 64 && !fixed; ++tries) {
      const std::size_t j = rng.below(n);
      if (!bad(hosts[i], t[j]) && !bad(hosts[j], t[i])) {
        std::swap(t[i], t[j]);
        fixed = true;
      }
    }
    const std::size_t off = rng.below(n);
    for (std::size_t k = 0; k < n && !fixed; ++k) {
      const std::size_t j = (off + k) % n;
      if (!bad(hosts[i], t[j]) && !bad(hosts[j], t[i])) {
        std::swap(t[i], t[j]);
        fixed = true;
      }
    }
    if (!fixed)
      throw UserError(
          fmt::format("cannot build a permutation of {} hosts in which every receiver is outside its sender's "
                      "group of {} hosts: one group holds more than half of the hosts",
                      n, group_size));
  }
  return t;
}

std::size_t append_permutation(Workload& w, const std::vector<std::int32_t>& hosts, Bytes bytes, SimTime start,
                               Rng& rng, std::int32_t tag, const std::string& lb, std::int32_t group_size) {
  const std::size_t first = w.flows.size();
  const auto t = random_derangement(hosts, rng, group_size);
  for (std::size_t i = 0; i < hosts.size(); ++i)
    w.flows.push_back(make_transfer(hosts[i], t[i], bytes, start, tag, lb));
  return first;
}

Workload make_permutation(const PermutationParams& p, std::int32_t num_hosts, std::uint64_t seed) {
  check_common(p.bytes, p.start, num_hosts, "permutation");
  Workload w;
  Rng rng(seed, hash_name("workload"), hash_name("permutation"));
  append_permutation(w, all_hosts(num_hosts), p.bytes, p.start, rng, tag_or_default(w, p.tag), p.lb, p.group_size);
  return w;
}

Workload make_tornado(const TornadoParams& p, std::int32_t num_hosts) {
  check_common(p.bytes, p.start, num_hosts, "tornado");
  Workload w;
  const std::int32_t tag = tag_or_default(w, p.tag);
  for (std::int32_t i = 0; i < num_hosts; ++i)
    w.flows.push_back(make_transfer(i, (i + num_hosts / 2) % num_hosts, p.bytes, p.start, tag, p.lb));
  return w;
}

Workload make_incast(const IncastParams& p, std::int32_t num_hosts, std::uint64_t seed) {
  check_common(p.bytes, p.start, num_hosts, "incast");
  if (p.receiver < 0 || p.receiver >= num_hosts)
    throw UserError(fmt::format("incast: receiver {} is not a host id (0..{})", p.receiver, num_hosts - 1));
  std::vector<std::int32_t> senders;
  if (!p.sender_list.empty()) {
    std::vector<bool> seen(static_cast<std::size_t>(num_hosts), false);
    for (std::int32_t s : p.sender_list) {
      if (s < 0 || s >= num_hosts)
        throw UserError(fmt::format("incast: sender {} is not a host id (0..{})", s, num_hosts - 1));
      if (s == p.receiver) throw UserError(fmt::format("incast: sender {} is the receiver", s));
      if (seen[static_cast<std::size_t>(s)]) throw UserError(fmt::format("incast: sender {} listed twice", s));
      seen[static_cast<std::size_t>(s)] = true;
      senders.push_back(s);
    }
  } else {
    if (p.senders < 1 || p.senders > num_hosts - 1)
      throw UserError(
          fmt::format("incast: senders = {} must be in 1..{} (all hosts but the receiver)", p.senders, num_hosts - 1));
    std::vector<std::int32_t> others;
    for (std::int32_t h = 0; h < num_hosts; ++h)
      if (h != p.receiver) others.push_back(h);
    if (p.random_senders) {
      Rng rng(seed, hash_name("workload"), hash_name("incast.senders"));
      // Partial Fisher-Yates: the first k entries are a uniform random k-subset.
      for (std::int32_t i = 0; i < p.senders; ++i)
        std::swap(others[static_cast<std::size_t>(i)],
                  others[static_cast<std::size_t>(i) + rng.below(others.size() - static_cast<std::size_t>(i))]);
    }
    senders.assign(others.begin(), others.begin() + p.senders);
  }
  Workload w;
  const std::int32_t tag = p.bystanders ? w.tag("incast") : 0;
  for (std::int32_t s : senders) w.flows.push_back(make_transfer(s, p.receiver, p.bytes, p.start, tag, p.lb));
  if (p.bystanders) {
    std::vector<std::int32_t> busy(senders.begin(), senders.end());
    busy.push_back(p.receiver);
    Rng rng(seed, hash_name("workload"), hash_name("incast.bystanders"));
    append_permutation_of_rest(w, busy, num_hosts, p.bystander_bytes > 0 ? p.bystander_bytes : p.bytes, p.start, rng,
                               w.tag("bystander"), p.lb);
  }
  return w;
}

void append_permutation_of_rest(Workload& w, const std::vector<std::int32_t>& excluded, std::int32_t num_hosts,
                                Bytes bytes, SimTime start, Rng& rng, std::int32_t tag, const std::string& lb) {
  std::vector<bool> busy(static_cast<std::size_t>(num_hosts), false);
  for (std::int32_t h : excluded) busy[static_cast<std::size_t>(h)] = true;
  std::vector<std::int32_t> rest;
  for (std::int32_t h = 0; h < num_hosts; ++h)
    if (!busy[static_cast<std::size_t>(h)]) rest.push_back(h);
  if (rest.size() >= 2) append_permutation(w, rest, bytes, start, rng, tag, lb);
}

Workload parse_flows_csv(std::istream& in, std::string_view name, std::int32_t num_hosts) {
  using namespace detail;
  enum Col { kSrc, kDst, kBytes, kStart, kTag, kLb };
  static constexpr std::string_view kNames[] = {"src", "dst", "bytes", "start_us", "tag", "lb"};
  std::vector<int> cols;  // column position -> Col
  Workload w;
  std::string line;
  int lineno = 0;
  bool have_header = false;
  while (std::getline(in, line)) {
    ++lineno;
    const Where at{name, lineno};
    const std::string_view s = trim(strip_comment(line, "#"));
    if (s.empty()) continue;
    const auto fields = split_char(s, ',');
    if (!have_header) {
      bool seen[6] = {};
      for (auto f : fields) {
        int c = -1;
        for (int k = 0; k < 6; ++k)
          if (f == kNames[k]) c = k;
        if (c < 0)
          fail(at, fmt::format("unknown column '{}'; expected src, dst, bytes, start_us and optionally "
                               "tag, lb",
                               f));
        if (seen[c]) fail(at, fmt::format("column '{}' appears twice", f));
        seen[c] = true;
        cols.push_back(c);
      }
      for (int k = 0; k < 4; ++k)
        if (!seen[k])
          fail(at, fmt::format("header lacks the required column '{}' (header: src,dst,bytes,start_us[,tag][,lb])",
                               kNames[k]));
      have_header = true;
      continue;
    }
    if (fields.size() != cols.size())
      fail(at, fmt::format("{} fields, expected {} (one per header column)", fields.size(), cols.size()));
    FlowSpec f;
    for (std::size_t i = 0; i < fields.size(); ++i) {
      const auto v = fields[i];
      switch (cols[i]) {
        case kSrc: {
          const auto h = parse_int(v, "src", at);
          check_host(h, num_hosts, "src", at);
          f.src = static_cast<std::int32_t>(h);
          break;
        }
        case kDst: {
          const auto h = parse_int(v, "dst", at);
          check_host(h, num_hosts, "dst", at);
          f.dst = static_cast<std::int32_t>(h);
          break;
        }
        case kBytes:
          f.bytes = parse_nonneg_int(v, "bytes", at);
          break;
        case kStart: {
          const double us_v = parse_double(v, "start_us", at);
          if (us_v < 0) fail(at, fmt::format("start_us {} is negative; expected >= 0", us_v));
          if (!fits_sim_time(us_v * 1e6))
            fail(at, fmt::format("start_us {} is beyond the largest simulated time (9e12 us)", us_v));
          f.start = from_us(us_v);
          break;
        }
        case kTag:
          f.tag = v.empty() ? 0 : w.tag(std::string(v));
          break;
        case kLb:
          f.lb = std::string(v);
          break;
      }
    }
    if (f.src == f.dst) fail(at, fmt::format("src and dst are both host {}; a flow needs two different hosts", f.src));
    w.flows.push_back(std::move(f));
  }
  if (!have_header) fail(Where{name, 0}, "no header line; expected 'src,dst,bytes,start_us' (optionally ',tag,lb')");
  return w;
}

Workload read_flows_csv(const std::string& path, std::int32_t num_hosts) {
  auto in = detail::open_input(path);
  return parse_flows_csv(in, path, num_hosts);
}

namespace {
using namespace config;

const RegisterWorkload kPermutation{
    {{"permutation",
      "Random permutation: every host sends one message of `size` to another host, each receiving one ([REPS] sec. "
      "4.2).",
      {flag("workload.outside_group", false,
            "permutation: receivers outside the sender's group (Dragonfly group, Slim Fly rack, fat-tree pod/ToR; "
            "[Spritz] V-B).")},
      {}},
     [](const WorkloadContext& c) {
       if (c.cfg.flag("workload.outside_group")) {
         AdversarialParams p;
         p.bytes = c.cfg.integer("workload.size");
         p.start = start_time(c.cfg);
         return make_permutation_outside_group(c.topo, p, c.seed);
       }
       PermutationParams p;
       p.bytes = c.cfg.integer("workload.size");
       p.start = start_time(c.cfg);
       return make_permutation(p, c.topo.num_hosts, c.seed);
     },
     [](const WorkloadSizeContext& c) { return messages_of_size(c.cfg, c.topo.hosts); }}};

const RegisterWorkload kTornado{{{"tornado", "Tornado: host i sends to host i + N/2 ([REPS] sec. 4.2).", {}, {}},
                                 [](const WorkloadContext& c) {
                                   TornadoParams p;
                                   p.bytes = c.cfg.integer("workload.size");
                                   p.start = start_time(c.cfg);
                                   return make_tornado(p, c.topo.num_hosts);
                                 },
                                 [](const WorkloadSizeContext& c) { return messages_of_size(c.cfg, c.topo.hosts); }}};

const RegisterWorkload kIncast{
    {{"incast",
      "Incast: incast_senders hosts send `size` each to one receiver, optionally with a bystander permutation "
      "([Spritz] sec. V-C).",
      {
          integer("workload.incast_receiver", 0, "host id", "incast: receiving host.").range(0, 1e7),
          integer("workload.incast_first_sender", -1, "host id",
                  "incast: first of the k consecutive sender hosts (skipping the receiver); -1 = the hosts after the "
                  "receiver.")
              .range(-1, 1e7),
          flag("workload.incast_bystanders", false,
               "incast: the other hosts run a permutation among themselves (tag bystander; [Spritz] V-C)."),
      },
      {"workload.incast_senders=2"}},
     [](const WorkloadContext& c) {
       const auto n = c.topo.num_hosts;
       IncastParams p;
       p.bytes = c.cfg.integer("workload.size");
       p.start = start_time(c.cfg);
       const auto receiver = c.cfg.integer("workload.incast_receiver");
       if (receiver >= n)
         throw UserError(fmt::format("{}workload.incast_receiver = {} but the topology has only {} hosts",
                                     c.cfg.where("workload.incast_receiver"), receiver, n));
       p.receiver = static_cast<std::int32_t>(receiver);
       p.senders = static_cast<std::int32_t>(c.cfg.integer("workload.incast_senders"));
       if (p.senders >= n)
         throw UserError(fmt::format("{}workload.incast_senders = {} needs more than {} hosts",
                                     c.cfg.where("workload.incast_senders"), p.senders, n));
       // k consecutive hosts (skipping the receiver), from incast_first_sender or after the receiver.
       const auto first = c.cfg.integer("workload.incast_first_sender");
       std::int32_t h = first >= 0 ? static_cast<std::int32_t>(first % n) : (p.receiver + 1) % n;
       while (static_cast<std::int32_t>(p.sender_list.size()) < p.senders) {
         if (h != p.receiver) p.sender_list.push_back(h);
         h = (h + 1) % n;
       }
       p.bystanders = c.cfg.flag("workload.incast_bystanders");
       return make_incast(p, n, c.seed);
     },
     [](const WorkloadSizeContext& c) {  // the senders, and a permutation of the others with bystanders
       const double senders = static_cast<double>(c.cfg.integer("workload.incast_senders"));
       return messages_of_size(c.cfg,
                               c.cfg.flag("workload.incast_bystanders") ? std::max(senders, c.topo.hosts) : senders);
     }}};

const RegisterWorkload kFlowsCsv{
    {{"flows_csv",
      "A CSV list of flows (src, dst, bytes, start_us and optional tag, lb, dependencies; docs/workloads.md).",
      {},
      {}},
     [](const WorkloadContext& c) { return read_flows_csv(c.cfg.path("workload.file"), c.topo.num_hosts); },
     &file_entries,
     true}};

// A flows CSV names load balancers per row: any of them may be used, so their keys count as read.
[[maybe_unused]] const bool selects = [] {
  config::declare_selection("lb.algorithm", [](const config::Config& c) {
    return c.text("workload.kind") == "flows_csv" ? std::vector<std::string>{"*"} : std::vector<std::string>{};
  });
  return true;
}();
}  // namespace

}  // namespace lbsim::workload
