"""lbsim from Python: run simulations, sweeps and read any lbsim folder as pandas DataFrames.

    import lbsim
    r = lbsim.run("examples/demo.toml", lb_algorithm="ops", topology_hosts=16)
    r.flows.fct_us.describe()

`run` runs `lbsim run` (the executable of this build), so the run folder is the CLI's byte for byte. `sweep` runs `lbsim sweep` and returns its results table; `load` reads a
run, compare, sweep or reproduce folder. docs/python.md.
"""
from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Union

import pandas as pd

try:  # written by CMake in the build tree
    from . import _paths
except ImportError:  # pragma: no cover
    _paths = None

__all__ = ["run", "sweep", "load", "Result", "Compare", "Sweep", "UserError", "overrides", "executable"]


class UserError(ValueError):
    """Bad input (config, keys, files): the message `lbsim` prints, naming file, line and key."""


# flows.csv writes -1 for times and ratios of entries that did not start / finish; the DataFrames
# hold NaN there (docs/python.md), so that means and quantiles cover finished entries only.
_UNSET_FLOW_COLUMNS = ("start_us", "finish_us", "fct_us", "slowdown", "sender_done_us", "sender_fct_us")


# Statistics over the completed transfers: None (no transfer completed) becomes NaN in the tables.
_STAT_COLUMNS = ("max_fct_us", "p99_fct_us", "mean_fct_us", "p50_fct_us", "mean_slowdown")


# ---- configs ------------------------------------------------------------------------------------

def _toml(v: Any) -> str:
    """A Python value as the TOML text `--set` takes."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if not math.isfinite(v):
            raise ValueError(f"{v!r}: not a finite number")
        return repr(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    if isinstance(v, (str, os.PathLike)):
        return json.dumps(str(v))  # a TOML basic string (JSON escapes are TOML's)
    raise TypeError(f"{v!r}: cannot be a config value (str, int, float, bool or a list of them)")


def _key(name: str) -> str:
    """A keyword argument as a config key: lb_algorithm -> lb.algorithm, run__end_us -> run.end_us."""
    if "." in name:
        return name
    if "__" in name:
        return name.replace("__", ".", 1)
    section, _, rest = name.partition("_")
    if not rest:
        raise TypeError(f"{name!r}: expected a config key such as lb_algorithm (section_key)")
    return f"{section}.{rest}"


def overrides(config: Optional[Dict[str, Any]] = None, **kw: Any) -> List[str]:
    """`section.key=value` overrides from a dict ({"lb": {"algorithm": "ops"}} or {"lb.algorithm":
    "ops"}) and keyword arguments (lb_algorithm="ops")."""
    out: List[str] = []
    for k, v in (config or {}).items():
        if isinstance(v, dict):
            for k2, v2 in v.items():
                out.append(f"{k}.{k2}={_toml(v2)}")
        else:
            out.append(f"{_key(k)}={_toml(v)}")
    for k, v in kw.items():
        out.append(f"{_key(k)}={_toml(v)}")
    return out


def executable() -> str:
    """The lbsim executable: $LBSIM_EXE, the one of this build, or `lbsim` on PATH."""
    for cand in (os.environ.get("LBSIM_EXE"), getattr(_paths, "LBSIM_EXE", None), shutil.which("lbsim")):
        if cand and os.access(cand, os.X_OK):
            return cand
    raise FileNotFoundError("cannot find the lbsim executable (set LBSIM_EXE)")


# ---- results ------------------------------------------------------------------------------------

def _read_csv(path: Path) -> Optional[pd.DataFrame]:
    if not path.is_file():
        return None
    # keep_default_na=False: an empty label or tag stays "", only truly numeric columns are parsed.
    return pd.read_csv(path, keep_default_na=False, na_values=[""])


class Result:
    """One run folder: `summary` (dict), `flows`, `ports`, `queues`, `path_usage` (DataFrames, the
    columns of docs/outputs.md), `config` (the resolved config.toml text), `exit_code`."""

    def __init__(self, folder: Union[str, Path], exit_code: Optional[int] = None):
        self.folder = Path(folder)
        if not (self.folder / "summary.json").is_file():
            raise FileNotFoundError(f"{self.folder}: not a run folder (no summary.json)")
        self.summary: Dict[str, Any] = json.loads((self.folder / "summary.json").read_text())
        self.exit_code = exit_code
        self._cache: Dict[str, Optional[pd.DataFrame]] = {}
        self._texts: Dict[str, str] = {}

    def _frame(self, name: str) -> Optional[pd.DataFrame]:
        if name not in self._cache:
            self._cache[name] = None if self.folder is None else _read_csv(self.folder / name)
        return self._cache[name]

    @property
    def flows(self) -> pd.DataFrame:
        df = self._frame("flows.csv")
        if df is None:
            raise FileNotFoundError(f"{self.folder}/flows.csv")
        df = df.copy()
        for c in _UNSET_FLOW_COLUMNS:
            if c in df:
                df[c] = df[c].where(df[c] >= 0)
        return df

    @property
    def ports(self) -> Optional[pd.DataFrame]:
        return self._frame("ports.csv")

    @property
    def queues(self) -> Optional[pd.DataFrame]:
        return self._frame("queues.csv")

    @property
    def path_usage(self) -> Optional[pd.DataFrame]:
        return self._frame("path_usage.csv")

    @property
    def config(self) -> str:
        """The resolved config.toml text (every key)."""
        return self._text("config.toml")

    @property
    def flows_csv(self) -> str:
        """flows.csv as written (byte-identical to `lbsim run`)."""
        return self._text("flows.csv")

    def _text(self, name: str) -> str:
        if name in self._texts:
            return self._texts[name]
        if self.folder is None:
            raise FileNotFoundError(name)
        return (self.folder / name).read_text()

    @property
    def status(self) -> str:
        """How the run ended (summary.json `status`): completed, unfinished (transfers left at
        run.end_us), watchdog, stalled or interrupted."""
        s = self.summary
        if "status" in s:
            return s["status"]
        if s.get("interrupted"):
            return "interrupted"
        return "unfinished" if s.get("unfinished") else "completed"

    @property
    def completed(self) -> int:
        """Transfers that completed (the FCT statistics cover those only)."""
        return int(self.summary.get("completed", 0))

    @property
    def transfers(self) -> int:
        return int(self.summary.get("workload", {}).get("transfers", 0))

    @property
    def finished(self) -> bool:
        return self.status == "completed"

    def __repr__(self) -> str:
        s = self.summary
        mx = s.get("fct_us", {}).get("max")
        fct = "no transfer completed" if mx is None else f"max FCT {mx:.2f} us"
        return (f"<lbsim.Result {self.folder}: {s.get('load_balancer')} on {s.get('topology', {}).get('kind')}, "
                f"{self.status}, {self.completed}/{self.transfers} completed, {fct}>")


class Compare(dict):
    """A `lbsim compare` folder: {value: Result} in folder order, and `table` (one row per run)."""

    def __init__(self, folder: Union[str, Path]):
        super().__init__()
        self.folder = Path(folder)
        for d in sorted(p for p in self.folder.iterdir() if (p / "summary.json").is_file()):
            self[d.name] = Result(d)
        if not self:
            raise FileNotFoundError(f"{self.folder}: no run folders (summary.json) inside")

    @property
    def table(self) -> pd.DataFrame:
        rows = [_summary_row(name, r.summary, r.status) for name, r in self.items()]
        return pd.DataFrame(rows).set_index("run").astype({c: float for c in _STAT_COLUMNS})

    @property
    def flows(self) -> pd.DataFrame:
        """Every run's flows with a `run` column."""
        return pd.concat([r.flows.assign(run=name) for name, r in self.items()], ignore_index=True)


