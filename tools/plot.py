#!/usr/bin/python3
"""Plots of an lbsim run folder or sweep folder (PNG and PDF). Called by `lbsim plot`.

    /usr/bin/python3 tools/plot.py DIR [--out OUT] [--formats png,pdf]

DIR is a run folder (summary.json, flows.csv, ports.csv, queues.csv) or a sweep folder
(results.csv, sweep.json, runs/<name>/...). Runs are grouped into schemes by their scheme axes (a
named axis "scheme", lb.* and routing.* keys; else every swept key but run.seed; seeds are pooled)
and into panels by [[case]] and the other swept keys. Plots written to OUT
(default DIR/plots), each as .png and .pdf:

  fct_cdf        CDF of the FCT of completed transfers, one line per scheme
  fct_violin     FCT distribution per scheme
  fct_bars       max and p99 FCT per scheme (mean over seeds, whiskers min..max)
  drops_ooo      drops, trims and out-of-order packets (%) per scheme
  queues         total bytes queued in switch data queues over time (needs queues.csv)
  ports          mean utilisation of each link kind per scheme (ports.csv)
  tags           completion time and p99 FCT per entry tag (collective steps, incast/bystander)
  evs_size       a sweep over network.ev_bits: max FCT relative to the largest EVS per scheme

A folder written by `lbsim balls ... --out DIR` (balls.json) gets the plots of tools/plot_balls.py
instead (the [REPS] balls-into-bins figures).

Uses Debian's python3-matplotlib and python3-pandas (scripts/install-deps.sh).
"""
import argparse
import json
import os
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

SEED_KEY = "run.seed"


def fail(msg):
    sys.stderr.write(f"lbsim plot: error: {msg}\n")
    sys.exit(2)


def load_runs(d):
    """[(panel, scheme, seed, run_dir, summary_row)] in table order."""
    if os.path.isfile(os.path.join(d, "results.csv")):
        res = pd.read_csv(os.path.join(d, "results.csv"), dtype={"run": str})
        keys, has_case = [], "case" in res.columns
        man = os.path.join(d, "sweep.json")
        if os.path.isfile(man):
            with open(man) as f:
                keys = json.load(f).get("keys", [])
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
            runs.append((panel, scheme, seed, os.path.join(d, r["dir"]), r))
        if not runs:
            fail(f"{d}/results.csv has no completed runs")
        return runs
    if os.path.isfile(os.path.join(d, "summary.json")):
        with open(os.path.join(d, "summary.json")) as f:
            s = json.load(f)
        row = {
            "max_fct_us": s["fct_us"]["max"], "p99_fct_us": s["fct_us"]["p99"], "drops": s["drops"],
            "trims": s["trims"], "ooo_pct": s["ooo_pct"], "retransmits": s["retransmits"],
        }
        return [("", s.get("load_balancer", "run"), s.get("seed"), d, row)]
    fail(f"{d} is neither a run folder (summary.json) nor a sweep folder (results.csv)")


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


def grid(n, w=4.2, h=3.2):
    cols = min(n, 3)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(w * cols, h * rows), squeeze=False)
    for ax in axes.flat[n:]:
        ax.set_visible(False)
    return fig, list(axes.flat[:n])


def save(fig, out, name, formats, written):
    fig.tight_layout()
    for fmt in formats:
        path = os.path.join(out, f"{name}.{fmt}")
        fig.savefig(path, dpi=120)
        written.append(path)
    plt.close(fig)


def fcts(runs, panel, scheme):
    vals = []
    for p, s, _, d, _ in runs:
        if p == panel and s == scheme:
            f = read_csv(d, "flows.csv")
            if f is not None:
                t = f[(f["kind"] == "transfer") & (f["finished"] == 1)]
                vals.extend(t["fct_us"].tolist())
    return sorted(vals)


def plot_fct(runs, out, formats, written):
    panels = panels_of(runs)
    data = {(p, s): fcts(runs, p, s) for p in panels for s in schemes_of(runs, p)}
    if not any(data.values()):
        return
    fig, axes = grid(len(panels))
    for ax, p in zip(axes, panels):
        for s in schemes_of(runs, p):
            v = data[(p, s)]
            if v:
                ax.plot(v, [(i + 1) / len(v) for i in range(len(v))], label=s, drawstyle="steps-post")
        ax.set_xlabel("FCT (us)")
        ax.set_ylabel("CDF")
        ax.set_title(p or "FCT CDF")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    save(fig, out, "fct_cdf", formats, written)

    fig, axes = grid(len(panels))
    for ax, p in zip(axes, panels):
        ss = [s for s in schemes_of(runs, p) if data[(p, s)]]
        if ss:
            ax.violinplot([data[(p, s)] for s in ss], showmedians=True, showextrema=True)
            ax.set_xticks(range(1, len(ss) + 1))
            ax.set_xticklabels(ss, rotation=30, ha="right", fontsize=7)
        ax.set_ylabel("FCT (us)")
        ax.set_title(p or "FCT distribution")
        ax.grid(alpha=0.3, axis="y")
    save(fig, out, "fct_violin", formats, written)


