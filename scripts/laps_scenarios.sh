#!/usr/bin/env bash
# LAPS evaluation, small ([LAPS] sec. 4, Fig. 5-8; docs/results/laps-paper-setup.md): Rail 64 GPUs with DM and STR,
# Dragonfly 144 servers with RPC and HDP, All2all-style Poisson traffic (every host to random
# others) at a few loads, for LAPS (source_route + laps), ECMP (ecmp routing, one EV per flow, DCTCP)
# and PLB (ecmp routing, PLB re-hashing, DCTCP); then a beta sweep. Prints the markdown tables of
# docs/results/laps-paper-setup.md (average and p99 FCT in us over every flow of the run).
# Environment: BIN (default build/lbsim), OUT (run folders, default results/laps), LOADS (default
# "0.5 0.8"), SEED (default 1). Launch windows are short (2-core machine); the paper's are longer.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-build/lbsim}
OUT=${OUT:-results/laps}
LOADS=${LOADS:-0.5 0.8}
SEED=${SEED:-1}
mkdir -p "$OUT"

# MODE=ns3: the comparison of docs/results/laps-paper-setup.md "The authors' ns-3 code vs the paper" instead: Dragonfly RPC
# and Rail DM at load 0.8, PFC on, launch window WINDOW us (default 200), seeds SEEDS (default "1 2"),
# for LAPS as the paper reads (defaults), LAPS with the authors' code's rules (lb.laps_rate_rule = ns3_0154ca8,
# lb.laps_spray_paths = all, beta 4) and ECMP (minimal ECMP, one EV per flow, DCTCP).
if [ "${MODE:-}" = ns3 ]; then
  WINDOW=${WINDOW:-200}
  SEEDS=${SEEDS:-1 2}
  ns3_args() {
    case $1 in
      laps) echo "" ;;
      laps_ns3) echo "--set lb.laps_rate_rule=ns3_0154ca8 --set lb.laps_spray_paths=all --set lb.laps_beta=4" ;;
      ecmp) echo "--set routing.algorithm=ecmp --set lb.algorithm=ecmp --set transport.cc=dctcp" ;;
    esac
  }
  for sc in "dragonfly_144 googlerpc" "rail_64 ../../data/flow-size-cdf/VL2_CDF.txt"; do
    read -r topo cdf <<<"$sc"
    for seed in $SEEDS; do
      for scheme in laps laps_ns3 ecmp; do
        # shellcheck disable=SC2046
        "$BIN" run "examples/laps/${topo}.toml" --seed "$seed" --set output.ports_csv=false \
          --set network.flow_control=pfc --set "workload.cdf=\"${cdf}\"" --set workload.load=0.8 \
          --set "workload.duration_us=${WINDOW}" $(ns3_args "$scheme") --out "$OUT/ns3_${topo}_${seed}_${scheme}" --quiet \
          >/dev/null 2>&1 || echo "run failed: ${topo} seed ${seed} ${scheme}" >&2
      done
    done
  done
  python3 - "$OUT" "$SEEDS" <<'PY'
import csv, json, math, os, sys
out, seeds = sys.argv[1], sys.argv[2].split()
def stats(d):
    p = os.path.join(out, d, "flows.csv")
    if not os.path.exists(p):
        return None
    f = sorted(float(r["fct_us"]) for r in csv.DictReader(open(p)) if r["finished"] == "1")
    if not f:
        return None
    lj = json.load(open(os.path.join(out, d, "summary.json"))).get("laps", {})
    return sum(f) / len(f), f[min(len(f) - 1, math.ceil(0.99 * len(f)) - 1)], len(f), lj.get("rate_decreases"), lj.get("rate_increases")
print("| topology, workload | seed | flows | LAPS (paper rules) | LAPS (ns-3 code rules, beta 4) | ECMP + DCTCP | decreases / increases (paper) | decreases / increases (ns-3) |")
print("|---|---|---|---|---|---|---|---|")
for topo, wl in (("dragonfly_144", "Dragonfly 144, RPC"), ("rail_64", "Rail 64, DM")):
    for seed in seeds:
        r = {s: stats(f"ns3_{topo}_{seed}_{s}") for s in ("laps", "laps_ns3", "ecmp")}
        c = lambda v: "-" if v is None else f"{v[0]:.1f} / {v[1]:.1f}"
        rc = lambda v: "-" if v is None else f"{v[3]} / {v[4]}"
        n = next((v[2] for v in r.values() if v), 0)
        print(f"| {wl} | {seed} | {n} | {c(r['laps'])} | {c(r['laps_ns3'])} | {c(r['ecmp'])} | {rc(r['laps'])} | {rc(r['laps_ns3'])} |")
