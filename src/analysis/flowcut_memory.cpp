#include "analysis/flowcut_memory.h"

#include <algorithm>

#include <fmt/core.h>

#include "core/error.h"

namespace lbsim::analysis {

namespace {
// Packets one host can have in flight: B*l/M (B in bytes/s, l in s).
double host_packets(const FlowcutMemoryInput& in) { return in.gbps * 1e9 / 8 * in.latency_us * 1e-6 / in.mtu; }
constexpr double kMiB = 1024.0 * 1024.0;
}  // namespace

double active_flows(const FlowcutMemoryInput& in) {
  const double per_flow = host_packets(in) / in.flows_per_host;  // B*l/(f*M)
  return per_flow >= 1 ? in.hosts * in.flows_per_host : in.hosts * host_packets(in);
}

double active_flows_per_host(const FlowcutMemoryInput& in) { return std::min(in.flows_per_host, host_packets(in)); }

double full_switch_bytes(const FlowcutMemoryInput& in) { return active_flows(in) * 11; }
double ingress_switch_bytes(const FlowcutMemoryInput& in) { return in.ports * active_flows_per_host(in) * 10; }
double nic_bytes(const FlowcutMemoryInput& in) { return active_flows_per_host(in) * 10; }
double flowlet_bytes(const FlowcutMemoryInput& in) { return in.hosts * in.flows_per_host * 5; }
double flowcell_bytes(const FlowcutMemoryInput& in) { return in.hosts * in.flows_per_host * 2; }

std::string flowcut_memory_report(const std::string& which, double mtu, double ports, bool csv) {
  if (which != "all" && which != "4a" && which != "4b" && which != "4c" && which != "5")
    throw UserError("flowcut-memory: --fig must be 4a, 4b, 4c, 5 or all (got '" + which + "')");
  if (mtu <= 0 || ports <= 0) throw UserError("flowcut-memory: --mtu and --ports must be positive");
  const std::vector<double> fs{1, 10, 100, 1000, 10000};
  std::string out;
  const auto cell = [&](double v, bool first) {
    return csv ? fmt::format("{}{:.6g}", first ? "" : ",", v) : fmt::format(" {:>12.4f}", v);
  };
  const auto head = [&](const std::string& xname, const std::vector<std::string>& cols) {
    std::string s = csv ? xname : fmt::format("{:>10}", xname);
    for (const auto& c : cols) s += csv ? "," + c : fmt::format(" {:>12}", c);
    return s + "\n";
  };
  // Fig. 4: full switch for f = 1..10^4 flows per host, ingress and NIC at f = 10^4 (MiB).
  const auto fig4 = [&](const std::string& title, const std::string& xname, const std::vector<double>& xs, auto set_x) {
    out += fmt::format("{}{}\n", csv ? "# " : "", title);
    std::vector<std::string> cols;
    for (double f : fs) cols.push_back(fmt::format("full_f{:g}", f));
    cols.push_back("ingress_f1e4");
    cols.push_back("nic_f1e4");
    out += head(xname, cols);
    for (double x : xs) {
      FlowcutMemoryInput in;
      in.mtu = mtu;
      in.ports = ports;
      set_x(in, x);
      std::string row = csv ? fmt::format("{:g}", x) : fmt::format("{:>10g}", x);
      for (double f : fs) {
        in.flows_per_host = f;
        row += cell(full_switch_bytes(in) / kMiB, false);
      }
      in.flows_per_host = 1e4;
      row += cell(ingress_switch_bytes(in) / kMiB, false);
      row += cell(nic_bytes(in) / kMiB, false);
      out += row + "\n";
    }
    out += "\n";
  };
  if (which == "all" || which == "4a")
    fig4(fmt::format("Fig. 4(a): MiB per device, 1024 hosts, 200 Gb/s, MTU {} B, {} ports; x = RTT (us)", mtu, ports),
         "rtt_us", {1, 2, 5, 10, 20, 50},
         [](FlowcutMemoryInput& in, double x) { in.hosts = 1024, in.gbps = 200, in.latency_us = x; });
  if (which == "all" || which == "4b")
    fig4(fmt::format("Fig. 4(b): MiB per device, 1024 hosts, RTT 5 us, MTU {} B, {} ports; x = bandwidth (Gb/s)", mtu,
                     ports),
         "gbps", {200, 400, 800, 1600},
         [](FlowcutMemoryInput& in, double x) { in.hosts = 1024, in.gbps = x, in.latency_us = 5; });
  if (which == "all" || which == "4c")
    fig4(fmt::format("Fig. 4(c): MiB per device, 800 Gb/s, RTT 5 us, MTU {} B, {} ports; x = hosts", mtu, ports),
         "hosts", {1024, 2048, 4096, 8192, 16384, 32768, 65536},
         [](FlowcutMemoryInput& in, double x) { in.hosts = x, in.gbps = 800, in.latency_us = 5; });
  if (which == "all" || which == "5") {
    out += fmt::format(
        "{}Fig. 5: MiB per switch (NIC only: per NIC), 1024 hosts, 200 Gb/s, 10^4 flows per host, MTU {} B; "
        "x = RTT (us)\n",
        csv ? "# " : "", mtu);
    out += head("rtt_us", {"flowcell", "flowlet", "flowcut_full", "ingress", "nic"});
    for (double x : {1.0, 2.0, 5.0, 10.0, 20.0, 50.0}) {
      FlowcutMemoryInput in;
      in.mtu = mtu;
      in.ports = ports;
      in.hosts = 1024;
      in.gbps = 200;
      in.flows_per_host = 1e4;
      in.latency_us = x;
      out += (csv ? fmt::format("{:g}", x) : fmt::format("{:>10g}", x)) + cell(flowcell_bytes(in) / kMiB, false) +
             cell(flowlet_bytes(in) / kMiB, false) + cell(full_switch_bytes(in) / kMiB, false) +
             cell(ingress_switch_bytes(in) / kMiB, false) + cell(nic_bytes(in) / kMiB, false) + "\n";
    }
  }
  return out;
}

}  // namespace lbsim::analysis
