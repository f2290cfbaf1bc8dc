#!/usr/bin/env bash
# Switch routing on the [Spritz] Table II networks (issue 4, docs/topologies.md "Switch routing"):
# for the Dragonfly and the Slim Fly, permutation (receivers outside the group) and adversarial
# traffic, the sweeps of examples/routing/scenarios/ (minimal, valiant, ugal_l and ecmp_paths, the
# paper's ECMP baseline: one bounded path per flow; every config sets lb = ecmp, a fixed EV per flow)
# with `lbsim sweep`, one table each. Edit the sweep files to change the routings.
# Environment: BIN (default build/lbsim), SIZE (message size, default 1MiB; the paper uses 8MiB),
# OUT (sweep folders, default results/routing), SEED, WORKERS (parallel runs, default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-build/lbsim}
SIZE=${SIZE:-1MiB}
OUT=${OUT:-results/routing}
sets=(--set "workload.size=\"${SIZE}\"")
[ -n "${SEED:-}" ] && sets+=(--set "run.seed=${SEED}")
for topo in dragonfly slim_fly; do
  for kind in permutation adversarial; do
    sweep=examples/routing/scenarios/${topo}_${kind}.toml
    echo "== ${topo} ${kind} (${SIZE} per flow): ${sweep}"
    "$BIN" sweep "$sweep" "${sets[@]}" --workers "${WORKERS:-2}" --out "${OUT}/${topo}_${kind}" | grep -v '^\[' || true
    echo
  done
done
