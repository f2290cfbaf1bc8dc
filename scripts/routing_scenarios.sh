#!/usr/bin/env bash
# Switch routing on the [Spritz] Table II networks (issue 4, docs/topologies.md "Switch routing"):
# for the Dragonfly and the Slim Fly, permutation (receivers outside the group) and adversarial
# traffic, one `lbsim compare` table over minimal, valiant, ugal_l and ecmp_paths (the paper's ECMP
# baseline: one bounded path per flow; every config sets lb = ecmp, a fixed EV per flow).
# Environment: BIN (default build/lbsim), SIZE (message size, default 1MiB; the paper uses 8MiB),
# ROUTINGS (default minimal,valiant,ugal_l,ecmp_paths), OUT (run folders, default results/routing),
# SEED.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-build/lbsim}
SIZE=${SIZE:-1MiB}
ROUTINGS=${ROUTINGS:-minimal,valiant,ugal_l,ecmp_paths}
OUT=${OUT:-results/routing}
seed=()
[ -n "${SEED:-}" ] && seed=(--seed "$SEED")
for topo in dragonfly slim_fly; do
  for kind in permutation adversarial; do
    cfg=examples/routing/${topo}_${kind}.toml
    echo "== ${topo} ${kind} (${SIZE} per flow): ${cfg}"
    "$BIN" compare "$cfg" --vary "routing.algorithm=${ROUTINGS}" --set "workload.size=\"${SIZE}\"" \
      --set output.ports_csv=false --out "${OUT}/${topo}_${kind}" "${seed[@]}"
    echo
  done
done
