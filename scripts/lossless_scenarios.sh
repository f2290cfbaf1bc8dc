#!/usr/bin/env bash
# The measurements of docs/results/lossless.md ("Measurements"): every number there comes from this script.
#   1. 8-to-1 incast, 1 MiB per sender, on the 128-host fat tree of examples/lossless/incast_credit.toml,
#      fixed windows (transport.cc = none) and DCTCP, in lossy, credit and pfc mode, with the drain
#      bound of the receiver link computed from first principles (8 x (size + packets x header) / rate).
#   2. The 4 MiB incast examples (examples/lossless/incast_{credit,pfc}.toml) as they are.
#   3. The demo permutation (examples/lossless/permutation_credit.toml) in the three modes: FCTs and
#      events (credit mode adds one credit message per packet and switch hop).
#   4. With DRAGONFLY=1 (long: minutes per run): the [Spritz] Table II Dragonfly with the adversarial
#      group shift (examples/routing/dragonfly_adversarial.toml), 8 MiB per flow, fixed windows,
#      credit mode, routing minimal / valiant / ugal_l: which runs deadlock (exit code 3, the stall
#      report of summary.json) and which complete.
# Usage: scripts/lossless_scenarios.sh [LBSIM] [OUT_DIR]   (defaults: ./build/lbsim, results/lossless_scenarios)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
lbsim="${1:-$root/build/lbsim}"
out="${2:-$root/results/lossless_scenarios}"
[[ -x "$lbsim" ]] || { echo "lossless_scenarios.sh: no lbsim binary at $lbsim (build it or pass its path)" >&2; exit 2; }
mkdir -p "$out"

table() {  # $1 = folder holding one run folder per mode (lbsim compare --vary network.flow_control=...)
  python3 - "$1" <<'PY'
import csv, json, os, sys
d = sys.argv[1]
print(f"{'run':<10} {'rc':>3} {'last_fct_us':>12} {'done':>7} {'drops':>6} {'trims':>6} {'sent':>8} {'flow_pkts':>9} "
      f"{'retx':>6} {'timeouts':>8} {'pauses':>7} {'resumes':>7} {'paused_us':>10} {'max_ingress':>11} {'events':>10}")
for s in sorted(os.listdir(d)):
    p = os.path.join(d, s, "summary.json")
    if not os.path.exists(p):
        continue
    j = json.load(open(p))
    sent = flow_pkts = 0
    with open(os.path.join(d, s, "flows.csv")) as f:
        for row in csv.DictReader(f):
            sent += int(row["packets_sent"])
            flow_pkts += int(row["packets"])
    fc = j.get("flow_control") or {}
    paused = f"{fc['paused_us']:.1f}" if "paused_us" in fc else "-"
    rc = open(os.path.join(d, s, "exit_code")).read().strip() if os.path.exists(os.path.join(d, s, "exit_code")) else "-"
    print(f"{s:<10} {rc:>3} {j['fct_us']['max']:>12.2f} {j['completed']:>3}/{j['workload']['transfers']:<3} "
          f"{j['drops']:>6} {j['trims']:>6} {sent:>8} {flow_pkts:>9} {j['retransmits']:>6} {j['timeouts']:>8} "
          f"{fc.get('pause_frames', '-'):>7} {fc.get('resume_frames', '-'):>7} "
          f"{paused:>10} {fc.get('max_ingress_bytes', '-'):>11} {j['events']:>10}")
    st = fc.get("stall")
    if st:
        cyc = " -> ".join(h["label"] for h in st["cycle"])
        print(f"{'':<10} stall at {st['time_us']:.1f} us: {st['deadlocked_ports']} deadlocked ports "
              f"({st['waiting_ports']} waiting), cycle of {len(st['cycle'])}: {cyc}")
PY
}

