"""pytest of tools/plot.py and `lbsim plot` (ctest Plot.python; docs/workflow.md, "Plots").

Runs small simulations with the lbsim of this build (LBSIM_EXE) from LBSIM_SOURCE_DIR's examples,
then checks properties of the written files and of the matplotlib figures plot.py keeps open when
its KEEP_FIGURES list is set."""
import importlib.util
import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.container import BarContainer  # noqa: E402
import pytest  # noqa: E402

SRC = Path(os.environ.get("LBSIM_SOURCE_DIR", Path(__file__).resolve().parents[2]))
EXE = os.environ.get("LBSIM_EXE", str(SRC / "build" / "lbsim"))
DEMO = SRC / "examples" / "demo.toml"
SMALL = ["--set", "topology.hosts=32", "--set", "topology.radix=8", "--set", 'workload.size="128KiB"',
         "--set", "output.queue_sample_us=1"]


def load_plot():
    spec = importlib.util.spec_from_file_location("lbsim_plot_under_test", SRC / "tools" / "plot.py")
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(SRC / "tools"))
    spec.loader.exec_module(mod)
    return mod


def lbsim(*args):
    return subprocess.run([EXE, *map(str, args)], capture_output=True, text=True)


@pytest.fixture(scope="module")
def compare_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("cmp") / "cmp"
    r = lbsim("compare", DEMO, "--lb", "ecmp,ops,reps", *SMALL, "--out", d)
    assert r.returncode == 0, r.stderr
    return d


def plot_figures(plot, folder, out, *args):
    """Runs plot.main on folder and returns {name: figure}."""
    plot.KEEP_FIGURES = []
    plot.SCHEME_ORDER.clear()
    plot.main([str(folder), "--out", str(out), *args])
    figs = dict(plot.KEEP_FIGURES)
    plot.KEEP_FIGURES = None
    return figs


def bar_containers(ax):
    return [c for c in ax.containers if isinstance(c, BarContainer)]