class Sweep:
    """A sweep or reproduce folder: `results` (results.csv, unfinished metrics as NaN), `manifest`
    (sweep.json) and `run(name)` (the Result of one point)."""

    def __init__(self, folder: Union[str, Path]):
        self.folder = Path(folder)
        path = self.folder / "results.csv"
        if not path.is_file():
            raise FileNotFoundError(f"{self.folder}: not a sweep folder (no results.csv)")
        self.results = pd.read_csv(path, keep_default_na=False, na_values=["", "-1"])
        mf = self.folder / "sweep.json"
        self.manifest = json.loads(mf.read_text()) if mf.is_file() else {}

    def run(self, name: str) -> Result:
        return Result(self.folder / "runs" / name)

    def runs(self) -> Dict[str, Result]:
        out = {}
        for name in self.results["run"]:
            d = self.folder / "runs" / str(name)
            if (d / "summary.json").is_file():
                out[str(name)] = Result(d)
        return out

    def __repr__(self) -> str:
        return f"<lbsim.Sweep {self.folder}: {len(self.results)} point(s)>"


def _summary_row(name: str, s: Dict[str, Any], status: str = "") -> Dict[str, Any]:
    # A statistic over no completed transfer is null in summary.json: NaN here, never 0.
    f, sd = s.get("fct_us", {}), s.get("slowdown", {})
    return {"run": name, "status": status or s.get("status"), "completed": s.get("completed"), "transfers": s.get("workload", {}).get("transfers"),
            "max_fct_us": f.get("max"), "p99_fct_us": f.get("p99"), "mean_fct_us": f.get("mean"),
            "p50_fct_us": f.get("p50"), "mean_slowdown": sd.get("mean"), "drops": s.get("drops"),
            "failure_drops": s.get("failure_drops"), "no_route_drops": s.get("no_route_drops"),
            "ttl_drops": s.get("ttl_drops"), "trims": s.get("trims"), "retransmits": s.get("retransmits"), "timeouts": s.get("timeouts"),
            "ooo_pct": s.get("ooo_pct")}


