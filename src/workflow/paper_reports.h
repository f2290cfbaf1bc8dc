// What `lbsim reproduce` prints after the sweep of some entries: the figure's metric computed from
// the sweep's run folders, next to the paper's statement (catalog.h, Entry::report).
#pragma once
#include <string>

#include "workflow/sweep.h"

namespace lbsim::workflow {

// [REPS] sec. 4.5.2, Fig. 15 (left): the completion time (max FCT) per load balancer and
// network.ev_bits, relative to the largest EVS of the same load balancer and seed; mean and
// min..max over the seeds, beside the paper's percentages. Runs that did not complete are left
// out (and counted).
std::string reps_fig15_report(const Sweep& sw);

}  // namespace lbsim::workflow

namespace lbsim::workflow {

// [Spritz] sec. V: the metric each figure shows, per scheme (the sweep's `scheme` axis) and setting
// (case and the other axes), mean [min..max] over the seeds (run.seed axis), next to the paper's
// value or statement. Runs that did not complete are left out (and counted).
//   Table III: FCT of the monitored flow (tag `monitored`), loaded and solo.
//   Fig. 6: p99 FCT, dropped (trimmed + dropped) packets, OOO %; Spray's margin over the next best.
//   Fig. 7: collective duration (last finish - first start over the non-background flows), the
//           background's p99, and the web-search p99 FCT.
//   Fig. 8: incast p99 (tag incast), bystander p50 / p99 (tag bystander), retransmissions.
//   Fig. 9: as Fig. 6 / 7 per workload, plus packets lost on failed links; Spritz's margin.
std::string spritz_table3_report(const Sweep& sw);
std::string spritz_fig6_report(const Sweep& sw);
std::string spritz_fig7_report(const Sweep& sw);
std::string spritz_fig8_report(const Sweep& sw);
std::string spritz_fig9_report(const Sweep& sw);

}  // namespace lbsim::workflow

namespace lbsim::workflow {

// [LAPS] sec. 4.2 (entries laps-fig5 .. laps-fig8, laps-table1): average and p99 FCT per scheme (the
// sweep's `scheme` axis) and load (or Table 1's drop case), mean [min..max] over the seeds, each
// scheme's average FCT over LAPS's, next to the paper's numbers (Fig. 5 ratios at 80 % load, Fig. 6
// p99 at 80 %, Table 1 in ms) or its statement (Fig. 7, 8). Runs that did not complete are left out.
std::string laps_report(const Sweep& sw);

}  // namespace lbsim::workflow
