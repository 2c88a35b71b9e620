"""results.json: per-case outcomes and aggregates, written byte-identically for equal inputs."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

import msgspec

from codegold.model.attempts import Chunk, Query
from codegold.model.cases import Case
from codegold.plumbing.outputs import write_bytes_atomic

RESULTS_FORMAT = 1
Status = Literal["pass", "fail", "invalid", "missing"]


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


def iter_results_bytes(result: RunResult) -> Iterator[bytes]:
    """Canonical JSON of ``result`` in pieces: one line per slice and per case.

    Written piece by piece, a 100k-case results file never sits in memory twice, and a
    line per case keeps it friendly to grep and diff as well as to jq.
    """
    encode = _ENCODER.encode
    yield b"{"
    for index, name in enumerate(result.__struct_fields__):
        value = getattr(result, name)
        yield (b"," if index else b"") + encode(name) + b":"
        if name in ("slices", "cases"):
            yield b"["
            for position, item in enumerate(value):
                yield (b",\n" if position else b"\n") + encode(item)
            yield b"\n]"
        else:
            yield encode(value)
    yield b"}\n"


def dump_results(result: RunResult) -> bytes:
    """Canonical bytes of ``result`` (see :func:`iter_results_bytes`)."""
    return b"".join(iter_results_bytes(result))


def write_results(result: RunResult, path: str) -> None:
    """Write ``result`` atomically: a crash never leaves a half-written results file."""
    write_bytes_atomic(path, iter_results_bytes(result))


def load_results(path: str) -> RunResult:
    from codegold.errors import SchemaError
    from codegold.model._files import MAX_JSON_BYTES, read_bytes, split_validation_error

    raw = read_bytes(path, "results", limit=MAX_JSON_BYTES)
    try:
        result = msgspec.json.decode(raw, type=RunResult)
    except msgspec.ValidationError as err:
        text, where = split_validation_error(str(err))
        raise SchemaError(f"not a codegold results file: {text} (at {where})", path=path) from None
    except msgspec.DecodeError as err:
        raise SchemaError(f"invalid JSON: {err}", path=path) from None
    if result.format != RESULTS_FORMAT:
        raise SchemaError(f"unsupported results format {result.format}", path=path)
    return result
