#!/usr/bin/python3
"""One self-contained HTML report of an lbsim folder. Called by `lbsim report`.

    /usr/bin/python3 tools/report.py DIR [--out FILE]

DIR is a run folder (summary.json), a `lbsim compare` folder (one run folder per value), a sweep
folder (results.csv, sweep.json) or a `lbsim reproduce` folder (a sweep folder with the entry's
reproduce.json and paper.txt, or an analysis folder with report.txt). The report (default
DIR/report.html) holds the scenario (topology, workload, key parameters, the keys that differ between
runs), the tables (one row per scheme / value, per entry tag), the figures inline as SVG (no file or
network access needed to view it) and, for reproduce folders, the paper's statements beside our
numbers. Figures use line styles and markers as well as colours (readable in greyscale).

Uses Debian's python3-matplotlib and python3-pandas (scripts/install-deps.sh).
"""
import argparse
import html
import io
import json
import os
import re
import sys

try:
    import tomllib
except ImportError:  # pragma: no cover - Python < 3.11
    tomllib = None

try:
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.fonttype"] = "none"  # text stays text (smaller, searchable)
    matplotlib.rcParams["svg.hashsalt"] = "lbsim"  # stable element ids: same folder, same report
    import matplotlib.pyplot as plt
    import matplotlib.ticker
    import pandas as pd
except ImportError as e:  # pragma: no cover - depends on the machine
    sys.stderr.write(f"lbsim report: needs python3-matplotlib and python3-pandas ({e}); "
                     "install them with scripts/install-deps.sh\n")
    sys.exit(2)

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from log_axis import label_log_axis  # noqa: E402  (tools/log_axis.py)

STYLES = [("-", "o"), ("--", "s"), (":", "^"), ("-.", "D"), ((0, (5, 1, 1, 1)), "v"), ((0, (1, 1)), "x")]
SCENARIO_KEYS = ["topology.kind", "topology.hosts", "topology.tiers", "topology.radix", "topology.q",
                 "topology.h", "network.link_rate_gbps", "network.mtu", "network.queue_bdp", "network.trimming",
                 "network.flow_control", "workload.kind", "workload.size", "workload.load", "lb.algorithm",
                 "routing.algorithm", "transport.cc", "run.seed", "run.end_us"]


def fail(msg):
    sys.stderr.write(f"lbsim report: error: {msg}\n")
    sys.exit(2)


def esc(x):
    return html.escape(str(x))


def read_config(run_dir):
    p = os.path.join(run_dir, "config.toml")
    if tomllib is None or not os.path.isfile(p):
        return {}
    with open(p, "rb") as f:
        t = tomllib.load(f)
    flat = {}
    for sec, kv in t.items():
        if isinstance(kv, dict):
            for k, v in kv.items():
                flat[f"{sec}.{k}"] = v
    return flat


def read_summary(run_dir):
    with open(os.path.join(run_dir, "summary.json")) as f:
        return json.load(f)


def read_csv(run_dir, name):
    p = os.path.join(run_dir, name)
    if not os.path.isfile(p):
        return None
    try:
        return pd.read_csv(p, keep_default_na=False, na_values=[""])
    except pd.errors.ParserError:
        return None


MISSING = "-"  # a statistic over no transfer (null in summary.json, empty in results.csv): never 0


def fmt_num(v):
    if isinstance(v, bool):
        return str(v)
    if v is None:
        return MISSING
    if isinstance(v, float):
        if v != v:
            return MISSING
        if v.is_integer() and abs(v) < 1e15:
            return str(int(v))  # counts (and their means over seeds when whole): 600, not 600.000
        return f"{v:.3f}" if abs(v) < 1000 else f"{v:.1f}"
    return str(v)


def table(rows, columns, caption=""):
    out = ["<table>"]
    if caption:
        out.append(f"<caption>{esc(caption)}</caption>")
    out.append("<tr>" + "".join(f"<th>{esc(c)}</th>" for c in columns) + "</tr>")
    for r in rows:
        out.append("<tr>" + "".join(f"<td>{esc(fmt_num(r.get(c)))}</td>" for c in columns) + "</tr>")
    out.append("</table>")
    return "\n".join(out)


