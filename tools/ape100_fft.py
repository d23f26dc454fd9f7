#!/usr/bin/env python3
"""The APE100 FFT study (scenarios/studies/ape100-fft.yaml): table, fraction of peak, exponents.

Reads the results.csv of `torus-sim sweep scenarios/studies/ape100-fft.yaml --out DIR` and prints,
per point, the simulated cycles and seconds, the compute (the fma unit's busy cycles per node:
with one fma per cycle, the FFT butterflies) and the rest (transpose and waiting), and the
fraction of peak under the usual flop convention for a complex 2D FFT of N x N points,
5 N^2 log2(N^2) flops, against a peak of nodes x fma_per_cycle x 2 flops x clock (the APE100's
MAD: 2 flops per cycle at 25 MHz, 50 Mflops per node). Then the exponent a of t ~ p^a over the
node counts of each N and fma_per_cycle (least squares on log t against log p), for the total
and for the part that is not compute.

Usage: python3 tools/ape100_fft.py DIR
"""

import csv
import math
import sys
from collections import defaultdict

# The paper's figures ("FFT for the APE Parallel Computer", Lippert et al.): 8192^2 on 512
# nodes in 4 s, about 9% of peak; transpose time against node count at 2048^2: exponent -0.76.
PAPER_SECONDS, PAPER_PEAK, PAPER_EXPONENT = 4.0, 0.09, -0.76


def flops(extents):
    points = math.prod(extents)
    return 5 * points * math.log2(points)


def fit(points):
    """Least-squares slope of log t against log p."""
    xs = [math.log(p) for p, _ in points]
    ys = [math.log(t) for _, t in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def main(folder):
    with open(f"{folder}/results.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["status"] == "ok"]
    if not rows:
        sys.exit(f"{folder}/results.csv: no finished point")
    series = defaultdict(list)
    print("N            P       nodes  fma/cycle  cycles        seconds   compute/node  rest/node     % of peak")
    for r in rows:
        extents = [int(e) for e in r["N"].split("x")]
        nodes, f = int(r["node_count"]), int(r["fma_per_cycle"])
        cycles, seconds, clock = int(r["total_cycles"]), float(r["seconds"]), float(r["clock_hz"])
        compute = int(r["cycles_busy"]) // nodes  # per node: cycles in which its fma unit issued
        peak = nodes * f * 2 * clock
        share = flops(extents) / seconds / peak
        print(f"{r['N']:<12} {r['P']:<7} {nodes:>5}  {f:>9}  {cycles:>12,}  {seconds:>8.4f}  {compute:>12,}  "
              f"{cycles - compute:>12,}  {100 * share:>8.2f}")
        series[(r["N"], f)].append((nodes, cycles, cycles - compute))
    print(f"\nflops: 5 N^2 log2(N^2) per complex 2D FFT; peak: nodes x fma_per_cycle x 2 flops x clock. "
          f"The paper: 8192^2 on 512 nodes in {PAPER_SECONDS} s, about {100 * PAPER_PEAK:.0f}% of peak.")
    print("\nexponent a of t ~ p^a over node counts (the paper's transpose time at 2048^2: "
          f"{PAPER_EXPONENT}):")
    for (n, f), points in sorted(series.items()):
        if len({p for p, _, _ in points}) < 2:
            continue
        total = fit([(p, t) for p, t, _ in points])
        rest = fit([(p, r) for p, _, r in points])
        print(f"  N {n}, fma_per_cycle {f}: total {total:+.3f}, not compute (transpose and waits) {rest:+.3f}"
              f" ({len(points)} node counts)")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
