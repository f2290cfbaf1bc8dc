#!/usr/bin/env python3
"""Print the tables of a `lbsim reproduce flowcut-*` output folder (docs/results/flowcut.md).

usage: python3 scripts/flowcut_tables.py DIR [DIR ...]

DIR is a sweep output folder (results.csv + runs/*/summary.json), or a folder of `lbsim run` output
folders (DIR/NAME/summary.json; one row per NAME, sorted). One markdown table per case (or one for
a sweep without cases), one row per point in run order:
  scheme             the point's axis values (scheme / workload names, or key=value)
  mean / p99 / max   FCT in us (summary.json fct_us)
  ooo packets, ooo % out-of-order arrivals at the in-order receivers (summary.json ooo_packets,
                     ooo_pct)
  drains             Flowcut drains (flowcut.drains of the switch variants, flowcut_nic.drains)
  held %             share of the flows' completion time their sender was held (a Flowcut drain;
                     MPRDMA: its reordering cap):
                     transport.held_us_total / (fct_us.mean x completed) (Table IV's metric)
  done               completed / transfers
A sweep over flowcut.rtt_ratio x flowcut.alpha (flowcut-fig7) is printed as a heatmap of the mean
FCT (rows: alpha, columns: RTT ratio) as well.
"""
import csv
import json
import os
import sys

META = {"run", "case", "dir"}


def load(d):
    if not os.path.exists(os.path.join(d, "results.csv")):
        names = sorted(n for n in os.listdir(d) if os.path.exists(os.path.join(d, n, "summary.json")))
        return [], [({"run": n}, json.load(open(os.path.join(d, n, "summary.json")))) for n in names]
    rows = list(csv.DictReader(open(os.path.join(d, "results.csv"))))
    header = list(rows[0].keys()) if rows else []
    end = header.index("status") if "status" in header else len(header)
    axes = [h for h in header[:end] if h not in META]
    # An axis with one value (e.g. "run.seed" = [1]) does not name a row.
    axes = [a for a in axes if len({r[a] for r in rows}) > 1]
    out = []
    for r in rows:
        f = os.path.join(d, r["dir"], "summary.json")
        j = json.load(open(f)) if os.path.exists(f) else None
        out.append((r, j))
    return axes, out


def label(r, axes):
    parts = []
    for a in axes:
        v = r[a]
        parts.append(v if a in ("scheme", "workload") else f"{a.split('.')[-1]}={v}")
    return " ".join(parts) or r["run"]


def fmt_row(name, j):
    if j is None:
        return f"| {name} | no summary | | | | | | | |"
    fct = j.get("fct_us", {})
    fc = j.get("flowcut", j.get("flowcut_nic", {}))
    done = j.get("completed", 0)
    total = j.get("workload", {}).get("transfers", 0)
    held = j.get("transport", {}).get("held_us_total", 0.0)
    busy = fct.get("mean", 0.0) * done
    share = 100.0 * held / busy if busy > 0 else 0.0
    return (f"| {name} | {fct.get('mean', 0):.1f} | {fct.get('p99', 0):.1f} | {fct.get('max', 0):.1f} | "
            f"{j.get('ooo_packets', 0)} | {j.get('ooo_pct', 0):.2f} | {fc.get('drains', 0)} | {share:.1f} | "
            f"{done}/{total} |")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for d in sys.argv[1:]:
        axes, rows = load(d)
        print(f"### {os.path.basename(os.path.normpath(d))}")
        cases = []
        for r, _ in rows:
            c = r.get("case", "")
            if c not in cases:
                cases.append(c)
        for c in cases:
            if c:
                print(f"\n#### {c}")
            print("| scheme | mean FCT (us) | p99 FCT (us) | max FCT (us) | ooo packets | ooo % | drains | held % | done |")
            print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
            for r, j in rows:
                if r.get("case", "") == c:
                    print(fmt_row(label(r, axes), j))
        if "flowcut.rtt_ratio" in axes and "flowcut.alpha" in axes:
            ratios = sorted({float(r["flowcut.rtt_ratio"]) for r, _ in rows})
            alphas = sorted({float(r["flowcut.alpha"]) for r, _ in rows})
            cell = {(float(r["flowcut.rtt_ratio"]), float(r["flowcut.alpha"])): j for r, j in rows}
            print("\nmean FCT (us); rows: alpha, columns: RTT ratio")
            print("| alpha \\ ratio | " + " | ".join(f"{x:g}" for x in ratios) + " |")
            print("|---|" + "---:|" * len(ratios))
            for a in alphas:
                vals = []
                for x in ratios:
                    j = cell.get((x, a))
                    vals.append(f"{j['fct_us']['mean']:.1f}" if j else "-")
                print(f"| {a:g} | " + " | ".join(vals) + " |")
        print()


if __name__ == "__main__":
    main()
