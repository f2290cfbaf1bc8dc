#!/usr/bin/python3
"""Plots of an lbsim run, compare or sweep folder (PNG and PDF by default). Called by `lbsim plot`.

    /usr/bin/python3 tools/plot.py DIR [--out OUT] [--formats png,pdf,svg] [--dpi N]
                                       [--ports LABEL[:PORT],...] [--top-ports N]

DIR is a run folder (summary.json, flows.csv, ports.csv, queues.csv), a compare folder (one run
folder per load balancer or --vary value, as `lbsim compare --out DIR` writes it) or a sweep folder
(results.csv, sweep.json, runs/<name>/...). Runs are grouped into schemes by their scheme axes (a
named axis "scheme", lb.* and routing.* keys; else every swept key but run.seed; seeds are pooled;
in a compare folder each run folder is a scheme) and into panels by [[case]] and the other swept
keys. Every scheme keeps one line style, marker, hatch and colour in every plot (readable in
greyscale); legends sit outside the axes; the figure title names the scenario (topology kind and
hosts, workload kind). Plots written to OUT (default DIR/plots), one file per format:

  fct_cdf        CDF of the FCT of completed transfers, log x, one line per scheme
  slowdown_cdf   CDF of the slowdown (FCT / ideal FCT), log x
  fct_cdf_by_tag FCT CDF per entry tag, one panel per tag (e.g. incast, bystander; 2+ tags, not
                 collective steps)
  fct_violin     FCT distribution per scheme
  fct_bars       max and p99 FCT per scheme (mean over seeds, whiskers min..max)
  makespan       panels of dependency workloads (summary.json has_dependencies: collectives, GOAL,
                 triggered .cm): completion time of the whole workload per scheme (mean over seeds,
                 whiskers min..max); these panels are left out of the FCT plots above
  drops_ooo      drops, trims and out-of-order packets (%) per scheme
  queues         total bytes queued in switch data queues over time (needs queues.csv)
  queue_ports    data-queue bytes of single switch ports over time, one panel per port: those of
                 --ports, else the degraded ports (slower than their link kind in ports.csv) and
                 the busiest (most byte-samples summed over the schemes), --top-ports in all
  ports          mean utilisation of each link kind per scheme (ports.csv)
  tags           completion time and p99 FCT per entry tag (collective steps, incast/bystander)
  evs_size       a sweep over network.ev_bits: max FCT relative to the largest EVS per scheme

queues.csv is sparse by default (a port with empty queues has no row at a sample); the queue plots
put every sample time (multiples of output.queue_sample_us up to the end of the run) back with
zero bytes. Panels whose values are all non-negative start their y axis at 0 (all zero: 0..1).

A folder written by `lbsim balls ... --out DIR` (balls.json) gets the plots of tools/plot_balls.py
instead (the [REPS] balls-into-bins figures).

Uses Debian's python3-matplotlib and python3-pandas (scripts/install-deps.sh).
"""
import argparse
import json
import math
import os
import re
import sys

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import pandas as pd
except ImportError as e:  # pragma: no cover - depends on the machine
    sys.stderr.write(
        f"lbsim plot: needs python3-matplotlib and python3-pandas ({e}); "
        "install them with scripts/install-deps.sh or apt-get install python3-matplotlib python3-pandas\n")
    sys.exit(2)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from log_axis import label_log_axis  # noqa: E402  (tools/log_axis.py)

SEED_KEY = "run.seed"
DPI = 150
KEEP_FIGURES = None  # a list: save() appends (name, figure) and leaves the figure open (tests)

# Greyscale-safe styles: the i-th scheme gets STYLES[i % len]; line style, marker and hatch differ
# from one scheme to the next, so the plots read without colour. Colours: matplotlib's tab10.
LINESTYLES = ["-", "--", ":", "-.", (0, (5, 1, 1, 1, 1, 1)), (0, (1, 3)), (0, (8, 2)), (0, (3, 1, 1, 1))]
MARKERS = ["o", "s", "^", "D", "v", "x", "P", "*"]
HATCHES = ["", "//", "..", "xx", "\\\\", "oo", "++", "--"]
COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f"]

plt.rcParams.update({
    "font.size": 12, "axes.titlesize": 12, "axes.labelsize": 12, "xtick.labelsize": 11, "ytick.labelsize": 11,
    "legend.fontsize": 11, "figure.titlesize": 13, "lines.linewidth": 1.8, "hatch.linewidth": 0.8,
})

SCHEME_ORDER = []  # every scheme in first-seen order: its index picks its style


def style_index(scheme):
    if scheme not in SCHEME_ORDER:
        SCHEME_ORDER.append(scheme)
    return SCHEME_ORDER.index(scheme)


