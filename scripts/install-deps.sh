#!/usr/bin/env bash
# Installs the Debian 12 packages lbsim needs to build, test and plot, if any are missing.
# Safe to run repeatedly: it does nothing when everything is present.
set -euo pipefail
pkgs=(build-essential cmake ninja-build pkg-config
      libfmt-dev libcli11-dev libtomlplusplus-dev nlohmann-json3-dev
      libgtest-dev libgmock-dev libbenchmark-dev
      coinor-libclp-dev libglpk-dev
      python3 python3-matplotlib python3-pandas slurm-wlm munge
      python3-pytest   # the Python module and its tests (docs/python.md)
      chromium                                  # the HTML report test in a headless browser (docs/report.md)
      clang-14 libclang-rt-14-dev  # clang + libFuzzer: scripts/fuzz.sh, docs/fuzzing.md
      clang-format)                 # the format test (scripts/check_format.sh)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
