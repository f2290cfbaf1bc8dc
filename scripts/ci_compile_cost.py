#!/usr/bin/env python3
"""CPU time to compile a sample of the project's translation units under the sanitizer tree's flag
variants (Makefile `sanitize`): which debug-info level and optimisation CI's sanitizer build pays for.

CPU time (user + sys of the compiler), not wall time, so the numbers hold on a loaded machine.
Usage: scripts/ci_compile_cost.py [BUILD_DIR] [--sample N] [--seed S] [--tests] [--write FILE]
BUILD_DIR (default build) must have compile_commands.json (the Release tree has it).
--tests: sample the test units (tests/) instead and compare the tree's flags with the test sources at
-O0 and with a precompiled header of GoogleTest, nlohmann/json and fmt (tests/CMakeLists.txt); the
header is compiled once per flag set and its cost is reported beside the units'.
"""
import argparse
import datetime
import glob
import json
import os
import random
import resource
import shlex
import subprocess
import sys
import tempfile

SAN = "-fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined".split()
VARIANTS = {  # name -> (extra flags, sanitizers on)
    "-O1 -g (sanitize before)": (["-O1", "-g"], True),
    "-O1 -g1 (sanitize now)": (["-O1", "-g1"], True),
    "-O1 no debug info": (["-O1"], True),
    "-O0 -g1": (["-O0", "-g1"], True),
    "-O2 Release (make test)": (["-O2", "-DNDEBUG"], False),
}


