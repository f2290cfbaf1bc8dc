#include "workload/collectives.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "core/error.h"
#include "core/rng.h"
#include "workload/patterns.h"
#include "workload/registry.h"

namespace lbsim::workload {

namespace {

std::int32_t step_tag(Workload& w, std::int64_t s) { return w.tag(fmt::format("step{}", s)); }

std::uint32_t push(Workload& w, std::int32_t src, std::int32_t dst, Bytes bytes, SimTime start, std::int32_t tag,
                   const std::string& lb, std::vector<std::uint32_t> deps = {}) {
  FlowSpec f = make_transfer(src, dst, bytes, start, tag, lb);
  f.deps = std::move(deps);
  w.flows.push_back(std::move(f));
  return static_cast<std::uint32_t>(w.flows.size() - 1);
}

void check_hosts(const std::vector<std::int32_t>& hosts, const char* what) {
  if (hosts.size() < 2) throw UserError(fmt::format("{}: needs at least 2 ranks, got {}", what, hosts.size()));
  std::vector<std::int32_t> s = hosts;
  std::sort(s.begin(), s.end());
  if (std::adjacent_find(s.begin(), s.end()) != s.end())
    throw UserError(fmt::format("{}: a host appears twice among the ranks", what));
}

int log2_exact(std::size_t k) {
  int m = 0;
  while ((std::size_t{1} << m) < k) ++m;
  return (std::size_t{1} << m) == k ? m : -1;
}

}  // namespace

std::size_t append_ring_allreduce(Workload& w, const std::vector<std::int32_t>& hosts, Bytes bytes, SimTime start,
                                  const std::string& lb) {
  check_hosts(hosts, "ring allreduce");
  const auto k = static_cast<std::int64_t>(hosts.size());
  const std::size_t first = w.flows.size();
  auto chunk = [&](std::int64_t c) { return bytes / k + (c < bytes % k ? 1 : 0); };
  std::vector<std::uint32_t> prev(static_cast<std::size_t>(k)), cur(static_cast<std::size_t>(k));
  for (std::int64_t s = 0; s < 2 * (k - 1); ++s) {
    const std::int32_t tag = step_tag(w, s);
    for (std::int64_t i = 0; i < k; ++i) {
      std::vector<std::uint32_t> deps;
      // The chunk rank i forwards in step s is the one it received from rank i-1 in step s-1.
      if (s > 0) deps.push_back(prev[static_cast<std::size_t>((i + k - 1) % k)]);
      cur[static_cast<std::size_t>(i)] =
          push(w, hosts[static_cast<std::size_t>(i)], hosts[static_cast<std::size_t>((i + 1) % k)],
               chunk(((i - s) % k + k) % k), start, tag, lb, std::move(deps));
    }
    std::swap(prev, cur);
  }
  return first;
}

std::size_t append_butterfly_allreduce(Workload& w, const std::vector<std::int32_t>& hosts, Bytes bytes, SimTime start,
                                       const std::string& lb, ButterflyVariant v) {
  check_hosts(hosts, "butterfly allreduce");
  const std::size_t k = hosts.size();
  const int m = log2_exact(k);
  if (m < 0) throw UserError(fmt::format("butterfly allreduce needs a power-of-two number of ranks, got {}", k));
  const std::size_t first = w.flows.size();
  const int steps = v == ButterflyVariant::kHalvingDoubling ? 2 * m : m;
  std::vector<std::uint32_t> prev(k), cur(k);
  std::vector<std::size_t> prev_partner(k);
  for (int s = 0; s < steps; ++s) {
    std::size_t dist;
    Bytes size;
    if (v == ButterflyVariant::kRecursiveDoubling) {
      dist = std::size_t{1} << s;
      size = bytes;
    } else if (s < m) {  // reduce-scatter by recursive halving: distance k/2, k/4, ..., 1
      dist = k >> (s + 1);
      size = (bytes + (Bytes{1} << (s + 1)) - 1) >> (s + 1);
    } else {  // allgather by recursive doubling: distance 1, 2, ..., k/2, sizes in reverse
      dist = std::size_t{1} << (s - m);
      const int div = 2 * m - s;
      size = (bytes + (Bytes{1} << div) - 1) >> div;
    }
    const std::int32_t tag = step_tag(w, s);
    for (std::size_t i = 0; i < k; ++i) {
      std::vector<std::uint32_t> deps;
      // What rank i received in step s-1 came from its step s-1 partner.
      if (s > 0) deps.push_back(prev[prev_partner[i]]);
      const std::size_t partner = i ^ dist;
      cur[i] = push(w, hosts[i], hosts[partner], size, start, tag, lb, std::move(deps));
    }
    for (std::size_t i = 0; i < k; ++i) prev_partner[i] = i ^ dist;
    std::swap(prev, cur);
  }
  return first;
}

std::size_t append_alltoall(Workload& w, const std::vector<std::int32_t>& hosts, Bytes bytes, std::int32_t window,
                            SimTime start, const std::string& lb) {
  check_hosts(hosts, "alltoall");
  if (window < 1) throw UserError(fmt::format("alltoall: window (parallel connections) = {} must be >= 1", window));
  const std::size_t k = hosts.size();
  const std::size_t first = w.flows.size();
  // idx[i][q]: entry of rank i's q-th send. Entries are created offset by offset.
  std::vector<std::vector<std::uint32_t>> idx(k, std::vector<std::uint32_t>(k - 1));
  for (std::size_t q = 0; q + 1 < k; ++q) {
    const std::int32_t tag = step_tag(w, static_cast<std::int64_t>(q));
    for (std::size_t i = 0; i < k; ++i) {
      std::vector<std::uint32_t> deps;
      if (q >= static_cast<std::size_t>(window)) deps.push_back(idx[i][q - static_cast<std::size_t>(window)]);
      idx[i][q] = push(w, hosts[i], hosts[(i + q + 1) % k], bytes, start, tag, lb, std::move(deps));
    }
  }
  return first;
}

std::size_t append_ps_allreduce(Workload& w, const std::vector<std::int32_t>& hosts, std::int32_t root, Bytes bytes,
                                bool broadcast, SimTime start, const std::string& lb) {
  check_hosts(hosts, "parameter-server allreduce");
  if (root < 0 || static_cast<std::size_t>(root) >= hosts.size())
    throw UserError(fmt::format("parameter-server allreduce: root rank {} outside 0..{}", root, hosts.size() - 1));
  const std::size_t first = w.flows.size();
  const std::int32_t r = hosts[static_cast<std::size_t>(root)];
  std::vector<std::uint32_t> gathered;
  const std::int32_t t0 = step_tag(w, 0);
  for (std::int32_t h : hosts)
    if (h != r) gathered.push_back(push(w, h, r, bytes, start, t0, lb));
  if (broadcast) {
    const std::int32_t t1 = step_tag(w, 1);
    for (std::int32_t h : hosts)
      if (h != r) push(w, r, h, bytes, start, t1, lb, gathered);
  }
  return first;
}

std::size_t append_allscatter(Workload& w, const std::vector<std::int32_t>& hosts, std::int32_t root, Bytes bytes,
                              SimTime start, const std::string& lb) {
  check_hosts(hosts, "allscatter");
  if (root < 0 || static_cast<std::size_t>(root) >= hosts.size())
    throw UserError(fmt::format("allscatter: root rank {} outside 0..{}", root, hosts.size() - 1));
  const std::size_t first = w.flows.size();
  const std::int32_t r = hosts[static_cast<std::size_t>(root)];
  const std::int32_t t0 = step_tag(w, 0);
  for (std::int32_t h : hosts)
    if (h != r) push(w, r, h, bytes, start, t0, lb);
  return first;
}

Workload make_collective(const CollectiveParams& p, std::int32_t num_hosts, std::uint64_t seed) {
  if (p.bytes < 0) throw UserError("collective: bytes must be >= 0");
  if (num_hosts < 2) throw UserError(fmt::format("collective: needs at least 2 hosts, got {}", num_hosts));
  const std::int32_t k = p.ranks == 0 ? num_hosts : p.ranks;
  if (k < 2 || k > num_hosts)
    throw UserError(fmt::format("collective: ranks = {} must be in 2..{} (the number of hosts)", p.ranks, num_hosts));
  std::vector<std::int32_t> hosts;
  if (p.random_subset) {
    std::vector<std::int32_t> all(static_cast<std::size_t>(num_hosts));
    std::iota(all.begin(), all.end(), 0);
    Rng rng(seed, hash_name("workload"), hash_name("collective.subset"));
    for (std::int32_t i = 0; i < k; ++i)
      std::swap(all[static_cast<std::size_t>(i)],
                all[static_cast<std::size_t>(i) + rng.below(static_cast<std::uint64_t>(num_hosts - i))]);
    hosts.assign(all.begin(), all.begin() + k);
    std::sort(hosts.begin(), hosts.end());
  } else {
    if (p.first_host < 0 || p.first_host + k > num_hosts)
      throw UserError(fmt::format("collective: hosts {}..{} do not exist (the topology has {} hosts)", p.first_host,
                                  p.first_host + k - 1, num_hosts));
    for (std::int32_t i = 0; i < k; ++i) hosts.push_back(p.first_host + i);
  }

  Workload w;
  switch (p.kind) {
    case CollectiveKind::kRingAllreduce:
      append_ring_allreduce(w, hosts, p.bytes, p.start, p.lb);
      break;
    case CollectiveKind::kButterflyAllreduce:
      append_butterfly_allreduce(w, hosts, p.bytes, p.start, p.lb, p.butterfly);
      break;
    case CollectiveKind::kAlltoall:
      append_alltoall(w, hosts, p.bytes, p.window, p.start, p.lb);
      break;
    case CollectiveKind::kPsAllreduce:
      append_ps_allreduce(w, hosts, p.root, p.bytes, p.ps_broadcast, p.start, p.lb);
      break;
    case CollectiveKind::kAllscatter:
      append_allscatter(w, hosts, p.root, p.bytes, p.start, p.lb);
      break;
  }

  if (p.background && k < num_hosts) {
    Rng rng(seed, hash_name("workload"), hash_name("collective.background"));
    append_permutation_of_rest(w, hosts, num_hosts, p.background_bytes > 0 ? p.background_bytes : p.bytes, p.start, rng,
                               w.tag("background"), p.background_lb);
  }
  return w;
}

namespace {
using namespace config;

// The collectives' shared keys ([Spritz] sec. V-B; docs/workloads.md "Collectives"), with the kinds
// that read each (a key no selected kind reads is refused: config::check_keys_read).
const std::vector<std::string> kAll{"ring_allreduce", "butterfly_allreduce", "alltoall", "ps_allreduce", "allscatter"};

[[maybe_unused]] const bool declared = [] {
  const std::string kind = "workload.kind";
  declare(
      {
          integer("workload.ranks", 0, "hosts", "Collectives: participating endpoints; 0 = all hosts.")
              .range(0, 1e7)
              .read_by(kind, kAll),
          flag("workload.random_subset", false,
               "Collectives: choose the ranks at random (seeded) instead of contiguously from first_host.")
              .read_by(kind, kAll),
          integer("workload.first_host", 0, "host id", "Collectives: first host of a contiguous subset.")
              .range(0, 1e7)
              .read_by(kind, kAll),
          integer("workload.window", 1, "connections", "alltoall: parallel connections per endpoint.")
              .range(1, 1e7)
              .read_by(kind, {"alltoall"}),
          text("workload.butterfly", "halving_doubling", "butterfly_allreduce variant.")
              .one_of({"halving_doubling", "recursive_doubling"})
              .read_by(kind, {"butterfly_allreduce"}),
          flag("workload.background", true,
               "Collectives: endpoints outside the collective run a permutation (tag background).")
              .read_by(kind, kAll),
          bytes("workload.background_bytes", 0, "Collectives: background message size; 0 = size.")
              .range(0, 1e15)
              .read_by(kind, kAll),
          text("workload.background_lb", "ecmp",
               "Collectives: load balancer of the background permutation ([Spritz] V-B: ECMP); `pinned_ecmp` = one "
               "bounded path per flow, the same under every routing and load balancer (docs/spritz.md, Fig. 7).")
              .read_by(kind, kAll),
      },
      "collectives");
  // The background permutation's load balancer is one the run uses (its keys are read).
  declare_selection("lb.algorithm", [](const Config& c) {
    const auto& k = c.text("workload.kind");
    const bool collective = std::find(kAll.begin(), kAll.end(), k) != kAll.end();
    return collective && c.flag("workload.background") ? std::vector<std::string>{c.text("workload.background_lb")}
                                                       : std::vector<std::string>{};
  });
  return true;
}();

std::function<Workload(const WorkloadContext&)> collective(CollectiveKind kind) {
  return [kind](const WorkloadContext& c) {
    const auto& cfg = c.cfg;
    CollectiveParams p;
    p.kind = kind;
    p.bytes = cfg.integer("workload.size");
    p.ranks = static_cast<std::int32_t>(cfg.integer("workload.ranks"));
    p.random_subset = cfg.flag("workload.random_subset");
    p.first_host = static_cast<std::int32_t>(cfg.integer("workload.first_host"));
    p.window = static_cast<std::int32_t>(cfg.integer("workload.window"));
    p.butterfly = cfg.text("workload.butterfly") == "recursive_doubling" ? ButterflyVariant::kRecursiveDoubling
                                                                         : ButterflyVariant::kHalvingDoubling;
    p.root = static_cast<std::int32_t>(cfg.integer("workload.root"));
    p.start = start_time(cfg);
    p.background = cfg.flag("workload.background");
    p.background_bytes = cfg.integer("workload.background_bytes");
    p.background_lb = cfg.text("workload.background_lb");
    return make_collective(p, c.topo.num_hosts, c.seed);
  };
}

// The collectives' sizes: `entries(k)` transfers among k ranks of which `concurrent(k, window)` x size bytes
// may be in progress at once, plus the background permutation of the hosts outside the collective.
std::function<WorkloadSize(const WorkloadSizeContext&)> collective_size(double (*entries)(double),
                                                                        double (*concurrent)(double k, double window)) {
  return [entries, concurrent](const WorkloadSizeContext& c) {
    const double hosts = c.topo.hosts;
    const double k = c.cfg.integer("workload.ranks") > 0
                         ? std::min(hosts, static_cast<double>(c.cfg.integer("workload.ranks")))
                         : hosts;
    const double size = static_cast<double>(c.cfg.integer("workload.size"));
    WorkloadSize s;
    s.entries = entries(k);
    s.concurrent_bytes = concurrent(k, static_cast<double>(c.cfg.integer("workload.window"))) * size;
    s.largest_message = size;
    s.keys = c.cfg.given("workload.ranks") ? "workload.ranks, workload.size"
                                           : "topology size (all hosts are ranks), workload.size";
    if (c.cfg.flag("workload.background") && hosts > k) {
      const auto bg = c.cfg.integer("workload.background_bytes");
      s.entries += hosts - k;
      s.concurrent_bytes += (hosts - k) * (bg > 0 ? static_cast<double>(bg) : size);
      s.largest_message = std::max(size, static_cast<double>(bg));
    }
    return s;
  };
}
double log2_ceil(double k) { return std::max(1.0, std::ceil(std::log2(std::max(2.0, k)))); }

const RegisterWorkload kRing{
    {{"ring_allreduce", "Ring allreduce: 2(k-1) steps of size/k per rank (docs/workloads.md).", {}, {}},
     collective(CollectiveKind::kRingAllreduce),
     collective_size([](double k) { return 2 * (k - 1) * k; }, [](double, double) { return 1.0; })}};
const RegisterWorkload kButterfly{
    {{"butterfly_allreduce", "Butterfly allreduce (halving-doubling or recursive doubling).", {}, {}},
     collective(CollectiveKind::kButterflyAllreduce),
     collective_size([](double k) { return 2 * k * log2_ceil(k); }, [](double k, double) { return k; })}};
const RegisterWorkload kAlltoall{
    {{"alltoall", "Windowed all-to-all: every rank sends `size` to every other rank.", {}, {}},
     collective(CollectiveKind::kAlltoall),
     collective_size([](double k) { return k * (k - 1); },
                     [](double k, double window) { return k * std::min(window, k - 1); })}};
const RegisterWorkload kPs{{{"ps_allreduce", "Parameter-server allreduce: every rank to the root, then back.", {}, {}},
                            collective(CollectiveKind::kPsAllreduce),
                            collective_size([](double k) { return k - 1; }, [](double k, double) { return k - 1; })}};
const RegisterWorkload kAllscatter{
    {{"allscatter", "Allscatter: the root sends `size` to every other rank.", {}, {}},
     collective(CollectiveKind::kAllscatter),
     collective_size([](double k) { return k - 1; }, [](double k, double) { return k - 1; })}};
}  // namespace

}  // namespace lbsim::workload