def line_style(scheme):
    """Keyword arguments of ax.plot for a scheme: colour, line style, marker."""
    i = style_index(scheme)
    return {"color": COLORS[i % len(COLORS)], "linestyle": LINESTYLES[i % len(LINESTYLES)],
            "marker": MARKERS[i % len(MARKERS)]}


def bar_style(scheme):
    """Keyword arguments of ax.bar for a scheme: fill colour, hatch, black edge."""
    i = style_index(scheme)
    return {"color": COLORS[i % len(COLORS)], "hatch": HATCHES[i % len(HATCHES)], "edgecolor": "black",
            "linewidth": 0.6}


def fail(msg):
    sys.stderr.write(f"lbsim plot: error: {msg}\n")
    sys.exit(2)


def natural_key(s):
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", str(s))]


def read_json(p):
    try:
        with open(p) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def summary_row(s):
    f = s.get("fct_us", {})
    return {"max_fct_us": f.get("max"), "p99_fct_us": f.get("p99"), "drops": s.get("drops"),
            "trims": s.get("trims"), "ooo_pct": s.get("ooo_pct"), "retransmits": s.get("retransmits"),
            "makespan_us": s.get("makespan_us")}


def load_runs(d):
    """[(panel, scheme, seed, run_dir, summary_row)] in table order."""
    if os.path.isfile(os.path.join(d, "results.csv")):
        res = pd.read_csv(os.path.join(d, "results.csv"), dtype={"run": str})
        keys, has_case = [], "case" in res.columns
        man = os.path.join(d, "sweep.json")
        if os.path.isfile(man):
            keys = read_json(man).get("keys", [])
        swept = [k for k in keys if k != SEED_KEY and k in res.columns]
        # Scheme axes (named "scheme", or lb.* / routing.* keys) make the series; the other swept
        # axes join the case in the panel title. Without a scheme axis every axis is a series.
        scheme_keys = [k for k in swept if k == "scheme" or k.startswith(("lb.", "routing."))] or swept
        panel_keys = [k for k in swept if k not in scheme_keys]
        runs = []
        for _, r in res.iterrows():
            if r.get("status") not in ("ok", "unfinished"):
                continue
            scheme = "/".join(str(r[k]) for k in scheme_keys) or "run"
            panel = " ".join(([str(r["case"])] if has_case else []) + [str(r[k]) for k in panel_keys])
            seed = r[SEED_KEY] if SEED_KEY in res.columns else None
            row = dict(r)
            # The makespan of dependency workloads comes from the run's summary.json.
            row["makespan_us"] = read_json(os.path.join(d, r["dir"], "summary.json")).get("makespan_us")
            runs.append((panel, scheme, seed, os.path.join(d, r["dir"]), row))
        if not runs:
            fail(f"{d}/results.csv has no completed runs")
        return runs
    if os.path.isfile(os.path.join(d, "summary.json")):
        s = read_json(os.path.join(d, "summary.json"))
        return [("", s.get("load_balancer", "run"), s.get("seed"), d, summary_row(s))]
    # A compare folder: one run folder (summary.json) per load balancer / --vary value.
    subs = sorted((e for e in os.listdir(d) if os.path.isfile(os.path.join(d, e, "summary.json"))), key=natural_key)
    if subs:
        runs = []
        for e in subs:
            s = read_json(os.path.join(d, e, "summary.json"))
            runs.append(("", e, s.get("seed"), os.path.join(d, e), summary_row(s)))
        return runs
    fail(f"{d} is neither a run folder (summary.json), a compare folder (run folders inside) nor a sweep "
         "folder (results.csv)")


def scenario_title(runs):
    """'fat_tree, 32 hosts, workload permutation' from the runs' summary.json files (values that
    differ between runs joined by ' / '); '' when unknown."""
    topos, hosts, kinds = [], [], []
    for _, _, _, d, _ in runs:
        s = read_json(os.path.join(d, "summary.json"))
        for lst, v in ((topos, s.get("topology", {}).get("kind")), (hosts, s.get("topology", {}).get("hosts")),
                       (kinds, s.get("workload", {}).get("kind"))):
            if v is not None and v not in lst:
                lst.append(v)
    parts = []
    if topos:
        parts.append(" / ".join(map(str, topos)))
    if hosts:
        parts.append(" / ".join(map(str, hosts)) + " hosts")
    if kinds:
        parts.append("workload " + " / ".join(map(str, kinds)))
    return ", ".join(parts)


