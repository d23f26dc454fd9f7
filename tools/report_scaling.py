"""The transform-algorithm part of a torus-sim report (tools/report.py): when a sweep varies
`algorithm` over 3D transform algorithms (orbital, orbital_local_coefficients, slab_fft,
pencil_fft, ring_transpose_fft), it compares them on the same machine.

- Time against node count, per N and machine point: one column per algorithm, seconds and
  cycles, the fastest at each node count marked.
- The crossover table: per machine point, N and link speed, which algorithm is fastest at each
  node count and by how much (its time to the runner-up's), and the node counts where the winner
  changes.
- Where the cycles go: the node-cycle classes of every point that ran, in percent of all
  node-cycles, and the words moved (the sum of every link's words).
- The strong-scaling front: time against nodes per algorithm on log-log axes, one plot per N and
  machine point.

Points an algorithm cannot run (slab_fft on more nodes than N, orbital on a torus that is not a
cube, ...) are "refused" in the sweep table, with the reason; the tables say so.
"""

import html

import matplotlib.pyplot as plt

import anchors
import report_groups

# What places a point within a group of these tables, or does not describe the machine.
NOT_GROUPING = {"point", "status", "exit_code", "refusal", "algorithm", "N", "P", "nodes", "process_grid", "seed",
                "report_json", "output", "input", "chrome_trace", "vcd_trace", "threads", "max_memory"}
CLASSES = [("busy", "compute: at least one fma issued"),
           ("dependency", "waiting for a result still in the node's own fma pipeline"),
           ("operand", "waiting for data: a word still on its way over the links (transposes, rolls)"),
           ("backpressure", "waiting for data while a word of its own has no credit on its link (contention)"),
           ("idle", "nothing left to issue (done, or waiting for the others)")]
BREAKDOWN_NOTE = ("Percent of all node-cycles (every node, every cycle of the run) in each class: " +
                  "; ".join(f"**{c}** = {text}" for c, text in CLASSES) +
                  ". Words moved: the sum of the words every link carried (a word crossing h links counts h times).")


def applies(rows):
    """A sweep of transform points whose algorithm varies."""
    transform_rows = [r for r in rows if r.get("task", "transform") != "matmul" and r.get("algorithm")]
    return len({r["algorithm"] for r in transform_rows}) > 1


def seconds_of(row):
    try:
        return float(row["seconds"]) if row.get("status") == "ok" and row.get("seconds") is not None else None
    except (TypeError, ValueError):
        return None


def machine_groups(rows, parameter_keys, varying, extra=()):
    """(title, rows) per value of every varying parameter but those a table spreads out itself."""
    keys = [k for k in parameter_keys(rows) if k not in NOT_GROUPING and k not in extra and varying(rows, k)]
    out = {}
    for r in rows:
        out.setdefault(tuple(str(r.get(k)) for k in keys), []).append(r)
    titled = []
    for values in sorted(out, key=lambda v: [report_groups.sort_key(x) for x in v]):
        titled.append((", ".join(f"{k} {v}" for k, v in zip(keys, values)) or "all points", out[values]))
    return titled


def by_n(rows, node_count):
    """{N: {(algorithm, nodes): row}} in numeric order of N."""
    out = {}
    for r in rows:
        out.setdefault(str(r["N"]), {})[(r["algorithm"], node_count(r))] = r
    return {n: out[n] for n in sorted(out, key=report_groups.sort_key)}


def algorithms_of(rows):
    return sorted({r["algorithm"] for r in rows})


def cell(row):
    """A time cell: seconds and cycles, or why there is none."""
    if row is None:
        return ""
    if row.get("status") == "ok":
        return f"{float(row['seconds']):.4g} s ({int(row['total_cycles'])})"
    if row.get("status") == "refused":
        return "refused"
    return str(row.get("status"))


def ranking(at, algorithms, nodes):
    """The algorithms that ran at `nodes`, fastest first, as (seconds, algorithm)."""
    return sorted((seconds_of(at[(a, nodes)]), a) for a in algorithms if (a, nodes) in at and seconds_of(at[(a, nodes)]))


def winners(ranked):
    """The algorithms tied for the least time, and the runner-up's time (None if none is slower)."""
    best = [a for t, a in ranked if t == ranked[0][0]]
    slower = [t for t, _ in ranked if t > ranked[0][0]]
    return best, (slower[0] if slower else None)


def time_table(at, algorithms, nodes_list):
    """Rows nodes, one column per algorithm: seconds (cycles), the fastest (all if tied) in bold."""
    header = ["nodes"] + algorithms
    body = []
    for p in nodes_list:
        ranked = ranking(at, algorithms, p)
        best = winners(ranked)[0] if ranked else []
        cells = []
        for a in algorithms:
            text = cell(at.get((a, p)))
            cells.append(f"**{text}**" if a in best else text)
        body.append([str(p)] + cells)
    return header, body


def crossover(at, algorithms, nodes_list):
    """Per node count the winner (tied ones joined by " = ") and its lead ("slab_fft 1.234x": the
    runner-up takes 1.234 times as long; "alone" when nothing else ran there, "tied" when all that
    ran took the same time), and the node counts where the winner changes."""
    cells, changes, last = [], [], None
    for p in nodes_list:
        ranked = ranking(at, algorithms, p)
        if not ranked:
            cells.append("")
            continue
        best, runner_up = winners(ranked)
        winner = " = ".join(best)
        lead = f"{runner_up / ranked[0][0]:.3f}x" if runner_up else "alone" if len(ranked) == 1 else "tied"
        cells.append(f"{winner} {lead}")
        if last is not None and winner != last:
            changes.append(f"{p}: {last} -> {winner}")
        last = winner
    return cells, changes


