"""The evaluate workflow: recorded attempts scored against gold cases (never runs a
retriever)."""

from __future__ import annotations

from dataclasses import dataclass

from codegold.evaluate import evaluate_files
from codegold.model import RunResult, write_results
from codegold.plumbing.secrets import redact_struct


@dataclass(frozen=True)
class EvaluateRequest:
    cases: str
    attempts: str
    resolve: str | None = None  # judge chunks by what their spans hold in this index (set)
    output: str | None = None  # write results.json here


@dataclass(frozen=True)
class Evaluation:
    """The scored run, and the revisions ``resolve`` had no index for (with how many
    attempts were judged on their reported metadata instead)."""

    result: RunResult
    unresolved: tuple[tuple[str, int], ...] = ()


def evaluate(request: EvaluateRequest) -> Evaluation:
    """Score every attempt; a case is scored on its final attempt. Excerpts and errors
    came from outside: secret values are redacted before anything is written."""
    unresolved: tuple[tuple[str, int], ...] = ()
    if request.resolve is None:
        result = evaluate_files(request.cases, request.attempts)
    else:
        # imported here: resolving opens indexes (tree-sitter and all), plain scoring never does
        from codegold.resolve import AttemptResolver

        with AttemptResolver.from_path(request.resolve) as resolver:
            result = evaluate_files(request.cases, request.attempts,
                                    prepare=lambda attempt, case: resolver.resolve(
                                        attempt, case.revision))
        unresolved = tuple(sorted(resolver.unresolved.items()))
    result = redact_struct(result)
    if request.output:
        write_results(result, request.output)
    return Evaluation(result=result, unresolved=unresolved)
