#!/usr/bin/env bash
# Regenerates the measured blocks of docs/results/spritz.md and docs/topologies.md (between
# `<!-- NAME:begin (scripts/spritz_docs.sh) -->` and `<!-- NAME:end -->`; scripts/doc_block.py):
#   paths-totals   docs/topologies.md   `lbsim paths` totals of the Table II Dragonfly and Slim Fly
#   table2-queue   docs/topologies.md   scripts/spritz_table2_queue.py (which RTT gives 88 / 92 packets)
#   table3         docs/results/spritz.md  `lbsim reproduce spritz-table3 --seeds $SEEDS` (its report)
#   table3-noqa    docs/results/spritz.md  the same (loaded) with transport.quick_adapt = false
#   table3-qa      docs/results/spritz.md  the same (loaded) under each transport.quick_adapt_window
#   table3-valiant docs/results/spritz.md  Valiant (loaded): routing.valiant_mode x routing.valiant_acks
#   table3-acks    docs/results/spritz.md  every scheme (loaded) with transport.pinned_acks = pinned / run_routing
#   table3-valiant-queues docs/results/spritz.md  Valiant: the X -> group-32 queues with the background's
#                                       ACKs Valiant / pinned
#   table3-scout   docs/results/spritz.md  Scout (loaded): re-insertion hold-off x QuickAdapt window
#   table3-scout-order docs/results/spritz.md  Scout (loaded): insertion by measured latency x hold-off
#   table3-scout-paths docs/results/spritz.md  Scout seed 1: path_usage.csv per insertion order
#   table3-ugal    docs/results/spritz.md  UGAL-L (loaded): routing.ugal_decide = source / per_hop
#   table3-flicr   docs/results/spritz.md  Flicr (w) (loaded), seeds 1..SEEDS: the monitored flow's paths, marks and
#                                       repaths (path_usage.csv + trims.csv, scripts/spritz_flicr.py)
#   fig6q-ugal     docs/results/spritz.md  UGAL-L on the Fig. 6 quick networks under both routing.ugal_decide
#   fig8           docs/results/spritz.md  `lbsim reproduce spritz-fig8 --seeds $SEEDS`
#   fig6           docs/results/spritz.md  `lbsim reproduce spritz-fig6 --seeds $SEEDS` (hours at full scale)
#   fig6-partial   docs/results/spritz.md  the finished runs of the fig6 part's folder (when the sweep does not fit)
#   fig6-ugal-per-hop docs/results/spritz.md  the fig6 sweep's ugal_l rows (Dragonfly) with
#                                       routing.ugal_decide = per_hop
#   spray-drops    docs/results/spritz.md  where and when Spray / OPS lose packets at full scale (Dragonfly, seed 1;
#                                       trims.csv + path_usage.csv, scripts/spritz_drops.py), ECN-rate bias on / off
#   fig6q, fig7q, fig8q, fig9q          the --quick versions of Fig. 6-9 (reduced networks), docs/results/spritz.md
# Usage: scripts/spritz_docs.sh [PART...] (default: paths-totals table2-queue table3).
# Environment: BIN (default build/lbsim), OUT (default results/spritz-docs), SEEDS (default 5),
# WORKERS (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-build/lbsim}
OUT=${OUT:-results/spritz-docs}
SEEDS=${SEEDS:-5}
WORKERS=${WORKERS:-2}
mkdir -p "$OUT"
parts=("$@")
[ ${#parts[@]} -eq 0 ] && parts=(paths-totals table2-queue table3)

block() {  # doc name: stdin -> the block, fenced as text
  { echo '```'; cat; echo '```'; } | python3 scripts/doc_block.py "$1" "$2"
  echo "spritz_docs.sh: wrote $2 in $1" >&2
}

# The report `lbsim reproduce` prints after the sweep (from its first line starting with "[Spritz]").
reproduce() {  # entry [--quick]
  local name=$1
  shift
  local dir="${OUT}/${name}$([ "${1:-}" = --quick ] && echo -quick)-s${SEEDS}"
  "$BIN" reproduce "$name" "$@" --seeds "$SEEDS" --workers "$WORKERS" --no-plot --out "$dir" > "$dir.log" 2>&1 || true
  sed -n '/^\[Spritz\]/,$p' "$dir.log"
}

# The Table III scenario (loaded case) with extra [set] lines ($2, TOML), optionally only the schemes
# named in $3 (comma-separated): prints the monitored flow's FCT per scheme, mean [min..max] over
# seeds 1..SEEDS.
table3_with() {  # name set-lines [schemes]
  local dir="${OUT}/spritz-$1-s${SEEDS}"
  mkdir -p "$dir"
  "$BIN" reproduce spritz-table3 --print | python3 -c '
import re, sys
name, sets, seeds, only = sys.argv[1:5]
s = sys.stdin.read().replace("name = \"spritz-table3\"", "name = \"spritz-" + name + "\"")
s = s.replace("[grid]\n", "[set]\n" + sets + "\n\n[grid]\n\"run.seed\" = [" + seeds + "]\n", 1)
# A key the [set] lines give is dropped from the scheme entries (e.g. routing.ugal_decide of ugal_l).
for k in re.findall(r"^(\"[\w.]+\") =", sets, re.M):
    s = re.sub(", " + re.escape(k) + r" = [^,}]+", "", s)
if only:
    keep = only.split(",")
    s = "\n".join(l for l in s.split("\n") if not l.startswith("  {name = ") or l.split("\"")[1] in keep)
print(s[:s.index("[[case]]\nname = \"solo\"")], end="")' "$1" "$2" "$(seq -s, 1 "$SEEDS")" "${3:-}" > "$dir/sweep.toml"
  "$BIN" sweep "$dir/sweep.toml" --workers "$WORKERS" --out "$dir" > "$dir.log" 2>&1 || true
  python3 - "$dir" "$2" <<'PY'
import json, os, sys
root = os.path.join(sys.argv[1], "runs")
by, off = {}, {}
for name in sorted(os.listdir(root)):
    f = os.path.join(root, name, "summary.json")
    if not os.path.exists(f):
        continue
    scheme = name.split("scheme-")[1]
    j = json.load(open(f))
    by.setdefault(scheme, []).append(j["fct_us_by_tag"]["monitored"]["max"])
    if "ugal" in j:  # UGAL-L: the share of data packets sent off the minimal route (summary.json "ugal")
        off.setdefault(scheme, []).append(100 * j["ugal"]["data_nonminimal_share"])
print("Table III scenario, " + ", ".join(sys.argv[2].split("\n")) + ": FCT of the monitored flow (us), mean [min..max]")
for k, v in by.items():
    o = off.get(k)
    extra = f"; data packets off the minimal route {sum(o) / len(o):.1f}% [{min(o):.1f}..{max(o):.1f}]" if o else ""
    print(f"  {k:<10} {sum(v) / len(v):8.1f} [{min(v):.1f}..{max(v):.1f}]  ({len(v)} seeds){extra}")
PY
}

for part in "${parts[@]}"; do
  case $part in
    paths-totals)
      for t in dragonfly slim_fly; do
        echo "$t (examples/spritz/${t}_table2.toml):"
        "$BIN" paths "examples/spritz/${t}_table2.toml" | grep -v '^time:' | sed 's/^/  /'
      done | block docs/topologies.md paths-totals ;;
    table2-queue)
      python3 scripts/spritz_table2_queue.py | block docs/topologies.md table2-queue ;;
    table3) reproduce spritz-table3 | block docs/results/spritz.md table3 ;;
    fig8) reproduce spritz-fig8 | block docs/results/spritz.md fig8 ;;
    fig6) reproduce spritz-fig6 | block docs/results/spritz.md fig6 ;;
    fig6q) reproduce spritz-fig6 --quick | block docs/results/spritz.md fig6q ;;
    fig7q) reproduce spritz-fig7 --quick | block docs/results/spritz.md fig7q ;;
    fig8q) reproduce spritz-fig8 --quick | block docs/results/spritz.md fig8q ;;
    fig9q) reproduce spritz-fig9 --quick | block docs/results/spritz.md fig9q ;;
    table3-noqa) table3_with table3-noqa '"transport.quick_adapt" = false' | block docs/results/spritz.md table3-noqa ;;
    table3-qa)
      # QuickAdapt's measurement window, one reading per block line (docs/results/spritz.md "QuickAdapt").
      for w in base_rtt target_rtt measured_rtt; do
        table3_with "table3-qa-$w" "\"transport.quick_adapt_window\" = \"$w\""
      done | block docs/results/spritz.md table3-qa ;;
    table3-valiant)
      # Valiant readings (docs/results/spritz.md "Valiant readings"): the intermediate drawn per hop (the
      # default), per packet over whole paths or per flow; ACKs routed like data (Valiant) or
      # minimally; under the Spritz configs' QuickAdapt window (target_rtt).
      for p in run_routing pinned; do for v in per_hop path per_flow; do for a in valiant minimal; do
        table3_with "table3-valiant-$p-$v-acks-$a" "\"transport.pinned_acks\" = \"$p\"
