#!/usr/bin/env bash
# `make bench`: the engine's reference benchmark (not a test). Runs the 1024-host 2-tier fat tree
# permutation of 8 MiB messages with OPS (examples/fat_tree_1024_permutation.toml) and prints wall
# time, events, events per second and peak memory. Pass BENCH_REPEAT=n to repeat.
# Second line: the 1056-host Dragonfly of [Spritz] Table II, permutation with receivers outside the
# group, 8 MiB per flow, UGAL-L switch routing (examples/routing/dragonfly_permutation.toml); skip it
# with BENCH_DRAGONFLY=0.
# Third line: the [Flowcut] sec. III-B1 fat tree (1024 hosts, 3 levels, 1:1, 200 Gb/s, 1 us links),
# 8 MiB permutation with Flowcut in every switch (flowcut_full) on the credit-based lossless network
# (examples/flowcut/fat_tree_1024.toml); skip it with BENCH_FLOWCUT=0.
#
# Large rows (issue 17; opt-in, minutes to an hour each): BENCH_LARGE=1 runs all eight after the
# rows above, BENCH_ROWS=ft8192,rate,ft64k,websearch1m,sf29,df83k,bigmsg,inflight a subset; BENCH_DEFAULT=0 skips the three
# rows above:
#   ft8192      8,192-host 2-tier fat tree (radix 128), 2 MiB permutation, REPS
#               (examples/htsim/permutation_8192.toml)
#   rate        events/s against size (issue 17: flat from 128 to 8192 hosts): the ft8192 scenario
#               at 128, 2,048 and 8,192 hosts (radix 16, 64, 128), one line each, then the three
#               rates and their ratio to the 128-host one
#   ft64k       65,536-host 3-tier fat tree (k = 64), 1 MiB permutation, OPS (the parameters of the
#               fat tree above)
#   websearch1m WebSearch trace (cdf_trace, load 0.5, REPS, workload.stream = true) on the 1024-host
#               fat tree above; BENCH_WS_US="66700" us of arrivals (~1 M flows); a list ("2000 4000")
#               runs one row per length and adds the RSS growth per added entry between them
#   sf29        Slim Fly q = 29, p = 15 (1,682 switches, 25,230 hosts), 1 MiB permutation,
#               Spritz-Spray on source-guided routing (examples/spritz/slim_fly_permutation.toml with
#               the base RTT of the shortest paths, as measured in docs/results/routing-state.md)
#   df83k       Dragonfly p = 12, a = 24, h = 12 (289 groups, 6,936 switches, 83,232 hosts), UGAL-L,
#               1 MiB permutation outside the group (examples/routing/dragonfly_permutation.toml),
#               the whole permutation (4.5 x 10^8 events), or its first BENCH_DF_US us (e.g. "5": the
#               setup and every host's first window): the "100k-endpoint Dragonfly"
#   bigmsg      the ft8192 fat tree with 256 MiB messages (65,536 PSNs each), the first BENCH_BIGMSG_US
#               (default 20) us: per-PSN state follows the PSNs in play, not the message size
#   inflight    events/s against the traffic in flight on one network: the ft8192 fat tree carrying a
#               random derangement among 128, 512, 2,048 and 8,192 of its hosts (1, 4, 16 and 64 per
#               leaf switch; 16, 8, 4 and 2 MiB each; workload flows_csv written by this script), one
#               line each, then the four rates with the peak packet records (docs/results/event-cost.md
#               "Where the rate goes: traffic in flight, not network size")
# Each large row runs under /usr/bin/time -v and prints: wall (whole process), CPU (user + sys),
# events, events/s (over the simulation loop's wall time), events per data packet (summary.json
# events_by_kind), peak RSS and the setup's RSS (resident when the event loop starts:
# perf.setup_rss_mb) and CPU time (perf.setup_cpu_s), and the run's growth (peak RSS - setup RSS)
# divided by the most transfers in progress at once (peaks.live_transfers) and by the most packet
# records at once (peaks.packets): bytes per active flow and per in-flight packet, each an upper
# bound (all of the growth charged to one cause). The load average before and after each row is printed (on a shared machine CPU time is
# what compares), and how the heap was backed (perf.huge_pages: advised / always / off, docs/scale.md
# "Huge pages"; LBSIM_HUGEPAGES=0 runs the rows on small pages). BENCH_CPU_LIMIT_S / BENCH_RSS_LIMIT_MB (0 = none) stop a large row with SIGTERM once
# its CPU time / resident memory passes them: the run writes its outputs (interrupted) and the row
# says how far it got. BENCH_KEEP=DIR keeps each large row's output folder as DIR/NAME.
# BENCH_END_US=t ends every large row's run at t us of simulated time (run.end_us; it overrides
# BENCH_DF_US): BENCH_END_US=0.01 measures the setup alone (topology, tables, workload, base RTT).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-build/lbsim}
repeat=${BENCH_REPEAT:-1}
rows=${BENCH_ROWS:-}
[ "${BENCH_LARGE:-0}" = 1 ] && [ -z "$rows" ] && rows=ft8192,rate,ft64k,websearch1m,sf29,df83k,bigmsg,inflight
if [ "${BENCH_DEFAULT:-1}" = 0 ]; then repeat=0; BENCH_DRAGONFLY=0; BENCH_FLOWCUT=0; fi
for i in $(seq 1 "$repeat"); do
  out=$(mktemp -d)
  "$BIN" run examples/fat_tree_1024_permutation.toml --out "$out" --quiet --set output.ports_csv=false
  /usr/bin/env python3 - "$out/summary.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
