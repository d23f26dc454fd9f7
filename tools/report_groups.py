"""Grouping the points of a sweep for the tables of a torus-sim report (tools/report_matmul.py,
tools/report_matmul_ring.py): one group per product m x k x n and value of every other parameter
that varies, but those a table spreads out itself."""

import html
from fractions import Fraction


def sort_key(text):
    """Numbers (also fractions such as 1/8) in numeric order, before any other text."""
    try:
        return (0, Fraction(text), "")
    except (ValueError, ZeroDivisionError):
        return (1, 0, text)


def groups(rows, parameter_keys, varying, not_grouping):
    """(title, rows) per product and value of every other varying parameter not in not_grouping."""
    keys = ["m", "k", "n"] + [k for k in parameter_keys(rows) if k not in not_grouping and k not in ("m", "k", "n")
                              and varying(rows, k)]
    out = {}
    for r in rows:
        out.setdefault(tuple(str(r.get(k)) for k in keys), []).append(r)

    def title(values):
        rest = ", ".join(f"{k} {v}" for k, v in zip(keys[3:], values[3:]))
        return f"{values[0]} x {values[1]} x {values[2]}" + (f" ({rest})" if rest else "")

    return [(title(v), out[v]) for v in sorted(out, key=lambda v: [sort_key(x) for x in v])]


def tables(heading, note, grouped, make_table, markdown_table, html_table):
    """A report section: its heading and note, then a titled table per group, as Markdown lines and
    HTML parts; make_table(members) gives the header and body of one."""
    md = ["", f"## {heading}", "", note, ""]
    body = [f"<h2>{html.escape(heading)}</h2>"]
    for title, members in grouped:
        header, cells = make_table(members)
        md += [f"### {title}", ""] + markdown_table(header, cells) + [""]
        body.append(f"<h3>{html.escape(title)}</h3>" + html_table(header, cells))
    return md, body
