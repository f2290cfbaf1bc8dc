#!/usr/bin/python3
"""[REPS] Fig. 15 (left) from Python: the completion time of a permutation with 32, 256 and 64K EVs
per connection, OPS vs REPS, relative to 64K EVs - next to the paper's numbers (sec. 4.5.2: "REPS works
equally well with 256 and 64K EVs and is only 8% slower with 32 EVs. On the other hand, OPS is 21% and
64% slower with 256 and 32 EVs when compared to 64K").

The scenario is the one `lbsim reproduce reps-fig15 --quick` runs (its sweep file is read from
`lbsim reproduce reps-fig15 --quick --print`), each point run in this process with lbsim.run:

    PYTHONPATH=build/python /usr/bin/python3 examples/python/reps_fig15.py [--tiny] [--out DIR]

--tiny: 32 hosts, 256 KiB, one seed (seconds; the test suite runs it). Writes DIR/reps_fig15.csv and
DIR/reps_fig15.svg (default DIR: results/python).
"""
import argparse
import os
import subprocess
import tomllib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

import lbsim

PAPER = {("reps", 5): 1.08, ("reps", 8): 1.00, ("ops", 5): 1.64, ("ops", 8): 1.21}  # relative to 64K EVs

ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("--tiny", action="store_true")
ap.add_argument("--out", default="results/python")
a = ap.parse_args()

# 1. The scenario: the catalogue's quick sweep file ([set] = the config, [grid] = what varies).
sweep = tomllib.loads(subprocess.run([lbsim.executable(), "reproduce", "reps-fig15", "--quick", "--print"],
                                     capture_output=True, text=True, check=True).stdout)
config, grid = dict(sweep["set"]), sweep["grid"]
if a.tiny:
    config.update({"topology.hosts": 32, "workload.size": "256KiB"})
    grid["run.seed"] = [1]

# 2. One run per (load balancer, EV bits, seed), each a DataFrame of flows.
rows = []
for lb in grid["lb.algorithm"]:
    for bits in grid["network.ev_bits"]:
        for seed in grid["run.seed"]:
            r = lbsim.run(config, lb_algorithm=lb, network_ev_bits=bits, seed=seed)
            rows.append({"lb": lb, "ev_bits": bits, "seed": seed, "max_fct_us": r.flows.fct_us.max(),
                         "completed": r.flows.finished.sum(), "transfers": len(r.flows)})
runs = pd.DataFrame(rows)

# 3. Completion time relative to 64K EVs (2^16) of the same load balancer and seed, mean over seeds.
base = runs[runs.ev_bits == 16].set_index(["lb", "seed"]).max_fct_us
runs["relative_to_64k"] = runs.apply(lambda x: x.max_fct_us / base[(x.lb, x.seed)], axis=1)
table = runs.groupby(["lb", "ev_bits"], sort=False).relative_to_64k.mean().reset_index()
table["paper"] = [PAPER.get((l, b), 1.0 if b == 16 else float("nan")) for l, b in zip(table.lb, table.ev_bits)]
os.makedirs(a.out, exist_ok=True)
table.to_csv(os.path.join(a.out, "reps_fig15.csv"), index=False)
print(table.to_string(index=False))

# 4. The figure: bars (ours) and hollow markers (the paper), greyscale-safe.
fig, ax = plt.subplots(figsize=(6, 3.6))
evs = {5: "32", 8: "256", 16: "64K"}
for i, (lb, hatch, marker) in enumerate((("ops", "//", "o"), ("reps", "", "s"))):
    t = table[table.lb == lb]
    x = [list(evs).index(b) + (i - 0.5) * 0.38 for b in t.ev_bits]
    ax.bar(x, t.relative_to_64k, width=0.36, color="0.8" if i else "0.55", hatch=hatch, edgecolor="black",
           label=f"{lb.upper()} (lbsim)")
    ax.plot(x, t.paper, linestyle="none", marker=marker, markerfacecolor="none", markeredgecolor="black",
            markersize=9, label=f"{lb.upper()} (paper)")
ax.set_xticks(range(len(evs)))
ax.set_xticklabels([f"{v} EVs" for v in evs.values()])
ax.set_ylabel("completion time / 64K EVs")
ax.set_ylim(bottom=0)
ax.set_title(f"[REPS] Fig. 15: permutation, {config.get('topology.hosts')} hosts, {config.get('workload.size')}")
ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)
fig.savefig(os.path.join(a.out, "reps_fig15.svg"), bbox_inches="tight")
print(f"wrote {a.out}/reps_fig15.svg and reps_fig15.csv")
