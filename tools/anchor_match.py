#!/usr/bin/env python3
"""Reads off, from an anchor study's sweep folder (scenarios/studies/anchor-*.yaml), the first
machine point at which each algorithm matches a published time.

  anchor_match.py RESULTS --target SECONDS [--N N] [--name TEXT]
  anchor_match.py RESULTS --anchor NAME      (a published anchor of tools/anchors.py: its time and N)

For each algorithm, N and node count, the points that ran are ordered by what they ask of the machine, the
fma a node issues per cycle first, then the link's words per cycle (the order an architect would
add hardware in), and the first whose simulated seconds are at most the target is named, with
its cycles and time; "no point matches" gives the fastest point instead. Refused points (an
algorithm that cannot run the node count) are counted and listed with their reason.
Exit codes as torus-sim's: 2 for a folder that is not a sweep's results.
"""

import argparse
import json
import os
import sys
from fractions import Fraction

import anchors


def load_rows(folder):
    with open(os.path.join(folder, "results.jsonl"), encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def cost(row):
    """The resources a point asks for, in the order they are added: fma rate, then link speed."""
    return (Fraction(str(row["fma_per_cycle"])), Fraction(str(row["link_words_per_cycle"])))


def matches(rows, target):
    """Lines of the read-off table: per algorithm (and local kernel, where the study varies it), N
    and node count, the first point at or under the target."""
    groups = {}
    kernels = len({r.get("local_kernel") for r in rows}) > 1  # a study that varies the local kernel
    for r in rows:  # the node count as asked for: `nodes`, else the torus P
        asked = str(r.get("nodes")) if str(r.get("nodes", "0")) != "0" else f"P {r.get('P')}"
        algorithm = f"{r['algorithm']} ({r.get('local_kernel')})" if kernels else r["algorithm"]
        groups.setdefault((algorithm, str(r["N"]), asked), []).append(r)
    lines = ["| algorithm | N | nodes | first match (fma/cycle, link words/cycle) | cycles | seconds | points tried |",
             "|---|---|---|---|---|---|---|"]
    for (algorithm, n, asked), members in sorted(groups.items()):
        ran = sorted((r for r in members if r.get("status") == "ok"), key=cost)
        refused = [r for r in members if r.get("status") == "refused"]
        if not ran:
            reason = refused[0].get("refusal", "") if refused else "no point ran"
            lines.append(f"| {algorithm} | {n} | {asked} | refused: {reason} | | | 0 |")
            continue
        hit = next((r for r in ran if float(r["seconds"]) <= target), None)
        shown = hit or min(ran, key=lambda r: float(r["seconds"]))
        what = (f"{shown['fma_per_cycle']}, {shown['link_words_per_cycle']}" if hit else
                f"no point matches; fastest: {shown['fma_per_cycle']}, {shown['link_words_per_cycle']}")
        lines.append(f"| {algorithm} | {n} | {shown.get('node_count')} | {what} | {shown['total_cycles']} | "
                     f"{float(shown['seconds']):.4g} | {len(ran)} |")
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", help="the anchor study's sweep folder")
    parser.add_argument("--target", type=float, help="the published time, in seconds")
    parser.add_argument("--anchor", help="a published anchor by name: " + ", ".join(a["name"] for a in anchors.ANCHORS))
    parser.add_argument("--N", default=None, help="only the points of this N (a study with one target per N)")
    parser.add_argument("--name", default="", help="what the target is, for the heading")
    args = parser.parse_args()
    if args.anchor is not None:
        anchor = anchors.by_name(args.anchor)
        if anchor is None:
            print(f"anchor_match: --anchor: '{args.anchor}' is not allowed; allowed: " +
                  ", ".join(a["name"] for a in anchors.ANCHORS), file=sys.stderr)
            sys.exit(2)
        args.target, args.N, args.name = anchor["seconds"], str(anchor["N"]), f"{anchor['name']} ({anchor['source']})"
    if args.target is None or not args.target > 0:
        print(f"anchor_match: --target: '{args.target}' is not allowed; allowed: a positive number of seconds", file=sys.stderr)
        sys.exit(2)
    try:
        rows = [r for r in load_rows(args.results) if args.N is None or str(r["N"]) == args.N]
        if not rows:
            raise ValueError(f"no point with N = {args.N}")
        lines = matches(rows, args.target)
    except (OSError, ValueError, KeyError) as e:
        print(f"anchor_match: {args.results}: not a torus-sim sweep folder with results.jsonl ({type(e).__name__}: {e})",
              file=sys.stderr)
        sys.exit(2)
    print(f"Target {args.target:.4g} s{': ' + args.name if args.name else ''}\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