class Figures:
    def __init__(self):
        self.items = []

    def add(self, fig, caption):
        buf = io.StringIO()
        fig.savefig(buf, format="svg", bbox_inches="tight")
        plt.close(fig)
        svg = buf.getvalue()
        svg = svg[svg.index("<svg"):]  # drop the XML prologue and doctype: inline SVG in HTML5
        n = len(self.items) + 1
        self.items.append(f'<figure class="fig" id="fig{n}">{svg}<figcaption>Figure {n}. {esc(caption)}</figcaption></figure>')


def style_axes(ax, title, xlabel, ylabel):
    ax.set_title(title, fontsize=12)
    ax.set_xlabel(xlabel, fontsize=11)
    ax.set_ylabel(ylabel, fontsize=11)
    ax.tick_params(labelsize=10)
    ax.grid(True, alpha=0.3)


def cdf_figure(figs, series, column, title, xlabel, log=False):
    """series: [(name, flows DataFrame)]; one line per series with its own style. The fraction is of
    every transfer of the run: one that did not complete never reaches the curve, which then ends
    below 1 (at completed / transfers), and the legend says how many completed."""
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    drawn, lo, hi, partial = 0, None, None, False
    for i, (name, fl) in enumerate(series):
        if fl is None or column not in fl:
            continue
        tr = fl[fl["kind"] == "transfer"] if "kind" in fl else fl
        v = tr[tr[column] >= 0][column].dropna().sort_values()
        if v.empty:
            continue
        n = max(len(tr), len(v))
        y = [(k + 1) / n for k in range(len(v))]
        label = str(name) if len(v) == n else f"{name} ({len(v)}/{n} completed)"
        partial = partial or len(v) < n
        ls, mk = STYLES[i % len(STYLES)]
        ax.plot(v.values, y, linestyle=ls, marker=mk, markevery=max(1, len(v) // 8), label=label, linewidth=1.6)
        lo = v.iloc[0] if lo is None else min(lo, v.iloc[0])
        hi = v.iloc[-1] if hi is None else max(hi, v.iloc[-1])
        drawn += 1
    if drawn == 0:
        plt.close(fig)
        return
    if log and lo > 0:
        ax.set_xscale("log")
        label_log_axis(ax.xaxis, lo, hi)  # labelled ticks (2, 3, 4 on a slowdown axis), plain numbers
    ax.set_ylim(0, 1.02)
    style_axes(ax, title, xlabel, "fraction of transfers")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=10, frameon=False)
    figs.add(fig, f"{title}: cumulative distribution over every transfer" +
             ("; runs that stopped early end below 1 (their completed transfers only)." if partial else "."))


def bar_figure(figs, names, values, errs, ylabel, title):
    fig, ax = plt.subplots(figsize=(max(4.5, 1.1 * len(names) + 2), 3.8))
    hatches = ["", "//", "..", "xx", "\\\\", "oo"]
    x = range(len(names))
    bars = ax.bar(x, [max(0.0, v) for v in values], yerr=errs, capsize=4, color="0.75", edgecolor="black")
    for b, h in zip(bars, hatches * (len(names) // len(hatches) + 1)):
        b.set_hatch(h)
    ax.set_xticks(list(x))
    ax.set_xticklabels([str(n) for n in names], rotation=20, ha="right", fontsize=10)
    ax.set_ylim(bottom=0)
    style_axes(ax, title, "", ylabel)
    figs.add(fig, title + ".")


def queue_figure(figs, runs_q, title):
    """runs_q: [(name, queues DataFrame, sample period in us)]: total data bytes queued over time. A
    sample time without a row is a sample at which every queue was empty: drawn as zero."""
    fig, ax = plt.subplots(figsize=(7.5, 3.8))
    drawn = 0
    for i, (name, q, dt) in enumerate(runs_q):
        if q is None or q.empty or "time_us" not in q:
            continue
        tot = q.groupby("time_us")["data_bytes"].sum()
        if dt and dt > 0:
            n = int(round(tot.index.max() / dt)) + 1
            grid = [round(k * dt, 6) for k in range(n + 1)]
            tot = tot.reindex(sorted(set(grid) | set(tot.index)), fill_value=0)
        ls, mk = STYLES[i % len(STYLES)]
        ax.plot(tot.index.values, tot.values / 1024.0, linestyle=ls, marker=mk, markevery=max(1, len(tot) // 8),
                label=str(name), linewidth=1.4)
        drawn += 1
    if drawn == 0:
        plt.close(fig)
        return
    ax.set_ylim(bottom=0)
    style_axes(ax, title, "time (us)", "KiB queued (all switch ports)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=10, frameon=False)
    figs.add(fig, title + " (empty samples drawn as zero).")


def scenario_html(cfg, summary, differing=None):
    topo = summary.get("topology", {})
    wl = summary.get("workload", {})
    lines = [f"<p><b>Topology</b>: {esc(topo.get('kind', cfg.get('topology.kind', '?')))}, {esc(topo.get('hosts', '?'))} hosts, "
             f"{esc(topo.get('switches', '?'))} switches, {esc(topo.get('links', '?'))} links. "
             f"<b>Workload</b>: {esc(wl.get('kind', cfg.get('workload.kind', '?')))}, {esc(wl.get('transfers', '?'))} transfers"
             f" ({esc(wl.get('entries', '?'))} entries).</p>"]
    kind = cfg.get("topology.kind", topo.get("kind", ""))
    other = {"fat_tree": ("topology.q", "topology.h"), "slim_fly": ("topology.tiers", "topology.radix", "topology.h"),
             "dragonfly": ("topology.tiers", "topology.q", "topology.radix")}.get(kind, ())
    rows = [{"key": k, "value": cfg[k]} for k in SCENARIO_KEYS if k in cfg and k not in other]
    d = summary.get("derived", {})
    for k in ("base_rtt_us", "bdp_bytes", "queue_bytes", "rto_us"):
        if k in d:
            rows.append({"key": f"derived.{k}", "value": d[k]})
    lines.append(table(rows, ["key", "value"], "Key parameters (config.toml of the run; derived values from summary.json)"))
    if differing:
        lines.append(table(differing, ["run"] + sorted({k for r in differing for k in r if k != "run"}),
                           "Keys that differ between the runs"))
    return "\n".join(lines)


STATUS_WORDS = {"interrupted": "interrupted (SIGINT/SIGTERM)",
                "watchdog": "stopped by the no-progress watchdog (run.watchdog_us)",
                "stalled": "stalled (a lossless deadlock)", "unfinished": "unfinished at run.end_us"}


def run_status(s):
    """summary.json status ('completed', 'unfinished', 'watchdog', 'stalled', 'interrupted'); folders
    written before the field existed: from interrupted / unfinished."""
    if "status" in s:
        return s["status"]
    if s.get("interrupted"):
        return "interrupted"
    if "watchdog" in s:
        return "watchdog"
    return "unfinished" if s.get("unfinished") else "completed"


def status_html(runs_summaries):
    """A warning paragraph per run that did not complete: what stopped it, when, and how many
    transfers completed (every statistic and figure covers those only)."""
    out = []
    for name, s in runs_summaries:
        st = run_status(s)
        if st == "completed":
            continue
        out.append(f'<p class="status"><b>{esc(name)}: {esc(STATUS_WORDS.get(st, st))}</b>, t = '
                   f"{esc(fmt_num(s.get('end_time_us')))} us: {esc(s.get('completed'))} of "
                   f"{esc(s.get('workload', {}).get('transfers'))} transfers completed. Its FCT statistics and "
                   "figures cover those transfers only; a statistic over none is shown as "
                   f"&ldquo;{MISSING}&rdquo;.</p>")
    return "\n".join(out)


def summary_row(name, s):
    f, sd = s.get("fct_us", {}), s.get("slowdown", {})
    return {"run": name, "status": run_status(s),
            "completed": f"{s.get('completed')}/{s.get('workload', {}).get('transfers')}",
            "max_fct_us": f.get("max"), "p99_fct_us": f.get("p99"), "p50_fct_us": f.get("p50"),
            "mean_fct_us": f.get("mean"), "mean_slowdown": sd.get("mean"), "drops": s.get("drops"),
            "failure_drops": s.get("failure_drops"), "no_route_drops": s.get("no_route_drops"),
            "ttl_drops": s.get("ttl_drops"), "trims": s.get("trims"), "retransmits": s.get("retransmits"), "timeouts": s.get("timeouts"),
            "ooo_pct": s.get("ooo_pct")}


SUMMARY_COLS = ["run", "status", "completed", "max_fct_us", "p99_fct_us", "p50_fct_us", "mean_fct_us", "mean_slowdown",
                "drops", "failure_drops", "no_route_drops", "ttl_drops", "trims", "retransmits", "timeouts", "ooo_pct"]


def tag_rows(name, s):
    out = []
    for tag, d in sorted(s.get("fct_us_by_tag", {}).items()):
        out.append({"run": name, "tag": tag, "count": d.get("count"), "max_fct_us": d.get("max"),
                    "p99_fct_us": d.get("p99"), "p50_fct_us": d.get("p50"), "mean_fct_us": d.get("mean")})
    return out


TAG_COLS = ["run", "tag", "count", "max_fct_us", "p99_fct_us", "p50_fct_us", "mean_fct_us"]


def runs_section(runs, figs, title_prefix):
    """runs: [(name, run_dir)]: tables per run and per tag, FCT/slowdown CDFs, bars, queues."""
    parts = []
    sums = [(n, read_summary(d)) for n, d in runs]
    if status_html(sums):
        parts.append(status_html(sums))
    parts.append(table([summary_row(n, s) for n, s in sums], SUMMARY_COLS, "Per run (summary.json; times in us)"))
    tags = [r for n, s in sums for r in tag_rows(n, s)]
    if tags:
        parts.append(table(tags, TAG_COLS, "Per entry tag (FCT of completed transfers, us)"))
    flows = [(n, read_csv(d, "flows.csv")) for n, d in runs]
    cdf_figure(figs, flows, "fct_us", f"{title_prefix}FCT", "flow completion time (us)")
    cdf_figure(figs, flows, "slowdown", f"{title_prefix}slowdown", "FCT / ideal FCT (log scale)", log=True)
    if len(sums) > 1:
        have = [(n, s.get("fct_us", {}).get("max")) for n, s in sums]
        have = [(n, v) for n, v in have if v is not None]  # a run with no completed transfer has no bar
        if have:
            bar_figure(figs, [n for n, _ in have], [v for _, v in have], None, "max FCT (us)",
                       f"{title_prefix}max FCT per run")
    queue_figure(figs, [(n, read_csv(d, "queues.csv"), read_config(d).get("output.queue_sample_us")) for n, d in runs],
                 f"{title_prefix}switch queues")
    return "\n".join(parts)


def differing_keys(runs):
    cfgs = [(n, read_config(d)) for n, d in runs]
    if len(cfgs) < 2:
        return []
    keys = set().union(*[set(c) for _, c in cfgs])
    diff = sorted(k for k in keys if k != "output.dir" and len({json.dumps(c.get(k), sort_keys=True) for _, c in cfgs}) > 1)
    return [dict({"run": n}, **{k: c.get(k, "") for k in diff}) for n, c in cfgs] if diff else []


def sweep_section(d, figs):
    res = pd.read_csv(os.path.join(d, "results.csv"), dtype={"run": str}, keep_default_na=False, na_values=["", "-1"])
    man = {}
    if os.path.isfile(os.path.join(d, "sweep.json")):
        with open(os.path.join(d, "sweep.json")) as f:
            man = json.load(f)
    keys = [k for k in man.get("keys", []) if k in res.columns]
    group_keys = (["case"] if "case" in res.columns else []) + [k for k in keys if k != "run.seed"]
    parts = [f"<p>{len(res)} point(s); swept: {esc(', '.join(keys) or 'nothing')}; status: "
             f"{esc(', '.join(f'{k} {v}' for k, v in res['status'].value_counts().items()))}.</p>"]
    metrics = [c for c in ("max_fct_us", "p99_fct_us", "mean_fct_us", "mean_slowdown", "drops", "trims", "ooo_pct")
               if c in res.columns]
    ok = res[res["status"].isin(["ok", "unfinished"])]
    if group_keys and not ok.empty:
        g = ok.groupby(group_keys, sort=False)[metrics].mean(numeric_only=True).reset_index()
        g.insert(len(group_keys), "runs", ok.groupby(group_keys, sort=False).size().values)
        rows = [{c: r[c] for c in g.columns} for _, r in g.iterrows()]
        parts.append(table(rows, list(g.columns), "Per scheme / value (mean over seeds)"))
        names = ["/".join(str(r[k]) for k in group_keys) for r in rows]
        if "max_fct_us" in g:
            err = None
            if len(ok) > len(g):
                mn = ok.groupby(group_keys, sort=False)["max_fct_us"].min().values
                mx = ok.groupby(group_keys, sort=False)["max_fct_us"].max().values
                err = [g["max_fct_us"].values - mn, mx - g["max_fct_us"].values]
            bar_figure(figs, names, list(g["max_fct_us"].fillna(0).values), err, "max FCT (us)",
                       "Max FCT per scheme (mean over seeds, whiskers min..max)")
    cols = ["run"] + (["case"] if "case" in res.columns else []) + keys + ["status"] + metrics
    parts.append(table([{c: r.get(c) for c in cols} for _, r in res.iterrows()], cols, "Every point (results.csv)"))
    # FCT CDFs: the first seed of each scheme (one line each).
    series, seen = [], set()
    for _, r in ok.iterrows():
        name = "/".join(str(r[k]) for k in group_keys) or str(r["run"])
        if name in seen:
            continue
        seen.add(name)
        series.append((name, read_csv(os.path.join(d, r["dir"]), "flows.csv")))
    cdf_figure(figs, series[:8], "fct_us", "FCT (first seed of each scheme)", "flow completion time (us)")
    cdf_figure(figs, series[:8], "slowdown", "Slowdown (first seed of each scheme)", "FCT / ideal FCT (log scale)", log=True)
    first = os.path.join(d, ok.iloc[0]["dir"]) if not ok.empty else None
    return "\n".join(parts), first


def paper_section(d):
    parts = []
    meta = os.path.join(d, "reproduce.json")
    if os.path.isfile(meta):
        with open(meta) as f:
            m = json.load(f)
        parts.append(f"<p><b>Experiment</b> {esc(m.get('name', ''))}: {esc(m.get('source', ''))}. {esc(m.get('what', ''))}</p>")
    for name, label in (("paper.txt", "The paper's values beside ours (printed by lbsim reproduce)"),
                        ("report.txt", "The paper's statements beside ours (report.txt)")):
        p = os.path.join(d, name)
        if os.path.isfile(p):
            with open(p) as f:
                parts.append(f"<h3>{esc(label)}</h3><pre class=\"paper\">{esc(f.read())}</pre>")
    if parts and not any("paper" in x for x in parts[1:]):
        parts.append("<p>No comparison with the paper is recorded for this entry.</p>")
    return "\n".join(parts)


CSS = """
body{font-family:sans-serif;max-width:1200px;margin:1em auto;padding:0 1em;color:#111}
h1{font-size:1.5em}h2{font-size:1.25em;border-bottom:1px solid #999;margin-top:1.6em}
table{border-collapse:collapse;margin:.8em 0;font-size:.9em}caption{text-align:left;font-weight:bold;padding:.3em 0}
th,td{border:1px solid #bbb;padding:.2em .5em;text-align:right}th{background:#eee}td:first-child{text-align:left}
figure.fig{margin:1em 0;display:inline-block;vertical-align:top}figure.fig svg{max-width:100%;height:auto}
figcaption{font-size:.9em;color:#333}pre.paper{background:#f6f6f6;padding:.6em;overflow-x:auto;font-size:.85em}
.meta{color:#555;font-size:.85em}p.status{background:#fff3cd;border:1px solid #c9a227;padding:.4em .6em}
"""

# Checks, once the page has loaded, that every figure drew something (the headless-browser test
# reads the result from the DOM: body[data-figures="ok/total"]).
SCRIPT = """
window.addEventListener('load', function () {
  var figs = document.querySelectorAll('figure.fig'), ok = 0;
  figs.forEach(function (f) {
    var s = f.querySelector('svg'), b = s ? s.getBBox() : null;
    var drawn = s && b.width > 0 && b.height > 0 && s.querySelectorAll('path,line,rect,use').length > 0;
    f.setAttribute('data-rendered', drawn ? 'ok' : 'empty');
    if (drawn) ok++;
  });
  document.body.setAttribute('data-figures', ok + '/' + figs.length);
});
"""


def kind_of(d):
    if os.path.isfile(os.path.join(d, "results.csv")):
        return "reproduce" if os.path.isfile(os.path.join(d, "reproduce.json")) else "sweep"
    if os.path.isfile(os.path.join(d, "summary.json")):
        return "run"
    if os.path.isfile(os.path.join(d, "balls.json")) or os.path.isfile(os.path.join(d, "report.txt")):
        return "analysis"
    subs = sorted(x for x in os.listdir(d) if os.path.isfile(os.path.join(d, x, "summary.json")))
    if subs:
        return "compare"
    fail(f"{d} is not an lbsim run, compare, sweep or reproduce folder (no summary.json, results.csv or run folders)")


def report_kind(path):
    """The kind of the report at `path` ("run", "compare", ...: its <title>), or None."""
    try:
        with open(path, errors="replace") as f:
            m = re.search(r"<title>lbsim (\w+):", f.read(4096))
    except OSError:
        return None
    return m.group(1) if m else None


def build(d, kind=None):
    d = os.path.abspath(d)
    kind = kind or kind_of(d)
    figs = Figures()
    body = []
    title = f"lbsim {kind}: {os.path.basename(d)}"
    if kind == "run":
        s, cfg = read_summary(d), read_config(d)
        body.append("<h2>Scenario</h2>" + scenario_html(cfg, s))
        name = s.get("load_balancer", "run")
        body.append("<h2>Results</h2>" + runs_section([(name, d)], figs, ""))
    elif kind == "compare":
        runs = [(x, os.path.join(d, x)) for x in sorted(os.listdir(d)) if os.path.isfile(os.path.join(d, x, "summary.json"))]
        body.append("<h2>Scenario</h2>" + scenario_html(read_config(runs[0][1]), read_summary(runs[0][1]), differing_keys(runs)))
        body.append("<h2>Results</h2>" + runs_section(runs, figs, ""))
    elif kind in ("sweep", "reproduce"):
        if kind == "reproduce":
            body.append("<h2>Paper vs. lbsim</h2>" + paper_section(d))
        sec, first = sweep_section(d, figs)
        if first:
            body.insert(0, "<h2>Scenario (first point)</h2>" + scenario_html(read_config(first), read_summary(first)))
        body.append("<h2>Results</h2>" + sec)
    else:  # analysis reproduce entry (e.g. lbsim balls)
        body.append("<h2>Paper vs. lbsim</h2>" + paper_section(d))
        for f in sorted(os.listdir(d)):
            if f.endswith(".csv"):
                df = read_csv(d, f)
                if df is not None and len(df) <= 60:
                    body.append(table([{c: r[c] for c in df.columns} for _, r in df.iterrows()], list(df.columns), f))
    if figs.items:
        body.append("<h2>Figures</h2>" + "\n".join(figs.items))
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{esc(title)}</title><style>{CSS}</style></head><body>\n<h1>{esc(title)}</h1>\n"
            f"<p class=\"meta\">Folder {esc(d)}. Written by <code>lbsim report</code>; self-contained (figures inline as SVG).</p>\n"
            + "\n".join(body) + f"\n<script>{SCRIPT}</script>\n</body></html>\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--out", default="")
    a = ap.parse_args()
    if not os.path.isdir(a.dir):
        fail(f"'{a.dir}' is not a folder")
    out = a.out or os.path.join(a.dir, "report.html")
    kind = kind_of(os.path.abspath(a.dir))
    # A report of another kind is not replaced unasked: a run written into a compare's folder made
    # the folder read as a run folder, and its report replaced the compare's.
    old = report_kind(out)
    if not a.out and old and old != kind:
        fail(f"{out} is the report of a {old} folder and {a.dir} now reads as a {kind} folder: write this "
             f"report elsewhere with --out FILE (or remove {out})")
    text = build(a.dir, kind)
    with open(out, "w") as f:
        f.write(text)
    print(f"report: {os.path.abspath(out)}")


if __name__ == "__main__":
    main()
