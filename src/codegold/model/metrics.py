"""The one metric registry: every part that shows, gates or compares a figure iterates it.

A metric is a small frozen value whose text form is its name (``hit_rate``, ``mrr``), or
its name and a cutoff (``hit_rate@5``), as in ir_measures. What a metric *is* lives here:
its name, what it means, which direction is better, how it is aggregated over cases, how
it is rendered and how two runs are compared on it. Adding a metric is one entry in
:data:`METRICS` (plus the matching field in :class:`~codegold.model.results.Aggregates`
and a test).

Every aggregate is taken over *scored* cases (pass + fail + missing); invalid cases are
counted apart and never averaged in (:func:`is_scored`, :func:`scored_cases`).
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

from codegold.errors import InputError
from codegold.model.results import Aggregates, CaseResult, LineFigures, UnsetType

Direction = Literal["higher", "lower"]
# "mean": mean of a per-case value in [0, 1]; "share": share of cases for which a per-case
# predicate holds (a mean of 0/1 values, named apart because it reads as a rate);
# "percentile", "max", "sum": of a recorded per-case figure (latency, cost) over the scored
# cases that recorded it.
Aggregation = Literal["mean", "share", "percentile", "max", "sum"]
Rendering = Literal["rate", "percent", "number", "ms"]
# "sign_flip": paired sign-flip randomization test + bootstrap CI in `codegold compare`;
# None: shown, not tested (see the entry for why).
PairedTest = Literal["sign_flip"]

SCORED_STATUSES = frozenset({"pass", "fail", "missing"})
# Depths of the trend figures in results.json (Aggregates.trend).
TREND_CUTOFFS: tuple[int, ...] = (1, 3, 5, 10, 20)
TREND_DEPTH = max(TREND_CUTOFFS)


def is_scored(case: CaseResult) -> bool:
    """Rates are over pass + fail + missing; an invalid case cannot speak for the revision."""
    return case.status in SCORED_STATUSES


def scored_cases(cases: Iterable[CaseResult]) -> list[CaseResult]:
    """The cases every rate is taken over (pass + fail + missing; invalid left out)."""
    return [c for c in cases if is_scored(c)]


@dataclass(frozen=True)
class Metric:
    """What a metric is. ``str(metric)`` is its name, with ``@k`` when a cutoff is set.

    ``per_case`` is the case's value (0/1 for a share); ``culprit`` says whether a case
    pulls the figure the wrong way (listed by a failing gate check).
    """

    name: str
    label: str  # words for people: "hit rate"
    short: str  # narrow table heading: "hit"
    description: str
    direction: Direction
    aggregation: Aggregation
    render: Rendering
    paired: PairedTest | None
    per_case: Callable[[CaseResult], float] = dataclasses.field(repr=False, compare=False)
    culprit: Callable[[CaseResult], bool] = dataclasses.field(repr=False, compare=False)
    trend: bool = False  # a trend figure: shown and compared, gate it knowingly
    cutoff: int | None = None
    # The case's value at a fixed depth, for the trend figures, from its required groups'
    # ranks alone (CaseResult.group_ranks); None when the metric has no meaning away from
    # the case's cutoff.
    per_ranks_at: Callable[[Sequence[int | None], int], float] | None = dataclasses.field(
        default=None, repr=False, compare=False)
    # Figures a case may not record (latency, cost): the case's value or None, and how the
    # recorded values are combined. Cases without a value are left out; no value, no figure.
    recorded: Callable[[CaseResult], float | None] | None = dataclasses.field(
        default=None, repr=False, compare=False)
    reduce: Callable[[list[float]], float] | None = dataclasses.field(
        default=None, repr=False, compare=False)

    def __str__(self) -> str:
        return self.name if self.cutoff is None else f"{self.name}@{self.cutoff}"

    @property
    def higher_is_better(self) -> bool:
        return self.direction == "higher"

    def at(self, cutoff: int | None) -> Metric:
        return dataclasses.replace(self, cutoff=cutoff)

    def aggregate(self, cases: Sequence[CaseResult]) -> float | None:
        """The figure over the scored ones among ``cases``; None when none is scored."""
        if self.recorded is not None and self.reduce is not None:
            values = [v for v in (self.recorded(c) for c in cases if is_scored(c)) if v is not None]
            return self.reduce(values) if values else None
        total = 0.0
        scored = 0
        for case in cases:
            if is_scored(case):
                scored += 1
                total += self.per_case(case)
        return total / scored if scored else None

    def aggregate_at(self, cases: Sequence[CaseResult], depth: int) -> float | None:
        """The trend figure at ``depth`` over the scored ones among ``cases``."""
        if self.per_ranks_at is None:
            raise ValueError(f"{self.name} has no trend figure")
        at = self.per_ranks_at
        scored = [c for c in cases if is_scored(c)]
        return sum(at(c.group_ranks, depth) for c in scored) / len(scored) if scored else None

    def read(self, aggregates: Aggregates) -> float | None:
        """This metric's figure as results.json stores it (None when left out)."""
        value: float | UnsetType | None = getattr(aggregates, self.name)
        return None if isinstance(value, UnsetType) else value

    def format(self, value: float | None, digits: int = 3) -> str:
        if value is None:
            return "n/a"
        if self.render == "percent":
            return f"{value * 100:.{max(digits - 2, 0)}f}%"
        if self.render == "ms":
            return f"{value:.0f} ms"
        if self.render == "number":
            return f"{value:g}"
        return f"{value:.{digits}f}"


