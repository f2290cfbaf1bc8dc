# Flow-size CDF in the HPCC/ns-3 traffic_gen format: <size_bytes> <cdf_percent>.
# Half of the flows are 1-10 KB, the rest 10 KB-1 MB (uniform within each step).
# Analytic mean: 0.5 * 5500 + 0.5 * 505000 = 255250 bytes.
0 0
1000 0
10000 50
1000000 100
