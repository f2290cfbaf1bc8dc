#!/usr/bin/env bash
# Memory of a streamed trace against its length (issue 17: "memory flat after warm-up";
# docs/results/large-runs.md "Memory per finished transfer"): the default scenario's 128-host fat
# tree with a Poisson trace of googlerpc-sized transfers (most of one packet) at load 0.5,
# workload.stream = true, for several lengths of arrivals, each run under /usr/bin/time -v. Prints
# per run the transfers, events, peak RSS and, between consecutive lengths, the RSS added per added
# transfer; with two binaries, each length runs with both, one after the other.
# Usage: scripts/stream_memory.sh [LABEL=]LBSIM [[LABEL=]LBSIM2]
# Environment: STREAM_US="500 1000 2000" (lengths of arrivals in us; ~110 k transfers per 100 us).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
[[ $# -ge 1 ]] || { echo "usage: stream_memory.sh [LABEL=]LBSIM [[LABEL=]LBSIM2]" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "stream_memory.sh: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
lengths=(${STREAM_US:-500 1000 2000})
labels=(); bins=()
for a in "$@"; do
  if [[ "$a" == *=* ]]; then labels+=("${a%%=*}"); bins+=("${a#*=}"); else labels+=("$(basename "$a")"); bins+=("$a"); fi
  [[ -x "${bins[-1]}" ]] || { echo "stream_memory.sh: no binary at ${bins[-1]}" >&2; exit 2; }
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "| binary | arrivals (us) | transfers | events | peak RSS (MiB) | RSS added per added transfer (B) |"
echo "|---|---:|---:|---:|---:|---:|"
declare -A prev_rss prev_n
for us in "${lengths[@]}"; do
  for i in "${!bins[@]}"; do
    out="$work/run"
    /usr/bin/time -v "${bins[$i]}" run "$root/examples/demo.toml" --out "$out" --quiet \
      --set workload.kind=cdf_trace --set workload.cdf=googlerpc --set workload.load=0.5 \
      --set workload.duration_us="$us" --set workload.stream=true --set output.flows_csv=false \
      >/dev/null 2>"$work/time.txt" || { cat "$work/time.txt" >&2; exit 1; }
    rss_kb=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$work/time.txt")
    read -r n ev < <(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["completed"], j["events"])' "$out/summary.json")
    per="-"
    if [[ -n "${prev_n[$i]:-}" ]]; then
      per=$(python3 -c "print(round(($rss_kb - ${prev_rss[$i]}) * 1024 / ($n - ${prev_n[$i]}), 1))")
    fi
    python3 -c 'import sys; l, us, n, ev, kb, per = sys.argv[1:]; print(f"| {l} | {us} | {int(n):,} | {int(ev):,} | {int(kb) / 1024:.1f} | {per} |")' \
      "${labels[$i]}" "$us" "$n" "$ev" "$rss_kb" "$per"
    prev_rss[$i]=$rss_kb; prev_n[$i]=$n
  done
done
