#!/usr/bin/env bash
# Flowcut evaluation at small scale (docs/flowcut.md): [Flowcut] Fig. 8 (permutation, every scheme)
# and Fig. 12 (the three Flowcut variants) on the 128-host 3-tier fat tree of
# examples/flowcut/fat_tree_permutation.toml. One `lbsim run` per scheme and seed; prints a
# markdown table per figure: FCT mean / p99 (us, averaged over seeds), out-of-order packets (sum
# over seeds and their share of received packets), drains.
# Environment: BIN (default build/lbsim), SIZE (default 2MiB; the paper: 8MiB), SEEDS (default
# "1 2"), OUT (default results/flowcut), FLOWLET (the Best / Balanced / Lowest OOO timeouts in us,
# default the authors' "0.99 1.58 4.08"; `lbsim flowlet-timeouts` finds them for a scenario),
# MPRDMA_DELTA (default 128 packets, about 1.6 BDP here; a cap below the BDP caps the window).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-build/lbsim}
SIZE=${SIZE:-2MiB}
SEEDS=${SEEDS:-1 2}
OUT=${OUT:-results/flowcut}
read -r -a FL <<< "${FLOWLET:-0.99 1.58 4.08}"
DELTA=${MPRDMA_DELTA:-128}
CFG=examples/flowcut/fat_tree_permutation.toml

run() {  # run NAME FIGURE overrides...
  local name=$1 fig=$2
  shift 2
  for seed in $SEEDS; do
    local dir="$OUT/$fig/$name/seed$seed"
    local set=()
    for o in "$@"; do set+=(--set "$o"); done
    "$BIN" run "$CFG" --seed "$seed" --out "$dir" --set "workload.size=\"$SIZE\"" --set output.ports_csv=false \
      "${set[@]}" > /dev/null || echo "warning: $name seed $seed exited $?" >&2
  done
}

table() {  # table FIGURE: one row per scheme folder, in the order they were run
  /usr/bin/python3 - "$OUT/$1" "$2" <<'PY'
import json, os, sys
root, order = sys.argv[1], sys.argv[2].split()
print("| scheme | mean FCT (us) | p99 FCT (us) | ooo packets | ooo % | drains | done |")
print("|---|---:|---:|---:|---:|---:|---:|")
for name in order:
    d = os.path.join(root, name)
    files = [os.path.join(d, s, "summary.json") for s in sorted(os.listdir(d))] if os.path.isdir(d) else []
    runs = [json.load(open(f)) for f in files if os.path.exists(f)]
    if not runs:
        print(f"| {name} | no run | | | | | |")
        continue
    mean = sum(r["fct_us"]["mean"] for r in runs) / len(runs)
    p99 = sum(r["fct_us"]["p99"] for r in runs) / len(runs)
    ooo = sum(r["ooo_packets"] for r in runs)
    pct = sum(r["ooo_pct"] for r in runs) / len(runs)
    drains = sum(r.get("flowcut", r.get("flowcut_nic", {})).get("drains", 0) for r in runs)
    done = "%d/%d" % (sum(r["completed"] for r in runs), sum(r["workload"]["transfers"] for r in runs))
    print(f"| {name} | {mean:.1f} | {p99:.1f} | {ooo} | {pct:.2f} | {drains} | {done} |")
PY
}

echo "## Fig. 8: permutation, ${SIZE} per flow, seeds ${SEEDS}"
run ecmp fig8 lb.algorithm='"ecmp"' routing.algorithm='"ecmp"'
run spraying fig8 lb.algorithm='"ops"' routing.algorithm='"ecmp"'
run mprdma fig8 lb.algorithm='"mprdma"' lb.mprdma_delta="$DELTA" routing.algorithm='"ecmp"'
run flowlet_best fig8 lb.algorithm='"ecmp"' routing.algorithm='"flowlet"' routing.flowlet_timeout_us="${FL[0]}"
run flowlet_balanced fig8 lb.algorithm='"ecmp"' routing.algorithm='"flowlet"' routing.flowlet_timeout_us="${FL[1]}"
run flowlet_lowest_ooo fig8 lb.algorithm='"ecmp"' routing.algorithm='"flowlet"' routing.flowlet_timeout_us="${FL[2]}"
# The authors' fat-tree code models Flowlet at the sender (a new random EV after an idle gap):
# congestion oblivious like Flowcut NIC-only.
run sender_flowlet_best fig8 lb.algorithm='"flowlet"' lb.flowlet_timeout_us="${FL[0]}" routing.algorithm='"ecmp"'
run sender_flowlet_balanced fig8 lb.algorithm='"flowlet"' lb.flowlet_timeout_us="${FL[1]}" routing.algorithm='"ecmp"'
run sender_flowlet_lowest_ooo fig8 lb.algorithm='"flowlet"' lb.flowlet_timeout_us="${FL[2]}" routing.algorithm='"ecmp"'
run flowcut_nic fig8 lb.algorithm='"flowcut_nic"' routing.algorithm='"ecmp"'
run flowcut_full fig8 lb.algorithm='"ecmp"' routing.algorithm='"flowcut_full"'
table fig8 "ecmp spraying mprdma flowlet_best flowlet_balanced flowlet_lowest_ooo sender_flowlet_best sender_flowlet_balanced sender_flowlet_lowest_ooo flowcut_nic flowcut_full"
echo
echo "## Fig. 12: Flowcut variants, ${SIZE} per flow, seeds ${SEEDS}"
run flowcut_nic fig12 lb.algorithm='"flowcut_nic"' routing.algorithm='"ecmp"'
run flowcut_ingress fig12 lb.algorithm='"ecmp"' routing.algorithm='"flowcut_ingress"'
run flowcut_full fig12 lb.algorithm='"ecmp"' routing.algorithm='"flowcut_full"'
table fig12 "flowcut_nic flowcut_ingress flowcut_full"
