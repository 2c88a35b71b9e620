"""Build RunResult objects directly for tests of compare, report and diagnose.

These are fixtures, not a scorer: each CaseResult is written out by hand from the few
facts a test cares about (status, first relevant rank, forbidden chunks).
"""

from __future__ import annotations

from collections.abc import Sequence

from codegold.model import (
    Aggregates,
    Case,
    CaseResult,
    Chunk,
    EvidenceGroup,
    InputRef,
    Query,
    RunResult,
    SliceResult,
    Target,
)

REV = "a" * 40


def make_case(
    case_id: str,
    *,
    query: str = "Where is createSession defined?",
    file: str = "src/auth/session.py",
    symbol: str | None = "createSession",
    roles: tuple[str, ...] = ("definition",),
    query_class: str = "descriptive",
    tags: dict[str, str] | None = None,
    cutoff: int = 5,
    forbidden: tuple[str, ...] = ("src/legacy/",),
    rationale: str | None = "the definition answers the question",
    revision: str = REV,
) -> Case:
    return Case(
        id=case_id, query=query, repository="acme/shop", revision=revision, cutoff=cutoff,
        query_class=query_class,
        groups=(EvidenceGroup(id="main", required=True,
                              any_of=(Target(file=file, symbol=symbol, roles=roles),)),),
        forbidden=forbidden, tags=dict(sorted((tags or {}).items())), rationale=rationale,
    )


def chunk(
    chunk_id: str, file: str, *, symbol: str | None = None, role: str | None = "definition",
    start: int | None = 1, end: int | None = 10, excerpt: str | None = None, revision: str = REV,
) -> Chunk:
    return Chunk(chunk_id=chunk_id, file=file, symbol=symbol, role=role, revision=revision,
                 start_line=start, end_line=end, excerpt=excerpt)


def make_result(
    case: Case,
    *,
    rank: int | None = None,
    status: str | None = None,
    forbidden_ids: Sequence[str] = (),
    ranked: Sequence[Chunk] | None = None,
    rewritten: str | None = None,
    attempt_id: str | None = None,
    invalid_reason: str | None = None,
    any_depth: int | None = None,
) -> CaseResult:
    """A case result whose figures follow from ``rank`` (None: no relevant chunk visible)."""
    if status is None:
        status = "pass" if rank is not None and not forbidden_ids else "fail"
    if ranked is None:
        target = case.groups[0].any_of[0]
        ranked = []
        for position in range(1, case.cutoff + 1):
            if position == rank:
                ranked.append(chunk(f"{case.id}-hit", target.file, symbol=target.symbol,
                                    excerpt=f"def {target.symbol}(): ..."))
            elif forbidden_ids and position == 1:
                ranked.append(chunk(forbidden_ids[0], "src/legacy/old.py", symbol="old"))
            else:
                ranked.append(chunk(f"{case.id}-n{position}", f"src/other{position}.py",
                                    symbol=f"other{position}"))
    hit = rank is not None
    return CaseResult(
        case_id=case.id, status=status,  # type: ignore[arg-type]
        cutoff=case.cutoff, first_relevant_rank=rank,
        reciprocal_rank=1.0 / rank if rank else 0.0, hit=hit,
        group_recall=1.0 if hit else 0.0, ndcg=(1.0 / rank if rank else 0.0),
        missing_groups=[] if hit else ["main"], supporting_found=[],
        forbidden_chunk_ids=list(forbidden_ids), revision_mismatches=[], unknown_revision=[],
        invalid_reason=invalid_reason, attempt_id=attempt_id or f"{case.id}-a1",
        attempt_ids=[attempt_id or f"{case.id}-a1"], index_build_id="build-1",
        index_revision=case.revision,
        query=Query(raw=case.query, rewritten=rewritten if rewritten is not None else case.query),
        ranked=list(ranked), first_relevant_rank_any_depth=any_depth if any_depth else rank,
        slices=_slice_keys(case), case=case,
    )


def _slice_keys(case: Case) -> list[str]:
    keys = [f"query_class={case.query_class}"]
    keys += [f"tag:{k}={v}" for k, v in case.tags.items()]
    return sorted(keys)


def _aggregates(results: Sequence[CaseResult]) -> Aggregates:
    scored = [r for r in results if r.status != "invalid"]
    n = len(scored)

    def mean(values: list[float]) -> float | None:
        return sum(values) / n if n else None

    return Aggregates(
        cases=len(results), scored=n,
        pass_=sum(r.status == "pass" for r in results),
        fail=sum(r.status == "fail" for r in results),
        invalid=sum(r.status == "invalid" for r in results),
        missing=sum(r.status == "missing" for r in results),
        hit_rate=mean([1.0 if r.hit else 0.0 for r in scored]),
        pass_rate=mean([1.0 if r.status == "pass" else 0.0 for r in scored]),
        mean_group_recall=mean([r.group_recall for r in scored]),
        mrr=mean([r.reciprocal_rank for r in scored]),
        ndcg=mean([r.ndcg for r in scored]),
        forbidden_rate=mean([1.0 if r.forbidden_chunk_ids else 0.0 for r in scored]),
        revision_mismatch_rate=mean([0.0 for _ in scored]),
    )


def make_run(results: Sequence[CaseResult], *, attempts_path: str = "attempts.jsonl") -> RunResult:
    slices: dict[str, tuple[str, str, list[CaseResult]]] = {}
    for r in results:
        for key in r.slices:
            dimension, _, value = key.partition("=")
            slices.setdefault(key, (dimension, value, []))[2].append(r)
    return RunResult(
        format=1, codegold_version="0.1.0",
        inputs={"cases": InputRef(path="cases.yaml", sha256="0" * 64),
                "attempts": InputRef(path=attempts_path, sha256="1" * 64)},
        summary=_aggregates(results),
        slices=[SliceResult(key=k, dimension=d, value=v, metrics=_aggregates(rs))
                for k, (d, v, rs) in sorted(slices.items())],
        cases=list(results), warnings=[], attempts_read=len(results),
    )
