#!/usr/bin/env python3
"""Events per data packet by kind (docs/scale.md "Events per data packet"; docs/results/event-cost.md).

Runs each scenario once with the given lbsim binary and prints, from summary.json's
"events_by_kind", a markdown table: events of each kind, per data packet put on the wire by a host
(first transmissions and retransmissions).

Usage: scripts/event_breakdown.py [LBSIM] [--quick]
  --quick: only the small scenarios (the 128-host demo permutation and the Spritz incast), seconds.
Default scenarios: the `make bench` lines (scripts/bench.sh): the 1024-host fat tree 8 MiB
permutation with OPS and the 1056-host Dragonfly 8 MiB permutation with UGAL-L, plus the two small ones.
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
args = [a for a in sys.argv[1:] if not a.startswith("--")]
quick = "--quick" in sys.argv
lbsim = args[0] if args else os.path.join(ROOT, "build", "lbsim")

SCENARIOS = [
    ("demo: 128-host fat tree, 4 MiB permutation, ECMP", "examples/demo.toml", []),
    ("spritz incast_bystanders (Dragonfly)", "examples/spritz/incast_bystanders.toml", []),
]
if not quick:
    SCENARIOS = [
        ("bench: 1024-host fat tree, 8 MiB permutation, OPS", "examples/fat_tree_1024_permutation.toml", []),
        ("bench: 1056-host Dragonfly, 8 MiB permutation, UGAL-L", "examples/routing/dragonfly_permutation.toml",
         ["--set", 'workload.size="8MiB"', "--set", 'routing.algorithm="ugal_l"']),
    ] + SCENARIOS

ORDER = ["arrive_switch", "arrive_host", "tx_next_sent", "tx_next_idle", "entry_start", "rto", "ack_flush",
         "hold_wake", "pace_wake", "pause_timeout", "compute_done", "queue_sample", "fail_start", "fail_end",
         "route_dead", "route_alive", "credit", "pause", "resume", "stall_check"]

print(f"<!-- scripts/event_breakdown.py{' --quick' if quick else ''} -->")
for title, cfg, extra in SCENARIOS:
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([lbsim, "run", os.path.join(ROOT, cfg), "--out", out, "--quiet", "--set", "output.ports_csv=false"]
                       + extra, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        j = json.load(open(os.path.join(out, "summary.json")))
    e = j["events_by_kind"]
    c = e["counts"]
    n = e["data_packets_sent"]
    print(f"\n**{title}** (`{cfg}`): {j['events']:,} events, {n:,} data packets sent, "
          f"{e['total_per_data_packet']:.3f} events per data packet\n")
    print("| kind | events | per data packet |")
    print("|---|---:|---:|")
    for k in ORDER:
        if c.get(k):
            print(f"| {k} | {c[k]:,} | {c[k] / n:.3f} |")