def nearest_rank(values: list[float], percent: float) -> float:
    """The nearest-rank percentile: the smallest value with ``percent``% of values at or below.

    Always one of the values (no interpolation), so equal inputs give equal bytes.
    """
    ordered = sorted(values)
    rank = max(1, math.ceil(percent / 100 * len(ordered)))
    return ordered[rank - 1]


def _mean(values: list[float]) -> float:
    return math.fsum(values) / len(values)


def _latency(case: CaseResult) -> float | None:
    return case.latency_ms


def _tokens(case: CaseResult) -> float | None:
    return None if case.cost_tokens is None else float(case.cost_tokens)


def _usd(case: CaseResult) -> float | None:
    return case.cost_usd


def _latency_metric(name: str, label: str, short: str, description: str,
                    aggregation: Aggregation, reduce: Callable[[list[float]], float]) -> Metric:
    # Not tested in compare: a percentile is not a mean of paired differences. Culprits of
    # a failing gate rule are the cases beyond the rule's bound (see codegold.gate).
    return Metric(name, label, short, description, "lower", aggregation, "ms", None,
                  per_case=lambda c: c.latency_ms or 0.0, culprit=lambda c: False,
                  recorded=_latency, reduce=reduce)


def _flag(value: bool) -> float:
    return 1.0 if value else 0.0


def _hit_at(ranks: Sequence[int | None], depth: int) -> float:
    return _flag(any(r is not None and r <= depth for r in ranks))


def _recall_at(ranks: Sequence[int | None], depth: int) -> float:
    return sum(r is not None and r <= depth for r in ranks) / len(ranks) if ranks else 0.0


