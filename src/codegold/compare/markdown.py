"""Render a comparison as Markdown short enough for a pull-request comment."""

from __future__ import annotations

from collections.abc import Sequence

from codegold.compare.multi import BaselineTest, MultiComparison
from codegold.compare.records import CaseChange, Comparison, MetricDelta, SliceComparison
from codegold.plumbing.text import md_text as _md
from codegold.report.text import num as _num

_MAX_LISTED = 25


def _signed(value: float) -> str:
    return f"{value:+.3f}"


def _p(value: float | None) -> str:
    if value is None:
        return "not tested"
    return "<0.001" if value < 0.001 else f"{value:.3f}"


def _arrow(delta: MetricDelta) -> str:
    if delta.improved is None:
        return ""
    mark = "better" if delta.improved else "worse"
    return f" ({mark}{', significant' if delta.significant else ''})"


def _metric_row(delta: MetricDelta, prefix: str = "") -> str:
    ci = "n/a" if delta.ci_low is None else f"[{_signed(delta.ci_low)}, {_signed(delta.ci_high or 0.0)}]"
    return (f"| {prefix}{delta.label} | {_num(delta.base)} | {_num(delta.new)} | "
            f"{_signed(delta.diff)}{_arrow(delta)} | {ci} | {_p(delta.p_value)} | {_p(delta.p_adjusted)} |")


def _pass_rate_row(c: Comparison) -> list[str]:
    """Pass rate beside the tested metrics (its change is the newly failing and passing
    cases, so it carries no test of its own), as the several-system tables show it."""
    if c.base_pass_rate is None or c.new_pass_rate is None:
        return []
    diff = c.new_pass_rate - c.base_pass_rate
    return [f"| pass rate | {_num(c.base_pass_rate)} | {_num(c.new_pass_rate)} | "
            f"{_signed(diff)} | see newly failing / passing | not tested | not tested |"]


def _changes_table(title: str, changes: list[CaseChange]) -> list[str]:
    if not changes:
        return []
    lines = [f"<details><summary>{title} ({len(changes)})</summary>", "",
             "| case | base | new | first relevant rank |", "|---|---|---|---|"]
    for change in changes[:_MAX_LISTED]:
        rank = f"{change.base_rank or '-'} -> {change.new_rank or '-'}"
        lines.append(f"| {_md(change.case_id)} | {change.base_status or '-'} | "
                     f"{change.new_status or '-'} | {rank} |")
    if len(changes) > _MAX_LISTED:
        lines.append(f"| ... {len(changes) - _MAX_LISTED} more | | | |")
    lines += ["", "</details>", ""]
    return lines


RunFacts = tuple[str, str, str]  # results file, retriever, embedder (or "none (dense off)")


def _runs_table(runs: Sequence[RunFacts]) -> list[str]:
    """What each compared run ran: its retriever and the embedder behind dense, if any."""
    if not runs:
        return []
    lines = ["| run | retriever | embedder |", "|---|---|---|",
             *(f"| {_md(name)} | {_md(retriever)} | {_md(embedder)} |"
               for name, retriever, embedder in runs), ""]
    if len({embedder for _, _, embedder in runs}) > 1:
        lines += ["The runs differ in dense retrieval (embedder): part of any difference "
                  "below may come from it.", ""]
    return lines


def render_comparison_markdown(comparison: Comparison, *, runs: Sequence[RunFacts] = ()) -> str:
    """Summary line, what each run ran (when ``runs`` is given), overall table,
    significant slice moves, case lists, warnings."""
    c = comparison
    failing, passing = c.changes_of("newly_failing"), c.changes_of("newly_passing")
    up, down = c.changes_of("rank_up"), c.changes_of("rank_down")
    invalid = c.changes_of("became_invalid")
    level = round(c.confidence * 100)
    lines = [
        f"## codegold compare: {_md(c.base)} -> {_md(c.new)}",
        "",
        f"**{len(failing)} newly failing**, {len(passing)} newly passing, "
        f"{len(up)} ranked higher, {len(down)} ranked lower, {len(invalid)} became invalid; "
        f"{c.paired} paired cases.",
        "",
        *_runs_table(runs),
        f"| metric | base | new | difference | {level}% CI | p | p (Holm) |",
        "|---|---:|---:|---|---|---:|---:|",
        *(_metric_row(d) for d in c.overall.metrics),
        *_pass_rate_row(c),
        "",
    ]
    moved: list[tuple[SliceComparison, MetricDelta]] = [
        (s, d) for s in c.slices for d in s.metrics if d.significant
    ]
    if moved:
        lines += [f"Slices with a significant change (Holm-adjusted p < {c.alpha:g}):", "",
                  f"| slice (n) | base | new | difference | {level}% CI | p | p (Holm) |",
                  "|---|---:|---:|---|---|---:|---:|"]
        lines += [_metric_row(d, prefix=f"{_md(s.key)} ({s.paired}): ") for s, d in moved]
        lines.append("")
    else:
        lines += ["No slice changed significantly after Holm correction.", ""]
    lines += _changes_table("Newly failing", failing)
    lines += _changes_table("Newly passing", passing)
    lines += _changes_table("Became invalid", invalid)
    lines += _changes_table("Rank moves", [*down, *up])
    if c.warnings:
        lines += ["Warnings:", ""] + [f"- {_md(w)}" for w in c.warnings] + [""]
    lines.append(f"<sub>Paired sign-flip randomization test ({c.n_resamples} resamples), "
                 f"percentile bootstrap CI ({c.n_bootstrap} resamples), seed {c.seed}.</sub>")
    return "\n".join(lines) + "\n"


