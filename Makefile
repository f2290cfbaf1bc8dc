# lbsim front door. `make demo` and `make test` work on a fresh Debian 12 machine: they install
# missing packages (scripts/install-deps.sh), configure, build and run.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=Release

.PHONY: all deps build demo test install sanitize sanitize-build sanitize-full fuzz fuzz-build bench docs clean

all: build

deps:
	@bash scripts/install-deps.sh

$(BUILD)/build.ninja: | deps
	cmake -S . -B $(BUILD) -G Ninja $(CMAKE_FLAGS)

build: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS)

# The default scenario end to end: ECMP vs OPS on a 128-host fat tree permutation, then its HTML
# report (docs/report.md; the last line printed is its path).
demo: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS) --target lbsim
	$(BUILD)/lbsim compare examples/demo.toml --lb ecmp,ops --out results/demo-compare
	$(BUILD)/lbsim report results/demo-compare

# Install under PREFIX (default ~/.local, no root needed): bin/lbsim, share/lbsim/{tools,examples,data}
# and the Python package in the interpreter's site-packages for that prefix (README "Install").
PREFIX ?= $(HOME)/.local
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

# The whole test suite (unit, integration, CLI, and a fixed-length smoke of each fuzzer when clang is
# installed: ctest label "fuzz"). Benchmarks are separate: `make bench`.
test: build fuzz-build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The test suite built with AddressSanitizer + UndefinedBehaviorSanitizer in $(BUILD)/sanitize (g++, -O1,
# any report fails the test; docs/reliability.md). -g1: line tables only, enough for the reports' stack
# traces (file:line); full debug info cost a fifth more compile time (docs/results/ci-time.md). The tests load the layers from one shared library
# there (LBSIM_SHARED_LAYERS, src/CMakeLists.txt): ~30 statically linked copies took GiBs of disk.
# `make sanitize` (CI, after `make test`) runs the C++ tests; `make sanitize-full` also runs the script
# tests (docs commands, format, plots, HTML report, install tree), which `make test` already ran
# unsanitized and which take most of the sanitized time. Neither runs the fuzz smoke nor builds benchmarks.
# The environment names the source tree and tools/: the sanitized lbsim sits two levels below the tree,
# where neither is found by its own location (nor by __FILE__ when a compiler cache makes paths relative).
SANITIZE_FLAGS = -O1 -g1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
SANITIZE_ENV = LBSIM_SOURCE_DIR=$(CURDIR) LBSIM_TOOLS_DIR=$(CURDIR)/tools ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
sanitize-build: deps
	@[ -f $(BUILD)/sanitize/build.ninja ] || cmake -S . -B $(BUILD)/sanitize -G Ninja -DCMAKE_BUILD_TYPE=None \
	  -DLBSIM_WERROR=OFF -DLBSIM_PYTHON=OFF -DLBSIM_BENCH=OFF -DCMAKE_CXX_FLAGS="$(SANITIZE_FLAGS)" \
	  -DLBSIM_SHARED_LAYERS=ON -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" \
	  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined"
	cmake --build $(BUILD)/sanitize -j $(JOBS)

sanitize: sanitize-build
	cd $(BUILD)/sanitize && $(SANITIZE_ENV) ctest --output-on-failure -j $(JOBS) -LE 'fuzz|docs|plot|report|install'

sanitize-full: sanitize-build
	cd $(BUILD)/sanitize && $(SANITIZE_ENV) ctest --output-on-failure -j $(JOBS) -LE fuzz

# libFuzzer harnesses (fuzz/, docs/fuzzing.md) in $(BUILD)/fuzz, built with clang + ASan + UBSan.
# Without clang this says so and does nothing.
fuzz-build: deps
	@FUZZ_BUILD=$(abspath $(BUILD))/fuzz JOBS=$(JOBS) bash scripts/fuzz.sh build || [ $$? -eq 77 ]

# Every fuzzer for FUZZ_SECONDS each (default 60); fails on any crash, UB report or leak.
FUZZ_SECONDS ?= 60
fuzz: deps
	FUZZ_BUILD=$(abspath $(BUILD))/fuzz JOBS=$(JOBS) bash scripts/fuzz.sh build
	FUZZ_BUILD=$(abspath $(BUILD))/fuzz bash scripts/fuzz.sh run $(FUZZ_SECONDS)

# The engine benchmark (scripts/bench.sh): three rows by default (1024-host fat tree with OPS, 1056-host
# Dragonfly with UGAL-L, Flowcut fat tree). The large rows of issue 17 are opt-in, minutes to an hour
# each: `make bench BENCH_LARGE=1` (all) or `BENCH_ROWS=ft8192,rate,ft64k,websearch1m,sf29,df83k,bigmsg,inflight` (a subset;
# BENCH_DEFAULT=0 skips the three default rows). Each large row prints wall and CPU time, events,
# events per data packet, peak RSS, the setup's RSS and CPU time, and the memory per active flow and
# per in-flight packet; BENCH_END_US=0.01 stops them after their setup.
bench: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS) --target lbsim
	BIN=$(BUILD)/lbsim BENCH_LARGE=$(BENCH_LARGE) BENCH_ROWS=$(BENCH_ROWS) BENCH_DEFAULT=$(BENCH_DEFAULT) BENCH_END_US=$(BENCH_END_US) bash scripts/bench.sh

# Regenerate the generated reference docs.
docs: deps $(BUILD)/build.ninja
	cmake --build $(BUILD) -j $(JOBS) --target lbsim
	$(BUILD)/lbsim config --markdown > docs/config.md

clean:
	rm -rf $(BUILD)
