#!/usr/bin/env bash
# Cache lines per event against the network's size (docs/results/event-cost.md "Prefetch distances
# from the working set"): the `rate` row's scenario (2-tier fat tree, REPS, 2 MiB permutation) at 128 and
# 8,192 hosts under cachegrind, with a last-level cache the size and ways of this machine's
# second-level cache (the cache one core has to itself). Each size runs twice, to t1 and to t2 us of
# simulated time; the difference of the two (cg_diff) is the steady interval (t1, t2], without the
# setup and the start of the transfers. Counted, not timed: the figures are the same on a loaded
# machine. Software prefetches are not simulated, so a line shows up as missed by whichever code
# touches it first (often the loop's prefetch stages).
#
#   scripts/misses_by_size.sh [BIN]          (default build/lbsim; BIN may be any lbsim binary)
#
# MISSES_LEVEL=3 simulates this machine's third-level cache as the last level instead (the lines per
# event that come from memory itself, with the whole cache to one core); MISSES_SIZES="hosts:radix:t1:t2
# ..." replaces the two sizes (default "128:16:10:30 8192:128:6:9"; 2,048 hosts: "2048:64:6:9");
# MISSES_KEEP=1 keeps the temporary folder (runs, cachegrind files, annotations) and prints its path.
#
# Prints, per size: events in the interval, instructions, first-level and last-level read / write
# misses per event, and the functions with the most last-level read misses per event.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-build/lbsim}
if ! command -v valgrind >/dev/null || ! command -v cg_diff >/dev/null; then
  echo "misses_by_size.sh: valgrind (cachegrind, cg_diff, cg_annotate) is not installed (apt-get install valgrind)" >&2
  exit 77
fi
sizes=${MISSES_SIZES:-128:16:10:30 8192:128:6:9}
for spec in $sizes; do
  [[ "$spec" =~ ^[0-9]+:[0-9]+:[0-9.]+:[0-9.]+$ ]] || { echo "misses_by_size.sh: MISSES_SIZES entry '$spec' is not hosts:radix:t1:t2 (e.g. 2048:64:6:9)" >&2; exit 2; }
done
level=${MISSES_LEVEL:-2}
case "$level" in 2|3) ;; *) echo "misses_by_size.sh: MISSES_LEVEL must be 2 or 3, got '$level'" >&2; exit 2 ;; esac
idx=/sys/devices/system/cpu/cpu0/cache/index$level
# Level 2 falls back to 2 MiB, 16 ways where sysfs does not say; level 3 is asked for, so it must be there.
[ "$level" = 2 ] || [ -f "$idx/size" ] || { echo "misses_by_size.sh: this machine reports no level-3 cache ($idx)" >&2; exit 2; }
size_of() {  # "2048K" -> bytes
  local v; v=$(cat "$1"); case "$v" in *K) echo $(( ${v%K} * 1024 ));; *M) echo $(( ${v%M} * 1048576 ));; *) echo "$v";; esac
}
ll=$(size_of "$idx/size" 2>/dev/null || echo 2097152)
llways=$(cat "$idx/ways_of_associativity" 2>/dev/null || echo 16)
l1=$(size_of /sys/devices/system/cpu/cpu0/cache/index0/size 2>/dev/null || echo 49152)
l1ways=$(cat /sys/devices/system/cpu/cpu0/cache/index0/ways_of_associativity 2>/dev/null || echo 12)
tmp=$(mktemp -d)
if [ -n "${MISSES_KEEP:-}" ]; then echo "misses_by_size.sh: keeping $tmp" >&2; else trap 'rm -rf "$tmp"' EXIT; fi
echo "cachegrind: D1 $l1 B ${l1ways}-way, LL $ll B ${llways}-way (this machine's L1d and L$level), binary $BIN"
# size radix t1 t2 (us): the interval starts once every host is sending (the first ~5 us)
for spec in $sizes; do
  IFS=: read -r hosts radix t1 t2 <<<"$spec"
  for t in "$t1" "$t2"; do
    LBSIM_HUGEPAGES=0 valgrind --tool=cachegrind --cache-sim=yes --D1="$l1,$l1ways,64" --LL="$ll,$llways,64" \
      --cachegrind-out-file="$tmp/$hosts-$t.out" "$BIN" run examples/htsim/permutation_8192.toml \
      --set 'workload.size="2MiB"' --set "topology.hosts=$hosts" --set "topology.radix=$radix" --set "run.end_us=$t" \
      --set output.ports_csv=false --set 'run.progress="off"' --out "$tmp/o-$hosts-$t" >/dev/null 2>"$tmp/$hosts-$t.log" || true
    [ -f "$tmp/o-$hosts-$t/summary.json" ] || { echo "misses_by_size.sh: the run of $hosts hosts to $t us failed:" >&2; tail -n 5 "$tmp/$hosts-$t.log" >&2; exit 1; }
  done
  cg_diff "$tmp/$hosts-$t1.out" "$tmp/$hosts-$t2.out" >"$tmp/d-$hosts.out" 2>/dev/null
  cg_annotate --show=Ir,D1mr,D1mw,DLmr,DLmw --sort=DLmr --threshold=2 --auto=no "$tmp/d-$hosts.out" >"$tmp/a-$hosts.txt" 2>/dev/null
  /usr/bin/env python3 - "$hosts" "$t1" "$t2" "$tmp/o-$hosts-$t1/summary.json" "$tmp/o-$hosts-$t2/summary.json" "$tmp/a-$hosts.txt" <<'PY'
import json, re, sys
hosts, t1, t2, s1, s2, ann = sys.argv[1:]
ev = json.load(open(s2))["events"] - json.load(open(s1))["events"]
# cg_diff of two runs: a count can come out slightly negative (a cache that holds the whole working set)
fig = re.compile(r"\s*(-?[\d,]+)(?: \(\s*[\d.]+%\))?")
rows, total = [], None
for line in open(ann):
    f, pos = [], 0
    for _ in range(5):  # Ir D1mr D1mw DLmr DLmw, then the file:function
        m = fig.match(line, pos)
        if not m:
            break
        f.append(int(m.group(1).replace(",", "")))
        pos = m.end()
    if len(f) < 5:
        continue
    name = line[pos:].strip()
    if name == "PROGRAM TOTALS":
        total = f
    elif ":" in name:
        rows.append((f[3], f[4], name.split(":", 1)[1]))
if total is None:
    sys.exit("misses_by_size.sh: no totals in cg_annotate's output")
print(f"{int(hosts):,} hosts, ({t1}, {t2}] us: {ev:,} events, {total[0] / ev:.0f} instructions, "
      f"D1 misses {total[1] / ev:.2f} read + {total[2] / ev:.2f} write, "
      f"LL misses {total[3] / ev:.2f} read + {total[4] / ev:.2f} write per event")
for r, w, name in sorted(rows, reverse=True)[:8]:
    short = re.sub(r"\(.*", "", name).replace("lbsim::", "")
    print(f"  {r / ev:5.2f} read + {w / ev:4.2f} write LL misses per event  {short}")
PY
done
