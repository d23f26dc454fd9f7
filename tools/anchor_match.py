#!/usr/bin/env python3
"""Reads off, from an anchor study's sweep folder (scenarios/studies/anchor-*.yaml), the first
machine point at which each algorithm matches a published time.

  anchor_match.py RESULTS --target SECONDS [--N N] [--name TEXT]
  anchor_match.py RESULTS --anchor NAME      (a published anchor of tools/anchors.py: its time and N)
  ... --plot FILE.png                        (also draw seconds against fma rate, one line per link
                                              speed, the target as a dashed line)

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
import tempfile
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
        groups.setdefault((label_of(r, kernels), str(r["N"]), asked), []).append(r)
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


def label_of(row, kernels):
    return f"{row['algorithm']} ({row.get('local_kernel')})" if kernels else row["algorithm"]


def plot(rows, target, title, path):
    """Seconds against fma per cycle, one panel per algorithm that ran, one line per link speed;
    the target dashed: the machine points under the line match. Written whole or not at all."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    kernels = len({r.get("local_kernel") for r in rows}) > 1
    ran = [r for r in rows if r.get("status") == "ok"]
    labels = sorted({label_of(r, kernels) for r in ran})
    if not labels:
        raise ValueError("no point ran, nothing to plot")
    fig, axes = plt.subplots(1, len(labels), figsize=(4.2 * len(labels), 4), squeeze=False, sharey=True)
    for ax, label in zip(axes[0], labels):
        mine = [r for r in ran if label_of(r, kernels) == label]
        for link in sorted({r["link_words_per_cycle"] for r in mine}, key=lambda v: Fraction(str(v))):
            pts = sorted((float(Fraction(str(r["fma_per_cycle"]))), float(r["seconds"]))
                         for r in mine if r["link_words_per_cycle"] == link)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=f"{link} words/cycle")
        ax.axhline(target, color="black", linestyle="--", linewidth=1, label="published")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("fma per cycle per node")
        ax.set_title(label, fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("simulated seconds")
    axes[0][0].legend(fontsize=7)
    fig.suptitle(title, fontsize=9)
    folder = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(dir=folder, suffix=".png")
    try:
        with os.fdopen(handle, "wb") as f:
            fig.savefig(f, format="png", dpi=110, bbox_inches="tight")
        os.replace(temporary, path)
    finally:
        plt.close(fig)
        if os.path.exists(temporary):
            os.unlink(temporary)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", help="the anchor study's sweep folder")
    parser.add_argument("--target", type=float, help="the published time, in seconds")
    parser.add_argument("--anchor", help="a published anchor by name: " + ", ".join(a["name"] for a in anchors.ANCHORS))
    parser.add_argument("--N", default=None, help="only the points of this N (a study with one target per N)")
    parser.add_argument("--name", default="", help="what the target is, for the heading")
    parser.add_argument("--plot", help="also write this PNG: seconds against fma rate per algorithm, the target dashed")
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
    if args.plot:
        if os.path.isdir(args.plot) or not os.path.isdir(os.path.dirname(os.path.abspath(args.plot))):
            print(f"anchor_match: --plot: '{args.plot}' is not allowed; allowed: a file name in an existing folder",
                  file=sys.stderr)
            sys.exit(2)
        try:
            plot(rows, args.target, f"Target {args.target:.4g} s: {args.name or 'published time'}", args.plot)
        except ValueError as e:
            print(f"anchor_match: --plot: {e}", file=sys.stderr)
            sys.exit(2)
        except OSError as e:
            print(f"anchor_match: cannot write {args.plot}: {e}", file=sys.stderr)
            sys.exit(4)


if __name__ == "__main__":
    main()