p = j["perf"]
print(f"bench fat_tree_1024_permutation (OPS, 8 MiB): wall {p['wall_s']:.2f} s, events {j['events']:,}, "
      f"{p['events_per_s']/1e6:.2f} M events/s, peak memory {p['peak_rss_mb']:.0f} MiB, huge pages {p.get('huge_pages', 'n/a')}, "
      f"max FCT {j['fct_us']['max']:.1f} us, completed {j['completed']}/{j['workload']['transfers']}")
PY
  rm -rf "$out"
done
if [ "${BENCH_DRAGONFLY:-1}" != 0 ]; then
  for i in $(seq 1 "$repeat"); do
    out=$(mktemp -d)
    "$BIN" run examples/routing/dragonfly_permutation.toml --out "$out" --quiet --set output.ports_csv=false \
      --set 'workload.size="8MiB"' --set 'routing.algorithm="ugal_l"'
    /usr/bin/env python3 - "$out/summary.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
p = j["perf"]
print(f"bench dragonfly_1056_permutation (UGAL-L, 8 MiB): wall {p['wall_s']:.2f} s, events {j['events']:,}, "
      f"{p['events_per_s']/1e6:.2f} M events/s, peak memory {p['peak_rss_mb']:.0f} MiB, huge pages {p.get('huge_pages', 'n/a')}, "
      f"max FCT {j['fct_us']['max']:.1f} us, completed {j['completed']}/{j['workload']['transfers']}")
PY
    rm -rf "$out"
  done
fi
if [ "${BENCH_FLOWCUT:-1}" != 0 ]; then
  for i in $(seq 1 "$repeat"); do
    out=$(mktemp -d)
    "$BIN" run examples/flowcut/fat_tree_1024.toml --out "$out" --quiet --set output.ports_csv=false
    /usr/bin/env python3 - "$out/summary.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
p = j["perf"]
print(f"bench flowcut_fat_tree_1024 (flowcut_full, credit, 8 MiB): wall {p['wall_s']:.2f} s, events {j['events']:,}, "
      f"{p['events_per_s']/1e6:.2f} M events/s, peak memory {p['peak_rss_mb']:.0f} MiB, huge pages {p.get('huge_pages', 'n/a')}, "
      f"max FCT {j['fct_us']['max']:.1f} us, completed {j['completed']}/{j['workload']['transfers']}, "
      f"drains {j['flowcut']['drains']}, ooo {j['ooo_packets']}")
PY
    rm -rf "$out"
  done
fi

# ---- large rows (opt-in) ----
cpu_limit=${BENCH_CPU_LIMIT_S:-0}
rss_limit=${BENCH_RSS_LIMIT_MB:-0}

