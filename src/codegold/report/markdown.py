"""A short Markdown summary of a run (for a pull request or a chat message)."""

from __future__ import annotations

from codegold.model.metrics import METRICS
from codegold.report.model import ReportInput, cause_breakdown, owner_breakdown
from codegold.report.text import md, num, rank_text

_MAX_CASES = 20
_MAX_SLICES = 10


def render_markdown(report: ReportInput) -> str:
    """Gate verdict, counts, headline figures, causes, owners, weakest slices, failures."""
    run, s = report.results, report.results.summary
    lines = [f"# {md(report.title)}: {md(report.results_name)}", ""]
    if report.gate is not None:
        failed = [c for c in report.gate.checks if not c.passed]
        lines.append(f"**Gate: {'PASSED' if report.gate.passed else 'FAILED'}**"
                     + (f" ({len(failed)} of {len(report.gate.checks)} checks failed)" if failed else ""))
        lines += [f"- {md(c.rule)}: {md(c.figure)} (needs {md(c.threshold)})" for c in failed]
        lines.append("")
    lines += [
        "| cases | pass | fail | invalid | missing |",
        "|---:|---:|---:|---:|---:|",
        f"| {s.cases} | {s.pass_} | {s.fail} | {s.invalid} | {s.missing} |",
        "",
        f"| figure (over {s.scored} scored cases, at each case's cutoff) | value |",
        "|---|---:|",
        *(f"| {md(m.label)} | {m.format(m.read(s))} |" for m in METRICS),
        "",
    ]
    causes = cause_breakdown(report)
    if causes:
        lines += ["## Failures by cause", "", "| cause | cases | owner |", "|---|---:|---|"]
        lines += [f"| {md(r.cause)} | {r.cases} | {md(', '.join(r.owners)) or '-'} |" for r in causes]
        lines.append("")
    owners = owner_breakdown(report)
    if owners:
        lines += ["| owner | cases |", "|---|---:|"]
        lines += [f"| {md(owner)} | {n} |" for owner, n in owners]
        lines.append("")
    if report.comparison is not None:
        c = report.comparison
        counts = {k: sum(ch.kind == k for ch in c.changes)
                  for k in ("newly_failing", "newly_passing", "rank_up", "rank_down")}
        lines += [f"## Compared with {md(c.base)}", "",
                  f"{counts['newly_failing']} newly failing, {counts['newly_passing']} newly passing, "
                  f"{counts['rank_up']} ranked higher, {counts['rank_down']} ranked lower "
                  f"({c.paired} paired cases).", ""]
        lines += ["| metric | base | new | difference | p (Holm) |", "|---|---:|---:|---:|---:|"]
        for d in c.overall.metrics:
            mark = " (significant)" if d.significant else ""
            lines.append(f"| {md(d.label)} | {num(d.base)} | {num(d.new)} | {d.diff:+.3f}{mark} | "
                         f"{num(d.p_adjusted)} |")
        lines.append("")
    weakest = sorted((sl for sl in run.slices if sl.metrics.hit_rate is not None),
                     key=lambda sl: (sl.metrics.hit_rate or 0.0, sl.key))[:_MAX_SLICES]
    if weakest:
        lines += ["## Weakest slices", "", "| slice | n | hit rate | MRR |", "|---|---:|---:|---:|"]
        lines += [f"| {md(sl.key)} | {sl.metrics.scored} | {num(sl.metrics.hit_rate)} | "
                  f"{num(sl.metrics.mrr)} |" for sl in weakest]
        lines.append("")
    bad = [c for c in run.cases if c.status != "pass"]
    if bad:
        lines += ["## Cases not passing", "", "| case | status | cause | first relevant rank | owner |",
                  "|---|---|---|---|---|"]
        for case in bad[:_MAX_CASES]:
            diagnosis = report.diagnoses.get(case.case_id)
            lines.append(f"| {md(case.case_id)} | {case.status} | {md(report.cause_of(case) or '-')} | "
                         f"{rank_text(case)} | {md(diagnosis.owner) if diagnosis else '-'} |")
        if len(bad) > _MAX_CASES:
            lines.append(f"| ... {len(bad) - _MAX_CASES} more | | | | |")
        lines.append("")
    return "\n".join(lines)
