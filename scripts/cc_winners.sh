#!/usr/bin/env bash
# Issue 54: do the papers' winners stay the winners under another congestion control? Re-runs the
# REPS permutation and asymmetric scenarios ([REPS] sec. 4.3.1 Fig. 5/6, sec. 4.3.2 Fig. 4) and the
# Spritz Slim Fly permutation ([Spritz] sec. V-C, Fig. 6) with the CC each paper used (the example's
# default), with NSCC (transport.cc = "nscc", docs/nscc.md), with NSCC + RCCC receiver credits, and
# with RCCC alone (transport.cc = "none", docs/rccc.md), for the schemes each paper compares. Writes
# one run folder per (scenario, cc, scheme, seed) under $OUT and a Markdown table to $MD.
# Environment: BIN (default build/lbsim), OUT (default results/cc_winners), SEEDS (default "1 2"),
# MD (default $OUT/table.md; docs/results/cc-winners.md holds a copy).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-build/lbsim}
OUT=${OUT:-results/cc_winners}
SEEDS=${SEEDS:-1 2}
MD=${MD:-$OUT/table.md}

# name|config|schemes (scheme = label:lb[:routing])|extra --set for the NSCC runs
SCENARIOS=(
  "reps_symmetric_permutation|examples/reps/symmetric_permutation.toml|reps:reps ops:ops ecmp:ecmp|"
  "reps_asymmetric_micro|examples/reps/asymmetric_micro.toml|reps:reps ops:ops ecmp:ecmp|"
  "spritz_slim_fly_permutation_1MiB|examples/spritz/slim_fly_permutation.toml|\
spritz_spray_w:spritz_spray_w ops_w:ops_w ecmp:ecmp ugal_l:ecmp:ugal_l|\
transport.quick_adapt=false transport.fast_increase=false"
)
# label|--set pairs (NSCC brings its own QuickAdapt / fast increase, so the Spritz DCTCP add-ons go off)
CCS=(
  "paper|"
  "nscc|transport.cc=nscc NSCC_EXTRA"
  "nscc+rccc|transport.cc=nscc transport.receiver_cc=rccc NSCC_EXTRA"
  "rccc|transport.cc=none transport.receiver_cc=rccc NSCC_EXTRA"
)

for sc in "${SCENARIOS[@]}"; do
  IFS='|' read -r name cfg schemes extra <<<"$sc"
  for cc in "${CCS[@]}"; do
    IFS='|' read -r cclabel ccsets <<<"$cc"
    ccsets=${ccsets//NSCC_EXTRA/$extra}
    for s in $schemes; do
      IFS=':' read -r label lb routing <<<"$s"
      for seed in $SEEDS; do
        sets=(--set "lb.algorithm=$lb" --set "run.seed=$seed")
        [ -n "$routing" ] && sets+=(--set "routing.algorithm=$routing")
        for kv in $ccsets; do sets+=(--set "$kv"); done
        dir="$OUT/$name/$cclabel/$label/seed$seed"
        if ! "$BIN" run "$cfg" "${sets[@]}" --out "$dir" --quiet >"$OUT.log.tmp" 2>&1; then
          mkdir -p "$dir"; cp "$OUT.log.tmp" "$dir/error.txt"
          echo "FAILED: $name $cclabel $label seed$seed: $(head -c 300 "$OUT.log.tmp")" >&2
        fi
      done
    done
  done
done
rm -f "$OUT.log.tmp"

python3 - "$OUT" "$MD" <<'PY'
import json, os, sys
root, md = sys.argv[1], sys.argv[2]
# The scheme each paper reports as the winner, and what it is compared against.
winner = {"reps_symmetric_permutation": ("reps", "ops"), "reps_asymmetric_micro": ("reps", "ops"),
          "spritz_slim_fly_permutation_1MiB": ("spritz_spray_w", None)}
lines = ["| scenario | CC | scheme | seeds | done/flows | mean FCT us | p99 FCT us | max FCT us | drops | "
         "retx | timeouts | paper's winner still best (max FCT) |", "|" + "---|" * 12]
for sc in sorted(os.listdir(root)):
    if not os.path.isdir(os.path.join(root, sc)):
        continue
    for cc in ["paper", "nscc", "nscc+rccc", "rccc"]:
        d = os.path.join(root, sc, cc)
        if not os.path.isdir(d):
            continue
        rows = {}
        for scheme in sorted(os.listdir(d)):
            agg = []
            for seed in sorted(os.listdir(os.path.join(d, scheme))):
                f = os.path.join(d, scheme, seed, "summary.json")
                if not os.path.exists(f):
                    agg.append(None); continue
                j = json.load(open(f)); fct = j["fct_us"]
                agg.append((fct["mean"], fct["p99"], fct["max"], j["completed"], fct["count"] + j.get("unfinished", 0)
                            if isinstance(j.get("unfinished"), int) else j["completed"],
                            j["drops"], j["retransmits"], j["timeouts"], j["congestion_control"]))
            ok = [a for a in agg if a]
            if not ok:
                rows[scheme] = None; continue
            n = len(ok)
            rows[scheme] = dict(seeds=f"{n}/{len(agg)}", mean=sum(a[0] for a in ok) / n,
                                p99=sum(a[1] for a in ok) / n, max=max(a[2] for a in ok),
                                done=f"{sum(a[3] for a in ok)}/{sum(a[4] for a in ok)}",
                                drops=sum(a[5] for a in ok), retx=sum(a[6] for a in ok), to=sum(a[7] for a in ok))
        w, rival = winner[sc]
        good = {k: v for k, v in rows.items() if v}
        best = min(good, key=lambda k: good[k]["max"]) if good else None
        for scheme, r in rows.items():
            verdict = ""
            if scheme == w:
                if r is None:
                    verdict = "run failed"
                else:
                    verdict = "yes" if best == w else f"no: {best} lower"
            if r is None:
                lines.append(f"| {sc} | {cc} | {scheme} | 0 | failed | | | | | | | {verdict} |")
                continue
            lines.append(f"| {sc} | {cc} | {scheme} | {r['seeds']} | {r['done']} | {r['mean']:.1f} | {r['p99']:.1f} | "
                         f"{r['max']:.1f} | {r['drops']} | {r['retx']} | {r['to']} | {verdict} |")
open(md, "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
