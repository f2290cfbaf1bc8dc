#!/usr/bin/env bash
# Why LAPS is slower than ECMP on the LAPS Dragonfly (docs/results/laps-paper-setup.md "Mechanism of the gap"):
# Dragonfly 144 (examples/laps/dragonfly_144.toml), RPC (20 us launch window) and HDP (50 us), loads
# 0.5 and 0.8, seeds 1 2 3, for the baselines and for LAPS under each reading of sec. 3.5 / 4.1:
#   ecmp        minimal ECMP routing, one EV per flow, DCTCP
#   ecmp_dcqcn  the same with DCQCN (the paper's baselines' CC)
#   letflow     LetFlow flowlets (10 us timeout, the authors' setting) with DCQCN; on this Dragonfly
#               the shortest path is unique, so its random port choice has nothing to choose from
#   (CONGA over the Dragonfly candidate paths came later and is not among these schemes; its rows are
#   in the quick reproduce entries, docs/results/laps-paper-setup.md)
#   plb         PLB re-hashing over ECMP with DCTCP
#   laps        LAPS defaults (candidates: minimal + one per third group; beta 1, max_base)
#   laps_ns3    the authors' code's rules (rate rule ns3, spray over all paths, beta 4)
#   laps_us     Eq. 1 on latencies in microseconds (beta 1)
#   laps_min    LAPS with the minimal path as the only candidate (yen, k = 1): spraying off,
#               rate control and loss detection on
# For every run: average / p99 FCT (us) and "global hops per byte" = bytes sent on global links /
# bytes sent by the hosts (ACKs follow their data packet's path, so this is the mean number of
# global links a packet crosses: 128/143 = 0.895 for minimal routing of uniform traffic, up to
# twice that when every inter-group packet detours through a third group), and the largest global
# link queue. Prints the markdown tables of docs/results/laps-paper-setup.md.
# Environment: BIN (default build/lbsim), OUT (default results/laps_mechanism), SEEDS, LOADS,
# SCHEMES, JOBS (parallel runs, default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-build/lbsim}
OUT=${OUT:-results/laps_mechanism}
SEEDS=${SEEDS:-1 2 3}
LOADS=${LOADS:-0.5 0.8}
SCHEMES=${SCHEMES:-ecmp ecmp_dcqcn letflow plb laps laps_ns3 laps_us laps_min}
JOBS=${JOBS:-2}
mkdir -p "$OUT"

args() {
  case $1 in
    ecmp) echo "--set routing.algorithm=ecmp --set lb.algorithm=ecmp --set transport.cc=dctcp" ;;
    ecmp_dcqcn) echo "--set routing.algorithm=ecmp --set lb.algorithm=ecmp --set transport.cc=dcqcn" ;;
    letflow) echo "--set routing.algorithm=letflow --set lb.algorithm=ecmp --set transport.cc=dcqcn" ;;
    plb) echo "--set routing.algorithm=ecmp --set lb.algorithm=plb --set transport.cc=dctcp" ;;
    laps) echo "" ;;
    laps_ns3) echo "--set lb.laps_rate_rule=ns3_0154ca8 --set lb.laps_spray_paths=all --set lb.laps_beta=4" ;;
    laps_us) echo "--set lb.laps_normalize=us" ;;
    laps_min) echo "--set routing.source_paths=yen --set routing.source_paths_k=1" ;;
  esac
}

jobs_file="$OUT/jobs.txt"
: >"$jobs_file"
for wl in "RPC googlerpc 20" "HDP hadoop 50"; do
  read -r name cdf window <<<"$wl"
  for load in $LOADS; do
    for seed in $SEEDS; do
      for s in $SCHEMES; do
        d="$OUT/${name}_${load}_${seed}_${s}"
        [ -f "$d/summary.json" ] && continue
        echo "$BIN run examples/laps/dragonfly_144.toml --seed $seed --set workload.cdf=\"${cdf}\" --set workload.load=${load} --set workload.duration_us=${window} $(args "$s") --out $d --quiet >/dev/null 2>&1 || echo run failed: $d >&2" >>"$jobs_file"
      done
    done
  done
