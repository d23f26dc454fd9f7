#!/usr/bin/env python3
"""Both timing engines on the same runs: every report figure must be equal.

  python3 tools/engines.py compare [--sample K] [--random R] [--seed S] [-j J]

Runs each configuration with `--engine systemc` and with `--engine event` in both of its forms
(`--symmetry off`: every node timed, values from its own datapath; the default: one node timed
for the torus, values computed beside it) and compares the JSON reports field by field, leaving out only what describes the host or the engine itself (wall
times, memory, the engine's name and its fast-forward figures). The configurations are those
that once differed (PINNED), every
row of scenarios/regression.yaml (every K-th with --sample K) and R more drawn at random with
a fixed seed over the whole parameter space (P up to 6, b up to 4, N not a multiple of P in
about a third of them (uneven blocks), a third with the local-coefficient algorithm on
P1 x P2 x P3 tori up to 4 x 4 x 4, every alpha, every direction, fma latency 1-16, 1-4 fma per
cycle, link latency 1-8, six bandwidths, buffers from one word to auto, message start-up 0-40
cycles, both roll policies and micro-schedules, real and complex data). Exits 1
and prints every difference when any figure differs or a run fails in one engine only.
"""

import argparse
import concurrent.futures
import itertools
import json
import os
import random
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
HOST_FIELDS = {"simulation_seconds", "node_cycles_per_second", "peak_memory_bytes", "memory", "fast_forwarded_fma", "node_activations", "stepping_threads",
               "fast_forward_note", "nodes_timed"}
REGRESSION = {
    "N": ["4", "6", "8"], "P": ["2", "4"], "direction": ["forward", "inverse"],
    "alpha": ["+++", "++-", "+-+", "+--", "-++", "-+-", "--+", "---"], "fma_latency": ["1", "4"],
    "link_words_per_cycle": ["1", "1/2"], "link_latency": ["1", "3"], "roll_policy": ["after_compute", "overlapped"],
}


# Configurations that once gave different reports, kept in every comparison: the SystemC node
# held back a word of a smaller block landing beyond the extent of an older block's pending
# send (uneven blocks, overlapped rolls).
PINNED = [
    "--N 10 --P 3 --transform dht --alpha +-+ --direction both --fma_latency 15 --fma_per_cycle 3 --link_latency 8 "
    "--link_words_per_cycle 2/3 --link_buffer_words 1 --roll_policy overlapped --micro_schedule interleaved",
]


def regression_rows():
    keys = list(REGRESSION)
    for values in itertools.product(*(REGRESSION[k] for k in keys)):
        yield ["--transform", "dht"] + [arg for k, v in zip(keys, values) for arg in (f"--{k}", v)]


