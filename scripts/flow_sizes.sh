#!/usr/bin/env bash
# Sizes of the per-entry and per-transfer records (docs/scale-flows.md "What stays, and when it
# goes"): sizeof of each struct, compiled against this tree's headers (g++ or $CXX, C++20). Heap
# parts (vectors, strings, the REPS buffer) come on top and are listed in that table.
# Usage: scripts/flow_sizes.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/sizes.cpp" <<'CPP'
#include <cstdio>
#include "lb/reps.h"
#include "metrics/report.h"
#include "transport/transport.h"
int main() {
  using namespace lbsim;
  std::printf("| struct | bytes |\n|---|---|\n");
  std::printf("| workload::FlowSpec | %zu |\n", sizeof(workload::FlowSpec));
  std::printf("| transport::FlowState | %zu |\n", sizeof(transport::FlowState));
  std::printf("| transport::FlowLive | %zu |\n", sizeof(transport::FlowLive));
  std::printf("| transport::PsnEntry (per PSN in play) | %zu |\n", sizeof(transport::PsnEntry));
  std::printf("| lb::RepsPolicy | %zu |\n", sizeof(lb::RepsPolicy));
  std::printf("| metrics::FlowResult | %zu |\n", sizeof(metrics::FlowResult));
}
CPP
"${CXX:-g++}" -std=c++20 -I"$root/src" "$tmp/sizes.cpp" -o "$tmp/sizes"
"$tmp/sizes"
