"""pytest of the Python module (ctest python_pytest; docs/python.md). Needs the module of this build on
PYTHONPATH (<build>/python) and LBSIM_EXE / LBSIM_SOURCE_DIR (set by ctest)."""
import math
import os
import subprocess
from pathlib import Path

import pandas as pd
import pytest

import lbsim

SRC = Path(os.environ.get("LBSIM_SOURCE_DIR", Path(__file__).resolve().parents[2]))
DEMO = SRC / "examples" / "demo.toml"
SMALL = {"topology.hosts": 16, "workload.size": "64KiB", "output.queue_sample_us": 1}
SMALL_SET = ["topology.hosts=16", 'workload.size="64KiB"', "output.queue_sample_us=1"]

FLOW_COLUMNS = ["id", "src", "dst", "bytes", "tag", "lb", "kind", "finished", "start_us", "finish_us", "fct_us",
                "ideal_fct_us", "slowdown", "sender_done_us", "packets", "packets_sent", "retransmits", "nacks",
                "timeouts", "ecn_acks", "ooo_packets", "duplicates", "trimmed_rx", "max_reorder", "sender_fct_us"]
PORT_COLUMNS = ["node", "node_label", "port", "peer", "peer_label", "link_kind", "rate_gbps", "tx_packets", "tx_bytes",
                "utilization", "drops", "trims", "ecn_marks", "failure_drops", "max_queue_bytes", "no_route_drops"]
QUEUE_COLUMNS = ["time_us", "node", "port", "peer", "data_bytes", "ctrl_bytes", "blocked", "node_label", "peer_label"]


def cli(*args):
    return subprocess.run([lbsim.executable(), *map(str, args)], capture_output=True, text=True)


def test_three_lines_to_a_dataframe_of_fcts():
    r = lbsim.run(DEMO, topology_hosts=16, workload_size="64KiB")
    assert isinstance(r.flows, pd.DataFrame)
    assert len(r.flows) == 16 and r.flows.fct_us.notna().all() and (r.flows.fct_us > 0).all()
    assert r.exit_code == 0 and r.finished
    assert r.summary["workload"]["transfers"] == 16
    assert r.summary["fct_us"]["max"] == pytest.approx(r.flows.fct_us.max(), abs=1e-5)


def test_documented_columns():
    r = lbsim.run(DEMO, **{k.replace(".", "__"): v for k, v in SMALL.items()})
    assert list(r.flows.columns) == FLOW_COLUMNS
    assert list(r.ports.columns) == PORT_COLUMNS
    assert list(r.queues.columns) == QUEUE_COLUMNS
    assert len(r.queues) > 0
    # Switch labels and tags are text, numbers are numbers.
    assert r.ports.node_label.dtype == object and r.flows.bytes.dtype.kind == "i"


def test_flows_csv_byte_identical_to_the_cli(tmp_path):
    for lb in ("ecmp", "ops", "reps"):
        c = cli("run", DEMO, "--quiet", "--out", tmp_path / f"cli-{lb}", "--set", f"lb.algorithm={lb}",
                *sum([["--set", s] for s in SMALL_SET], []))
        assert c.returncode == 0, c.stderr
        r = lbsim.run(DEMO, out=tmp_path / f"py-{lb}", lb_algorithm=lb, **{k.replace(".", "__"): v for k, v in SMALL.items()})
        for f in ("flows.csv", "ports.csv", "queues.csv", "config.toml"):
            a = (tmp_path / f"cli-{lb}" / f).read_bytes()
            b = (tmp_path / f"py-{lb}" / f).read_bytes()
            if f == "config.toml":  # the same but for output.dir (the folder)
                a = a.replace(str(tmp_path / f"cli-{lb}").encode(), b"DIR")
                b = b.replace(str(tmp_path / f"py-{lb}").encode(), b"DIR")
            assert a == b, f"{lb}: {f} differs between lbsim run and lbsim.run"
        # Without out=, the same bytes from a temporary folder.
        r2 = lbsim.run(DEMO, lb_algorithm=lb, **{k.replace(".", "__"): v for k, v in SMALL.items()})
        assert r2.folder is None
        assert r2.flows_csv.encode() == (tmp_path / f"cli-{lb}" / "flows.csv").read_bytes()


