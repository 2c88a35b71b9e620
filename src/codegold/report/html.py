"""One self-contained HTML page: overview rendered here, case rows rendered in the browser.

Nothing is fetched: styles, script and charts are inline. Text from cases, repositories or
engines is escaped with :func:`html.escape` here and reaches the page through
``textContent`` in the script, so a query holding ``<script>`` shows as text.
"""

from __future__ import annotations

from importlib import resources
from urllib.parse import quote

from codegold.model import Check
from codegold.model.metrics import METRICS, shown_metrics
from codegold.plumbing import numbers
from codegold.plumbing.text import html_text as escape
from codegold.report.model import ReportInput, cause_breakdown, owner_breakdown, rank_histogram
from codegold.report.payload import build_payload, embed_json
from codegold.report.svg import horizontal_bars, vertical_bars
from codegold.report.text import num, rank_text

_MAX_SLICE_BARS = 40


def _asset(name: str) -> str:
    return (resources.files("codegold.report") / "assets" / name).read_text(encoding="utf-8")


def _table(head: list[str], rows: list[list[str]], numeric: set[int] | None = None) -> str:
    """Cells arrive already escaped (they may hold badges); headers are escaped here."""
    numeric = numeric or set()
    out = ["<table><tr>"]
    out += [f'<th{" class=num" if i in numeric else ""}>{escape(h)}</th>' for i, h in enumerate(head)]
    out.append("</tr>")
    for row in rows:
        out.append("<tr>" + "".join(f'<td{" class=num" if i in numeric else ""}>{c}</td>'
                                    for i, c in enumerate(row)) + "</tr>")
    out.append("</table>")
    return "".join(out)


def _header(report: ReportInput) -> str:
    """What was measured, first: repository, revision, index build, retriever, version."""
    return '<dl class="facts" id="facts">' + "".join(
        f'<div data-fact="{escape(k)}"><dt>{escape(k)}</dt><dd class="mono">{escape(v)}</dd></div>'
        for k, v in report.header_or_default().facts()) + "</dl>"


def _cards(report: ReportInput) -> str:
    s = report.results.summary
    items = [("cases", str(s.cases)), ("pass", str(s.pass_)), ("fail", str(s.fail)),
             ("invalid", str(s.invalid)), ("missing", str(s.missing))]
    bad = {"fail", "invalid", "missing"}
    cards = [f'<div class="card{" bad" if k in bad and v != "0" else ""}"><b>{escape(v)}</b>'
             f'<span class="{"" if k in bad and v != "0" else "muted"}">{escape(k)}</span></div>'
             for k, v in items]
    cards += [f'<div class="card"><b>{escape(m.format(m.read(s)))}</b>'
              f'<span class="muted">{escape(m.label)}</span></div>' for m in shown_metrics(s)]
    return '<div class="cards">' + "".join(cards) + "</div>"


_MAX_FAILING_ROWS = 50


def _failing(report: ReportInput) -> str:
    """The cases to act on, before any figure: id, cause, owner, rank, what is missing."""
    bad = [c for c in report.results.cases if c.status != "pass"]
    if not bad:
        return ""
    rows = []
    for case in bad[:_MAX_FAILING_ROWS]:
        diagnosis = report.diagnoses.get(case.case_id)
        rows.append([
            f'<a class="mono" href="#q={quote(case.case_id, safe="")}">{escape(case.case_id)}</a>',
            f'<span class="badge s-{escape(case.status)}">{escape(case.status)}</span>',
            escape(report.cause_of(case) or "-"), escape(diagnosis.owner if diagnosis else "-"),
            escape(rank_text(case)),
            escape(", ".join(case.missing_groups) or "-"),
            f'<span class="mono">{escape(", ".join(case.forbidden_hits()) or "-")}</span>'])
    more = (f'<p class="muted">{len(bad) - _MAX_FAILING_ROWS} more below in the case table.</p>'
            if len(bad) > _MAX_FAILING_ROWS else "")
    return (f'<div class="failing" id="failing"><h2>Failing cases ({len(bad)})</h2>'
            + _table(["case", "status", "cause", "owner", "first relevant rank", "missing groups",
                      "forbidden chunk"], rows) + more + "</div>")


def _verdict(report: ReportInput) -> str:
    """One line that decides: the gate's verdict, or the counts when no gate was run."""
    if report.gate is not None:
        return ""  # the gate section says it
    s = report.results.summary
    bad = s.fail + s.invalid + s.missing
    text = (f"{bad} of {s.cases} cases not passing" if bad else f"all {s.cases} cases pass")
    return f'<div class="verdict {"bad" if bad else "ok"}">{escape(text)} (no gate policy given)</div>'


