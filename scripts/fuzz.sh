#!/usr/bin/env bash
# libFuzzer harnesses (fuzz/, docs/fuzzing.md): build them with clang + ASan + UBSan and run each one
# for a time budget, seeded from examples/ and data/.
#
#   scripts/fuzz.sh build            # configure and build $FUZZ_BUILD (default build/fuzz)
#   scripts/fuzz.sh run [SECONDS]    # run every harness for SECONDS (default $FUZZ_SECONDS or 60)
#   scripts/fuzz.sh smoke            # build, then a fixed number of executions per harness, about
#                                    # 10 s each here (make test, CI): seed 1 and a fresh corpus, so
#                                    # the smoke's outcome is the same on every run
#   scripts/fuzz.sh list
#
# FUZZERS="fuzz_cdf fuzz_goal" limits the harnesses; FUZZ_SEED fixes libFuzzer's seed (smoke: 1,
# otherwise random). A time budget makes the number of executions depend on the machine's speed,
# so `run` explores and `smoke` checks. Exit codes: 0 no finding; 1 a harness crashed,
# reported UB or a leak (its reproducer is in $FUZZ_BUILD/findings/); 77 clang is not installed
# (the caller skips); 2 usage.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
FUZZ_BUILD=${FUZZ_BUILD:-$ROOT/build/fuzz}
JOBS=${JOBS:-$(nproc)}

all_fuzzers() { sed -n '/^set(LBSIM_FUZZERS/,/CACHE/p' "$ROOT/fuzz/CMakeLists.txt" | grep -o 'fuzz_[a-z0-9_]*'; }
FUZZERS=${FUZZERS:-$(all_fuzzers | tr '\n' ' ')}

find_clang() {
  for c in clang++-14 clang++; do
    if command -v "$c" >/dev/null; then echo "$c"; return 0; fi
  done
  return 1
}

build() {
  local cxx
  if ! cxx=$(find_clang); then
    echo "fuzz: clang++ not found: the fuzzers need clang and libFuzzer (Debian: clang-14 libclang-rt-14-dev," \
         "installed by scripts/install-deps.sh); skipping" >&2
    exit 77
  fi
  if [ ! -f "$FUZZ_BUILD/build.ninja" ]; then
    cmake -S "$ROOT" -B "$FUZZ_BUILD" -G Ninja -DLBSIM_FUZZ=ON -DLBSIM_WERROR=OFF \
      -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE=-O1 >/dev/null
  fi
  # shellcheck disable=SC2086
  cmake --build "$FUZZ_BUILD" -j "$JOBS" --target $FUZZERS
}

# Seeds for one harness, from examples/ and data/ (and fuzz/seeds/<harness>/). Harnesses whose first
# byte selects a parser or an option get each seed once per selector value.
seeds_of() {
  case "$1" in
    fuzz_config|fuzz_sweep) find "$ROOT/examples" -name '*.toml' ;;
    fuzz_cdf) find "$ROOT/examples" -name '*.cdf'; find "$ROOT/data/flow-size-cdf" -type f ;;
    fuzz_flows_csv) find "$ROOT/examples" -name '*.csv' ! -name 'prices*' ;;
    fuzz_ns3_flows) echo "$ROOT/examples/workloads/flows_ns3.txt"; echo "$ROOT/data/ns3-hpcc/flow.txt" ;;
    fuzz_ns3_topology) echo "$ROOT/data/ns3-hpcc/fat.txt" ;;
    fuzz_htsim_cm) find "$ROOT/examples" -name '*.cm' ;;
    fuzz_goal) find "$ROOT/examples" "$ROOT/data" -name '*.goal' ;;
    fuzz_failures) find "$ROOT/examples" -name '*failures*.txt' ;;
    fuzz_dragonfly_map) find "$ROOT/examples/dragonfly" -name '*.map' ;;
    fuzz_name_map) find "$ROOT/examples/slimfly" -name '*.map' ;;
    fuzz_prices) find "$ROOT/examples" -name 'prices*.csv' ;;
  esac
  if [ -d "$ROOT/fuzz/seeds/$1" ]; then find "$ROOT/fuzz/seeds/$1" -type f; fi
}
selectors_of() {
  case "$1" in
    fuzz_ns3_flows|fuzz_opensm) echo 0 1 2 3 ;;
    fuzz_ibnetdiscover) echo 0 1 2 ;;
    *) echo "" ;;
  esac
}

