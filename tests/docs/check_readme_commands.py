#!/usr/bin/python3
"""Every command shown in README.md and docs/*.md runs (ctest readme_commands; issue 18 "Docs that
stay true").

README.md: the lines of its ```sh blocks that start with `build/lbsim` (and the Python snippet).
docs/*.md (with --docs, after the README's): the lines of any code block that start with `lbsim ` or `build/lbsim ` (a `$ `
prompt stripped), except usage templates: lines with a placeholder in capitals (CONFIG, DIR, ...),
an optional part in brackets, alternatives with ` | ` or `...`. Text after a run of two spaces
(an explanation in parentheses) is not part of the command. The docs' commands run in the same
folder after the README's, so they may use what those wrote (results/demo, results/demo-compare,
the example sweep);
docs/report.md runs last (it reports on what the other pages' commands wrote).
Each command runs in a scratch folder that links `build/lbsim`, `examples/` and `tools/` of this
tree (so `results/` and `/tmp/...` outputs land in the scratch folder) and must exit 0, as written
except:
  - SMALL: text replaced to shrink a long run (a smaller message, fewer layers, `--quick`);
  - SKIP: commands that cannot run here (a Slurm submission, covered by the workflow tests; a
    placeholder file name) and the scenario scripts and make targets (not lbsim commands).
A new command runs as written: keep it small or add it here.

    tests/docs/check_readme_commands.py LBSIM_BINARY SOURCE_DIR WORK_DIR [--docs]
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
    # docs/*.md
    ("reproduce reps-fig14", "reproduce reps-fig14 --quick"),
    ("reproduce reps-fig15 --workers 2", "reproduce reps-fig15 --quick --workers 2"),
    ("--layers 16 --at 1,2,4,8,16", "--layers 4 --at 1,2,4"),
]
SKIP = ("--slurm", "--discovered DUMP",
        "site.toml")  # docs/slimfly-toolkit.md: the user's own site file
PLACEHOLDER = re.compile(r"\b[A-Z][A-Z_]{2,}\b|\[|\s\|\s|\.\.\.")


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


def doc_commands(path):
    """Concrete lbsim command lines of any code block of a docs page (see the module comment)."""
    out = []
    for block in re.findall(r"```[a-z]*\n(.*?)```", open(path).read(), flags=re.S):
        for line in block.splitlines():
            line = line.strip()
            if line.startswith("$ "):
                line = line[2:]
            line = re.split(r"\s{2,}\(|\s#", line)[0].strip()
            if line.startswith("lbsim "):
                line = "build/" + line
            if not line.startswith("build/lbsim ") or PLACEHOLDER.search(line):
                continue
            out.extend(part.strip() for part in line.split("&&"))
    return out


def main():
    lbsim, src, work = sys.argv[1:4]
    docs = "--docs" in sys.argv[4:]
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
    if docs:
        # After the README's commands (the docs may read what they wrote), every page's; report.md
        # last: it reports on folders the other pages' commands write.
        pages = sorted(os.listdir(os.path.join(src, "docs")), key=lambda n: (n == "report.md", n))
        found = [c for name in pages if name.endswith(".md") for c in doc_commands(os.path.join(src, "docs", name))]
        if len(found) < 10:
            die(f"only {len(found)} commands found in docs/*.md")
        cmds += found
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
            p = subprocess.run(args, cwd=work, capture_output=True, text=True, timeout=600)
            if p.returncode != 0:
                die(f"`{cmd}` exited with {p.returncode}:\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")
        else:
            run(cmd, work, tmp)
        ran += 1
        print(f"check_readme_commands: ok: {cmd}")
    print(f"check_readme_commands: {ran} README{' and docs/*.md' if docs else ''} commands ran")


def run(cmd, work, tmp):
    small = cmd
    for a, b in SMALL:
        small = small.replace(a, b)
    args = shlex.split(small.replace("/tmp/", tmp + "/"), comments=True)
    p = subprocess.run(args, cwd=work, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        die(f"`{cmd}` exited with {p.returncode}:\n{p.stdout[-3000:]}\n{p.stderr[-3000:]}")


if __name__ == "__main__":
    main()
