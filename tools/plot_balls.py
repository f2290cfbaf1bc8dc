"""Plots of an `lbsim balls` output folder (balls.json, docs/reps.md); called by tools/plot.py.

  evs      evs_imbalance   load imbalance per EVS size 2^k, one panel per number of flows, uniform
                           draws and the ECMP hash side by side ([REPS] Fig. 14)
  queue    queue_max       max queue per step, mean over seeds with the min..max band, one line
                           per n, one panel per model ([REPS] Fig. 17)
           queue_bins      every bin's queue per step for the first seed (n <= 16), one panel per
                           model and n; recycled panels draw the threshold tau ([REPS] Fig. 18)
  theorem  theorem         steps to convergence and max queue per n against n ln n and ln n
                           ([REPS] Theorem 5.1)
"""
import json
import math
import os

import matplotlib.pyplot as plt
import pandas as pd


def _csv(d, name):
    p = os.path.join(d, name)
    return pd.read_csv(p) if os.path.isfile(p) else None


def plot_evs(d, out, formats, written, save):
    t = _csv(d, "evs_trials.csv")
    if t is None or not len(t):
        return
    flows = sorted(t["flows"].unique())
    placements = [p for p in ("uniform", "ecmp_hash") if p in set(t["placement"])]
    fig, axes = plt.subplots(1, len(flows), figsize=(6.4 * len(flows), 4.2), squeeze=False)
    for ax, f in zip(axes[0], flows):
        ks = sorted(t[t["flows"] == f]["ev_bits"].unique())
        width = 0.8 / len(placements)
        for j, pl in enumerate(placements):
            data = [100 * t[(t["flows"] == f) & (t["placement"] == pl) & (t["ev_bits"] == k)]["imbalance"].clip(lower=1e-3)
                    for k in ks]
            pos = [i + (j - (len(placements) - 1) / 2) * width for i in range(len(ks))]
            bp = ax.boxplot(data, positions=pos, widths=width * 0.9, patch_artist=True, showfliers=False,
                            whis=(1, 99))
            for b in bp["boxes"]:
                b.set_facecolor(f"C{j}")
                b.set_alpha(0.6)
            ax.plot([], [], color=f"C{j}", linewidth=6, alpha=0.6, label=pl)
        ax.axhline(10, color="grey", linestyle="--", linewidth=0.8)
        ax.axhline(1, color="grey", linestyle=":", linewidth=0.8)
        ax.set_yscale("log")
        ax.set_xticks(range(len(ks)))
        ax.set_xticklabels([f"$2^{{{k}}}$" for k in ks], fontsize=7)
        ax.set_xlabel("EVs per flow (EVS size)")
        ax.set_ylabel("load imbalance (%)")
        ax.set_title(f"{f} flow{'s' if f != 1 else ''}, {t['bins'].iloc[0]} uplinks (whiskers p1..p99)")
        ax.grid(alpha=0.3, axis="y")
        ax.legend(fontsize=7)
    save(fig, out, "evs_imbalance", formats, written)


def plot_queue(d, out, formats, written, save):
    s = _csv(d, "queue_steps.csv")
    runs = _csv(d, "queue_runs.csv")
    if s is None or not len(s):
        return
    models = list(dict.fromkeys(s["model"]))
    fig, axes = plt.subplots(1, len(models), figsize=(5.6 * len(models), 4.0), squeeze=False)
    for ax, m in zip(axes[0], models):
        sm = s[s["model"] == m]
        for i, n in enumerate(sorted(sm["bins"].unique())):
            g = sm[sm["bins"] == n].groupby("step")["max_queue"].agg(["mean", "min", "max"])
            seeds = sm[sm["bins"] == n]["seed"].nunique()
            ax.plot(g.index, g["mean"], color=f"C{i}", label=f"n = {n} ({seeds} seeds)")
            ax.fill_between(g.index, g["min"], g["max"], color=f"C{i}", alpha=0.15)
        ax.set_xlabel("step")
        ax.set_ylabel("max queue (balls)")
        lam = runs["lambda"].iloc[0] if runs is not None and len(runs) else ""
        ax.set_title(f"{m}, lambda = {lam}")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    save(fig, out, "queue_max", formats, written)

    b = _csv(d, "queue_bins.csv")
    if b is None or not len(b):
        return
    cells = [(m, n) for m in models for n in sorted(b[b["model"] == m]["bins"].unique()) if n <= 16]
    if not cells:
        return
    fig, axes = plt.subplots(1, len(cells), figsize=(5.6 * len(cells), 4.0), squeeze=False)
    ymax = max(b[(b["model"] == m) & (b["bins"] == n)]["queue"].max() for m, n in cells)
    for ax, (m, n) in zip(axes[0], cells):
        bm = b[(b["model"] == m) & (b["bins"] == n)]
        seed = bm["seed"].min()
        bm = bm[bm["seed"] == seed]
        for k in sorted(bm["bin"].unique()):
            q = bm[bm["bin"] == k]
            ax.plot(q["step"], q["queue"], linewidth=0.9, label=f"bin {k}" if n <= 8 else None)
        if m == "recycled" and runs is not None:
            r = runs[(runs["model"] == m) & (runs["bins"] == n)]
            if len(r):
                ax.axhline(r["tau"].iloc[0], color="black", linestyle="--", linewidth=1,
                           label=f"tau = {r['tau'].iloc[0]}")
        ax.set_ylim(0, ymax * 1.05 + 1)
        ax.set_xlabel("step")
        ax.set_ylabel("queue (balls)")
        ax.set_title(f"{m}, n = {n}, seed {seed}")
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=7)
    save(fig, out, "queue_bins", formats, written)


