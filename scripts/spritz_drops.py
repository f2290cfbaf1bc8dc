#!/usr/bin/env python3
"""Where and when the sprayed schemes lose packets on the Table II Dragonfly (docs/spritz.md
"Why Spray trims more at full scale"; scripts/spritz_docs.sh spray-drops runs the points).

Usage: scripts/spritz_drops.py RUNS_DIR [TITLE]
RUNS_DIR holds one run folder per point, named like a sweep's (`..._kind-<pattern>_scheme-<name>`),
each written with output.trims_csv = true and output.path_usage_tag = "default" (trims.csv,
path_usage.csv, ports.csv, summary.json; docs/outputs.md). Prints, per pattern and scheme:
  * p99 FCT and dropped packets (trims + drops), as the fig6-partial block counts them;
  * where the trims are, by the role of the link in the packet's path: the global link from the
    source group straight to the destination group (the global hop of the minimal path), the first
    global hop of a path through an intermediate group, the second one (into the destination group),
    the local links of the source / intermediate / destination group, the receiver's host link;
    and by hop (trims.csv `hop`: the switch the packet was at, 1 = the sender's switch);
  * how the packets spread (path_usage.csv): distinct EVs per flow, the effective number of paths
    per flow (1 / sum of squared shares), the share of packets on entry 0 (the minimal path, Table I's
    lowest latency) and the NACKs of entry 0 out of all NACKs;
  * concentration of a source group's packets on its global links: per source group the packets
    whose first global hop is each of its global links, the direct link's load relative to an even
    spread over the group's global links (1.0 = its share), and max / mean over the group's links;
  * the time profile of the trims (per time bin, split into direct link / other links).
Only the standard library is used.
"""
import collections
import csv
import json
import os
import re
import sys

BINS = [0, 10, 25, 50, 100, 200, 300, 400, 1e9]


def group_of(label):
    m = re.match(r"g(\d+)s\d+$", label)
    return int(m.group(1)) if m else None


def load(run):
    j = json.load(open(os.path.join(run, "summary.json")))
    host_group, global_links = {}, collections.defaultdict(set)
    hosts = j["topology"]["hosts"]  # hosts are nodes 0 .. hosts-1
    for r in csv.DictReader(open(os.path.join(run, "ports.csv"))):
        if int(r["node"]) < hosts:
            host_group[int(r["node"])] = group_of(r["peer_label"])
        if r["link_kind"] == "global":
            global_links[group_of(r["node_label"])].add((r["node_label"], r["peer_label"]))
    return j, host_group, global_links


def role(kind, node_label, peer_label, sg, dg):
    """The role of the link node -> peer in a packet's path from group sg to group dg."""
    if kind == "host":
        return "host link to the receiver"
    a, b = group_of(node_label), group_of(peer_label)
    if kind == "global":
        if a == sg and b == dg:
            return "global, source -> destination group (minimal)"
        if a == sg:
            return "global, 1st hop to an intermediate group"
        if b == dg:
            return "global, 2nd hop into the destination group"
        return "global, other"
    if a == sg:
        return "local, source group"
    if a == dg:
        return "local, destination group"
    return "local, intermediate group"


ROLES = ["global, source -> destination group (minimal)", "global, 1st hop to an intermediate group",
         "global, 2nd hop into the destination group", "global, other", "local, source group",
         "local, intermediate group", "local, destination group", "host link to the receiver"]


def analyse(run):
    j, host_group, global_links = load(run)
    out = {"p99": j["fct_us"]["p99"], "lost": j["trims"] + j["drops"], "trims": j["trims"], "end": j["sim_time_us"]}
    # trims.csv: link role, hop, time.
    roles, hops, tbins = collections.Counter(), collections.Counter(), collections.Counter()
    f = os.path.join(run, "trims.csv")
    out["has_trims"] = os.path.exists(f)
    if out["has_trims"]:
        for r in csv.DictReader(open(f)):
            sg, dg = host_group[int(r["src"])], host_group[int(r["dst"])]
            ro = role(r["link_kind"], r["node_label"], r["peer_label"], sg, dg)
            roles[ro] += 1
            hops[int(r["hop"])] += 1
            t = float(r["time_us"])
            b = next(i for i in range(len(BINS) - 1) if BINS[i] <= t < BINS[i + 1])
            tbins[(b, ro == ROLES[0])] += 1
    out["roles"], out["hops"], out["tbins"] = roles, hops, tbins
    # path_usage.csv: spread per flow, entry 0, first global hop per source group.
    per_flow = collections.defaultdict(dict)
    entry0 = nacks0 = nacks = total = 0
    entries = collections.defaultdict(int)  # flow -> entries in its EV entry list (largest index used + 1)
    first_global = collections.defaultdict(collections.Counter)  # source group -> (a, b) -> packets
    direct = collections.Counter()  # source group -> packets over the global link to their flow's destination group
    for r in csv.DictReader(open(os.path.join(run, "path_usage.csv"))):
        s = int(r["sent"])
        if s == 0:
            continue
        fl = int(r["flow"])
        per_flow[fl][r["ev"]] = per_flow[fl].get(r["ev"], 0) + s
        entries[fl] = max(entries[fl], int(r["entry"]) + 1)
        total += s
        nacks += int(r["nacks"])
        if r["entry"] == "0":
            entry0 += s
            nacks0 += int(r["nacks"])
        sg, dg = host_group[int(r["src"])], host_group[int(r["dst"])]
        hopsw = r["path"].split(">")
        for a, b in zip(hopsw, hopsw[1:]):
            if group_of(a) != group_of(b):
                first_global[sg][(a, b)] += s
                if group_of(b) == dg:
                    direct[sg] += s
                break
    evs = [len(v) for v in per_flow.values()]
    eff = []
    for v in per_flow.values():
        n = sum(v.values())
        eff.append(1.0 / sum((x / n) ** 2 for x in v.values()))
    out["evs"] = (sum(evs) / len(evs), min(evs), max(evs))
    out["eff"] = (sum(eff) / len(eff), min(eff), max(eff))
    out["entry0"] = entry0 / total
    out["even0"] = sum(1 / n for n in entries.values()) / len(entries)
    out["nacks0"], out["nacks"] = nacks0, nacks
    rel, peak = [], []
    for g, c in first_global.items():
        links = len(global_links[g])
        tot = sum(c.values())
        mean = tot / links
        rel.append(direct[g] / mean)
        peak.append(max(c.values()) / mean)
    out["direct_rel"] = (sum(rel) / len(rel), min(rel), max(rel))
    out["peak_rel"] = (sum(peak) / len(peak), min(peak), max(peak))
    out["links_per_group"] = len(next(iter(global_links.values())))
    return out


