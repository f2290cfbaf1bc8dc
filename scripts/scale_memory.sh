#!/usr/bin/env bash
# Routing-memory scale measurements (docs/results/routing-state.md "Measured"): peak RSS
# (/usr/bin/time -v) and wall time of `lbsim topo` and of a short run for large fabrics, plus the
# routing-state bytes the binary reports (`lbsim topo`: "routing tables: ... bytes"; older binaries
# do not print it: "-").
# Usage: scripts/scale_memory.sh [LBSIM] [OUT.md]     (LBSIM defaults to build/lbsim)
# Env: SCALE_CASES="name1 name2" to run a subset; SCALE_TIMEOUT (s, default 1800) per command.
# The runs are short (run.end_us below) so that the 65,536-host fat tree fits a shared 2-core
# machine; what they measure is the setup (topology, routing tables, workload, base RTT) plus the
# first microseconds of traffic.
set -uo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
lbsim="$(realpath "${1:-$root/build/lbsim}")"
out="${2:-/dev/stdout}"
timeout_s="${SCALE_TIMEOUT:-1800}"
[[ -x "$lbsim" ]] || { echo "scale_memory.sh: no lbsim binary at $lbsim" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "scale_memory.sh: needs /usr/bin/time" >&2; exit 2; }
cd "$root"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

ft="examples/fat_tree_1024_permutation.toml"
sf="examples/spritz/slim_fly_permutation.toml"
# name | config | overrides
cases=(
  "ft16k|$ft|topology.hosts=16384 topology.tiers=3 topology.radix=64 workload.size=1MiB run.end_us=5"
  "ft64k|$ft|topology.hosts=65536 topology.tiers=3 topology.radix=64 workload.size=1MiB run.end_us=5"
  "sf29|$sf|topology.q=29 topology.p=15 workload.size=1MiB run.end_us=5"
  "sf29-sp|$sf|topology.q=29 topology.p=15 workload.size=1MiB run.end_us=5 network.bdp_path=shortest network.queue_packets=92"
  "ft8192|examples/htsim/permutation_8192.toml|workload.size=2MiB run.end_us=5"
  "sf29-full|$sf|topology.q=29 topology.p=15 workload.size=1MiB"
)
# sf29-sp: sf29 with the base RTT of the shortest paths (the example's "longest_bounded_minimal_ack"
# used to enumerate every bounded path of every pair of switches, ~5e9 paths at q = 29; it is now a
# branch and bound that stops enumerating once no pair can beat the best round trip).
# sf29-full: the whole 1 MiB permutation of sf29 (issue 17's benchmark row; ~140 M events, several
# CPU minutes: not in the default set, ask for it with SCALE_CASES=sf29-full).
want="${SCALE_CASES:-ft16k ft64k sf29 sf29-sp ft8192}"

measure() {  # command...: prints "rss_mib wall_s cpu_s status"
  local log="$tmp/time.log"
  timeout "$timeout_s" /usr/bin/time -v "$@" >"$tmp/stdout" 2>"$log"
  local rc=$?
  local rss wall cpu
  cpu=$(awk -F': ' '/User time|System time/ {s += $2} END {printf "%.1f", s}' "$log")
  rss=$(awk -F': ' '/Maximum resident set size/ {printf "%.1f", $2 / 1024}' "$log")
  wall=$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$log" | awk -F: '{ if (NF == 3) print $1 * 3600 + $2 * 60 + $3; else print $1 * 60 + $2 }')
  local status=ok
  [[ $rc == 124 ]] && status="timeout ${timeout_s}s"
  [[ $rc == 3 ]] && status="ok (flows unfinished at run.end_us: exit 3)"
  [[ $rc != 0 && $rc != 3 && $rc != 124 ]] && status="exit $rc: $(grep -m1 -i 'error' "$log" | cut -c1-120)"
  echo "${rss:-?} ${wall:-?} ${cpu:-?} $status"
}

{
  echo "binary: $lbsim ($(cd "$root" && git rev-parse --short HEAD 2>/dev/null)), machine: $(nproc) cores, $(date -u +%F)"
  echo
  echo "| case | command | peak RSS (MiB) | wall (s) | CPU user+sys (s) | routing tables (bytes, lbsim topo) | status |"
  echo "|---|---|---|---|---|---|---|"
} >>"$out"
for c in "${cases[@]}"; do
  IFS='|' read -r name cfg sets <<<"$c"
  [[ " $want " == *" $name "* ]] || continue
  args=()
  for s in $sets; do args+=(--set "$s"); done
  echo "scale_memory: $name topo" >&2
  read -r rss wall cpu status <<<"$(measure "$lbsim" topo "$cfg" "${args[@]}")"
  tables=$(sed -nE 's/^routing tables: ([0-9]+) bytes.*/\1/p' "$tmp/stdout")
  echo "| $name | topo | $rss | $wall | $cpu | ${tables:--} | $status |" >>"$out"
  echo "scale_memory: $name run" >&2
  read -r rss wall cpu status <<<"$(measure "$lbsim" run "$cfg" "${args[@]}" --out "$tmp/run" --quiet --set output.ports_csv=false)"
  echo "| $name | run | $rss | $wall | $cpu | | $status |" >>"$out"
done
