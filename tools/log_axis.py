"""Readable tick labels on a logarithmic axis, for tools/plot.py and tools/report.py.

matplotlib labels only the powers of ten of a log axis: a slowdown axis from 1 to 4.6 had one
label ("1"), so an ECMP slowdown of 2-4.6 could not be read. label_log_axis puts labelled ticks at
1-9 x 10^k within one decade, 1, 2, 5 x 10^k within three, 10^k beyond, and, when fewer than three
of those fall inside the data (1.00 to 1.06), evenly spaced values; labels are plain numbers.
"""
import math

import matplotlib.ticker as ticker


def _log_ticks(lo, hi, subs):
    out = []
    for e in range(math.floor(math.log10(lo)) - 1, math.ceil(math.log10(hi)) + 1):
        out += [m * 10.0 ** e for m in subs if lo <= m * 10.0 ** e <= hi]
    return out


def label_log_axis(axis, lo, hi):
    """Labelled major ticks on `axis` (ax.xaxis of a log-scale axes) for data in [lo, hi] (> 0).
    Returns the tick values inside [lo, hi]."""
    if not (lo > 0 and hi > 0):
        return []
    if hi <= lo:
        hi = lo * 1.01
    decades = math.log10(hi / lo)
    subs = (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0) if decades <= 1 else (1.0, 2.0, 5.0) if decades <= 3 else (1.0,)
    ticks = _log_ticks(lo, hi, subs)
    if len(ticks) >= 3:
        axis.set_major_locator(ticker.LogLocator(base=10.0, subs=subs))
    else:
        step = ticker.MaxNLocator(nbins=4, steps=[1, 2, 2.5, 5, 10]).tick_values(lo, hi)
        ticks = [float(t) for t in step if lo <= t <= hi]
        axis.set_major_locator(ticker.FixedLocator(ticks))
    axis.set_major_formatter(ticker.FuncFormatter(lambda x, _: f"{x:g}"))
    axis.set_minor_locator(ticker.NullLocator())
    axis.set_minor_formatter(ticker.NullFormatter())
    return ticks
