#!/usr/bin/env python3
"""The bare stepped torus of tools/benchmark.py's scaling table (tools/bare_stepped_torus/main.cpp):
steps as long as the transform's (b = 4, a compute of b^4 fma, then a roll, 969 P + 1 cycles in
all), with only the b^3-word data block rolling (orbital also rolls a coefficient block), stepped
node by node and cycle by cycle in a hand-written loop over compact node records, with no
Program, SystemC or statistics. It bounds what a simulator that steps every node in every cycle
could reach on this machine, measured in the same rounds as the engine with fast_forward off, and
the slow-down that alone has from 512 to 4,096 nodes; in its two modes: `bare` (the least such a
loop does) and `kept` (also the engine's per-cycle bookkeeping: a scoreboard entry of 8 bytes a
word, a micro-program table, counts of busy and stalled cycles, per step spans).

Run it through `python3 tools/benchmark.py scaling`."""

import statistics
import subprocess
import sys

from benchmark_walk import beside_binary


def stepper_of(args):
    """The bare stepped torus."""
    return beside_binary(args, "torus-bare-stepped-torus")


MODES = ("bare", "kept")


def stepped_once(args, sizes, copies):
    """Per mode, one run per size (P of `sizes`), `copies[P]` times back to back, pooled: million
    node-cycles per second (all their node-cycles over all their seconds)."""
    return {mode: stepped_mode(args, sizes, copies, mode) for mode in MODES}


def stepped_mode(args, sizes, copies, mode):
    stepper = stepper_of(args)
    rates = []
    for _, p in sizes:
        node_cycles = seconds = 0.0
        for _ in range(copies.get(p, 1)):
            command = [stepper, str(p), "4", "1", str(args.threads), mode]
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                sys.exit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr[-2000:]}")
            cycles, took = done.stdout.split()[:2]
            node_cycles += int(cycles) * p ** 3
            seconds += float(took)
        rates.append(node_cycles / max(seconds, 1e-9) / 1e6)
    return rates


def print_stepped(rounds, engine_rates, sizes):
    """The bare stepped torus per round beside the engine with fast_forward off, in each mode: its
    fastest speed at each size, the engine's share of it, and its own 4,096/512 slow-down."""
    done = [r for r in rounds if r]
    if not done:
        return
    for mode in MODES:
        for k, (_, p) in enumerate(sizes):
            fastest = max(r[mode][k] for r in done)
            engine = engine_rates.get(p)
            share = f"; the engine's fastest is {engine / fastest:.2f} of it" if engine else ""
            print(f"    bare stepped torus ({mode}), {p ** 3} nodes: fastest {fastest:.1f} M node-cycles/s{share}")
        ratios = sorted(r[mode][0] / r[mode][1] for r in done)
        print(f"    bare stepped torus ({mode}) slow-down, in the same rounds: median {statistics.median(ratios):.2f}x, "
              f"from {ratios[0]:.2f} to {ratios[-1]:.2f}")
