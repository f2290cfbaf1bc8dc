#!/usr/bin/env bash
# Runs the REPS paper scenarios (examples/reps/*.toml, docs/reps.md): each sweep of
# examples/reps/scenarios/ (a scenario config under several load balancers; edit those files to
# change what runs) with `lbsim sweep`, then prints one table per scenario: scheme, max FCT, p99 FCT,
# drops (tail drops + trims + failure drops), failure drops, out-of-order %, completed flows, and for
# REPS the first freezing time.
# Usage: scripts/reps_scenarios.sh [LBSIM] [OUT_DIR]   (defaults: ./build/lbsim, results/reps)
# Environment: WORKERS (parallel runs, default 2).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
lbsim="${1:-$root/build/lbsim}"
out="${2:-$root/results/reps}"
[[ -x "$lbsim" ]] || { echo "reps_scenarios.sh: no lbsim binary at $lbsim (build it or pass its path)" >&2; exit 2; }

table() {  # $1 = sweep folder: one run folder per scheme under runs/ (named <axis>-<value>)
  python3 - "$1" <<'PY'
import json, os, sys
d = os.path.join(sys.argv[1], "runs")
print(f"{'scheme':<10} {'max_fct_us':>11} {'p99_fct_us':>11} {'drops':>8} {'fail_drops':>10} {'ooo_%':>7} {'done':>8} {'freeze_us':>9}")
for s in sorted(os.listdir(d)):
    p = os.path.join(d, s, "summary.json")
    if not os.path.exists(p):
        continue
    j = json.load(open(p))
    drops = j["drops"] + j["trims"] + j["failure_drops"]
    fz = (j.get("reps") or {}).get("first_freeze_us")
    done = f"{j['completed']}/{j['workload']['transfers']}"
    scheme = s.split('-', 1)[1]
    print(f"{scheme:<10} {j['fct_us']['max']:>11.2f} {j['fct_us']['p99']:>11.2f} {drops:>8} {j['failure_drops']:>10} "
          f"{j['ooo_pct']:>7.2f} {done:>8} {('-' if fz is None else f'{fz:.1f}'):>9}")
PY
}

for sweep in "$root"/examples/reps/scenarios/*.toml; do
  name="$(basename "$sweep" .toml)"
  echo "== $name: $sweep"
  # The sweep exits 3 when a scheme leaves flows unfinished (OPS under permanent failures): that is a
  # result, shown in the done column.
  "$lbsim" sweep "$sweep" --workers "${WORKERS:-2}" --out "$out/$name" > /dev/null || true
  table "$out/$name"
  echo
done
