#!/usr/bin/env python3
"""Tables of docs/results/laps.md from the sweeps scripts/laps_artifact.sh ran.

For every sweep folder given (an `lbsim sweep` output of examples/laps/artifact/sweep_*.toml or of a
part of it, or the folder of `lbsim reproduce laps-artifact-rail64` / `laps-artifact-dragonfly144`): per workload and load, one row per scheme with the sender-side FCT (flows.csv
`sender_fct_us`, the last ACK, as ns-3 measures it) of all flows and of the flows under 100 KB,
each statistic computed per run and averaged over the seeds, and the scheme's rank by average and
by p99 FCT among the schemes of the table. A last line says which scheme is first and on how many
seeds LAPS (the artifact's sender) is first.

Usage: scripts/laps_artifact_tables.py TITLE=SWEEP_DIR [TITLE=SWEEP_DIR ...]
"""
import csv
import json
import os
import statistics
import sys
import textwrap
from collections import defaultdict

SMALL = 100_000  # bytes: "flows under 100 KB"
ORDER = ["ecmp", "letflow", "conga", "plb", "conweave", "laps", "laps_paper"]
NAMES = {"ecmp": "ECMP", "letflow": "LetFlow", "conga": "CONGA", "plb": "PLB", "conweave": "ConWeave",
         "laps": "LAPS (artifact sender)", "laps_paper": "LAPS (paper sender)"}


def p99(values):
    """Linear interpolation around rank 0.99 x (n - 1), as summary.json's percentiles."""
    v = sorted(values)
    if not v:
        return float("nan")
    r = 0.99 * (len(v) - 1)
    lo = int(r)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (r - lo)


def run_stats(run_dir):
    fct, small = [], []
    unfinished = 0
    with open(os.path.join(run_dir, "flows.csv")) as f:
        for row in csv.DictReader(f):
            if row["kind"] != "transfer":
                continue
            t = float(row["sender_fct_us"])
            if t < 0:
                unfinished += 1
                continue
            fct.append(t)
            if int(row["bytes"]) < SMALL:
                small.append(t)
    return {
        "n": len(fct), "unfinished": unfinished,
        "mean": statistics.fmean(fct) if fct else float("nan"), "p99": p99(fct),
        "n_small": len(small), "mean_small": statistics.fmean(small) if small else float("nan"),
        "p99_small": p99(small),
    }


def seed_of(run_dir):
    with open(os.path.join(run_dir, "summary.json")) as f:
        return str(json.load(f)["seed"])


def fmt(x):
    if x != x:
        return "-"
    return f"{x:.1f}" if x < 1000 else f"{x:,.0f}"


def ranks(values):
    order = sorted(values, key=lambda k: values[k])
    return {k: order.index(k) + 1 for k in values}


def table(title, sweep):
    rows = list(csv.DictReader(open(os.path.join(sweep, "results.csv"))))
    groups = defaultdict(lambda: defaultdict(list))  # (workload, load) -> scheme -> [(seed, stats)]
    for r in rows:
        if r["status"] not in ("ok", "unfinished"):
            print(f"{title}: {r['run']}: {r['status']}", file=sys.stderr)
            continue
        scheme = r.get("case") or r.get("scheme")
        key = (r.get("workload", ""), r["workload.load"])
        run_dir = os.path.join(sweep, r["dir"])
        seed = r.get("run.seed") or seed_of(run_dir)  # a --quick reproduce folder sweeps no seed
        groups[key][scheme].append((seed, run_stats(run_dir)))
    out = []
    for (wl, load), by in sorted(groups.items(), key=lambda kv: (kv[0][0], float(kv[0][1]))):
        seeds = sorted({s for v in by.values() for s, _ in v}, key=int)
        head = f"{title}{', ' + wl.upper() if wl else ''}, load {load}"
        out.append(f"**{head}** (seeds {', '.join(seeds)}; sender-side FCT in us, mean over the seeds):")
        out.append("")
        out.append("| scheme | flows | avg | p99 | avg < 100 KB | p99 < 100 KB | rank avg | rank p99 |")
        out.append("|---|---|---|---|---|---|---|---|")
        avg = {}
        for s in ORDER:
            if s not in by:
                continue
            st = [x for _, x in by[s]]
            avg[s] = {k: statistics.fmean(x[k] for x in st) for k in ("mean", "p99", "mean_small", "p99_small")}
            avg[s]["n"] = sum(x["n"] for x in st) / len(st)
            avg[s]["unfinished"] = sum(x["unfinished"] for x in st)
        # Ranks among the six schemes of the paper (LAPS with the artifact's sender); the paper's
        # sender is ranked among the same five baselines in its own column.
        six = {s: v for s, v in avg.items() if s != "laps_paper"}
        r_avg = ranks({s: v["mean"] for s, v in six.items()})
        r_p99 = ranks({s: v["p99"] for s, v in six.items()})
        for s, v in avg.items():
            if s == "laps_paper":
                alt = {k: x for k, x in avg.items() if k != "laps"}
                ra = ranks({k: x["mean"] for k, x in alt.items()})[s]
                rp = ranks({k: x["p99"] for k, x in alt.items()})[s]
                rank_a, rank_p = f"({ra})", f"({rp})"
            else:
                rank_a, rank_p = str(r_avg[s]), str(r_p99[s])
            unf = f" ({v['unfinished']} unfinished)" if v["unfinished"] else ""
            out.append(f"| {NAMES[s]} | {v['n']:.0f}{unf} | {fmt(v['mean'])} | {fmt(v['p99'])} | "
                       f"{fmt(v['mean_small'])} | {fmt(v['p99_small'])} | {rank_a} | {rank_p} |")
        out.append("")
        first_avg = min(six, key=lambda s: six[s]["mean"])
        first_p99 = min(six, key=lambda s: six[s]["p99"])
        per_seed = defaultdict(dict)
        for s in six:
            for seed, x in by[s]:
                per_seed[seed][s] = x
        won = sum(1 for seed, m in per_seed.items() if "laps" in m and min(m, key=lambda s: m[s]["mean"]) == "laps")
        won99 = sum(1 for seed, m in per_seed.items() if "laps" in m and min(m, key=lambda s: m[s]["p99"]) == "laps")
        out.extend(textwrap.wrap(
            f"First on average: {NAMES[first_avg]}; on p99: {NAMES[first_p99]}. LAPS (artifact sender) first on "
            f"average in {won} of {len(per_seed)} seeds, on p99 in {won99}. Ranks in parentheses: the paper's "
            "sender among the five baselines.", 100))
        out.append("")
    return "\n".join(out)


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    for arg in sys.argv[1:]:
        title, _, sweep = arg.partition("=")
        print(table(title, sweep))


if __name__ == "__main__":
    main()