def random_rows(count, seed):
    rng = random.Random(seed)
    for _ in range(count):
        p = rng.randint(1, 6)
        b = rng.randint(1, 4)
        words = b ** 3
        uneven = rng.randint(1, p - 1) if p > 1 and rng.random() < 1 / 3 else 0  # the first N mod P blocks one larger
        transform = rng.choice(["dct", "dht", "dft", "dft"])
        shape = ["--N", str(p * b + uneven), "--P", str(p)]
        if rng.random() < 1 / 3:  # the local-coefficient variant on a P1 x P2 x P3 torus
            ps = [rng.randint(1, 4) for _ in range(3)]
            ns = [q * b + (rng.randint(0, q - 1) if rng.random() < 1 / 3 else 0) for q in ps]
            shape = ["--algorithm", "orbital_local_coefficients", "--N", "x".join(map(str, ns)), "--P", "x".join(map(str, ps))]
        row = shape + ["--transform", transform,
               "--alpha", "".join(rng.choice("+-") for _ in range(3)),
               "--direction", rng.choice(["forward", "inverse", "both"]),
               "--fma_latency", str(rng.randint(1, 16)), "--fma_per_cycle", str(rng.randint(1, 4)),
               "--link_latency", str(rng.randint(1, 8)),
               "--link_words_per_cycle", rng.choice(["1", "2", "1/2", "2/3", "1/8", "3/2"]),
               "--link_buffer_words", rng.choice(["1", "2", str(max(1, words // 2)), str(words), "auto"]),
               "--roll_policy", rng.choice(["after_compute", "overlapped"]),
               "--micro_schedule", rng.choice(["interleaved", "chained"])]
        if transform == "dft":
            row += ["--complex_fma_cost", rng.choice(["1", "4"])]
        row += ["--message_startup_cycles", rng.choice(["0", "0", "1", "7", "40"])]
        yield row


def transpose_rows(count, seed):
    """The transpose-based FFTs (slab, pencil, ring transpose and its orbital-fair form on b^3
    blocks) on tori of up to 4 x 4 x 4 nodes with every direction, bandwidths, buffers and
    start-up costs: all-to-all messages routed through the torus, contending for links."""
    rng = random.Random(seed)
    for _ in range(count):
        algorithm = rng.choice(["slab_fft", "pencil_fft", "ring_transpose_fft", "ring_block_fft"])
        ps = [rng.randint(1, 4) for _ in range(3)]
        nodes = ps[0] * ps[1] * ps[2]
        ns = [max(nodes, rng.randint(1, 3) * nodes + rng.randint(0, 2)) for _ in range(3)]
        if rng.random() < 0.5:  # powers of two: FFT tasks where the DFT's pieces are even
            ns = [1 << max(nodes - 1, 1).bit_length() + rng.randint(0, 1) for _ in range(3)]
        if algorithm == "ring_block_fft":  # b_a per node on every axis, rings it can share (most run)
            ps = [rng.choice([1, 2, 4]) for _ in range(3)]
            ns = [p * rng.choice([2, 4, 6]) for p in ps]
        row = ["--algorithm", algorithm, "--N", "x".join(map(str, ns)), "--P", "x".join(map(str, ps)),
               "--transform", rng.choice(["dft", "dct"]), "--direction", rng.choice(["forward", "inverse", "both"]),
               "--fma_latency", str(rng.randint(1, 8)), "--fma_per_cycle", str(rng.randint(1, 4)),
               "--link_latency", str(rng.randint(1, 8)),
               "--link_words_per_cycle", rng.choice(["1", "2", "1/2", "1/8", "3/2"]),
               "--link_buffer_words", rng.choice(["1", "3", "16", "auto"]),
               "--roll_policy", rng.choice(["after_compute", "overlapped"]),
               "--message_startup_cycles", rng.choice(["0", "3", "40"]),
               "--local_kernel", rng.choice(["auto", "dense"]), "--fma_per_butterfly", rng.choice(["8", "6", "1"])]
        yield row


def strip(report):
    report = dict(report)
    for key in ("engine", "wall_seconds", "phase_seconds", "machine"):
        report.pop(key, None)
    timing = dict(report.get("timing", {}))
    for key in HOST_FIELDS:
        timing.pop(key, None)
    report["timing"] = timing
    # How the Program was proved (the whole Program, or the quotient one timed node stands
    # for) differs by design; what the proofs found (schedule_violations) is compared.
    report["transforms"] = [{k: v for k, v in t.items() if k != "verified"} for t in report.get("transforms", [])]
    return report


def differences(a, b, label, path=""):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                yield f"{path}/{k}: only in {'systemc' if k in a else label}"
            else:
                yield from differences(a[k], b[k], label, f"{path}/{k}")
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            yield from differences(x, y, label, f"{path}[{i}]")
    elif a != b:
        yield f"{path}: systemc {json.dumps(a)[:80]}, {label} {json.dumps(b)[:80]}"


def run_once(binary, row, engine, folder):
    """`engine`: the arguments that choose it; returns exit status, stripped report, last error line."""
    path = os.path.join(folder, "_".join(engine).replace("-", "") + ".json")
    done = subprocess.run([binary, "run", *row, "--engine", *engine, "--report_json", path],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    report = None
    if done.returncode in (0, 3):
        with open(path, encoding="utf-8") as f:
            report = strip(json.load(f))
    return done.returncode, report, done.stderr.decode(errors="replace").strip()[-300:]


# The event engine both ways: timing every node with its own values, and (the default) timing
# one node for the torus with the values computed beside it.
EVENT_FORMS = {"event (every node)": ["event", "--symmetry", "off"], "event (one node)": ["event"]}


def compare(binary, row):
    problems = []
    with tempfile.TemporaryDirectory() as folder:
        a = run_once(binary, row, ["systemc"], folder)
        for label, engine in EVENT_FORMS.items():
            b = run_once(binary, row, engine, folder)
            if a[0] != b[0]:
                problems.append(f"exit status: systemc {a[0]} ({a[2]}), {label} {b[0]} ({b[2]})")
            elif a[1] is not None:  # else refused or stalled alike
                problems += list(differences(a[1], b[1], label))
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=["compare"])
    parser.add_argument("--binary", default=os.path.join(ROOT, "build", "tools", "torus-sim"))
    parser.add_argument("--sample", type=int, default=1, help="every K-th regression row (default: all)")
    parser.add_argument("--random", type=int, default=300, help="random configurations (default 300)")
    parser.add_argument("--transpose", type=int, default=0, help="random transpose-FFT configurations (default 0)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("-j", "--jobs", type=int, default=2)
    args = parser.parse_args()
    if args.sample < 1 or args.random < 0 or args.jobs < 1:
        sys.exit("engines.py: --sample and --jobs must be at least 1, --random at least 0")
    rows = [p.split() for p in PINNED] + list(regression_rows())[::args.sample] + list(random_rows(args.random, args.seed))
    rows += list(transpose_rows(args.transpose, args.seed))
    failures = 0
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for row, problems in zip(rows, pool.map(lambda r: compare(args.binary, r), rows)):
            if problems:
                failures += 1
                print("DIFFERENT: torus-sim run " + " ".join(row))
                for p in problems[:12]:
                    print("  " + p)
    print(f"{len(rows) - failures} of {len(rows)} configurations give equal reports in both engines "
          f"(the event engine timing every node, and one node for the torus)")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
