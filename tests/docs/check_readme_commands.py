#!/usr/bin/python3
"""Every command shown in README.md runs (ctest readme_commands; issue 18 "Docs that stay true").

Takes the lines of README.md's ```sh blocks that start with `build/lbsim` (and the Python snippet),
runs each in a scratch folder that links `build/lbsim`, `examples/` and `tools/` of this tree (so
`results/` and `/tmp/...` outputs land in the scratch folder), and requires exit code 0. Commands
are run as written, except:
  - SMALL: text replaced to shrink a long run (a smaller message, fewer layers, smaller networks);
  - SKIP: commands that cannot run here (a Slurm submission, covered by the workflow tests; a
    placeholder file name) and the scenario scripts and make targets (not lbsim commands).
A new README command runs as written: keep it small or add it here.

    tests/docs/check_readme_commands.py LBSIM_BINARY SOURCE_DIR WORK_DIR
"""
import os
import re
import shlex
import shutil
import subprocess
import sys

SMALL = [  # (text of the command, replaced by)
    ("slim_fly_table2.toml", "slim_fly_table2.toml --set 'workload.size=\"64KiB\"'"),
    ("paths --fig3", "paths --fig3 --max-endpoints 2000"),
    ("--layers 16 --pattern adversarial", "--layers 4 --pattern adversarial"),
    ("symmetric_permutation.toml --lb", "symmetric_permutation.toml --set 'workload.size=\"256KiB\"' --lb"),
]
SKIP = ("--slurm", "--discovered DUMP")


def die(msg):
    sys.stderr.write(f"check_readme_commands: FAIL: {msg}\n")
    sys.exit(1)


def commands(readme):
    text = open(readme).read()
    out = []
    for block in re.findall(r"```sh\n(.*?)```", text, flags=re.S):
        py = re.search(r"(PYTHONPATH=\S+ /usr/bin/python3 -c '.*?')", block, flags=re.S)
        if py:
            out.append(py.group(1))
        for line in block.splitlines():
            line = line.split(" #")[0].strip()
            if line.startswith("build/lbsim"):
                out.extend(part.strip() for part in line.split("&&"))
    return out


def main():
    lbsim, src, work = sys.argv[1:4]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "build"))
    os.symlink(os.path.abspath(lbsim), os.path.join(work, "build", "lbsim"))
    pydir = os.path.join(os.path.dirname(os.path.abspath(lbsim)), "python")
    if os.path.isdir(pydir):
        os.symlink(pydir, os.path.join(work, "build", "python"))
    for d in ("examples", "tools"):
        os.symlink(os.path.join(src, d), os.path.join(work, d))
    tmp = os.path.join(work, "tmp")
    os.makedirs(tmp)
    cmds = commands(os.path.join(src, "README.md"))
    if len(cmds) < 10:
        die(f"only {len(cmds)} commands found in README.md")
    ran = 0
    for cmd in cmds:
        if any(s in cmd for s in SKIP):
            print(f"check_readme_commands: skipped: {cmd}")
            continue
        if cmd.startswith("PYTHONPATH"):
            if not os.path.isdir(pydir):
                print("check_readme_commands: skipped (no Python package in this build): the Python snippet")
                continue
            args = ["/bin/sh", "-c", cmd]
        else:
            small = cmd
            for a, b in SMALL:
                small = small.replace(a, b)
            args = shlex.split(small.replace("/tmp/", tmp + "/"), comments=True)
        p = subprocess.run(args, cwd=work, capture_output=True, text=True, timeout=600)
        if p.returncode != 0:
            die(f"`{cmd}` exited with {p.returncode}:\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
        ran += 1
        print(f"check_readme_commands: ok: {cmd}")
    print(f"check_readme_commands: {ran} README commands ran")


if __name__ == "__main__":
    main()
