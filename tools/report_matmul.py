"""The matmul part of a torus-sim report (tools/report.py): the array-shape table of a sweep of
task: matmul points and plots of cycles and of words sent per node against Nr / Nc.

For each product m x k x n (and each value of any other parameter that varies besides the
algorithm and the array), a table of cycles with one row per algorithm and one column per
array shape in order of Nr / Nc, then a summary: the best array of each algorithm, the best
overall, and Nr / Nc against m / n (Mathur and Johnsson's rule for C stationary: the array has
the shape of C; for A or B stationary, that of A or B).
"""

import math

import matplotlib.pyplot as plt

import report_groups
import report_matmul_ring

# Columns that never name a group of the shape table: the point's identity, the varied array and
# algorithm themselves, and what a matmul run does not read.
NOT_GROUPING = {"point", "status", "exit_code", "algorithm", "array", "N", "P", "nodes", "seed", "report_json", "output"}


# The points table's columns for a matmul sweep.
POINT_KEYS = ["point", "status", "m", "k", "n", "array", "algorithm", "matmul_algorithm", "hypersystolic_mapping", "precision",
              "domain", "fma_per_cycle", "message_startup_cycles", "link_words_per_cycle", "total_cycles", "matmul_compute_steps", "matmul_words_sent",
              "matmul_words_sent_per_node", "utilisation", "max_rel_error", "passed"]


def row_of_report(report):
    """A sweep-like row of one matmul run's --report_json file."""
    m, t = report["matmul"], report.get("timing", {})
    golden = m.get("golden") or {}
    return {"point": 0, "status": "ok" if report.get("passed") else "failed", "task": "matmul", "m": m["m"], "k": m["k"],
            "n": m["n"], "array": "{}x{}".format(*m["array"]), "algorithm": report["algorithm"],
            "matmul_algorithm": m.get("chosen_algorithm", report["algorithm"]), "passed": report.get("passed"),
            "total_cycles": t.get("total_cycles"), "utilisation": t.get("utilisation"), "seconds": t.get("seconds"),
            "node_count": report.get("nodes"), "matmul_compute_steps": m.get("compute_steps"),
            "matmul_words_sent": m.get("words_sent"), "matmul_words_sent_per_node": m.get("words_sent_per_node"),
            "max_rel_error": golden.get("max_rel_error")}


def is_matmul(rows):
    return any(r.get("task") == "matmul" for r in rows)


def array_of(row):
    nr, nc = (int(v) for v in str(row["array"]).replace(" ", "").split("x"))
    return nr, nc


def ratio_text(nr, nc):
    """Nr / Nc in lowest terms: "4", "1/4", "3/2"."""
    g = math.gcd(nr, nc)
    return f"{nr // g}" if nc == g else f"{nr // g}/{nc // g}"


def cycles(row):
    return int(row["total_cycles"]) if row.get("status") == "ok" and row.get("total_cycles") is not None else None


def shape_table(members):
    """Header and body: one row per algorithm, one column per array (by Nr / Nc), best marked *."""
    arrays = sorted({array_of(r) for r in members}, key=lambda a: a[0] / a[1])
    algorithms = sorted({str(r.get("matmul_algorithm") or r.get("algorithm")) for r in members})
    at = {(str(r.get("matmul_algorithm") or r.get("algorithm")), array_of(r)): r for r in members}
    header = ["algorithm"] + [f"{nr}x{nc}" for nr, nc in arrays] + ["best array"]
    body = []
    for name in algorithms:
        values = {a: cycles(at[(name, a)]) if (name, a) in at else None for a in arrays}
        done = {a: v for a, v in values.items() if v is not None}
        best = min(done, key=done.get) if done else None
        cells = [name] + [("refused" if (name, a) in at else "") if values[a] is None else
                          f"{values[a]}{' *' if a == best else ''}" for a in arrays]
        body.append(cells + [f"{best[0]}x{best[1]}" if best else ""])
    return header, body