def stat(runs, panel, scheme, col):
    v = [float(r[col]) for p, s, _, _, r in runs if p == panel and s == scheme and pd.notna(r[col])]
    if not v:
        return 0.0, 0.0, 0.0
    m = sum(v) / len(v)
    return m, m - min(v), max(v) - m


def bars(ax, runs, panel, cols, labels, ylabel):
    ss = schemes_of(runs, panel)
    width = 0.8 / len(cols)
    for j, (c, lab) in enumerate(zip(cols, labels)):
        st = [stat(runs, panel, s, c) for s in ss]
        xs = [i + (j - (len(cols) - 1) / 2) * width for i in range(len(ss))]
        ax.bar(xs, [m for m, _, _ in st], width, yerr=[[lo for _, lo, _ in st], [hi for _, _, hi in st]],
               capsize=2, label=lab)
    ax.set_xticks(range(len(ss)))
    ax.set_xticklabels(ss, rotation=30, ha="right", fontsize=7)
    ax.set_ylabel(ylabel)
    ax.set_title(panel)
    ax.grid(alpha=0.3, axis="y")
    if len(cols) > 1:
        ax.legend(fontsize=7)


def plot_bars(runs, out, formats, written):
    panels = panels_of(runs)
    fig, axes = grid(len(panels))
    for ax, p in zip(axes, panels):
        bars(ax, runs, p, ["max_fct_us", "p99_fct_us"], ["max FCT", "p99 FCT"], "FCT (us)")
    save(fig, out, "fct_bars", formats, written)

    fig, axes = plt.subplots(3, len(panels), figsize=(4.2 * len(panels), 8.5), squeeze=False)
    for j, p in enumerate(panels):
        bars(axes[0][j], runs, p, ["drops"], ["drops"], "dropped packets")
        bars(axes[1][j], runs, p, ["trims"], ["trims"], "trimmed packets")
        bars(axes[2][j], runs, p, ["ooo_pct"], ["out-of-order"], "out-of-order packets (%)")
    save(fig, out, "drops_ooo", formats, written)


def first_run(runs, panel, scheme):
    for p, s, _, d, _ in runs:
        if p == panel and s == scheme:
            return d
    return None


