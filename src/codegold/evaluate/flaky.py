"""Finding cases whose repeated attempts disagree, and the likely source of the difference.

Attempts of one case are compared by their repeat group (``run --repeat``) or, without
one, all together. A case is flaky when the chunk ids inside the cutoff, the status or the
first relevant rank differ between its attempts. The likely sources are read from the
records: different index builds, different rewritten queries, equal scores at the cutoff
boundary (a tie broken differently), a reranker that reordered the same candidates, or
none of those (the retriever itself varies).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

import msgspec

from codegold.evaluate.score import CaseScorer
from codegold.model import Attempt, CaseSet


class FlakyCase(msgspec.Struct, frozen=True, kw_only=True):
    case_id: str
    group: str
    attempts: list[str]
    statuses: list[str]
    first_relevant_ranks: list[int | None]
    distinct_rankings: int
    differs_in: list[str]
    likely_sources: list[str]


class FlakyReport(msgspec.Struct, frozen=True, kw_only=True):
    format: int
    groups_compared: int
    flaky: list[FlakyCase]


def _tie_at_cutoff(attempt: Attempt, k: int) -> bool:
    ranked = attempt.ranked
    if len(ranked) <= k:
        return False
    edge = ranked[k - 1].score
    return edge is not None and any(c.score == edge for c in ranked[k:k + 5])


def _sources(attempts: list[Attempt], k: int) -> list[str]:
    sources: list[str] = []
    builds = {a.manifest.index_build_id if a.manifest else None for a in attempts}
    if len(builds) > 1:
        sources.append(f"different index builds ({len(builds)})")
    rewrites = {a.query.rewritten if a.query else None for a in attempts}
    if len(rewrites) > 1:
        sources.append(f"different rewritten queries ({len(rewrites)})")
    if any(_tie_at_cutoff(a, k) for a in attempts):
        sources.append("equal scores at the cutoff boundary (a tie broken differently)")
    candidates = {tuple(c.chunk_id for c in a.candidates) for a in attempts
                  if a.candidates is not None}
    if len(candidates) == 1 and len({tuple(c.chunk_id for c in a.ranked[:k])
                                     for a in attempts}) > 1:
        sources.append("the reranker reordered identical candidates")
    return sources or ["none recorded: the retriever itself varies"]


def find_flaky(case_set: CaseSet, attempts: Iterable[Attempt]) -> FlakyReport:
    cases = {case.id: case for case in case_set.cases}
    groups: dict[tuple[str, str], list[Attempt]] = defaultdict(list)
    for attempt in attempts:
        if attempt.case_id in cases:
            key = (attempt.case_id, attempt.repeat_group or "(all attempts)")
            groups[key].append(attempt)
    flaky: list[FlakyCase] = []
    compared = 0
    for (case_id, group), members in sorted(groups.items()):
        if len(members) < 2:
            continue
        compared += 1
        case = cases[case_id]
        scorer = CaseScorer(case)
        scored = [scorer.score(a) for a in members]
        rankings = {tuple(c.chunk_id for c in a.ranked[:r.cutoff])
                    for a, r in zip(members, scored, strict=True)}
        differs = [name for name, values in (
            ("ranking within the cutoff", rankings),
            ("status", {r.status for r in scored}),
            ("first relevant rank", {r.first_relevant_rank for r in scored})) if len(values) > 1]
        if differs:
            flaky.append(FlakyCase(
                case_id=case_id, group=group, attempts=[a.attempt_id for a in members],
                statuses=[r.status for r in scored],
                first_relevant_ranks=[r.first_relevant_rank for r in scored],
                distinct_rankings=len(rankings), differs_in=differs,
                likely_sources=_sources(members, max(r.cutoff for r in scored))))
    return FlakyReport(format=1, groups_compared=compared, flaky=flaky)
