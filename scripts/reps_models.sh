#!/usr/bin/env bash
# The [REPS] analysis models and the EVS-size scenario (docs/reps.md, "EVS size and balls-into-bins
# models"): runs `lbsim reproduce` reps-fig14, reps-fig17, reps-fig18, reps-thm51 and reps-fig15,
# and the Theorem 5.1 check under each of the four readings of the model's wording, printing the
# tables docs/reps.md shows and the wall time of each step.
# Usage: scripts/reps_models.sh [--quick] [--no-fig15] [LBSIM] [OUT_DIR]
#        (defaults: ./build/lbsim, results/reps_models; reps-fig15 takes ~15 min with 2 cores)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
quick=()
fig15=1
args=()
for a in "$@"; do
  case "$a" in
    --quick) quick=(--quick) ;;
    --no-fig15) fig15=0 ;;
    *) args+=("$a") ;;
  esac
done
lbsim="${args[0]:-$root/build/lbsim}"
out="${args[1]:-$root/results/reps_models}"
[[ -x "$lbsim" ]] || { echo "reps_models.sh: no lbsim binary at $lbsim (build it or pass its path)" >&2; exit 2; }

timed() {  # $1 = label, rest = command; prints its output and wall time
  local label="$1"; shift
  echo "== $label: ${*#"$lbsim "}"
  local t0; t0=$(date +%s.%N)
  "$@"
  printf '(%s: %.1f s)\n\n' "$label" "$(echo "$(date +%s.%N) - $t0" | bc)"
}

for e in reps-fig14 reps-fig17 reps-fig18 reps-thm51; do
  timed "$e" "$lbsim" reproduce "$e" "${quick[@]}" --out "$out/$e"
done
# Theorem 5.1 under each reading: which colours a step throws (removed: App. B's accounting;
# round_robin: the literal sec. 5.1 wording) x whether "a bin has at most tau balls" counts the
# removed ball (before) or not (after).
seeds=20
bins="16,32,64,128"
[[ ${#quick[@]} -gt 0 ]] && { seeds=5; bins="16,32"; }
for recycle in removed round_robin; do
  for count in before after; do
    timed "theorem $recycle/$count" "$lbsim" balls theorem --set balls.recycle=$recycle --set balls.tau_count=$count \
      --set balls.seeds=$seeds --set "balls.theorem_bins=$bins" --out "$out/theorem-$recycle-$count"
  done
done
# Fig. 18 in the literal reading of sec. 5.1 (the same seeds as reps-fig18).
timed "fig18 round_robin" "$lbsim" balls queue --set balls.queue_models=ops,recycled --set balls.queue_bins=5 \
  --set balls.queue_lambda=1 --set balls.queue_steps=200 --set balls.seeds=$seeds --set balls.recycle=round_robin \
  --out "$out/fig18-round_robin"
if [[ $fig15 -eq 1 ]]; then
  timed reps-fig15 "$lbsim" reproduce reps-fig15 "${quick[@]}" --workers 2 --out "$out/reps-fig15"
fi