def cpu_seconds(cmd, cwd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, cwd=cwd, check=True, capture_output=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


PCH_HEADERS = ["gtest/gtest.h", "nlohmann/json.hpp", "fmt/core.h", "algorithm", "filesystem", "map", "set",
               "sstream", "string", "vector"]
TEST_VARIANTS = {  # name -> (flags replacing the tree's optimisation, sanitizers on, precompiled header)
    "sanitize, tests at -O1 (before)": (["-O1", "-g1"], True, False),
    "sanitize, tests at -O0": (["-O0", "-g1"], True, False),
    "sanitize, tests at -O0 + header (now)": (["-O0", "-g1"], True, True),
    "Release, tests at -O2 (before)": (["-O2", "-DNDEBUG"], False, False),
    "Release, tests at -O0 + header (now)": (["-O0", "-DNDEBUG"], False, True),
}


def strip_unit(u):
    """The unit's compile command without the tree's optimisation and with its output discarded."""
    args = shlex.split(u["command"])
    while "-include" in args:  # CMake's precompiled-header include, if the tree has one
        i = args.index("-include")
        del args[i:i + 2]
    args = [x for x in args if x not in ("-O2", "-O0", "-DNDEBUG", "-Winvalid-pch")]
    args[args.index("-o") + 1] = os.devnull
    return args


def commit():
    return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()


def tests_main(a, units):
    """CPU seconds for a sample of test units under TEST_VARIANTS (see the module comment)."""
    # The tree compiles most test sources in unity batches: take every test source, each with the
    # flags of a test source the tree compiles alone.
    template = next(u for u in units if "/tests/" in u["file"] and u["file"].endswith(".cpp"))
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    tests = []
    for path in sorted(glob.glob(os.path.join(root, "tests", "*", "*.cpp"))):
        args = shlex.split(template["command"])
        args[args.index("-c") + 1] = path
        tests.append({"file": path, "directory": template["directory"], "command": shlex.join(args)})
    random.seed(a.seed)
    sample = random.sample(tests, min(a.sample, len(tests)))
    tmp = tempfile.mkdtemp(prefix="lbsim-pch-")
    total, header = {}, {}
    for name, (flags, san, pch) in TEST_VARIANTS.items():
        extra = flags + (SAN if san else [])
        include = []
        if pch:
            hdr = os.path.join(tmp, f"pch{len(header)}.h")
            with open(hdr, "w") as f:
                f.writelines(f"#include <{h}>\n" for h in PCH_HEADERS)
            args = strip_unit(sample[0])
            i = args.index("-c")
            cmd = args[:1] + extra + args[1:i] + ["-x", "c++-header", hdr, "-o", hdr + ".gch"]
            header[name] = cpu_seconds(cmd, sample[0]["directory"])
            include = ["-include", hdr]
        total[name] = sum(
            cpu_seconds(strip_unit(u)[:1] + extra + include + strip_unit(u)[1:], u["directory"]) for u in sample)
    rows = [f"| {k} | {v:.1f} | {v / len(sample):.2f} | {header.get(k, 0):.1f} |" for k, v in total.items()]
    files = ", ".join(os.path.relpath(u["file"]) for u in sample)
    return [
        "## Test units: optimisation and a precompiled header",
        "",
        f"Measured {datetime.date.today()} at commit {commit()} by `scripts/ci_compile_cost.py --tests --sample "
        f"{a.sample} --seed {a.seed} --write docs/results/ci-time.md` (appends this section): CPU seconds to "
        f"compile {len(sample)} of the {len(tests)} test units. Not measured here: the unity batches "
        "(tests/CMakeLists.txt), which parse the headers once per batch of a folder's files. The header (GoogleTest, nlohmann/json, fmt and a few standard headers) "
        "is compiled once per tree and reused by every test executable.",
        "",
        "| flags | CPU s | per unit | header, once |",
        "|---|---|---|---|",
        *rows,
        "",
        f"Units: {files}.",
        "",
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build", nargs="?", default="build")
    ap.add_argument("--sample", type=int, default=8)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--write")
    ap.add_argument("--tests", action="store_true")
    a = ap.parse_args()
    path = os.path.join(a.build, "compile_commands.json")
    if not os.path.exists(path):
        sys.exit(f"{path}: not found (configure the Release tree first: make build)")
    units = json.load(open(path))
    if a.tests:
        text = "\n".join(tests_main(a, units))
        print(text)
        if a.write:
            with open(a.write, "a") as f:
                f.write("\n" + text)
        return
    random.seed(a.seed)
    sample = random.sample(units, min(a.sample, len(units)))
    total = {k: 0.0 for k in VARIANTS}
    for u in sample:
        args = strip_unit(u)
        for name, (flags, san) in VARIANTS.items():
            total[name] += cpu_seconds(args[:1] + flags + (SAN if san else []) + args[1:], u["directory"])
    base = total["-O1 -g (sanitize before)"]
    rows = [f"| {k} | {v:.1f} | {v / base:.2f} |" for k, v in total.items()]
    files = ", ".join(os.path.relpath(u["file"]) for u in sample)
    commit_id = commit()
    text = "\n".join([
        "# CI time: what the compiler costs per flag set",
        "",
        f"Measured {datetime.date.today()} at commit {commit_id} by `scripts/ci_compile_cost.py --sample {a.sample} "
        f"--seed {a.seed} --write docs/results/ci-time.md`: CPU seconds (user + sys) to compile {len(sample)} "
        "translation units picked at random from the Release tree's compile commands, under each flag set "
        "(g++ 12). CI (`.ci/run`) builds three trees on 2 cores: Release (`make test`), the fuzzers (clang, "
        "`make test`), ASan + UBSan (`make sanitize`); the stage times it prints say where the time goes.",
        "",
        "| flags | CPU s | vs -O1 -g |",
        "|---|---|---|",
        *rows,
        "",
        f"Units: {files}.",
        "",
        "Kept: `-g1` (line tables, enough for the sanitizers' stack traces) in the sanitizer tree and "
        "`-gline-tables-only` in the fuzzer tree. `-O0` only for the test sources (next section): the "
        "simulation the tests drive runs in the layers, which keep `-O1`.",
        "",
    ])
    print(text)
    if a.write:
        with open(a.write, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
