#!/usr/bin/env python3
"""Fits per-radix prices (switch, switch-switch AOC cable, endpoint DAC cable) to the cost cells of
[SlimFly] Table 4 by least squares on the relative error, and prints every cell's error.

The counts are those of `lbsim scale --table4 --rule paper` (tests/scale checks them). Readings of
the two 2048-endpoint FT2 / FT2-B cells (64-port switches):
  built    688 FT2-B links, endpoint cables priced (the tree that is built)
  paper    344 FT2-B links (as printed), no endpoint cables priced for FT2 / FT2-B
  maxonly  fit the 15 maximum-size cells only
Usage: scripts/table4_fit.py [paper|built|maxonly]   (pure Python, no packages needed)
"""
import sys

# (family, switches, links, endpoints, printed cost in M$)
MAX = {
    36: [("FT2", 54, 648, 648, 1.5), ("FT2-B", 45, 324, 972, 1.1), ("FT3", 1620, 23328, 11664, 45),
         ("HX2", 169, 2028, 2028, 4.5), ("SF", 512, 6144, 6144, 13.8)],
    40: [("FT2", 60, 800, 800, 2.4), ("FT2-B", 50, 400, 1200, 1.7), ("FT3", 2000, 32000, 16000, 84.2),
         ("HX2", 196, 2548, 2744, 7.8), ("SF", 578, 7225, 7514, 22.4)],
    64: [("FT2", 96, 2048, 2048, 9), ("FT2-B", 80, 1024, 3072, 7.2), ("FT3", 5120, 131072, 65536, 491),
         ("HX2", 484, 10164, 10648, 45.5), ("SF", 1568, 32928, 32928, 146)],
}
CLUSTER = {36: [("2048 FT3", 303, 4320, 2048, 8.3), ("2048 SF", 242, 2057, 2178, 5.8)],
           40: [("2048 HX2", 169, 2028, 2197, 6.4)]}
FT2_CLUSTER = {
    "paper": [("2048 FT2", 96, 2048, 0, 7.5), ("2048 FT2-B", 59, 344, 0, 2.7)],
    "built": [("2048 FT2", 96, 2048, 2048, 7.5), ("2048 FT2-B", 59, 688, 2048, 2.7)],
}


def solve(a, b):
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        p = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                for k in range(c, n + 1):
                    m[r][k] -= f * m[c][k]
    return [m[i][n] / m[i][i] for i in range(n)]


def fit(rows):
    a = [[0.0] * 3 for _ in range(3)]
    b = [0.0] * 3
    for (_, s, l, e, t) in rows:
        x = [s / t, l / t, e / t]
        for i in range(3):
            b[i] += x[i] * 1e6
            for j in range(3):
                a[i][j] += x[i] * x[j]
    return solve(a, b)


def main():
    reading = sys.argv[1] if len(sys.argv) > 1 else "paper"
    if reading not in ("paper", "built", "maxonly"):
        sys.exit("usage: table4_fit.py [paper|built|maxonly]")
    worst = 0.0
    print(f"reading: {reading}")
    print("| radix | switch | switch_cable | endpoint_cable |\n|---|---|---|---|")
    results = []
    for k in (36, 40, 64):
        rows = list(MAX[k])
        if reading != "maxonly":
            rows += CLUSTER.get(k, []) + (FT2_CLUSTER[reading] if k == 64 else [])
        p = fit(rows)
        print(f"| {k} | {p[0]:,.0f} | {p[1]:,.0f} | {p[2]:,.0f} |")
        for (name, s, l, e, t) in rows:
            c = (s * p[0] + l * p[1] + e * p[2]) / 1e6
            worst = max(worst, abs(c - t) / t)
            results.append((k, name, c, t))
    print("\n| radix | cell | fitted cost [M$] | printed [M$] | error |\n|---|---|---|---|---|")
    for (k, name, c, t) in results:
        print(f"| {k} | {name} | {c:.2f} | {t} | {100 * (c - t) / t:+.1f} % |")
    print(f"\nworst relative error: {100 * worst:.1f} %")


if __name__ == "__main__":
    main()
