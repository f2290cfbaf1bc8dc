#!/usr/bin/env bash
# The quick `lbsim reproduce laps-*` entries (docs/results/laps-paper-setup.md "Quick entries, measured"): runs each
# entry with --quick over the given number of seeds and prints its report (scheme legend, average
# and p99 FCT per scheme and setting, mean [min..max] over the seeds, the paper's values beside) as
# one fenced block per entry.
# Usage: scripts/laps_reproduce_quick.sh [SEEDS] [ENTRIES...]   (default 3 seeds; entries laps-fig5
# laps-fig6 laps-fig7 laps-fig8 laps-table1 laps-patterns laps-fig9); LBSIM=path overrides
# build/lbsim, JOBS (default 2) parallel runs, SET="section.key=value ..." passes each as --set to
# every entry (e.g. SET=network.flow_control=pfc: the lossless network of the LAPS authors' runs).
# FULL=1 runs the full entries instead (the paper's loads, the entries' own seeds 1-3; SEEDS is then
# ignored): docs/results/laps-paper-setup.md "Full entries, measured". KEEP=DIR keeps every entry's output folder in DIR.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
lbsim="${LBSIM:-$root/build/lbsim}"
jobs="${JOBS:-2}"
seeds="${1:-3}"
shift || true
entries=("$@")
sets=()
extra=""
for kv in ${SET:-}; do
  sets+=(--set "$kv")
  extra+=" --set $kv"
done
[[ ${#entries[@]} -gt 0 ]] || entries=(laps-fig5 laps-fig6 laps-fig7 laps-fig8 laps-table1 laps-patterns laps-fig9)
if [[ -n "${KEEP:-}" ]]; then
  out="$KEEP"
  mkdir -p "$out"
else
  out="$(mktemp -d)"
  trap 'rm -rf "$out"' EXIT
fi
export LBSIM_SOURCE_DIR="$root"
mode=(--quick --seeds "$seeds")
shown=" --quick --seeds $seeds"
if [[ "${FULL:-0}" == 1 ]]; then
  mode=()
  shown=""
fi
for e in "${entries[@]}"; do
  start=$SECONDS
  rc=0
  "$lbsim" reproduce "$e" "${mode[@]}" --no-plot --workers "$jobs" "${sets[@]}" --out "$out/$e" >"$out/$e.log" 2>&1 || rc=$?
  # A run that ends with flows still in progress ("unfinished") makes the exit code non-zero; the
  # report still prints, and the note below names those runs.
  grep -q "^$e: " "$out/$e.log" || {
    cat "$out/$e.log" >&2
    exit 1
  }
  echo "\`lbsim reproduce $e$shown$extra\` ($((SECONDS - start)) s on the 2-core machine):"
  echo
  echo '```'
  # The report: from its first line (the entry's name) to the end.
  sed -n "/^$e: /,\$p" "$out/$e.log"
  echo '```'
  if [[ $rc -ne 0 ]]; then
    echo
    echo "Exit code $rc; runs not \"ok\" in results.csv:"
    awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "status") c = i; next } $c != "ok" { print "- " $1 ": " $c }' "$out/$e/results.csv"
  fi
  echo
done