def test_config_as_dict_and_overrides():
    r = lbsim.run({"topology": {"hosts": 16, "radix": 8}, "workload.size": "32KiB"}, lb_algorithm="ops", seed=3)
    assert "algorithm = 'ops'" in r.config
    assert r.summary["seed"] == 3
    assert r.summary["topology"]["hosts"] == 16
    assert (r.flows.bytes == 32 * 1024).all()
    assert lbsim.overrides({"lb": {"algorithm": "ops"}}, run__end_us=5.5, network_trimming=False) == [
        'lb.algorithm="ops"', "run.end_us=5.5", "network.trimming=false"]


def test_bad_input_raises_with_the_cli_message():
    with pytest.raises(ValueError) as e:
        lbsim.run(DEMO, lb_algoritm="ops")
    assert "lb.algoritm" in str(e.value) and "lb.algorithm" in str(e.value)  # names the key and the closest one
    with pytest.raises(ValueError):
        lbsim.run(DEMO, topology_hosts=-4)
    with pytest.raises(TypeError):
        lbsim.run(DEMO, topology_hosts=object())


def test_unfinished_values_are_nan():
    r = lbsim.run(DEMO, topology_hosts=16, run_end_us=2)
    assert r.exit_code == 3 and not r.finished
    fl = r.flows
    assert fl.fct_us.isna().any()
    assert fl[fl.finished == 0].fct_us.isna().all() and fl[fl.finished == 0].slowdown.isna().all()
    assert not (fl.fct_us.dropna() < 0).any()


def test_status_and_statistics_over_no_transfer(tmp_path):
    """A run that stopped early says so, and a statistic over no transfer is NaN, never 0 (issue
    "Every output tells the truth", item 4)."""
    r = lbsim.run(DEMO, topology_hosts=16, workload_size="64KiB", lb_algorithm="ecmp", run_end_us=6)
    assert r.status == "unfinished" and 0 < r.completed < r.transfers == 16 and not r.finished
    assert f"unfinished, {r.completed}/16 completed" in repr(r)
    c = cli("compare", DEMO, "--lb", "ecmp,ops", "--out", tmp_path / "cmp", "--set", "topology.hosts=16",
            "--set", "run.end_us=1")
    assert c.returncode == 3, c.stderr
    cmp = lbsim.load(tmp_path / "cmp")
    t = cmp.table
    assert list(t.status) == ["unfinished", "unfinished"] and list(t.completed) == [0, 0]
    assert t.max_fct_us.isna().all() and t.mean_slowdown.isna().all()
    assert cmp["ecmp"].summary["fct_us"]["max"] is None
    assert "no transfer completed" in repr(cmp["ecmp"])


def test_load_run_compare_and_sweep_folders(tmp_path):
    run_dir = tmp_path / "run"
    lbsim.run(DEMO, out=run_dir, topology_hosts=16, workload_size="64KiB")
    r = lbsim.load(run_dir)
    assert isinstance(r, lbsim.Result) and len(r.flows) == 16

    c = cli("compare", DEMO, "--lb", "ecmp,ops", "--out", tmp_path / "cmp", *sum([["--set", s] for s in SMALL_SET], []))
    assert c.returncode == 0, c.stderr
    cmp = lbsim.load(tmp_path / "cmp")
    assert isinstance(cmp, lbsim.Compare) and sorted(cmp) == ["ecmp", "ops"]
    assert list(cmp.table.index) == ["ecmp", "ops"]
    assert set(cmp.flows.run) == {"ecmp", "ops"} and len(cmp.flows) == 32
    assert cmp.table.loc["ops", "max_fct_us"] == pytest.approx(cmp["ops"].summary["fct_us"]["max"])

    sweep_file = tmp_path / "s.toml"
    sweep_file.write_text(f'name = "s"\nbase = "{DEMO}"\n[set]\n"topology.hosts" = 16\n"workload.size" = "64KiB"\n'
                          '[grid]\n"lb.algorithm" = ["ecmp", "ops"]\n"run.seed" = [1, 2]\n')
    table = lbsim.sweep(sweep_file, out=tmp_path / "sw", workers=2)
    assert len(table) == 4 and set(table["lb.algorithm"]) == {"ecmp", "ops"}
    assert (table.status == "ok").all() and table.max_fct_us.notna().all()
    assert table.attrs["folder"] == str(tmp_path / "sw")
    sw = lbsim.load(tmp_path / "sw")
    assert isinstance(sw, lbsim.Sweep) and len(sw.results) == 4
    one = sw.run(table.run.iloc[0])
    assert one.summary["fct_us"]["max"] == pytest.approx(table.max_fct_us.iloc[0], rel=1e-9)
    # The same sweep again resumes: nothing to run, the same table.
    again = lbsim.sweep(sweep_file, out=tmp_path / "sw")
    assert again.drop(columns=["wall_s", "peak_rss_mb"]).equals(table.drop(columns=["wall_s", "peak_rss_mb"]))


