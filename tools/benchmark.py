#!/usr/bin/env python3
"""Speed and memory benchmark of the cycle-accurate torus.

Runs torus-sim on the reference scenario (N = 32, b = 4, P = 8, L = 4, DCT forward and
inverse) and then on ever larger tori with the same block size, each in its own process,
until one takes longer than the time budget. Prints a Markdown table: simulated
node-cycles per second (one core: the simulation is single-threaded), peak memory and
bytes per simulated node. Nothing here is asserted: speed depends on the machine.

  python3 tools/benchmark.py [--binary build/tools/torus-sim] [--budget-seconds 600]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

REFERENCE = ["--N", "32", "--P", "8", "--fma_latency", "4", "--transform", "dct", "--direction", "both"]


def run(binary, arguments, timeout):
    with tempfile.TemporaryDirectory() as folder:
        report = os.path.join(folder, "report.json")
        started = time.monotonic()
        try:
            done = subprocess.run([binary, "run", *arguments, "--report_json", report],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            return None, time.monotonic() - started
        wall = time.monotonic() - started
        if done.returncode != 0:
            sys.exit(f"torus-sim {' '.join(arguments)} failed ({done.returncode}): {done.stderr.decode()[-2000:]}")
        with open(report, encoding="utf-8") as f:
            return json.load(f), wall


def row(label, report, wall):
    t = report["timing"]
    nodes = report["nodes"]
    return (f"| {label} | {report['N']} | {report['P']} | {nodes} | {t['total_cycles']} | {t['simulation_seconds']:.2f} | "
            f"{wall:.2f} | {t['node_cycles_per_second'] / 1e6:.2f} | {t['peak_memory_bytes'] / 2**20:.0f} | "
            f"{t['peak_memory_bytes'] / nodes / 1024:.1f} | {report['passed']} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", default=os.path.join(os.path.dirname(__file__), "..", "build", "tools", "torus-sim"))
    parser.add_argument("--budget-seconds", type=float, default=600.0, help="stop growing the torus past this wall time")
    parser.add_argument("--sizes", default="8,12,16,20,24,28,32", help="torus edges P to try after the reference, b = 4")
    parser.add_argument("--extra", nargs=argparse.REMAINDER, default=[], help="further torus-sim options for every run")
    args = parser.parse_args()

    print("| scenario | N | P | nodes | cycles | SystemC s | wall s | M node-cycles/s | peak MiB | KiB/node | passed |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    report, wall = run(args.binary, REFERENCE + args.extra, args.budget_seconds)
    print(row("reference", report, wall), flush=True)
    for p in (int(v) for v in args.sizes.split(",")):
        arguments = ["--N", str(4 * p), "--P", str(p), "--fma_latency", "4", "--transform", "dct", "--direction", "both"]
        report, wall = run(args.binary, arguments + args.extra, args.budget_seconds)
        if report is None:
            print(f"| P = {p} | {4 * p} | {p} | {p ** 3} | - | - | > {args.budget_seconds:.0f} | - | - | - | timed out |")
            break
        print(row(f"P = {p}, b = 4", report, wall), flush=True)
        if wall > args.budget_seconds:
            break


if __name__ == "__main__":
    main()