\"routing.valiant_mode\" = \"$v\"
\"routing.valiant_acks\" = \"$a\"" valiant
      done; done; done | block docs/results/spritz.md table3-valiant ;;
    table3-acks)
      # The pinned background's ACKs (docs/results/spritz.md "Valiant readings"): returned over the EV's
      # source-guided path in every row (pinned, the default) or routed by each row's routing.
      for a in pinned run_routing; do
        table3_with "table3-acks-$a" "\"transport.pinned_acks\" = \"$a\""
      done | block docs/results/spritz.md table3-acks ;;
    table3-valiant-queues)
      # The mechanism behind Valiant's slow monitored flow (docs/results/spritz.md "Valiant readings"): per
      # seed, with the background's ACKs routed by Valiant (run_routing) or pinned, the monitored
      # flow's FCT and ECN-marked ACKs, and how often the congested X -> group-32 links drain:
      # the share of 1-us queue samples in 20-300 us below kmin (0.2 x 88 packets) and their mean
      # queue in packets.
      for a in run_routing pinned; do
        for s in $(seq 1 "$SEEDS"); do
          d="${OUT}/valiant-queues-$a-s$s"
          "$BIN" run examples/spritz/motivational.toml --quiet --seed "$s" --out "$d" --set routing.algorithm=valiant \
            --set lb.algorithm=ecmp --set transport.pinned_acks="$a" --set output.queue_sample_us=1 > /dev/null 2>&1 || true
          python3 - "$d" "$a" "$s" <<'PY'
