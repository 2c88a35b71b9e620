"""results.json: per-case outcomes and aggregates, written byte-identically for equal inputs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

import msgspec

from codegold.model.attempts import Chunk, PassedOver, Query
from codegold.model.cases import Budget, Case
from codegold.plumbing.outputs import write_bytes_atomic

RESULTS_FORMAT = 1
Status = Literal["pass", "fail", "invalid", "missing"]
UNSET = msgspec.UNSET
UnsetType = msgspec.UnsetType


class BudgetUse(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """How a case's budget was spent: the budget, the units the visible chunks used, and
    the chunk cut at the budget (only its first ``cut_lines`` lines count as seen)."""

    budget: Budget
    used: int
    visible_chunks: int
    cut_chunk_id: str | None = None
    cut_lines: int | None = None


class GroupReach(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """Where a required group was first satisfied inside the cutoff or budget: its rank,
    the step of that chunk (agents), and the lines seen up to and including it."""

    group: str
    rank: int | None = None
    step: int | None = None
    lines: int | None = None


class LineFigures(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    """Line-level figures of one case (docs/concepts.md, "Line-level figures").

    Counts are of (file, line) pairs: ``gold`` gold lines, ``seen`` distinct lines seen
    within the cutoff or budget, ``gold_seen`` both, ``read`` lines seen counting every
    repeat. ``recall_at`` is line recall at the budget (or cutoff) times each factor.
    ``evidence_drop`` is set only when the attempt records its ``final`` patch or answer.
    """

    recall: float
    precision: float
    f1: float
    efficiency: float
    redundancy: float
    gold: int
    seen: int
    gold_seen: int
    read: int
    groups: list[str]  # required groups with gold lines
    recall_at: dict[str, float] = msgspec.field(default_factory=dict)
    evidence_drop: float | None = None
    dropped: list[str] = msgspec.field(default_factory=list)


class CaseResult(msgspec.Struct, frozen=True, kw_only=True):
    case_id: str
    status: Status
    cutoff: int
    first_relevant_rank: int | None
    reciprocal_rank: float
    hit: bool
    group_recall: float
    ndcg: float
    missing_groups: list[str]
    supporting_found: list[str]
    forbidden_chunk_ids: list[str]
    revision_mismatches: list[str]
    unknown_revision: list[str]
    invalid_reason: str | None
    attempt_id: str | None
    attempt_ids: list[str]
    index_build_id: str | None
    index_revision: str | None
    query: Query | None
    # What the answer stage saw (ranked[:cutoff]) plus a few chunks just past the cutoff,
    # so reports and diagnoses can show near misses without reopening attempts.
    ranked: list[Chunk]
    first_relevant_rank_any_depth: int | None
    slices: list[str]  # slice keys this case belongs to, as in RunResult.slices
    case: Case
    # Per required group (in case order), the 1-based rank of its first acceptable chunk
    # within the trend depth (max(cutoff, 20)), or null: the trend figures come from it.
    group_ranks: list[int | None] = msgspec.field(default_factory=list)
    # From the final attempt: timing_ms "total" (else "wall"), and its optional cost.
    latency_ms: float | None = None
    cost_tokens: int | None = None
    cost_usd: float | None = None
    # Agents' context and budgets; left out (not null) when they do not apply, so a case
    # judged at a plain cutoff with no gold lines keeps its bytes.
    budget: BudgetUse | UnsetType = UNSET
    lines: LineFigures | UnsetType = UNSET
    reach: list[GroupReach] | UnsetType = UNSET
    # An imported trajectory's calls read as no context and no edit, by step (left out
    # when none was).
    passed_over: list[PassedOver] | UnsetType = UNSET

    @property
    def line_figures(self) -> LineFigures | None:
        return None if isinstance(self.lines, UnsetType) else self.lines

    @property
    def budget_use(self) -> BudgetUse | None:
        return None if isinstance(self.budget, UnsetType) else self.budget

    @property
    def group_reach(self) -> list[GroupReach]:
        return [] if isinstance(self.reach, UnsetType) else self.reach

    @property
    def passed_over_steps(self) -> list[PassedOver]:
        return [] if isinstance(self.passed_over, UnsetType) else self.passed_over

    def forbidden_hits(self) -> list[str]:
        """Each forbidden visible chunk as ``file:start-end (symbol)`` (:meth:`Chunk.where`),
        for people: chunk ids are a retriever's own hashes. An id not among the stored
        ranks stays as it is."""
        by_id = {c.chunk_id: c for c in self.ranked}
        return [by_id[cid].where() if cid in by_id else cid for cid in self.forbidden_chunk_ids]


class Aggregates(msgspec.Struct, frozen=True, kw_only=True):
    cases: int
    scored: int
    pass_: int = msgspec.field(name="pass")
    fail: int
    invalid: int
    missing: int
    # One field per metric of codegold.model.metrics.METRICS (a test keeps them equal).
    hit_rate: float | None
    pass_rate: float | None
    mean_group_recall: float | None
    mrr: float | None
    ndcg: float | None
    forbidden_rate: float | None
    revision_mismatch_rate: float | None
    # Over scored cases that recorded them (None when none did): latency percentiles
    # (nearest rank), the summed cost in US dollars and the mean tokens per case.
    latency_p50_ms: float | None = None
    latency_p95_ms: float | None = None
    latency_max_ms: float | None = None
    cost_usd_total: float | None = None
    cost_tokens_mean: float | None = None
    # Trend figures at fixed depths ("hit_rate@1" ... "mean_group_recall@20"), whatever
    # each case's cutoff: for watching a ranking move, never gated (the gate gates at the
    # case's own cutoff).
    trend: dict[str, float | None] = msgspec.field(default_factory=dict)
    # Line-level figures (codegold.model.metrics.LINE_METRICS), over the scored cases that
    # have gold lines (``line_cases`` of them; ``final_cases`` also record a final patch or
    # answer, for evidence_drop). Left out when no case of the block has gold lines.
    line_cases: int | UnsetType = UNSET
    final_cases: int | UnsetType = UNSET
    line_recall: float | UnsetType | None = UNSET
    line_precision: float | UnsetType | None = UNSET
    line_f1: float | UnsetType | None = UNSET
    line_efficiency: float | UnsetType | None = UNSET
    line_redundancy: float | UnsetType | None = UNSET
    evidence_drop: float | UnsetType | None = UNSET
    # Line recall at each case's budget (or cutoff) times 0.5, 1 and 2: "line_recall@2x".
    budget_trend: dict[str, float | None] | UnsetType = UNSET


class SliceResult(msgspec.Struct, frozen=True, kw_only=True):
    key: str  # "query_class=descriptive", "tag:risk=high", "language=python", "role=definition"
    dimension: str
    value: str
    metrics: Aggregates


class InputRef(msgspec.Struct, frozen=True, kw_only=True):
    path: str
    sha256: str


class RunResult(msgspec.Struct, frozen=True, kw_only=True):
    format: int
    codegold_version: str
    inputs: dict[str, InputRef]
    summary: Aggregates
    slices: list[SliceResult]
    cases: list[CaseResult]
    warnings: list[str]
    attempts_read: int

    def by_id(self) -> dict[str, CaseResult]:
        return {c.case_id: c for c in self.cases}


_ENCODER = msgspec.json.Encoder(order="deterministic")


_PIECE_BYTES = 1 << 20  # what iter_results_bytes gathers before it hands a piece over


def iter_results_bytes(result: RunResult) -> Iterator[bytes]:
    """Canonical JSON of ``result`` in pieces of about a MiB: one line per slice and per case.

    Written piece by piece, a 100k-case results file never sits in memory twice, and a
    line per case keeps it friendly to grep and diff as well as to jq. Each value is
    encoded straight into one growing buffer (``encode_into``), not into a bytes object
    of its own that is then joined and copied (measured: a third less time to write
    20k cases).
    """
    encode_into = _ENCODER.encode_into
    buffer = bytearray(b"{")
    for index, name in enumerate(result.__struct_fields__):
        value = getattr(result, name)
        if index:
            buffer += b","
        encode_into(name, buffer, -1)
        buffer += b":"
        if name in ("slices", "cases"):
            buffer += b"["
            for position, item in enumerate(value):
                buffer += b",\n" if position else b"\n"
                encode_into(item, buffer, -1)
                if len(buffer) >= _PIECE_BYTES:
                    yield bytes(buffer)  # a copy: the buffer is reused for the next piece
                    buffer.clear()
            buffer += b"\n]"
        else:
            encode_into(value, buffer, -1)
    buffer += b"}\n"
    yield bytes(buffer)


def dump_results(result: RunResult) -> bytes:
    """Canonical bytes of ``result`` (see :func:`iter_results_bytes`)."""
    return b"".join(iter_results_bytes(result))


def write_results(result: RunResult, path: str) -> None:
    """Write ``result`` atomically: a crash never leaves a half-written results file."""
    write_bytes_atomic(path, iter_results_bytes(result))


def load_results(path: str) -> RunResult:
    from codegold.errors import SchemaError
    from codegold.model.io import (
        MAX_JSON_BYTES,
        decode_json,
        read_bytes,
        split_validation_error,
    )

    raw = read_bytes(path, "results", limit=MAX_JSON_BYTES)
    try:
        result = msgspec.json.decode(raw, type=RunResult)
    except msgspec.ValidationError as err:
        text, where = split_validation_error(str(err))
        raise SchemaError(f"not a codegold results file: {text} (at {where})", path=path) from None
    except (msgspec.DecodeError, RecursionError):
        decode_json(raw, path=path)  # names the problem (invalid JSON, nesting) and its line
        raise SchemaError("invalid JSON", path=path) from None
    if result.format != RESULTS_FORMAT:
        raise SchemaError(f"unsupported results format {result.format}", path=path)
    from codegold.model.metrics import results_clash

    clash = results_clash(result.summary, [(s.key, s.metrics) for s in result.slices],
                          result.cases)
    if clash is not None:
        raise SchemaError(f"not the figures its cases give: {clash} (edited or damaged; "
                          "score the attempts again with 'codegold eval')", path=path)
    return result
