#!/usr/bin/env bash
# Table III and the Fig. 6 quick runs under the paper's reading of Spritz (the defaults) and under the
# authors' public code's reading (lb.spritz_reading = "code"), side by side, into the blocks of
# docs/results/spritz.md "The authors' code's reading" (scripts/doc_block.py):
#   table3        `lbsim reproduce spritz-table3 --seeds $SEEDS`, both readings (loaded and solo)
#   table3-split  the loaded case with the code's lb options only and with its transport options only
#   fig6q         `lbsim reproduce spritz-fig6 --quick --seeds $SEEDS`, both readings
#   full-adv      Fig. 6 Dragonfly adversarial at full scale (Table II, 8 MiB), seeds 1..$FULL_SEEDS, the
#                 schemes of $SCHEMES under both readings: p99 FCT and dropped packets (about 30 s a run)
# Usage: scripts/spritz_code_reading.sh [PART...] (default: all four, about 35 min here).
# Environment: BIN (default build/lbsim), OUT (default results/spritz-code), SEEDS (default 5),
# WORKERS (default 1: the machine is shared), SCHEMES, FULL_SEEDS (full-adv;
# default "ops_u ops_w spritz_u spritz_w", 5).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-build/lbsim}
OUT=${OUT:-results/spritz-code}
SEEDS=${SEEDS:-5}
WORKERS=${WORKERS:-1}
SCHEMES=${SCHEMES:-ops_u ops_w spritz_u spritz_w}
FULL_SEEDS=${FULL_SEEDS:-5}
DOC=docs/results/spritz.md
mkdir -p "$OUT"
parts=("$@")
[ ${#parts[@]} -eq 0 ] && parts=(table3 table3-split fig6q full-adv)

block() {  # name: stdin -> the block of $DOC, fenced as text
  { echo '```'; cat; echo '```'; } | python3 scripts/doc_block.py "$DOC" "$1"
  echo "spritz_code_reading.sh: wrote $1 in $DOC" >&2
}

# The report `lbsim reproduce` prints after its sweep; the reading's keys given with --set.
reproduce() {  # entry tag [--quick] [--set k=v ...]
  local name=$1 tag=$2
  shift 2
  local dir="${OUT}/${name}-${tag}-s${SEEDS}"
  "$BIN" reproduce "$name" "$@" --seeds "$SEEDS" --workers "$WORKERS" --no-plot --out "$dir" > "$dir.log" 2>&1 || true
  sed -n '/^\[Spritz\]/,$p' "$dir.log" > "$dir.report"
  echo "$dir.report"
}

# Two or more reports of the same experiment, merged line by line: per row the value of each report
# (mean [min..max] over the seeds) in the order given, then what the first report prints after it
# (the paper's value).
merge() {  # title label=report ...
  python3 - "$@" <<'PY'
import re, sys
title, runs = sys.argv[1], [a.split("=", 1) for a in sys.argv[2:]]
val = re.compile(r"(-?\d[\d.]* \[-?[\d.]+\.\.-?[\d.]+\]x?)")
rows, order = {}, []
for label, path in runs:
    section = ""
    for line in open(path):
        line = line.rstrip("\n")
        if not line.startswith("  "):
            section = line
            if ("s", section) not in rows:
                rows[("s", section)] = None
                order.append(("s", section))
            continue
        m = val.search(line)
        if not m:
            continue
        key = (section, " ".join(line[: m.start()].split()))
        if key not in rows:
            rows[key] = {"rest": line[m.end():].strip()}
            order.append(key)
        rows[key][label] = m.group(1)
labels = [l for l, _ in runs]
print(title)
for key in order:
    if key[0] == "s":
        if key[1].startswith("[Spritz]"):
            continue
        print(key[1] + "  [" + " | ".join(labels) + "]")
        continue
    r = rows[key]
    cells = " | ".join(f"{r.get(l, '-'):<24}" for l in labels)
    print(f"  {key[1]:<30} {cells} {r['rest']}".rstrip())
PY
}

for part in "${parts[@]}"; do
  case $part in
    table3)
      p=$(reproduce spritz-table3 paper)
      c=$(reproduce spritz-table3 code --set lb.spritz_reading=code)
      merge "Table III (monitored flow FCT, us), $SEEDS seeds, mean [min..max]: paper's reading | code's reading" \
        paper="$p" code="$c" | block code-table3 ;;
    table3-split)
      # Which half of the code's reading moves each scheme: its load-balancer options alone (the
      # transport as the paper has it: per-packet ACKs, every trim a NACK) and its transport alone.
      l=$(reproduce spritz-table3 lbonly --set lb.spritz_reading=code --set transport.ack_bytes=0 \
        --set transport.ack_on_ecn=false --set transport.ack_request=false --set transport.last_hop_trim=nack)
      t=$(reproduce spritz-table3 transportonly --set transport.ack_bytes=16384 --set transport.ack_on_ecn=true \
        --set transport.ack_request=true --set transport.last_hop_trim=ack)
      p="${OUT}/spritz-table3-paper-s${SEEDS}.report"
      c="${OUT}/spritz-table3-code-s${SEEDS}.report"
      [ -f "$p" ] || p=$(reproduce spritz-table3 paper)
      [ -f "$c" ] || c=$(reproduce spritz-table3 code --set lb.spritz_reading=code)
      merge "Table III, $SEEDS seeds: paper | code's lb options only | code's transport only | code (both)" \
        paper="$p" lb_only="$l" transport_only="$t" code="$c" | block code-table3-split ;;
    fig6q)
      p=$(reproduce spritz-fig6 paper --quick)
      c=$(reproduce spritz-fig6 code --quick --set lb.spritz_reading=code)
      merge "Fig. 6 quick (Dragonfly p=2 a=4 h=2, Slim Fly q=5 p=3; 1 MiB), $SEEDS seeds, mean [min..max]: paper's reading | code's reading" \
        paper="$p" code="$c" | block code-fig6q ;;
    full-adv)
      # Full scale: the sweep file of spritz-fig6 cut to the Dragonfly adversarial case, the schemes of
      # $SCHEMES and seeds 1..FULL_SEEDS, under each reading (the code's through --set).
      dir="${OUT}/full-adv"
      mkdir -p "$dir"
      "$BIN" reproduce spritz-fig6 --print | SCHEMES="$SCHEMES" FULL_SEEDS="$FULL_SEEDS" python3 -c '