def dependency_panels(runs):
    """Panels whose every run has a dependency workload (summary.json has_dependencies)."""
    dep = {}
    for p, _, _, d, _ in runs:
        dep[p] = dep.get(p, True) and bool(read_json(os.path.join(d, "summary.json")).get("has_dependencies", False))
    return {p for p, v in dep.items() if v}


def read_csv(run_dir, name):
    p = os.path.join(run_dir, name)
    if not os.path.isfile(p):
        return None
    try:
        return pd.read_csv(p)
    except pd.errors.ParserError:
        return read_loose_csv(p)


def read_loose_csv(p):
    """Node labels such as Slim Fly's sw(0,1,2) may hold unquoted commas: keep the columns up to the
    first *_label column from the left and those after the last one from the right."""
    import csv
    with open(p, newline="") as f:
        rows = list(csv.reader(f))
    head = rows[0]
    labels = [i for i, h in enumerate(head) if h.endswith("_label")]
    first, last = (labels[0], labels[-1]) if labels else (len(head), -1)
    tail = len(head) - last - 1
    data = []
    for r in rows[1:]:
        if len(r) == len(head):
            data.append(r)
            continue
        data.append(r[:first] + [""] * (last - first + 1) + (r[-tail:] if tail else []))
    return pd.DataFrame(data, columns=head).apply(pd.to_numeric, errors="ignore")


def panels_of(runs):
    out = []
    for p, *_ in runs:
        if p not in out:
            out.append(p)
    return out


def schemes_of(runs, panel):
    out = []
    for p, s, *_ in runs:
        if p == panel and s not in out:
            out.append(s)
    return out


def grid(n, w=4.6, h=3.5):
    cols = min(n, 3)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(w * cols, h * rows), squeeze=False)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig, list(axes.flat[:n])


# ---- figure finishing: title, legend outside the axes, y from 0 --------------------------------------

SCENARIO = ""  # the figure title (scenario_title), set by main


def data_y_range(ax):
    """(smallest, largest) y value drawn in ax (lines and bars), None when nothing is drawn."""
    ys = []
    for ln in ax.get_lines():
        ys.extend(float(y) for y in ln.get_ydata() if y == y)
    for p in ax.patches:
        if hasattr(p, "get_height"):
            ys.extend([p.get_y(), p.get_y() + p.get_height()])
    return (min(ys), max(ys)) if ys else None


def floor_y_at_zero(ax):
    """Linear y axes whose data are all >= 0 start at 0; an all-zero panel shows 0..1 (matplotlib
    would show -0.055..0.055)."""
    if ax.get_yscale() != "linear":
        return
    r = data_y_range(ax)
    if r is None or r[0] < 0:
        return
    if r[1] == 0:
        ax.set_ylim(0, 1)
    elif ax.get_ylim()[0] < 0:
        ax.set_ylim(bottom=0)


def legend_outside(fig):
    """One legend for the figure, right of every axes: handles of all axes, one per label."""
    handles, labels = [], []
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in labels and not lab.startswith("_"):
                handles.append(h)
                labels.append(lab)
    if not handles:
        return None
    return fig.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.0, 0.98), borderaxespad=0.3,
                      frameon=False)


def finish(fig):
    """Title, tight layout, y floors and the legend outside the axes (before saving)."""
    for ax in fig.axes:
        if ax.get_visible():
            floor_y_at_zero(ax)
    if SCENARIO:  # wrapped to the figure's width (about 10 characters per inch at 13 pt)
        import textwrap
        fig.suptitle("\n".join(textwrap.wrap(SCENARIO, max(30, int(fig.get_figwidth() * 10)))))
    fig.tight_layout()
    legend_outside(fig)


def layout(fig):
    """Display-space boxes (x0, y0, x1, y1) of the figure's legends and visible axes (tests)."""
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    box = lambda a: tuple(a.get_window_extent(r).extents)  # noqa: E731
    return {"legends": [box(lg) for lg in fig.legends], "axes": [box(a) for a in fig.axes if a.get_visible()]}


def save(fig, out, name, formats, written):
    finish(fig)
    for fmt in formats:
        path = os.path.join(out, f"{name}.{fmt}")
        fig.savefig(path, dpi=DPI, bbox_inches="tight")
        written.append(path)
    if KEEP_FIGURES is not None:
        KEEP_FIGURES.append((name, fig))
    else:
        plt.close(fig)


# ---- FCT ----------------------------------------------------------------------------------------------

