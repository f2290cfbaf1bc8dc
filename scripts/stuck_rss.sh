#!/usr/bin/env bash
# Peak memory of a run with stuck flows against the simulated time (docs/reliability.md, "Memory
# with stuck flows"): the demo's 128-host fat tree with 10% of the ToR uplinks down for good and
# ECMP (flows hashed onto a dead uplink never finish), the watchdog off, run.end_us = 1, 4, 16 s.
# Prints a markdown table: end time, wall time, peak RSS, timeouts.
#
#   scripts/stuck_rss.sh [LBSIM]      (default build/lbsim)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LBSIM=${1:-$ROOT/build/lbsim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A binary from before the watchdog has no run.watchdog_us (and no watchdog to turn off).
off=()
if "$LBSIM" config 2>/dev/null | grep -q 'run.watchdog_us'; then off=(--set run.watchdog_us=0); fi
echo "| run.end_us | wall s | peak RSS MiB | unfinished | timeouts |"
echo "|---|---|---|---|---|"
for end in 1000000 4000000 16000000; do
  /usr/bin/time -f "%e %M" -o "$tmp/time" "$LBSIM" run "$ROOT/examples/demo.toml" --quiet --out "$tmp/out" \
    --set lb.algorithm=ecmp --set failures.random_fraction=0.1 "${off[@]}" \
    --set run.end_us="$end" --set run.progress=off >/dev/null 2>&1 || [ $? -eq 3 ]
  read -r wall rss < <(tail -n 1 "$tmp/time")
  python3 - "$tmp/out/summary.json" "$end" "$wall" "$rss" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
print(f"| {int(sys.argv[2]):,} | {float(sys.argv[3]):.1f} | {int(sys.argv[4]) / 1024:.1f} | {j['unfinished']} | {j['timeouts']:,} |")
PY
done
