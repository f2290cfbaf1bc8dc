#!/usr/bin/python3
"""Analysis of one LAPS incast run (scripts/laps_incast.sh; docs/laps.md "Incast"): reads a run
folder written with output.laps_trace = true and output.queue_sample_us > 0 and prints markdown:
the receiver link's utilisation and the senders' rates over time, the rate decisions ([LAPS] sec.
3.6) and one sender's trace.

Usage: laps_incast.py RUN_DIR [BIN_US] [SENDER_FLOW]
"""
import json
import re
import sys

import numpy as np
import pandas as pd

run = sys.argv[1]
bin_us = float(sys.argv[2]) if len(sys.argv) > 2 else 1000.0
one = int(sys.argv[3]) if len(sys.argv) > 3 else None

s = json.load(open(f"{run}/summary.json"))
tr = pd.read_csv(f"{run}/laps_trace.csv")
q = pd.read_csv(f"{run}/queues.csv")
ports = pd.read_csv(f"{run}/ports.csv")
flows = pd.read_csv(f"{run}/flows.csv")

root = int(flows.dst.mode())
root_label = ports.loc[ports.node == root, "node_label"].iloc[0]
down = ports[ports.peer == root].iloc[0]  # the receiver's downlink (its switch's port towards it)
rate_gbps = float(down.rate_gbps)
end = float(s["makespan_us"])
nflows = len(flows)
line = float(tr.cur_gbps.max())  # every flow starts at the NIC rate
min_rate = float(tr.cur_gbps.min())
T = float(tr.T_us.mode().iloc[0])  # most senders' T (the inter-cluster pairs'; an intra-cluster pair has one path)

# Receiver downlink utilisation from the data arrivals (arrival = sent + one-way latency: the time
# the packet's last bit reached the receiver, so the link carried its bytes just before).
data = tr[tr.probe == 0]
arr = data.sent_us + data.one_way_us
edges = np.arange(0, end + bin_us, bin_us)
wire, _ = np.histogram(arr, bins=edges, weights=data.bytes)
util = wire * 8 / (rate_gbps * 1e3 * bin_us)


# Aggregate sending rate: each flow's curRate is a step function of time (it changes at its ACKs);
# the time average of the sum over the flows that are still sending.
def rate_integral(g):
    t = np.concatenate([[float(flows.loc[flows.id == g.name, "start_us"].iloc[0])], g.time_us.values])
    r = np.concatenate([[line], g.cur_gbps.values])
    done = float(flows.loc[flows.id == g.name, "sender_done_us"].iloc[0])
    stop = done if done > 0 else float(g.time_us.max())
    return t, r, stop


