"""Linking answers to the retrieval they used, and explaining failed answers.

Linkage is checked before anything is classified (answer -> attempt -> complete manifest
of the case's revision; a retry names how it retrieved). A broken link is reported as
such and never classified: the suite cannot tell what the answer saw. A failed answer
that is linked is then:

- ``evidence_stale``: the context sent held a forbidden chunk or a chunk of another
  revision (checked first: stale evidence misleads whatever else was sent);
- ``evidence_absent``: some required evidence group was not in the context sent
  (retrieval's problem);
- ``evidence_ignored``: every required group was in the context sent and the answer
  still failed (the answer generation's problem; ``cited_evidence`` says whether the
  answer at least cited an accepted target).

A passing answer whose context held no required evidence is flagged
(``passed_without_evidence``): the model answered from elsewhere (its training, say).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Literal

import msgspec

from codegold.evaluate.match import GroupMatcher, target_matches
from codegold.model import Attempt, Case, CaseSet, Chunk, InputRef, manifest_problem
from codegold.model.answers import Answer
from codegold.model.paths import PathPattern, normalize_path

AnswerClass = Literal["evidence_absent", "evidence_ignored", "evidence_stale"]
# Which diagnosis cause (and so which owner) each class is routed to.
ROUTES: dict[str, str] = {
    "evidence_absent": "retrieval_miss",
    "evidence_stale": "forbidden_source",
    "evidence_ignored": "answer_ignored_evidence",
}
ANSWER_RESULTS_FORMAT = 1


class AnswerFinding(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    answer_id: str
    case_id: str
    attempt_id: str | None
    verdict: str
    linkage: Literal["ok", "broken"]
    problems: list[str] = msgspec.field(default_factory=list)
    injected_ids: list[str] = msgspec.field(default_factory=list)
    answer_class: AnswerClass | None = None
    route: str | None = None
    missing_groups: list[str] = msgspec.field(default_factory=list)
    stale_chunk_ids: list[str] = msgspec.field(default_factory=list)
    cited_evidence: bool | None = None
    passed_without_evidence: bool = False
    query_class: str | None = None


class AnswerSummary(msgspec.Struct, frozen=True, kw_only=True):
    answers: int
    linked: int
    broken: int
    passed: int
    failed: int
    unknown: int
    classes: dict[str, int]
    passed_without_evidence: int


class AnswerResults(msgspec.Struct, frozen=True, kw_only=True):
    format: int
    inputs: dict[str, InputRef]
    summary: AnswerSummary
    by_query_class: dict[str, dict[str, int]]
    answers: list[AnswerFinding]


def _chunks_by_id(attempt: Attempt) -> dict[str, Chunk]:
    found = {c.chunk_id: c for c in attempt.candidates or ()}
    found.update((c.chunk_id, c) for c in attempt.ranked)
    return found


def _link_problems(answer: Answer, case: Case | None, attempt: Attempt | None,
                   earlier: dict[str, Answer]) -> list[str]:
    problems: list[str] = []
    if case is None:
        problems.append(f"unknown case {answer.case_id!r}")
    if answer.attempt_id is None:
        problems.append("names no retrieval attempt (attempt_id)")
    elif attempt is None:
        problems.append(f"attempt {answer.attempt_id!r} does not exist in the attempts file")
    else:
        if attempt.case_id != answer.case_id:
            problems.append(f"attempt {attempt.attempt_id!r} belongs to case {attempt.case_id!r}")
        if attempt.error is not None:
            problems.append(f"attempt {attempt.attempt_id!r} is an error attempt")
        elif case is not None:
            why = manifest_problem(attempt.manifest, case.revision)
            if why is not None:
                problems.append(f"attempt {attempt.attempt_id!r} has no usable manifest: {why}")
    if answer.retry_of is not None:
        prior = earlier.get(answer.retry_of)
        if prior is None:
            problems.append(f"retries {answer.retry_of!r}, which is not an earlier answer")
        elif answer.retrieval is None:
            problems.append("a retry must say whether it reused the retrieval or made a new one "
                            "(retrieval: reused|new)")
        elif answer.retrieval == "reused" and answer.attempt_id != prior.attempt_id:
            problems.append(f"says it reused the retrieval of {prior.answer_id!r} "
                            f"({prior.attempt_id!r}) but names attempt {answer.attempt_id!r}")
        elif answer.retrieval == "new" and answer.attempt_id == prior.attempt_id:
            problems.append(f"says it made a new retrieval but names the attempt of "
                            f"{prior.answer_id!r} ({prior.attempt_id!r})")
    return problems


def _cited_evidence(answer: Answer, case: Case) -> bool | None:
    if answer.cited is None:
        return None
    for cited in answer.cited:
        probe = Chunk(chunk_id="cited", file=cited.file, symbol=cited.symbol)
        for group in case.groups:
            for target in group.any_of:
                loose = msgspec.structs.replace(target, roles=())  # a citation has no role
                if target_matches(probe, loose) and (target.symbol is None or cited.symbol):
                    return True
    return False


def link_answers(case_set: CaseSet, attempts: Iterable[Attempt], answers: Iterable[Answer], *,
                 inputs: dict[str, InputRef] | None = None) -> AnswerResults:
    """Check each answer's linkage and classify the failed ones."""
    cases = {case.id: case for case in case_set.cases}
    by_id = {attempt.attempt_id: attempt for attempt in attempts}
    earlier: dict[str, Answer] = {}
    findings: list[AnswerFinding] = []
    for answer in answers:
        case = cases.get(answer.case_id)
        attempt = by_id.get(answer.attempt_id) if answer.attempt_id else None
        problems = _link_problems(answer, case, attempt, earlier)
        earlier[answer.answer_id] = answer
        base = AnswerFinding(answer_id=answer.answer_id, case_id=answer.case_id,
                             attempt_id=answer.attempt_id, verdict=answer.verdict,
                             linkage="broken" if problems else "ok", problems=problems,
                             query_class=case.query_class if case else None)
        if problems or case is None or attempt is None:
            findings.append(base)
            continue
        findings.append(_classify(answer, case, attempt, base))
    return AnswerResults(format=ANSWER_RESULTS_FORMAT, inputs=dict(inputs or {}),
                         summary=_summary(findings), by_query_class=_by_class(findings),
                         answers=findings)