def summary(title, members):
    """One line of the shape-rule summary for one product."""
    m, n = int(members[0]["m"]), int(members[0]["n"])
    done = [r for r in members if cycles(r) is not None]
    if not done:
        return [title, "", "", "", f"{m / n:.3g}", "", ""]
    least = min(cycles(r) for r in done)
    # Ties: A stationary on Nr x Nc and B on Nc x Nr; auto's point is its choice's, named once.
    best = list({(str(r.get("matmul_algorithm")), array_of(r)): r for r in done if cycles(r) == least}.values())
    names = " = ".join(str(r.get("matmul_algorithm")) for r in best)
    arrays = " = ".join("{}x{}".format(*array_of(r)) for r in best)
    ratios = " = ".join(ratio_text(*array_of(r)) for r in best)
    systolic = [r for r in done if str(r.get("matmul_algorithm")) == "systolic"]
    c_best = min(systolic, key=cycles) if systolic else None
    c_text = "" if c_best is None else "{}x{} ({})".format(*array_of(c_best), ratio_text(*array_of(c_best)))
    return [title, names, arrays, ratios, f"{m / n:.3g}", str(least), c_text]


SUMMARY_HEADER = ["product", "best algorithm", "best array", "Nr/Nc", "m/n", "cycles", "systolic's best array (Nr/Nc)"]


def words(row):
    value = row.get("matmul_words_sent_per_node")
    return int(value) if cycles(row) is not None and value is not None else None


def plot_shape(grouped, value=cycles, label="cycles"):
    """`value` (cycles, or words sent per node) against log2(Nr / Nc), one panel per product, one
    line per algorithm."""
    count = len(grouped)
    columns = min(3, count)
    rows = (count + columns - 1) // columns
    fig, axes = plt.subplots(rows, columns, figsize=(5 * columns, 3.8 * rows), squeeze=False)
    for index, (title, members) in enumerate(grouped):
        ax = axes[index // columns][index % columns]
        for name in sorted({str(r.get("matmul_algorithm")) for r in members if value(r) is not None}):
            pts = sorted((math.log2(array_of(r)[0] / array_of(r)[1]), value(r)) for r in members
                         if value(r) is not None and str(r.get("matmul_algorithm")) == name)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=name)
        m, n = int(members[0]["m"]), int(members[0]["n"])
        ax.axvline(math.log2(m / n), color="grey", linewidth=1, linestyle="--", label="Nr/Nc = m/n")
        ax.set_xlabel("log2(Nr / Nc)")
        ax.set_ylabel(label)
        ax.set_yscale("log")
        ax.set_title(title, fontsize=9)
        ax.legend(fontsize=7)
    for index in range(count, rows * columns):
        axes[index // columns][index % columns].set_visible(False)
    fig.tight_layout()
    return fig


def sections(rows, parameter_keys, varying, markdown_table, html_table, figure_png):
    """Markdown lines, HTML parts and plots (name, caption, png) for a matmul sweep, else empty."""
    if not is_matmul(rows):
        return [], [], []
    ring = report_matmul_ring.sections(rows, parameter_keys, varying, markdown_table, html_table, figure_png)
    rows = [r for r in rows if not report_matmul_ring.is_ring(r)]  # the ring algorithms have a table of their own
    if len({str(r.get("array")) for r in rows}) < 2:  # one array: no shape to compare
        return ring
    grouped = report_groups.groups(rows, parameter_keys, varying, NOT_GROUPING)
    md, body = report_groups.tables("Array shape (task matmul)",
                                    "Cycles per array shape Nr x Nc, in order of Nr / Nc; * marks each algorithm's best.",
                                    grouped, shape_table, markdown_table, html_table)
    lines = [summary(title, members) for title, members in grouped]
    md += ["### The shape rule", ""] + markdown_table(SUMMARY_HEADER, lines)
    body.append("<h3>The shape rule</h3>" + html_table(SUMMARY_HEADER, lines))
    plots = [("matmul-shape", "Cycles against Nr / Nc (task matmul)", figure_png(plot_shape(grouped))),
             ("matmul-words", "Words sent per node (the most over nodes) against Nr / Nc (task matmul)",
              figure_png(plot_shape(grouped, words, "words sent per node")))]
    return md + ring[0], body + ring[1], plots + ring[2]
