#!/usr/bin/python3
"""`lbsim report` in a real browser (ctest report_chromium; docs/report.md).

Writes small run, compare, sweep and reproduce folders with the lbsim binary of this build, writes
each one's report.html, and loads it in headless Chromium: the page must log nothing to the console
(no error, no warning), every figure must have drawn (the page's own check sets
body[data-figures="ok/total"] after load, read back with --dump-dom) and the report must be
self-contained (no external script, style, image or link). A screenshot of the compare report is
taken and checked to be a non-trivial PNG. Exit 77 (ctest: skipped) when chromium is not installed.

    tests/report/check_report.py LBSIM_BINARY SOURCE_DIR WORK_DIR
"""
import os
import re
import shutil
import subprocess
import sys

SMALL = ["--set", "topology.hosts=16", "--set", "workload.size=\"64KiB\"", "--set", "output.queue_sample_us=1"]


def die(msg):
    sys.stderr.write(f"check_report: FAIL: {msg}\n")
    sys.exit(1)


def run(args, ok=(0,), **kw):
    p = subprocess.run(args, capture_output=True, text=True, **kw)
    if p.returncode not in ok:
        die(f"{' '.join(args)} exited with {p.returncode}:\n{p.stdout}\n{p.stderr}")
    return p.stdout


def chromium():
    for c in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(c)
        if p:
            return p
    return None


def browser(exe, work, page, extra):
    prof = os.path.join(work, "chromium-profile")
    args = [exe, "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run", "--disable-extensions",
            f"--user-data-dir={prof}", "--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000"] + extra + [
            "file://" + os.path.abspath(page)]
    return subprocess.run(args, capture_output=True, text=True, timeout=300)


def check_page(exe, work, page):
    html = open(page).read()
    # Self-contained: nothing loaded from elsewhere.
    ext = re.findall(r'<(?:script|img|link|iframe)[^>]*(?:src|href)=', html)
    if ext:
        die(f"{page} loads external resources: {ext[:3]}")
    nfig = html.count('<figure class="fig"')
    if nfig == 0:
        die(f"{page} has no figure")
    p = browser(exe, work, page, ["--dump-dom"])
    if p.returncode != 0:
        die(f"chromium --dump-dom {page} exited with {p.returncode}: {p.stderr[-2000:]}")
    console = [l for l in p.stderr.splitlines() if ":CONSOLE" in l]
    if console:
        die(f"{page}: console messages:\n" + "\n".join(console))
    m = re.search(r'<body[^>]*data-figures="(\d+)/(\d+)"', p.stdout)
    if not m:
        die(f"{page}: the page's figure check did not run (no body[data-figures]); DOM starts {p.stdout[:300]!r}")
    ok, total = int(m.group(1)), int(m.group(2))
    if total != nfig or ok != total:
        die(f"{page}: {ok} of {total} figures rendered (the file has {nfig})")
    print(f"check_report: {page}: {ok}/{total} figures rendered, no console messages")
    return html


def slowdown_tick_labels(page):
    """The x tick labels of the slowdown CDF figure (matplotlib's SVG keeps text as <text>)."""
    for fig in re.findall(r'<figure class="fig".*?</figure>', page, re.S):
        if "slowdown" not in re.search(r"<figcaption>(.*?)</figcaption>", fig, re.S).group(1).lower():
            continue
        xaxis = fig[fig.index('id="matplotlib.axis_1"'):fig.index('id="matplotlib.axis_2"')]
        return re.findall(r'<g id="xtick_\d+">.*?<text[^>]*>([^<]*)</text>', xaxis, re.S)
    return []