def load(folder: Union[str, Path]):
    """Reads any lbsim folder: a run folder (summary.json) -> Result; a sweep or reproduce folder
    (results.csv) -> Sweep; a compare folder (run folders inside) -> Compare."""
    p = Path(folder)
    if not p.is_dir():
        raise FileNotFoundError(f"{p}: not a folder")
    if (p / "summary.json").is_file():
        return Result(p)
    if (p / "results.csv").is_file():
        return Sweep(p)
    return Compare(p)


# ---- running ------------------------------------------------------------------------------------

def run(config: Union[None, str, os.PathLike, Dict[str, Any]] = None, *, out: Union[None, str, os.PathLike] = None,
        seed: Optional[int] = None, set: Iterable[str] = (), progress: str = "off", **kw: Any) -> Result:
    """Runs one simulation. `config`: a TOML file, a dict of keys ({"lb": {"algorithm": "ops"}} or
    {"lb.algorithm": "ops"}) applied to the defaults, or None (defaults). Keyword arguments override
    keys (lb_algorithm="ops", topology_hosts=16; section__key spells the section out), `set` takes
    `lbsim run --set` strings. The run folder is `out` (kept), else a temporary folder that is read
    into the Result and removed (`folder` is then None). `progress`: run.progress ("off"; "on" shows
    the bar on stderr). Bad input raises UserError (a ValueError) with the CLI's message. Returns the
    Result; `exit_code` is what `lbsim run` exits with (0, or 3 with unfinished flows)."""
    if isinstance(config, dict):
        path, ov = "", overrides(config)
        origins = _origins(ov, lambda k, o: f"config[{k!r}]")
    else:
        path, ov, origins = ("" if config is None else os.fspath(config)), [], {}
    if isinstance(set, str):
        set = [set]
    origins.update(_origins(list(set), lambda k, o: f"set=[{o!r}] (--set)"))
    origins.update({_key(k): f"{k}={v!r}" for k, v in kw.items()})
    ov += list(set) + overrides(None, **kw)
    if seed is not None:
        ov.append(f"run.seed={int(seed)}")
        origins["run.seed"] = f"seed={seed!r}"
    tmp = tempfile.mkdtemp(prefix="lbsim-run-")
    try:
        folder = Path(out).absolute() if out is not None else Path(tmp) / "run"
        rc = _run_cli(path, ov, folder, progress, tmp, origins)
        r = Result(folder, rc)
        if out is None:  # read everything, then the temporary folder goes
            for name in ("flows.csv", "ports.csv", "queues.csv", "path_usage.csv"):
                r._frame(name)
            for name in ("flows.csv", "config.toml"):
                r._texts[name] = (folder / name).read_text()
            r.folder = None
        return r
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _origins(ov: List[str], name) -> Dict[str, str]:
    """Each key of the `section.key=value` strings `ov` -> the Python argument that gave it."""
    return {o.partition("=")[0].strip(): name(o.partition("=")[0].strip(), o) for o in ov}


def _python_message(msg: str, origins: Dict[str, str]) -> str:
    """The CLI's message for a key a Python argument gave: `--set` (which a Python caller never typed)
    becomes that argument, e.g. "lb_algoritm='ops': unknown key 'lb.algoritm' (did you mean ...)"."""
    if msg.startswith("lbsim: error: "):
        msg = msg[len("lbsim: error: "):]
    if not msg.startswith("--set: "):
        return msg
    rest = msg[len("--set: "):]
    for key in re.findall(r"'([^']+)'", rest):
        if key in origins:
            return f"{origins[key]}: {rest}"
    return f"a key given from Python: {rest}"


def _run_cli(path: str, ov: List[str], folder: Path, progress: str, tmp: str,
             origins: Optional[Dict[str, str]] = None) -> int:
    if not path:  # the defaults: an empty config file
        path = os.path.join(tmp, "defaults.toml")
        Path(path).write_text("")
    args = [executable(), "run", path, "--out", str(folder)]
    for o in ov:
        args += ["--set", o]
    quiet = progress == "off"
    if quiet:
        args.append("--quiet")
    else:
        args += ["--set", f'run.progress="{progress}"']
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE if quiet else None, text=True)
    if p.returncode in (0, 3):
        return p.returncode
    msg = _python_message((p.stderr or "").strip(), origins or {})
    if p.returncode == 2:
        raise UserError(msg or "lbsim run: bad input")
    if p.returncode == 130:
        raise KeyboardInterrupt(f"lbsim run interrupted; what was measured is in {folder}")
    raise RuntimeError(f"lbsim run exited with {p.returncode}: {msg}")


