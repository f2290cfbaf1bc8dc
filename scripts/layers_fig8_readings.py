#!/usr/bin/env python3
"""Readings of [SlimFly] Fig. 8 / sec. 6.3, 6.5 (q = 5: ~60 % of switch pairs with >= 3 disjoint
paths at 4 layers, 88.5 % at 8, ~100 % at 16): builds the q = 5 layers with each construction rule
(--detours exact3 | shortest | range, with and without our short-route guard) and counts ">= 3 disjoint
paths" in several ways from forwarding.txt. Prints a markdown table (docs/layered-routing.md,
"Path diversity: which rule reproduces Fig. 8").
Usage: scripts/layers_fig8_readings.py LBSIM [SEED ...]"""
import itertools, os, subprocess, sys, tempfile

exe = sys.argv[1]
seeds = [int(s) for s in sys.argv[2:]] or [1]
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
cfg = os.path.join(root, "examples/layered/sf-q5.toml")


def load(path):
    nh = []
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                continue
            w = line.split()
            if w[0] == "layers":
                n = int(w[3])
            elif w[0] == "layer":
                nh.append([])
            else:
                nh[-1].append([int(x) for x in w[1:]])
    return n, nh


def path(nh, l, s, d):
    p = [s]
    while p[-1] != d:
        p.append(nh[l][p[-1]][d])
    return tuple(p)


def edges(p, directed):
    return {(a, b) if directed or a < b else (b, a) for a, b in zip(p, p[1:])}


def has3(paths, conflict):
    paths = sorted(set(paths))
    for a, b, c in itertools.combinations(paths, 3):
        if not conflict(a, b) and not conflict(a, c) and not conflict(b, c):
            return True
    return False


def link_conflict(directed):
    return lambda a, b: bool(edges(a, directed) & edges(b, directed))


def node_conflict(a, b):  # share a link or an intermediate switch
    return bool(edges(a, False) & edges(b, False)) or bool(set(a[1:-1]) & set(b[1:-1]))


def shares(n, nh, L, dist):
    ordered = [(s, d) for s in range(n) for d in range(n) if s != d]
    ps = {(s, d): [path(nh, l, s, d) for l in range(L)] for s, d in ordered}
    und, dirc, node = link_conflict(False), link_conflict(True), node_conflict
    r = {}
    r["links (undirected), ordered pair"] = sum(has3(ps[k], und) for k in ordered) / len(ordered)
    r["directed links"] = sum(has3(ps[k], dirc) for k in ordered) / len(ordered)
    r["node-disjoint"] = sum(has3(ps[k], node) for k in ordered) / len(ordered)
    r["non-minimal paths only"] = sum(has3([p for p in ps[k] if len(p) - 1 > dist[k]], und) for k in ordered) / len(ordered)
    unordered = [(s, d) for s, d in ordered if s < d]
    r["unordered pair, both directions' paths"] = sum(
        has3(ps[(s, d)] + [tuple(reversed(p)) for p in ps[(d, s)]], und) for s, d in unordered) / len(unordered)
    r["unordered pair, >= 3 in each direction"] = sum(
        has3(ps[(s, d)], und) and has3(ps[(d, s)], und) for s, d in unordered) / len(unordered)
    return r


print("| construction | seed | counting | 4 layers | 8 layers | 16 layers |")
print("|---|---|---|---|---|---|")
with tempfile.TemporaryDirectory() as work:
    for rule in ["exact3", "shortest", "range"]:
        for guard in [[], ["--no-guard"]]:
            for seed in seeds:
                subprocess.run([exe, "layers", cfg, "-L", "16", "--seed", str(seed), "--detours", rule, *guard,
                                "--tables", "--out", work], check=True, stdout=subprocess.DEVNULL)
                n, nh = load(os.path.join(work, "forwarding.txt"))
                dist = {(s, d): len(path(nh, 0, s, d)) - 1 for s in range(n) for d in range(n) if s != d}
                res = {L: shares(n, nh, L, dist) for L in (4, 8, 16)}
                for what in res[4]:
                    name = f"{rule}{' --no-guard' if guard else ''}"
                    print(f"| {name} | {seed} | {what} | " + " | ".join(f"{100 * res[L][what]:.1f} %" for L in (4, 8, 16)) + " |")
print("| paper (q = 5) | | | ~60 % | 88.5 % | ~100 % |")
