#!/usr/bin/env bash
# docs/results/hpcc.md: HPCC on the 16-to-1 incast of examples/cc/hpcc_incast.toml (32-host
# leaf-spine, 100 Gb/s, 1 KiB packets, 16 x 4 MB into host 0, all starting at once), with the default
# W_AI and with the paper's W_init (1 - eta) / N for N = 16 and N = 32; then the tests of
# tests/transport/test_hpcc.cpp, which print their numbers (the staggered incast: one flow every 50 us,
# 3 ms). Prints for the example: the receiver queue's mean and largest sample from 0.5 ms on (after
# the start-up burst), Jain's index of the flows' bytes / FCT, the NACKs, and the receiver link's
# utilisation and trims over the whole run.
# Usage: scripts/hpcc_incast.sh [LBSIM] [OUT]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
lbsim="${1:-$root/build/lbsim}"
out="${2:-$(mktemp -d)}"
bdp=92108  # B x T of this fabric (summary.json derived.bdp_bytes)
analyse() {  # $1 = run folder, $2 = label, $3 = from (us), $4 = to (us; 0 = the run's end)
  python3 - "$1" "$2" "$3" "$4" "$bdp" <<'PY'
import csv, json, sys
d, label, t0, t1, bdp = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
s = json.load(open(d + "/summary.json"))
end = t1 if t1 > 0 else s["end_time_us"]
q = [float(r["data_bytes"]) for r in csv.DictReader(open(d + "/queues.csv"))
     if r["peer"] == "0" and t0 <= float(r["time_us"]) <= end]
flows = list(csv.DictReader(open(d + "/flows.csv")))
nacks = sum(int(f["nacks"]) for f in flows)
# Per-flow rates: bytes / FCT when every flow finished, else taken from the delivered counts.
rates = [float(f["bytes"]) / float(f["fct_us"]) for f in flows if f["finished"] == "1"]
jain = sum(rates) ** 2 / (len(rates) * sum(r * r for r in rates)) if rates else float("nan")
print(f"{label}: mean queue {sum(q) / len(q):.0f} B ({sum(q) / len(q) / bdp:.3f} BDP), "
      f"max {max(q):.0f} B, Jain of 1/FCT {jain:.4f}, nacks {nacks}, end {s['end_time_us']:.0f} us")
PY
}
ex="$root/examples/cc/hpcc_incast.toml"
for wai in 0 287.8 143.9; do
  dir="$out/incast-wai-$wai"
  "$lbsim" run "$ex" --set "transport.hpcc_wai_bytes=$wai" --out "$dir" --quiet
  analyse "$dir" "simultaneous, hpcc_wai_bytes=$wai" 500 0
  python3 -c "import csv, sys
for r in csv.DictReader(open(sys.argv[1] + '/ports.csv')):
    if r['peer'] == '0':
        print('  receiver link utilisation (whole run, wire bytes)', r['utilization'], 'trims', r['trims'])" "$dir"
done
# The staggered incast of tests/transport/test_hpcc.cpp, with its numbers.
"$root/build/tests/lbsim_test_transport" --gtest_filter='HpccSim.*' | grep -E 'jain|lone|ops:|reps:|OK|FAILED'
