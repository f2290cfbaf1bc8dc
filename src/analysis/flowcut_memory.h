// The analytic Flowcut memory model of [Flowcut] sec. III-A2 (Eq. 1, Fig. 4 and 5, Table III).
//
// With H hosts, f flows per host sharing a host bandwidth B (bytes/s) equally, packets of M bytes
// and a packet latency l (the figures use the RTT), a flow has b*l/M = B*l/(f*M) packets in flight;
// when that is at least one every flow is active, otherwise a host has at most B*l/M active flows
// (one packet each). The largest number of active flows in the network is therefore (Eq. 1)
//     F = H*f          if B*l/(f*M) >= 1
//     F = H*B*l/M      otherwise.
// Memory of one device in the worst case (Fig. 4): full switch = every active flow of the network x
// 11 bytes (Table III); ingress only = the active flows of the hosts behind its P input ports x 10
// bytes; NIC only = the active flows of one host x 10 bytes. Fig. 5 adds Flowlet (5 B per flow) and
// Flowcell (2 B) switches; their tables are not tied to data in flight, so the model counts every flow
// of the network (H*f): the assumption the paper leaves implicit (docs/flowcut.md).
#pragma once
#include <string>
#include <vector>

namespace lbsim::analysis {

struct FlowcutMemoryInput {
  double hosts = 1024;        // H
  double flows_per_host = 1;  // f
  double gbps = 200;          // B in Gb/s
  double latency_us = 5;      // l
  double mtu = 2048;          // M in bytes (Fig. 4/5: 2 KiB)
  double ports = 64;          // P: input ports of an ingress switch (Fig. 4: 64-port switches)
};

// Eq. 1: the largest number of active flows in the network.
double active_flows(const FlowcutMemoryInput& in);
// Active flows of one host: min(f, B*l/M).
double active_flows_per_host(const FlowcutMemoryInput& in);

// Worst-case bytes of one device.
double full_switch_bytes(const FlowcutMemoryInput& in);     // F x 11
double ingress_switch_bytes(const FlowcutMemoryInput& in);  // P x per-host active x 10
double nic_bytes(const FlowcutMemoryInput& in);             // per-host active x 10
double flowlet_bytes(const FlowcutMemoryInput& in);         // H x f x 5
double flowcell_bytes(const FlowcutMemoryInput& in);        // H x f x 2

// The series of Fig. 4 (a: RTT sweep, b: bandwidth sweep, c: host sweep) and Fig. 5 as text tables
// in MiB; `which` is "4a", "4b", "4c", "5" or "all". `csv` prints comma-separated values instead.
std::string flowcut_memory_report(const std::string& which, double mtu, double ports, bool csv);

}  // namespace lbsim::analysis
