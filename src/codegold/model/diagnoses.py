"""What ``codegold diagnose -o DIR`` writes (``format: 1``).

``DIR/diagnoses.json`` holds a :class:`DiagnosisSet`; each failure's evidence bundle is
written twice, ``DIR/bundles/<name>.json`` (:class:`EvidenceBundle`) and ``.md``;
``DIR/summary.md`` tables failures by cause and by owner, and lists agent-stage findings
on passing cases apart.
"""

from __future__ import annotations

from typing import Any

import msgspec

from codegold.model.attempts import Chunk, PassedOver
from codegold.model.results import BudgetUse

DIAGNOSIS_FORMAT = 1


class InventoryView(msgspec.Struct, frozen=True, kw_only=True):
    path: str
    fate: str
    category: str
    reason: str | None
    chunker: str | None
    chunks: int
    blob_sha: str | None


class Excerpt(msgspec.Struct, frozen=True, kw_only=True):
    file: str
    start_line: int
    end_line: int
    source: str  # "index" (chunk text) or "repository" (git at the case revision)
    text: str


class EvidenceBundle(msgspec.Struct, frozen=True, kw_only=True):
    format: int
    case_id: str
    status: str
    cause: str
    owner: str
    query_raw: str
    query_rewritten: str | None
    filters: dict[str, Any]
    context: dict[str, Any]
    case_revision: str
    index_revision: str | None
    index_build_id: str | None
    chunker: str | None
    evaluator_version: str
    cutoff: int
    first_relevant_rank: int | None
    first_relevant_rank_any_depth: int | None
    missing_groups: list[str]
    forbidden_chunk_ids: list[str]
    targets: list[str]
    target_inventory: list[InventoryView]
    candidates: list[Chunk] | None  # before rerank; None when the retriever did not record them
    ranked: list[Chunk]
    expected_excerpts: list[Excerpt]
    rationale: str | None
    context_ids: list[str] | None
    # A case judged at a budget: the budget and how it was spent (left out otherwise).
    budget: BudgetUse | msgspec.UnsetType = msgspec.UNSET
    # An imported trajectory: its calls read as no context and no edit, by step (left out
    # when none was).
    passed_over: list[PassedOver] | msgspec.UnsetType = msgspec.UNSET


class Diagnosis(msgspec.Struct, frozen=True, kw_only=True):
    case_id: str
    status: str
    cause: str
    owner: str
    summary: str
    evidence: list[str]
    checks_not_run: list[str]  # "check: why it could not run"
    bundle_json: str | None = None  # relative to the diagnosis directory
    bundle_markdown: str | None = None


class DiagnosisSet(msgspec.Struct, frozen=True, kw_only=True):
    """``diagnoses`` are the cases that did not pass (``by_cause`` and ``by_owner`` count
    them); ``passing`` lists agent-stage findings on cases that passed (an agent that
    found the evidence and left it out of its final patch), apart from the failures."""

    format: int
    results: str
    index: str | None
    attempts: str | None
    diagnoses: list[Diagnosis]
    by_cause: dict[str, int]
    by_owner: dict[str, int]
    warnings: list[str]
    passing: list[Diagnosis] = msgspec.field(default_factory=list)


_ENCODER = msgspec.json.Encoder(order="deterministic")


def dump_json(value: object) -> bytes:
    return msgspec.json.format(_ENCODER.encode(value), indent=1) + b"\n"