modes() {  # $1 = name, $2 = config, rest = --set overrides; one run per flow-control mode
  local name="$1" cfg="$2"; shift 2
  [[ "$cfg" == /* ]] || cfg="$root/$cfg"
  echo "== $name: $cfg $*"
  local dir="$out/$name"
  local rc=0
  "$lbsim" compare "$cfg" --vary network.flow_control=lossy,credit,pfc "$@" --set output.ports_csv=false \
    --out "$dir" > /dev/null || rc=$?
  [[ $rc -eq 0 ]] || echo "(lbsim compare exited with $rc)"
  table "$dir"
  echo
}

# The receiver link's drain time: 8 senders x (1 MiB + 256 packets x 64 header bytes) at 400 Gb/s.
python3 -c 'size = 1 << 20; wire = size + (size // 4096) * 64; print(f"incast drain bound: 8 x {wire} B / 400 Gb/s = {8 * wire * 8 / 400e3:.2f} us")'
echo
modes incast_1MiB_fixed examples/lossless/incast_credit.toml --set workload.size=1048576 --set transport.cc=\"none\" --set output.queue_sample_us=0
modes incast_1MiB_dctcp examples/lossless/incast_credit.toml --set workload.size=1048576 --set output.queue_sample_us=0

for m in credit pfc; do
  echo "== examples/lossless/incast_$m.toml (4 MiB per sender, DCTCP)"
  mkdir -p "$out/incast_4MiB/$m"
  rc=0
  "$lbsim" run "$root/examples/lossless/incast_$m.toml" --set output.dir=\""$out/incast_4MiB/$m"\" --quiet || rc=$?
  echo "$rc" > "$out/incast_4MiB/$m/exit_code"
done
table "$out/incast_4MiB"
python3 - "$out/incast_4MiB/credit/queues.csv" <<'PY'
import csv, sys
# When the receiver's ToR port (towards host 0) last held data: the receiver link's busy end.
last = 0.0
for r in csv.DictReader(open(sys.argv[1])):
    if int(r["node"]) == 128 and int(r["port"]) == 0 and int(r["data_bytes"]) > 0:
        last = max(last, float(r["time_us"]))
print(f"credit: the receiver's ToR port holds data until {last:.0f} us (queues.csv, 1 us samples)")
PY
echo

# Head-of-line blocking (the configuration of the test HeadOfLineBlockingSlowsAVictimSharingAnUpstreamPort):
# one spine, hosts 1-4 send 8 MiB each to host 0, victim host 5 (on tor1 like host 4) sends 2 MiB to
# host 8 from 40 us on, fixed windows of 8 BDP, no ECN.
hol="$out/hol_input"
mkdir -p "$hol"
printf 'src,dst,bytes,start_us,tag\n1,0,8388608,0,incast\n2,0,8388608,0,incast\n3,0,8388608,0,incast\n4,0,8388608,0,incast\n5,8,2097152,40,victim\n' > "$hol/flows.csv"
cat > "$hol/hol.toml" <<'TOML'
[topology]
kind = "fat_tree"
hosts = 12
radix = 8
hosts_per_tor = 4
oversubscription = 4
tier1_rate_gbps = 1600
[network]
ecn = false
[transport]
cc = "none"
init_cwnd_bdp = 8
max_cwnd_bdp = 8
[workload]
kind = "flows_csv"
file = "flows.csv"
[output]
queue_sample_us = 1
[run]
progress = "off"
TOML
modes hol_victim "$hol/hol.toml"
python3 - "$out/hol_victim" <<'PY'
import csv, json, os, sys
d = sys.argv[1]
for m in ("lossy", "credit", "pfc"):
    v = [r for r in csv.DictReader(open(os.path.join(d, m, "flows.csv"))) if r["tag"] == "victim"][0]
    blocked = sum(1 for r in csv.DictReader(open(os.path.join(d, m, "queues.csv"))) if r["blocked"] == "1" and int(r["data_bytes"]) > 0)
    print(f"{m:<7} victim FCT {float(v['fct_us']):8.1f} us (ideal {float(v['ideal_fct_us']):.1f} us, x{float(v['fct_us']) / float(v['ideal_fct_us']):.1f}); "
          f"queues.csv rows blocked with data queued: {blocked}")
PY
echo

modes permutation_4MiB examples/lossless/permutation_credit.toml

if [[ "${DRAGONFLY:-0}" == 1 ]]; then
  echo "== Dragonfly adversarial, 8 MiB per flow, fixed windows, credit mode"
  for r in minimal valiant ugal_l; do
    d="$out/dragonfly_adversarial/$r"
    mkdir -p "$d"
    rc=0
    "$lbsim" run "$root/examples/routing/dragonfly_adversarial.toml" --set network.flow_control=\"credit\" --set network.trimming=false \
      --set routing.algorithm=\""$r"\" --set workload.size=\"8MiB\" --set transport.cc=\"none\" \
      --set output.ports_csv=false --set output.dir=\""$d"\" --quiet || rc=$?
    echo "$rc" > "$d/exit_code"
  done
  table "$out/dragonfly_adversarial"
fi
