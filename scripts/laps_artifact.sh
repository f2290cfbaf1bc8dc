#!/usr/bin/env bash
# LAPS as its authors ran it (docs/results/laps.md): runs a part of the sweeps of
# examples/laps/artifact (every scheme, the loads and seeds below) with `lbsim sweep --workers 1` and
# prints the tables of docs/results/laps.md (scripts/laps_artifact_tables.py).
# Parts (PARTS, default "rail dragonfly rail100"):
#   rail       sweep_rail64.toml: Rail 64, DM, the artifact's network (200 Gb/s GPU links)
#   rail100    the same with the paper's 100 Gb/s GPU links (topology.rail_host_rate_gbps = 100)
#   dragonfly  sweep_dragonfly144.toml: Dragonfly 144, RPC and HDP
#   dfnominal  the Dragonfly at the load the paper states (x 100: the artifact's avg_cdf of a CDF in
#              percent is 100 x the mean, so its runs offered 1/100 of it), short window
#   str        sweep_rail64.toml with the STR sizes (Fig. 6; AliStorage2019, in percent: 1/100 of the
#              load, as the artifact ran it)
#   strnominal the same at the load the paper states (x 100), short window
# Usage: scripts/laps_artifact.sh OUT   (resumable: a finished point is not run again)
# The whole sweeps with their average / p99 tables: `lbsim reproduce laps-artifact-rail64` and
# `lbsim reproduce laps-artifact-dragonfly144` (--quick: a short check); this script prints the
# flows under 100 KB and the ranks too.
# Environment: LOADS (default "0.5 0.8"), SEEDS (default "1 2 3"), RAIL_US (flows start in the first
# RAIL_US us on Rail, default 3000), DF_US (Dragonfly, default 10000: the artifact's 10 ms), NOM_US
# (dfnominal, strnominal; default 200), STR_US (str, default 10000), WORKERS (default 1), LBSIM
# (default build/lbsim).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:?usage: scripts/laps_artifact.sh OUT}"
lbsim="$(realpath "${LBSIM:-$root/build/lbsim}")"
parts="${PARTS:-rail dragonfly rail100}"
loads="${LOADS:-0.5 0.8}"
seeds="${SEEDS:-1 2 3}"
workers="${WORKERS:-1}"
mkdir -p "$out"
out="$(realpath "$out")"
art="$root/examples/laps/artifact"
str="$root/data/flow-size-cdf/AliStorage2019.txt"  # the artifact's STR file holds the same points

# A part of a committed sweep: its scheme and workload axes, the loads and seeds asked for, the keys
# of [set], paths made absolute (the derived file lives in OUT).
derive() {  # derive NAME SWEEP "KEY=VALUE ..." [LOAD_FACTOR]
  local name="$1" src="$2" sets="$3" factor="${4:-1}"
  python3 - "$src" "$out/$name.toml" "$name" "$loads" "$seeds" "$sets" "$factor" "$art" <<'EOF'
import re, sys
src, dst, name, loads, seeds, sets, factor, art = sys.argv[1:]
text = open(src).read()
text = re.sub(r'^name = .*$', f'name = "{name}"', text, count=1, flags=re.M)
text = re.sub(r'^out = .*$', '', text, flags=re.M)
text = text.replace('base = "', f'base = "{art}/').replace('"../../../', f'"{art}/../../../')
lv = ", ".join(f"{float(x) * float(factor):g}" for x in loads.split())
text = re.sub(r'^"workload.load" = \[.*\]$', f'"workload.load" = [{lv}]', text, flags=re.M)
text = re.sub(r'^"run.seed" = \[.*\]$', f'"run.seed" = [{", ".join(seeds.split())}]', text, flags=re.M)
set_block = "[set]\n" + "".join(f'"{k}" = {v}\n' for k, v in (kv.split("=", 1) for kv in sets.split())) + "\n"
if "\n[[grid.scheme]]" not in text:
    sys.exit(f"laps_artifact.sh: {src}: no [[grid.scheme]] table (the schemes axis) to put [set] before")
text = text.replace("\n[[grid.scheme]]", "\n" + set_block + "[[grid.scheme]]", 1)
open(dst, "w").write(text)
EOF
}

run() {  # run NAME: the sweep of OUT/NAME.toml into OUT/NAME
  local name="$1" start=$SECONDS rc=0
  "$lbsim" sweep "$out/$name.toml" --workers "$workers" --out "$out/$name" >"$out/$name.log" 2>&1 || rc=$?
  echo "$name: exit $rc, $((SECONDS - start)) s (log: $out/$name.log)" >&2
}

tables=()
for p in $parts; do
  case "$p" in
    rail)
      derive rail "$art/sweep_rail64.toml" "workload.duration_us=${RAIL_US:-3000}"
      tables+=("Rail 64, DM, artifact network=$out/rail") ;;
    rail100)
      derive rail100 "$art/sweep_rail64.toml" "workload.duration_us=${RAIL_US:-3000} topology.rail_host_rate_gbps=100"
      tables+=("Rail 64, DM, 100 Gb/s GPU links=$out/rail100") ;;
    dragonfly)
      derive dragonfly "$art/sweep_dragonfly144.toml" "workload.duration_us=${DF_US:-10000}"
      tables+=("Dragonfly 144=$out/dragonfly") ;;
    dfnominal)
      derive dfnominal "$art/sweep_dragonfly144.toml" "workload.duration_us=${NOM_US:-200}" 100
      tables+=("Dragonfly 144 at the stated load (x 100)=$out/dfnominal") ;;
    str)
      derive str "$art/sweep_rail64.toml" "workload.duration_us=${STR_US:-10000} workload.cdf=\"$str\""
      tables+=("Rail 64, STR, artifact network=$out/str") ;;
    strnominal)
      derive strnominal "$art/sweep_rail64.toml" "workload.duration_us=${NOM_US:-200} workload.cdf=\"$str\"" 100
      tables+=("Rail 64, STR at the stated load (x 100)=$out/strnominal") ;;
    *) echo "laps_artifact.sh: unknown part '$p' (rail, rail100, dragonfly, dfnominal, str, strnominal)" >&2
       exit 2 ;;
  esac
  run "$p"
done
python3 "$root/scripts/laps_artifact_tables.py" "${tables[@]}"
