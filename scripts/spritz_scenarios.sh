#!/usr/bin/env bash
# Spritz evaluation scenarios ([Spritz] sec. V, docs/spritz.md) on the Table II networks.
# For each scenario: the switch-routing baselines (Minimal, Valiant, UGAL-L; lb = ecmp, a fixed EV per
# flow) via `lbsim compare --vary routing.algorithm=...`, then the sender-side schemes over
# source-guided routing via `lbsim compare --lb ...` (ecmp = one fixed bounded path per flow, the
# paper's ECMP), and a per-tag FCT table read from each run folder's summary.json. Run folders hold
# flows.csv / ports.csv / summary.json for plotting (`lbsim plot`).
# Environment: BIN (default build/lbsim), OUT (default results/spritz), SIZE (permutation/adversarial
# message size, default 1MiB; the paper uses 8MiB), SCENARIOS (default: all, space separated from
# motivational permutation adversarial incast failures), SEED.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-build/lbsim}
OUT=${OUT:-results/spritz}
SIZE=${SIZE:-1MiB}
SCENARIOS=${SCENARIOS:-motivational permutation adversarial incast failures}
LBS=${LBS:-ecmp,flicr_w,ops_u,ops_w,spritz_scout_w,spritz_spray_u,spritz_spray_w}
ROUTINGS=${ROUTINGS:-minimal,valiant,ugal_l}
seed=()
[ -n "${SEED:-}" ] && seed=(--seed "$SEED")

# Per-tag FCT table of the run folders under $1 (one per scheme or routing).
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
        rows.append((name, tag, s["count"], s["p50"], s["p99"], s["max"], j.get("retransmits", 0), j.get("ooo_pct", 0)))
print(f"{'run':<28} {'tag':<12} {'flows':>6} {'p50_us':>10} {'p99_us':>10} {'max_us':>10} {'retx':>8} {'ooo_%':>6}")
for r in rows:
    print(f"{r[0]:<28} {r[1]:<12} {r[2]:>6} {r[3]:>10.1f} {r[4]:>10.1f} {r[5]:>10.1f} {r[6]:>8} {r[7]:>6.2f}")
EOF
}

run() {  # name config [extra compare args...]
  local name=$1 cfg=$2
  shift 2
  echo "== ${name}: ${cfg}"
  "$BIN" compare "$cfg" --vary "routing.algorithm=${ROUTINGS}" --set lb.algorithm=ecmp "$@" \
    --out "${OUT}/${name}/routing" "${seed[@]}" >/dev/null
  "$BIN" compare "$cfg" --lb "$LBS" "$@" --out "${OUT}/${name}/spritz" "${seed[@]}" >/dev/null
  tags "${OUT}/${name}/routing"
  tags "${OUT}/${name}/spritz"
  echo
}

for s in $SCENARIOS; do
  case $s in
    motivational)
      # sec. V-B / Fig. 5 / Table III; the solo FCT of the monitored flow first.
      "$BIN" run examples/spritz/motivational.toml --set workload.file=motivational_solo.csv \
        --out "${OUT}/motivational/solo/solo" --quiet "${seed[@]}"
      tags "${OUT}/motivational/solo"
      LBS="${LBS},spritz_scout_u,min_path" run motivational examples/spritz/motivational.toml ;;
    permutation)
      for t in dragonfly slim_fly; do
        run "${t}_permutation" "examples/spritz/${t}_permutation.toml" --set "workload.size=\"${SIZE}\""
      done ;;
    adversarial)
      for t in dragonfly slim_fly; do
        run "${t}_adversarial" "examples/spritz/${t}_adversarial.toml" --set "workload.size=\"${SIZE}\""
      done ;;
    incast)
      run incast_bystanders examples/spritz/incast_bystanders.toml ;;
    failures)
      # sec. V-D: only schemes that adapt without switch rerouting (Valiant, OPS, Spritz).
      ROUTINGS=valiant LBS=ops_u,ops_w,spritz_scout_w,spritz_spray_u,spritz_spray_w \
        run dragonfly_failures examples/spritz/dragonfly_failures.toml --set "workload.size=\"${SIZE}\"" ;;
    *) echo "unknown scenario $s" >&2; exit 2 ;;
  esac
done
