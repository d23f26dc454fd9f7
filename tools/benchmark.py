#!/usr/bin/env python3
"""Speed and memory benchmark of the cycle-accurate (SystemC) engine.

Two tables, each run in its own process per point, nothing asserted (speed depends on the
machine and its load; run it on an idle machine and say which):

  scaling  512 nodes (N = 32, P = 8) and 4,096 nodes (N = 64, P = 16), b = 4, DCT forward
           and inverse, with fast_forward on and off: simulated node-cycles per second, the
           process's peak memory, the engine's own state per node next to the words a node
           holds (each from its fastest of --repeat rounds), and the 4,096/512 slow-down per
           node-cycle as the median and range over --repeat rounds, each round running both
           sizes back to back: the smaller 16 times (as many node-cycles as the larger's one
           run), its speed taken over the 16 together (peak memory: the largest of the 16). With
           --baseline BINARY the same rounds run with that binary too (its 16 runs right after
           this binary's), and the table gives the ratio (this binary's speed / the
           baseline's), so a change is measured against a bare baseline in the same run. Beside each slow-down, the same
           slow-down of tools/bare_memory_walk (no simulation: the round's larger run's memory
           per node, touched in the engine's pattern, WALK), run in each round right after the
           round's engine runs: the slow-down of touching that much memory in that pattern and
           nothing else, at the same moment of a shared machine. With fast_forward off, the
           bare stepped torus too (tools/bare_stepped_torus: the same kind of steps stepped node
           by node and cycle by cycle in a bare loop): its speed at both sizes, the engine's
           share of it, and its own slow-down. --threads N passes N host threads to every run
           (default 1): with fast_forward off they step the nodes.
  growth   ever larger tori at b = 4 until one takes longer than --budget-seconds: the
           largest torus that runs within the budget (by default values on, forward and
           inverse; --values off --direction forward times one transform only), with the three phases outside the simulation that took
           longest (the report's phase_seconds: building the Program, verifying it,
           elaborating the SystemC modules, tearing them down, ...).
  event    the event engine: beside the SystemC engine at 512 and 4,096 nodes (values on, the
           same cycles required), with values off timing every node or one node for the torus
           (symmetry: auto) up to 262,144 nodes, and the exponents of its time fitted against
           nodes (b = 4) and against N (P = 16), values off, symmetry auto; then Blue Gene/P-sized
           blocks (100x200x200 and 400^3 words per node, one forward transform, values off),
           which the closed forms of whole computes and messages time at any block size.

  bare     values on: `torus-sim run --engine event` (one node timed; values computed from its
           task list on every node, on 1 and on 2 threads) against the bare baseline
           tools/bare_transform (the same transforms as three dense Eigen mode products on one
           core, nothing else), in the same session, as ratios; and the peak memory against
           what the nodes hold (every buffer at the word size) plus the input and result.
  memory   the memory estimate checked before a run against the peak the run measured, for both
           engines (the event engine both ways), real and complex, values on and off, and Blue
           Gene/P's mesh partitions with blocks of two sizes (values off): the estimate must
           never be below the peak and at most 1.5 times above it.
  transpose the event engine on routed all-to-alls: the APE100 ring-transpose 2D FFT of 2048^2
           (scenarios/machines/ape100.yaml, fma_per_cycle 1024, values off) on 128, 256 and 512
           nodes, 127 to 511 messages per node over up to 21 hops each: engine seconds, wall
           seconds, peak memory and its estimate, and the exponent of the engine's time against
           nodes. With --baseline BINARY the same points with that binary (the same cycles
           required) and the ratios of time and of peak memory.
  mpi      a 48-point study (fma latency against b at N = 16, both micro-schedules) swept on one
           machine and with mpirun at -np 1, 2, 3 (-j 1 per rank, loopback only): wall time,
           speed-up against the plain sweep at -j 1, processor time of everything the sweep
           started, and the peak memory of each rank process and of mpirun (the points' own
           processes aside); the tables must equal the plain sweep's.

  python3 tools/benchmark.py [scaling|growth|event|transpose|bare|memory|mpi|all] [--binary B] [--baseline B] [--repeat 3]
"""

