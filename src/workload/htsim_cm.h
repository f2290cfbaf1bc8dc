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
// A connection starts at `start` (unit: start_unit; with detect_unit - workload.htsim_start_unit =
// "auto", the default - picoseconds when the largest start is 1e6 or more, as htsim's generators write
// them (us x 1e6; the REPS artifact), else microseconds as in the UEC htsim's hand-written files; a
// warning names the unit chosen for picoseconds) or when trigger X fires. `size 0` (htsim: an
// unbounded flow that sends until the simulation ends) is rejected: lbsim transfers have a size.
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
#include <vector>

#include "core/time.h"
#include "workload/flow_spec.h"

namespace lbsim::workload {

struct HtsimCmParams {
  std::string path;
  SimTime start_unit = us(1);  // picoseconds per unit of `start`
  bool detect_unit = false;    // "auto": ps when the largest start is >= 1e6, else us (start_unit unused)
  std::vector<std::string>* warnings = nullptr;  // the unit detected, for the user
  std::string lb;
};

Workload parse_htsim_cm(std::istream& in, std::string_view name, const HtsimCmParams& p, std::int32_t num_hosts);
Workload read_htsim_cm(const HtsimCmParams& p, std::int32_t num_hosts);

}  // namespace lbsim::workload
