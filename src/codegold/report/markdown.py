"""summary.md: a pull-request comment a team decides on in a minute.

Order for action: the verdict, what was measured, new failures versus the baseline,
failing cases grouped by owner, slices weakest first (by pass rate, then failing count);
the figures and the rest are folded into ``<details>`` so the comment stays short.
"""

from __future__ import annotations

from codegold.model import CaseResult, SliceResult, passed_over_text
from codegold.model.metrics import shown_metrics
from codegold.model.results import UnsetType
from codegold.report.model import ReportInput, cause_breakdown
from codegold.report.payload import budget_text, is_agent_case, timeline
from codegold.report.text import md, num, rank_text

_MAX_CASES = 20
_SHOWN_SLICES = 5
_MAX_SLICES = 40
UNASSIGNED = "unassigned"


def _verdict(report: ReportInput) -> list[str]:
    s = report.results.summary
    bad = s.fail + s.invalid + s.missing
    counts = f"{s.pass_} of {s.cases} cases pass, {bad} not passing"
    if report.gate is None:
        return [f"**{'FAILING' if bad else 'PASSING'}**: {counts} (no gate policy given)"]
    failed = [c for c in report.gate.checks if not c.passed]
    lines = [f"**Gate: {'PASSED' if report.gate.passed else 'FAILED'}**"
             + (f" ({len(failed)} of {len(report.gate.checks)} checks failed)" if failed else "")
             + f": {counts}"]
    lines += [f"- {md(c.rule)}: {md(c.figure)} (needs {md(c.threshold)})" for c in failed]
    return lines


def _facts(report: ReportInput) -> list[str]:
    facts = report.header_or_default().facts()
    return ["| " + " | ".join(md(k) for k, _ in facts) + " |",
            "|" + "---|" * len(facts),
            "| " + " | ".join(md(v) for _, v in facts) + " |"]


def _owner(report: ReportInput, case: CaseResult) -> str:
    diagnosis = report.diagnoses.get(case.case_id)
    return diagnosis.owner if diagnosis and diagnosis.owner else UNASSIGNED


def _case_rows(report: ReportInput, cases: list[CaseResult]) -> list[str]:
    lines = ["| case | status | cause | first relevant rank | missing groups | forbidden chunk |",
             "|---|---|---|---|---|---|"]
    lines += [f"| {md(c.case_id)} | {c.status} | {md(report.cause_of(c) or '-')} | {rank_text(c)} | "
              f"{md(', '.join(c.missing_groups)) or '-'} | {md(', '.join(c.forbidden_hits())) or '-'} |"
              for c in cases]
    return lines


_MAX_TIMELINES = 10
_MAX_ENTRIES = 12


def _timeline(report: ReportInput, case: CaseResult) -> list[str]:
    """One compact line per agent case: each step's searches and reads, the budget line
    (‖), where each group was satisfied (✓) and forbidden reads (✗)."""
    parts: list[str] = []
    rows = timeline(report, case)
    drawn = False
    for row in rows[:_MAX_ENTRIES]:
        if row.past_budget and not drawn:
            parts.append("‖ budget ‖")
            drawn = True
        what = {"search_hit": "search", "read": "read"}.get(row.kind, "context")
        text = f"s{row.step if row.step is not None else '?'} {what} {row.file}"
        text += f":{row.lines}" if row.lines else ""
        text += f" ({row.symbol})" if row.symbol else ""
        if row.forbidden:
            text += " ✗ forbidden"
        text += "".join(f" ✓ {g}" for g in row.satisfied)
        parts.append(text)
    if len(rows) > _MAX_ENTRIES:
        parts.append(f"… {len(rows) - _MAX_ENTRIES} more")
    head = f"- **{md(case.case_id)}** ({md(budget_text(case))}"
    figures = case.line_figures
    if figures is not None:
        head += f", line recall {figures.recall:.3f}"
    passed = passed_over_text(case.passed_over_steps)
    tail = f"; passed over: {md(passed)}" if passed else ""
    return [head + "): " + (" · ".join(md(p) for p in parts) or "no context") + tail]


def _details(summary: str, body: list[str]) -> list[str]:
    return ["<details>", f"<summary>{summary}</summary>", "", *body, "", "</details>", ""]


def _slice_key(sl: SliceResult) -> tuple[float, int, str]:
    m = sl.metrics
    return (m.pass_rate if m.pass_rate is not None else 2.0, -(m.fail + m.missing), sl.key)


def _slice_rows(slices: list[SliceResult]) -> list[str]:
    lines = ["| slice | n | pass rate | failing | invalid |", "|---|---:|---:|---:|---:|"]
    lines += [f"| {md(sl.key)} | {sl.metrics.scored} | {num(sl.metrics.pass_rate)} | "
              f"{sl.metrics.fail + sl.metrics.missing} | {sl.metrics.invalid} |" for sl in slices]
    return lines


