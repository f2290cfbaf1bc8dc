#!/usr/bin/env bash
# Behaviour check for refactors: runs every example run config (examples/**/*.toml with a
# [workload] section), the example sweep and the three scenario scripts (the sweeps of
# examples/{reps,routing,spritz}/scenarios/ and the Spritz solo run), then writes
# OUT/manifest.txt with the sha256 of every flows.csv produced (path relative to OUT) and
# OUT/summaries.txt with the sha256 of every summary.json without its "perf" block (wall time,
# memory: the only parts that differ between identical runs), keys sorted.
# Two manifests made before and after a change must be identical (`diff` them); the count of
# files compared is the number of lines.
# Usage: scripts/golden_flows.sh OUT [LBSIM]   (LBSIM defaults to build/lbsim)
# Environment: SKIP_SCENARIOS=1 skips the three scenario scripts (quick check).
# Configs with a line "# golden: skip" (the 8192-host examples/htsim configs: tens of minutes each)
# are not run.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:?usage: golden_flows.sh OUT [LBSIM]}"
lbsim="$(realpath "${2:-$root/build/lbsim}")"
[[ -x "$lbsim" ]] || { echo "golden_flows.sh: no lbsim binary at $lbsim" >&2; exit 2; }
mkdir -p "$out"
out="$(realpath "$out")"
cd "$root"

# Every example run config, once each, with its own settings (exit 3 = unfinished flows is a result).
while IFS= read -r cfg; do
  name="${cfg#examples/}"
  name="${name%.toml}"
  echo "golden: run $cfg" >&2
  "$lbsim" run "$cfg" --out "$out/examples/$name" --quiet >/dev/null 2>&1 || true
done < <(grep -rl '^\[workload\]' examples --include='*.toml' | xargs grep -L '^# golden: skip' | sort)

# The example sweep (local workers).
echo "golden: sweep examples/sweeps/ecmp_vs_ops.toml" >&2
"$lbsim" sweep examples/sweeps/ecmp_vs_ops.toml --workers 2 --out "$out/sweep" >/dev/null 2>&1 || true

if [[ -z "${SKIP_SCENARIOS:-}" ]]; then
  echo "golden: scripts/reps_scenarios.sh" >&2
  bash scripts/reps_scenarios.sh "$lbsim" "$out/reps" >/dev/null 2>&1 || true
  echo "golden: scripts/routing_scenarios.sh" >&2
  BIN="$lbsim" OUT="$out/routing" bash scripts/routing_scenarios.sh >/dev/null 2>&1 || true
  echo "golden: scripts/spritz_scenarios.sh" >&2
  BIN="$lbsim" OUT="$out/spritz" bash scripts/spritz_scenarios.sh >/dev/null 2>&1 || true
fi

(cd "$out" && find . -name flows.csv -print0 | sort -z | xargs -0 sha256sum) > "$out/manifest.txt"
(cd "$out" && find . -name summary.json -print0 | sort -z | xargs -0 python3 -c '
import hashlib, json, sys
for p in sys.argv[1:]:
    j = json.load(open(p))
    j.pop("perf", None)
    print(hashlib.sha256(json.dumps(j, sort_keys=True).encode()).hexdigest(), p)
') > "$out/summaries.txt"
echo "golden: $(wc -l < "$out/manifest.txt") flows.csv and $(wc -l < "$out/summaries.txt") summary.json files hashed into $out/manifest.txt, $out/summaries.txt" >&2