PY
  exit 0
fi

run() {  # name config extra-args...
  local name=$1 cfg=$2
  shift 2
  "$BIN" run "$cfg" --seed "$SEED" --set output.ports_csv=false "$@" --out "$OUT/$name" --quiet >/dev/null 2>&1 || true
}

scheme_args() {
  case $1 in
    laps) echo "" ;;
    ecmp) echo "--set routing.algorithm=ecmp --set lb.algorithm=ecmp --set transport.cc=dctcp" ;;
    plb) echo "--set routing.algorithm=ecmp --set lb.algorithm=plb --set transport.cc=dctcp" ;;
  esac
}

# topology config, workload label, cdf, launch window (us)
scenarios=(
  "rail_64 DM ../../data/flow-size-cdf/VL2_CDF.txt 300"
  "rail_64 STR alistorage 200"
  "dragonfly_144 RPC googlerpc 20"
  "dragonfly_144 HDP hadoop 100"
)
for s in "${scenarios[@]}"; do
  read -r topo wl cdf window <<<"$s"
  for load in $LOADS; do
    for scheme in laps ecmp plb; do
      # shellcheck disable=SC2046
      run "${topo}_${wl}_${load}_${scheme}" "examples/laps/${topo}.toml" --set "workload.cdf=\"${cdf}\"" \
        --set "workload.load=${load}" --set "workload.duration_us=${window}" $(scheme_args "$scheme")
    done
  done
done
for beta in 0 1 10 100; do
  run "beta_${beta}" examples/laps/dragonfly_144.toml --set workload.load=0.8 --set workload.duration_us=20 \
    --set "lb.laps_beta=${beta}"
done

python3 - "$OUT" "$LOADS" <<'PY'
import csv, json, math, os, sys
out, loads = sys.argv[1], sys.argv[2].split()

def stats(name):
    path = os.path.join(out, name, "flows.csv")
    if not os.path.exists(path):
        return None
    f = [float(r["fct_us"]) for r in csv.DictReader(open(path)) if r["finished"] == "1"]
    if not f:
        return None
    f.sort()
    return sum(f) / len(f), f[min(len(f) - 1, math.ceil(0.99 * len(f)) - 1)], len(f)

def cell(v):
    return "-" if v is None else f"{v[0]:.1f} / {v[1]:.1f}"

for topo, wl in [("rail_64", "DM"), ("rail_64", "STR"), ("dragonfly_144", "RPC"), ("dragonfly_144", "HDP")]:
    print(f"\n({'Rail' if topo == 'rail_64' else 'Dragonfly'}, {wl}, all-to-all Poisson): average / p99 FCT (us)\n")
    print("| load | flows | LAPS | ECMP | PLB |")
    print("|---|---|---|---|---|")
    for load in loads:
        r = {s: stats(f"{topo}_{wl}_{load}_{s}") for s in ("laps", "ecmp", "plb")}
        n = next((v[2] for v in r.values() if v), 0)
        print(f"| {load} | {n} | {cell(r['laps'])} | {cell(r['ecmp'])} | {cell(r['plb'])} |")
print("\n(Dragonfly, RPC, load 0.8): LAPS beta sweep\n")
print("| beta | average FCT (us) | p99 FCT (us) | out-of-order packets | rate decreases | probes |")
print("|---|---|---|---|---|---|")
for beta in (0, 1, 10, 100):
    name = f"beta_{beta}"
    v = stats(name)
    try:
        j = json.load(open(os.path.join(out, name, "summary.json")))
        ooo = sum(int(r["ooo_packets"]) for r in csv.DictReader(open(os.path.join(out, name, "flows.csv"))))
        lj = j.get("laps", {})
        extra = f"{ooo} | {lj.get('rate_decreases', '-')} | {lj.get('probes_sent', '-')}"
    except OSError:
        extra = "- | - | -"
    print(f"| {beta} | {'-' if v is None else f'{v[0]:.1f}'} | {'-' if v is None else f'{v[1]:.1f}'} | {extra} |")
PY