# large_row NAME "DESCRIPTION" "TARGET" CONFIG [--set k=v ...]: one run under /usr/bin/time -v, watched
# for the limits; prints one line. PREV_SUMMARY (optional) adds the RSS growth per added entry.
large_row() {
  local name=$1 desc=$2 target=$3 cfg=$4
  shift 4
  local out tlog
  out=$(mktemp -d)
  tlog="$out.time"
  local load0
  load0=$(cut -d' ' -f1-3 /proc/loadavg)
  local end=()
  if [ -n "${BENCH_END_US:-}" ]; then end=(--set "run.end_us=$BENCH_END_US"); fi
  /usr/bin/time -v "$BIN" run "$cfg" --out "$out/run" --quiet --set output.ports_csv=false "$@" "${end[@]}" >"$out.stdout" 2>"$tlog" &
  local tpid=$! pid="" stopped=""
  while kill -0 "$tpid" 2>/dev/null; do
    sleep 5
    [ -z "$pid" ] && pid=$(pgrep -P "$tpid" -x lbsim || true)
    [ -n "$pid" ] || continue
    if [ "$cpu_limit" != 0 ] && [ -r "/proc/$pid/stat" ]; then
      local ticks
      ticks=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0)
      if [ "$((${ticks:-0} / $(getconf CLK_TCK)))" -ge "$cpu_limit" ] && [ -z "$stopped" ]; then
        stopped="stopped at the CPU limit (${cpu_limit} s)"; kill -TERM "$pid" 2>/dev/null || true
      fi
    fi
    if [ "$rss_limit" != 0 ] && [ -r "/proc/$pid/status" ]; then
      local kb
      kb=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
      if [ "$((${kb:-0} / 1024))" -ge "$rss_limit" ] && [ -z "$stopped" ]; then
        stopped="stopped at the memory limit (${rss_limit} MiB)"; kill -TERM "$pid" 2>/dev/null || true
      fi
    fi
  done
  local rc=0
  wait "$tpid" || rc=$?
  local load1
  load1=$(cut -d' ' -f1-3 /proc/loadavg)
  /usr/bin/env python3 - "$name" "$desc" "$target" "$out/run/summary.json" "$tlog" "$rc" "$stopped" "$load0" "$load1" \
    "${PREV_SUMMARY:-}" <<'PY'
import json, os, re, sys
name, desc, target, path, tlog, rc, stopped, load0, load1, prev = sys.argv[1:11]
t = open(tlog).read()
def field(key):
    m = re.search(re.escape(key) + r": (.*)", t)
    return m.group(1).strip() if m else ""
cpu = float(field("User time (seconds)") or 0) + float(field("System time (seconds)") or 0)
w = field("Elapsed (wall clock) time (h:mm:ss or m:ss)")
parts = [float(x) for x in w.split(":")] if w else [0]
wall = sum(v * 60 ** (len(parts) - 1 - i) for i, v in enumerate(parts))
rss = float(field("Maximum resident set size (kbytes)") or 0) / 1024
if not os.path.exists(path):
    print(f"bench {name} ({desc}): FAILED (exit {rc}{', ' + stopped if stopped else ''}), wall {wall:.0f} s, "
          f"CPU {cpu:.0f} s, peak RSS {rss:.0f} MiB, load {load0} -> {load1}; target {target}")
    sys.exit(0)
j = json.load(open(path))
p, pk, ebk = j["perf"], j.get("peaks", {}), j.get("events_by_kind", {})
setup = p.get("setup_rss_mb", 0.0)
grow = max(0.0, rss - setup) * 1048576
flows, pkts = pk.get("live_transfers", 0), pk.get("packets", 0)
per_flow = f"{grow / flows:,.0f} B per active flow ({flows:,} at peak)" if flows else "no active flow"
per_pkt = (f"{grow / pkts:,.0f} B per in-flight packet ({pkts:,} at peak, record {pk.get('packet_record_bytes', 0)} B"
           + (f", ACK {pk['ack_record_bytes']} B" if "ack_record_bytes" in pk else "") + ")"
           if pkts else "no packet")
status = f"completed {j['completed']:,}/{j['workload']['transfers']:,}"
if j.get("interrupted"):
    status += f", interrupted at sim t = {j['sim_time_us']:.1f} us" + (f" ({stopped})" if stopped else "")
elif rc != "0":
    status += f", exit {rc}"
grow_entry = ""
if prev and os.path.exists(prev):
    q = json.load(open(prev))
    dn = j["workload"]["entries"] - q["workload"]["entries"]
    if dn > 0:
        grow_entry = f", RSS growth per added entry {(p['peak_rss_mb'] - q['perf']['peak_rss_mb']) * 1048576 / dn:,.0f} B"
