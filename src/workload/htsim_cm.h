// htsim connection-matrix files (.cm), as read by htsim's datacenter experiments (UEC htsim, the REPS
// artifact of [REPS] App. E). Grammar (one item per line, '#' starts a comment, tokens separated by
// blanks):
//
//   Nodes <N>                 header lines, before the first connection, any order
//   Connections <C>
//   Triggers <T>              (optional)
//   <src>-><dst> [id <I>] [start <t>] [size <bytes>] [trigger <X>]
//                 [send_done_trigger <X>] [recv_done_trigger <X>] [prio <p>] [addon]
//   trigger id <X> oneshot|multishot|barrier [count <K>]
//
// A connection starts at `start` (unit: start_unit, microseconds by default as in the UEC htsim; the
// REPS artifact writes picoseconds, so pass start_unit = 1 ps for its files) or when trigger X fires.
// Triggers become completion dependencies when that is exact:
//   - barrier with count K fires after K signals: exact when exactly K connections signal X (deps =
//     those connections);
//   - oneshot / multishot fire on the first signal: exact when exactly one connection signals X.
// Other trigger uses ("any K of M") cannot be expressed by FlowSpec deps and are rejected with an error
// naming the trigger. send_done_trigger and recv_done_trigger both map to completion of the signalling
// connection (lbsim completes a transfer when the receiver has every byte; htsim's send-done comes one
// ACK later). `prio` and `addon` are accepted and ignored; `failure` lines are rejected (configure
// failures in the run config). Host ids are the htsim node ids.
#pragma once
#include <cstdint>
#include <istream>
#include <string>
#include <string_view>

#include "core/time.h"
#include "workload/flow_spec.h"

namespace lbsim::workload {

struct HtsimCmParams {
  std::string path;
  SimTime start_unit = us(1);  // picoseconds per unit of `start`
  std::string lb;
};

Workload parse_htsim_cm(std::istream& in, std::string_view name, const HtsimCmParams& p,
                        std::int32_t num_hosts);
Workload read_htsim_cm(const HtsimCmParams& p, std::int32_t num_hosts);

}  // namespace lbsim::workload
