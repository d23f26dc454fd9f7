"""The ring part of a torus-sim matmul report: hyper-systolic against the systolic ring (Lippert et
al., "Hyper-systolic matrix multiplication") from a sweep of systolic_ring and hypersystolic points.

One table per machine point (and per product): cycles of the systolic ring and of the
hyper-systolic algorithm on each mapping it ran (ring, plane), one column per node count p, then
the gain, systolic_ring cycles / hypersystolic cycles, per mapping; and a plot of the gains
against p. systolic_ring reads no mapping, so its points of either mapping are one run.
"""

import math
import matplotlib.pyplot as plt

import report_groups

RING_ALGORITHMS = ("systolic_ring", "hypersystolic")
# Columns that never name a machine point: the point's identity, what the table spreads out
# (algorithm, mapping, array), and what a matmul run does not read.
NOT_GROUPING = {"point", "status", "exit_code", "algorithm", "array", "hypersystolic_mapping", "hypersystolic_k", "N", "P",
                "nodes", "seed", "report_json", "output"}


def is_ring(row):
    return str(row.get("algorithm")) in RING_ALGORITHMS


def nodes(row):
    nr, nc = (int(v) for v in str(row["array"]).replace(" ", "").split("x"))
    return nr * nc


def cycles(row):
    return int(row["total_cycles"]) if row.get("status") == "ok" and row.get("total_cycles") is not None else None


def series(members):
    """{(label, p): cycles or None} and the sorted p's: "systolic_ring" (one run whatever its mapping)
    and "hypersystolic, MAPPING" per mapping that ran."""
    at, ps = {}, set()
    for r in members:
        label = "systolic_ring" if r["algorithm"] == "systolic_ring" else f"hypersystolic, {r.get('hypersystolic_mapping')}"
        p = nodes(r)
        ps.add(p)
        if at.get((label, p)) is None:
            at[(label, p)] = cycles(r)
    return at, sorted(ps)


def labels_of(at):
    return sorted({label for label, _ in at}, key=lambda s: (s != "systolic_ring", s))


def gain(at, label, p):
    ring, hyper = at.get(("systolic_ring", p)), at.get((label, p))
    return ring / hyper if ring and hyper else None


def shift_ratio(p):
    """(p - 1) / T with the default K: the largest divisor of p not above sqrt(p)."""
    k = max(d for d in range(1, math.isqrt(p) + 1) if p % d == 0)
    return (p - 1) / (k + p // k - 1)


def ring_table(members):
    """Header and body: cycles per algorithm x mapping, then gains, one column per p."""
    at, ps = series(members)
    arrays = {nodes(r): str(r["array"]) for r in members}
    header = ["algorithm"] + [f"p = {p} ({arrays[p]})" for p in ps]
    labels = labels_of(at)
    body = [[label] + [("" if (label, p) not in at else "failed" if at[(label, p)] is None else str(at[(label, p)]))
                       for p in ps] for label in labels]
    for label in labels[1:] if labels and labels[0] == "systolic_ring" else []:
        mapping = label.split(", ", 1)[1]
        body.append([f"gain on {mapping}"] + [("" if gain(at, label, p) is None else f"{gain(at, label, p):.2f}")
                                               for p in ps])
    return header, body


def plot_gains(grouped):
    """Gain (systolic_ring / hypersystolic cycles) against p, one line per machine point and mapping."""
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for index, (title, members) in enumerate(grouped):  # a colour per machine point, solid on the plane
        at, ps = series(members)
        for label in labels_of(at)[1:]:
            pts = [(p, gain(at, label, p)) for p in ps if gain(at, label, p) is not None]
            style = "-" if label.endswith("plane") else "--"
            ax.plot([p for p, _ in pts], [g for _, g in pts], style, marker="o", color=f"C{index % 10}",
                    label=f"{label.split(', ')[1]}: {title}")
    ps = sorted({nodes(r) for _, members in grouped for r in members})
    ax.plot(ps, [shift_ratio(p) for p in ps], ":", color="grey", label="shift operations (p - 1) / (K + K~ - 1)")
    ax.axhline(1, color="grey", linewidth=1)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("p (nodes)")
    ax.set_ylabel("systolic_ring cycles / hypersystolic cycles")
    ax.legend(fontsize=6)
    fig.tight_layout()
    return fig


def sections(rows, parameter_keys, varying, markdown_table, html_table, figure_png):
    """Markdown lines, HTML parts and plots for the systolic_ring and hypersystolic points, else empty."""
    ring = [r for r in rows if is_ring(r)]
    if not ring or len({nodes(r) for r in ring}) < 2 and len({str(r["algorithm"]) for r in ring}) < 2:
        return [], [], []
    grouped = report_groups.groups(ring, parameter_keys, varying, NOT_GROUPING)
    md, body = report_groups.tables("Hyper-systolic against the systolic ring (task matmul)",
                                    "Cycles per node count p; gain = systolic_ring cycles / hypersystolic cycles on each mapping.",
                                    grouped, ring_table, markdown_table, html_table)
    plots = [("matmul-ring-gain", "Hyper-systolic gain against p (task matmul)", figure_png(plot_gains(grouped)))]
    return md, body, plots
