#!/usr/bin/env bash
# Path diversity of the layered routing under the almost-minimal path rules (--detours exact3 | range |
# shortest) against [SlimFly] Fig. 8 / sec. 6.3, 6.5 (q = 5: ~60 % of switch pairs with >= 3
# link-disjoint paths at 4 layers, 88.5 % at 8, ~100 % at 16). Prints a markdown table.
# Usage: scripts/layers_diversity.sh LBSIM [SEEDS]
set -euo pipefail
exe=$1 seeds=${2:-"1 2 3"}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
echo "| q | --detours | seed | >= 3 disjoint, 4 layers | 8 layers | 16 layers | longest route (16) | mean of per-pair max length (16) |"
echo "|---|---|---|---|---|---|---|---|"
for q in 5 7; do
  for rule in exact3 shortest range; do
    for seed in $seeds; do
      "$exe" layers "$root/examples/layered/sf-q$q.toml" -L 16 --sweep --detours "$rule" --seed "$seed" --out "$work/o" >/dev/null
      python3 - "$work/o/layers.json" "$q" "$rule" "$seed" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
st = {s["layers"]: s for s in j["stats"]}
pct = lambda l: f'{100 * st[l]["share_at_least_3_disjoint"]:.1f} %'
print(f'| {sys.argv[2]} | {sys.argv[3]} | {sys.argv[4]} | {pct(4)} | {pct(8)} | {pct(16)} | {st[16]["max_length"]} | {st[16]["mean_max_length"]:.2f} |')
PY
    done
  done
done
echo "| paper (q = 5) | | | ~60 % | 88.5 % | ~100 % | | |"
rm -rf "$work"