def _trend(report: ReportInput) -> str:
    trend = report.results.summary.trend
    if not trend:
        return ""
    names: dict[str, dict[int, float | None]] = {}
    for key, value in trend.items():
        name, _, depth = key.partition("@")
        at = numbers.number(depth)
        if at is not None:
            names.setdefault(name, {})[at] = value
    depths = sorted({d for per in names.values() for d in per})
    labels = {m.name: m.label for m in METRICS}
    rows = [[escape(labels.get(n, n)), *(num(per.get(d)) for d in depths)]
            for n, per in sorted(names.items())]
    html = ('<h2 id="trend">Trend figures (at fixed depths)</h2><p class="muted">For watching '
            "change across runs; the gate and the figures above use each case's own cutoff.</p>"
            + _table(["metric", *(f"@{d}" for d in depths)], rows, set(range(1, len(depths) + 1))))
    budget = report.results.summary.budget_trend
    if isinstance(budget, dict) and budget:
        labels_at = [key.partition("@")[2] for key in budget]
        html += ("<p class=\"muted\">Line recall at each case's budget (or cutoff) times "
                 f"{', '.join(labels_at)}, over {report.results.summary.line_cases} cases with "
                 "gold lines: what less or more context would have bought.</p>"
                 + _table(["metric", *(f"budget ×{x.rstrip('x')}" for x in labels_at)],
                          [["line recall", *(num(v) for v in budget.values())]],
                          set(range(1, len(budget) + 1))))
    return html


def _gate(report: ReportInput) -> str:
    """The verdict and the checks that failed; the passing checks are folded away so the
    failing cases stay in the first screen."""
    gate = report.gate
    if gate is None:
        return ""
    verdict = "Gate failed" if not gate.passed else "Gate passed"
    policy = f" ({escape(report.gate_policy)})" if report.gate_policy else ""

    def rows(checks: list[Check]) -> list[list[str]]:
        return [[("pass" if c.passed else "<b>FAIL</b>"), escape(c.rule), escape(c.figure),
                 escape(c.threshold),
                 escape(", ".join(c.cases[:10]) + (" …" if len(c.cases) > 10 else ""))]
                for c in checks]

    head = ["", "rule", "figure", "threshold", "cases"]
    failed = [c for c in gate.checks if not c.passed]
    passed = [c for c in gate.checks if c.passed]
    html = f'<div class="verdict {"ok" if gate.passed else "bad"}">{verdict}{policy}</div>'
    if failed:
        html += _table(head, rows(failed))
    if passed:
        html += (f"<details><summary>{len(passed)} of {len(gate.checks)} checks passed</summary>"
                 + _table(head, rows(passed)) + "</details>")
    return html


def _causes(report: ReportInput) -> str:
    causes = cause_breakdown(report)
    if not causes:
        return "<h2>Failure causes</h2><p>Every scored case passed.</p>"
    rows = [[f'<a href="#status=notpass&amp;cause={quote(r.cause, safe="")}">{escape(r.cause)}</a>',
             str(r.cases), escape(", ".join(r.owners) or "-")] for r in causes]
    html = "<h2>Failure causes</h2>" + _table(["cause", "cases", "owner"], rows, {1})
    owners = owner_breakdown(report)
    if owners:
        html += _table(["owner", "cases"], [[escape(o), str(n)] for o, n in owners], {1})
    if not report.diagnoses:
        html += '<p class="muted">No diagnosis was given; run <code>codegold diagnose</code> and pass --diagnosis.</p>'
    return html


def _slices(report: ReportInput) -> str:
    run = report.results
    if not run.slices:
        return ""
    metrics = shown_metrics(run.summary)
    rows = [[f'<a href="#slice={quote(s.key, safe="")}">{escape(s.key)}</a>', str(s.metrics.scored),
             str(s.metrics.invalid), *(escape(m.format(m.read(s.metrics))) for m in metrics)]
            for s in run.slices]
    head = ["slice", "n scored", "invalid", *(m.label for m in metrics)]
    return "<h2>Slices</h2>" + _table(head, rows, set(range(1, len(head))))


