"""The cases-check workflow: every label checked against the index of its pinned
revision, before any run."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from codegold.curate.check import CheckReport, explain_revision_error
from codegold.curate.check import check_cases as _check_cases
from codegold.errors import InputError
from codegold.index.catalog import IndexSet
from codegold.labels import RepoView
from codegold.model import load_cases
from codegold.workflows.indexing import index_case_revisions
from codegold.workflows.progress import ManyProgressFn


@dataclass(frozen=True)
class CheckRequest:
    cases: str
    index: str | None  # an index directory or a folder of them (required: checked in order)
    repo: str | None = None  # build each case revision's missing index into ``index`` first


def check_cases(request: CheckRequest, *,
                index_progress: ManyProgressFn | None = None) -> CheckReport:
    """The findings of every label check (and duplicate checks) on ``request.cases``."""
    view = RepoView.checked(request.repo) if request.repo is not None else None
    try:
        case_set = load_cases(request.cases)
    except InputError as err:
        if view is None:
            raise
        raise explain_revision_error(err, view) from None
    if request.index is None:
        raise InputError("cases check needs {index} (an index directory or a folder of them)",
                         settings=("index",))
    if view is not None:
        # a revision the repository lacks is a finding of the check, not a build failure
        known = {rev for rev in {c.revision for c in case_set.cases} if view.has_commit(rev)}
        # none known: let the build say what is wrong with the repository itself
        index_case_revisions(view.path, Path(request.index),
                             [c for c in case_set.cases if c.revision in known or not known],
                             progress=index_progress)
    return _check_cases(case_set.cases, IndexSet.from_path(request.index), repo=view)