import csv, sys
d, acks, seed = sys.argv[1:4]
mon = next(r for r in csv.DictReader(open(d + "/flows.csv")) if r["tag"] == "monitored")
free = {"g8", "g16", "g24", "g32"}
links = set()
for r in csv.DictReader(open(d + "/ports.csv")):
    if r["link_kind"] == "global" and r["peer_label"].startswith("g32s") and r["node_label"].split("s")[0] not in free:
        links.add((r["node"], r["port"]))
q = {}
for r in csv.DictReader(open(d + "/queues.csv")):
    t = float(r["time_us"])
    if 20 <= t < 300 and (r["node"], r["port"]) in links:
        q[(r["node"], r["port"], t)] = int(r["data_bytes"])
samples = [q.get((n, p, float(t)), 0) for (n, p) in links for t in range(20, 300)]
kmin = 0.2 * 88 * 4160
below = sum(1 for b in samples if b < kmin) / len(samples)
print(f"  pinned_acks = {acks:<11} seed {seed}: monitored FCT {float(mon['fct_us']):7.1f} us, ECN-marked ACKs {mon['ecn_acks']:>4}; "
      f"{len(links)} congested X->32 links: {100 * below:4.1f}% of samples below kmin, mean queue {sum(samples) / len(samples) / 4160:4.1f} packets")