METRICS: tuple[Metric, ...] = (
    Metric("hit_rate", "hit rate", "hit",
           "share of scored cases with an acceptable chunk for a required group within the cutoff",
           "higher", "share", "rate", "sign_flip",
           per_case=lambda c: _flag(c.hit), culprit=lambda c: not c.hit, per_ranks_at=_hit_at),
    Metric("pass_rate", "pass rate", "pass rate",
           "share of scored cases that pass: every required group satisfied, nothing forbidden "
           "and no other revision within the cutoff",
           # Not tested in compare: its changes are the newly failing / newly passing lists,
           # and another test in the Holm family would only weaken the others.
           "higher", "share", "rate", None,
           per_case=lambda c: _flag(c.status == "pass"), culprit=lambda c: c.status != "pass"),
    Metric("mrr", "MRR", "MRR", "mean reciprocal rank of the first acceptable chunk (0 when none)",
           "higher", "mean", "rate", "sign_flip",
           per_case=lambda c: c.reciprocal_rank, culprit=lambda c: c.reciprocal_rank < 1.0),
    Metric("mean_group_recall", "mean group recall", "recall",
           "mean share of required evidence groups satisfied within the cutoff",
           "higher", "mean", "rate", "sign_flip",
           per_case=lambda c: c.group_recall, culprit=lambda c: bool(c.missing_groups),
           per_ranks_at=_recall_at),
    Metric("ndcg", "nDCG@k", "nDCG",
           "graded nDCG at the cutoff over evidence groups (required gain 2, supporting 1)",
           "higher", "mean", "rate", "sign_flip",
           per_case=lambda c: c.ndcg, culprit=lambda c: c.ndcg < 1.0, trend=True),
    Metric("forbidden_rate", "forbidden rate", "forb.",
           "share of scored cases with a forbidden chunk within the cutoff",
           "lower", "share", "rate", "sign_flip",
           per_case=lambda c: _flag(bool(c.forbidden_chunk_ids)),
           culprit=lambda c: bool(c.forbidden_chunk_ids)),
    Metric("revision_mismatch_rate", "revision mismatch rate", "rev.",
           "share of scored cases with a chunk from another revision within the cutoff",
           # Not tested in compare: a mismatch is an integrity failure, gated at zero
           # tolerance, not a ranking difference to weigh against noise.
           "lower", "share", "rate", None,
           per_case=lambda c: _flag(bool(c.revision_mismatches)),
           culprit=lambda c: bool(c.revision_mismatches)),
    _latency_metric("latency_p50_ms", "latency p50", "p50 ms",
                    "median retrieval latency in milliseconds (timing_ms total, else wall; "
                    "nearest rank) over scored cases that recorded one",
                    "percentile", lambda v: nearest_rank(v, 50)),
    _latency_metric("latency_p95_ms", "latency p95", "p95 ms",
                    "95th percentile retrieval latency in milliseconds (nearest rank) over "
                    "scored cases that recorded one",
                    "percentile", lambda v: nearest_rank(v, 95)),
    _latency_metric("latency_max_ms", "latency max", "max ms",
                    "slowest retrieval latency in milliseconds over scored cases that recorded one",
                    "max", max),
    Metric("cost_usd_total", "total cost USD", "USD",
           "sum of the attempts' cost.usd over scored cases that recorded one",
           "lower", "sum", "number", None,
           per_case=lambda c: c.cost_usd or 0.0, culprit=lambda c: False,
           recorded=_usd, reduce=math.fsum),
    Metric("cost_tokens_mean", "tokens per case", "tokens",
           "mean of the attempts' cost.tokens over scored cases that recorded one",
           "lower", "mean", "number", None,
           per_case=lambda c: float(c.cost_tokens or 0), culprit=lambda c: False,
           recorded=_tokens, reduce=_mean),
)



def _line_metric(name: str, label: str, short: str, description: str, direction: Direction,
                 value: Callable[[LineFigures], float | None]) -> Metric:
    """A line-level figure: recorded only by cases with gold lines (explicit ``lines`` on a
    target, or a definition span read from the index), averaged over those cases."""

    def recorded(case: CaseResult) -> float | None:
        figures = case.line_figures
        return None if figures is None else value(figures)

    def per_case(case: CaseResult) -> float:
        return recorded(case) or 0.0

    worse = (lambda c: per_case(c) < 1.0) if direction == "higher" else (lambda c: per_case(c) > 0)
    return Metric(name, label, short, description, direction, "mean", "rate", "sign_flip",
                  per_case=per_case, culprit=worse, recorded=recorded, reduce=_mean)


# Line-level figures (docs/concepts.md, "Line-level figures"). Apart from METRICS because
# they exist only for cases with gold lines: results.json, reports and comparisons show
# them only then, so a run of plain cases keeps its bytes and its tests.
LINE_METRICS: tuple[Metric, ...] = (
    _line_metric("line_recall", "line recall", "l.rec",
                 "mean share of gold lines seen within the cutoff or budget", "higher",
                 lambda f: f.recall),
    _line_metric("line_precision", "line precision", "l.prec",
                 "mean share of the distinct lines seen that are gold lines", "higher",
                 lambda f: f.precision),
    _line_metric("line_f1", "line F1", "l.F1", "mean harmonic mean of line precision and recall",
                 "higher", lambda f: f.f1),
    _line_metric("line_efficiency", "line efficiency", "l.eff",
                 "mean gold lines seen per line read (repeats counted)", "higher",
                 lambda f: f.efficiency),
    _line_metric("line_redundancy", "line redundancy", "l.red",
                 "mean share of lines read that repeat a line already seen", "lower",
                 lambda f: f.redundancy),
    _line_metric("evidence_drop", "evidence drop", "drop",
                 "mean share of gold lines seen that the final patch or answer leaves out "
                 "(cases that record one)", "lower", lambda f: f.evidence_drop),
)
ALL_METRICS: tuple[Metric, ...] = (*METRICS, *LINE_METRICS)
_BY_NAME: dict[str, Metric] = {m.name: m for m in ALL_METRICS}
# Short spellings people reach for, as in ir_measures' ``R@5``.
ALIASES: dict[str, str] = {"hit": "hit_rate", "recall": "mean_group_recall", "MRR": "mrr",
                           "nDCG": "ndcg", "pass": "pass_rate", "forbidden": "forbidden_rate",
                           "line": "line_recall"}
