#!/usr/bin/env bash
# Runs the REPS paper scenarios (examples/reps/*.toml, docs/reps.md) with `lbsim compare` and prints
# one table per scenario: scheme, max FCT, p99 FCT, drops (tail drops + trims + failure drops),
# failure drops, out-of-order %, completed flows, and for REPS the first freezing time.
# Usage: scripts/reps_scenarios.sh [LBSIM] [OUT_DIR]   (defaults: ./build/lbsim, results/reps)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
lbsim="${1:-$root/build/lbsim}"
out="${2:-$root/results/reps}"
[[ -x "$lbsim" ]] || { echo "reps_scenarios.sh: no lbsim binary at $lbsim (build it or pass its path)" >&2; exit 2; }

table() {  # $1 = run folder holding one sub-folder per scheme
  python3 - "$1" <<'PY'
import json, os, sys
d = sys.argv[1]
print(f"{'scheme':<10} {'max_fct_us':>11} {'p99_fct_us':>11} {'drops':>8} {'fail_drops':>10} {'ooo_%':>7} {'done':>8} {'freeze_us':>9}")
for s in sorted(os.listdir(d)):
    p = os.path.join(d, s, "summary.json")
    if not os.path.exists(p):
        continue
    j = json.load(open(p))
    drops = j["drops"] + j["trims"] + j["failure_drops"]
    fz = (j.get("reps") or {}).get("first_freeze_us")
    done = f"{j['completed']}/{j['workload']['transfers']}"
    print(f"{s:<10} {j['fct_us']['max']:>11.2f} {j['fct_us']['p99']:>11.2f} {drops:>8} {j['failure_drops']:>10} "
          f"{j['ooo_pct']:>7.2f} {done:>8} {('-' if fz is None else f'{fz:.1f}'):>9}")
PY
}

run() {  # $1 = scenario name, rest = compare arguments
  local name="$1"; shift
  echo "== $name: $*"
  # compare exits non-zero when a scheme leaves flows unfinished (OPS under permanent failures):
  # that is a result, shown in the done column.
  local dir="$out/$name"
  [[ " $* " == *" --set routing.algorithm=adaptive "* ]] && dir="$out/${name}_adaptive"
  "$lbsim" compare "$root/examples/reps/$name.toml" "$@" --out "$dir" > /dev/null || true
  table "$dir"
  echo
}

run symmetric_permutation --lb reps,ops,ecmp,plb,flowlet,mprdma,mptcp,bitmap
run symmetric_permutation --lb ecmp,reps --set routing.algorithm=adaptive  # adaptive RoCE-like switches
run symmetric_tornado --lb reps,ops,ecmp
run asymmetric_micro --lb reps,ops,ecmp
run asymmetric_background --lb reps,ops,ecmp
run failures_transient --lb reps,ops,ecmp
run failures_incremental --lb reps,ops
run freezing_on_off --vary lb.reps_freezing=true,false
