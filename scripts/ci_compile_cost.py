#!/usr/bin/env python3
"""CPU time to compile a sample of the project's translation units under the sanitizer tree's flag
variants (Makefile `sanitize`): which debug-info level and optimisation CI's sanitizer build pays for.

CPU time (user + sys of the compiler), not wall time, so the numbers hold on a loaded machine.
Usage: scripts/ci_compile_cost.py [BUILD_DIR] [--sample N] [--seed S] [--write docs/results/ci-time.md]
BUILD_DIR (default build) must have compile_commands.json (the Release tree has it).
"""
import argparse
import datetime
import json
import os
import random
import resource
import shlex
import subprocess
import sys

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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build", nargs="?", default="build")
    ap.add_argument("--sample", type=int, default=8)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--write")
    a = ap.parse_args()
    path = os.path.join(a.build, "compile_commands.json")
    if not os.path.exists(path):
        sys.exit(f"{path}: not found (configure the Release tree first: make build)")
    units = json.load(open(path))
    random.seed(a.seed)
    sample = random.sample(units, min(a.sample, len(units)))
    total = {k: 0.0 for k in VARIANTS}
    for u in sample:
        args = [x for x in shlex.split(u["command"]) if x not in ("-O2", "-DNDEBUG")]
        args[args.index("-o") + 1] = os.devnull
        for name, (flags, san) in VARIANTS.items():
            total[name] += cpu_seconds(args[:1] + flags + (SAN if san else []) + args[1:], u["directory"])
    base = total["-O1 -g (sanitize before)"]
    rows = [f"| {k} | {v:.1f} | {v / base:.2f} |" for k, v in total.items()]
    files = ", ".join(os.path.relpath(u["file"]) for u in sample)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    text = "\n".join([
        "# CI time: what the compiler costs per flag set",
        "",
        f"Measured {datetime.date.today()} at commit {commit} by `scripts/ci_compile_cost.py --sample {a.sample} "
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
        "`-gline-tables-only` in the fuzzer tree. Not taken: `-O0`, which compiles faster but runs the "
        "sanitized tests slower.",
        "",
    ])
    print(text)
    if a.write:
        with open(a.write, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
