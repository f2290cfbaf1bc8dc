#!/usr/bin/env python3
"""CONGA's flowlets per candidate path in kept `lbsim reproduce laps-*` folders (docs/results/laps-paper-setup.md "CONGA on
Rail and the Dragonfly", the herd effect of [LAPS] sec. 4.2).

Usage: laps_conga_herd.py DIR...   (each DIR an entry's output folder, e.g. the KEEP=DIR of
scripts/laps_reproduce_quick.sh holds one per entry). For every CONGA run (summary.json with a
`conga` block) prints one markdown row: the run, its flowlets, flowlet moves, the candidates used,
the largest and smallest candidate's share of the flowlets against the uniform 1 / candidates,
and the coefficient of variation of the counts. A herd (flowlets rushing to the same least congested
path) shows as a largest share well above uniform and a large CoV; with full-load runs the counts
also include the intra-group / intra-cluster flowlets, which all have candidate 0 (reported apart
as `index 0`).
"""
import json
import statistics
import sys
from pathlib import Path


def rows(folder: Path):
    for summary in sorted(folder.glob("runs/*/summary.json")):
        j = json.loads(summary.read_text())
        conga = j.get("conga")
        if not conga or "flowlets_per_path" not in conga:
            continue
        counts = [int(x) for x in conga["flowlets_per_path"]]
        rest = counts[1:]  # candidate 0 also holds the pairs with one candidate only
        total = sum(counts)
        if not rest or sum(rest) == 0:
            continue
        share = [c / sum(rest) for c in rest]
        mean = statistics.mean(rest)
        cov = statistics.pstdev(rest) / mean if mean else 0.0
        yield (summary.parent.name, total, conga.get("flowlet_moves", ""), len(counts), counts[0] / total if total else 0,
               max(share), min(share), 1 / len(rest), cov)


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    print("| run | flowlets | moves | candidates | index 0 | largest of 1..n | smallest of 1..n | uniform | CoV of 1..n |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    found = 0
    for d in sys.argv[1:]:
        for r in rows(Path(d)):
            found += 1
            name, total, moves, n, zero, hi, lo, uni, cov = r
            print(f"| {name} | {total} | {moves} | {n} | {zero:.1%} | {hi:.1%} | {lo:.1%} | {uni:.1%} | {cov:.2f} |")
    if not found:
        print("laps_conga_herd.py: no CONGA run with a conga block under " + " ".join(sys.argv[1:]), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
