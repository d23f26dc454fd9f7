#!/usr/bin/env python3
"""Schedule regression baselines: exact cycle, fma and word counts of a matrix of runs.

  python3 tools/baselines.py check   run scenarios/regression.yaml, compare with the table
  python3 tools/baselines.py bless   run it and write the table (after an intended change)

The table is tests/baselines/regression.csv. `check` exits 1 and prints every difference
(parameters of the point, expected and measured value) when anything changed.
"""

import argparse
import csv
import os
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
SCENARIO = os.path.join(ROOT, "scenarios", "regression.yaml")
TABLE = os.path.join(ROOT, "tests", "baselines", "regression.csv")
KEYS = ["N", "P", "direction", "alpha", "fma_latency", "link_words_per_cycle", "link_latency", "roll_policy"]
MEASURED = ["total_cycles", "fma_issued", "words_sent", "analytic_cycles", "analytic_exact", "passed"]


def measure(binary, jobs):
    with tempfile.TemporaryDirectory() as out:
        done = subprocess.run([binary, "sweep", SCENARIO, "-j", str(jobs), "--out", out],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
        if done.returncode != 0:
            sys.exit(f"sweep failed ({done.returncode}): {done.stderr.decode()[-2000:]}")
        with open(os.path.join(out, "results.csv"), newline="", encoding="utf-8") as f:
            return [{k: row[k] for k in KEYS + MEASURED} for row in csv.DictReader(f)]


def key(row):
    return tuple(row[k] for k in KEYS)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=["check", "bless"])
    parser.add_argument("--binary", default=os.path.join(ROOT, "build", "tools", "torus-sim"))
    parser.add_argument("-j", "--jobs", type=int, default=2)
    args = parser.parse_args()
    rows = measure(args.binary, args.jobs)
    if args.action == "bless":
        with open(TABLE, "w", newline="", encoding="utf-8") as f:
            writer = csv.DictWriter(f, fieldnames=KEYS + MEASURED, lineterminator="\n")
            writer.writeheader()
            writer.writerows(rows)
        print(f"wrote {len(rows)} rows to {os.path.relpath(TABLE, ROOT)}")
        return
    with open(TABLE, newline="", encoding="utf-8") as f:
        expected = {key(r): r for r in csv.DictReader(f)}
    measured = {key(r): r for r in rows}
    problems = []
    for k in sorted(set(expected) | set(measured)):
        label = ", ".join(f"{name}={value}" for name, value in zip(KEYS, k))
        if k not in measured:
            problems.append(f"missing point: {label}")
        elif k not in expected:
            problems.append(f"new point (not in the table): {label}")
        else:
            for column in MEASURED:
                if expected[k][column] != measured[k][column]:
                    problems.append(f"{label}: {column} expected {expected[k][column]}, got {measured[k][column]}")
    print(f"{len(measured)} points measured, {len(expected)} in {os.path.relpath(TABLE, ROOT)}, {len(problems)} differences")
    for p in problems[:200]:
        print("  " + p)
    if len(problems) > 200:
        print(f"  ... and {len(problems) - 200} more")
    if problems:
        print("if the change is intended: python3 tools/baselines.py bless, and commit the table with it")
        sys.exit(1)
    print("0 failed, all counts match")


if __name__ == "__main__":
    main()
