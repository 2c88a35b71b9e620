"""Terminal rendering of a RunResult (rich): overall figures, slices with n, failures."""

from __future__ import annotations

from typing import TYPE_CHECKING

from codegold.model import Aggregates, RunResult
from codegold.model.metrics import LINE_METRICS, METRICS
from codegold.model.results import UnsetType
from codegold.plumbing.text import rich_safe, rich_text

if TYPE_CHECKING:
    from rich.console import Console


def fmt_rate(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


# Rates fill the table; figures a run may not record (latency, cost) get one line below it,
# so the table stays readable in a terminal.
_TABLE = [m for m in METRICS if m.recorded is None]
_RECORDED = [m for m in METRICS if m.recorded is not None]


def _metrics_row(m: Aggregates) -> list[str]:
    return [str(m.cases), str(m.scored), str(m.pass_), str(m.fail), str(m.invalid), str(m.missing),
            *(fmt_rate(metric.read(m)) for metric in _TABLE)]


_HEAD = ["n", "scored", "pass", "fail", "invalid", "missing", *(m.short for m in _TABLE)]


def render_summary(console: Console, result: RunResult, *, max_failures: int = 30) -> None:
    from rich.table import Table

    table = Table(title="codegold eval — overall (rates over scored cases, at each case's cutoff)",
                  title_justify="left")
    # Slice keys are what people grep for and paste into policies: never cut them short.
    table.add_column("slice", no_wrap=True)
    for head in _HEAD:
        table.add_column(head, justify="right")
    table.add_row("all", *_metrics_row(result.summary), style="bold")
    for s in result.slices:
        table.add_row(rich_text(s.key), *_metrics_row(s.metrics))
    console.print(table)
    recorded = [(metric, metric.read(result.summary)) for metric in _RECORDED]
    shown = [f"{metric.label} {metric.format(value)}" for metric, value in recorded
             if value is not None]
    if shown:
        console.print("all cases: " + ", ".join(shown), highlight=False)
    lines = result.summary
    if not isinstance(lines.line_cases, UnsetType):
        figures = ", ".join(f"{m.label} {m.format(m.read(lines))}" for m in LINE_METRICS)
        trend = "" if isinstance(lines.budget_trend, UnsetType) else ", ".join(
            f"{k.partition('@')[2]} {fmt_rate(v)}" for k, v in lines.budget_trend.items())
        console.print(f"line-level ({lines.line_cases} cases with gold lines): {figures}"
                      + (f"; line recall at budget {trend}" if trend else ""), highlight=False)

    failing = [c for c in result.cases if c.status != "pass"]
    if failing:
        fails = Table(title=f"cases not passing ({len(failing)})", title_justify="left")
        for head in ("case", "status", "k", "first rel. rank", "any depth", "missing groups",
                     "forbidden in top-k", "reason"):
            fails.add_column(head)
        for c in failing[:max_failures]:
            # Ids, groups and reasons come from user files: escaped so "[/]" is text, not markup.
            fails.add_row(
                rich_text(c.case_id), c.status, str(c.cutoff),
                "—" if c.first_relevant_rank is None else str(c.first_relevant_rank),
                "—" if c.first_relevant_rank_any_depth is None else str(c.first_relevant_rank_any_depth),
                rich_text(", ".join(c.missing_groups) or "—"),
                rich_text(", ".join(c.forbidden_hits()) or "—"),
                rich_text(c.invalid_reason or (f"{len(c.revision_mismatches)} revision mismatch(es)"
                                               if c.revision_mismatches else "")),
                style={"fail": "red", "invalid": "yellow", "missing": "magenta"}.get(c.status, ""),
            )
        console.print(fails)
        if len(failing) > max_failures:
            console.print(f"… and {len(failing) - max_failures} more (see results.json)")
    for warning in result.warnings:
        console.print(f"[yellow]warning:[/] {rich_safe(warning)}", highlight=False)
