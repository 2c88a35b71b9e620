"""The one report model every renderer reads.

The report imports no engine: the caller (the CLI) runs comparison, diagnosis and the
gate, and hands their outcomes over as the plain view records below. Each view holds only
what a renderer shows, and decodes leniently from the engines' JSON (unknown fields are
ignored), so the engines' own records can evolve without touching the report.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import msgspec

from codegold.model import CaseResult, RunResult


class GateCheckView(msgspec.Struct, frozen=True, kw_only=True):
    rule: str
    passed: bool
    figure: str = ""
    threshold: str = ""
    cases: list[str] = msgspec.field(default_factory=list)
    note: str | None = None


class GateView(msgspec.Struct, frozen=True, kw_only=True):
    passed: bool
    checks: list[GateCheckView] = msgspec.field(default_factory=list)
    policy: str | None = None


class MetricDeltaView(msgspec.Struct, frozen=True, kw_only=True):
    metric: str
    label: str
    base: float
    new: float
    diff: float
    ci_low: float | None = None
    ci_high: float | None = None
    p_value: float | None = None
    p_adjusted: float | None = None
    significant: bool = False
    improved: bool | None = None


class SliceDeltaView(msgspec.Struct, frozen=True, kw_only=True):
    key: str
    paired: int
    too_small: bool = False
    metrics: list[MetricDeltaView] = msgspec.field(default_factory=list)


class CaseChangeView(msgspec.Struct, frozen=True, kw_only=True):
    case_id: str
    kind: str
    base_status: str | None = None
    new_status: str | None = None
    base_rank: int | None = None
    new_rank: int | None = None


class ComparisonView(msgspec.Struct, frozen=True, kw_only=True):
    base: str
    new: str
    paired: int
    confidence: float = 0.95
    overall: SliceDeltaView
    slices: list[SliceDeltaView] = msgspec.field(default_factory=list)
    changes: list[CaseChangeView] = msgspec.field(default_factory=list)
    warnings: list[str] = msgspec.field(default_factory=list)


class DiagnosisView(msgspec.Struct, frozen=True, kw_only=True):
    case_id: str
    cause: str
    owner: str
    summary: str = ""
    evidence: list[str] = msgspec.field(default_factory=list)
    checks_not_run: list[str] = msgspec.field(default_factory=list)
    bundle_markdown: str | None = None


@dataclass(frozen=True)
class ReportInput:
    """Everything a renderer may show. ``matches`` maps case id → chunk id → the ids of
    the evidence groups that chunk satisfies (computed by the caller with the scorer's
    acceptance rule); without it, renderers mark only the first relevant rank."""

    results: RunResult
    title: str = "codegold report"
    results_name: str = "results.json"
    comparison: ComparisonView | None = None
    diagnoses: dict[str, DiagnosisView] = field(default_factory=dict)
    gate: GateView | None = None
    matches: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)

    def cause_of(self, case: CaseResult) -> str | None:
        """Diagnosed cause; ``undiagnosed`` for a failure with no diagnosis; None for a pass."""
        diagnosis = self.diagnoses.get(case.case_id)
        if diagnosis is not None:
            return diagnosis.cause
        if case.status == "invalid":
            return "invalid_run"
        if case.status in ("fail", "missing"):
            return "undiagnosed"
        return None


@dataclass(frozen=True)
class CauseRow:
    cause: str
    cases: int
    owners: tuple[str, ...]


def cause_breakdown(report: ReportInput) -> list[CauseRow]:
    """Non-passing cases by cause, most frequent first (ties by name)."""
    counts: Counter[str] = Counter()
    owners: dict[str, set[str]] = {}
    for case in report.results.cases:
        cause = report.cause_of(case)
        if cause is None:
            continue
        counts[cause] += 1
        diagnosis = report.diagnoses.get(case.case_id)
        if diagnosis is not None:
            owners.setdefault(cause, set()).add(diagnosis.owner)
    return [CauseRow(cause, n, tuple(sorted(owners.get(cause, ()))))
            for cause, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]


def owner_breakdown(report: ReportInput) -> list[tuple[str, int]]:
    counts = Counter(d.owner for d in report.diagnoses.values())
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


@dataclass(frozen=True)
class RankBin:
    label: str
    cases: int


def rank_histogram(results: RunResult) -> list[RankBin]:
    """Scored cases by first relevant rank: 1..k visible, past the cutoff, never found."""
    scored = [c for c in results.cases if c.status != "invalid"]
    depth = max((c.cutoff for c in scored), default=0)
    bins = Counter[str]()
    for case in scored:
        if case.first_relevant_rank is not None:
            bins[str(case.first_relevant_rank)] += 1
        elif case.first_relevant_rank_any_depth is not None:
            bins["past cutoff"] += 1
        else:
            bins["not found"] += 1
    labels = [str(r) for r in range(1, depth + 1)] + ["past cutoff", "not found"]
    return [RankBin(label, bins.get(label, 0)) for label in labels]
