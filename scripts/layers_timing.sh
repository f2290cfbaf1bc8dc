#!/usr/bin/env bash
# Times `lbsim layers --tables --vls 3 --deadlock three-lane` (layers, OpenSM tables with the
# parse-back walk, SL/VL tables and the three-lane deadlock analysis) for Slim Fly q and layer
# counts. Prints wall and user seconds (user time is less sensitive to other jobs on the machine).
# Usage: scripts/layers_timing.sh LBSIM "5 7 11 13" "4 8 16" [TIMEOUT_S]
set -uo pipefail
exe=$1 qs=$2 Ls=$3 limit=${4:-600}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
echo "q layers wall_s user_s status"
for q in $qs; do
  for L in $Ls; do
    /usr/bin/time -f "%e %U" -o "$work/t" timeout "$limit" "$exe" layers "$root/examples/layered/sf-q7.toml" \
      --set topology.q="$q" -L "$L" --tables --vls 3 --deadlock three-lane --out "$work/o" >/dev/null 2>"$work/err"
    rc=$?
    read -r wall user < <(tail -1 "$work/t")
    status=ok; [ $rc -eq 124 ] && status="timeout>${limit}s"; [ $rc -ne 0 ] && [ $rc -ne 124 ] && status="exit $rc"
    echo "$q $L $wall $user $status"
  done
done
rm -rf "$work"
