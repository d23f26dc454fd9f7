#!/usr/bin/env python3
"""The bare memory walk of tools/benchmark.py's scaling table: a loop touching as many cache
lines a node, in the same order, as the engine's activations do, at the same sizes and memory
per node, so that the engine's 4,096/512 slow-down can be set beside what the memory alone
costs on the same machine in the same round (tools/bare_memory_walk/main.cpp).

Run it through `python3 tools/benchmark.py scaling`."""

import os
import statistics
import subprocess
import sys


# The bare memory walk's pattern per fast_forward setting: cache lines an activation touches and
# the order of the nodes in a round. Measured on the engine (README, "Speed"): with fast-forward,
# about 273 last-level misses a node and orbital step (cachegrind, 512 nodes with a 4 MiB last
# level standing in for 4,096 nodes with 32 MiB) over 2.1 activations a step (the report's
# node_activations), in an order that changes (measured at 5.4 activations a step: the node run
# next after a given one was the same as the time before in 23% of activations); without, 61
# first-level misses a node-cycle (cachegrind), in one fixed order.
WALK = {"on": (130, "shuffled"), "off": (61, "fixed")}
WALK_ACTIVATIONS = 1_600_000  # per point: about half a second at 512 nodes


def beside_binary(args, name):
    """A bare baseline `name`, built beside torus-sim (build/tools/)."""
    return os.path.join(os.path.dirname(os.path.abspath(args.binary)), name)


def walker_of(args):
    """The bare memory walk."""
    return beside_binary(args, "torus-bare-memory-walk")


def walk_once(args, bytes_per_node, ff, sizes):
    """The bare memory walk at the sizes (N, P) of `sizes`, one run each: nanoseconds per activation."""
    walker = walker_of(args)
    lines, order = WALK[ff]
    per_activation = []
    for _, p in sizes:
        nodes = p ** 3
        command = [walker, str(nodes), str(bytes_per_node), str(lines), str(WALK_ACTIVATIONS // nodes), order]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            sys.exit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr[-2000:]}")
        per_activation.append(float(done.stdout.split()[1]))
    return per_activation


def print_walk(ff, rounds, engine_ratios, size_count):
    """The walk's slow-down per round beside the engine's of the same round (None: the engine's
    run of that round did not finish)."""
    done = [(walk, engine) for walk, engine in zip(rounds, engine_ratios) if walk and engine]
    if not done:
        return
    lines, order = WALK[ff]
    walk_ratios = sorted(w[1][1] / w[1][0] for w, _ in done)
    quotients = sorted(engine / (w[1][1] / w[1][0]) for w, engine in done)
    fastest = [min(w[1][k] for w, _ in done) for k in range(size_count)]
    kib = sorted(w[0] / 1024 for w, _ in done)
    print(f"    bare memory walk ({kib[0]:.1f} to {kib[-1]:.1f} KiB a node, {lines} lines an activation, order {order}), in the same rounds: "
          f"median {statistics.median(walk_ratios):.2f}x, from {walk_ratios[0]:.2f} to {walk_ratios[-1]:.2f}; "
          f"engine / walk per round: median {statistics.median(quotients):.2f}, from {quotients[0]:.2f} to {quotients[-1]:.2f}; "
          f"fastest ns an activation {fastest[0]:.0f} and {fastest[1]:.0f}")
