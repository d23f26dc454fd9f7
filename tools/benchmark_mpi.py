#!/usr/bin/env python3
"""The MPI table of tools/benchmark.py: a 48-point study (fma latency against b at N = 16, both
micro-schedules) swept on one machine and with mpirun at -np 1, 2, 3 (-j 1 per rank, loopback
only): wall time, speed-up against the plain sweep at -j 1, processor time of everything the
sweep started, and the peak memory of each rank process and of mpirun (the points' own
processes aside). The tables must equal the plain sweep's.

Run it through `python3 tools/benchmark.py mpi`."""

import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time


MPI_STUDY = """N: 16
transform: dct
direction: forward
sweep:
  P: [16, 8, 4, 2]
  fma_latency: [1, 2, 4, 8, 12, 16]
  micro_schedule: [interleaved, chained]
"""


def deterministic_rows(folder):
    """The sweep's table without the columns that measure the host."""
    rows = []
    with open(os.path.join(folder, "results.jsonl"), encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            row.pop("wall_seconds")
            row.pop("peak_memory_bytes")
            rows.append(row)
    return rows


def peak_kib(pid):
    """VmHWM of a process (its peak resident memory so far), 0 once it is gone."""
    try:
        with open(f"/proc/{pid}/status", encoding="utf-8") as f:
            return next((int(line.split()[1]) for line in f if line.startswith("VmHWM:")), 0)
    except OSError:
        return 0


def timed_sweep(command):
    """Wall time of a sweep command, the processor time of it and all it started (the points),
    and the peak memory of the process and of each child that is a rank (for mpirun), sampled
    every 50 ms."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peaks = {}
    while process.poll() is None:
        try:
            with open(f"/proc/{process.pid}/task/{process.pid}/children", encoding="utf-8") as f:
                ranks = [int(p) for p in f.read().split()]
        except OSError:
            ranks = []
        for pid in [process.pid, *ranks]:
            peaks[pid] = max(peaks.get(pid, 0), peak_kib(pid))
        time.sleep(0.05)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    if process.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({process.returncode}): {process.stderr.read().decode()[-2000:]}")
    return wall, cpu, peaks.pop(process.pid, 0), sorted(peaks.values())


def mpi(args):
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        print("mpi: no mpirun (tools/setup.sh installs openmpi-bin)")
        return
    if os.geteuid() == 0:  # Open MPI refuses root unless told twice
        os.environ.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    loopback = ["--oversubscribe", "--bind-to", "none", "--mca", "pml", "ob1", "--mca", "btl", "self,vader,tcp",
                "--mca", "btl_tcp_if_include", "lo", "--mca", "oob_tcp_if_include", "lo", "--enable-recovery"]
    with tempfile.TemporaryDirectory() as folder:
        scenario = os.path.join(folder, "study.yaml")
        with open(scenario, "w", encoding="utf-8") as f:
            f.write(MPI_STUDY)
        runs = [("plain sweep -j 1", [], 1), ("plain sweep -j 2", [], 2)]
        runs += [(f"mpirun -np {k}, -j 1", [mpirun, *loopback, "-np", str(k)], 1) for k in (1, 2, 3)]
        print("| sweep | wall s | speed-up | processor s | rank peak MiB (each) | mpirun peak MiB |")
        print("|---|---|---|---|---|---|")
        # Rounds over every configuration, the best of --repeat rounds each: a machine's load
        # comes and goes, and it then weighs on every configuration alike.
        best, reference = {}, None
        for attempt in range(args.repeat):
            for index, (label, launcher, jobs) in enumerate(runs):
                out = os.path.join(folder, f"out-{index}-{attempt}")
                result = timed_sweep([*launcher, args.binary, "sweep", scenario, "--out", out, "-j", str(jobs)])
                rows = deterministic_rows(out)
                reference = reference or rows
                if rows != reference or len(rows) != 48:
                    sys.exit(f"{label}: the table differs from the plain sweep's")
                if label not in best or result[0] < best[label][0]:
                    best[label] = result
        first = best[runs[0][0]][0]
        for label, launcher, _ in runs:
            wall, cpu, own, ranks = best[label]
            if launcher:
                memory_columns = f"{', '.join(f'{kib / 1024:.1f}' for kib in ranks)} | {own / 1024:.1f}"
            else:
                memory_columns = f"{own / 1024:.1f} (the sweep process) | -"
            print(f"| {label} | {wall:.1f} | {first / wall:.2f} | {cpu:.1f} | {memory_columns} |")
