#!/usr/bin/env bash
# Measures the times `lbsim reproduce --list` shows ([time] of each manifest, docs/workflow.md
# "Reproduction manifests"): runs each entry with --workers 2 and without plots, prints the wall time
# beside the manifest's, and with WRITE=1 writes it into the manifest (quick_s; full_s with FULL=1,
# which also drops full_estimated). Single wall-clock runs on a shared machine vary by 15-30 %.
# Usage: scripts/reproduce_times.sh [LBSIM] [ENTRY...]   (default: build/lbsim, every entry)
# Environment: FULL=1 (the full scale: hours for some entries), WRITE=1, OUT (run folders; default a
# temporary folder, removed at the end).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
lbsim="$(realpath "${1:-$root/build/lbsim}")"
shift || true
[[ -x "$lbsim" ]] || { echo "reproduce_times.sh: no lbsim binary at $lbsim" >&2; exit 2; }
out="${OUT:-$(mktemp -d /tmp/lbsim-times.XXXX)}"
[[ -n "${OUT:-}" ]] || trap 'rm -rf "$out"' EXIT
entries=("$@")
if [[ ${#entries[@]} -eq 0 ]]; then
  mapfile -t entries < <("$lbsim" reproduce --list | awk 'NR > 1 && $NF == "ready" {print $1}')
fi
key=quick_s
mode=(--quick)
if [[ "${FULL:-}" == 1 ]]; then key=full_s; mode=(); fi
printf '%-24s %10s %10s\n' entry "measured" "manifest"
for e in "${entries[@]}"; do
  manifest="$(grep -rl --include='*.toml' "^name = \"$e\"$" "$root/examples" | grep '/reproduce/' | head -1)"
  [[ -n "$manifest" ]] || { echo "reproduce_times.sh: no manifest names $e" >&2; exit 2; }
  start=$(date +%s.%N)
  rc=0
  "$lbsim" reproduce "$e" "${mode[@]}" --no-plot --workers 2 --out "$out/$e" >"$out/$e.log" 2>&1 || rc=$?
  # 3: runs with unfinished flows (permanent failures) are results too.
  [[ $rc -eq 0 || $rc -eq 3 ]] || { echo "reproduce_times.sh: $e exited $rc (log: $out/$e.log)" >&2; exit 1; }
  s=$(python3 -c "import sys; t = float(sys.argv[2]) - float(sys.argv[1])
print(f'{t:.1f}' if t < 10 else f'{t:.0f}')" "$start" "$(date +%s.%N)")
  old="$(sed -n "s/^$key = \(.*\)$/\1/p" "$manifest" | head -1)"
  printf '%-24s %10s %10s\n' "$e" "$s" "$old"
  if [[ "${WRITE:-}" == 1 ]]; then
    sed -i "s/^$key = .*$/$key = $s/" "$manifest"
    [[ "$key" == full_s ]] && sed -i '/^full_estimated = true$/d' "$manifest"
  fi
done