def sweep(file: Union[str, os.PathLike, Dict[str, Any]], *, base: Union[None, str, os.PathLike] = None,
          set: Optional[Dict[str, Any]] = None, name: Optional[str] = None,
          out: Union[None, str, os.PathLike] = None, workers: Optional[int] = None,
          quiet: bool = True) -> pd.DataFrame:
    """Runs `lbsim sweep FILE` (resumable; the same folder as the CLI) and returns its results table
    (results.csv; unfinished metrics NaN). `file` is a sweep file, or the grid as a dict
    ({"lb.algorithm": ["ecmp", "ops"]}: one point per combination), then with `base` (a config file),
    `set` (keys for every point, a dict) and `name` (default "python"; the folder results/sweeps/NAME
    unless `out`) as in a sweep file (docs/workflow.md). The table's `attrs["folder"]` is the sweep
    folder; a run that failed does not raise (its row says so) but bad input raises UserError."""
    tmp = None
    if isinstance(file, dict):
        grid = _flat(file)
        for k, v in grid.items():
            if not isinstance(v, (list, tuple)) or not v:
                raise TypeError(f"grid[{k!r}]: expected a non-empty list of values, got {v!r}")
        tmp = tempfile.mkdtemp(prefix="lbsim-sweep-")
        file = Path(tmp) / f"{name or 'python'}.toml"
        file.write_text(_sweep_file_text(name or "python", base, set or {}, grid))
    elif base is not None or set is not None or name is not None:
        raise TypeError("base, set and name go with a grid given as a dict; a sweep file has its own")
    try:
        return _sweep_cli(file, out, workers, quiet)
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def _sweep_cli(file, out, workers, quiet) -> pd.DataFrame:
    args = [executable(), "sweep", os.fspath(file)]
    if out is not None:
        args += ["--out", os.fspath(out)]
    # The folder, and the checks of the sweep file, before anything runs.
    dry = subprocess.run(args + ["--dry-run"], capture_output=True, text=True)
    if dry.returncode != 0:
        raise UserError(dry.stderr.strip() or f"lbsim sweep {file}: bad input")
    folder = _sweep_folder(dry.stdout)
    if workers is not None:
        args += ["--workers", str(int(workers))]
    p = subprocess.run(args, capture_output=quiet, text=True)
    if p.returncode == 2:
        raise UserError((p.stderr or "").strip() or f"lbsim sweep {file}: bad input")
    if p.returncode not in (0, 3, 4):  # 4: a point was killed (its row says so)
        raise RuntimeError(f"lbsim sweep {file} exited with {p.returncode}: {(p.stderr or '').strip()}")
    sw = Sweep(folder)
    table = sw.results
    table.attrs["folder"] = str(folder)
    return table


def _flat(d: Dict[str, Any]) -> Dict[str, Any]:
    """{"lb": {"algorithm": v}}, {"lb.algorithm": v} or {"lb_algorithm": v} -> {"lb.algorithm": v}."""
    out: Dict[str, Any] = {}
    for k, v in d.items():
        if isinstance(v, dict):
            for k2, v2 in v.items():
                out[f"{k}.{k2}"] = v2
        else:
            out[_key(k)] = v
    return out


def _sweep_file_text(name: str, base, set: Dict[str, Any], grid: Dict[str, Any]) -> str:
    """A sweep file (docs/workflow.md) for a grid given as a dict; `base` made absolute (a sweep file
    reads it relative to itself)."""
    lines = [f"name = {_toml(name)}"]
    if base is not None:
        lines.append(f"base = {_toml(os.path.abspath(os.fspath(base)))}")
    for table, kv in (("set", _flat(set)), ("grid", grid)):
        if kv:
            lines.append(f"[{table}]")
            lines += [f"{json.dumps(k)} = {_toml(v)}" for k, v in kv.items()]
    return "\n".join(lines) + "\n"


def _sweep_folder(dry_run_stdout: str) -> Path:
    first = dry_run_stdout.splitlines()[0] if dry_run_stdout else ""
    marker = "; output folder "
    if marker not in first:
        raise RuntimeError(f"lbsim sweep --dry-run: unexpected output {first!r}")
    return Path(first.split(marker, 1)[1])