def transfers(runs, panel, scheme):
    """Completed transfers of every seed of (panel, scheme), one frame (flows.csv columns); its
    attrs hold "total" (every transfer, completed or not) and "status" (the summary.json statuses
    other than completed: interrupted, watchdog, stalled, unfinished)."""
    frames, total, status = [], 0, set()
    for p, s, _, d, _ in runs:
        if p == panel and s == scheme:
            f = read_csv(d, "flows.csv")
            if f is not None:
                t = f[f["kind"] == "transfer"]
                total += len(t)
                frames.append(t[t["finished"] == 1])
            st = read_json(os.path.join(d, "summary.json")).get("status", "completed")
            if st != "completed":
                status.add(st)
    if not frames:
        return None
    out = pd.concat(frames)
    out.attrs["total"] = total
    out.attrs["status"] = sorted(status)
    return out


def series_label(scheme, f):
    """The scheme, and for a run that stopped early how many transfers completed and why:
    'ecmp (5/32 completed, interrupted)'."""
    if f is None:
        return scheme
    total, status = f.attrs.get("total", len(f)), f.attrs.get("status", [])
    if len(f) >= total and not status:
        return scheme
    return f"{scheme} ({len(f)}/{total} completed" + (", " + "/".join(status) if status else "") + ")"


def cdf(ax, values, scheme, total=None, label=None):
    """The CDF over `total` transfers (default: the values): transfers that did not complete never
    reach the curve, which then ends below 1 at completed / total."""
    v = sorted(values)
    if not v:
        return
    n = max(total or len(v), len(v))
    ax.plot(v, [(i + 1) / n for i in range(len(v))], label=label or scheme, drawstyle="steps-post",
            markevery=0.1, markersize=5, **line_style(scheme))


def cdf_axes(ax, xlabel, title, values):
    ax.set_xlabel(xlabel)
    ax.set_ylabel("CDF")
    ax.set_ylim(0, 1.02)
    if values and min(values) > 0:
        ax.set_xscale("log")
        label_log_axis(ax.xaxis, min(values), max(values))
    ax.set_title(title)
    ax.grid(alpha=0.3, which="both")


def plot_fct(runs, out, formats, written):
    panels = panels_of(runs)
    data = {(p, s): transfers(runs, p, s) for p in panels for s in schemes_of(runs, p)}
    if not any(f is not None and len(f) for f in data.values()):
        return
    for col, name, xlabel, title in (("fct_us", "fct_cdf", "FCT (us, log)", "FCT CDF"),
                                     ("slowdown", "slowdown_cdf", "slowdown (FCT / ideal FCT, log)", "slowdown CDF")):
        fig, axes = grid(len(panels))
        for ax, p in zip(axes, panels):
            allv = []
            for s in schemes_of(runs, p):
                f = data[(p, s)]
                if f is not None and col in f.columns:
                    v = f[col].dropna().tolist()
                    cdf(ax, v, s, f.attrs.get("total"), series_label(s, f))
                    allv += v
            cdf_axes(ax, xlabel, p or title, allv)
        save(fig, out, name, formats, written)

    # Per-tag CDFs: one panel per (panel, tag) when a run has two or more tags that are not
    # collective steps (e.g. incast and bystander, [Spritz] Fig. 8).
    cells = []
    for p in panels:
        tags = set()
        for s in schemes_of(runs, p):
            f = data[(p, s)]
            if f is not None:
                tags |= {str(t) for t in f["tag"].unique()}
        tags = sorted((t for t in tags if tag_key(t)[0] == 1), key=tag_key)
        if len(tags) >= 2:
            cells += [(p, t) for t in tags]
    if cells:
        fig, axes = grid(len(cells))
        for ax, (p, t) in zip(axes, cells):
            allv = []
            for s in schemes_of(runs, p):
                f = data[(p, s)]
                if f is not None:
                    v = f[f["tag"].astype(str) == t]["fct_us"].tolist()
                    cdf(ax, v, s)
                    allv += v
            cdf_axes(ax, "FCT (us, log)", f"{p} tag {t}".strip(), allv)
        save(fig, out, "fct_cdf_by_tag", formats, written)

    fig, axes = grid(len(panels))
    for ax, p in zip(axes, panels):
        ss = [s for s in schemes_of(runs, p) if data[(p, s)] is not None and len(data[(p, s)])]
        if ss:
            parts = ax.violinplot([data[(p, s)]["fct_us"].tolist() for s in ss], showmedians=True, showextrema=True)
            for body, s in zip(parts["bodies"], ss):
                st = bar_style(s)
                body.set_facecolor(st["color"])
                body.set_hatch(st["hatch"])
                body.set_edgecolor("black")
                body.set_label(s)
            ax.set_xticks(range(1, len(ss) + 1))
            ax.set_xticklabels(ss, rotation=30, ha="right")
        ax.set_ylabel("FCT (us)")
        ax.set_title(p or "FCT distribution")
        ax.grid(alpha=0.3, axis="y")
    save(fig, out, "fct_violin", formats, written)