def test_sweep_bad_file_raises(tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text('[grid]\n"lb.algoritm" = ["ecmp"]\n')
    with pytest.raises(ValueError) as e:
        lbsim.sweep(f, out=tmp_path / "o")
    assert "lb.algoritm" in str(e.value)


def test_example_script_runs(tmp_path):
    """examples/python/reps_fig15.py at its smallest size writes its figure and table."""
    script = SRC / "examples" / "python" / "reps_fig15.py"
    p = subprocess.run([os.environ.get("LBSIM_PYTHON", "/usr/bin/python3"), str(script), "--tiny", "--out", str(tmp_path)],
                       capture_output=True, text=True, env=dict(os.environ))
    assert p.returncode == 0, p.stdout + p.stderr
    assert (tmp_path / "reps_fig15.svg").stat().st_size > 1000
    t = pd.read_csv(tmp_path / "reps_fig15.csv")
    assert set(t.lb) == {"ops", "reps"} and t.relative_to_64k.notna().all()


# Issue 52 item 11: a grid given as a dict was a raw TypeError; it is the [grid] of a sweep file.
def test_sweep_takes_a_grid_as_a_dict(tmp_path):
    table = lbsim.sweep({"lb.algorithm": ["ecmp", "ops"], "run": {"seed": [1, 2]}}, base=DEMO,
                        set={"topology.hosts": 16, "workload_size": "64KiB"}, name="g", out=tmp_path / "g",
                        workers=2)
    assert len(table) == 4 and set(table["lb.algorithm"]) == {"ecmp", "ops"}
    assert set(table["run.seed"]) == {1, 2}
    assert (table.status == "ok").all()
    # The same points as the sweep file with that grid: the same FCTs.
    f = tmp_path / "g.toml"
    f.write_text(f'name = "g"\nbase = "{DEMO}"\n[set]\n"topology.hosts" = 16\n"workload.size" = "64KiB"\n'
                 '[grid]\n"lb.algorithm" = ["ecmp", "ops"]\n"run.seed" = [1, 2]\n')
    same = lbsim.sweep(f, out=tmp_path / "f")
    assert list(same.max_fct_us) == list(table.max_fct_us)
    with pytest.raises(TypeError, match=r"grid\['lb.algorithm'\]: expected a non-empty list"):
        lbsim.sweep({"lb.algorithm": "ops"}, out=tmp_path / "x")


# Issue 52 item 11: a Python caller never typed --set; the message names the argument it did pass.
def test_errors_name_the_python_argument_not_set(tmp_path):
    with pytest.raises(lbsim.UserError) as e:
        lbsim.run(DEMO, lb_algoritm="ops")
    assert str(e.value).startswith("lb_algoritm='ops': unknown key 'lb.algoritm'"), str(e.value)
    assert "--set" not in str(e.value)
    with pytest.raises(lbsim.UserError) as e:
        lbsim.run({"topology": {"hosts": "many"}})
    assert str(e.value).startswith("config['topology.hosts']: key 'topology.hosts': expected an integer"), str(e.value)
    with pytest.raises(lbsim.UserError) as e:
        lbsim.run(DEMO, set=["lb.algoritm=\"ops\""])
    assert "(--set): unknown key 'lb.algoritm'" in str(e.value), str(e.value)
