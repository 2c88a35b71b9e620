"""The evaluate workflow: recorded attempts scored against gold cases (never runs a
retriever)."""

from __future__ import annotations

from dataclasses import dataclass

from codegold.evaluate import evaluate_files
from codegold.model import CaseSet, RunResult, write_results
from codegold.model.cases import Budget, with_budget


@dataclass(frozen=True)
class EvaluateRequest:
    cases: str
    attempts: str
    resolve: str | None = None  # judge chunks by what their spans hold in this index (set)
    output: str | None = None  # write results.json here
    budget: Budget | None = None  # judge every case at this budget (`--budget lines=N`)
    gold_lines: str | None = None  # symbol targets' gold lines from this index (set)


@dataclass(frozen=True)
class Evaluation:
    """The scored run, and the revisions ``resolve`` had no index for (with how many
    attempts were judged on their reported metadata instead)."""

    result: RunResult
    unresolved: tuple[tuple[str, int], ...] = ()


def evaluate(request: EvaluateRequest) -> Evaluation:
    """Score every attempt; a case is scored on its final attempt. Attempts are redacted
    as they are read, and what the scorer adds (ids, paths, numbers) holds no text from
    outside: the results are not scanned again."""
    unresolved: tuple[tuple[str, int], ...] = ()
    adjust = None
    if request.budget is not None or request.gold_lines is not None:
        def adjust(case_set: CaseSet) -> CaseSet:
            if request.budget is not None:
                case_set = with_budget(case_set, request.budget)
            if request.gold_lines is not None:
                from codegold.labels.goldlines import fill_gold_lines

                case_set = fill_gold_lines(case_set, request.gold_lines)
            return case_set
    if request.resolve is None:
        result = evaluate_files(request.cases, request.attempts, adjust=adjust)
    else:
        # imported here: resolving opens indexes (tree-sitter and all), plain scoring never does
        from codegold.resolve import AttemptResolver

        with AttemptResolver.from_path(request.resolve) as resolver:
            result = evaluate_files(request.cases, request.attempts, adjust=adjust,
                                    prepare=lambda attempt, case: resolver.resolve(
                                        attempt, case.revision))
        unresolved = tuple(sorted(resolver.unresolved.items()))
    if request.output:
        write_results(result, request.output)
    return Evaluation(result=result, unresolved=unresolved)