def stat(runs, panel, scheme, col):
    v = [float(r[col]) for p, s, _, _, r in runs
         if p == panel and s == scheme and r.get(col) is not None and pd.notna(r[col])]
    if not v:
        return 0.0, 0.0, 0.0
    m = sum(v) / len(v)
    return m, m - min(v), max(v) - m


COLUMN_STYLES = [{"color": "white", "hatch": "", "edgecolor": "black"},
                 {"color": "0.55", "hatch": "//", "edgecolor": "black"}]


def bars(ax, runs, panel, cols, labels, ylabel):
    """One bar per scheme (its style) for one column; several columns: one group per scheme, one
    greyscale fill and hatch per column."""
    ss = schemes_of(runs, panel)
    width = 0.8 / len(cols)
    for j, (c, lab) in enumerate(zip(cols, labels)):
        st = [stat(runs, panel, s, c) for s in ss]
        xs = [i + (j - (len(cols) - 1) / 2) * width for i in range(len(ss))]
        err = [[lo for _, lo, _ in st], [hi for _, _, hi in st]]
        if len(cols) == 1:
            for x, s, (m, lo, hi) in zip(xs, ss, st):
                ax.bar([x], [m], width, yerr=[[lo], [hi]], capsize=3, label=s, **bar_style(s))
        else:
            ax.bar(xs, [m for m, _, _ in st], width, yerr=err, capsize=3, label=lab, linewidth=0.6,
                   **COLUMN_STYLES[j % len(COLUMN_STYLES)])
    ax.set_xticks(range(len(ss)))
    ax.set_xticklabels(ss, rotation=30, ha="right")
    ax.set_ylabel(ylabel)
    ax.set_title(panel)
    ax.grid(alpha=0.3, axis="y")


def plot_bars(runs, out, formats, written, dep_panels=()):
    """fct_bars for the panels without dependencies, makespan for those with, drops_ooo for all."""
    for name, sel in (("fct_bars", [r for r in runs if r[0] not in dep_panels]),
                      ("makespan", [r for r in runs if r[0] in dep_panels])):
        if not sel:
            continue
        ps = panels_of(sel)
        fig, axes = grid(len(ps))
        for ax, p in zip(axes, ps):
            if name == "makespan":
                bars(ax, sel, p, ["makespan_us"], ["makespan"], "makespan (us)")
                ax.set_title(p or "workload completion time")
            else:
                bars(ax, sel, p, ["max_fct_us", "p99_fct_us"], ["max FCT", "p99 FCT"], "FCT (us)")
        save(fig, out, name, formats, written)

    panels = panels_of(runs)
    fig, axes = plt.subplots(3, len(panels), figsize=(4.6 * len(panels), 9.5), squeeze=False)
    for j, p in enumerate(panels):
        bars(axes[0][j], runs, p, ["drops"], ["drops"], "dropped packets")
        bars(axes[1][j], runs, p, ["trims"], ["trims"], "trimmed packets")
        bars(axes[2][j], runs, p, ["ooo_pct"], ["out-of-order"], "out-of-order (%)")
    save(fig, out, "drops_ooo", formats, written)


# ---- queues -------------------------------------------------------------------------------------------

def first_run(runs, panel, scheme):
    for p, s, _, d, _ in runs:
        if p == panel and s == scheme:
            return d
    return None


def queue_sample_us(run_dir):
    """output.queue_sample_us of the run's config.toml (None when unknown)."""
    p = os.path.join(run_dir, "config.toml")
    if not os.path.isfile(p):
        return None
    try:
        import tomllib
        with open(p, "rb") as f:
            v = tomllib.load(f).get("output", {}).get("queue_sample_us")
    except Exception:  # noqa: BLE001 - older Python or an unreadable file: fall back to the samples
        return None
    return float(v) if v else None


def sample_times(step, end_us, seen=()):
    """Every sample time of a run: multiples of step from 0 up to end_us, rounded as queues.csv
    writes them (3 decimals), with any time seen in the file added."""
    t = set(round(t, 3) for t in seen)
    if step and step > 0 and end_us is not None:
        n = int(math.floor(end_us / step + 1e-9))
        t |= {round(k * step, 3) for k in range(n + 1)}
    return sorted(t)


def port_series(q, times, node_label=None, port=None):
    """Data-queue bytes over `times` of the rows of q matching node_label / port (None: every row),
    summed per sample; a sample without a row (sparse queues.csv: empty queue) is 0."""
    rows = q
    if node_label is not None:
        rows = rows[rows["node_label"].astype(str) == str(node_label)]
    if port is not None:
        rows = rows[rows["port"] == int(port)]
    g = rows.groupby(rows["time_us"].round(3))["data_bytes"].sum()
    return g.reindex(times, fill_value=0).astype(float)