def _classify(answer: Answer, case: Case, attempt: Attempt, base: AnswerFinding) -> AnswerFinding:
    known = _chunks_by_id(attempt)
    injected = [cid for cid in answer.context_ids if cid not in known]
    context = [known[cid] for cid in answer.context_ids if cid in known]
    matcher = GroupMatcher(tuple((g.id, g.required, g.any_of) for g in case.groups))
    satisfied: set[int] = set()
    stale: list[str] = []
    for chunk in context:
        satisfied |= matcher.satisfied(chunk)
        path = normalize_path(chunk.file)
        if any(PathPattern.forbidden(p).matches(path) for p in case.forbidden) or (
                chunk.judged_revision() not in (None, case.revision)):
            stale.append(chunk.chunk_id)
    missing = [g.id for i, g in enumerate(case.groups) if g.required and i not in satisfied]
    found = msgspec.structs.replace(base, injected_ids=injected, missing_groups=missing,
                                    stale_chunk_ids=stale)
    if answer.verdict == "pass":
        return msgspec.structs.replace(found, passed_without_evidence=bool(missing))
    if answer.verdict != "fail":
        return found
    answer_class: AnswerClass
    if stale:
        answer_class = "evidence_stale"
    elif missing:
        answer_class = "evidence_absent"
    else:
        answer_class = "evidence_ignored"
    return msgspec.structs.replace(found, answer_class=answer_class, route=ROUTES[answer_class],
                                   cited_evidence=_cited_evidence(answer, case)
                                   if answer_class == "evidence_ignored" else None)


def _summary(findings: list[AnswerFinding]) -> AnswerSummary:
    classes = Counter(str(f.answer_class) for f in findings if f.answer_class)
    return AnswerSummary(
        answers=len(findings), linked=sum(f.linkage == "ok" for f in findings),
        broken=sum(f.linkage == "broken" for f in findings),
        passed=sum(f.verdict == "pass" for f in findings),
        failed=sum(f.verdict == "fail" for f in findings),
        unknown=sum(f.verdict == "unknown" for f in findings),
        classes={k: classes.get(k, 0) for k in ROUTES},
        passed_without_evidence=sum(f.passed_without_evidence for f in findings))


def _by_class(findings: list[AnswerFinding]) -> dict[str, dict[str, int]]:
    table: dict[str, Counter[str]] = {}
    for finding in findings:
        row = table.setdefault(finding.query_class or "unknown_case", Counter())
        row["answers"] += 1
        row["broken"] += finding.linkage == "broken"
        if finding.answer_class:
            row[finding.answer_class] += 1
    return {k: dict(sorted(v.items())) for k, v in sorted(table.items())}
