#!/usr/bin/env bash
# The LAPS baselines on the small leaf-spine of examples/laps-baselines/ (docs/baselines.md): runs
# each example for the given seeds and prints a markdown table of mean / p99 FCT, flowlet counts
# and wall time (the table in docs/results/laps-baselines.md "Measured" comes from this script).
# Usage: scripts/laps_baselines.sh [SEEDS...]   (default: 1 2 3); LBSIM=path overrides build/lbsim.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
lbsim="${LBSIM:-$root/build/lbsim}"
seeds=("$@")
[[ ${#seeds[@]} -gt 0 ]] || seeds=(1 2 3)
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
for name in ecmp letflow conga plb conweave; do
  for s in "${seeds[@]}"; do
    "$lbsim" run "$root/examples/laps-baselines/$name.toml" --out "$out/$name-$s" --quiet --set run.seed="$s" >/dev/null
  done
done
/usr/bin/env python3 - "$out" "${seeds[@]}" <<'PY'
import json, sys, statistics as st
out, seeds = sys.argv[1], sys.argv[2:]
print(f"Seeds {', '.join(seeds)}; each column is the mean over the seeds.\n")
print("| scheme | mean FCT (us) | p99 FCT (us) | flows | ECN-marked ACKs / flow | wall (s) |")
print("|---|---|---|---|---|---|")
for name in ["ecmp", "letflow", "conga", "plb", "conweave"]:
    js = [json.load(open(f"{out}/{name}-{s}/summary.json")) for s in seeds]
    m = st.mean(j["fct_us"]["mean"] for j in js)
    p = st.mean(j["fct_us"]["p99"] for j in js)
    n = st.mean(j["completed"] for j in js)
    import csv
    ecn = st.mean(sum(int(r["ecn_acks"]) for r in csv.DictReader(open(f"{out}/{name}-{s}/flows.csv"))) / j["completed"] for s, j in zip(seeds, js))
    w = st.mean(j["perf"]["wall_s"] for j in js)
    print(f"| {name} | {m:.1f} | {p:.1f} | {n:.0f} | {ecn:.2f} | {w:.2f} |")
PY
