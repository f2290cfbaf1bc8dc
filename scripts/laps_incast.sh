#!/usr/bin/env bash
# LAPS in the Table 1 incast (docs/results/laps-paper-setup.md "Incast: why LAPS leaves the receiver's link idle"): the
# LAPS run of `lbsim reproduce laps-table1 --quick` (Rail 64, every GPU sends 1 MiB to GPU 0, PFC,
# drop ratio 0) with output.laps_trace and queue samples, analysed by scripts/laps_incast.py (the
# receiver link's utilisation, the senders' rates and rate decisions over time, one sender's
# decisions), then the same run with single LAPS settings changed, over seeds 1..SEEDS, to test the
# explanation. Prints markdown.
# Usage: scripts/laps_incast.sh [SEEDS]   (default 3); LBSIM=path overrides build/lbsim.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
lbsim="${LBSIM:-$root/build/lbsim}"
seeds="${1:-3}"
py=/usr/bin/python3
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
# The entry's LAPS point (lbsim reproduce laps-table1 --quick --print): base config, [set], scheme keys.
base=(run "$root/examples/laps/rail_64.toml" --quiet --set network.flow_control=pfc --set workload.kind=ps_allreduce
      --set workload.size=1MiB --set routing.algorithm=source_route --set lb.algorithm=laps --set transport.cc=none
      --set transport.delivery=ooo --set output.ports_csv=true)

"$lbsim" "${base[@]}" --set run.seed=1 --set output.laps_trace=true --set output.queue_sample_us=10 --out "$out/trace" >/dev/null
"$py" "$root/scripts/laps_incast.py" "$out/trace" 1000 31

# Variants: one setting each.
variants=(
  "paper|"
  "ns3|--set lb.laps_rate_rule=ns3_0154ca8 --set lb.laps_beta=4"
  "floor_fair|--set lb.laps_min_rate_gbps=1.5"
  "window_1bdp|--set transport.init_cwnd_bdp=1 --set transport.max_cwnd_bdp=1"
  "host_200g|--set topology.rail_host_rate_gbps=200"
  "host_200g_floor_fair|--set topology.rail_host_rate_gbps=200 --set lb.laps_min_rate_gbps=3"
)
echo
echo "Variants (seeds 1-$seeds, mean [min..max] of the average FCT; link busy = the receiver link's busy share of the makespan):"
echo
echo "| variant | average FCT (us) | p99 FCT (us) | makespan (us) | receiver link busy | rate decreases per sender |"
echo "|---|---|---|---|---|---|"
for v in "${variants[@]}"; do
  name="${v%%|*}"
  args="${v#*|}"
  for s in $(seq 1 "$seeds"); do
    # shellcheck disable=SC2086
    "$lbsim" "${base[@]}" --set run.seed="$s" $args --out "$out/$name-$s" >/dev/null
  done
  "$py" - "$out" "$name" "$seeds" <<'EOF'
import json, sys
out, name, seeds = sys.argv[1], sys.argv[2], int(sys.argv[3])
avg, p99, mk, busy, dec = [], [], [], [], []
for s in range(1, seeds + 1):
    j = json.load(open(f"{out}/{name}-{s}/summary.json"))
    avg.append(j["fct_us"]["mean"]); p99.append(j["fct_us"]["p99"]); mk.append(j["makespan_us"])
    rx = 0
    import csv
    for r in csv.DictReader(open(f"{out}/{name}-{s}/ports.csv")):
        if r["peer_label"] == "gpu0.0":
            rx = int(r["tx_bytes"]) * 8 / (float(r["rate_gbps"]) * 1e3)
    busy.append(rx / j["makespan_us"])
    dec.append(j["laps"]["rate_decreases"] / j["laps"]["flows"])
m = lambda v: sum(v) / len(v)
print(f"| {name} | {m(avg):.0f} [{min(avg):.0f}..{max(avg):.0f}] | {m(p99):.0f} | {m(mk):.0f} | {100 * m(busy):.0f} % | {m(dec):.0f} |")
EOF
done