PY
        done
      done | { echo "Valiant (per_hop) in the Table III scenario, loaded: the congested X -> group-32 links, 20-300 us, 1-us samples"; cat; } \
        | block docs/results/spritz.md table3-valiant-queues ;;
    table3-scout-paths)
      # Where Scout's packets go (seed 1, path_usage.csv of the monitored flow) under each insertion order.
      for o in table1 measured; do
        d="${OUT}/scout-paths-$o"
        "$BIN" run examples/spritz/motivational.toml --quiet --seed 1 --out "$d" --set lb.spritz_scout_order="\"$o\"" \
          --set output.path_usage_tag='"monitored"' > /dev/null 2>&1 || true
        python3 - "$d" "$o" <<'PY'
import csv, sys
d, order = sys.argv[1:3]
mon = next(r for r in csv.DictReader(open(d + "/flows.csv")) if r["tag"] == "monitored")
print(f"lb.spritz_scout_order = {order}: monitored FCT {float(mon['fct_us']):.1f} us; the 4 entries with most packets:")
for r in sorted(csv.DictReader(open(d + "/path_usage.csv")), key=lambda r: -int(r["sent"]))[:4]:
    groups = ">".join(dict.fromkeys(x.split("s")[0] for x in r["path"].split(">")))
    print(f"  entry {r['entry']:>2} ({float(r['latency_ns']):6.1f} ns, groups {groups:<13}) sent {r['sent']:>4}, "
          f"unmarked ACKs {r['acks']:>4}, ECN {r['ecn_acks']:>4}, NACKs {r['nacks']:>3}")
PY
      done | block docs/results/spritz.md table3-scout-paths ;;
    table3-scout)
      # Scout readings under Table II's BDP (docs/results/spritz.md "Scout"): re-insertion hold-off 0 / 2 base RTTs,
      # each with QuickAdapt's base_rtt and target_rtt windows.
      for w in base_rtt target_rtt; do
        for h in 0 2; do
          table3_with "table3-scout-$w-h$h" "\"transport.quick_adapt_window\" = \"$w\"
\"lb.spritz_reinsert_holdoff_rtts\" = $h" scout
        done
      done | block docs/results/spritz.md table3-scout ;;
    table3-scout-order)
      # Scout's insertion order (Alg. 2 l. 4 "based on latency"): the latest measured RTT per path,
      # without and with the re-insertion hold-off (Table I order, the default: the table3-scout
      # block's target_rtt lines).
      for o in measured; do
        for h in 0 2; do
          table3_with "table3-scout-order-$o-h$h" "\"lb.spritz_scout_order\" = \"$o\"
\"lb.spritz_reinsert_holdoff_rtts\" = $h" scout
        done
      done | block docs/results/spritz.md table3-scout-order ;;
    table3-ugal)
      # UGAL-L readings (docs/results/spritz.md "UGAL-L readings"): the comparison made once at the source
      # switch (the default) or at every switch while the packet is still on its minimal route.
      for d in source per_hop; do
        table3_with "table3-ugal-$d" "\"routing.ugal_decide\" = \"$d\"" ugal_l
      done | block docs/results/spritz.md table3-ugal ;;
    table3-flicr)
      # Why Flicr's monitored flow is fast in some seeds and slow in others (docs/results/spritz.md "Flicr
      # readings"): one run per seed of the Table III scheme flicr_w (loaded), per-EV use of the
      # monitored flow and its trims.
      args=()
      for s in $(seq 1 "$SEEDS"); do
        d="${OUT}/flicr-s$s"
        "$BIN" run examples/spritz/motivational.toml --quiet --seed "$s" --out "$d" --set routing.algorithm=source_guided \
          --set lb.algorithm=flicr_w --set output.path_usage_tag='"monitored"' --set output.trims_csv=true > /dev/null 2>&1 || true
        args+=("$s:$d")
      done
      { echo "Flicr (w) in the Table III scenario, loaded: the monitored flow per seed (path_usage.csv, trims.csv)"
        python3 scripts/spritz_flicr.py "${args[@]}"; } | block docs/results/spritz.md table3-flicr ;;
    fig6q-ugal)
      # The same two readings on the Fig. 6 quick networks (the ugal_l rows of spritz-fig6 --quick):
      # p99 FCT, trims and the share of data packets sent off the minimal route, mean [min..max].
      dir="${OUT}/spritz-fig6q-ugal-s${SEEDS}"
      mkdir -p "$dir"
      "$BIN" reproduce spritz-fig6 --quick --print | python3 -c '
