#!/usr/bin/env bash
# Instructions and cache misses per event of the engine, counted (not timed) with valgrind on the
# default scenario (examples/demo.toml: 128-host fat tree, 4 MiB permutation, ECMP; ~2 M events).
# Counts are deterministic for a given binary, so they compare builds on a loaded machine where wall
# time means little. Prints one markdown row per binary (docs/results/event-cost.md, "Cost per event").
#
#   scripts/event_cost.sh [--cache] [LABEL=]BIN ...     (default: build/lbsim)
#
# Columns: events of the run; Ir = instructions executed by the whole process and by the event
# loop alone (callgrind, collection switched on inside Network::run_loop), each per event; with
# --cache also the simulated first-level data-cache and last-level data misses of the whole process
# (cachegrind --cache-sim=yes, the host's cache geometry), per event.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v valgrind >/dev/null; then
  echo "event_cost.sh: valgrind is not installed (apt-get install valgrind)" >&2
  exit 77
fi
cache=0
bins=()
for a in "$@"; do
  if [ "$a" = --cache ]; then cache=1; else bins+=("$a"); fi
done
[ ${#bins[@]} -gt 0 ] || bins=(build/lbsim)
CONFIG=${CONFIG:-examples/demo.toml}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ "$cache" = 1 ]; then
  echo "| binary | events | Ir / event (process) | Ir / event (event loop) | D1 misses / event | LL misses / event |"
  echo "|---|---:|---:|---:|---:|---:|"
else
  echo "| binary | events | Ir / event (process) | Ir / event (event loop) |"
  echo "|---|---:|---:|---:|"
fi
for spec in "${bins[@]}"; do
  label=${spec%%=*}
  bin=${spec#*=}
  [ "$label" != "$spec" ] || label=$(basename "$bin")
  run=("$bin" run "$CONFIG" --quiet --set output.ports_csv=false)
  valgrind --tool=callgrind --callgrind-out-file="$tmp/all.out" "${run[@]}" --out "$tmp/r1" 2>"$tmp/all.log"
  valgrind --tool=callgrind --callgrind-out-file="$tmp/loop.out" '--toggle-collect=*Network::run_loop*' \
    "${run[@]}" --out "$tmp/r2" 2>"$tmp/loop.log"
  ir_all=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$tmp/all.log")
  ir_loop=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$tmp/loop.log")
  events=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["events"])' "$tmp/r1/summary.json")
  row=$(python3 - "$label" "$events" "$ir_all" "$ir_loop" <<'PY'
import sys
label, ev, a, l = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
print(f"| {label} | {ev:,} | {a/ev:.1f} | {l/ev:.1f} |", end="")
PY
)
  if [ "$cache" = 1 ]; then
    valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file="$tmp/cg.out" "${run[@]}" --out "$tmp/r3" 2>"$tmp/cg.log"
    d1=$(grep -E "D1  misses:" "$tmp/cg.log" | sed 's/.*misses: *\([0-9,]*\).*/\1/' | tr -d ,)
    ll=$(grep -E "LLd misses:" "$tmp/cg.log" | sed 's/.*misses: *\([0-9,]*\).*/\1/' | tr -d ,)
    row+=$(python3 -c 'import sys; ev=int(sys.argv[1]); print(f" {int(sys.argv[2])/ev:.2f} | {int(sys.argv[3])/ev:.3f} |", end="")' "$events" "$d1" "$ll")
  fi
  echo "$row"
done
