"""Recorded mode: score a case file against an attempts file, streaming the attempts.

Every attempt is scored as it is read (memory stays bounded by the number of cases, not
by the size of the rankings); the case is then decided by its *final* attempt, the one
that no other attempt names in ``retry_of``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import msgspec

from codegold import __version__
from codegold.errors import InputError
from codegold.evaluate.aggregate import summarize
from codegold.evaluate.score import CaseScorer
from codegold.model import (
    Attempt,
    Case,
    CaseResult,
    CaseSet,
    InputRef,
    RunResult,
    load_cases,
)
from codegold.model.attempts import AttemptsFile
from codegold.model.results import RESULTS_FORMAT


@dataclass
class _CaseAttempts:
    """What deciding one case needs while attempts stream past.

    Only attempts that may still be final keep their scored result: once an attempt is
    named in a ``retry_of`` its result is dropped, so 100k retries of a case hold about
    one result, not 100k rankings.
    """

    last: CaseResult                                         # the last one in file order
    order: list[str] = field(default_factory=list)           # attempt ids in file order
    retried: set[str] = field(default_factory=set)           # ids named by a retry_of
    candidates: dict[str, CaseResult] = field(default_factory=dict)  # not (yet) retried
    repeat_groups: set[str | None] = field(default_factory=set)  # run --repeat groups seen

    def add(self, seen: _Seen) -> None:
        attempt_id, retry_of, repeat_group, result = seen
        self.order.append(attempt_id)
        self.repeat_groups.add(repeat_group)
        if retry_of is not None:
            self.retried.add(retry_of)
            self.candidates.pop(retry_of, None)
        if attempt_id not in self.retried:
            self.candidates[attempt_id] = result
        self.last = result


# One attempt as deciding its case needs it: its id, retry_of, repeat_group and result.
_Seen = tuple[str, str | None, str | None, CaseResult]


Prepare = Callable[[Attempt, Case], Attempt]


def evaluate_attempts(case_set: CaseSet, attempts: Iterable[Attempt],
                      *, attempts_ref: InputRef | None = None,
                      prepare: Prepare | None = None) -> RunResult:
    """Score ``attempts`` against ``case_set``; pure apart from reading the iterable.

    ``prepare``, when given, rewrites each attempt of a known case before it is scored
    (span resolution passes the attempt through the index of the case's revision).
    """
    cases = {case.id: case for case in case_set.cases}
    scorers = {case.id: CaseScorer(case) for case in case_set.cases}
    # Most cases have one attempt: it is kept as it came (``only``) until a second one of
    # its case arrives, and then both go into a _CaseAttempts.
    only: dict[str, _Seen] = {}
    per_case: dict[str, _CaseAttempts] = {}
    unknown_cases: dict[str, int] = {}
    seen_ids: set[str] = set()
    duplicate_ids: list[str] = []
    read = 0
    for attempt in attempts:
        read += 1
        if attempt.attempt_id in seen_ids:
            duplicate_ids.append(attempt.attempt_id)
        seen_ids.add(attempt.attempt_id)
        case = cases.get(attempt.case_id)
        if case is None:
            unknown_cases[attempt.case_id] = unknown_cases.get(attempt.case_id, 0) + 1
            continue
        if prepare is not None:
            attempt = prepare(attempt, case)
        seen: _Seen = (attempt.attempt_id, attempt.retry_of, attempt.repeat_group,
                       scorers[case.id].score(attempt))
        entry = per_case.get(case.id)
        if entry is None:
            first = only.pop(case.id, None)
            if first is None:
                only[case.id] = seen
                continue
            entry = per_case[case.id] = _CaseAttempts(last=first[3])
            entry.add(first)
        entry.add(seen)

    warnings: list[str] = []
    results: list[CaseResult] = []
    for case in case_set.cases:
        entry = per_case.get(case.id)
        if entry is None:
            first = only.get(case.id)
            if first is None:
                results.append(scorers[case.id].missing())
                continue
            if first[1] != first[0]:  # one attempt, not a retry of itself: it is final
                results.append(first[3])
                continue
            entry = _CaseAttempts(last=first[3])
            entry.add(first)
        finals = [a for a in entry.order if a not in entry.retried]
        # Attempts repeated on purpose (one repeat group, `run --repeat`) are all final:
        # the last one is scored without a warning (`codegold flaky` compares them).
        repeated = len(entry.repeat_groups) == 1 and None not in entry.repeat_groups
        if len(finals) != 1 and not (repeated and finals):
            chosen = finals[-1] if finals else entry.order[-1]
            warnings.append(
                f"case {case.id!r}: {len(finals)} attempts are final (none names the other in "
                f"retry_of); scored the last one in file order, {chosen!r}"
            )
        else:
            chosen = finals[-1]
        # A final attempt is never retried, so it is still a candidate; with no final one
        # (a retry cycle) the last attempt in file order is scored, as the warning says.
        picked = entry.candidates.get(chosen, entry.last) if finals else entry.last
        # Most cases have one attempt, whose result already names it: no copy then.
        results.append(picked if picked.attempt_ids == entry.order
                       else msgspec.structs.replace(picked, attempt_ids=entry.order))
    for case_id, count in sorted(unknown_cases.items()):
        warnings.append(f"{count} attempt(s) name unknown case id {case_id!r}; ignored")
    if duplicate_ids:
        shown = ", ".join(repr(a) for a in sorted(set(duplicate_ids))[:5])
        warnings.append(f"{len(duplicate_ids)} duplicate attempt id(s): {shown}")
    # Paths are recorded as given, so the same command line gives the same bytes and
    # `codegold diagnose` can reopen the attempts file from where eval was run.
    inputs = {"cases": InputRef(path=case_set.path, sha256=case_set.sha256)}
    if attempts_ref is not None:
        inputs["attempts"] = attempts_ref
    summary, slices = summarize(results)
    return RunResult(
        format=RESULTS_FORMAT,
        codegold_version=__version__,
        inputs=inputs,
        summary=summary,
        slices=slices,
        cases=results,
        warnings=warnings,
        attempts_read=read,
    )


def evaluate_files(cases_path: str, attempts_path: str, *,
                   prepare: Prepare | None = None,
                   adjust: Callable[[CaseSet], CaseSet] | None = None) -> RunResult:
    """Load a case file and an attempts file and score them (recorded mode).

    ``adjust``, when given, rewrites the loaded cases first (``eval --budget`` judges
    every case at one budget; ``--gold-lines`` adds definition spans from an index)."""
    digest = hashlib.sha256()
    attempts: AttemptsFile | None = None
    unreadable: InputError | None = None
    try:  # opened first: its digest is made on a thread while the cases load
        attempts = AttemptsFile(attempts_path, digest)
    except InputError as err:
        unreadable = err
    try:
        case_set = load_cases(cases_path)  # a bad case file is reported first, as ever
        if unreadable is not None:
            raise unreadable
        assert attempts is not None
        if adjust is not None:
            case_set = adjust(case_set)
        result = evaluate_attempts(case_set, iter(attempts), prepare=prepare)
    finally:
        if attempts is not None:
            attempts.close()
    inputs = {**result.inputs, "attempts": InputRef(path=attempts_path, sha256=digest.hexdigest())}
    return msgspec.structs.replace(result, inputs=inputs)