import sys
seeds = sys.argv[1]
s = sys.stdin.read().replace("name = \"spritz-fig6\"", "name = \"spritz-fig6q-ugal\"")
s = "\n".join(l for l in s.split("\n") if not l.startswith("  {name = ") or "\"ugal_l\"" in l)
s = s.replace(", \"routing.ugal_decide\" = \"per_hop\"", "")
print(s.replace("[grid]\n", "[grid]\n\"run.seed\" = [" + seeds + "]\n\"routing.ugal_decide\" = [\"source\", \"per_hop\"]\n", 1))' \
        "$(seq -s, 1 "$SEEDS")" > "$dir/sweep.toml"
      "$BIN" sweep "$dir/sweep.toml" --workers "$WORKERS" --out "$dir" > "$dir.log" 2>&1 || true
      python3 - "$dir" <<'PY' | block docs/results/spritz.md fig6q-ugal
import json, os, re, sys
root = os.path.join(sys.argv[1], "runs")
by = {}
for name in sorted(os.listdir(root)):
    f = os.path.join(root, name, "summary.json")
    if not os.path.exists(f):
        continue
    m = re.match(r"(\w+?)_seed-\d+_ugal_decide-(\w+?)_kind-(\w+?)_scheme", name)
    j = json.load(open(f))
    r = by.setdefault((m.group(1), m.group(3), m.group(2)), {"p99": [], "trims": [], "off": []})
    r["p99"].append(j["fct_us"]["p99"])
    r["trims"].append(j["trims"])
    r["off"].append(100 * j["ugal"]["data_nonminimal_share"])
def f(v, d=1):
    return f"{sum(v) / len(v):.{d}f} [{min(v):.{d}f}..{max(v):.{d}f}]"
print("UGAL-L on the Fig. 6 quick networks (spritz-fig6 --quick), mean [min..max] over seeds")
print(f"  {'network/pattern':<24} {'ugal_decide':<11} {'p99 FCT us':<22} {'trims':<24} data packets off minimal %")
for (net, kind, d), r in sorted(by.items(), key=lambda kv: (kv[0][0], kv[0][1] != "permutation", kv[0][2] != "source")):
    print(f"  {net + '/' + kind:<24} {d:<11} {f(r['p99']):<22} {f(r['trims'], 0):<24} {f(r['off'])}")
PY
      ;;
    fig6-partial)
      # Fig. 6 at full scale from whatever runs of `spritz_docs.sh fig6` (its folder) have finished,
      # for when the whole sweep does not fit: per setting and scheme the p99 FCT, dropped packets
      # (trims + drops) and OOO %, mean [min..max] over the seeds done, then each Spritz scheme's
      # p99 margin over the best non-Spritz scheme in the seeds where every scheme finished. Runs of
      # the ugal_l rows made with another build than the rest can be pointed to with UGAL_DIR.
      python3 - "${OUT}/spritz-fig6-s${SEEDS}" "${UGAL_DIR:-}" <<'PY' | block docs/results/spritz.md fig6-partial
