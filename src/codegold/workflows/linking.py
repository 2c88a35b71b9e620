"""The answer-linkage workflow: every answer tied to the retrieval it received, and each
failed answer's class. The caller has guarded the output against overwriting an input."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import msgspec

from codegold.errors import InputError
from codegold.evaluate.answers import AnswerResults, link_answers
from codegold.model import InputRef, iter_attempts, load_cases
from codegold.model.answers import iter_answers
from codegold.plumbing.outputs import write_text_atomic


@dataclass(frozen=True)
class LinkRequest:
    cases: str
    attempts: str
    answers: str  # one JSON answer per line (docs/answers.md)
    output: str | None = None  # write the answer results (JSON) here


def link(request: LinkRequest) -> AnswerResults:
    """Link and classify every answer; write the answer results when asked."""
    case_set = load_cases(request.cases)
    digest = hashlib.sha256()
    result = link_answers(
        case_set, iter_attempts(request.attempts, digest=digest), iter_answers(request.answers),
        inputs={"cases": InputRef(path=request.cases, sha256=case_set.sha256),
                "attempts": InputRef(path=request.attempts, sha256=digest.hexdigest())})
    if result.summary.answers == 0:
        raise InputError("the answers file holds no answer; expected one JSON answer per line "
                         "(see docs/answers.md)", path=request.answers)
    if request.output:
        write_text_atomic(request.output, answer_results_json(result).decode())
    return result


def answer_results_json(result: AnswerResults) -> bytes:
    """The answer results as indented JSON with a final newline (the file -o writes)."""
    return msgspec.json.format(msgspec.json.encode(result), indent=2) + b"\n"
