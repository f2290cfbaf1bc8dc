#!/usr/bin/env python3
"""Where Flicr's monitored flow goes in the Table III scenario (docs/spritz.md "Flicr readings").

Usage: scripts/spritz_flicr.py SEED:RUN_DIR [SEED:RUN_DIR ...]

Each RUN_DIR is a run of examples/spritz/motivational.toml with lb = flicr_w,
output.path_usage_tag = "monitored" and output.trims_csv = true. Per seed it prints the monitored
flow's FCT, the EVs (paths) it used (path_usage.csv; a lower bound on its repaths is that count
minus one: Flicr's own repath counter is not written to any output, and a re-pick of an EV already
used is not visible), its ECN-marked ACKs, NACKs, timeouts and trims (trims.csv), the packets it
sent through the three uncongested groups 8, 16, 24 (the only clean routes, motivational_flows.py)
and when it first used one, and the EVs it left at least once (its last packet on the EV came before
its last packet, or another EV was first used while the EV was still in use, i.e. a later re-pick)
although they never returned a mark, NACK or timeout. Flicr (src/lb/spritz.cpp) only leaves its current EV on a NACK / timeout of that EV or
when more than lb.flicr_ecn_fraction of one base RTT's ACKs were marked, counting the ACKs of every
EV; so leaving an EV that returned no mark, NACK or timeout was triggered by marked ACKs of packets
sent earlier on another EV. Then the first visits in time order (group sequence @ first send, us).
"""
import csv
import os
import sys

FREE = {"g8", "g16", "g24"}  # the groups without background (examples/spritz/motivational_flows.py)


def groups(path):
    return ">".join(dict.fromkeys(x.split("s")[0] for x in path.split(">")))


def via(path):
    """The intermediate group of an entry's path ('' for the minimal route g0>g32)."""
    g = groups(path).split(">")
    return g[1] if len(g) > 2 else ""


def report(seed, d):
    mon = next(r for r in csv.DictReader(open(os.path.join(d, "flows.csv"))) if r["tag"] == "monitored")
    fid = mon["id"]
    rows = [r for r in csv.DictReader(open(os.path.join(d, "path_usage.csv"))) if r["flow"] == fid]
    rows.sort(key=lambda r: float(r["first_sent_us"]))
    trims = drops = 0
    for r in csv.DictReader(open(os.path.join(d, "trims.csv"))):
        if r["flow"] == fid:
            trims += r["event"] == "trim"
            drops += r["event"] == "drop"
    acks = sum(int(r["acks"]) + int(r["ecn_acks"]) for r in rows)
    ecn = sum(int(r["ecn_acks"]) for r in rows)
    clean = [r for r in rows if via(r["path"]) in FREE]
    clean_sent = sum(int(r["sent"]) for r in clean)
    first_clean = min((float(r["first_sent_us"]) for r in clean), default=None)
    end = max(float(r["last_sent_us"]) for r in rows)
    # EVs with no mark / NACK / timeout that the flow still left: the departure came from other
    # EVs' marked ACKs.
    # An EV was left at least once when the flow's last packet on it came before the flow's last
    # packet, or when another EV was first used while it was still in use (a later re-pick).
    def left(r):
        a, b = float(r["first_sent_us"]), float(r["last_sent_us"])
        return b < end or any(a < float(o["first_sent_us"]) < b for o in rows)
    left_quiet = [r for r in rows if int(r["ecn_acks"]) == 0 and int(r["nacks"]) == 0
                  and int(r["timeouts"]) == 0 and left(r)]
    left_clean = [r for r in clean if left(r)]
    fc = f"{first_clean:.1f} us" if first_clean is not None else "never"
    print(f"seed {seed}: FCT {float(mon['fct_us']):7.1f} us; {len(rows):2} EVs (>= {len(rows) - 1} repaths); "
          f"ECN-marked ACKs {ecn}/{acks} ({100 * ecn / max(acks, 1):.0f}%); NACKs {mon['nacks']}, timeouts "
          f"{mon['timeouts']}, trims {trims}, drops {drops}")
    print(f"  via groups 8/16/24: {clean_sent} of {mon['packets_sent']} packets, first at {fc}, "
          f"left {len(left_clean)} of {len(clean)} such EVs at least once; "
          f"{len(left_quiet)} EVs left with no mark/NACK/timeout of their own "
          f"({sum(int(r['sent']) for r in left_quiet)} packets on them)")
    top = sorted(rows, key=lambda r: -int(r["sent"]))[:3]
    print("  most packets: " + ", ".join(
        f"{groups(r['path'])} {r['sent']} ({r['ecn_acks']} ECN, {r['nacks']} NACK, "
        f"{float(r['first_sent_us']):.0f}-{float(r['last_sent_us']):.0f} us)" for r in top))
    seq = [f"{via(r['path']) or 'min'}@{float(r['first_sent_us']):.0f}" for r in rows]
    print("  first visits: " + " ".join(seq[:10]) + (f" ... ({len(seq) - 10} more)" if len(seq) > 10 else ""))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for a in sys.argv[1:]:
        seed, d = a.split(":", 1)
        report(seed, d)


if __name__ == "__main__":
    main()
