"""The plots of a torus-sim report (tools/report.py) and the row helpers they share with it:
cycles and utilisation against block size, cycles against node count, the node-cycle breakdown,
simulated against analytic cycles and the link heat map of one torus plane."""

import io

import matplotlib.pyplot as plt

CLASSES = ["busy", "dependency", "operand", "backpressure", "idle"]


def extents(value):
    """N or P as a report gives them: one number, or one per axis as "AxBxC"."""
    parts = [int(v) for v in str(value).split("x")]
    if len(parts) not in (1, 3) or min(parts) < 1:
        raise ValueError(f"{value!r} is neither a whole number nor AxBxC")
    return parts * 3 if len(parts) == 1 else parts


def number(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def varying(rows, key):
    return len({str(r.get(key)) for r in rows}) > 1


def figure_png(fig):
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    return buffer.getvalue()


def block_size(row):
    """The largest block edge (b = N / P for a cube)."""
    return max(-(-n // p) for n, p in zip(extents(row["N"]), extents(row["P"])))


def node_count(row):
    """The nodes the run used: the report's count (a balanced process grid derives the torus
    from `nodes`), else P1 P2 P3 as swept."""
    if number(row.get("node_count")):
        return int(number(row["node_count"]))
    if row.get("process_grid") == "balanced" and number(row.get("nodes")):
        return int(number(row["nodes"]))  # a point that wrote no report: the grid it asked for
    p = extents(row["P"])
    return p[0] * p[1] * p[2]


def plot_against_b(rows, value, label, title):
    fig, ax = plt.subplots(figsize=(6, 4))
    groups = {}
    for r in rows:
        if number(r.get(value)) is not None:
            groups.setdefault(r.get("fma_latency", "?"), []).append((block_size(r), number(r[value])))
    for latency in sorted(groups, key=lambda v: number(v) or 0):
        pts = sorted(groups[latency])
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=f"L = {latency}")
    ax.set_xscale("log", base=2)
    if value == "total_cycles":
        ax.set_yscale("log")
    ax.set_xlabel("block size b = N / P")
    ax.set_ylabel(label)
    ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    return figure_png(fig)


def plot_front(rows):
    fig, ax = plt.subplots(figsize=(6, 4))
    pts = sorted((node_count(r), number(r["total_cycles"]), block_size(r)) for r in rows if number(r.get("total_cycles")))
    ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o")
    for nodes, cycles, b in pts:
        ax.annotate(f"b={b}", (nodes, cycles), textcoords="offset points", xytext=(4, 4), fontsize=8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("nodes P^3")
    ax.set_ylabel("cycles")
    ax.set_title("Time against resources")
    ax.grid(True, which="both", alpha=0.3)
    return figure_png(fig)


# One bar per point: beyond this many the bars are too thin to read (and the figure would pass
# the PNG's 65,535 pixels); the report's tables still give every point's classes.
MAX_BREAKDOWN_BARS = 300


def plot_breakdown(rows):
    """One stacked bar of node-cycle classes per point, or None for more than MAX_BREAKDOWN_BARS."""
    if len(rows) > MAX_BREAKDOWN_BARS:
        return None
    fig, ax = plt.subplots(figsize=(max(6, 0.35 * len(rows) + 2), 4))
    bottom = [0.0] * len(rows)
    labels = [str(r["point"]) for r in rows]
    for c in CLASSES:
        values = []
        for r in rows:
            total = sum(number(r.get("cycles_" + k)) or 0 for k in CLASSES) or 1
            values.append(100.0 * (number(r.get("cycles_" + c)) or 0) / total)
        ax.bar(labels, values, bottom=bottom, label=c)
        bottom = [b + v for b, v in zip(bottom, values)]
    ax.set_xlabel("point")
    ax.set_ylabel("% of node-cycles")
    ax.set_title("Where the cycles go")
    ax.legend(fontsize=8, bbox_to_anchor=(1.01, 1), loc="upper left")
    return figure_png(fig)


def plot_analytic(rows):
    pts = [(number(r["analytic_cycles"]), number(r["total_cycles"]), r.get("analytic_exact")) for r in rows
           if number(r.get("analytic_cycles")) and number(r.get("total_cycles"))]
    if not pts:
        return None
    fig, ax = plt.subplots(figsize=(5, 5))
    for exact, marker, label in ((True, "o", "exact regime"), (False, "x", "approximate regime")):
        sel = [p for p in pts if bool(p[2]) == exact or (p[2] is None and not exact)]
        if sel:
            ax.scatter([p[0] for p in sel], [p[1] for p in sel], marker=marker, label=label)
    lo, hi = min(min(p[0], p[1]) for p in pts), max(max(p[0], p[1]) for p in pts)
    ax.plot([lo, hi], [lo, hi], color="grey", linewidth=1)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("analytic model (cycles)")
    ax.set_ylabel("simulated (cycles)")
    ax.set_title("Simulated against analytic")
    ax.legend()
    return figure_png(fig)


def plot_heatmap(report):
    t = (report or {}).get("timing", {})
    active = t.get("link_active_cycles")
    if not active:
        return None
    if len(set(extents(report["P"]))) != 1:
        return None  # the heat map draws the planes of a cube
    p, total = extents(report["P"])[0], max(int(t["total_cycles"]), 1)
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.2), constrained_layout=True)
    for axis_index, (ax, name) in enumerate(zip(axes, ("Q", "R", "S"))):
        grid = [[0.0] * p for _ in range(p)]
        for r in range(p):
            for q in range(p):
                node = q + p * r  # the plane S = 0
                both = active[node * 6 + 2 * axis_index] + active[node * 6 + 2 * axis_index + 1]
                grid[r][q] = 100.0 * both / total
        image = ax.imshow(grid, origin="lower", cmap="viridis", vmin=0, vmax=100)
        ax.set_title(f"links along {name}")
        ax.set_xlabel("Q")
        ax.set_ylabel("R")
        ax.xaxis.get_major_locator().set_params(integer=True)
        ax.yaxis.get_major_locator().set_params(integer=True)
        fig.colorbar(image, ax=ax, label="% of cycles sending (+ and - links)")
    fig.suptitle("Link utilisation on the plane S = 0")
    return figure_png(fig)
