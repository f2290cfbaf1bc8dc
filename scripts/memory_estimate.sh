#!/usr/bin/env bash
# The memory guard's estimate (`lbsim topo`: "memory estimate of a run") against the peak resident
# set size of the run (/usr/bin/time -v), for a few realistic configs; rewrites the table between
# the memory-estimate markers of docs/reliability.md (docs/reliability.md "Limits").
# Usage: scripts/memory_estimate.sh [LBSIM]   (LBSIM defaults to build/lbsim)
# The runs take a few minutes on 2 cores; the numbers depend on the machine only through its
# allocator and page size.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
lbsim="$(realpath "${1:-$root/build/lbsim}")"
[[ -x "$lbsim" ]] || { echo "memory_estimate.sh: no lbsim binary at $lbsim" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "memory_estimate.sh: needs /usr/bin/time (Debian package time)" >&2; exit 2; }
cd "$root"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# "12.3 MiB" -> bytes
to_bytes() {
  awk -v v="$1" -v u="$2" 'BEGIN { m = u == "KiB" ? 1 : u == "MiB" ? 2 : u == "GiB" ? 3 : 4; printf "%.0f", v * 1024 ^ m }'
}

# name | config | overrides (space-separated section.key=value)
cases=(
  "demo: 128-host fat tree, permutation of 4 MiB|examples/demo.toml|"
  "1024-host fat tree, permutation of 8 MiB|examples/fat_tree_1024_permutation.toml|"
  "Slim Fly q = 9 (1134 hosts), permutation of 8 MiB|examples/spritz/slim_fly_table2.toml|"
  "Dragonfly 1056 hosts, permutation of 8 MiB|examples/spritz/dragonfly_table2.toml|"
  "128-host fat tree, websearch cdf_trace of 5 ms at load 0.5|examples/demo.toml|workload.kind=cdf_trace workload.duration_us=5000 run.end_us=50000"
  "Slim Fly q = 29 (36,998 hosts, 1682 switches), permutation of 4 KiB|examples/spritz/slim_fly_table2.toml|topology.q=29 topology.p=22 workload.size=4KiB"
)

rows=""
for c in "${cases[@]}"; do
  IFS='|' read -r name cfg sets <<<"$c"
  args=()
  for s in $sets; do args+=(--set "$s"); done
  est_line="$("$lbsim" topo "$cfg" "${args[@]}" | grep '^memory estimate of a run:')"
  read -r est_v est_u <<<"$(sed -E 's/^memory estimate of a run: ([0-9.]+) ([KMGT]iB).*/\1 \2/' <<<"$est_line")"
  est=$(to_bytes "$est_v" "$est_u")
  echo "memory_estimate: $name" >&2
  rc=0
  /usr/bin/time -v -o "$tmp/time.txt" "$lbsim" run "$cfg" "${args[@]}" --out "$tmp/run" --quiet >/dev/null 2>&1 || rc=$?
  [[ $rc == 0 || $rc == 3 ]] || { echo "memory_estimate.sh: $cfg ${args[*]} exited $rc" >&2; exit 1; }
  rss_kib=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$tmp/time.txt")
  rss=$((rss_kib * 1024))
  ratio=$(awk -v e="$est" -v r="$rss" 'BEGIN { printf "%.2f", e / r }')
  shown_sets="${sets:+ \`$sets\`}"
  rows+="| $name | \`$cfg\`$shown_sets | $est_v $est_u | $(awk -v r="$rss" 'BEGIN { printf "%.1f MiB", r / 1048576 }') | $ratio |"$'\n'
done

table="| config | file and overrides | estimate | peak RSS | estimate / RSS |"$'\n'"|---|---|---|---|---|"$'\n'"$rows"
doc=docs/reliability.md
begin='<!-- memory-estimate:begin (scripts/memory_estimate.sh) -->'
end='<!-- memory-estimate:end -->'
grep -qF "$begin" "$doc" || { echo "memory_estimate.sh: $doc has no '$begin' marker" >&2; exit 2; }
awk -v b="$begin" -v e="$end" -v t="$table" '
  $0 == b { print; printf "%s", t; skip = 1; next }
  $0 == e { skip = 0 }
  !skip { print }' "$doc" > "$tmp/doc.md"
cp "$tmp/doc.md" "$doc"
printf '%s' "$table"
