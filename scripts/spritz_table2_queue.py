#!/usr/bin/env python3
"""[Spritz] Table II: "Queue Size 1 * BDP (per port, DF: 88 pkts, SF: 92 pkts)", with the BDP "calculated
based on the longest path for each topology" (sec. V-A). Which RTT definition gives 88 and 92?

Enumerates the plausible readings of "1 BDP of the longest path" on the Table II networks (400 Gb/s,
25 ns local / host links, 500 ns global links, 500 ns switches, 64 B header + 4096 B payload) and
prints each reading's packet count for the Dragonfly and the Slim Fly, then the readings that give
both 88 and 92. Dimensions:
  path      bounded (DF: up to 3 local + 2 global hops through one intermediate group; SF: up to 4
            switch hops, Valiant) | minimal (DF: local-global-local; SF: up to 2 hops); the longest by
            latency in the set. An SF link is global (500 ns) between racks (a rack: the two
            subgroups of one index), local inside one; a 4-hop path can be all global.
  switches  switch latencies per direction: every switch on the path (hops + 1) | hops | hops - 1 | none
  hosts     the two host links counted | not
  ser       data serialization per link (store and forward) | once | none
  ack       the ACK returns over the same path with 64 B serialization per link | without
            serialization | the RTT is twice the data's one-way time | the ACK returns over the
            longest minimal path (64 B per link; the same switch and host counting)
  unit      BDP bytes / 4160 (packet) | / 4096 (payload)
  round     ceil | round | floor
Output: docs/spritz.md "Table II queue sizes" (scripts/spritz_docs.sh writes that block).
"""
import itertools
import math
import sys

RATE = 400e9
LOCAL, GLOBAL, HOST, SWITCH = 25.0, 500.0, 25.0, 500.0
HEADER, PAYLOAD = 64, 4096
PKT = HEADER + PAYLOAD
SER = PKT * 8 / RATE * 1e9          # 83.2 ns
ACK_SER = HEADER * 8 / RATE * 1e9   # 1.28 ns
PAPER = {"dragonfly": 88, "slim_fly": 92}

# (local hops, global hops) of the paths in each set.
PATHS = {
    ("dragonfly", "bounded"): [(l, g) for l in range(4) for g in range(3) if g >= 1 or l <= 2],
    ("dragonfly", "minimal"): [(l, 1) for l in range(3)],
    ("slim_fly", "bounded"): [(l, n - l) for n in range(1, 5) for l in range(n + 1)],
    ("slim_fly", "minimal"): [(l, n - l) for n in range(1, 3) for l in range(n + 1)],
}
SWITCHES = {"hops+1": 1, "hops": 0, "hops-1": -1, "none": None}
ROUND = {"ceil": math.ceil, "round": lambda x: math.floor(x + 0.5), "floor": math.floor}


def one_way(path, switches, hosts, ser, size):
    l, g = path
    hops = l + g
    links = hops + (2 if hosts else 0)
    prop = l * LOCAL + g * GLOBAL + (2 * HOST if hosts else 0)
    sw = 0.0 if SWITCHES[switches] is None else (hops + SWITCHES[switches]) * SWITCH
    return prop + sw + {"per_link": links * size, "once": size, "none": 0.0}[ser]


def rtt(path, switches, hosts, ser, ack, topo):
    data = one_way(path, switches, hosts, ser, SER)
    if ack == "twice_data":
        return 2 * data
    if ack == "ack_minimal":
        return data + max(one_way(p, switches, hosts, ser, ACK_SER) for p in PATHS[(topo, "minimal")])
    return data + one_way(path, switches, hosts, ser, ACK_SER if ack == "ack_64B" else 0.0)


def packets(topo, pathset, switches, hosts, ser, ack, unit, rnd):
    longest = max(rtt(p, switches, hosts, ser, ack, topo) for p in PATHS[(topo, pathset)])
    bdp_bytes = longest * 1e-9 * RATE / 8
    return ROUND[rnd](bdp_bytes / (PKT if unit == "4160" else PAYLOAD)), longest


def main():
    dims = [("bounded", "minimal"), tuple(SWITCHES), (True, False), ("per_link", "once", "none"),
            ("ack_64B", "ack_no_ser", "twice_data", "ack_minimal"), ("4160", "4096"), tuple(ROUND)]
    rows = []
    for r in itertools.product(*dims):
        df, df_rtt = packets("dragonfly", *r)
        sf, sf_rtt = packets("slim_fly", *r)
        rows.append((r, df, sf, df_rtt, sf_rtt))
    verbose = "--all" in sys.argv
    print(f"{len(rows)} readings; Table II: DF {PAPER['dragonfly']}, SF {PAPER['slim_fly']} packets")
    hdr = f"{'path':<8} {'switches':<8} {'hosts':<5} {'ser':<8} {'ack':<11} {'unit':<4} {'round':<5} {'DF rtt_ns':>9} {'DF':>4} {'SF rtt_ns':>9} {'SF':>4}"
    fmt_row = lambda r, df, sf, a, b: (f"{r[0]:<8} {r[1]:<8} {str(r[2]):<5} {r[3]:<8} {r[4]:<11} {r[5]:<4} {r[6]:<5} "
                                       f"{a:>9.1f} {df:>4} {b:>9.1f} {sf:>4}")
    ours = ("bounded", "hops+1", True, "per_link", "ack_64B", "4160", "ceil")
    for r, df, sf, a, b in rows:
        if r == ours:
            print("lbsim's network.bdp_path = longest_bounded:")
            print(hdr)
            print(fmt_row(r, df, sf, a, b))
    both = [x for x in rows if x[1] == PAPER["dragonfly"] and x[2] == PAPER["slim_fly"]]
    df_only = [x for x in rows if x[1] == PAPER["dragonfly"]]
    sf_only = [x for x in rows if x[2] == PAPER["slim_fly"]]
    print(f"readings giving DF 88: {len(df_only)}; SF 92: {len(sf_only)}; both: {len(both)}")
    for title, sel in (("both", both), ("DF 88 only", [x for x in df_only if x not in both]),
                       ("SF 92 only", [x for x in sf_only if x not in both])):
        print(f"-- {title}:")
        if sel:
            print(hdr)
        for x in sel:
            print(fmt_row(*x))
    # The closest readings by total distance to (88, 92).
    near = sorted(rows, key=lambda x: abs(x[1] - 88) + abs(x[2] - 92))[:8]
    print("-- closest readings (|DF - 88| + |SF - 92|):")
    print(hdr)
    for x in near:
        print(fmt_row(*x))
    if verbose:
        print("-- all:")
        print(hdr)
        for x in rows:
            print(fmt_row(*x))


if __name__ == "__main__":
    main()