def plot_queues(runs, out, formats, written):
    panels = panels_of(runs)
    series = {}
    for p in panels:
        for s in schemes_of(runs, p):
            q = read_csv(first_run(runs, p, s), "queues.csv")
            if q is not None and len(q):
                g = q.groupby("time_us")["data_bytes"].agg(["sum", "max"])
                # A sample with every queue empty has no rows: put those samples back as zeros.
                t = sorted(g.index)
                step = min((b - a for a, b in zip(t, t[1:])), default=0)
                if step > 0:
                    n = int(round((t[-1] - t[0]) / step))
                    full = [round(t[0] + i * step, 6) for i in range(n + 2)]
                    g = g.reindex(sorted(set(full) | set(t)), fill_value=0)
                series[(p, s)] = g
    if not series:
        return
    fig, axes = plt.subplots(2, len(panels), figsize=(4.8 * len(panels), 6.4), squeeze=False)
    for j, p in enumerate(panels):
        for s in schemes_of(runs, p):
            if (p, s) in series:
                g = series[(p, s)]
                axes[0][j].plot(g.index, g["sum"] / 1024, label=s)
                axes[1][j].plot(g.index, g["max"] / 1024, label=s)
        axes[0][j].set_ylabel("queued in all switch ports (KiB)")
        axes[1][j].set_ylabel("largest port queue (KiB)")
        axes[1][j].set_xlabel("time (us)")
        axes[0][j].set_title(p or "switch queues (first seed)")
        for a in (axes[0][j], axes[1][j]):
            a.grid(alpha=0.3)
            a.legend(fontsize=7)
    save(fig, out, "queues", formats, written)


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
    fig, axes = grid(len(panels), w=4.8)
    for ax, p in zip(axes, panels):
        ss = [s for s in schemes_of(runs, p) if (p, s) in util]
        kinds = sorted({k for s in ss for k in util[(p, s)].index})
        width = 0.8 / max(1, len(ss))
        for j, s in enumerate(ss):
            u = util[(p, s)]
            xs = [i + (j - (len(ss) - 1) / 2) * width for i in range(len(kinds))]
            ax.bar(xs, [100 * u["mean"].get(k, 0) for k in kinds], width, label=s)
        ax.set_xticks(range(len(kinds)))
        ax.set_xticklabels(kinds)
        ax.set_ylabel("mean port utilisation (%)")
        ax.set_title(p or "port utilisation")
        ax.grid(alpha=0.3, axis="y")
        ax.legend(fontsize=7)
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
            frames = [read_csv(d, "flows.csv") for pp, ss, _, d, _ in runs if pp == p and ss == s]
            frames = [f for f in frames if f is not None]
            if not frames:
                continue
            f = pd.concat(frames)
            f = f[(f["kind"] == "transfer") & (f["finished"] == 1)]
            if f["tag"].nunique() < 2 and not f["tag"].astype(str).str.startswith("step").any():
                continue
            g = f.groupby("tag").agg(done=("finish_us", "max"), p99=("fct_us", lambda x: x.quantile(0.99)))
            rows[(p, s)] = g
    if not rows:
        return
    panels = [p for p in panels if any(pp == p for pp, _ in rows)]
    fig, axes = plt.subplots(2, len(panels), figsize=(4.8 * len(panels), 6.4), squeeze=False)
    for j, p in enumerate(panels):
        ss = [s for s in schemes_of(runs, p) if (p, s) in rows]
        tags = sorted({t for s in ss for t in rows[(p, s)].index}, key=tag_key)
        steps = [t for t in tags if tag_key(t)[0] == 0]
        others = [t for t in tags if tag_key(t)[0] == 1]
        # Collective: the finish time of each step (the last one is the collective's duration).
        if steps:
            for s in ss:
                g = rows[(p, s)]
                axes[0][j].plot(range(len(steps)), [g["done"].get(t, float("nan")) for t in steps], marker=".", label=s)
            axes[0][j].set_xlabel("collective step")
            axes[0][j].set_ylabel("step finished at (us)")
        else:
            width = 0.8 / max(1, len(ss))
            for k, s in enumerate(ss):
                g = rows[(p, s)]
                xs = [i + (k - (len(ss) - 1) / 2) * width for i in range(len(others))]
                axes[0][j].bar(xs, [g["done"].get(t, 0) for t in others], width, label=s)
            axes[0][j].set_xticks(range(len(others)))
            axes[0][j].set_xticklabels(others, fontsize=7)
            axes[0][j].set_ylabel("tag completed at (us)")
        width = 0.8 / max(1, len(ss))
        shown = others + (steps[-1:] if steps else [])
        for k, s in enumerate(ss):
            g = rows[(p, s)]
            xs = [i + (k - (len(ss) - 1) / 2) * width for i in range(len(shown))]
            axes[1][j].bar(xs, [g["p99"].get(t, 0) for t in shown], width, label=s)
        axes[1][j].set_xticks(range(len(shown)))
        axes[1][j].set_xticklabels(shown, fontsize=7)
        axes[1][j].set_ylabel("p99 FCT (us)")
        axes[0][j].set_title(p or "per-tag completion")
        for a in (axes[0][j], axes[1][j]):
            a.grid(alpha=0.3)
            a.legend(fontsize=7)
    save(fig, out, "tags", formats, written)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir")
    ap.add_argument("--out")
    ap.add_argument("--formats", default="png,pdf")
    a = ap.parse_args()
    if not os.path.isdir(a.dir):
        fail(f"'{a.dir}' is not a folder")
    out = a.out or os.path.join(a.dir, "plots")
    os.makedirs(out, exist_ok=True)
    formats = [f for f in a.formats.split(",") if f]
    written = []
    if os.path.isfile(os.path.join(a.dir, "balls.json")):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import plot_balls

        plot_balls.plot(a.dir, out, formats, written, save)
        for w in written:
            print(w)
        print(f"lbsim plot: {len(written)} file(s) in {out}")
        return
    runs = load_runs(a.dir)
    plot_fct(runs, out, formats, written)
    plot_bars(runs, out, formats, written)
    plot_queues(runs, out, formats, written)
    plot_ports(runs, out, formats, written)
    plot_tags(runs, out, formats, written)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import plot_balls

    plot_balls.plot_ev_bits_sweep(a.dir, out, formats, written, save)  # [REPS] Fig. 15 (left)
    for w in written:
        print(w)
    print(f"lbsim plot: {len(written)} file(s) in {out}")


if __name__ == "__main__":
    main()