_SPEC = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(?:@\s*([0-9]+))?\s*$")


def trend_figures(cases: Sequence[CaseResult]) -> dict[str, float | None]:
    """``{"hit_rate@1": …, "mean_group_recall@20": …}`` over the scored ones among ``cases``."""
    return {str(m.at(depth)): m.aggregate_at(cases, depth)
            for m in METRICS if m.per_ranks_at is not None for depth in TREND_CUTOFFS}


def metric_names() -> list[str]:
    return [m.name for m in ALL_METRICS]


def shown_metrics(aggregates: Aggregates) -> list[Metric]:
    """The metrics a block of results holds: every one of METRICS, and the line-level
    figures when some case of the block has gold lines."""
    lines = not isinstance(aggregates.line_cases, UnsetType)
    return [*METRICS, *(LINE_METRICS if lines else ())]


def iter_metrics(*, paired: bool = False) -> Iterator[Metric]:
    """Every metric in display order; only the paired-tested ones with ``paired=True``."""
    return (m for m in METRICS if not paired or m.paired is not None)


def get_metric(name: str) -> Metric:
    """The registered metric called ``name`` (or one of its aliases)."""
    metric = _BY_NAME.get(ALIASES.get(name, name))
    if metric is None:
        raise InputError(f"unknown metric {name!r}; expected one of: {', '.join(metric_names())}")
    return metric


def parse_metric(text: str) -> Metric:
    """``hit_rate`` -> the metric; ``recall@5`` -> mean group recall at cutoff 5."""
    match = _SPEC.match(text)
    if match is None:
        raise InputError(f"{text!r} is not a metric; expected NAME or NAME@K, NAME one of: "
                         f"{', '.join(metric_names())}")
    metric = get_metric(match.group(1))
    if match.group(2) is None:
        return metric
    digits = match.group(2)
    if len(digits) > 9:  # ``int`` refuses past 4,300 digits; no ranking is that deep anyway
        raise InputError(f"metric {match.group(1)}@{digits[:12]}... ({len(digits)} digits): "
                         "the cutoff after '@' must be a number from 1 to 999999999")
    cutoff = int(digits)
    if cutoff < 1:
        raise InputError(f"metric {text!r}: the cutoff after '@' must be at least 1")
    return metric.at(cutoff)



# What results_clash reads of each scored case once: the metrics that are a mean of a
# per-case value, and the trend figures (by name, metric, depth).
_PLAIN = tuple(m for m in ALL_METRICS if m.recorded is None)
_TRENDS = tuple((str(m.at(depth)), m, depth) for m in METRICS if m.per_ranks_at is not None
                for depth in TREND_CUTOFFS)
_Row = tuple[tuple[float, ...], tuple[float, ...]]
# A rate computed as a ratio of float sums (nDCG) may land a rounding step above 1.
_ROUNDING = 1e-9