def render_markdown(report: ReportInput) -> str:
    run, s = report.results, report.results.summary
    lines = [f"# {md(report.title)}: {md(report.results_name)}", "", *_verdict(report), "",
             *_facts(report), ""]
    bad = [c for c in run.cases if c.status != "pass"]
    new_ids: list[str] = []
    if report.comparison is not None:
        new_ids = [ch.case_id for ch in report.comparison.changes if ch.kind == "newly_failing"]
        by_id = run.by_id()
        newly = [by_id[i] for i in new_ids if i in by_id]
        lines += [f"## New failures versus {md(report.comparison.base)} ({len(newly)})", ""]
        if newly:
            lines += [*_case_rows(report, newly[:_MAX_CASES]), ""]
            if len(newly) > _MAX_CASES:
                lines += _details(f"{len(newly) - _MAX_CASES} more new failures",
                                  _case_rows(report, newly[_MAX_CASES:]))
        else:
            lines += ["None.", ""]
    if bad:
        lines += [f"## Failing cases by owner ({len(bad)})", ""]
        groups: dict[str, list[CaseResult]] = {}
        for case in bad:
            groups.setdefault(_owner(report, case), []).append(case)
        order = sorted(groups, key=lambda o: (o == UNASSIGNED, -len(groups[o]), o))
        shown = 0
        for owner in order:
            cases = groups[owner]
            lines += [f"### {md(owner)} ({len(cases)})", ""]
            visible = cases[:max(_MAX_CASES - shown, 0)]
            shown += len(visible)
            if visible:
                lines += [*_case_rows(report, visible), ""]
            if len(cases) > len(visible):
                lines += _details(f"{len(cases) - len(visible)} more for {md(owner)}",
                                  _case_rows(report, cases[len(visible):]))
    # A trajectory whose every call was passed over has no context, and still belongs here.
    agents = [c for c in bad if is_agent_case(c) or c.passed_over_steps]
    if agents:
        lines += [f"## Agent timelines ({len(agents)})", "",
                  "Steps in order; ‖ marks the budget, ✓ where a required group was first "
                  "satisfied, ✗ a forbidden read.", ""]
        for case in agents[:_MAX_TIMELINES]:
            lines += _timeline(report, case)
        lines.append("")
    slices = sorted(run.slices, key=_slice_key)[:_MAX_SLICES]
    if slices:
        lines += ["## Slices, weakest first (pass rate, then failing count)", "",
                  *_slice_rows(slices[:_SHOWN_SLICES]), ""]
        if len(slices) > _SHOWN_SLICES:
            lines += _details(f"{len(slices) - _SHOWN_SLICES} more slices",
                              _slice_rows(slices[_SHOWN_SLICES:]))
    figures = [
        "| cases | pass | fail | invalid | missing |", "|---:|---:|---:|---:|---:|",
        f"| {s.cases} | {s.pass_} | {s.fail} | {s.invalid} | {s.missing} |", "",
        f"| figure (over {s.scored} scored cases, at each case's cutoff) | value |", "|---|---:|",
        *(f"| {md(m.label)} | {m.format(m.read(s))} |" for m in shown_metrics(s)),
    ]
    if not isinstance(s.line_cases, UnsetType):
        figures += ["", f"Line-level figures are over the {s.line_cases} cases with gold lines "
                    f"(evidence drop over the {s.final_cases} that record a final patch or "
                    "answer)."]
        if not isinstance(s.budget_trend, UnsetType):
            figures += ["", "| line recall at the budget × | value |", "|---|---:|",
                        *(f"| {md(k.partition('@')[2])} | {num(v)} |"
                          for k, v in s.budget_trend.items())]
    if s.trend:
        figures += ["", "Trend figures at fixed depths (for watching change; the gate uses each "
                    "case's cutoff):", "", "| trend figure | value |", "|---|---:|",
                    *(f"| {md(k)} | {num(v)} |" for k, v in sorted(s.trend.items()))]
    causes = cause_breakdown(report)
    if causes:
        figures += ["", "| cause | cases | owner |", "|---|---:|---|",
                    *(f"| {md(r.cause)} | {r.cases} | {md(', '.join(r.owners)) or '-'} |" for r in causes)]
    if report.comparison is not None:
        c = report.comparison
        counts = {k: sum(ch.kind == k for ch in c.changes)
                  for k in ("newly_failing", "newly_passing", "rank_up", "rank_down")}
        figures += ["", f"Compared with {md(c.base)}: {counts['newly_failing']} newly failing, "
                    f"{counts['newly_passing']} newly passing, {counts['rank_up']} ranked higher, "
                    f"{counts['rank_down']} ranked lower ({c.paired} paired cases).", "",
                    "| metric | base | new | difference | p (Holm) |", "|---|---:|---:|---:|---:|"]
        for d in c.overall.metrics:
            mark = " (significant)" if d.significant else ""
            figures.append(f"| {md(d.label)} | {num(d.base)} | {num(d.new)} | {d.diff:+.3f}{mark} | "
                           f"{num(d.p_adjusted)} |")
    lines += _details("Figures, causes and comparison", figures)
    return "\n".join(lines)
