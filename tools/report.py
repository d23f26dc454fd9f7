#!/usr/bin/env python3
"""Renders torus-sim results as Markdown and a self-contained HTML page with plots.

  report.py RESULTS [--out DIR]

RESULTS is a sweep folder (with results.jsonl and points/) or one run's JSON report
(--report_json). The page embeds its plots as PNG data, so it opens without network access.
Plots are chosen from what varies: cycles and utilisation against block size for each fma
latency, cycles against node count (time against resources), the cycle breakdown per point,
simulated against analytic cycles, and a per-link utilisation heat map of one torus plane.
"""

import argparse
import base64
import html
import json
import os
import stat
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import report_matmul  # noqa: E402
from report_plots import (CLASSES, extents, figure_png, node_count, number,  # noqa: E402
                          plot_against_b, plot_analytic, plot_breakdown, plot_front, plot_heatmap, varying)
import report_scaling  # noqa: E402

DIRECTIONS = ["+Q", "-Q", "+R", "-R", "+S", "-S"]


class InputError(Exception):
    """Results that cannot be read, or an output that may not be written: exit code 2."""


def read_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def load(path):
    """Rows (one per point) and the full run reports, from a sweep folder or a report file."""
    if os.path.isdir(path):
        rows, reports = [], []
        with open(os.path.join(path, "results.jsonl"), encoding="utf-8") as f:
            rows = [json.loads(line) for line in f if line.strip()]
        for row in rows:
            reports.append(read_json(os.path.join(path, "points", f"{int(row['point']):05}.json")).get("report"))
        return rows, reports
    report = read_json(path)
    if report.get("task") == "matmul":
        row = report_matmul.row_of_report(report)
        row.update(report.get("machine", {}))
        return [row], [report]
    t = report.get("timing", {})
    row = {"point": 0, "status": "ok" if report.get("passed") else "failed", "N": report["N"], "P": report["P"],
           "transform": report["transform"], "alpha": report["alpha"], "passed": report.get("passed"),
           "total_cycles": t.get("total_cycles"), "utilisation": t.get("utilisation"),
           "analytic_cycles": t.get("analytic", {}).get("cycles"), "seconds": t.get("seconds")}
    row.update(report.get("machine", {}))
    for c in CLASSES:
        row["cycles_" + c] = t.get("node_cycles", {}).get(c)
    return [row], [report]


def load_checked(path):
    """load(), with anything that is not torus-sim output refused in one clear sentence."""
    try:
        rows, reports = load(path)
        for row in rows:
            int(row["point"])
            if row.get("task") != "matmul":  # a matmul run has no N and P of its own
                extents(row["N"]), extents(row["P"])
        return rows, reports
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        what = "folder" if os.path.isdir(path) else "file"
        raise InputError(f"{path}: this {what} is not a torus-sim sweep folder (results.jsonl and points/) "
                         f"or a run's --report_json file ({type(e).__name__}: {e})") from e


def refuse_unless_writable(path, folder=False):
    """An output must be a regular file (or, for `folder`, a directory) or not exist yet; links
    are followed. A device, FIFO or directory in its place is never replaced."""
    target = os.path.realpath(path)
    if not os.path.exists(target) or (os.path.isdir(target) if folder else os.path.isfile(target)):
        return
    mode = os.stat(target).st_mode
    kinds = ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
             (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISREG, "a regular file"))
    kind = next((name for test, name in kinds if test(mode)), "not a regular file")
    allowed = "a folder" if folder else "a new file or an existing regular file (or a link to one)"
    raise InputError(f"--out: '{path}' is {kind}; allowed: {allowed}")


