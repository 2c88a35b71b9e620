"""The diagnose workflow: the first broken boundary of each failing case, and its owner."""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from codegold.diagnose import (
    DiagnosisSet,
    IndexView,
    RepoView,
    diagnose_run,
    load_owners,
    write_diagnosis_dir,
)
from codegold.errors import InputError
from codegold.index.catalog import IndexSet
from codegold.index.store import IndexReader
from codegold.model import RunResult, iter_attempts, load_results


@dataclass(frozen=True)
class DiagnoseRequest:
    results: str | RunResult  # a results.json path, or a run scored in this process
    index: str | None = None  # an index directory or a folder of them
    indexes: Mapping[str, Path] | None = None  # or: revision -> index folder
    owners: str | None = None
    attempts: str | None = None  # default: the path recorded in the results
    repo: str | Path | None = None  # checks labels at the case revision
    output: str | Path | None = None  # write diagnoses.json, summary.md and bundles/ here
    results_name: str = "results.json"


@dataclass(frozen=True)
class Diagnosis:
    summary: DiagnosisSet
    bundles: int  # evidence bundles (one per diagnosed failure)


def diagnose(request: DiagnoseRequest) -> Diagnosis:
    """Diagnose every case that did not pass, each against its own revision's index."""
    run = (load_results(request.results) if isinstance(request.results, str)
           else request.results)
    if request.attempts is not None:
        check_same_run(run, request.attempts)
    owners = load_owners(request.owners) if request.owners else None
    repo = RepoView(request.repo) if request.repo else None
    folders: Mapping[str, Path] = request.indexes or (
        IndexSet.from_path(request.index).by_revision if request.index else {})
    index_name = request.index if request.indexes is None else (
        ", ".join(str(p) for p in request.indexes.values()) or None)
    with contextlib.ExitStack() as stack:
        indexes: dict[str, IndexView] = {
            revision: stack.enter_context(IndexReader.open(path))
            for revision, path in folders.items()}
        summary, diagnosed = diagnose_run(run, indexes=indexes, repo=repo,
                                          attempts_path=request.attempts, owners=owners,
                                          results_name=request.results_name,
                                          index_name=index_name)
    if request.output:
        write_diagnosis_dir(summary, diagnosed, request.output)
    return Diagnosis(summary=summary, bundles=len(diagnosed))


def check_same_run(run: RunResult, attempts_path: str) -> None:
    """Refuse an attempts file that lacks an attempt the results scored.

    Diagnosis joins results to attempts by attempt id; another run's file would match
    none of them and quietly turn every candidate-based cause into "not recorded".
    """
    wanted = {c.attempt_id: c.case_id for c in run.cases if c.status != "pass" and c.attempt_id}
    found: set[str] = set()
    runs: set[str] = set()
    for attempt in iter_attempts(attempts_path):
        runs.add(attempt.run_id or "?")
        if attempt.attempt_id in wanted:
            found.add(attempt.attempt_id)
    missing = sorted(set(wanted) - found)
    if missing:
        first = missing[0]
        raise InputError(
            f"holds no attempt {first!r} (case {wanted[first]!r}), which the results scored, "
            f"nor {len(missing) - 1} other(s); it is from another run (run ids found: "
            f"{', '.join(sorted(runs)[:3]) or 'none'}): pass the attempts file `codegold eval` "
            "scored", path=attempts_path)
