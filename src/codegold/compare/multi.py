"""Compare N runs of the same gold cases side by side, each tested against one baseline.

Every system gets one figure per registry metric, overall and per slice (with n, its
scored cases there). Each system other than the baseline is paired with the baseline
exactly as :func:`codegold.compare.compare_runs` pairs two runs; the raw p-values of all
those tests (systems × paired metrics × slices) form one Holm–Bonferroni family, so adding
a system makes every claim more careful, never less.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from codegold.compare.engine import compare_runs
from codegold.compare.metrics import is_scored
from codegold.compare.stats import holm
from codegold.errors import InputError
from codegold.model import CaseResult, RunResult
from codegold.model.metrics import LINE_METRICS, Metric, iter_metrics
from codegold.model.results import UNSET

MULTI_COMPARISON_FORMAT = 1


class SystemFigure(msgspec.Struct, frozen=True, kw_only=True):
    """One system's figure for one metric in one slice; ``value`` is None when n is 0."""

    system: str
    value: float | None
    n: int


class MetricTable(msgspec.Struct, frozen=True, kw_only=True):
    """Rows = systems, columns = "all" then each slice key (``columns``)."""

    metric: str
    label: str
    higher_is_better: bool
    columns: list[str]
    rows: list[list[SystemFigure]]  # rows[i][j]: system i, column j


class BaselineTest(msgspec.Struct, frozen=True, kw_only=True):
    """A paired test of one system against the baseline on one metric in one slice."""

    system: str
    slice: str
    metric: str
    paired: int
    base: float
    new: float
    diff: float
    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    p_adjusted: float | None  # Holm over every test of every system
    significant: bool
    improved: bool | None


class StatusDifference(msgspec.Struct, frozen=True, kw_only=True):
    """A case whose status is not the same in every system (``None``: absent there)."""

    case_id: str
    statuses: list[str | None]  # in system order
    ranks: list[int | None]


class MultiComparison(msgspec.Struct, frozen=True, kw_only=True):
    format: int
    kind: str  # "multi", so readers can tell it from a two-run comparison
    systems: list[str]
    baseline: str
    seed: int
    n_resamples: int
    n_bootstrap: int
    confidence: float
    alpha: float
    min_slice_cases: int
    tables: list[MetricTable]
    tests: list[BaselineTest]
    differences: list[StatusDifference]
    warnings: list[str]


def _figure(system: str, metric_cases: Sequence[CaseResult], metric: Metric) -> SystemFigure:
    scored = [c for c in metric_cases if is_scored(c)]
    if metric in LINE_METRICS and metric.recorded is not None:
        # a line-level figure stands on the cases that have gold lines, not on all of them
        recorded = metric.recorded
        return SystemFigure(system=system, value=metric.aggregate(scored),
                            n=sum(recorded(c) is not None for c in scored))
    return SystemFigure(system=system, value=metric.aggregate(scored), n=len(scored))


def compare_systems(
    runs: Sequence[tuple[str, RunResult]],
    *,
    baseline: str,
    seed: int = 20261,
    n_resamples: int = 9999,
    n_bootstrap: int = 2000,
    confidence: float = 0.95,
    alpha: float = 0.05,
    min_slice_cases: int = 10,
) -> MultiComparison:
    """Side-by-side figures of every run and paired tests of each against ``baseline``.

    ``runs`` are (name, results) in display order; names must be distinct and ``baseline``
    one of them.
    """
    names = [name for name, _ in runs]
    if len(runs) < 2:
        raise InputError(f"compare: found {len(runs)} results file(s); expected at least 2")
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise InputError(f"compare: results file {name!r} is given twice; "
                             "expected each system once", path=name)
        seen.add(name)
    if baseline not in seen:
        raise InputError(f"{{baseline}} found {baseline!r}, which is not one of the results "
                         f"files given; expected one of: {', '.join(names)}", field="baseline",
                         settings=("baseline",))
    by_name = dict(runs)
    base_run = by_name[baseline]

    # Columns: "all" then every slice key any system lists, sorted.
    columns = ["all", *sorted({key for _, run in runs for c in run.cases for key in c.slices})]
    tables = []
    lines = any(r.summary.line_cases is not UNSET for _, r in runs)
    for metric in (*iter_metrics(), *(LINE_METRICS if lines else ())):
        rows = []
        for name, run in runs:
            row = [_figure(name, [c for c in run.cases if column == "all" or column in c.slices],
                           metric) for column in columns]
            rows.append(row)
        tables.append(MetricTable(metric=metric.name, label=metric.label,
                                  higher_is_better=metric.higher_is_better, columns=columns,
                                  rows=rows))

    raw_tests: list[BaselineTest] = []
    warnings: list[str] = []
    for name, run in runs:
        if name == baseline:
            continue
        pair = compare_runs(base_run, run, base_name=baseline, new_name=name, seed=seed,
                            n_resamples=n_resamples, n_bootstrap=n_bootstrap,
                            confidence=confidence, alpha=alpha, min_slice_cases=min_slice_cases)
        warnings += [f"{name}: {w}" for w in pair.warnings]
        for record in (pair.overall, *pair.slices):
            for delta in record.metrics:
                raw_tests.append(BaselineTest(
                    system=name, slice=record.key, metric=delta.metric, paired=record.paired,
                    base=delta.base, new=delta.new, diff=delta.diff, ci_low=delta.ci_low,
                    ci_high=delta.ci_high, p_value=delta.p_value, p_adjusted=None,
                    significant=False, improved=delta.improved))
    adjusted = iter(holm([t.p_value for t in raw_tests if t.p_value is not None]))
    tests = []
    for test in raw_tests:
        if test.p_value is None:
            tests.append(test)
            continue
        p_adj = next(adjusted)
        tests.append(msgspec.structs.replace(
            test, p_adjusted=p_adj, significant=p_adj < alpha and test.diff != 0))

    results = [run.by_id() for _, run in runs]
    ids = sorted({i for r in results for i in r})
    differences = []
    for case_id in ids:
        found = [r.get(case_id) for r in results]
        statuses: list[str | None] = [c.status if c is not None else None for c in found]
        if len(set(statuses)) > 1:
            differences.append(StatusDifference(
                case_id=case_id, statuses=statuses,
                ranks=[c.first_relevant_rank if c is not None else None for c in found]))
    return MultiComparison(
        format=MULTI_COMPARISON_FORMAT, kind="multi", systems=names, baseline=baseline,
        seed=seed, n_resamples=n_resamples, n_bootstrap=n_bootstrap, confidence=confidence,
        alpha=alpha, min_slice_cases=min_slice_cases, tables=tables, tests=tests,
        differences=differences, warnings=warnings)


_ENCODER = msgspec.json.Encoder(order="deterministic")


def dump_multi_comparison(comparison: MultiComparison) -> bytes:
    return msgspec.json.format(_ENCODER.encode(comparison), indent=1) + b"\n"