fct = j["fct_us"].get("max")
print(f"bench {name} ({desc}): wall {wall:.1f} s, CPU {cpu:.1f} s (loop wall {p['wall_s']:.1f} s), events {j['events']:,}, "
      f"{p['events_per_s']/1e6:.2f} M events/s, {ebk.get('total_per_data_packet', 0):.2f} events per data packet, "
      f"peak RSS {rss:.0f} MiB (setup {setup:.0f} MiB, setup peak {p.get('setup_peak_rss_mb', 0):.0f} MiB, "
      f"setup CPU {p.get('setup_cpu_s', 0):.1f} s, huge pages {p.get('huge_pages', 'n/a')}), {per_flow}, {per_pkt}, "
      f"entries {j['workload']['entries']:,}, {status}{grow_entry}"
      + (f", max FCT {fct:.1f} us" if fct is not None and j["completed"] > 0 else "")
      + f"; load {load0} -> {load1}; target {target}")
PY
  if [ -n "${BENCH_KEEP:-}" ]; then mkdir -p "$BENCH_KEEP"; rm -rf "${BENCH_KEEP:?}/$name"; cp -r "$out/run" "$BENCH_KEEP/$name" 2>/dev/null || true; fi
  LAST_SUMMARY=""
  if [ -f "$out/run/summary.json" ]; then LAST_SUMMARY="$out.summary.json"; cp "$out/run/summary.json" "$LAST_SUMMARY"; fi
  rm -rf "$out" "$out.stdout" "$tlog"
}

IFS=',' read -r -a want <<<"$rows"
for row in "${want[@]}"; do
  LAST_SUMMARY=""
  case "$row" in
    ft8192)
      large_row ft8192 "8192-host 2-tier fat tree radix 128, REPS, 2 MiB permutation" "<= 12 s, <= 256 MiB" \
        examples/htsim/permutation_8192.toml --set 'workload.size="2MiB"' ;;
    rate)
      sums=()
      for hr in 128:16 2048:64 8192:128; do
        large_row "rate-${hr%:*}" "${hr%:*}-host 2-tier fat tree radix ${hr#*:}, REPS, 2 MiB permutation" \
          "events/s flat from 128 to 8192 hosts" examples/htsim/permutation_8192.toml --set 'workload.size="2MiB"' \
          --set "topology.hosts=${hr%:*}" --set "topology.radix=${hr#*:}"
        sums+=("$LAST_SUMMARY")
        LAST_SUMMARY=""
      done
      /usr/bin/env python3 - "${sums[@]}" <<'PY'
import json, os, sys
r = [json.load(open(f))["perf"]["events_per_s"] / 1e6 if f and os.path.exists(f) else None for f in sys.argv[1:]]
if None in r:
    print("bench rate: a run failed (see above)")
else:
    print(f"bench rate (events/s against size, REPS 2 MiB permutation): 128 / 2,048 / 8,192 hosts "
          f"{r[0]:.2f} / {r[1]:.2f} / {r[2]:.2f} M events/s, ratio to 128 hosts 1 / {r[1] / r[0]:.2f} / {r[2] / r[0]:.2f}")