import argparse
import json
import math
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

from benchmark_mpi import mpi
from benchmark_stepped import print_stepped, stepped_once, stepper_of
from benchmark_walk import print_walk, walk_once, walker_of

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
SCALING = [(32, 8), (64, 16)]
# Runs of the smaller torus per round: as many node-cycles as the larger torus's one run (8 times
# the nodes, twice the cycles), so that a pause of the host weighs the same on both sides of the
# slow-down instead of deciding a 0.1-second run alone.
SMALL_COPIES = (SCALING[1][1] // SCALING[0][1]) ** 3 * 2
# Blue Gene/P-sized blocks (issue 9): 100x200x200 and 400^3 words per node.
LARGE_BLOCKS = [(1600, "16x8x8", "orbital_local_coefficients"), (3200, "8x8x8", "orbital"), (256, "32", "orbital"),
                (512, "64", "orbital")]


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
            sys.exit(f"{binary} run {' '.join(arguments)} failed ({done.returncode}): {done.stderr.decode()[-2000:]}")
        with open(report, encoding="utf-8") as f:
            return json.load(f), wall


def problem(n, p, direction="both"):
    return ["--N", str(n), "--P", str(p), "--fma_latency", "4", "--transform", "dct", "--direction", direction]


def node_state_kib(report):
    memory = report["timing"].get("memory", {})
    return memory.get("engine_bytes_per_node", 0) / 1024


def held_kib(report):
    t = report["timing"]
    words = t["words_per_node"]
    allocated = words.get("allocated", words["paper"] + words["second_buffers"])
    return (allocated + words["link_buffers"]) * 8 / 1024  # double words


def paired_runs(binaries, arguments_of, repeat, timeout, after_round=None, copies=None):
    """`repeat` rounds, each running every point `copies[point]` times (default once) back to back
    with every binary, in turn: the runs of one round share the machine's state of that moment (on
    a shared host the speed of the small torus, which lives in the last-level cache, swings most).
    Reports by (binary's place in `binaries`, point): per round, the list of its copies' reports,
    or None when a copy ran past the timeout. `after_round`, if given, gets each round's reports by
    the same keys as soon as the round is done, to measure more in the same moment."""
    copies = copies or {}
    reports = {(b, key): [] for b in range(len(binaries)) for key in arguments_of}
    for _ in range(repeat):
        this_round = {}
        for key, arguments in arguments_of.items():
            for b, binary in enumerate(binaries):
                runs = []
                for _ in range(copies.get(key, 1)):
                    runs.append(run(binary, arguments, timeout)[0])
                    if runs[-1] is None:  # past the timeout: the round has no figure for this point
                        break
                this_round[(b, key)] = None if None in runs else runs
                reports[(b, key)].append(this_round[(b, key)])
        if after_round:
            after_round(this_round)
    return reports


def rate_of(report):
    return report["timing"]["node_cycles_per_second"] / 1e6


def pooled_rate(reports):
    """Million node-cycles per second over several runs together: all their node-cycles over all
    their simulation seconds."""
    seconds = sum(r["timing"]["simulation_seconds"] for r in reports)
    if seconds <= 0:  # too short to time: the runs' own rates, averaged
        return statistics.mean(rate_of(r) for r in reports)
    return sum(rate_of(r) * r["timing"]["simulation_seconds"] for r in reports) / seconds


def scaling(args):
    for what, tool in (("bare memory walk", walker_of(args)), ("bare stepped torus", stepper_of(args))):
        if not os.access(tool, os.X_OK):  # found before any run, not after the first round
            sys.exit(f"benchmark.py scaling: the {what} {tool} is missing; it is built beside torus-sim "
                     "(build/tools/): copy it beside --binary, or pass a --binary from a build directory")
    if not 1 <= args.threads <= 64:
        sys.exit(f"benchmark.py scaling: --threads {args.threads}: the bare stepped torus takes 1 to 64")
    print("| nodes | fast_forward | cycles | M node-cycles/s | peak MiB | engine KiB/node | held KiB/node |"
          + (" baseline M node-cycles/s | ratio |" if args.baseline else ""))
    print("|---|---|---|---|---|---|---|" + ("---|---|" if args.baseline else ""))
    binaries = [args.binary] + ([args.baseline] if args.baseline else [])
    slowdowns, walks, stepped, fastest_off = {}, {}, [], {}
    for ff in ("on", "off"):
        arguments_of = {p: problem(n, p) + ["--fast_forward", ff, "--threads", str(args.threads)] for n, p in SCALING}
        walks[ff] = []

        def walk_round(this_round, ff=ff):
            # The larger torus's memory per node at both sizes: the same node, more of them.
            large = this_round[(0, SCALING[1][1])]
            if large is None or this_round[(0, SCALING[0][1])] is None:  # no engine slow-down to set it beside
                walks[ff].append(None)
                return
            bytes_per_node = large[0]["timing"]["peak_memory_bytes"] // SCALING[1][1] ** 3
            walks[ff].append((bytes_per_node, walk_once(args, bytes_per_node, ff, SCALING)))
            if ff == "off":  # the bare stepped torus beside the engine stepping every cycle
                stepped.append(stepped_once(args, SCALING, {SCALING[0][1]: SMALL_COPIES}))

        reports = paired_runs(binaries, arguments_of, args.repeat, args.budget_seconds, walk_round,
                              {SCALING[0][1]: SMALL_COPIES})

        def slowdown_per_round(b):
            return [pooled_rate(small) / pooled_rate(large) if small and large else None
                    for small, large in zip(reports[(b, SCALING[0][1])], reports[(b, SCALING[1][1])])]

        per_round = slowdown_per_round(0)
        slowdowns[ff] = (per_round, slowdown_per_round(1) if args.baseline else [])
        for _, p in SCALING:
            done = [copies for copies in reports[(0, p)] if copies]
            if not done:
                print(f"| {p ** 3} | {ff} | past --budget-seconds in every round |", flush=True)
                continue
            fastest = max(done, key=pooled_rate)
            if ff == "off":
                fastest_off[p] = pooled_rate(fastest)
            t = fastest[0]["timing"]
            line = (f"| {p ** 3} | {ff} | {t['total_cycles']} | {pooled_rate(fastest):.2f} | "
                    f"{max(r['timing']['peak_memory_bytes'] for r in fastest) / 2**20:.0f} | "
                    f"{node_state_kib(fastest[0]):.1f} | {held_kib(fastest[0]):.1f} |")
            if args.baseline:
                base = [pooled_rate(copies) for copies in reports[(1, p)] if copies]
                line += f" {max(base):.2f} | {pooled_rate(fastest) / max(base):.2f} |" if base else " - | - |"
            print(line, flush=True)
    small, large = SCALING[0][1] ** 3, SCALING[1][1] ** 3
    print(f"\nSlow-down per node-cycle, {large} nodes against {small}, per round (the runs of one round back to "
          f"back: {SMALL_COPIES} at {small} nodes, 1 at {large}):")
    for ff, (per_round, baseline_per_round) in slowdowns.items():
        ratios = sorted(r for r in per_round if r)
        if not ratios:
            print(f"  fast_forward {ff}: no round finished both runs within --budget-seconds")
            continue
        median = statistics.median(ratios)
        print(f"  fast_forward {ff}: median {median:.2f}x, from {ratios[0]:.2f} to {ratios[-1]:.2f} over {len(ratios)} rounds")
        baseline = sorted(r for r in baseline_per_round if r)
        if baseline:
            print(f"    baseline binary, the same rounds: median {statistics.median(baseline):.2f}x, "
                  f"from {baseline[0]:.2f} to {baseline[-1]:.2f}")
        print_walk(ff, walks[ff], per_round, len(SCALING))
        if ff == "off":
            print_stepped(stepped, fastest_off, SCALING)


def largest_phases(report, count=3):
    """The phases outside the simulation that took longest, as "elaborate 12.3, verify 4.5"."""
    phases = {k: v for k, v in report.get("phase_seconds", {}).items() if k != "simulate"}
    largest = sorted(phases.items(), key=lambda kv: kv[1], reverse=True)[:count]
    return ", ".join(f"{name} {seconds:.1f}" for name, seconds in largest) or "-"


def growth(args):
    print("| P | nodes | cycles | SystemC s | wall s | largest other phases s | M node-cycles/s | peak MiB | KiB/node | Program MiB |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for p in (int(v) for v in args.sizes.split(",")):
        report, wall = run(args.binary, problem(4 * p, p, args.direction) + ["--values", args.values], args.budget_seconds)
        if report is None:
            print(f"| {p} | {p ** 3} | - | - | > {args.budget_seconds:.0f} | - | - | - | - | - |")
            break
        t = report["timing"]
        print(f"| {p} | {p ** 3} | {t['total_cycles']} | {t['simulation_seconds']:.1f} | {wall:.1f} | {largest_phases(report)} | "
              f"{t['node_cycles_per_second'] / 1e6:.2f} | {t['peak_memory_bytes'] / 2**20:.0f} | "
              f"{t['peak_memory_bytes'] / p ** 3 / 1024:.1f} | {t.get('memory', {}).get('program_bytes', 0) / 2**20:.0f} |",
              flush=True)
        if wall > args.budget_seconds:
            break


def event_point(args, engine, n, p, extra=()):
    """The fastest of --repeat runs (by the engine's own seconds), with its wall time."""
    best = None
    for _ in range(args.repeat):
        report, wall = run(args.binary, problem(n, p) + ["--engine", engine, *extra], args.budget_seconds)
        if report is None:
            sys.exit(f"N={n} P={p} engine {engine} {' '.join(extra)} took longer than {args.budget_seconds:.0f} s")
        if best is None or report["timing"]["simulation_seconds"] < best[0]["timing"]["simulation_seconds"]:
            best = (report, wall)
    return best


def fitted_exponent(xs, ys):
    """Least-squares slope of log y against log x."""
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sum((a - mx) ** 2 for a in lx)


def event(args):
    print("| N | nodes | values | engine | symmetry | cycles | engine s | wall s | peak MiB |")
    print("|---|---|---|---|---|---|---|---|---|")

    def line(n, p, values, engine, symmetry, report, wall):
        t = report["timing"]
        print(f"| {n} | {p ** 3} | {values} | {engine} | {symmetry} | {t['total_cycles']} | {t['simulation_seconds']:.3f} | "
              f"{wall:.2f} | {t['peak_memory_bytes'] / 2**20:.0f} |", flush=True)
        return t["total_cycles"]

    for n, p in SCALING:
        cycles = set()
        report, wall = event_point(args, "systemc", n, p)
        cycles.add(line(n, p, "on", "systemc", "-", report, wall))
        for symmetry in ("off", "auto"):  # auto: one node timed, values computed beside it (wall time)
            report, wall = event_point(args, "event", n, p, ["--symmetry", symmetry])
            cycles.add(line(n, p, "on", "event", symmetry, report, wall))
        for symmetry in ("off", "auto"):
            report, wall = event_point(args, "event", n, p, ["--values", "off", "--symmetry", symmetry])
            cycles.add(line(n, p, "off", "event", symmetry, report, wall))
        if len(cycles) != 1:
            sys.exit(f"N={n} P={p}: the engines disagree on the cycles: {sorted(cycles)}")
    for n, p in ((256, 32), (512, 64)):
        report, wall = event_point(args, "event", n, p, ["--values", "off"])
        line(n, p, "off", "event", "auto", report, wall)
    print("\nlarge blocks, values off, one forward transform (closed forms of whole computes and messages):\n")
    print("| N | P | algorithm | cycles | engine s | wall s | peak MiB |")
    print("|---|---|---|---|---|---|---|")
    for n, p, algorithm in LARGE_BLOCKS:
        arguments = ["--N", str(n), "--P", p, "--algorithm", algorithm, "--transform", "dct", "--direction", "forward",
                     "--engine", "event", "--values", "off"]
        report, wall = run(args.binary, arguments, args.budget_seconds)
        if report is None:
            sys.exit(f"N={n} P={p} {algorithm} took longer than {args.budget_seconds:.0f} s")
        t = report["timing"]
        print(f"| {n} | {p} | {algorithm} | {t['total_cycles']} | {t['simulation_seconds']:.3f} | {wall:.2f} | "
              f"{t['peak_memory_bytes'] / 2**20:.0f} |", flush=True)
    off = ["--values", "off"]
    nodes, seconds = [], []
    for p in (8, 16, 32, 64, 128):
        report, _ = event_point(args, "event", 4 * p, p, off)
        nodes.append(p ** 3)
        seconds.append(max(report["timing"]["simulation_seconds"], 1e-6))
    print(f"\nvalues off, symmetry auto, b = 4: engine time grows as nodes^{fitted_exponent(nodes, seconds):.2f} "
          f"(P = 8..128: {', '.join(f'{s:.4f}' for s in seconds)} s)")
    sizes, seconds = [], []
    for n in (128, 256, 512, 1024):
        report, _ = event_point(args, "event", n, 16, off)
        sizes.append(n)
        seconds.append(max(report["timing"]["simulation_seconds"], 1e-6))
    print(f"values off, symmetry auto, P = 16: engine time grows as N^{fitted_exponent(sizes, seconds):.2f} "
          f"(N = 128..1024: {', '.join(f'{s:.4f}' for s in seconds)} s)")


def bare(args):
    """Values on, DCT forward and inverse: torus-sim on 1 and 2 threads against the bare loop."""
    bare_binary = os.path.join(os.path.dirname(args.binary), "torus-bare-transform")
    print("| N | nodes | bare loop s | torus-sim 1 thread s | ratio | torus-sim 2 threads s | ratio | "
          "peak MiB | held MiB | peak / held |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for n, p in ((32, 8), (64, 16), (128, 16), (128, 32), (256, 32)):
        seconds = []
        for _ in range(args.repeat):
            done = subprocess.run([bare_binary, str(n), "2"], capture_output=True, text=True, check=True)
            seconds.append(float(done.stdout.split()[0]))
        walls, report = {}, None
        for threads in ("1", "2"):
            for _ in range(args.repeat):
                got, wall = run(args.binary, problem(n, p) + ["--engine", "event", "--threads", threads], args.budget_seconds)
                if got is None:
                    sys.exit(f"N={n} P={p} values on took longer than {args.budget_seconds:.0f} s")
                walls[threads] = min(walls.get(threads, wall), wall)
                report = got
        # What the nodes hold (every buffer at the word size) and the input and result tensors.
        held = report["nodes"] * report["node_memory"]["required_bytes"] + 2 * n ** 3 * 8
        peak = report["timing"]["peak_memory_bytes"]
        best_bare = min(seconds)
        print(f"| {n} | {p ** 3} | {best_bare:.3f} | {walls['1']:.2f} | {walls['1'] / best_bare:.1f} | {walls['2']:.2f} | "
              f"{walls['2'] / best_bare:.1f} | {peak / 2**20:.0f} | {held / 2**20:.0f} | {peak / held:.2f} |", flush=True)


TRANSPOSE_SHAPES = ["8x4x4", "8x8x4", "8x8x8"]


def transpose(args):
    """Routed all-to-alls: the APE100 ring transpose of 2048^2 on 128 to 512 nodes."""
    print("| nodes | cycles | engine s | wall s | peak MiB | estimate MiB |"
          + (" baseline engine s | baseline peak MiB | time ratio | memory ratio |" if args.baseline else ""))
    print("|---|---|---|---|---|---|" + ("---|---|---|---|" if args.baseline else ""))
    nodes, seconds = [], []
    for shape in TRANSPOSE_SHAPES:
        arguments = [os.path.join(ROOT, "scenarios", "machines", "ape100.yaml"), "--algorithm", "ring_transpose_fft",
                     "--N", "2048x2048x1", "--P", shape, "--transform", "dft", "--direction", "forward",
                     "--fma_per_cycle", "1024", "--values", "off", "--engine", "event"]
        report, wall = run(args.binary, arguments, args.budget_seconds)
        if report is None:
            sys.exit(f"P={shape} took longer than {args.budget_seconds:.0f} s")
        t = report["timing"]
        count = math.prod(int(e) for e in shape.split("x"))
        nodes.append(count)
        seconds.append(t["simulation_seconds"])
        line = (f"| {count} | {t['total_cycles']} | {t['simulation_seconds']:.2f} | {wall:.2f} | "
                f"{t['peak_memory_bytes'] / 2**20:.0f} | {t['memory']['estimate_bytes'] / 2**20:.0f} |")
        if args.baseline:
            base, _ = run(args.baseline, arguments, args.budget_seconds)
            if base is None:
                sys.exit(f"P={shape}: the baseline took longer than {args.budget_seconds:.0f} s")
            b = base["timing"]
            if b["total_cycles"] != t["total_cycles"]:
                sys.exit(f"P={shape}: {t['total_cycles']} cycles against the baseline's {b['total_cycles']}")
            line += (f" {b['simulation_seconds']:.2f} | {b['peak_memory_bytes'] / 2**20:.0f} | "
                     f"{b['simulation_seconds'] / t['simulation_seconds']:.1f} | "
                     f"{b['peak_memory_bytes'] / t['peak_memory_bytes']:.1f} |")
        print(line, flush=True)
    print(f"\nengine time grows as nodes^{fitted_exponent(nodes, seconds):.2f} (128 to 512 nodes)")


MEMORY_POINTS = [(16, 4), (32, 8), (48, 1), (24, 2), (64, 16)]
MEMORY_ENGINES = {"systemc": ["--engine", "systemc"], "event (every node)": ["--engine", "event", "--symmetry", "off"],
                  "event (one node)": ["--engine", "event"]}


def memory_row(args, arguments, columns, worst):
    """One run's estimate against its peak, as a table row after `columns`; `worst` keeps the extremes."""
    report, _ = run(args.binary, arguments, args.budget_seconds)
    t = report["timing"]
    estimate, peak = t["memory"]["estimate_bytes"], t["peak_memory_bytes"]
    ratio = estimate / peak
    worst[:] = [min(worst[0], ratio), max(worst[1], ratio)]
    flag = "" if 1.0 <= ratio <= 1.5 else " **outside 1 to 1.5**"
    print(f"| {' | '.join(columns(report))} | {estimate / 2**20:.0f} | {peak / 2**20:.0f} | {ratio:.2f}{flag} |", flush=True)


def memory(args):
    print("| N | P | data | values | engine | estimate MiB | peak MiB | estimate / peak |")
    print("|---|---|---|---|---|---|---|---|")
    worst = [float("inf"), 0.0]
    for n, p in MEMORY_POINTS:
        for transform in ("dct", "dft"):
            data = "complex" if transform == "dft" else "real"
            for values in ("on", "off"):
                for label, engine in MEMORY_ENGINES.items():
                    if label == "systemc" and n ** 3 > 64 ** 3:
                        continue  # beyond 64^3 elements minutes per point; the event engine covers the size
                    arguments = ["--N", str(n), "--P", str(p), "--transform", transform, "--direction", "both",
                                 "--values", values, *engine]
                    memory_row(args, arguments, lambda _: [str(n), str(p), data, values, label], worst)
    # Blue Gene/P's mesh partitions with blocks of two sizes, rolled through the routers (the
    # scaling study's N = 300 on 128 and 256 nodes): closed forms, values off, every node timed.
    for n, nodes in ((300, 128), (300, 256), (100, 128)):
        for transform in ("dct", "dft"):
            arguments = [os.path.join(ROOT, "scenarios", "machines", "bluegene-p.yaml"), "--algorithm", "orbital_local_coefficients",
                         "--N", str(n), "--nodes", str(nodes), "--transform", transform, "--direction", "forward",
                         "--values", "off", "--engine", "event"]
            data = "complex" if transform == "dft" else "real"
            memory_row(args, arguments,
                       lambda r: [str(n), f"{r['P']} {r['boundary']} (Blue Gene/P)", data, "off", "event (every node)"], worst)
    print(f"\nestimate / peak from {worst[0]:.2f} to {worst[1]:.2f}")


def describe_machine():
    """What a speed figure is worth without: the processor, its cores, and how busy it was."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            model = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), None)
    except OSError:
        model = None
    # Whether huge pages may be asked for (README, "Speed": GLIBC_TUNABLES=glibc.malloc.hugetlb=1), and whether they were.
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled", encoding="utf-8") as f:
            huge = f.read().split("[", 1)[1].split("]", 1)[0]
    except (OSError, IndexError):
        huge = "unknown"
    tunables = os.environ.get("GLIBC_TUNABLES")
    return (f"machine: {model or platform.processor() or 'unknown processor'}, {os.cpu_count()} cores, "
            f"{platform.system()} {platform.release()}, transparent huge pages {huge}"
            f"{', GLIBC_TUNABLES=' + tunables if tunables else ''}, load average {os.getloadavg()[0]:.2f} at the start")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("table", nargs="?", choices=["scaling", "growth", "event", "transpose", "bare", "memory", "mpi", "all"], default="all")
    parser.add_argument("--binary", default=os.path.join(ROOT, "build", "tools", "torus-sim"))
    parser.add_argument("--baseline", help="another torus-sim binary to measure beside this one")
    parser.add_argument("--repeat", type=int, default=3, help="runs per point; the fastest counts")
    parser.add_argument("--budget-seconds", type=float, default=600.0, help="stop growing the torus past this wall time")
    parser.add_argument("--sizes", default="8,12,16,20,24,28,32", help="torus edges P for the growth table, b = 4")
    parser.add_argument("--threads", type=int, default=1,
                        help="scaling: host threads for every run (they step the nodes with fast_forward off; 0: the "
                             "engine's default, one per 100 nodes up to every core it may use)")
    parser.add_argument("--values", choices=["on", "off"], default="on", help="growth: compute the values, or time only")
    parser.add_argument("--direction", choices=["forward", "both"], default="both", help="growth: DCT forward, or forward and inverse")
    args = parser.parse_args()
    # A table of speeds means little without the machine and the command that measured it.
    print(describe_machine())
    print("command: " + " ".join(shlex.quote(a) for a in ["python3", "tools/benchmark.py", *sys.argv[1:]]) + "\n")
    if args.table in ("scaling", "all"):
        scaling(args)
    if args.table in ("growth", "all"):
        print()
        growth(args)
    if args.table in ("event", "all"):
        print()
        event(args)
    if args.table in ("transpose", "all"):
        print()
        transpose(args)
    if args.table in ("bare", "all"):
        print()
        bare(args)
    if args.table in ("memory", "all"):
        print()
        memory(args)
    if args.table in ("mpi", "all"):
        print()
        mpi(args)


if __name__ == "__main__":
    main()