import json, os, re, sys
root, ugal_dir = sys.argv[1], sys.argv[2]
runs = {}
def scan(d, only=None):
    d = os.path.join(d, "runs")
    for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        f = os.path.join(d, name, "summary.json")
        m = re.match(r"(\w+?)_seed-(\d+)_(?:ugal_decide-\w+?_)?kind-(\w+?)_scheme-(\w+)$", name)
        if not m or not os.path.exists(f) or (only and m.group(4) != only):
            continue
        j = json.load(open(f))
        if j.get("unfinished", 0):
            continue
        runs[(m.group(1), m.group(3), m.group(4), int(m.group(2)))] = j
scan(root)
if ugal_dir:
    for k in [k for k in runs if k[2] == "ugal_l"]:
        del runs[k]
    scan(ugal_dir, "ugal_l")
def f(v, d=1):
    return f"{sum(v) / len(v):.{d}f} [{min(v):.{d}f}..{max(v):.{d}f}]"
order = ["minimal", "valiant", "ugal_l", "ecmp", "flicr_w", "ops_u", "ops_w", "scout", "spritz_u", "spritz_w"]
settings = sorted({(n, k) for (n, k, _, _) in runs}, key=lambda x: (x[0], x[1] != "permutation"))
print("Fig. 6, Table II networks, 8 MiB, finished runs of spritz_docs.sh fig6" + (" (ugal_l: " + ugal_dir.split("/")[-1] + ")" if ugal_dir else ""))
for n, k in settings:
    print(f"{n}/{k}: p99 FCT (us) | dropped packets (trims + drops) | OOO % ; mean [min..max] (seeds)")
    for sc in order:
        v = [(s, runs[(n, k, sc, s)]) for s in range(1, 100) if (n, k, sc, s) in runs]
        if not v:
            continue
        p = [j["fct_us"]["p99"] for _, j in v]
        d = [j["trims"] + j["drops"] for _, j in v]
        o = [j["ooo_pct"] for _, j in v]
        print(f"  {sc:<9} {f(p):<24} | {f(d, 0):<26} | {f(o, 2):<20} ({','.join(str(s) for s, _ in v)})")
print("p99 FCT of the best non-Spritz scheme / Spritz scheme, seeds with every scheme; paper: Spray 1.1-1.2x (permutation), 1.3-1.5x (adversarial)")
for n, k in settings:
    seeds = [s for s in range(1, 100) if all((n, k, sc, s) in runs for sc in order)]
    for sc in ["scout", "spritz_u", "spritz_w"]:
        if not seeds:
            continue
        m, nb = [], []
        for s in seeds:
            best = min(order[:7], key=lambda o: runs[(n, k, o, s)]["fct_us"]["p99"])
            m.append(runs[(n, k, best, s)]["fct_us"]["p99"] / runs[(n, k, sc, s)]["fct_us"]["p99"])
            nb.append(best)
        print(f"  {n + '/' + k:<24} {sc:<9} {f(m, 2)}x  (next best: {', '.join(nb)}; seeds {','.join(map(str, seeds))})")
PY
      ;;
    fig6-ugal-per-hop)
      # UGAL-L with routing.ugal_decide = per_hop at full scale, Dragonfly only (the ugal_l rows of
      # the fig6 sweep; docs/results/spritz.md "UGAL-L readings"): p99 FCT, dropped packets, share of data
      # packets off the minimal route, per pattern and seed.
      dir="${OUT}/spritz-fig6-ugal-per_hop"
      mkdir -p "$dir"
      "$BIN" reproduce spritz-fig6 --print | python3 -c '