def _charts(report: ReportInput) -> str:
    run = report.results
    bars = [(f"{s.key} (n={s.metrics.scored})", s.metrics.hit_rate or 0.0,
             f"{num(s.metrics.hit_rate, 2)}") for s in run.slices if s.metrics.hit_rate is not None]
    bars = bars[:_MAX_SLICE_BARS]
    overall = run.summary.hit_rate
    if overall is not None:
        bars.insert(0, (f"all (n={run.summary.scored})", overall, num(overall, 2)))
    hist = [(b.label, b.cases) for b in rank_histogram(run)]
    return ('<h2>Figures</h2><div class="grid2"><div><h3>Hit rate by slice</h3>'
            + horizontal_bars(bars, title="Hit rate by slice")
            + "</div><div><h3>First relevant rank (scored cases)</h3>"
            + vertical_bars(hist, title="First relevant rank distribution") + "</div></div>")


def _comparison(report: ReportInput) -> str:
    c = report.comparison
    if c is None:
        return ""
    kinds = ("newly_failing", "newly_passing", "rank_up", "rank_down", "became_invalid")
    counts = {k: sum(ch.kind == k for ch in c.changes) for k in kinds}
    summary = ", ".join(f"{counts[k]} {k.replace('_', ' ')}" for k in kinds)
    level = round(c.confidence * 100)
    rows = []
    for d in c.overall.metrics:
        ci = "n/a" if d.ci_low is None else f"[{d.ci_low:+.3f}, {(d.ci_high or 0):+.3f}]"
        mark = " <b>significant</b>" if d.significant else ""
        rows.append([escape(d.label), num(d.base), num(d.new), f"{d.diff:+.3f}{mark}", ci,
                     num(d.p_value), num(d.p_adjusted)])
    moved = [[escape(s.key), str(s.paired), escape(d.label), f"{d.diff:+.3f}", num(d.p_adjusted)]
             for s in c.slices for d in s.metrics if d.significant]
    failing = [escape(ch.case_id) for ch in c.changes if ch.kind == "newly_failing"][:50]
    html = (f"<h2>Compared with {escape(c.base)}</h2><p>{escape(summary)}; {c.paired} paired cases.</p>"
            + _table(["metric", "base", "new", "difference", f"{level}% CI", "p", "p (Holm)"],
                     rows, {1, 2, 4, 5, 6}))
    if moved:
        html += "<h3>Slices that moved significantly</h3>" + _table(
            ["slice", "n", "metric", "difference", "p (Holm)"], moved, {1, 3, 4})
    if failing:
        html += "<p><b>Newly failing:</b> <span class=mono>" + ", ".join(failing) + "</span></p>"
    if c.warnings:
        html += "<ul class=muted>" + "".join(f"<li>{escape(w)}</li>" for w in c.warnings) + "</ul>"
    return html


_CASES = """<h2 id="cases">Cases</h2>
<div class="filters">
 <label>status <select id="f-status"><option value="">any</option><option value="notpass">not passing</option></select></label>
 <label>cause <select id="f-cause"><option value="">any</option></select></label>
 <label>slice <select id="f-slice"><option value="">any</option></select></label>
 <input id="f-q" type="search" placeholder="search case id or query" aria-label="search">
 <span id="f-count" class="muted"></span>
 <span class="pager"><button id="f-prev" type="button">previous</button><span id="f-page"></span><button id="f-next" type="button">next</button></span>
</div>
<table id="cases-table"><thead><tr><th>case</th><th>status</th><th class="num">first relevant rank</th><th>cause</th><th>owner</th><th>query</th></tr></thead>
<tbody id="case-body"></tbody></table>
<noscript><p>The case table needs JavaScript; the overview above does not.</p></noscript>"""


def render_html(report: ReportInput) -> str:
    run = report.results
    warnings = "".join(f"<li>{escape(w)}</li>" for w in run.warnings)
    inputs = ", ".join(f"{escape(k)}: <span class=mono>{escape(v.path)}</span>"
                       for k, v in sorted(run.inputs.items()))
    return "".join([
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">",
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        # Nothing may load from elsewhere; the CSP makes that a promise the browser keeps.
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">",
        f"<title>{escape(report.title)}: {escape(report.results_name)}</title>",
        f"<style>{_asset('report.css')}</style></head><body>",
        f"<h1>{escape(report.title)}</h1>",
        _header(report),
        _gate(report), _verdict(report), _failing(report),
        _cards(report),
        f"<ul class=muted>{warnings}</ul>" if warnings else "",
        _comparison(report), _causes(report), _trend(report), _charts(report), _slices(report),
        f'<p class="muted">{escape(report.results_name)} · {inputs}</p>',
        _CASES,
        f'<script id="cg-data" type="application/json">{embed_json(build_payload(report))}</script>',
        f"<script>{_asset('report.js')}</script>",
        "</body></html>\n",
    ])