def _figure_clash(block: str, figures: Aggregates, cases: Sequence[CaseResult],
                  rows: Sequence[_Row | None]) -> str | None:
    """What in ``figures`` (a block of a results file) its ``cases`` (``rows``: what each
    gives, None when not scored) could not have given, in words, or None."""
    counts = {"cases": len(cases), "scored": 0, "pass": 0, "fail": 0, "invalid": 0,
              "missing": 0}
    for case in cases:
        counts[case.status] = counts.get(case.status, 0) + 1
    scored_rows = [row for row in rows if row is not None]
    counts["scored"] = len(scored_rows)
    stored_counts = {"cases": figures.cases, "scored": figures.scored, "pass": figures.pass_,
                     "fail": figures.fail, "invalid": figures.invalid, "missing": figures.missing}
    for name, count in stored_counts.items():
        if count != counts[name]:
            return f"{block} says {name}: {count}, but its cases give {counts[name]}"
    n = len(scored_rows)
    plain = [sum(column) / n for column in zip(*(r[0] for r in scored_rows), strict=True)
             ] if n else [None] * len(_PLAIN)
    trend = [sum(column) / n for column in zip(*(r[1] for r in scored_rows), strict=True)
             ] if n else [None] * len(_TRENDS)
    actual: dict[str, float | None] = {m.name: v for m, v in zip(_PLAIN, plain, strict=True)}
    actual.update((name, v) for (name, _, _), v in zip(_TRENDS, trend, strict=True))
    stored_figures: list[tuple[str, float | None, Metric | None]] = [
        (m.name, m.read(figures), m) for m in ALL_METRICS]
    for name, trend_value in figures.trend.items():
        if name not in actual or _BY_NAME.get(name) is not None:
            return f"{block} holds a trend figure {name!r} codegold does not write"
        stored_figures.append((name, trend_value, None))
    for name, stored, metric in stored_figures:
        if stored is None:
            continue  # no figure: the gate fails a rule on it, a report shows n/a
        rate = metric is None or metric.render == "rate"
        if not math.isfinite(stored) or stored < 0 or (rate and stored > 1 + _ROUNDING):
            return (f"{block} gives {name} {stored!r}, outside "
                    + ("[0, 1]" if rate else "the finite numbers from 0 up"))
        if metric is not None and metric.recorded is not None:
            given = metric.aggregate([c for c, row in zip(cases, rows, strict=True)
                                      if row is not None])
        else:
            given = actual[name]
        if given is None or not math.isclose(stored, given, rel_tol=1e-9, abs_tol=1e-12):
            shown = "no value" if given is None else f"{given:.6g}"
            return f"{block} gives {name} {stored:.6g}, but its cases give {shown}"
    return None


def results_clash(summary: Aggregates, slices: Sequence[tuple[str, Aggregates]],
                  cases: Sequence[CaseResult]) -> str | None:
    """The first figure of a results file (its summary, then each slice) that its cases
    do not give, in words; None when every figure is what scoring those cases gives.

    Reports, comparisons and the gate read the stored figures: a file edited by hand (or
    damaged) to hold another figure, an out-of-range rate or a count its cases do not
    make would otherwise pass a gate its cases fail. Each case is read once (trend values
    once per pattern of group ranks), so the check stays a small part of loading.
    """
    seen: set[str] = set()
    for case in cases:
        if case.case_id in seen:
            return f"case {case.case_id!r} is listed twice"
        seen.add(case.case_id)
    trends: dict[tuple[int | None, ...], tuple[float, ...]] = {}
    rows: list[_Row | None] = []
    for case in cases:
        if not is_scored(case):
            rows.append(None)
            continue
        ranks = tuple(case.group_ranks)
        trend = trends.get(ranks)
        if trend is None:
            trend = trends[ranks] = tuple(
                at(ranks, depth) for _, m, depth in _TRENDS
                if (at := m.per_ranks_at) is not None)
        values = tuple(m.per_case(case) for m in _PLAIN)
        for metric, value in zip(_PLAIN, values, strict=True):
            if metric.render == "rate" and not 0 <= value <= 1 + _ROUNDING:
                return f"case {case.case_id!r} gives {metric.name} {value!r}, outside [0, 1]"
        for name in ("latency_ms", "cost_usd", "cost_tokens"):
            recorded = getattr(case, name)
            if recorded is not None and not (math.isfinite(recorded) and recorded >= 0):
                return f"case {case.case_id!r} gives {name} {recorded!r}, below 0"
        rows.append((values, trend))
    clash = _figure_clash("the summary", summary, cases, rows)
    if clash is not None:
        return clash
    members: dict[str, list[int]] = {}
    for index, case in enumerate(cases):
        for key in case.slices:
            members.setdefault(key, []).append(index)
    for key, figures in slices:
        indexes = members.get(key, [])
        clash = _figure_clash(f"slice {key!r}", figures, [cases[i] for i in indexes],
                              [rows[i] for i in indexes])
        if clash is not None:
            return clash
    return None
