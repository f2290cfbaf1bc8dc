// laps_trace.csv (output.laps_trace; docs/outputs.md): every ACK and probe answer a LAPS sender
// received, with the rate decision of [LAPS] sec. 3.6 it led to.
#include <fmt/format.h>

#include "lb/laps.h"

namespace lbsim::lb {

void write_laps_trace(std::ostream& os, const LapsShared& sh) {
  os << "time_us,flow,src,dst,path,probe,sent_us,one_way_us,read_us,T_us,min_valid_us,valid,slow,action,"
        "cur_gbps,exp_gbps,hyper,bytes\n";
  std::string line;
  for (const auto& r : sh.trace_rows) {
    line.clear();
    fmt::format_to(std::back_inserter(line),
                   "{:.6f},{},{},{},{},{},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{},{},{},{:.6g},{:.6g},{},{}\n",
                   to_us(r.now), r.flow, r.src, r.dst, r.path, r.probe ? 1 : 0, to_us(r.sent), to_us(r.one_way),
                   to_us(r.read), to_us(r.T), r.min_valid < 0 ? -1.0 : to_us(r.min_valid), r.valid, r.slow, r.action,
                   r.cur_bps / 1e9, r.exp_bps / 1e9, r.hyper ? 1 : 0, r.bytes);
    os << line;
  }
}

}  // namespace lbsim::lb
