#include "metrics/report.h"

#include <algorithm>

#include <fmt/core.h>
#include <fmt/ostream.h>

#include "core/stats.h"
#include "core/text.h"

namespace lbsim::metrics {

Distribution distribution(const std::vector<double>& v) {
  Distribution d;
  d.count = v.size();
  if (v.empty()) return d;
  d.max = *std::max_element(v.begin(), v.end());
  d.min = *std::min_element(v.begin(), v.end());
  d.mean = mean(v);
  d.p50 = percentile(v, 50);
  d.p99 = percentile(v, 99);
  return d;
}

const char* flows_csv_header() {
  return "id,src,dst,bytes,tag,lb,kind,finished,start_us,finish_us,fct_us,ideal_fct_us,slowdown,"
         "sender_done_us,packets,packets_sent,retransmits,nacks,timeouts,ecn_acks,ooo_packets,"
         "duplicates,trimmed_rx,max_reorder,sender_fct_us\n";
}

void write_flow_row(std::ostream& os, const FlowResult& f) {
  const double fct = f.finished ? to_us(f.fct()) : -1.0;
  const double slow = f.finished && f.ideal > 0 ? static_cast<double>(f.fct()) / static_cast<double>(f.ideal) : -1.0;
  fmt::print(
      os, "{},{},{},{},{},{},{},{},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{},{},{},{},{},{},{},{},{},{},{:.6f}\n",
      f.id, f.src, f.dst, f.bytes, f.tag, f.lb, f.compute ? "compute" : "transfer", f.finished ? 1 : 0,
      f.start >= 0 ? to_us(f.start) : -1.0, f.finished ? to_us(f.finish) : -1.0, fct, to_us(f.ideal), slow,
      f.sender_done >= 0 ? to_us(f.sender_done) : -1.0, f.packets, f.packets_sent, f.retransmits, f.nacks, f.timeouts,
      f.ecn_acks, f.ooo, f.duplicates, f.trimmed_rx, f.max_reorder, f.sender_fct() >= 0 ? to_us(f.sender_fct()) : -1.0);
}

void write_flows_csv(std::ostream& os, const std::vector<FlowResult>& flows) {
  os << flows_csv_header();
  for (const auto& f : flows) write_flow_row(os, f);
}

void write_ports_csv(std::ostream& os, const std::vector<PortRow>& ports) {
  os << "node,node_label,port,peer,peer_label,link_kind,rate_gbps,tx_packets,tx_bytes,utilization,drops,trims,"
        "ecn_marks,failure_drops,max_queue_bytes,no_route_drops\n";
  for (const auto& p : ports)
    fmt::print(os, "{},{},{},{},{},{},{:.3f},{},{},{:.6f},{},{},{},{},{},{}\n", p.node, csv_field(p.node_label), p.port,
               p.peer, csv_field(p.peer_label), p.link_kind, p.rate_gbps, p.tx_packets, p.tx_bytes, p.utilization,
               p.drops, p.trims, p.ecn_marks, p.failure_drops, p.max_queue_bytes, p.no_route_drops);
}

void write_queues_csv(std::ostream& os, const std::vector<QueueSample>& samples,
                      const std::function<const std::string&(std::int32_t)>& label) {
  os << "time_us,node,port,peer,data_bytes,ctrl_bytes,blocked,node_label,peer_label\n";
  for (const auto& q : samples)
    fmt::print(os, "{:.3f},{},{},{},{},{},{},{},{}\n", to_us(q.time), q.node, q.port, q.peer, q.data_bytes,
               q.ctrl_bytes, q.blocked ? 1 : 0, csv_field(label(q.node)), csv_field(label(q.peer)));
}

}  // namespace lbsim::metrics