def run_queues(run_dir):
    """(queues frame with a node_label column, sample times) of a run, or None."""
    q = read_csv(run_dir, "queues.csv")
    if q is None or not len(q):
        return None
    if "node_label" not in q.columns:
        q = q.assign(node_label=q["node"].astype(str), peer_label=q["peer"].astype(str))
    q = q.assign(node_label=q["node_label"].astype(str), peer_label=q["peer_label"].astype(str))
    s = read_json(os.path.join(run_dir, "summary.json"))
    end = s.get("end_time_us", s.get("sim_time_us"))
    step = queue_sample_us(run_dir)
    if step is None:  # no config.toml: the smallest gap between samples
        t = sorted(q["time_us"].round(3).unique())
        step = min((b - a for a, b in zip(t, t[1:])), default=0)
    return q, sample_times(step, end if end is not None else q["time_us"].max(), q["time_us"].unique())


def parse_ports(spec):
    """'tor0:6,spine2' -> [('tor0', 6), ('spine2', None)]."""
    out = []
    for item in (x.strip() for x in spec.split(",")):
        if not item:
            continue
        label, _, port = item.rpartition(":") if re.search(r":\d+$", item) else (item, "", "")
        if not port:
            out.append((item, None))
        else:
            out.append((label, int(port)))
    if not out:
        fail("--ports: expected LABEL[:PORT],... (e.g. tor0:6,spine2)")
    return out


def degraded_ports(run_dirs):
    """(node_label, port) of the switch ports slower than the fastest port of their link kind in
    ports.csv (e.g. the degraded ToR uplink of [REPS] Fig. 4), in ports.csv order."""
    out = []
    for d in run_dirs:
        f = read_csv(d, "ports.csv")
        if f is None or not len(f) or "rate_gbps" not in f.columns:
            continue
        fastest = f.groupby("link_kind")["rate_gbps"].transform("max")
        slow = f[(f["rate_gbps"] < fastest) & (f["link_kind"] != "host")]
        for n, p in zip(slow["node_label"].astype(str), slow["port"]):
            if (n, int(p)) not in out:
                out.append((n, int(p)))
    return out


def pick_ports(queues, spec, top, degraded=()):
    """The (node_label, port, peer_label) panels of queue_ports: those of spec ('degraded' stands for
    the degraded switch ports), else the degraded ports followed by the ports with the most queued
    byte-samples over every scheme, `top` in all."""
    allq = pd.concat([q for q, _ in queues])
    peers = allq.groupby(["node_label", "port"])["peer_label"].first()
    if spec:
        chosen = []
        for label, port in spec:
            if label == "degraded" and port is None:
                keys = [k for k in degraded if k in peers.index]
                if not degraded:
                    fail("--ports degraded: no port in ports.csv is slower than the others of its link kind")
            else:
                keys = [k for k in peers.index if k[0] == label and (port is None or k[1] == port)]
            if port is None and label != "degraded":  # every port of the node that queued something
                busy = allq[allq["node_label"] == label].groupby("port")["data_bytes"].sum()
                keys = [k for k in keys if busy.get(k[1], 0) > 0] or keys[:1]
            if not keys and label != "degraded":
                known = sorted(set(allq["node_label"]), key=natural_key)
                fail(f"--ports: no switch port '{label}{'' if port is None else f':{port}'}' in queues.csv "
                     f"(labels: {', '.join(known[:12])}{', ...' if len(known) > 12 else ''})")
            chosen += [k for k in keys if k not in chosen]
        return [(n, p, peers[(n, p)]) for n, p in chosen]
    tot = allq.groupby(["node_label", "port"])["data_bytes"].sum().sort_values(ascending=False, kind="stable")
    chosen = [k for k in degraded if k in peers.index][:top]
    chosen += [k for k in tot.index if k not in chosen][:top - len(chosen)]
    return [(n, p, peers[(n, p)]) for (n, p) in chosen]