def png_size(p):
    with open(p, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", head[16:24])


def test_sparse_queue_file_gives_zeros_at_missing_sample_times(tmp_path):
    plot = load_plot()
    # Sampled every 2 us up to 9.5 us: samples 0, 2, 4, 6, 8. Port tor0:3 has rows at 2 and 6 only,
    # tor0:4 at 4 (the sparse file has no row for an empty queue).
    (tmp_path / "queues.csv").write_text(
        "time_us,node,port,peer,data_bytes,ctrl_bytes,blocked,node_label,peer_label\n"
        "2.000,8,3,12,4160,0,0,tor0,spine0\n"
        "4.000,8,4,13,1000,0,0,tor0,spine1\n"
        "6.000,8,3,12,8320,0,0,tor0,spine0\n")
    q = plot.pd.read_csv(tmp_path / "queues.csv")
    times = plot.sample_times(2.0, 9.5, q["time_us"].unique())
    assert times == [0.0, 2.0, 4.0, 6.0, 8.0]
    s = plot.port_series(q, times, "tor0", 3)
    assert list(s.index) == times
    assert list(s.values) == [0, 4160, 0, 8320, 0]
    assert list(plot.port_series(q, times, "tor0", 4).values) == [0, 0, 1000, 0, 0]
    # The run-folder path: the sample period comes from config.toml, the end from summary.json.
    (tmp_path / "config.toml").write_text("[output]\nqueue_sample_us = 2.0\n")
    (tmp_path / "summary.json").write_text(json.dumps({"end_time_us": 9.5}))
    q2, t2 = plot.run_queues(str(tmp_path))
    assert t2 == times
    assert list(plot.port_series(q2, t2, "tor0", 3).values) == [0, 4160, 0, 8320, 0]


def test_all_zero_panel_starts_at_zero():
    plot = load_plot()
    fig, ax = plt.subplots()
    ax.bar([0, 1], [0, 0])
    ax.plot([0, 1], [0, 0])
    assert ax.get_ylim()[0] < 0  # matplotlib's default for an all-zero panel
    plot.finish(fig)
    assert ax.get_ylim() == (0, 1)
    fig2, ax2 = plt.subplots()
    ax2.bar([0, 1], [0, 3])
    plot.finish(fig2)
    assert ax2.get_ylim()[0] == 0 and ax2.get_ylim()[1] >= 3
    plt.close(fig2)
    plt.close(fig)


def test_compare_folder_every_format_legend_outside_distinct_styles(compare_dir, tmp_path):
    plot = load_plot()
    out = tmp_path / "plots"
    figs = plot_figures(plot, compare_dir, out, "--formats", "png,pdf,svg")
    for name in ("fct_cdf", "slowdown_cdf", "fct_violin", "fct_bars", "drops_ooo", "queues", "queue_ports", "ports"):
        assert name in figs, name
        for ext in ("png", "pdf", "svg"):
            f = out / f"{name}.{ext}"
            assert f.is_file() and f.stat().st_size > 1000, f
    # The scenario is in the title.
    assert figs["fct_cdf"]._suptitle.get_text().replace("\n", " ") == "fat_tree, 32 hosts, workload permutation"
    # Every legend lies right of every axes of its figure.
    for name, fig in figs.items():
        lay = plot.layout(fig)
        assert lay["legends"], name
        right = max(a[2] for a in lay["axes"])
        for lg in lay["legends"]:
            assert lg[0] >= right, (name, lg, right)
    # One line per scheme (compare folder: one scheme per run folder), each its own line style and marker.
    ax = figs["fct_cdf"].axes[0]
    assert ax.get_xscale() == "log"
    lines = {ln.get_label(): (str(ln.get_linestyle()), ln.get_marker()) for ln in ax.get_lines()}
    assert set(lines) == {"ecmp", "ops", "reps"}
    assert len({ls for ls, _ in lines.values()}) == 3 and len({m for _, m in lines.values()}) == 3
    # Bars: one hatch per scheme.
    hatches = {c.get_label(): c.patches[0].get_hatch() for c in bar_containers(figs["ports"].axes[0])}
    assert set(hatches) == {"ecmp", "ops", "reps"} and len(set(hatches.values())) == 3
    # drops: every scheme drops nothing here; the panel starts at 0 (not -0.05).
    drops_ax = figs["drops_ooo"].axes[0]
    assert all(c.patches[0].get_height() == 0 for c in bar_containers(drops_ax))
    assert len(bar_containers(drops_ax)) == 3
    assert drops_ax.get_ylim()[0] == 0
    for fig in figs.values():
        plt.close(fig)


def test_named_ports_and_unknown_label(compare_dir, tmp_path):
    plot = load_plot()
    figs = plot_figures(plot, compare_dir, tmp_path / "p", "--formats", "png", "--ports", "tor0:6,spine1")
    titles = [a.get_title() for a in figs["queue_ports"].axes if a.get_visible()]
    assert titles[0].startswith("tor0 port 6 -> ")
    assert all(t.startswith(("tor0 port 6 ", "spine1 port ")) for t in titles), titles
    # The plotted series of tor0:6 is the queues.csv rows of that port, zeros elsewhere.
    q = plot.pd.read_csv(compare_dir / "ecmp" / "queues.csv")
    rows = q[(q["node_label"] == "tor0") & (q["port"] == 6)]
    ln = [x for x in figs["queue_ports"].axes[0].get_lines() if x.get_label() == "ecmp"][0]
    got = dict(zip(ln.get_xdata(), ln.get_ydata()))
    assert sum(v > 0 for v in got.values()) == int((rows["data_bytes"] > 0).sum())
    for t, b in zip(rows["time_us"], rows["data_bytes"]):
        assert got[round(t, 3)] == pytest.approx(b / 1024)
    assert len(got) > len(rows)  # the sample times without a row are there, as 0
    for fig in figs.values():
        plt.close(fig)
    r = lbsim("plot", compare_dir, "--out", tmp_path / "x", "--ports", "nosuchswitch:1")
    assert r.returncode == 2 and "--ports" in r.stderr and "nosuchswitch" in r.stderr, r.stderr


def test_cli_formats_dpi_and_bad_formats(compare_dir, tmp_path):
    r = lbsim("plot", compare_dir, "--out", tmp_path / "a", "--formats", "png,svg", "--dpi", "50")
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "a" / "fct_cdf.svg").is_file() and not (tmp_path / "a" / "fct_cdf.pdf").exists()
    r = lbsim("plot", compare_dir, "--out", tmp_path / "b", "--formats", "png", "--dpi", "100")
    assert r.returncode == 0, r.stderr
    w50, h50 = png_size(tmp_path / "a" / "fct_cdf.png")
    w100, h100 = png_size(tmp_path / "b" / "fct_cdf.png")
    # Twice the dpi, twice the pixels (within the few pixels the tight bounding box moves by).
    assert 1.95 < w100 / w50 < 2.05 and 1.95 < h100 / h50 < 2.05, (w50, h50, w100, h100)
    r = lbsim("plot", compare_dir, "--out", tmp_path / "c", "--formats", "png,bogus")
    assert r.returncode == 2
    assert "--formats" in r.stderr and "'bogus'" in r.stderr and "png" in r.stderr, r.stderr
    assert not (tmp_path / "c" / "fct_cdf.png").exists()