import sys
seeds = sys.argv[1]
s = sys.stdin.read().replace("name = \"spritz-fig6\"", "name = \"spritz-fig6-ugal-per_hop\"")
s = "\n".join(l for l in s.split("\n") if not l.startswith("  {name = ") or "\"ugal_l\"" in l)
s = s.replace("\"lb.algorithm\" = \"ecmp\"}", "\"lb.algorithm\" = \"ecmp\", \"routing.ugal_decide\" = \"per_hop\"}")
s = s.replace("[grid]\n", "[grid]\n\"run.seed\" = [" + seeds + "]\n", 1)
print(s[:s.index("[[case]]\nname = \"slim_fly\"")])' "$(seq -s, 1 "$SEEDS")" > "$dir/sweep.toml"
      "$BIN" sweep "$dir/sweep.toml" --workers "$WORKERS" --out "$dir" > "$dir.log" 2>&1 || true
      python3 - "$dir" <<'PY' | block docs/results/spritz.md fig6-ugal-per-hop
import json, os, sys
root = os.path.join(sys.argv[1], "runs")
print("UGAL-L, routing.ugal_decide = per_hop, Table II Dragonfly, 8 MiB (the ugal_l rows of spritz-fig6)")
for name in sorted(os.listdir(root)):
    f = os.path.join(root, name, "summary.json")
    if not os.path.exists(f):
        continue
    j = json.load(open(f))
    print(f"  {name:<50} p99 FCT {j['fct_us']['p99']:7.1f} us, dropped packets {j['trims'] + j['drops']:>6}, "
          f"data packets off minimal {100 * j['ugal']['data_nonminimal_share']:4.1f}%")
PY
      ;;
    spray-drops)
      # Why Spray trims more than OPS (u) at full scale (docs/results/spritz.md "Why Spray trims more at full
      # scale"): the Table II Dragonfly points of spritz-fig6 (both patterns, seed 1) for OPS (u / w)
      # and Spray (u / w), and Spray with Alg. 3's ECN-rate bias off (lb.spritz_ecn_bias_rate = 1:
      # never above) or with w[0] = 10 instead of 100 under it; every run writes trims.csv and
      # path_usage.csv for scripts/spritz_drops.py.
      for scale in full quick; do
        q=$([ $scale = quick ] && echo --quick || true)
        dir="${OUT}/spritz-spray-drops-$scale"
        mkdir -p "$dir"
        "$BIN" reproduce spritz-fig6 $q --print | python3 -c '
import sys
s = sys.stdin.read().replace("name = \"spritz-fig6\"", "name = \"spritz-spray-drops\"")
keep = ("ops_u", "ops_w", "spritz_u", "spritz_w")
lines = [l for l in s.split("\n") if not l.startswith("  {name = ") or l.split("\"")[1] in keep]
s = "\n".join(lines)
extra = "".join("  {name = \"%s\", \"routing.algorithm\" = \"source_guided\", \"lb.algorithm\" = \"%s\", %s},\n" % x for x in [
    ("spritz_u_nobias", "spritz_spray_u", "\"lb.spritz_ecn_bias_rate\" = 1.0"),
    ("spritz_w_nobias", "spritz_spray_w", "\"lb.spritz_ecn_bias_rate\" = 1.0"),
    ("spritz_u_bias10", "spritz_spray_u", "\"lb.spritz_min_bias_factor\" = 10.0")])
s = s.replace("\n]\n", "\n" + extra + "]\n", 1)
s = s.replace("[set]\n", "[set]\n\"output.trims_csv\" = true\n\"output.path_usage_tag\" = \"default\"\n", 1)
s = s.replace("[grid]\n", "[grid]\n\"run.seed\" = [1]\n", 1)
print(s[:s.index("[[case]]\nname = \"slim_fly\"")])' > "$dir/sweep.toml"
        "$BIN" sweep "$dir/sweep.toml" --workers "$WORKERS" --out "$dir" > "$dir.log" 2>&1 || true
        python3 scripts/spritz_drops.py "$dir/runs" "$([ $scale = quick ] && echo "Reduced-scale Dragonfly (--quick: p=2 a=4 h=2, 72 endpoints), 1 MiB, seed 1" || echo "Table II Dragonfly, 8 MiB, seed 1")"
        echo
      done | block docs/results/spritz.md spray-drops ;;
    *) echo "spritz_docs.sh: unknown part $part" >&2; exit 2 ;;
  esac
done