def link_speed(row):
    return str(row.get("link_words_per_cycle"))


def crossover_table(rows, node_count, parameter_keys, varying):
    """One row per machine point (link speed apart), N and link speed; one column per node count."""
    nodes_list = sorted({node_count(r) for r in rows})
    header = ["machine", "N", "link words/cycle"] + [str(p) for p in nodes_list] + ["winner changes at"]
    body = []
    for title, members in machine_groups(rows, parameter_keys, varying, extra=("link_words_per_cycle",)):
        speeds = sorted({link_speed(r) for r in members}, key=report_groups.sort_key)
        at_speed = {speed: by_n([r for r in members if link_speed(r) == speed], node_count) for speed in speeds}
        for n in sorted({str(r["N"]) for r in members}, key=report_groups.sort_key):
            for speed in speeds:
                cells, changes = crossover(at_speed[speed].get(n, {}), algorithms_of(members), nodes_list)
                body.append([title, n, speed] + cells + ["; ".join(changes) or "none"])
    return header, body


def breakdown_table(rows, node_count):
    """Every point that ran: node-cycle classes in percent and words moved."""
    header = ["N", "algorithm", "nodes", "cycles"] + [f"{c} %" for c, _ in CLASSES] + ["words moved"]
    body = []
    for n, at in by_n(rows, node_count).items():
        for (a, p), r in sorted(at.items()):
            if r.get("status") != "ok":
                continue
            total = sum(float(r.get("cycles_" + c) or 0) for c, _ in CLASSES) or 1.0
            shares = [f"{100.0 * float(r.get('cycles_' + c) or 0) / total:.1f}" for c, _ in CLASSES]
            body.append([n, a, str(p), str(r["total_cycles"])] + shares + [str(r.get("words_sent"))])
    return header, body


def anchor_note(n):
    """The published times of this tensor size, for the text beside a time table."""
    found = anchors.at_size(n)
    if not found:
        return ""
    return "Published (on its own machine; marked with a star on the plot): " + "; ".join(
        f"{a['name']} in {a['seconds']:.4g} s on {a['nodes']} nodes ({a['source']})" for a in found) + "."


def plot_front(rows, node_count, title, figure_png, n=None):
    """Seconds against nodes, one line per algorithm, log-log; the published anchors of size n as
    stars, so a front can be read against what a real machine did."""
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for a in algorithms_of(rows):
        pts = sorted((node_count(r), seconds_of(r)) for r in rows if r["algorithm"] == a and seconds_of(r))
        if pts:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=a)
    for anchor in anchors.at_size(n) if n is not None else []:
        ax.plot([anchor["nodes"]], [anchor["seconds"]], marker="*", markersize=14, linestyle="none", color="black",
                label=f"{anchor['name']} (published)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("nodes")
    ax.set_ylabel("simulated seconds")
    ax.set_title(title, fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    return figure_png(fig)


def sections(rows, node_count, parameter_keys, varying, markdown_table, html_table, figure_png):
    """Markdown lines, HTML parts and plots (name, caption, png) of the comparison, or nothing."""
    if not applies(rows):
        return [], [], []
    rows = [r for r in rows if r.get("task", "transform") != "matmul"]
    heading = "Transform algorithms on the same machine"
    md, body, plots = ["", f"## {heading}", ""], [f"<h2>{heading}</h2>"], []
    header, cells = crossover_table(rows, node_count, parameter_keys, varying)
    note = ("Crossover: the fastest algorithm at each node count and its time's ratio to the runner-up's "
            "(\"alone\": nothing else ran there; \"tied\": all that ran took the same time).")
    md += ["### Crossover", "", note, ""] + markdown_table(header, cells) + [""]
    body.append(f"<h3>Crossover</h3><p>{note}</p>" + html_table(header, cells))
    index = 0
    for title, members in machine_groups(rows, parameter_keys, varying):
        for n, at in by_n(members, node_count).items():
            group = f"N = {n}" + (f", {title}" if title != "all points" else "")
            nodes_list = sorted({p for _, p in at})
            header, cells = time_table(at, algorithms_of(members), nodes_list)
            published = anchor_note(n)
            md += [f"### Time against nodes: {group}", "", "Seconds (cycles); the fastest in bold.", ""]
            md += markdown_table(header, cells) + ([""] + [published] if published else []) + [""]
            body.append(f"<h3>Time against nodes: {group}</h3>" + html_table(header, cells) +
                        (f"<p>{html.escape(published)}</p>" if published else ""))
            plots.append((f"transform-front-{index}", f"Strong-scaling front: {group}",
                          plot_front(list(at.values()), node_count, group, figure_png, n)))
            index += 1
    for title, members in machine_groups(rows, parameter_keys, varying):
        header, cells = breakdown_table(members, node_count)
        md += [f"### Where the cycles go: {title}", "", BREAKDOWN_NOTE, ""] + markdown_table(header, cells) + [""]
        body.append(f"<h3>Where the cycles go: {title}</h3><p>{BREAKDOWN_NOTE}</p>" + html_table(header, cells))
    return md, body, plots
