# Flow-size CDF (<size_bytes> <cdf_percent>, the HPCC traffic_gen format of docs/workloads.md) for
# the [Flowcut] "Random" distribution of Fig. 13: sizes uniform between 4 KiB and 1 MiB. The paper
# names the distribution but gives no range; this one is our choice (docs/flowcut.md).
# Analytic mean: (4096 + 1048576) / 2 = 526336 bytes.
0 0
4096 0
1048576 100