def main():
    if len(sys.argv) != 4:
        die("usage: check_report.py LBSIM_BINARY SOURCE_DIR WORK_DIR")
    lbsim, src, work = sys.argv[1:]
    exe = chromium()
    if exe is None:
        print("check_report: chromium is not installed (scripts/install-deps.sh installs it): skipped")
        sys.exit(77)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    demo = os.path.join(src, "examples", "demo.toml")

    run_dir = os.path.join(work, "run")
    run([lbsim, "run", demo, "--quiet", "--out", run_dir] + SMALL)
    # A run stopped early (run.end_us before the last transfer): its report must say so.
    stopped_dir = os.path.join(work, "stopped")
    run([lbsim, "run", demo, "--quiet", "--out", stopped_dir, "--set", "lb.algorithm=ecmp", "--set", "run.end_us=6"]
        + SMALL, ok=(3,))
    cmp_dir = os.path.join(work, "cmp")
    run([lbsim, "compare", demo, "--lb", "ecmp,ops", "--out", cmp_dir] + SMALL)
    sweep_file = os.path.join(work, "tiny.toml")
    with open(sweep_file, "w") as f:
        f.write(f'name = "tiny"\nbase = "{demo}"\n[set]\n"topology.hosts" = 16\n"workload.size" = "64KiB"\n'
                '[grid]\n"lb.algorithm" = ["ecmp", "ops"]\n"run.seed" = [1, 2]\n')
    sweep_dir = os.path.join(work, "sweep")
    run([lbsim, "sweep", sweep_file, "--out", sweep_dir, "--workers", "2"])
    repro_dir = os.path.join(work, "repro")
    run([lbsim, "reproduce", "reps-fig15", "--quick", "--no-plot", "--workers", "2", "--out", repro_dir])

    pages = {}
    for name, d in (("run", run_dir), ("stopped", stopped_dir), ("compare", cmp_dir), ("sweep", sweep_dir),
                    ("reproduce", repro_dir)):
        out = run([lbsim, "report", d])
        page = os.path.join(d, "report.html")
        if not os.path.isfile(page) or os.path.abspath(page) not in out:
            die(f"lbsim report {d} did not write or name {page}: {out!r}")
        pages[name] = check_page(exe, work, page)

    # What each report must show.
    if "Keys that differ between the runs" not in pages["compare"] or "lb.algorithm" not in pages["compare"]:
        die("the compare report does not show the varied key")
    for kind in ("run", "compare", "sweep"):
        if "fat_tree" not in pages[kind] or "permutation" not in pages[kind]:
            die(f"the {kind} report does not describe the scenario (topology, workload)")
    if "Per entry tag" not in pages["run"]:
        die("the run report has no per-tag table")
    if "paper" not in pages["reproduce"].lower() or "[REPS]" not in pages["reproduce"]:
        die("the reproduce report does not show the paper's values")

    # A stopped run states its status and how many transfers completed, in a banner, the table and
    # the CDF legends; its CDFs end below 1.
    st = pages["stopped"]
    m = re.search(r'<p class="status"><b>ecmp: unfinished at run.end_us</b>, t = [0-9.]+ us: (\d+) of 16 transfers '
                  r'completed', st)
    if not m or not 0 < int(m.group(1)) < 16:
        die("the report of a run stopped at run.end_us does not say so (status banner with the completed count)")
    if f"({m.group(1)}/16 completed)" not in st or "<td>unfinished</td>" not in st:
        die("the stopped run's table or CDF legend does not give its status and completed transfers")
    for kind in ("run", "compare"):
        if "<td>completed</td>" not in pages[kind] or '<p class="status">' in pages[kind]:
            die(f"the {kind} report of finished runs does not say completed, or shows a stop banner")

    # The slowdown CDF's log axis has labelled ticks a reader can use (it had one: "1.00").
    for kind in ("run", "compare", "sweep", "stopped"):
        labels = slowdown_tick_labels(pages[kind])
        if len(labels) < 3 or not all(re.fullmatch(r"[0-9.]+", x) for x in labels):
            die(f"the {kind} report's slowdown CDF has x tick labels {labels}: expected at least three numbers")
    # Counts are whole numbers (the sweep table printed 600.000).
    if re.search(r"<td>\d+\.000</td>", pages["sweep"]):
        die("the sweep report prints a whole number with decimals: " +
            re.search(r"<tr>(?:(?!</tr>).)*<td>\d+\.000</td>", pages["sweep"]).group(0)[:300])

    shot = os.path.join(work, "compare.png")
    p = browser(exe, work, os.path.join(cmp_dir, "report.html"), [f"--screenshot={shot}", "--window-size=1280,2400",
                                                                   "--hide-scrollbars"])
    if p.returncode != 0 or not os.path.isfile(shot):
        die(f"chromium --screenshot failed ({p.returncode}): {p.stderr[-2000:]}")
    with open(shot, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n" or len(data) < 20000:
        die(f"{shot}: not a PNG of a drawn page ({len(data)} bytes)")
    print(f"check_report: screenshot {shot} ({len(data)} bytes)")


if __name__ == "__main__":
    main()
