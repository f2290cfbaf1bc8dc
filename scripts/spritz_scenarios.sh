#!/usr/bin/env bash
# Spritz evaluation scenarios ([Spritz] sec. V, docs/spritz.md) on the Table II networks: for each
# scenario the sweep of examples/spritz/scenarios/ (the switch-routing baselines Minimal, Valiant,
# UGAL-L with lb = ecmp, a fixed EV per flow, and the sender-side schemes over source-guided routing,
# ecmp = one fixed bounded path per flow, the paper's ECMP; edit those files to change the schemes)
# with `lbsim sweep`, then a per-tag FCT table read from each run folder's summary.json. Run folders
# hold flows.csv / ports.csv / summary.json for plotting (`lbsim plot`).
# Environment: BIN (default build/lbsim), OUT (default results/spritz), SIZE (permutation/adversarial
# and failure message size, default 1MiB; the paper uses 8MiB), SCENARIOS (default: all, space
# separated from motivational permutation adversarial incast failures), SEED, WORKERS (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-build/lbsim}
OUT=${OUT:-results/spritz}
SIZE=${SIZE:-1MiB}
SCENARIOS=${SCENARIOS:-motivational permutation adversarial incast failures}
seed=()
[ -n "${SEED:-}" ] && seed=(--set "run.seed=${SEED}")

# Per-tag FCT table of the run folders under $1 (one per scheme, named scheme-<name>).
tags() {
  python3 - "$1" <<'EOF'
import json, os, sys
root = sys.argv[1]
rows = []
for name in sorted(os.listdir(root)):
    f = os.path.join(root, name, "summary.json")
    if not os.path.exists(f):
        continue
    j = json.load(open(f))
    for tag, s in sorted(j.get("fct_us_by_tag", {}).items()):
        rows.append((name.removeprefix("scheme-"), tag, s["count"], s["p50"], s["p99"], s["max"], j.get("retransmits", 0), j.get("ooo_pct", 0)))
print(f"{'run':<28} {'tag':<12} {'flows':>6} {'p50_us':>10} {'p99_us':>10} {'max_us':>10} {'retx':>8} {'ooo_%':>6}")
for r in rows:
    print(f"{r[0]:<28} {r[1]:<12} {r[2]:>6} {r[3]:>10.1f} {r[4]:>10.1f} {r[5]:>10.1f} {r[6]:>8} {r[7]:>6.2f}")
EOF
}

run() {  # name [extra sweep args...]
  local name=$1
  shift
  local sweep=examples/spritz/scenarios/${name}.toml
  echo "== ${name}: ${sweep}"
  # exit 3: a scheme left flows unfinished (failures): a result, shown in the table.
  "$BIN" sweep "$sweep" "$@" "${seed[@]}" --workers "${WORKERS:-2}" --out "${OUT}/${name}" >/dev/null || true
  tags "${OUT}/${name}/runs"
  echo
}

for s in $SCENARIOS; do
  case $s in
    motivational)
      # sec. V-B / Fig. 5 / Table III; the solo FCT of the monitored flow first.
      "$BIN" run examples/spritz/motivational.toml --set workload.file=motivational_solo.csv \
        --out "${OUT}/motivational/solo/solo" --quiet "${seed[@]}"
      tags "${OUT}/motivational/solo"
      run motivational ;;
    permutation | adversarial)
      for t in dragonfly slim_fly; do run "${t}_${s}" --set "workload.size=\"${SIZE}\""; done ;;
    incast)
      run incast_bystanders ;;
    failures)
      # sec. V-D: only schemes that adapt without switch rerouting (Valiant, OPS, Spritz).
      run dragonfly_failures --set "workload.size=\"${SIZE}\"" ;;
    *) echo "unknown scenario $s" >&2; exit 2 ;;
  esac
done
