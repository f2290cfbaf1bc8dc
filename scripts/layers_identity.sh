#!/usr/bin/env bash
# Compares the forwarding tables (forwarding.txt, lfts.dump) written by two lbsim binaries for
# q = 5 and q = 7 with several layer counts and seeds: a speed change of the layer builder must
# keep the layers byte-identical.
# Usage: scripts/layers_identity.sh OLD_LBSIM NEW_LBSIM [WORKDIR]
set -euo pipefail
old=$1 new=$2 work=${3:-$(mktemp -d)}
root=$(cd "$(dirname "$0")/.." && pwd)
fail=0
for q in 5 7; do
  for L in 2 4 8 16; do
    for seed in 1 7 42; do
      for guard in "" --no-guard; do
        for bin in old new; do
          exe=${!bin}
          "$exe" layers "$root/examples/layered/sf-q$q.toml" -L "$L" --seed "$seed" $guard --tables \
            --out "$work/$bin" >/dev/null
        done
        for f in forwarding.txt lfts.dump; do
          if ! cmp -s "$work/old/$f" "$work/new/$f"; then
            echo "DIFFER: q=$q L=$L seed=$seed $guard $f"; fail=1
          fi
        done
        echo "same: q=$q L=$L seed=$seed ${guard:-guard}"
      done
    done
  done
done
exit $fail