def plot_queues(runs, out, formats, written, ports_spec=None, top=4):
    panels = panels_of(runs)
    queues = {}
    for p in panels:
        for s in schemes_of(runs, p):
            r = run_queues(first_run(runs, p, s))
            if r is not None:
                queues[(p, s)] = r
    if not queues:
        if ports_spec:
            fail("--ports: no queues.csv in this folder (run with output.queue_sample_us > 0)")
        return
    fig, axes = plt.subplots(2, len(panels), figsize=(5.2 * len(panels), 7.0), squeeze=False)
    for j, p in enumerate(panels):
        for s in schemes_of(runs, p):
            if (p, s) in queues:
                q, times = queues[(p, s)]
                per = q.assign(t=q["time_us"].round(3)).groupby("t")["data_bytes"]
                tot = per.sum().reindex(times, fill_value=0)
                mx = per.max().reindex(times, fill_value=0)
                kw = dict(label=s, markevery=0.1, markersize=5, **line_style(s))
                axes[0][j].plot(tot.index, tot / 1024, **kw)
                axes[1][j].plot(mx.index, mx / 1024, **kw)
        axes[0][j].set_ylabel("queued, all switch ports (KiB)")
        axes[1][j].set_ylabel("largest port queue (KiB)")
        axes[1][j].set_xlabel("time (us)")
        axes[0][j].set_title(p or "switch queues (first seed)")
        for a in (axes[0][j], axes[1][j]):
            a.grid(alpha=0.3)
    save(fig, out, "queues", formats, written)

    degraded = degraded_ports([first_run(runs, p, s) for p, s in queues])
    chosen = pick_ports(list(queues.values()), ports_spec, top, degraded)
    if not chosen:
        return
    cells = [(p, c) for p in panels for c in chosen]
    fig, axes = grid(len(cells))
    for ax, (p, (label, port, peer)) in zip(axes, cells):
        for s in schemes_of(runs, p):
            if (p, s) in queues:
                q, times = queues[(p, s)]
                ser = port_series(q, times, label, port)
                ax.plot(ser.index, ser / 1024, label=s, markevery=0.1, markersize=5, **line_style(s))
        slow = " (degraded)" if (label, port) in degraded else ""
        ax.set_title(f"{p + ': ' if p else ''}{label} port {port} -> {peer}{slow}")
        ax.set_xlabel("time (us)")
        ax.set_ylabel("data queue (KiB)")
        ax.grid(alpha=0.3)
    save(fig, out, "queue_ports", formats, written)


# ---- ports and tags -----------------------------------------------------------------------------------

def plot_ports(runs, out, formats, written):
    panels = panels_of(runs)
    util = {}
    for p in panels:
        for s in schemes_of(runs, p):
            frames = [read_csv(d, "ports.csv") for pp, ss, _, d, _ in runs if pp == p and ss == s]
            frames = [f for f in frames if f is not None]
            if frames:
                f = pd.concat(frames)
                util[(p, s)] = f.groupby("link_kind")["utilization"].agg(["mean", "max"])
    if not util:
        return
    fig, axes = grid(len(panels), w=5.2)
    for ax, p in zip(axes, panels):
        ss = [s for s in schemes_of(runs, p) if (p, s) in util]
        kinds = sorted({k for s in ss for k in util[(p, s)].index})
        width = 0.8 / max(1, len(ss))
        for j, s in enumerate(ss):
            u = util[(p, s)]
            xs = [i + (j - (len(ss) - 1) / 2) * width for i in range(len(kinds))]
            ax.bar(xs, [100 * u["mean"].get(k, 0) for k in kinds], width, label=s, **bar_style(s))
        ax.set_xticks(range(len(kinds)))
        ax.set_xticklabels(kinds)
        ax.set_ylabel("mean port utilisation (%)")
        ax.set_title(p or "port utilisation")
        ax.grid(alpha=0.3, axis="y")
    save(fig, out, "ports", formats, written)


def tag_key(t):
    if t.startswith("step") and t[4:].isdigit():
        return (0, int(t[4:]), t)
    return (1, 0, t)


