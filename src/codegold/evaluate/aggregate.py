"""Aggregates over case results, overall and per slice, always with their case counts.

Rates are over *scored* cases (pass + fail + missing); invalid cases are counted apart
and never averaged in, because their run cannot speak for the pinned revision.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple

from codegold.model import Aggregates, Case, CaseResult, SliceResult
from codegold.model.budget import BUDGET_FACTORS, factor_label
from codegold.model.languages import language_of
from codegold.model.metrics import (
    LINE_METRICS,
    METRICS,
    TREND_CUTOFFS,
    Metric,
    is_scored,
)


class _CaseFigures(NamedTuple):
    """One scored case's value for each figure, read once: a case counts in the overall
    figures and again in each of its slices, and reading it anew each time (a function
    call per metric, per trend depth, per slice) was most of what aggregating cost."""

    values: tuple[float | None, ...]  # per METRICS entry: per_case, or recorded (None: not)
    trend: tuple[float, ...]          # per _TREND entry


# The trend figures in results.json: (name, metric, depth).
_TREND: tuple[tuple[str, Metric, int], ...] = tuple(
    (str(m.at(depth)), m, depth) for m in METRICS if m.per_ranks_at is not None
    for depth in TREND_CUTOFFS)
# What each METRICS entry reads of a case: its recorded value (None: not recorded), else
# its per-case value.
_READERS: tuple[Callable[[CaseResult], float | None], ...] = tuple(
    m.recorded if m.recorded is not None and m.reduce is not None else m.per_case
    for m in METRICS)
_RanksTrend = dict[tuple[int | None, ...], tuple[float, ...]]


def _trend_of(ranks: tuple[int | None, ...]) -> tuple[float, ...]:
    return tuple(at(ranks, depth) for _, m, depth in _TREND if (at := m.per_ranks_at) is not None)


def _case_figures(result: CaseResult, trends: _RanksTrend | None = None) -> _CaseFigures | None:
    """What the aggregates read of ``result``; None when it is not scored (invalid).
    ``trends`` remembers the trend values by group ranks (they depend on nothing else,
    and most cases share a few rank patterns)."""
    if not is_scored(result):
        return None
    values = tuple([read(result) for read in _READERS])
    ranks = tuple(result.group_ranks)
    if trends is None:
        return _CaseFigures(values, _trend_of(ranks))
    trend = trends.get(ranks)
    if trend is None:
        trend = trends[ranks] = _trend_of(ranks)
    return _CaseFigures(values, trend)


def _figure(metric: Metric, column: Sequence[float | None]) -> float | None:
    """``metric.aggregate`` over the scored cases whose values are ``column``, reduced in
    the same order with the same arithmetic, so the bytes of results.json are the same."""
    if metric.recorded is not None and metric.reduce is not None:
        values = [v for v in column if v is not None]
        return metric.reduce(values) if values else None
    total = 0.0
    for value in column:
        assert value is not None  # per_case always gives a number
        total += value
    return total / len(column) if column else None


def aggregate(results: Sequence[CaseResult]) -> Aggregates:
    return _aggregate(results, [_case_figures(r) for r in results])


def _aggregate(results: Sequence[CaseResult],
               figures_of: Sequence[_CaseFigures | None]) -> Aggregates:
    """The aggregates of ``results``, ``figures_of[i]`` being what ``results[i]`` gives."""
    counts = {"pass": 0, "fail": 0, "invalid": 0, "missing": 0}
    for r in results:
        counts[r.status] += 1
    rows = [f for f in figures_of if f is not None]
    scored = [r for r, f in zip(results, figures_of, strict=True) if f is not None]
    figures: dict[str, Any] = {m.name: None for m in METRICS}
    trend: dict[str, float | None] = {name: None for name, _, _ in _TREND}
    if rows:
        columns = list(zip(*(f.values for f in rows), strict=True))
        figures = {m.name: _figure(m, column) for m, column in zip(METRICS, columns, strict=True)}
        # sum() as Metric.aggregate_at takes it, over the same values in the same order.
        trend = {name: sum(column) / len(rows) for (name, _, _), column
                 in zip(_TREND, zip(*(f.trend for f in rows), strict=True), strict=True)}
    with_lines = [c.line_figures for c in scored if c.line_figures is not None]
    if with_lines:
        # Line-level figures only where some case has gold lines (else left out, so plain
        # runs keep their bytes), each with the number of cases behind it.
        figures.update({m.name: m.aggregate(scored) for m in LINE_METRICS})
        figures["line_cases"] = len(with_lines)
        figures["final_cases"] = sum(f.evidence_drop is not None for f in with_lines)
        figures["budget_trend"] = {
            f"line_recall@{label}": math.fsum(f.recall_at.get(label, 0.0) for f in with_lines)
            / len(with_lines)
            for label in (factor_label(x) for x in BUDGET_FACTORS)}
    return Aggregates(
        cases=len(results), scored=len(scored), pass_=counts["pass"], fail=counts["fail"],
        invalid=counts["invalid"], missing=counts["missing"], **figures,
        trend=trend,
    )


def slice_keys(case: Case) -> list[tuple[str, str]]:
    """(dimension, value) pairs a case belongs to; a case may sit in several of one kind."""
    keys: list[tuple[str, str]] = [("query_class", case.query_class)]
    if case.tags:
        keys.extend((f"tag:{name}", value) for name, value in case.tags.items())
    languages: set[str] = set()
    roles: set[str] = set()
    for group in case.groups:
        if not group.required:
            continue
        for target in group.any_of:
            language = language_of(target.file)
            if language:
                languages.add(language)
            roles.update(target.roles or ("any",))
    keys.extend(("language", lang) for lang in sorted(languages))
    keys.extend(("role", role) for role in sorted(roles))
    return keys


def slice_results(results: Iterable[CaseResult]) -> list[SliceResult]:
    return summarize(list(results))[1]


def summarize(results: Sequence[CaseResult]) -> tuple[Aggregates, list[SliceResult]]:
    """The overall aggregates and those of every slice, each case's figures read once."""
    trends: _RanksTrend = {}
    figures_of = [_case_figures(r, trends) for r in results]
    members: dict[tuple[str, str], list[int]] = defaultdict(list)
    for index, result in enumerate(results):
        for key in result.slices:
            dim, _, value = key.partition("=")
            members[(dim, value)].append(index)
    slices = [
        SliceResult(key=f"{dim}={value}", dimension=dim, value=value,
                    metrics=_aggregate([results[i] for i in rows], [figures_of[i] for i in rows]))
        for (dim, value), rows in sorted(members.items())
    ]
    return _aggregate(results, figures_of), slices
