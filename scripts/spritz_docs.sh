#!/usr/bin/env bash
# Regenerates the measured blocks of docs/spritz.md and docs/topologies.md (between
# `<!-- NAME:begin (scripts/spritz_docs.sh) -->` and `<!-- NAME:end -->`; scripts/doc_block.py):
#   paths-totals   docs/topologies.md   `lbsim paths` totals of the Table II Dragonfly and Slim Fly
#   table2-queue   docs/topologies.md   scripts/spritz_table2_queue.py (which RTT gives 88 / 92 packets)
#   table3         docs/spritz.md       `lbsim reproduce spritz-table3 --seeds $SEEDS` (its report)
#   table3-noqa    docs/spritz.md       the same (loaded) with transport.quick_adapt = false
#   fig8           docs/spritz.md       `lbsim reproduce spritz-fig8 --seeds $SEEDS`
#   fig6           docs/spritz.md       `lbsim reproduce spritz-fig6 --seeds $SEEDS` (hours at full scale)
#   fig6q, fig7q, fig8q, fig9q          the --quick versions of Fig. 6-9 (reduced networks), docs/spritz.md
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

for part in "${parts[@]}"; do
  case $part in
    paths-totals)
      for t in dragonfly slim_fly; do
        echo "$t (examples/spritz/${t}_table2.toml):"
        "$BIN" paths "examples/spritz/${t}_table2.toml" | grep -v '^time:' | sed 's/^/  /'
      done | block docs/topologies.md paths-totals ;;
    table2-queue)
      python3 scripts/spritz_table2_queue.py | block docs/topologies.md table2-queue ;;
    table3) reproduce spritz-table3 | block docs/spritz.md table3 ;;
    fig8) reproduce spritz-fig8 | block docs/spritz.md fig8 ;;
    fig6) reproduce spritz-fig6 | block docs/spritz.md fig6 ;;
    fig6q) reproduce spritz-fig6 --quick | block docs/spritz.md fig6q ;;
    fig7q) reproduce spritz-fig7 --quick | block docs/spritz.md fig7q ;;
    fig8q) reproduce spritz-fig8 --quick | block docs/spritz.md fig8q ;;
    fig9q) reproduce spritz-fig9 --quick | block docs/spritz.md fig9q ;;
    table3-noqa)
      # The Table III scenario (loaded) with transport.quick_adapt = false: the QuickAdapt reading.
      dir="${OUT}/spritz-table3-noqa-s${SEEDS}"
      mkdir -p "$dir"
      seeds=$(seq -s, 1 "$SEEDS")
      "$BIN" reproduce spritz-table3 --print | python3 -c '
import sys
s = sys.stdin.read().replace("name = \"spritz-table3\"", "name = \"spritz-table3-noqa\"")
s = s.replace("[grid]\n", "[set]\n\"transport.quick_adapt\" = false\n\n[grid]\n\"run.seed\" = [" + sys.argv[1] + "]\n", 1)
print(s[:s.index("[[case]]\nname = \"solo\"")], end="")' "$seeds" > "$dir/sweep.toml"
      "$BIN" sweep "$dir/sweep.toml" --workers "$WORKERS" --out "$dir" > "$dir.log" 2>&1 || true
      python3 - "$dir" <<'PY' | block docs/spritz.md table3-noqa
import json, os, sys
root = os.path.join(sys.argv[1], "runs")
by = {}
for name in sorted(os.listdir(root)):
    f = os.path.join(root, name, "summary.json")
    if not os.path.exists(f):
        continue
    scheme = name.split("scheme-")[1]
    by.setdefault(scheme, []).append(json.load(open(f))["fct_us_by_tag"]["monitored"]["max"])
print("Table III scenario, transport.quick_adapt = false: FCT of the monitored flow (us), mean [min..max]")
for k, v in by.items():
    print(f"  {k:<10} {sum(v) / len(v):8.1f} [{min(v):.1f}..{max(v):.1f}]  ({len(v)} seeds)")
PY
      ;;
    *) echo "spritz_docs.sh: unknown part $part" >&2; exit 2 ;;
  esac
done
