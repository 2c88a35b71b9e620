"""The repeated-runs workflow: cases whose repeated attempts disagree inside the cutoff,
each with the likely source."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from codegold.errors import InputError
from codegold.evaluate.flaky import FlakyReport, find_flaky
from codegold.model import Attempt, iter_attempts, load_cases


@dataclass(frozen=True)
class FlakyRequest:
    cases: str
    attempts: str  # the attempts of a `run --repeat N` (or of several runs)


def flaky_cases(request: FlakyRequest) -> FlakyReport:
    """Compare the attempts per repeat group (or per case); an attempts file with no
    attempt is refused."""
    case_set = load_cases(request.cases)
    read = 0

    def counted() -> Iterator[Attempt]:
        nonlocal read
        for attempt in iter_attempts(request.attempts):
            read += 1
            yield attempt

    report = find_flaky(case_set, counted())
    if read == 0:
        raise InputError("the attempts file holds no attempt; expected the JSONL a "
                         "`codegold run --repeat N` wrote", path=request.attempts)
    return report
