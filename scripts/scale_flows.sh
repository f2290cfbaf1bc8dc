#!/usr/bin/env bash
# Per-flow memory and the NIC scheduler's cost (issue 17; docs/scale-flows.md, docs/results/flow-memory.md).
#
# (a) WebSearch trace (cdf_trace, load 0.5, REPS) on the 1024-host 2-tier fat tree of `make bench`
#     (examples/fat_tree_1024_permutation.toml), for several trace lengths: peak RSS, entries,
#     events, wall time; the per-entry bytes are the RSS growth between two lengths divided by the
#     entries added.
# (b) Thousands of flows per host: SENDERS hosts each start FLOWS_PER_HOST flows of 256 KiB at t = 0
#     to random other hosts, with a window of WINDOW packets per flow (transport.cwnd_packets), so
#     most of a host's flows wait for ACKs and the NIC must find the few that can send (the old scan
#     visited every one of them per packet).
#
# Usage: scripts/scale_flows.sh [BIN ...]   (default: build/lbsim). Several binaries are measured
# side by side (e.g. main's and this branch's); BIN+stream runs (a) with workload.stream = true
# (entries made during the run; docs/scale-flows.md). Environment: DURATIONS (us of arrivals, one run
# each; default "700 2100 7000", about 10k, 30k and 100k flows), SENDERS (8), FLOWS_PER_HOST (2000),
# WINDOW (2), SKIP_A=1 / SKIP_B=1, BASE_A (the config of (a); default the 1024-host one, e.g.
# examples/demo.toml for its 128 hosts at 400 Gb/s: some 1.9 flows per us at load 0.5), KEEP_FLOWS
# (a folder: keep each run's flows.csv of (a) there, to compare binaries). Prints Markdown tables.
set -euo pipefail
cd "$(dirname "$0")/.."
bins=("$@")
[ ${#bins[@]} -eq 0 ] && bins=(build/lbsim)
durations=${DURATIONS:-"700 2100 7000"}
senders=${SENDERS:-8}
per_host=${FLOWS_PER_HOST:-2000}
window=${WINDOW:-2}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
base=examples/fat_tree_1024_permutation.toml
base_a=${BASE_A:-$base}

report() {  # summary.json -> one table row
  python3 - "$@" <<'PY'
import json, sys
label, path, prev = sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else ""
j = json.load(open(path))
p = j["perf"]
n = j["workload"]["entries"]
rss = p["peak_rss_mb"]
per = ""
if prev:
    q = json.load(open(prev))
    dn = n - q["workload"]["entries"]
    if dn > 0:
        per = f"{(rss - q['perf']['peak_rss_mb']) * 1048576 / dn:.0f}"
print(f"| {label} | {n:,} | {j['completed']:,} | {j['events']:,} | {p['wall_s']:.1f} | {rss:.0f} | {per} |")
PY
}

if [ "${SKIP_A:-0}" != 1 ]; then
  echo "(a) WebSearch, load 0.5, REPS ($base_a + cdf_trace)"
  echo
  echo "| binary | entries | completed | events | wall s | peak RSS MiB | MiB growth per entry (bytes) |"
  echo "|---|---|---|---|---|---|---|"
  for spec in "${bins[@]}"; do
    bin=${spec%+stream}
    extra=()
    [ "$bin" != "$spec" ] && extra=(--set workload.stream=true)
    prev=""
    for d in $durations; do
      out="$tmp/a-$(basename "$spec")-$d"
      nice "$bin" run "$base_a" --out "$out" --quiet --set output.ports_csv=false --set output.flows_csv=true "${extra[@]}" \
        --set 'workload.kind="cdf_trace"' --set 'workload.cdf="websearch"' --set workload.load=0.5 \
        --set "workload.duration_us=$d" --set 'lb.algorithm="reps"' >/dev/null
      report "$spec, ${d} us" "$out/summary.json" ${prev:+"$prev"}
      if [ -n "${KEEP_FLOWS:-}" ]; then mkdir -p "$KEEP_FLOWS"; cp "$out/flows.csv" "$KEEP_FLOWS/$(basename "$spec")-$d.csv"; fi
      prev="$out/summary.json"
    done
  done
  echo
fi

if [ "${SKIP_B:-0}" != 1 ]; then
  flows="$tmp/many.csv"
  python3 - "$flows" "$senders" "$per_host" <<'PY'
import random, sys
path, senders, per_host = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(17)
with open(path, "w") as f:
    f.write("src,dst,bytes,start_us\n")
    for s in range(senders):
        for _ in range(per_host):
            d = rng.randrange(1024)
            while d == s:
                d = rng.randrange(1024)
            f.write(f"{s},{d},262144,0\n")
PY
  echo "(b) $senders hosts x $per_host flows of 256 KiB at t = 0, window $window packets, OPS ($base + flows_csv)"
  echo
  echo "| binary | entries | completed | events | wall s | peak RSS MiB | |"
  echo "|---|---|---|---|---|---|---|"
  for spec in "${bins[@]}"; do
    bin=${spec%+stream}
    out="$tmp/b-$(basename "$bin")"
    "$bin" run "$base" --out "$out" --quiet --set output.ports_csv=false --set 'workload.kind="flows_csv"' \
      --set "workload.file=\"$flows\"" --set "transport.cwnd_packets=$window" >/dev/null
    report "$bin" "$out/summary.json"
    cp "$out/flows.csv" "$tmp/b-flows-$(basename "$bin").csv"
  done
  if [ ${#bins[@]} -gt 1 ]; then
    first="$tmp/b-flows-$(basename "${bins[0]}").csv"
    for bin in "${bins[@]:1}"; do
      if cmp -s "$first" "$tmp/b-flows-$(basename "$bin").csv"; then echo; echo "flows.csv of (b): identical across binaries";
      else echo; echo "flows.csv of (b): DIFFERENT between ${bins[0]} and $bin"; fi
    done
  fi
fi