prepare_seeds() {  # harness -> $FUZZ_BUILD/seeds/<harness>
  local h=$1 dir=$FUZZ_BUILD/seeds/$1 sel f i=0
  rm -rf "$dir"
  mkdir -p "$dir"
  sel=$(selectors_of "$h")
  while IFS= read -r f; do
    [ -n "$f" ] && [ -f "$f" ] || continue
    i=$((i + 1))
    if [ -z "$sel" ]; then
      cp "$f" "$dir/$i-$(basename "$f")"
    else
      for s in $sel; do
        { printf "\\x$(printf %02x "$s")"; cat "$f"; } > "$dir/$i-$s-$(basename "$f")"
      done
    fi
  done < <(seeds_of "$h")
}

# Smoke executions per harness: about 10 s of each on a 2-core machine (the parsers differ ~100x
# in speed: fuzz_set applies every override to a whole config).
smoke_runs_of() {
  case "$1" in
    fuzz_set) echo 1500 ;;
    fuzz_config) echo 12000 ;;
    fuzz_sweep|fuzz_goal) echo 40000 ;;
    fuzz_ibnetdiscover) echo 50000 ;;
    *) echo 100000 ;;
  esac
}

# run SECONDS: each harness for SECONDS, growing $FUZZ_BUILD/corpus. run smoke: each harness for
# its smoke_runs_of executions from the seeds alone (a fresh corpus), at most 60 s each.
run() {
  local budget=${1:-${FUZZ_SECONDS:-60}} failed=() total=0 h log execs limit corpus what
  mkdir -p "$FUZZ_BUILD/findings" "$FUZZ_BUILD/logs"
  for h in $FUZZERS; do
    [ -x "$FUZZ_BUILD/fuzzers/$h" ] || { echo "fuzz: $FUZZ_BUILD/fuzzers/$h not built (scripts/fuzz.sh build)" >&2; exit 1; }
    prepare_seeds "$h"
    if [ "$budget" = smoke ]; then
      limit=(-runs="$(smoke_runs_of "$h")" -max_total_time=60)
      corpus=$FUZZ_BUILD/smoke-corpus/$h
      rm -rf "$corpus"
    else
      limit=(-max_total_time="$budget")
      corpus=$FUZZ_BUILD/corpus/$h
    fi
    mkdir -p "$corpus"
    log=$FUZZ_BUILD/logs/$h.log
    # -rss_limit_mb: a parser must not need more than 2 GB for a small input; -timeout: nor hang.
    if ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
       "$FUZZ_BUILD/fuzzers/$h" -seed="${FUZZ_SEED:-0}" "${limit[@]}" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
         -print_final_stats=1 -artifact_prefix="$FUZZ_BUILD/findings/$h-" \
         "$corpus" "$FUZZ_BUILD/seeds/$h" >"$log" 2>&1; then
      execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
      total=$((total + execs))
      what=$(grep -o 'stat::average_exec_per_sec: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
      printf 'fuzz: %-20s ok   %10s executions (%s/s)\n' "$h" "$execs" "$what"
    else
      failed+=("$h")
      printf 'fuzz: %-20s FAILED (log: %s)\n' "$h" "$log"
      grep -m 5 -E 'ERROR|runtime error|==ABORTING|Test unit written|deadly signal|uncaught' "$log" | sed 's/^/    /' || true
    fi
  done
  echo "fuzz: $total executions in total"
  if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: ${#failed[@]} harness(es) found a crash, UB or a leak: ${failed[*]}; reproducers in $FUZZ_BUILD/findings/" >&2
    exit 1
  fi
}

case "${1:-}" in
  build) build ;;
  run) run "${2:-}" ;;
  smoke) build; FUZZ_SEED=${FUZZ_SEED:-1} run smoke ;;
  list) echo "$FUZZERS" | tr ' ' '\n' | sed '/^$/d' ;;
  *) echo "usage: $0 build | run [SECONDS] | smoke | list" >&2; exit 2 ;;
esac
