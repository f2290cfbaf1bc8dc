#!/usr/bin/env bash
# `cmake --install` into a scratch prefix gives a working lbsim (issue 18: "importable ... after make
# install"): the executable runs an installed example, finds the installed tools/ for `report` and the
# installed reproduce manifests, and the installed Python package imports, names the installed
# executable and returns the same flows.
#   tests/install/check_install.sh BUILD_DIR SCRATCH
set -euo pipefail
build="$1"; prefix="$2"
rm -rf "$prefix"
fail() { echo "check_install: FAIL: $*" >&2; exit 1; }
out="$(cmake --install "$build" --prefix "$prefix" 2>&1)" || fail "cmake --install: $out"
exe="$prefix/bin/lbsim"
[[ -x "$exe" ]] || fail "no $exe"
share="$prefix/share/lbsim"
for f in tools/plot.py tools/report.py examples/demo.toml data/flow-size-cdf; do
  [[ -e "$share/$f" ]] || fail "not installed: share/lbsim/$f"
done
# An example that reads data/ through a relative path runs from the installed share folder.
"$exe" run "$share/examples/demo.toml" --set topology.hosts=16 --out "$prefix/run" --quiet || fail "lbsim run"
"$exe" report "$prefix/run" --out "$prefix/report.html" >/dev/null || fail "lbsim report"
# `lbsim reproduce` reads the installed manifests (share/lbsim/examples/*/reproduce/*.toml), their
# sweeps, base configs and data files, not the source tree's.
list="$("$exe" reproduce --list)" || fail "lbsim reproduce --list"
[[ "$(grep -c ' ready$' <<<"$list")" -ge 35 ]] || fail "reproduce --list: fewer than 35 entries ready: $list"
"$exe" reproduce laps-fig5 --quick --print | grep -q "$share/examples/laps/reproduce/fig5.toml" ||
  fail "reproduce reads manifests outside $share"
"$exe" reproduce laps-fig5 --quick --print | grep -q "\"workload.cdf\" = \"$share/data/flow-size-cdf/VL2_CDF.txt\"" ||
  fail "reproduce laps-fig5: the flow sizes are not the installed data file"
"$exe" reproduce reps-fig4 --quick --no-plot --out "$prefix/repro" >/dev/null || fail "lbsim reproduce reps-fig4 --quick"
[[ -f "$prefix/repro/results.csv" ]] || fail "reproduce wrote no results.csv"
grep -q "<svg" "$prefix/report.html" || fail "report.html has no figure"
pydir="$(/usr/bin/python3 "$(dirname "$0")/../../python/install_dir.py" "$prefix")"
[[ -f "$pydir/lbsim/__init__.py" ]] || fail "Python package not in $pydir"
env -u LBSIM_EXE PYTHONPATH="$pydir" /usr/bin/python3 - "$exe" "$prefix" <<'PY' || fail "Python package"
import filecmp, sys
import lbsim
exe, prefix = sys.argv[1:3]
assert lbsim.__file__.startswith(prefix), lbsim.__file__
assert lbsim.executable() == exe, lbsim.executable()
r = lbsim.run(prefix + "/share/lbsim/examples/demo.toml", topology_hosts=16, out=prefix + "/pyrun")
assert len(r.flows) > 0
assert filecmp.cmp(prefix + "/run/flows.csv", prefix + "/pyrun/flows.csv", shallow=False)
print(f"check_install: Python: {len(r.flows)} flows, flows.csv identical to the CLI's")
PY
echo "check_install: ok ($prefix)"
