// The bespoke report kinds and blocks a manifest selects by name (reports.h): computations that the
// generic "table" report does not express.
#include <algorithm>
#include <map>
#include <tuple>
#include <vector>

#include <fmt/core.h>

#include "workflow/reports.h"

namespace lbsim::workflow {

namespace {

std::string column(const std::vector<std::string>& row, const char* name) {
  const auto& cols = metric_columns();
  const auto it = std::find(cols.begin(), cols.end(), name);
  return it == cols.end() ? "" : row[static_cast<std::size_t>(it - cols.begin())];
}

}  // namespace

// "evs_size": [REPS] sec. 4.5.2 ("REPS works equally well with 256 and 64K EVs and is only 8% slower
// with 32 EVs. On the other hand, OPS is 21% and 64% slower with 256 and 32 EVs when compared to
// 64K"): per seed, the max FCT over the one with the largest EVS of the same load balancer.
std::string evs_size_report(const Sweep& sw, const ReportSpec& spec) {
  std::vector<std::string> lbs;
  std::map<std::string, std::vector<int>> bits_of;
  std::map<std::tuple<std::string, int, std::int64_t>, double> fct;  // (lb, bits, seed) -> max FCT
  int skipped = 0;
  std::vector<std::int64_t> seeds;
  for (const auto& p : sw.points) {
    const std::string lb = p.cfg.text("lb.algorithm");
    const int bits = static_cast<int>(p.cfg.integer("network.ev_bits"));
    const std::int64_t seed = p.cfg.integer("run.seed");
    if (std::find(lbs.begin(), lbs.end(), lb) == lbs.end()) lbs.push_back(lb);
    auto& b = bits_of[lb];
    if (std::find(b.begin(), b.end(), bits) == b.end()) b.push_back(bits);
    if (std::find(seeds.begin(), seeds.end(), seed) == seeds.end()) seeds.push_back(seed);
    const auto row = metrics_row(p);
    if (row[0] != "ok" || column(row, "max_fct_us").empty()) {
      ++skipped;
      continue;
    }
    fct[{lb, bits, seed}] = std::stod(column(row, "max_fct_us"));
  }
  std::string s = fmt::format("{}{} seed(s); mean [min..max] over the seeds\n", spec.title, seeds.size());
  s += fmt::format("{:<8} {:>7} {:>8} {:>28} {:>26} {:>12}\n", "lb", "ev_bits", "EVs", "max FCT (us)", "vs largest EVS",
                   "paper");
  for (const auto& lb : lbs) {
    auto bits = bits_of[lb];
    std::sort(bits.begin(), bits.end());
    const int ref = bits.back();
    for (const int b : bits) {
      std::vector<double> abs, rel;
      for (const auto seed : seeds) {
        const auto it = fct.find({lb, b, seed});
        if (it == fct.end()) continue;
        abs.push_back(it->second);
        const auto r = fct.find({lb, ref, seed});
        if (r != fct.end()) rel.push_back(it->second / r->second - 1.0);
      }
      const auto a = range(abs), r = range(rel);
      const std::string pv = paper_value(spec.paper, std::to_string(b), "", lb);
      s += fmt::format("{:<8} {:>7} {:>8} {:>28} {:>26} {:>12}\n", lb, b, std::int64_t{1} << b,
                       abs.empty() ? "-" : fmt::format("{:.1f} [{:.1f}..{:.1f}]", a.mean, a.min, a.max),
                       b == ref ? "reference"
                       : rel.empty()
                           ? "-"
                           : fmt::format("{:+.1f}% [{:+.1f}..{:+.1f}]", 100 * r.mean, 100 * r.min, 100 * r.max),
                       b == ref && ref == 16 ? "reference"
                       : pv.empty()          ? "-"
                                             : pv);
    }
  }
  if (skipped) s += fmt::format("({} run(s) not completed are left out)\n", skipped);
  for (const auto& n : spec.notes) s += n + "\n";
  return s;
}

// One line per scheme naming what it ran (from the resolved config of its first point): switch
// routing, load balancer, congestion control, loss recovery and window (docs/laps.md "Transport
// per scheme").
std::string laps_legend(const Sweep& sw) {
  std::vector<std::string> seen;
  std::string s = "schemes (routing / lb / cc / recovery / window):\n";
  for (const auto& p : sw.points) {
    std::string scheme = p.cfg.text("lb.algorithm");
    for (std::size_t i = 0; i < sw.spec.axes.size() && i < p.labels.size(); ++i)
      if (sw.spec.axes[i].key == "scheme") scheme = p.labels[i];
    if (std::find(seen.begin(), seen.end(), scheme) != seen.end()) continue;
    seen.push_back(scheme);
    const auto& c = p.cfg;
    const std::string lb = c.text("lb.algorithm");
    std::string recovery;
    if (c.text("transport.delivery") == "in_order")
      recovery = c.text("transport.in_order_recovery") == "go_back_n" ? "go-back-N (RoCE), in-order delivery"
                                                                      : "in-order delivery, reorder buffer";
    else
      recovery = lb == "laps" ? "selective (per-path ACK order, LAPS sec. 3.7)" : "selective (out-of-order placement)";
    std::string cc = c.text("transport.cc");
    const bool artifact = lb == "laps" && c.text("lb.laps_sender") == "artifact";
    if (cc == "none" && lb == "laps")
      cc = artifact ? "none (the artifact's LAPS sender: not paced)" : "none (LAPS rate control, sec. 3.6)";
    if (cc == "dctcp") cc = fmt::format("dctcp (g = 1/{:g})", 1 / c.real("transport.dctcp_g"));
    // The window: transport.cwnd_packets when set (the artifact configs' one window), else the BDP
    // multiples; the artifact's LAPS sender keeps its own, 2 x T x the NIC rate (docs/laps.md).
    const double w0 = c.real("transport.init_cwnd_bdp"), w1 = c.real("transport.max_cwnd_bdp");
    std::string window = w0 == w1 ? fmt::format("{:g} BDP", w0) : fmt::format("{:g}-{:g} BDP", w0, w1);
    if (const auto cw = c.integer("transport.cwnd_packets"); cw > 0) window = fmt::format("{} packets", cw);
    if (artifact) window = "2 x T x NIC rate";
    s += fmt::format("  {}: {} / {} / {} / {} / {}; network {}\n", scheme, c.text("routing.algorithm"), lb, cc,
                     recovery, window, c.text("network.flow_control"));
  }
  return s;
}

}  // namespace lbsim::workflow