def main():
    root = sys.argv[1]
    title = sys.argv[2] if len(sys.argv) > 2 else "Table II Dragonfly, 8 MiB, seed 1"
    runs = {}
    for name in sorted(os.listdir(root)):
        m = re.search(r"kind-(\w+?)_scheme-(\w+)$", name)
        if m and os.path.exists(os.path.join(root, name, "summary.json")):
            runs[(m.group(1), m.group(2))] = analyse(os.path.join(root, name))
    kinds = sorted({k for k, _ in runs}, key=lambda k: k != "adversarial")
    schemes = [s for s in ["ops_u", "ops_w", "spritz_u", "spritz_w", "spritz_u_nobias", "spritz_w_nobias",
                           "spritz_u_bias10"] if any(s == x for _, x in runs)]
    schemes += sorted({s for _, s in runs} - set(schemes))
    f3 = lambda t, d=1: f"{t[0]:.{d}f} [{t[1]:.{d}f}..{t[2]:.{d}f}]"
    print(title + " (spritz-fig6 points with output.trims_csv and path_usage.csv);"
          " *_nobias: lb.spritz_ecn_bias_rate = 1 (Alg. 3 l. 10-11 never fires), *_bias10: lb.spritz_min_bias_factor = 10")
    for k in kinds:
        print(f"\n{k}: p99 FCT | dropped (trims + drops) | packets on entry 0 (minimal path) | NACKs of entry 0 / all")
        for s in schemes:
            if (k, s) not in runs:
                continue
            r = runs[(k, s)]
            print(f"  {s:<16} {r['p99']:7.1f} us | {r['lost']:>6} | {100 * r['entry0']:5.2f}% (even: {100 * r['even0']:.2f}%)"
                  f" | {r['nacks0']:>6} / {r['nacks']:<6}")
        print(f"{k}: trims by the link's role in the packet's path (% of the scheme's trims)")
        cols = [s for s in schemes if (k, s) in runs and runs[(k, s)]["has_trims"]]
        print("  " + f"{'':<48}" + "".join(f"{s:>17}" for s in cols))
        for ro in ROLES:
            if not any(runs[(k, s)]["roles"][ro] for s in cols):
                continue
            cells = []
            for s in cols:
                r = runs[(k, s)]
                n = r["roles"][ro]
                cells.append(f"{n:>8} {100 * n / max(1, sum(r['roles'].values())):5.1f}%  ")
            print(f"  {ro:<48}" + "".join(f"{c:>17}" for c in cells))
        print(f"{k}: trims by hop (the switch the packet had reached, 1 = the sender's)")
        hopset = sorted({h for s in cols for h in runs[(k, s)]["hops"]})
        for s in cols:
            r = runs[(k, s)]
            tot = max(1, sum(r["hops"].values()))
            print(f"  {s:<16} " + "  ".join(f"hop {h}: {100 * r['hops'][h] / tot:5.1f}%" for h in hopset))
        any_run = next(runs[(k, s)] for s in schemes if (k, s) in runs)
        print(f"{k}: spread per flow (path_usage.csv) and over each source group's {any_run['links_per_group']} global links"
              " (first global hop): packets on the flows' minimal global link and on the group's busiest link, / an even spread")
        print(f"  {'':<16} {'distinct EVs/flow':<22} {'effective paths/flow':<24} {'minimal link / even':<26} busiest link / even")
        for s in schemes:
            if (k, s) not in runs:
                continue
            r = runs[(k, s)]
            print(f"  {s:<16} {f3(r['evs']):<22} {f3(r['eff']):<24} {f3(r['direct_rel'], 2):<26} {f3(r['peak_rel'], 2)}")
        print(f"{k}: trims per time bin (us): on the source -> destination global link + elsewhere")
        labels = [f"{BINS[i]:g}-{BINS[i + 1]:g}" if BINS[i + 1] < 1e9 else f">{BINS[i]:g}" for i in range(len(BINS) - 1)]
        print("  " + f"{'':<16}" + "".join(f"{x:>14}" for x in labels))
        for s in cols:
            r = runs[(k, s)]
            print(f"  {s:<16}" + "".join(f"{r['tbins'][(i, True)]:>7}+{r['tbins'][(i, False)]:<6}" for i in range(len(BINS) - 1)))


if __name__ == "__main__":
    main()
