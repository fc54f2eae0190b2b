"""The one-page HTML report of `doi-extract summary --html`: the summary's tables with charts
drawn by matplotlib as inline SVG, so the page is one file that opens offline, with no
script and no server."""

from __future__ import annotations

import html
import io
import os
from typing import Any

import matplotlib
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from ..match import to_url
from ..pipeline.out.summary import Summary, run_line, size_text

BAR = "#2a6f97"  # the bars' colour (tests/test_summary.py looks for it in a screenshot)

_STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 60em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.15em; margin-top: 2em; }
table { border-collapse: collapse; margin: .5em 0; }
td, th { padding: .15em .7em; border-bottom: 1px solid #ddd; text-align: right; }
td.name, th.name { text-align: left; font-family: ui-monospace, monospace; }
figure { margin: .5em 0; } figure svg { max-width: 100%; height: auto; }
.muted { color: #666; }
"""


def _chart(labels: list[str], values: list[int], xlabel: str, horizontal: bool = True) -> str:
    """A bar chart as an inline SVG element (the first label on top when horizontal)."""
    rows = max(1, len(labels))
    with matplotlib.rc_context({"svg.hashsalt": "doi-extract", "svg.fonttype": "none", "font.size": 9}):
        fig = Figure(figsize=(7.5, 0.5 + 0.28 * rows) if horizontal else (7.5, 2.8))
        ax = fig.add_subplot()
        if horizontal:
            ax.barh(range(len(values)), values, color=BAR)
            ax.set_yticks(range(len(labels)), [_short(x) for x in labels])
            ax.invert_yaxis()
            ax.set_xlabel(xlabel)
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        else:
            ax.bar(range(len(values)), values, color=BAR)
            ax.set_xticks(range(len(labels)), labels)
            ax.set_ylabel(xlabel)
            ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
        fig.tight_layout()
        buf = io.StringIO()
        fig.savefig(buf, format="svg", metadata={"Date": None})
    svg = buf.getvalue()
    return svg[svg.index("<svg") :]


def _short(label: str, width: int = 60) -> str:
    return label if len(label) <= width else label[: width - 1] + "…"


def _cell(column: str, value: Any) -> str:
    """A table cell's HTML: a DOI as a link to its URL form (NISO's encoding: to_url), the rest
    as text."""
    text = html.escape(str(value))
    if column == "doi" and isinstance(value, str):
        return f'<a href="{html.escape(to_url(value))}">{text}</a>'
    return text


def _table(rows: list[dict[str, Any]], columns: list[str]) -> str:
    head = "".join(
        f"<th{' class=name' if i == len(columns) - 1 else ''}>{html.escape(c)}</th>"
        for i, c in enumerate(columns)
    )
    body = "".join(
        "<tr>"
        + "".join(
            f"<td{' class=name' if i == len(columns) - 1 else ''}>{_cell(c, r[c])}</td>"
            for i, c in enumerate(columns)
        )
        + "</tr>"
        for r in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _section(
    ident: str, title: str, rows: list[dict[str, Any]], columns: list[str], axis: str, horizontal: bool = True
) -> list[str]:
    """One section of the page: its chart (the first column's values, labelled by the last
    column) above its table. `title` is markup."""
    chart = _chart([str(r[columns[-1]]) for r in rows], [r[columns[0]] for r in rows], axis, horizontal)
    return [
        f'<section id="{ident}"><h2>{title}</h2>',
        f"<figure>{chart}</figure>",
        _table(rows, columns),
        "</section>",
    ]


def render_html(s: Summary) -> str:
    """The report as one HTML page."""
    run = s.run
    e = html.escape
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>DOIs found in {e(s.out)}</title>",
        f"<style>{_STYLE}</style></head><body>",
        f"<h1>DOIs found in <code>{e(s.out)}</code></h1>",
        f"<p>{run.get('documents', 0):,} documents, {size_text(run)} of input: "
        f"<b>{run.get('hits', 0):,}</b> DOI hits, <b>{run.get('distinct_dois', 0):,}</b> distinct DOIs in "
        f"{run.get('mentions', 0):,} (document, DOI) mentions.</p>",
        f'<p class="muted">{e(run_line(run))}</p>',
    ]
    if s.top_dois:
        parts += _section(
            "top-dois",
            "Most cited DOIs",
            s.top_dois,
            ["documents", "occurrences", "doi"],
            "documents citing it",
        )
    if s.prefixes:
        title = f'Registrant prefixes <span class="muted">({s.prefixes_total:,} in all)</span>'
        parts += _section("prefixes", title, s.prefixes, ["dois", "mentions", "prefix"], "distinct DOIs")
    if s.forms:
        parts += _section(
            "forms", "Display forms", s.forms, ["mentions", "form"], "mentions holding the form"
        )
    if any(b["dois"] for b in s.documents_per_doi):
        parts += _section(
            "documents-per-doi",
            "Documents per DOI",
            s.documents_per_doi,
            ["dois", "documents"],
            "distinct DOIs",
            horizontal=False,
        )
    rejected = run.get("rejected", [])
    parts.append(f'<section id="rejected"><h2>Rejected inputs: {len(rejected) or "none"}</h2>')
    if rejected:
        parts.append(
            _table(
                [{"reason": r.get("reason", ""), "source": r.get("source", "")} for r in rejected],
                ["reason", "source"],
            )
        )
    parts.append("</section></body></html>\n")
    return "\n".join(parts)


def write_report(s: Summary, path: str) -> None:
    """Write the report to `path` (temporary name, then rename: never a half page)."""
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(render_html(s))
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