def test_per_tag_cdfs(tmp_path):
    d = tmp_path / "inc"
    r = lbsim("compare", DEMO, "--lb", "ecmp,ops", *SMALL, "--set", 'workload.kind="incast"',
              "--set", "workload.incast_senders=4", "--set", "workload.incast_bystanders=true", "--out", d)
    assert r.returncode == 0, r.stderr
    plot = load_plot()
    figs = plot_figures(plot, d, tmp_path / "p", "--formats", "png")
    titles = [a.get_title() for a in figs["fct_cdf_by_tag"].axes if a.get_visible()]
    assert titles == ["tag bystander", "tag incast"]
    # The incast panel holds the 4 incast transfers of each scheme, the bystander one the others.
    for ax, tag in zip(figs["fct_cdf_by_tag"].axes, ("bystander", "incast")):
        for ln in ax.get_lines():
            f = plot.pd.read_csv(d / ln.get_label() / "flows.csv")
            assert len(ln.get_xdata()) == int((f["tag"] == tag).sum())
    for fig in figs.values():
        plt.close(fig)


def test_dependency_workload_plots_makespan(tmp_path):
    d = tmp_path / "coll"
    r = lbsim("compare", DEMO, "--lb", "ecmp,ops", *SMALL, "--set", 'workload.kind="ring_allreduce"',
              "--set", "topology.hosts=8", "--out", d)
    assert r.returncode == 0, r.stderr
    plot = load_plot()
    figs = plot_figures(plot, d, tmp_path / "p", "--formats", "png")
    assert "makespan" in figs and "fct_cdf" not in figs and "fct_bars" not in figs
    ax = figs["makespan"].axes[0]
    assert len(bar_containers(ax)) == 2
    for c in bar_containers(ax):
        s = json.loads((d / c.get_label() / "summary.json").read_text())
        assert s["has_dependencies"] is True
        assert c.patches[0].get_height() == pytest.approx(s["makespan_us"])
    assert (tmp_path / "p" / "makespan.png").is_file()
    for fig in figs.values():
        plt.close(fig)


def test_degraded_port_shown_first(tmp_path):
    # [REPS] Fig. 4's scenario, small: one ToR uplink at 200 Gb/s (both directions of one link).
    d = tmp_path / "deg"
    r = lbsim("compare", DEMO, "--lb", "ops,reps", *SMALL, "--set", "failures.random_fraction=0.0001",
              "--set", 'failures.random_kind="degrade"', "--set", "failures.random_rate_gbps=200", "--out", d)
    assert r.returncode == 0, r.stderr
    ports = __import__("pandas").read_csv(d / "ops" / "ports.csv")
    slow = ports[(ports["rate_gbps"] == 200)]
    assert len(slow) == 2  # the two directions of the degraded link
    plot = load_plot()
    figs = plot_figures(plot, d, tmp_path / "p", "--formats", "png", "--top-ports", "3")
    titles = [a.get_title() for a in figs["queue_ports"].axes if a.get_visible()]
    assert len(titles) == 3
    want = {f"{n} port {p} -> {q} (degraded)" for n, p, q in zip(slow["node_label"], slow["port"], slow["peer_label"])}
    assert set(titles[:2]) == want and "(degraded)" not in titles[2]
    figs2 = plot_figures(plot, d, tmp_path / "q", "--formats", "png", "--ports", "degraded")
    assert {a.get_title() for a in figs2["queue_ports"].axes if a.get_visible()} == want
    for fig in list(figs.values()) + list(figs2.values()):
        plt.close(fig)


def visible_tick_labels(ax):
    ax.figure.canvas.draw()
    lo, hi = ax.get_xlim()
    return [t.get_text() for t in ax.get_xticklabels() if lo <= t.get_position()[0] <= hi and t.get_text()]


def test_stopped_run_states_its_status_and_cdf_ends_below_one(tmp_path):
    """A run stopped at run.end_us with 7 of 16 transfers done: the legend says so and the CDF ends
    at 7/16, not at 1 (issue "Every output tells the truth", item 4)."""
    plot = load_plot()
    d = tmp_path / "stopped"
    r = lbsim("run", DEMO, "--quiet", "--out", d, "--set", "lb.algorithm=ecmp", "--set", "run.end_us=6",
              "--set", "topology.hosts=16", "--set", 'workload.size="64KiB"')
    assert r.returncode == 3, r.stderr
    done = json.loads((d / "summary.json").read_text())["completed"]
    assert 0 < done < 16
    figs = plot_figures(plot, d, tmp_path / "plots")
    for name in ("fct_cdf", "slowdown_cdf"):
        ax = figs[name].axes[0]
        line = ax.get_lines()[0]
        assert line.get_label() == f"ecmp ({done}/16 completed, unfinished)"
        assert max(line.get_ydata()) == pytest.approx(done / 16)


def test_slowdown_axis_has_labelled_ticks(compare_dir, tmp_path):
    """The log x axis of the slowdown CDF had one label ("1"): at least three numbers now (item 8)."""
    plot = load_plot()
    figs = plot_figures(plot, compare_dir, tmp_path / "p")
    for name in ("slowdown_cdf", "fct_cdf"):
        labels = visible_tick_labels(figs[name].axes[0])
        assert len(labels) >= 3, (name, labels)
        assert all(float(x) > 0 for x in labels), labels