done
xargs -P "$JOBS" -I{} sh -c '{}' <"$jobs_file"

python3 - "$OUT" "$SEEDS" "$LOADS" "$SCHEMES" <<'PY'
import csv, math, os, sys
out, seeds, loads, schemes = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), sys.argv[4].split()

def stats(d):
    p = os.path.join(out, d)
    if not os.path.exists(os.path.join(p, "summary.json")):
        return None
    f = sorted(float(r["fct_us"]) for r in csv.DictReader(open(os.path.join(p, "flows.csv"))) if r["finished"] == "1")
    if not f:
        return None
    host = glob = 0
    gq = 0
    for r in csv.DictReader(open(os.path.join(p, "ports.csv"))):
        if r["link_kind"] == "host" and r["node_label"].count("h"):
            host += int(r["tx_bytes"])
        if r["link_kind"] == "global":
            glob += int(r["tx_bytes"])
            gq = max(gq, int(r["max_queue_bytes"]))
    return (sum(f) / len(f), f[min(len(f) - 1, math.ceil(0.99 * len(f)) - 1)], glob / max(host, 1), gq / 1024)

def mean(v):
    return sum(v) / len(v)

for wl in ("RPC", "HDP"):
    for load in loads:
        print(f"\n(Dragonfly 144, {wl}, load {load}; mean over seeds {' '.join(seeds)}, [min..max] of the average FCT)\n")
        print("| scheme | average FCT (us) | p99 FCT (us) | global hops per byte | largest global queue (KiB) |")
        print("|---|---|---|---|---|")
        for s in schemes:
            r = [x for x in (stats(f"{wl}_{load}_{seed}_{s}") for seed in seeds) if x]
            if not r:
                print(f"| {s} | - | - | - | - |")
                continue
            a = [x[0] for x in r]
            print(f"| {s} | {mean(a):.1f} [{min(a):.1f}..{max(a):.1f}] | {mean([x[1] for x in r]):.1f} | "
                  f"{mean([x[2] for x in r]):.2f} | {mean([x[3] for x in r]):.0f} |")
PY

# Mean queue per switch port by link kind (RPC, load 0.8, seed 1, queues sampled every 1 us over the
# 20 us window and 5 us after it): where the detours' extra bytes wait.
for s in laps ecmp; do
  d="$OUT/queues_${s}"
  # shellcheck disable=SC2046
  [ -f "$d/summary.json" ] || "$BIN" run examples/laps/dragonfly_144.toml --seed 1 --set workload.load=0.8 \
    --set workload.duration_us=20 --set output.queue_sample_us=1 --set output.queue_ports=all $(args "$s") \
    --out "$d" --quiet >/dev/null 2>&1 || echo "run failed: $d" >&2
done
python3 - "$OUT" <<'PY'
import csv, os, sys
out = sys.argv[1]
print("\n(Dragonfly 144, RPC, load 0.8, seed 1): mean data queue per switch port (KB), samples every 1 us up to 25 us\n")
print("| scheme | local links | global links | switch-to-host links |")
print("|---|---|---|---|")
for s in ("ecmp", "laps"):
    d = os.path.join(out, f"queues_{s}")
    if not os.path.exists(os.path.join(d, "queues.csv")):
        print(f"| {s} | - | - | - |")
        continue
    kind = {(r["node"], r["port"]): r["link_kind"] for r in csv.DictReader(open(os.path.join(d, "ports.csv")))}
    agg = {}
    for r in csv.DictReader(open(os.path.join(d, "queues.csv"))):
        if float(r["time_us"]) > 25:
            continue
        a = agg.setdefault(kind.get((r["node"], r["port"]), "?"), [0, 0])
        a[0] += int(r["data_bytes"])
        a[1] += 1
    m = {k: v[0] / v[1] / 1000 for k, v in agg.items()}
    print(f"| {s} | {m.get('local', 0):.1f} | {m.get('global', 0):.1f} | {m.get('host', 0):.1f} |")
PY