def write_atomically(path, data):
    """Writes through a temporary file renamed into place (a reader never sees half a file),
    replacing the file a link names rather than the link."""
    refuse_unless_writable(path)
    target = os.path.realpath(path)
    fd, temporary = tempfile.mkstemp(dir=os.path.dirname(target), prefix=os.path.basename(target) + ".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, stat.S_IMODE(os.stat(target).st_mode) if os.path.exists(target) else 0o666 & ~umask)
        os.replace(temporary, target)
    except BaseException:
        os.unlink(temporary)
        raise


def table(rows):
    keys = ["point", "status", "refusal", "N", "P", "nodes", "torus", "algorithm", "transform", "precision", "alpha", "direction",
            "fma_latency", "fma_per_cycle",
            "link_words_per_cycle", "link_latency", "roll_policy", "micro_schedule", "total_cycles", "analytic_cycles",
            "seconds", "utilisation", "max_rel_error", "node_memory_required_bytes", "passed"]
    if report_matmul.is_matmul(rows):
        keys = report_matmul.POINT_KEYS
    keys = [k for k in keys if any(k in r for r in rows)]

    def cell(v):
        if isinstance(v, float):
            return f"{v:.4g}"
        return "" if v is None else str(v)

    return keys, [[cell(r.get(k)) for k in keys] for r in rows]


# Columns of a sweep row that are not swept parameters, and the parameters that place a point in a
# strong-scaling table rather than name its group.
NOT_GROUPING = {"point", "status", "exit_code", "N", "P", "nodes", "process_grid", "boundary", "seed", "max_memory",
                "threads", "report_json", "output", "input", "chrome_trace", "vcd_trace"}


def parameter_keys(rows):
    """The swept parameters' columns: those before `passed` in a row (sweep_row puts them there)."""
    keys = []
    for k in rows[0]:
        if k == "passed":
            break
        keys.append(k)
    return keys


def scaling_groups(rows):
    """A strong-scaling study (N and the node count both vary): its rows grouped by every other
    parameter that varies, as (title, rows)."""
    if not varying(rows, "N") or len({node_count(r) for r in rows}) < 2:
        return []
    keys = [k for k in parameter_keys(rows) if k not in NOT_GROUPING and varying(rows, k)]
    groups = {}
    for r in rows:
        groups.setdefault(tuple(str(r.get(k)) for k in keys), []).append(r)
    return [(", ".join(f"{k} {v}" for k, v in zip(keys, values)) or "all points", groups[values]) for values in sorted(groups)]


def scaling_tables(rows):
    """Seconds (rows N, columns nodes; 'does not fit' and failures marked) and speed-up T1/Tp
    (or p0 T_p0 / Tp from the fewest nodes p0 that ran, marked *, where one node did not)."""
    ns = sorted({str(r["N"]) for r in rows}, key=lambda n: extents(n)[0] * extents(n)[1] * extents(n)[2])
    nodes = sorted({node_count(r) for r in rows})
    at = {(str(r["N"]), node_count(r)): r for r in rows}

    def seconds(r):
        return number(r.get("seconds")) if r and r.get("status") == "ok" else None

    time_rows, speed_rows, relative = [], [], False
    for n in ns:
        cells = []
        for p in nodes:
            r = at.get((n, p))
            if r is None:
                cells.append("")
            elif r.get("status") == "ok":
                cells.append(f"{number(r.get('seconds')):.4g}" if number(r.get("seconds")) is not None else "")
            elif r.get("status") == "does not fit":
                cells.append("does not fit")
            else:
                cells.append(f"{r.get('status')} (exit {r.get('exit_code')})")
        time_rows.append([n] + cells)
        ran = [(p, seconds(at.get((n, p)))) for p in nodes if seconds(at.get((n, p)))]
        base = ran[0] if ran else None
        speed = []
        for p in nodes:
            t = seconds(at.get((n, p)))
            if not t or not base:
                speed.append("")
                continue
            value = base[0] * base[1] / t
            mark = "" if base[0] == 1 else "*"
            relative = relative or bool(mark)
            speed.append(f"{value:.3g}{mark}")
        speed_rows.append([n] + speed)
    header = ["N \\ nodes"] + [str(p) for p in nodes]
    return header, time_rows, speed_rows, relative


def plot_scaling(rows, title):
    header, _, _, _ = scaling_tables(rows)
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    by_n = {}
    for r in rows:
        if r.get("status") == "ok" and number(r.get("seconds")):
            by_n.setdefault(str(r["N"]), []).append((node_count(r), number(r["seconds"])))
    for n in sorted(by_n, key=lambda v: extents(v)[0]):
        pts = sorted(by_n[n])
        left.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=f"N = {n}")
        right.plot([p[0] for p in pts], [pts[0][0] * pts[0][1] / p[1] for p in pts], marker="o", label=f"N = {n}")
    most = max((node_count(r) for r in rows), default=1)
    right.plot([1, most], [1, most], color="grey", linewidth=1, label="ideal")
    for ax, label in ((left, "simulated seconds"), (right, "speed-up (from the fewest nodes that ran)")):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("nodes")
        ax.set_ylabel(label)
        ax.grid(True, which="both", alpha=0.3)
    if by_n:
        left.legend(fontsize=7)
    fig.suptitle(title)
    return figure_png(fig)


def markdown_table(header, body):
    return ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)] + ["| " + " | ".join(r) + " |" for r in body]


