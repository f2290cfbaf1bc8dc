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
