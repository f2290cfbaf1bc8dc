#!/usr/bin/env bash
# Issue 54: lbsim's NSCC and RCCC side by side with the REPS artifact's htsim (htsim_uec) on the same
# connection-matrix files: examples/htsim/permutation_128.cm (8 MiB) and incast_16to1.cm (16 x 4 MiB
# into host 0), for {NSCC, RCCC, both} x {OPS, REPS}. htsim runs with the command line of the
# artifact's CC figure (fig. 12: -sack_threshold 4000 -end 90000 -seed 20 -paths 65535 -linkspeed
# 400000 -ecn 25 76 -q 100 -cwnd 151, the 128-host 2-tier tree as a -topo file) plus
#   NSCC: -sender_cc_only -sender_cc_algo nscc     RCCC: no flag     both: -sender_cc -sender_cc_algo nscc
#   OPS: -load_balancing_algo oblivious            REPS: -load_balancing_algo reps
# lbsim runs examples/htsim/permutation_128.toml (same physical parameters, output.fct_at = "sender")
# with transport.cc / transport.receiver_cc / lb.algorithm / workload.file set per run.
# Usage: scripts/htsim_cc_side_by_side.sh HTSIM_BINARY OUT
# Environment: LBSIM (default build/lbsim), LBSIM_SETS (extra --set pairs for every lbsim run),
# LBSIM_NSCC_SETS / LBSIM_RCCC_SETS (extra --set pairs for the runs with NSCC / with RCCC),
# MATRICES (default "permutation_128 incast_16to1"), CCS (default "nscc rccc both"), LBS ("ops reps").
# Writes OUT/<matrix>_<cc>_<lb>.htsim.out, OUT/<matrix>_<cc>_<lb>.lbsim/ and the table to OUT/table.md.
# htsim's retransmission count comes from its closing "New: ... Rtx: ... RTS: ..." line, which the
# artifact's main leaves at 0 (it never fills the list it sums); the column shows "-" then
# (docs/results/htsim-cc.md says how the recorded numbers were obtained).
set -euo pipefail
if [ $# -ne 2 ]; then
  echo "usage: $0 HTSIM_BINARY OUT" >&2
  exit 2
fi
HTSIM=$(realpath "$1")
mkdir -p "$2"
OUT=$(realpath "$2")
cd "$(dirname "$0")/.."
LBSIM=${LBSIM:-build/lbsim}
LBSIM_SETS=${LBSIM_SETS:-}
LBSIM_NSCC_SETS=${LBSIM_NSCC_SETS:-}
LBSIM_RCCC_SETS=${LBSIM_RCCC_SETS:-}
MATRICES=${MATRICES:-permutation_128 incast_16to1}
CCS=${CCS:-nscc rccc both}
LBS=${LBS:-ops reps}

# The artifact's fat_tree_128_1os_2t_400g.topo: 16 ToRs x 8 hosts, 8 spines, 400 Gb/s, 1 us links.
cat >"$OUT/fat_tree_128.topo" <<'EOF'
Nodes 128
Tiers 2
Podsize 128

Tier 0
Downlink_speed_Gbps 400
Radix_Down 8
Radix_Up 8
Downlink_Latency_ns 1000
Switch_Latency_ns 0

Tier 1
Downlink_speed_Gbps 400
Radix_Down 16
Downlink_Latency_ns 1000
Switch_Latency_ns 0
EOF

for m in $MATRICES; do
  grep -v '^#' "examples/htsim/$m.cm" >"$OUT/$m.cm"  # htsim's reader takes no comment lines
  for cc in $CCS; do
    case $cc in
      nscc) hflags="-sender_cc_only -sender_cc_algo nscc"; lsets="transport.cc=nscc $LBSIM_NSCC_SETS" ;;
      rccc) hflags=""; lsets="transport.cc=none transport.receiver_cc=rccc $LBSIM_RCCC_SETS" ;;
      both)
        hflags="-sender_cc -sender_cc_algo nscc"
        lsets="transport.cc=nscc transport.receiver_cc=rccc $LBSIM_NSCC_SETS $LBSIM_RCCC_SETS"
        ;;
      *) echo "unknown cc $cc" >&2; exit 2 ;;
    esac
    for lb in $LBS; do
      case $lb in
        ops) hlb=oblivious ;;
        reps) hlb=reps ;;
        *) echo "unknown lb $lb" >&2; exit 2 ;;
      esac
      run="${m}_${cc}_${lb}"
      echo "== $run" >&2
      # shellcheck disable=SC2086
      (cd "$OUT" && nice "$HTSIM" -sack_threshold 4000 -end 90000 -seed 20 -paths 65535 $hflags \
        -topo fat_tree_128.topo -linkspeed 400000 -ecn 25 76 -q 100 -cwnd 151 -tm "$m.cm" -load_balancing_algo $hlb \
        >"$run.htsim.out" 2>&1)  # htsim writes logout.dat and output_metrics/ into its working directory
      sets=()
      for s in $lsets $LBSIM_SETS lb.algorithm=$lb workload.file=$OUT/$m.cm; do sets+=(--set "$s"); done
      nice "$LBSIM" run examples/htsim/permutation_128.toml --out "$OUT/$run.lbsim" --quiet "${sets[@]}"
    done
  done