def html_table(header, body):
    out = "<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in header) + "</tr>"
    out += "".join("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in body)
    return out + "</table>"


PLOT_NAMES = ["cycles-vs-b", "utilisation-vs-b", "front", "breakdown", "analytic", "links", "matmul-shape", "matmul-words",
              "matmul-ring-gain"]


def render(args):
    rows, reports = load_checked(args.results)
    if not rows:
        raise InputError(f"{args.results}: no finished points to report")
    out = args.out or (args.results if os.path.isdir(args.results) else os.path.splitext(args.results)[0] + "-report")
    refuse_unless_writable(out, folder=True)
    refuse_unless_writable(os.path.join(out, "plots"), folder=True)
    groups = scaling_groups(rows)
    transform_md, transform_body, transform_plots = report_scaling.sections(
        rows, node_count, parameter_keys, varying, markdown_table, html_table, figure_png)
    names = PLOT_NAMES + [f"scaling-{i}" for i in range(len(groups))] + [name for name, _, _ in transform_plots]
    for name in ["report.md", "report.html"] + [os.path.join("plots", n + ".png") for n in names]:
        refuse_unless_writable(os.path.join(out, name))
    os.makedirs(os.path.join(out, "plots"), exist_ok=True)

    plots = []
    ok = [r for r in rows if r.get("status") == "ok" and number(r.get("total_cycles"))]
    if ok and varying(ok, "P") and not varying(ok, "N"):
        plots.append(("cycles-vs-b", "Cycles against block size", plot_against_b(ok, "total_cycles", "cycles", "Cycles against b")))
        plots.append(("utilisation-vs-b", "fma-unit utilisation against block size and latency",
                      plot_against_b(ok, "utilisation", "utilisation", "Utilisation against b and L")))
        plots.append(("front", "Cycles against node count at fixed N", plot_front(ok)))
    if ok:
        breakdown = plot_breakdown(ok)
        if breakdown:
            plots.append(("breakdown", "Node-cycle breakdown per point", breakdown))
        analytic = plot_analytic(ok)
        if analytic:
            plots.append(("analytic", "Simulated against analytic cycles", analytic))
    heat = next((plot_heatmap(rep) for rep in reports
                 if rep and "P" in rep and rep.get("timing", {}).get("link_active_cycles")), None)
    if heat:
        plots.append(("links", "Link utilisation on one torus plane (first point)", heat))

    keys, cells = table(rows)
    title = f"torus-sim report: {os.path.basename(os.path.abspath(args.results))}"
    unfit = sum(1 for r in rows if r.get("status") == "does not fit")
    refused = sum(1 for r in rows if r.get("status") == "refused")
    failed = sum(1 for r in rows if r.get("status") not in ("ok", "does not fit", "refused"))
    summary = f"{len(rows)} point(s), {failed} failed" + (f", {refused} refused by their algorithm" if refused else "") + \
        (f", {unfit} do not fit in the nodes' memory (not simulated)." if unfit else ".")
    md = [f"# {title}", "", summary]
    body = [f"<h1>{html.escape(title)}</h1>", f"<p>{html.escape(summary)}</p>"]
    for index, (group, members) in enumerate(groups):
        header, times, speeds, relative = scaling_tables(members)
        note = ("* one node did not run (it does not fit, or failed): p0 T_p0 / T_p from the fewest nodes p0 that ran"
                if relative else "")
        md += ["", f"## Strong scaling: {group}", "", "Simulated seconds:", ""] + markdown_table(header, times)
        md += ["", "Speed-up T1 / Tp:", ""] + markdown_table(header, speeds) + ([ "", note] if note else [])
        body.append(f"<h2>Strong scaling: {html.escape(group)}</h2><p>Simulated seconds</p>" + html_table(header, times) +
                    "<p>Speed-up T1 / Tp</p>" + html_table(header, speeds) + (f"<p>{html.escape(note)}</p>" if note else ""))
        plots.append((f"scaling-{index}", f"Strong scaling: {group}", plot_scaling(members, group)))
    matmul_md, matmul_body, matmul_plots = report_matmul.sections(rows, parameter_keys, varying, markdown_table, html_table,
                                                                  figure_png)
    md += matmul_md + transform_md
    body += matmul_body + transform_body
    plots += matmul_plots + transform_plots
    md += ["", "## Points", "", "| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    md += ["| " + " | ".join(c) + " |" for c in cells]
    for name, caption, png in plots:
        write_atomically(os.path.join(out, "plots", name + ".png"), png)
        md += ["", f"## {caption}", "", f"![{caption}](plots/{name}.png)"]
        data = base64.b64encode(png).decode("ascii")
        body.append(f"<h2>{html.escape(caption)}</h2><img alt=\"{html.escape(caption)}\" src=\"data:image/png;base64,{data}\">")
    body.append("<h2>Points</h2><table><tr>" + "".join(f"<th>{html.escape(k)}</th>" for k in keys) + "</tr>")
    body += ["<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in row) + "</tr>" for row in cells]
    body.append("</table>")
    style = ("body{font-family:sans-serif;margin:2em;max-width:1200px}table{border-collapse:collapse;font-size:12px}"
             "td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}img{max-width:100%}")
    page = f"<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>{html.escape(title)}</title><style>{style}</style></head>" \
           f"<body>{''.join(body)}</body></html>\n"
    for name, text in (("report.md", "\n".join(md) + "\n"), ("report.html", page)):
        write_atomically(os.path.join(out, name), text.encode("utf-8"))
    print(f"{os.path.join(out, 'report.html')} and report.md with {len(plots)} plots")


def main():
    """Exit codes as torus-sim's: 2 for results it cannot read or an output it may not replace,
    4 when writing fails."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results")
    parser.add_argument("--out", help="folder for report.md, report.html and plots/ (default: next to the results)")
    args = parser.parse_args()
    try:
        render(args)
    except InputError as e:
        print(f"report: {e}", file=sys.stderr)
        sys.exit(2)
    except OSError as e:
        print(f"report: cannot write the report: {e}", file=sys.stderr)
        sys.exit(4)


if __name__ == "__main__":
    main()