def _multi_test_row(test: BaselineTest) -> str:
    ci = ("n/a" if test.ci_low is None
          else f"[{_signed(test.ci_low)}, {_signed(test.ci_high or 0.0)}]")
    mark = ""
    if test.improved is not None:
        mark = f" ({'better' if test.improved else 'worse'}{', significant' if test.significant else ''})"
    return (f"| {_md(test.system)} | {_md(test.slice)} ({test.paired}) | {test.metric} | "
            f"{_num(test.base)} | {_num(test.new)} | {_signed(test.diff)}{mark} | {ci} | "
            f"{_p(test.p_value)} | {_p(test.p_adjusted)} |")


def render_multi_comparison_markdown(comparison: MultiComparison, *,
                                     runs: Sequence[RunFacts] = ()) -> str:
    """What each system ran (when ``runs`` is given), one table per metric (a row per
    slice, a column per system: as many columns as systems, however many slices), tests
    against the baseline, differing cases."""
    c = comparison
    level = round(c.confidence * 100)
    significant = [t for t in c.tests if t.significant]
    lines = [
        f"## codegold compare: {len(c.systems)} systems, baseline {_md(c.baseline)}",
        "",
        f"{len(c.differences)} case(s) differ in status between systems; "
        f"{len(significant)} significant difference(s) from the baseline "
        f"(Holm over {sum(t.p_value is not None for t in c.tests)} tests).",
        "",
        *_runs_table(runs),
    ]
    for table in c.tables:
        direction = "higher is better" if table.higher_is_better else "lower is better"
        names = [row[0].system if row else "" for row in table.rows]
        heads = [_md(name) + (" (baseline)" if name == c.baseline else "") for name in names]
        lines += [f"### {_md(table.label)} ({direction})", "",
                  "| slice | " + " | ".join(heads) + " |",
                  "|---|" + "---:|" * len(heads)]
        for index, column in enumerate(table.columns):
            cells = " | ".join(f"{_num(row[index].value)} (n={row[index].n})"
                               for row in table.rows)
            lines.append(f"| {_md(column)} | {cells} |")
        lines.append("")
    header = (f"| system | slice (paired) | metric | baseline | system | difference | {level}% CI "
              "| p | p (Holm) |")
    rule = "|---|---|---|---:|---:|---|---|---:|---:|"
    overall = [t for t in c.tests if t.slice == "all"]
    lines += [f"### Against the baseline ({_md(c.baseline)}), overall", "", header, rule,
              *(_multi_test_row(t) for t in overall), ""]
    moved = [t for t in significant if t.slice != "all"]
    if moved:
        lines += [f"Slices with a significant difference (Holm-adjusted p < {c.alpha:g}):", "",
                  header, rule, *(_multi_test_row(t) for t in moved), ""]
    else:
        lines += ["No slice differs significantly from the baseline after Holm correction.", ""]
    if c.differences:
        lines += [f"<details><summary>Cases whose status differs ({len(c.differences)})</summary>",
                  "", "| case | " + " | ".join(_md(s) for s in c.systems) + " |",
                  "|---|" + "---|" * len(c.systems)]
        for diff in c.differences[:_MAX_LISTED]:
            cells = " | ".join(
                "-" if s is None else f"{s} (rank {r or '-'})"
                for s, r in zip(diff.statuses, diff.ranks, strict=True))
            lines.append(f"| {_md(diff.case_id)} | {cells} |")
        if len(c.differences) > _MAX_LISTED:
            lines.append(f"| ... {len(c.differences) - _MAX_LISTED} more |" + " |" * len(c.systems))
        lines += ["", "</details>", ""]
    if c.warnings:
        lines += ["Warnings:", ""] + [f"- {_md(w)}" for w in c.warnings] + [""]
    lines.append(f"<sub>Paired sign-flip randomization test ({c.n_resamples} resamples), "
                 f"percentile bootstrap CI ({c.n_bootstrap} resamples), seed {c.seed}.</sub>")
    return "\n".join(lines) + "\n"