agg = np.zeros(len(edges) - 1)
floor_time = 0.0
for fid, g in tr.groupby("flow"):
    g.name = fid
    t, r, stop = rate_integral(g)
    t_end = np.append(t[1:], stop)
    for a, b, x in zip(t, t_end, r):
        if b <= a:
            continue
        if x <= min_rate * 1.0001:
            floor_time += b - a
        i0, i1 = int(a // bin_us), int(min(b, edges[-1] - 1e-9) // bin_us)
        for i in range(i0, min(i1, len(agg) - 1) + 1):
            lo, hi = max(a, edges[i]), min(b, edges[i + 1])
            if hi > lo:
                agg[i] += x * (hi - lo) / bin_us

# Decisions per bin, and ACKs whose valid paths were all above T.
acts = tr[tr.action != 0]
dec = np.histogram(tr.time_us[tr.action < 0], bins=edges)[0]
inc = np.histogram(tr.time_us[tr.action > 0], bins=edges)[0]
all_slow = np.histogram(tr.time_us[(tr.valid > 0) & (tr.slow == tr.valid)], bins=edges)[0]
acks = np.histogram(tr.time_us, bins=edges)[0]
lat = data.assign(b=(data.time_us // bin_us).astype(int)).groupby("b").one_way_us.median()

# Queue at the receiver's downlink and PFC pauses (queues.csv samples).
# queues.csv lists only non-empty ports: a missing sample is an empty queue.
cfg = open(f"{run}/config.toml").read()
m = re.search(r"^queue_sample_us = ([0-9.e+-]+)", cfg, re.M)
sample_us = float(m.group(1))
qs = q[(q.node == int(down.node)) & (q.port == int(down.port))]
qb = qs.assign(b=(qs.time_us // bin_us).astype(int)).groupby("b").data_bytes.sum() / (bin_us / sample_us)
paused = q[q.blocked == 1]
pb = paused.assign(b=(paused.time_us // bin_us).astype(int)).groupby("b").size()
# The initial burst: every sender starts at the NIC rate with a full window; it has drained when the
# receiver's queue is first seen empty.
times = np.round(np.arange(sample_us, end, sample_us), 6)
listed = set(np.round(qs.time_us.values, 6))
drained = next((t for t in times if t > qs.time_us.min() and t not in listed), end)

print(f"({s['topology']['kind']}, {nflows} senders to {root_label}, {flows.bytes.iloc[0] / 2**20:g} MiB each, "
      f"{s['flow_control']['mode'] if 'flow_control' in s else 'lossy'}, seed {s['seed']}; bins of {bin_us:g} us)")
print()
print("| time (us) | receiver link busy | sum of curRate (Gb/s) | ACKs with all valid paths > T | decreases | increases "
      "| median one-way latency (us) | receiver queue (KB) | paused port samples |")
print("|---|---|---|---|---|---|---|---|---|")
for i in range(len(edges) - 1):
    print(f"| {edges[i]:.0f}-{edges[i + 1]:.0f} | {100 * util[i]:.0f} % | {agg[i]:.1f} | "
          f"{100 * all_slow[i] / max(1, acks[i]):.0f} % | {dec[i]} | {inc[i]} | {lat.get(i, float('nan')):.1f} | "
          f"{qb.get(i, 0) / 1e3:.0f} | {pb.get(i, 0)} |")
print()

# Run-wide numbers.
busy = float(data.bytes.sum()) * 8 / (rate_gbps * 1e3) / end
d = tr[tr.action < 0].copy()
d["prev"] = d.groupby("flow").time_us.shift()
blind = d[d.prev.notna()]
blind_share = float((blind.sent_us < blind.prev).mean()) if len(blind) else 0.0
gaps = blind.time_us - blind.prev
first_floor = tr[tr.cur_gbps <= min_rate * 1.0001].groupby("flow").time_us.min()
sender_time = float((flows.sender_done_us.where(flows.sender_done_us > 0, end) - flows.start_us).sum())
print("| quantity | value |")
print("|---|---|")
print(f"| makespan (us) | {end:.0f} |")
print(f"| time the receiver link needs for the bytes at {rate_gbps:g} Gb/s (us) | {busy * end:.0f} |")
print(f"| receiver link busy over the makespan | {100 * busy:.0f} % |")
before = float(data.bytes[arr <= drained].sum()) * 8 / (rate_gbps * 1e3)
after = float(data.bytes[arr > drained].sum()) * 8 / (rate_gbps * 1e3)
print(f"| the initial burst: receiver queue first empty at (us); link busy until then | {drained:.0f}; "
      f"{100 * before / drained:.0f} % |")
print(f"| after it: link busy | {100 * after / max(1e-9, end - drained):.0f} % of {end - drained:.0f} us |")
print(f"| T = the largest idle one-way latency of a sender's paths (us); 2T | {T:.2f}; {2 * T:.2f} |")
print(f"| fair share of the receiver link per sender (Gb/s) | {rate_gbps / nflows:.2f} |")
print(f"| minimum rate lb.laps_min_rate_gbps (Gb/s); {nflows} senders at it (Gb/s) | {min_rate:g}; {nflows * min_rate:.1f} |")
print(f"| rate decreases / increases / hyper phases (all senders) | {s['laps']['rate_decreases']} / "
      f"{s['laps']['rate_increases']} / {s['laps']['hyper_phases']} |")
print(f"| decreases per sender (mean) | {len(d) / nflows:.0f} |")
print(f"| median time between a sender's decreases (us) | {gaps.median():.1f} |")
print(f"| decreases triggered by the ACK of a packet sent before the sender's previous decrease | "
      f"{100 * blind_share:.0f} % |")
print(f"| senders that reached the minimum rate; median time of the first (us) | {len(first_floor)}; "
      f"{first_floor.median():.0f} |")
print(f"| sender time spent at the minimum rate (sum over senders / their sending time) | "
      f"{100 * floor_time / sender_time:.0f} % |")
inter = tr[tr.T_us == T]
print(f"| valid paths per ACK (mean over the pairs with T above; fewest) | {inter.valid.mean():.1f} of "
      f"{int(inter.valid.max())}; {int(inter.valid.min())} |")
print(f"| probes sent (per sender) | {s['laps']['probes_sent']} ({s['laps']['probes_sent'] / nflows:.0f}) |")
print(f"| data packets (per sender) | {int(flows.packets.sum())} ({flows.packets.iloc[0]}) |")
print(f"| data packets whose ACK is in the trace (the rest were in flight when the last receiver finished) | "
      f"{len(data)} |")
fc = s.get("flow_control", {})
if fc.get("mode") == "pfc":
    print(f"| PFC pause frames; switch ports paused at least once; paused time summed over ports (us) | "
          f"{fc['pause_frames']}; {fc['paused_ports']}; {fc['paused_us']:.0f} |")
    print(f"| time the senders' NICs were paused (us) | {fc['nic_blocked_us']:.0f} |")
print()

if one is None:
    one = int(flows.id.iloc[len(flows) // 2])
g = tr[tr.flow == one]
f = flows[flows.id == one].iloc[0]
src_label = ports.loc[ports.node == int(f.src), "node_label"].iloc[0]
print(f"One sender: flow {one} ({src_label} to {root_label}, FCT {f.fct_us:.0f} us, T = {g.T_us.iloc[0]:.2f} us), "
      f"its rate decisions as runs of consecutive decreases or increases: when, how many, curRate before and after, "
      f"the one-way latency of the ACKs that triggered them and the time their data packets were sent:")
print()
print("| from (us) | to (us) | decisions | curRate (Gb/s) | expRate after (Gb/s) | triggering one-way latency (us) "
      "| their packets sent (us) |")
print("|---|---|---|---|---|---|---|")
ga = g[g.action != 0].reset_index(drop=True)
prev_cur = line
k = 0
while k < len(ga):
    j = k
    while j + 1 < len(ga) and ga.action[j + 1] == ga.action[k]:
        j += 1
    run_ = ga.iloc[k:j + 1]
    kind = "decrease" if ga.action[k] < 0 else "increase"
    print(f"| {run_.time_us.iloc[0]:.1f} | {run_.time_us.iloc[-1]:.1f} | {len(run_)} {kind}{'s' if len(run_) > 1 else ''} | "
          f"{prev_cur:.3g} -> {run_.cur_gbps.iloc[-1]:.3g} | {run_.exp_gbps.iloc[-1]:.3g} | "
          f"{run_.one_way_us.min():.1f}-{run_.one_way_us.max():.1f} | {run_.sent_us.min():.1f}-{run_.sent_us.max():.1f} |")
    prev_cur = run_.cur_gbps.iloc[-1]
    k = j + 1
