#!/usr/bin/env bash
# `make bench`: the engine's reference benchmark (not a test). Runs the 1024-host 2-tier fat tree
# permutation of 8 MiB messages with OPS (examples/fat_tree_1024_permutation.toml) and prints wall
# time, events, events per second and peak memory. Pass BENCH_REPEAT=n to repeat.
# Second line: the 1056-host Dragonfly of [Spritz] Table II, permutation with receivers outside the
# group, 8 MiB per flow, UGAL-L switch routing (examples/routing/dragonfly_permutation.toml); skip it
# with BENCH_DRAGONFLY=0.
# Third line: the [Flowcut] sec. III-B1 fat tree (1024 hosts, 3 levels, 1:1, 200 Gb/s, 1 us links),
# 8 MiB permutation with Flowcut in every switch (flowcut_full) on the credit-based lossless network
# (examples/flowcut/fat_tree_1024.toml); skip it with BENCH_FLOWCUT=0.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-build/lbsim}
repeat=${BENCH_REPEAT:-1}
for i in $(seq 1 "$repeat"); do
  out=$(mktemp -d)
  "$BIN" run examples/fat_tree_1024_permutation.toml --out "$out" --quiet --set output.ports_csv=false
  /usr/bin/env python3 - "$out/summary.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
p = j["perf"]
print(f"bench fat_tree_1024_permutation (OPS, 8 MiB): wall {p['wall_s']:.2f} s, events {j['events']:,}, "
      f"{p['events_per_s']/1e6:.2f} M events/s, peak memory {p['peak_rss_mb']:.0f} MiB, "
      f"max FCT {j['fct_us']['max']:.1f} us, completed {j['completed']}/{j['workload']['transfers']}")
PY
  rm -rf "$out"
done
if [ "${BENCH_DRAGONFLY:-1}" != 0 ]; then
  for i in $(seq 1 "$repeat"); do
    out=$(mktemp -d)
    "$BIN" run examples/routing/dragonfly_permutation.toml --out "$out" --quiet --set output.ports_csv=false \
      --set 'workload.size="8MiB"' --set 'routing.algorithm="ugal_l"'
    /usr/bin/env python3 - "$out/summary.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
p = j["perf"]
print(f"bench dragonfly_1056_permutation (UGAL-L, 8 MiB): wall {p['wall_s']:.2f} s, events {j['events']:,}, "
      f"{p['events_per_s']/1e6:.2f} M events/s, peak memory {p['peak_rss_mb']:.0f} MiB, "
      f"max FCT {j['fct_us']['max']:.1f} us, completed {j['completed']}/{j['workload']['transfers']}")
PY
    rm -rf "$out"
  done
fi
if [ "${BENCH_FLOWCUT:-1}" != 0 ]; then
  for i in $(seq 1 "$repeat"); do
    out=$(mktemp -d)
    "$BIN" run examples/flowcut/fat_tree_1024.toml --out "$out" --quiet --set output.ports_csv=false
    /usr/bin/env python3 - "$out/summary.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
p = j["perf"]
print(f"bench flowcut_fat_tree_1024 (flowcut_full, credit, 8 MiB): wall {p['wall_s']:.2f} s, events {j['events']:,}, "
      f"{p['events_per_s']/1e6:.2f} M events/s, peak memory {p['peak_rss_mb']:.0f} MiB, "
      f"max FCT {j['fct_us']['max']:.1f} us, completed {j['completed']}/{j['workload']['transfers']}, "
      f"drains {j['flowcut']['drains']}, ooo {j['ooo_packets']}")
PY
    rm -rf "$out"
  done
fi
