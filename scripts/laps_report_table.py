#!/usr/bin/env python3
"""Compact tables of `lbsim reproduce laps-*` reports (docs/results/laps-paper-setup.md "Full entries, measured").

Reads the markdown that scripts/laps_reproduce_quick.sh prints (one fenced report per entry) on
stdin and prints, per entry, one markdown table: a row per setting (load, pattern, drop ratio), a
column per scheme, each cell "average / p99" FCT as the report gives them (mean over the seeds, in
the report's unit), the lowest average of the row in bold, and a last column naming the scheme
with the lowest average and LAPS's rank among the schemes by average.
Usage: scripts/laps_reproduce_quick.sh ... | scripts/laps_report_table.py
"""
import re
import sys

HEAD = re.compile(r"^(laps-[\w-]+): ")
SECTION = re.compile(r"^(.+?): (average|p99) FCT \((\w+)\)$")
VALUE = re.compile(r"^\s+(\S+)\s+([\d.]+)(?:\s+\[[^\]]*\])?(?:\s+paper:.*)?\s*$")  # "paper: ..." beside


def parse(lines):
    entries = {}  # entry -> {setting -> {metric -> {scheme -> value}}}, with the unit per entry
    order = []
    entry = None
    cur = None
    for line in lines:
        m = HEAD.match(line)
        if m:
            entry = m.group(1)
            if entry not in entries:
                entries[entry] = ({}, {})
                order.append(entry)
            cur = None
            continue
        if entry is None:
            continue
        if line.startswith("```"):
            cur = None
            continue
        m = SECTION.match(line)
        if m:
            setting, metric, unit = m.groups()
            table, units = entries[entry]
            cur = table.setdefault(setting, {}).setdefault(metric, {})
            units[setting] = unit
            continue
        if cur is not None:
            m = VALUE.match(line)
            if m:
                cur[m.group(1)] = float(m.group(2))
            elif not line.startswith("  "):
                cur = None
    return order, entries


def main():
    order, entries = parse(sys.stdin.read().splitlines())
    if not order:
        sys.exit("laps_report_table.py: no `laps-*` report on stdin")
    for entry in order:
        table, units = entries[entry]
        schemes = []
        for s in table.values():
            for name in s.get("average", {}):
                if name not in schemes:
                    schemes.append(name)
        print(f"**{entry}**: average / p99 FCT, mean over the seeds (lowest average in bold)")
        print()
        print("| setting | unit | " + " | ".join(schemes) + " | lowest | LAPS's rank |")
        print("|---|---|" + "---|" * len(schemes) + "---|---|")
        for setting, metrics in table.items():
            avg, p99 = metrics.get("average", {}), metrics.get("p99", {})
            if not avg:
                continue
            best = min(avg.values())
            cells = []
            for s in schemes:
                if s not in avg:
                    cells.append("-")
                    continue
                a = f"{avg[s]:g}"
                if avg[s] == best:
                    a = f"**{a}**"
                cells.append(f"{a} / {p99[s]:g}" if s in p99 else a)
            lowest = ", ".join(s for s in schemes if avg.get(s) == best)
            rank = 1 + sum(1 for s in schemes if s in avg and "laps" in avg and avg[s] < avg["laps"])
            print(f"| {setting} | {units[setting]} | " + " | ".join(cells) + f" | {lowest} | {rank} of {len(avg)} |")
        print()


if __name__ == "__main__":
    main()
