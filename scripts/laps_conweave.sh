#!/usr/bin/env bash
# ConWeave next to the other LAPS schemes on the LAPS topologies (docs/results/laps-paper-setup.md "ConWeave on Rail and
# the Dragonfly"): the schemes of `lbsim reproduce laps-fig6 / laps-fig7` (their routing, lb and cc
# keys, on the base configs' transport for every scheme, without the entries' per-scheme go-back-N
# senders; --quick launch windows) plus ConWeave with the minimal first path, at one load, for the given seeds; prints one
# markdown table per topology (average / p99 FCT, ConWeave's reroutes and reorder-queue counters).
# Usage: scripts/laps_conweave.sh [SEEDS...]   (default 1 2 3); LBSIM=path overrides build/lbsim,
# LOAD (default 0.8), JOBS (default 2) parallel runs.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
lbsim="${LBSIM:-$root/build/lbsim}"
load="${LOAD:-0.8}"
jobs="${JOBS:-2}"
seeds=("$@")
[[ ${#seeds[@]} -gt 0 ]] || seeds=(1 2 3)
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
# scheme -> --set arguments (routing, lb and cc of the reproduce entries' laps_schemes(),
# src/workflow/catalog.cpp; the entries also set each scheme's recovery and window)
declare -A keys=(
  [ecmp]="routing.algorithm=ecmp lb.algorithm=ecmp transport.cc=dcqcn"
  [letflow]="routing.algorithm=letflow lb.algorithm=ecmp transport.cc=dcqcn"
  [plb]="routing.algorithm=ecmp lb.algorithm=plb transport.cc=dctcp"
  [conweave]="routing.algorithm=conweave lb.algorithm=ecmp transport.cc=dcqcn"
  [conweave_min]="routing.algorithm=conweave routing.conweave_first_path=shortest lb.algorithm=ecmp transport.cc=dcqcn"
  [laps]="routing.algorithm=source_route lb.algorithm=laps transport.cc=none"
)
schemes=(ecmp letflow plb conweave conweave_min laps)
# topology case: example, flow sizes, launch window (us) as laps-fig6 / laps-fig7 --quick
cases=("rail|rail_64|alistorage|100" "dragonfly|dragonfly_144|googlerpc|20")
cmds="$out/cmds"
: >"$cmds"
for c in "${cases[@]}"; do
  IFS='|' read -r name ex cdf win <<<"$c"
  for sc in "${schemes[@]}"; do
    for s in "${seeds[@]}"; do
      sets=""
      for kv in ${keys[$sc]}; do sets+=" --set $kv"; done
      echo "$lbsim run $root/examples/laps/$ex.toml --out $out/$name-$sc-$s --quiet --set run.seed=$s --set workload.load=$load --set workload.cdf=$cdf --set workload.duration_us=$win --set output.ports_csv=false$sets >/dev/null" >>"$cmds"
    done
  done
done
xargs -P "$jobs" -I{} sh -c '{}' <"$cmds"
/usr/bin/env python3 - "$out" "$load" "${seeds[*]}" "${schemes[*]}" <<'PY'
import json, sys, statistics as st
out, load, seeds, schemes = sys.argv[1], sys.argv[2], sys.argv[3].split(), sys.argv[4].split()
for name, what in [("rail", "Rail 64, STR, 100 us launch window"), ("dragonfly", "Dragonfly 144, RPC, 20 us launch window")]:
    print(f"({what}, load {load}; mean over seeds {', '.join(seeds)}, [min..max] of the average FCT)\n")
    print("| scheme | flows | average FCT (us) | p99 FCT (us) | reroutes / flow | held packets / flow | largest reorder queue |")
    print("|---|---|---|---|---|---|---|")
    for sc in schemes:
        js = [json.load(open(f"{out}/{name}-{sc}-{s}/summary.json")) for s in seeds]
        avg = [j["fct_us"]["mean"] for j in js]
        p99 = st.mean(j["fct_us"]["p99"] for j in js)
        n = st.mean(j["completed"] for j in js)
        cw = [j.get("conweave") for j in js]
        if all(cw):
            rr = f"{st.mean(c['reroutes'] / j['completed'] for c, j in zip(cw, js)):.3f}"
            hp = f"{st.mean(c['held_packets'] / j['completed'] for c, j in zip(cw, js)):.2f}"
            mq = f"{max(c['max_reorder_queue'] for c in cw)}"
        else:
            rr = hp = mq = "-"
        print(f"| {sc} | {n:.0f} | {st.mean(avg):.1f} [{min(avg):.1f}..{max(avg):.1f}] | {p99:.1f} | {rr} | {hp} | {mq} |")
    print()
PY