def plot_tags(runs, out, formats, written):
    panels = panels_of(runs)
    rows = {}
    for p in panels:
        for s in schemes_of(runs, p):
            f = transfers(runs, p, s)
            if f is None or not len(f):
                continue
            f = f.assign(tag=f["tag"].astype(str))
            if f["tag"].nunique() < 2 and not f["tag"].str.startswith("step").any():
                continue
            g = f.groupby("tag").agg(done=("finish_us", "max"), p99=("fct_us", lambda x: x.quantile(0.99)))
            rows[(p, s)] = g
    if not rows:
        return
    panels = [p for p in panels if any(pp == p for pp, _ in rows)]
    fig, axes = plt.subplots(2, len(panels), figsize=(5.2 * len(panels), 7.0), squeeze=False)
    for j, p in enumerate(panels):
        ss = [s for s in schemes_of(runs, p) if (p, s) in rows]
        tags = sorted({t for s in ss for t in rows[(p, s)].index}, key=tag_key)
        steps = [t for t in tags if tag_key(t)[0] == 0]
        others = [t for t in tags if tag_key(t)[0] == 1]
        width = 0.8 / max(1, len(ss))
        # Collective: the finish time of each step (the last one is the collective's duration).
        if steps:
            for s in ss:
                g = rows[(p, s)]
                axes[0][j].plot(range(len(steps)), [g["done"].get(t, float("nan")) for t in steps], label=s,
                                markevery=max(1, len(steps) // 10), markersize=5, **line_style(s))
            axes[0][j].set_xlabel("collective step")
            axes[0][j].set_ylabel("step finished at (us)")
        else:
            for k, s in enumerate(ss):
                g = rows[(p, s)]
                xs = [i + (k - (len(ss) - 1) / 2) * width for i in range(len(others))]
                axes[0][j].bar(xs, [g["done"].get(t, 0) for t in others], width, label=s, **bar_style(s))
            axes[0][j].set_xticks(range(len(others)))
            axes[0][j].set_xticklabels(others)
            axes[0][j].set_ylabel("tag completed at (us)")
        shown = others + (steps[-1:] if steps else [])
        for k, s in enumerate(ss):
            g = rows[(p, s)]
            xs = [i + (k - (len(ss) - 1) / 2) * width for i in range(len(shown))]
            axes[1][j].bar(xs, [g["p99"].get(t, 0) for t in shown], width, label=s, **bar_style(s))
        axes[1][j].set_xticks(range(len(shown)))
        axes[1][j].set_xticklabels(shown)
        axes[1][j].set_ylabel("p99 FCT (us)")
        axes[0][j].set_title(p or "per-tag completion")
        for a in (axes[0][j], axes[1][j]):
            a.grid(alpha=0.3)
    save(fig, out, "tags", formats, written)


def check_formats(spec):
    """'png,pdf' -> ['png', 'pdf']; exits 2 naming a format matplotlib cannot write."""
    supported = sorted(plt.figure().canvas.get_supported_filetypes())
    plt.close("all")
    formats = [f.strip().lower() for f in spec.split(",") if f.strip()]
    if not formats:
        fail(f"--formats: expected a comma-separated list of formats, e.g. png,pdf,svg (one of: {', '.join(supported)})")
    for f in formats:
        if f not in supported:
            fail(f"--formats: '{f}' is not a format matplotlib can write (one of: {', '.join(supported)})")
    return list(dict.fromkeys(formats))


def main(argv=None):
    global DPI, SCENARIO
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--out")
    ap.add_argument("--formats", default="png,pdf", help="comma-separated: png, pdf, svg, eps, ... (default png,pdf)")
    ap.add_argument("--dpi", default="150", help="resolution of raster formats (default 150)")
    ap.add_argument("--ports", default="", help="queue_ports panels: LABEL[:PORT],... (default: the busiest)")
    ap.add_argument("--top-ports", default="4", help="queue_ports without --ports: this many busiest ports")
    a = ap.parse_args(argv)
    formats = check_formats(a.formats)
    try:
        DPI = int(a.dpi)
        top = int(a.top_ports)
    except ValueError:
        fail(f"--dpi / --top-ports: expected a positive integer, got '{a.dpi}' / '{a.top_ports}'")
    if DPI < 1 or DPI > 4800:
        fail(f"--dpi: expected 1..4800, got {DPI}")
    if top < 1:
        fail(f"--top-ports: expected a positive integer, got {top}")
    ports_spec = parse_ports(a.ports) if a.ports.strip() else None
    if not os.path.isdir(a.dir):
        fail(f"'{a.dir}' is not a folder")
    out = a.out or os.path.join(a.dir, "plots")
    os.makedirs(out, exist_ok=True)
    written = []
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import plot_balls

    if os.path.isfile(os.path.join(a.dir, "balls.json")):
        plot_balls.plot(a.dir, out, formats, written, save)
    else:
        runs = load_runs(a.dir)
        SCENARIO = scenario_title(runs)
        # Dependency workloads (collectives, GOAL, triggered .cm): the makespan, not per-message FCTs.
        dep = dependency_panels(runs)
        fct_runs = [r for r in runs if r[0] not in dep]
        if fct_runs:
            plot_fct(fct_runs, out, formats, written)
        plot_bars(runs, out, formats, written, dep)
        plot_queues(runs, out, formats, written, ports_spec, top)
        plot_ports(runs, out, formats, written)
        plot_tags(runs, out, formats, written)
        plot_balls.plot_ev_bits_sweep(a.dir, out, formats, written, save)  # [REPS] Fig. 15 (left)
    for w in written:
        print(w)
    print(f"lbsim plot: {len(written)} file(s) in {out}")


if __name__ == "__main__":
    main()