done

python3 - "$OUT" "$MATRICES" "$CCS" "$LBS" <<'PY' | tee "$OUT/table.md"
import csv, json, re, sys
out, matrices, ccs, lbs = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), sys.argv[4].split()

def stats(v):
    if not v:
        return None
    v = sorted(v)
    r = 0.99 * (len(v) - 1)  # linear interpolation around rank p / 100 x (n - 1), as lbsim's summary
    lo = int(r)
    hi = min(lo + 1, len(v) - 1)
    return max(v), sum(v) / len(v), v[lo] + (v[hi] - v[lo]) * (r - lo)

def htsim(path):
    fct, rtx = [], "-"
    for line in open(path, errors="replace"):
        m = re.search(r"^Flow \S+ flowId \d+ .*? finished at ([0-9.e+-]+)", line)
        if m:
            fct.append(float(m.group(1)))
        # htsim's closing counters; the artifact's main leaves them at 0 (its uec_srcs list is never
        # filled), so they are shown only when a build fills it
        m = re.search(r"^New: (\d+) Rtx: (\d+) RTS: (\d+)", line)
        if m and int(m.group(1)) > 0:
            rtx = f"{m.group(2)} / {m.group(3)}"
    return fct, {"rtx": rtx}

def lbsim(path):
    fct, c = [], {"retx": 0, "rto": 0}
    with open(path + "/flows.csv") as f:
        for row in csv.DictReader(f):
            if float(row["sender_fct_us"]) >= 0:
                fct.append(float(row["sender_fct_us"]))
            c["retx"] += int(row["retransmits"])
            c["rto"] += int(row["timeouts"])
    s = json.load(open(path + "/summary.json"))
    c["trims"] = s.get("trims", "-")
    return fct, c

fmt = lambda x: "-" if x is None else f"{x:.1f}"
print("| matrix | CC | LB | flows done htsim / lbsim | max htsim | max lbsim | ratio | mean htsim | mean lbsim "
      "| ratio | p99 htsim | p99 lbsim | ratio | htsim retx / RTS | lbsim trims / retx / RTOs |")
print("|" + "---|" * 16)
for m in matrices:
    n = sum(1 for l in open(f"{out}/{m}.cm") if "->" in l)
    for cc in ccs:
        for lb in lbs:
            run = f"{out}/{m}_{cc}_{lb}"
            hf, hc = htsim(run + ".htsim.out")
            lf, lc = lbsim(run + ".lbsim")
            h, l = stats(hf), stats(lf)
            cells = [m, cc, lb, f"{len(hf)} / {len(lf)} of {n}"]
            for i in range(3):
                a = h[i] if h else None
                b = l[i] if l else None
                cells += [fmt(a), fmt(b), f"{b / a:.3f}" if a and b else "-"]
            cells.append(hc["rtx"])
            cells.append(f"{lc['trims']} / {lc['retx']} / {lc['rto']}")
            print("| " + " | ".join(cells) + " |")
PY