import os, sys
s = sys.stdin.read().replace("name = \"spritz-fig6\"", "name = \"spritz-full-adv\"")
seeds = ", ".join(str(k) for k in range(1, int(os.environ["FULL_SEEDS"]) + 1))
s = s.replace("\"workload.kind\" = [\"permutation\", \"adversarial\"]",
              "\"workload.kind\" = [\"adversarial\"]\n\"run.seed\" = [" + seeds + "]")
keep = tuple(f"\"{k}\"" for k in os.environ["SCHEMES"].split())
s = "\n".join(l for l in s.split("\n") if not l.startswith("  {name = ") or any(k in l for k in keep))
s = s[: s.index("[[case]]\nname = \"slim_fly\"")] if "name = \"slim_fly\"" in s else s
print(s)' > "$dir/sweep.toml"
      "$BIN" sweep "$dir/sweep.toml" --workers "$WORKERS" --out "$dir/paper" > "$dir/paper.log" 2>&1 || true
      "$BIN" sweep "$dir/sweep.toml" --workers "$WORKERS" --out "$dir/code" --set lb.spritz_reading=code \
        > "$dir/code.log" 2>&1 || true
      python3 - "$dir" "$FULL_SEEDS" <<'PY' | block code-full-adv
import collections, json, os, sys
root, n = sys.argv[1], sys.argv[2]
print(f"Fig. 6 Dragonfly adversarial, Table II network, 8 MiB, seeds 1-{n}, mean [min..max] (runs): paper's | code's")
runs = collections.defaultdict(lambda: collections.defaultdict(list))
for reading in ("paper", "code"):
    base = os.path.join(root, reading, "runs")
    for name in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        f = os.path.join(base, name, "summary.json")
        if os.path.exists(f):
            j = json.load(open(f))
            runs[name.split("scheme-")[1]][reading].append((j["fct_us"]["p99"], j["trims"] + j["drops"]))
def cell(v, k, fmt):
    if not v:
        return "-"
    xs = [x[k] for x in v]
    return f"{fmt(sum(xs) / len(xs))} [{fmt(min(xs))}..{fmt(max(xs))}] ({len(xs)})"
one, zero = (lambda x: f"{x:.1f}"), (lambda x: f"{x:.0f}")
print("p99 FCT (us)")
for s, r in sorted(runs.items()):
    print(f"  {s:<10} {cell(r['paper'], 0, one):<28} | {cell(r['code'], 0, one)}")
print("dropped packets (trimmed + dropped)")
for s, r in sorted(runs.items()):
    print(f"  {s:<10} {cell(r['paper'], 1, zero):<28} | {cell(r['code'], 1, zero)}")
PY
      ;;
    *) echo "spritz_code_reading.sh: unknown part '$part'" >&2; exit 2 ;;
  esac
done