def plot_theorem(d, out, formats, written, save):
    r = _csv(d, "theorem_runs.csv")
    if r is None or not len(r):
        return
    ns = sorted(r["bins"].unique())
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.0), squeeze=False)
    conv = r[r["converged"] == 1]
    ax = axes[0][0]
    if len(conv):
        ax.scatter(conv["bins"], conv["steps"], s=8, alpha=0.5, label="one seed")
        mean = conv.groupby("bins")["steps"].mean()
        ax.plot(mean.index, mean.values, marker="o", label="mean")
        c = (conv["steps"] / (conv["bins"] * conv["bins"].map(math.log))).mean()
        ax.plot(ns, [c * n * math.log(n) for n in ns], linestyle="--", color="grey", label=f"{c:.2f} n ln n")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("bins n")
    ax.set_ylabel("steps to convergence")
    reading = f"{r['recycle'].iloc[0]}, tau count {r['tau_count'].iloc[0]}"
    ax.set_title(f"converged {len(conv)}/{len(r)} ({reading})")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    ax = axes[0][1]
    ax.scatter(r["bins"], r["max_queue"], s=8, alpha=0.5, label="max queue, one seed")
    mq = r.groupby("bins")["max_queue"].mean()
    ax.plot(mq.index, mq.values, marker="o", label="mean max queue")
    tau = r.groupby("bins")["tau"].first()
    ax.plot(tau.index, tau.values, linestyle=":", color="black", label="tau")
    c = (r["max_queue"] / r["bins"].map(math.log)).mean()
    ax.plot(ns, [c * math.log(n) for n in ns], linestyle="--", color="grey", label=f"{c:.2f} ln n")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("bins n")
    ax.set_ylabel("balls")
    ax.set_title("largest queue until convergence")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    save(fig, out, "theorem", formats, written)


def plot(d, out, formats, written, save):
    with open(os.path.join(d, "balls.json")) as f:
        cmd = json.load(f).get("command")
    {"evs": plot_evs, "queue": plot_queue, "theorem": plot_theorem}.get(cmd, lambda *a: None)(
        d, out, formats, written, save)


def plot_ev_bits_sweep(d, out, formats, written, save):
    """A sweep over network.ev_bits (reproduce reps-fig15): completion time (max FCT) per EVS size
    relative to the largest EVS of the same load balancer and seed ([REPS] Fig. 15, left)."""
    p = os.path.join(d, "results.csv")
    if not os.path.isfile(p):
        return
    r = pd.read_csv(p)
    if "network.ev_bits" not in r.columns or r["network.ev_bits"].nunique() < 2 or "lb.algorithm" not in r.columns:
        return
    r = r[r["status"] == "ok"]
    seed = "run.seed" if "run.seed" in r.columns else None
    lbs = list(dict.fromkeys(r["lb.algorithm"]))
    bits = sorted(r["network.ev_bits"].unique())
    ref = bits[-1]
    fig, ax = plt.subplots(figsize=(5.6, 4.0))
    width = 0.8 / len(lbs)
    for j, lb in enumerate(lbs):
        x = r[r["lb.algorithm"] == lb]
        base = x[x["network.ev_bits"] == ref].set_index(seed)["max_fct_us"] if seed else None
        means, lo, hi = [], [], []
        for b in bits:
            xb = x[x["network.ev_bits"] == b]
            rel = (xb.set_index(seed)["max_fct_us"] / base).dropna() if seed else xb["max_fct_us"] / x[
                x["network.ev_bits"] == ref]["max_fct_us"].mean()
            m = rel.mean() if len(rel) else float("nan")
            means.append(m)
            lo.append(m - rel.min() if len(rel) else 0)
            hi.append(rel.max() - m if len(rel) else 0)
        xs = [i + (j - (len(lbs) - 1) / 2) * width for i in range(len(bits))]
        ax.bar(xs, means, width, yerr=[lo, hi], capsize=3, label=lb)
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_xticks(range(len(bits)))
    ax.set_xticklabels([f"{2 ** int(b)} EVs" for b in bits])
    ax.set_ylabel(f"max FCT / max FCT with {2 ** int(ref)} EVs")
    n = r[seed].nunique() if seed else 1
    ax.set_title(f"EVS size ({n} seed{'s' if n != 1 else ''}, whiskers min..max)")
    ax.grid(alpha=0.3, axis="y")
    ax.legend(fontsize=7)
    save(fig, out, "evs_size", formats, written)