PY
      for f in "${sums[@]}"; do [ -n "$f" ] && rm -f "$f"; done ;;
    ft64k)
      large_row ft64k "65,536-host 3-tier fat tree k = 64, OPS, 1 MiB permutation" "<= 10 min, <= 6 GiB" \
        examples/fat_tree_1024_permutation.toml --set topology.hosts=65536 --set topology.tiers=3 \
        --set topology.radix=64 --set 'workload.size="1MiB"' ;;
    websearch1m)
      prev=""
      for d in ${BENCH_WS_US:-66700}; do
        PREV_SUMMARY=$prev large_row "websearch-${d}us" \
          "WebSearch load 0.5, REPS, streamed, 1024-host fat tree, ${d} us of arrivals" \
          "1 M flows, memory flat after warm-up" examples/fat_tree_1024_permutation.toml \
          --set 'workload.kind="cdf_trace"' --set 'workload.cdf="websearch"' --set workload.load=0.5 \
          --set "workload.duration_us=$d" --set 'lb.algorithm="reps"' --set workload.stream=true \
          --set output.flows_csv=false --set run.end_us=0
        if [ -n "$prev" ]; then rm -f "$prev"; fi
        prev=$LAST_SUMMARY
        LAST_SUMMARY=""
      done
      if [ -n "$prev" ]; then rm -f "$prev"; fi ;;
    sf29)
      large_row sf29 "Slim Fly q = 29 p = 15, 25,230 hosts, Spritz-Spray, 1 MiB permutation" "<= 6 GiB" \
        examples/spritz/slim_fly_permutation.toml --set topology.q=29 --set topology.p=15 \
        --set 'workload.size="1MiB"' --set 'network.bdp_path="shortest"' --set network.queue_packets=92 ;;
    df83k)
      df_end=() df_span="whole permutation"
      if [ -n "${BENCH_DF_US:-}" ]; then df_end=(--set "run.end_us=$BENCH_DF_US"); df_span="first $BENCH_DF_US us"; fi
      [ -n "${BENCH_END_US:-}" ] && df_span="first $BENCH_END_US us"
      large_row df83k "Dragonfly p = 12 a = 24 h = 12, 83,232 hosts, UGAL-L, 1 MiB permutation, $df_span" \
        "runs, <= 6 GiB" examples/routing/dragonfly_permutation.toml --set topology.p=12 --set topology.a=24 \
        --set topology.h=12 --set 'workload.size="1MiB"' "${df_end[@]}" ;;
    bigmsg)
      big_us=${BENCH_END_US:-${BENCH_BIGMSG_US:-20}}
      large_row bigmsg "8192-host 2-tier fat tree radix 128, REPS, 256 MiB permutation, first $big_us us" \
        "memory follows the PSNs in play" examples/htsim/permutation_8192.toml --set 'workload.size="256MiB"' \
        --set "run.end_us=$big_us" ;;
    inflight)
      fdir=$(mktemp -d)
      /usr/bin/env python3 - "$fdir" <<'PY'
import random, sys
# k hosts spread evenly over the 128 leaf switches of the 8,192-host tree (64 hosts each), a random
# derangement among them (seed 7), the same bytes in flight per sender window, fewer senders.
for k, mib in ((128, 16), (512, 8), (2048, 4), (8192, 2)):
    per = k // 128
    hosts = [leaf * 64 + (leaf * 7 + j * (64 // per)) % 64 for leaf in range(128) for j in range(per)]
    rng = random.Random(7)
    while True:
        p = list(range(k))
        rng.shuffle(p)
        if all(p[i] != i for i in range(k)):
            break
    with open(f"{sys.argv[1]}/flows{k}.csv", "w") as f:
        f.write("src,dst,bytes,start_us\n")
        for i in range(k):
            f.write(f"{hosts[i]},{hosts[p[i]]},{mib << 20},0\n")
PY
      sums=()
      for km in 128:16 512:8 2048:4 8192:2; do
        large_row "inflight-${km%:*}" "8192-host fat tree, REPS, ${km%:*} senders of ${km#*:} MiB spread over the leaves" \
          "events/s against the traffic in flight" examples/htsim/permutation_8192.toml \
          --set 'workload.kind="flows_csv"' --set "workload.file=\"$fdir/flows${km%:*}.csv\""
        sums+=("$LAST_SUMMARY")
        LAST_SUMMARY=""
      done
      /usr/bin/env python3 - "${sums[@]}" <<'PY'
import json, os, sys
j = [json.load(open(f)) if f and os.path.exists(f) else None for f in sys.argv[1:]]
if None in j:
    print("bench inflight: a run failed (see above)")
else:
    cells = " / ".join(f"{s['perf']['events_per_s'] / 1e6:.2f} M ({s['peaks']['packets']:,} packets)" for s in j)
    print(f"bench inflight (events/s against packet records at the peak, one 8,192-host network): 128 / 512 / "
          f"2,048 / 8,192 senders {cells}")
PY
      for f in "${sums[@]}"; do [ -n "$f" ] && rm -f "$f"; done
      rm -rf "$fdir" ;;
    "") ;;
    *) echo "bench.sh: unknown row '$row' in BENCH_ROWS (ft8192, rate, ft64k, websearch1m, sf29, df83k, bigmsg, inflight)" >&2; exit 2 ;;
  esac
  if [ -n "$LAST_SUMMARY" ]; then rm -f "$LAST_SUMMARY"; fi
done
