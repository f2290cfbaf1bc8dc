#!/usr/bin/env bash
# Times `lbsim layers --tables --vls 3 --deadlock three-lane` (layers, path statistics, OpenSM tables
# with the parse-back walk, SL/VL tables and the three-lane deadlock analysis) for Slim Fly q and
# layer counts. Runs each case REPEATS times and prints the median wall and user seconds (user
# time is less sensitive to other jobs on the machine) and all user times.
# Usage: scripts/layers_timing.sh LBSIM "5 7 11 13" "4 8 16" [TIMEOUT_S] [REPEATS] [EXTRA ARGS...]
set -uo pipefail
exe=$1 qs=$2 Ls=$3 limit=${4:-600} reps=${5:-1}
shift $(( $# < 5 ? $# : 5 ))
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
echo "q layers median_wall_s median_user_s user_s_all status"
for q in $qs; do
  for L in $Ls; do
    : >"$work/walls"; : >"$work/users"; status=ok
    for ((i = 0; i < reps; i++)); do
      /usr/bin/time -f "%e %U" -o "$work/t" timeout "$limit" "$exe" layers "$root/examples/layered/sf-q7.toml" \
        --set topology.q="$q" -L "$L" --tables --vls 3 --deadlock three-lane --out "$work/o" "$@" >/dev/null 2>"$work/err"
      rc=$?
      read -r wall user < <(tail -1 "$work/t")
      echo "$wall" >>"$work/walls"; echo "$user" >>"$work/users"
      [ $rc -eq 124 ] && status="timeout>${limit}s"; [ $rc -ne 0 ] && [ $rc -ne 124 ] && status="exit $rc"
      [ "$status" != ok ] && break
    done
    echo "$q $L $(median <"$work/walls") $(median <"$work/users") $(paste -sd, "$work/users") $status"
  done
done
rm -rf "$work"
