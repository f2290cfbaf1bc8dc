#!/usr/bin/env bash
# docs/results/swift.md: the demo fabric (examples/demo.toml, 128 hosts, 400 Gb/s) running a
# permutation of 16 MiB messages under transport.cc = "swift", with REPS and OPS, ECN marking on
# and off. Prints mean / p99 / max FCT (us) per run.
# Usage: scripts/swift_reps_ecn.sh [LBSIM] [OUT]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
lbsim="${1:-$root/build/lbsim}"
out="${2:-$(mktemp -d)}"
for lb in reps ops; do
  for ecn in true false; do
    dir="$out/$lb-ecn-$ecn"
    "$lbsim" run "$root/examples/demo.toml" --set transport.cc=swift --set "lb.algorithm=$lb" \
      --set "network.ecn=$ecn" --set workload.size=16777216 --out "$dir" --quiet || true
    python3 -c "import json, sys; f = json.load(open(sys.argv[1]))['fct_us']
print(sys.argv[2], round(f['mean'], 1), round(f['p99'], 1), round(f['max'], 1))" "$dir/summary.json" "$lb ecn=$ecn"
  done
done
