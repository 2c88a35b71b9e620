"""The one report model every renderer reads.

The report imports no engine: the caller (the CLI) runs comparison, diagnosis and the
gate, and hands over their records as they are written to disk (:class:`Verdict`,
:class:`Comparison`, :class:`Diagnosis`, all from :mod:`codegold.model`), so a renamed
field is a type error here, never a silently empty cell.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from codegold.model import CaseResult, Check, RunResult, Verdict
from codegold.model.comparison import Comparison
from codegold.model.diagnoses import Diagnosis
from codegold.model.metrics import scored_cases

__all__ = ["Check", "Comparison", "Diagnosis", "ReportHeader", "ReportInput", "Verdict",
           "header_facts"]

UNKNOWN = "unknown"


@dataclass(frozen=True)
class ReportHeader:
    """Facts that say what was measured. Each is a display string; a fact nobody recorded
    is ``unknown`` (never a guess). Several values (a run over two builds) are joined."""

    repository: str = UNKNOWN
    revision: str = UNKNOWN          # short sha, and the name it was given: "1a2b3c4d (v1.2)"
    index_build: str = UNKNOWN       # index build id(s)
    chunker: str = UNKNOWN           # "name version"
    retriever: str = UNKNOWN
    retriever_config: str = UNKNOWN  # config digest
    embedder: str = UNKNOWN          # what served dense retrieval, or "none (dense off)"
    codegold_version: str = UNKNOWN
    cases_digest: str = UNKNOWN      # sha256 of the case file, first 12 hex digits
    date: str = UNKNOWN              # when the retriever was asked (latest), else index build

    def facts(self) -> list[tuple[str, str]]:
        """(label, value) in display order; the same labels in every renderer."""
        return [("repository", self.repository), ("revision", self.revision),
                ("index build", self.index_build), ("chunker", self.chunker),
                ("retriever", self.retriever), ("retriever config", self.retriever_config),
                ("embedder", self.embedder),
                ("codegold", self.codegold_version), ("cases sha256", self.cases_digest),
                ("date", self.date)]


def _joined(values: list[str]) -> str:
    seen = sorted({v for v in values if v})
    return ", ".join(seen) if seen else UNKNOWN


def header_facts(results: RunResult) -> ReportHeader:
    """What results.json alone says: revision(s) and build id(s) the cases were scored
    against, the codegold version and the case file's digest."""
    cases_ref = results.inputs.get("cases")
    return ReportHeader(
        revision=_joined([(c.index_revision or "")[:12] for c in results.cases]),
        index_build=_joined([c.index_build_id or "" for c in results.cases]),
        codegold_version=results.codegold_version or UNKNOWN,
        cases_digest=cases_ref.sha256[:12] if cases_ref and cases_ref.sha256 else UNKNOWN)


@dataclass(frozen=True)
class ReportInput:
    """Everything a renderer may show. ``matches`` maps case id → chunk id → the ids of
    the evidence groups that chunk satisfies (computed by the caller with the scorer's
    acceptance rule); without it, renderers mark only the first relevant rank.
    ``bundles`` maps case id → its evidence bundle as Markdown text."""

    results: RunResult
    title: str = "codegold report"
    results_name: str = "results.json"
    comparison: Comparison | None = None
    diagnoses: dict[str, Diagnosis] = field(default_factory=dict)
    bundles: dict[str, str] = field(default_factory=dict)
    gate: Verdict | None = None
    gate_policy: str = ""
    matches: dict[str, dict[str, tuple[str, ...]]] = field(default_factory=dict)
    header: ReportHeader | None = None  # None: what results.json alone says

    def header_or_default(self) -> ReportHeader:
        return self.header if self.header is not None else header_facts(self.results)

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
    scored = scored_cases(results.cases)
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
