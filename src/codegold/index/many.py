"""Index many revisions of one repository into one folder, sharing a chunk store.

Each revision gets its own complete index at ``FOLDER/<commit sha>`` (what
:class:`codegold.index.catalog.IndexSet` reads); the chunk store (default
``FOLDER/.chunkstore``) makes every build after the first parse only the blobs that
changed. Revisions that already have a complete index there are skipped.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from codegold.errors import InputError
from codegold.index.build import BuildProgress, build_index
from codegold.index.catalog import IndexSet
from codegold.index.chunkstore import ChunkStore, default_store
from codegold.index.gitsnap import GitSnapshot
from codegold.index.policy import PathPolicy
from codegold.model import Manifest


@dataclass(frozen=True)
class ManyProgress:
    """Where a many-revision build stands: ``done`` of ``total`` revisions finished,
    ``revision`` is the one being built (``build`` its own progress), or skipped."""

    revision: str
    done: int
    total: int
    build: BuildProgress | None = None
    skipped: bool = False


ManyProgressFn = Callable[[ManyProgress], None]
_MAX_REVISIONS_FILE = 4 * 1024 * 1024


@dataclass(frozen=True)
class ManyResult:
    """What :func:`build_many` did: manifests of the indexes it built, the commits it
    skipped (already indexed), the store used, and how many files the builds parsed and
    took from the store."""

    built: tuple[Manifest, ...]
    skipped: tuple[str, ...]
    store: Path | None
    parsed: int
    reused: int


def read_revisions(spec: str) -> list[str]:
    """Revisions from ``--revisions``: a file (one per line, ``#`` comments) when one
    exists at ``spec``, else a comma-separated list."""
    path = Path(spec)
    if path.is_file():
        try:
            with path.open("rb") as handle:
                raw = handle.read(_MAX_REVISIONS_FILE + 1)
            if len(raw) > _MAX_REVISIONS_FILE:
                raise InputError(f"the revisions file is over {_MAX_REVISIONS_FILE} bytes; "
                                 "expected one revision per line", path=spec)
            text = raw.decode("utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise InputError(f"cannot read the revisions file: {err}; expected one revision "
                             "per line", path=spec) from err
        items = [line.split("#", 1)[0].strip() for line in text.splitlines()]
    else:
        items = [part.strip() for part in spec.split(",")]
    found = list(dict.fromkeys(item for item in items if item))
    if not found:
        raise InputError("--revisions names no revision: expected a file with one revision "
                         "per line or a list like v1.0,v1.1", path=spec)
    return found


def build_many(repo: str | Path, folder: str | Path, revisions: Sequence[str], *,
               store: str | Path | None = None, use_store: bool = True,
               policy: PathPolicy | None = None, repository: str | None = None,
               pinned_by: Mapping[str, str] | None = None,
               progress: ManyProgressFn | None = None) -> ManyResult:
    """Index ``repo`` at each of ``revisions`` into ``folder/<commit sha>``.

    Revisions are branch, tag or commit names, resolved to commits; ones with a complete
    index in ``folder`` are skipped. ``pinned_by`` maps revisions that cases pin to the
    first such case id: those must name commits exactly (an annotated tag's object id is
    refused with that case id). ``store`` is the chunk store folder (default
    ``folder/.chunkstore``; ``use_store=False`` builds each from scratch). Raises
    InputError for bad arguments, CodeIndexError when git fails.
    """
    root = Path(folder)
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise InputError(f"cannot create the index folder: {err.strerror}",
                         path=str(root)) from err
    try:
        have = dict(IndexSet.from_path(root).by_revision)
    except InputError:  # nothing complete there yet
        have = {}
    pinned = pinned_by or {}
    commits: list[str] = []
    for revision in revisions:
        # A full sha already indexed needs no git call.
        commit = revision if revision in have else GitSnapshot.open(repo, revision).revision
        if revision in pinned and commit != revision:
            # e.g. `git rev-parse TAG` of an annotated tag: the tag object's id, not a
            # commit. Indexing it would leave every case pinned to it silently invalid.
            raise InputError(f"revision {revision} is not a commit but names commit {commit} "
                             "(an annotated tag's object id?); pin the commit itself, e.g. "
                             "`git rev-parse 'TAG^{commit}'`", case_id=pinned[revision],
                             field="revision")
        if commit not in commits:
            commits.append(commit)
    chunks = ChunkStore.open(store if store is not None else default_store(root)) \
        if use_store and any(commit not in have for commit in commits) else None
    built: list[Manifest] = []
    skipped: list[str] = []
    total = len(commits)
    counts = [0, 0]  # parsed, reused
    for done, commit in enumerate(commits):
        if commit in have:
            skipped.append(commit)
            if progress is not None:
                progress(ManyProgress(commit, done + 1, total, skipped=True))
            continue

        def report(event: BuildProgress, commit: str = commit, done: int = done) -> None:
            if event.stage == "done":
                counts[0] += event.parsed
                counts[1] += event.reused
            if progress is not None:
                progress(ManyProgress(commit, done + (event.stage == "done"), total, event))

        built.append(build_index(repo, commit, root / commit, policy=policy,
                                 repository=repository, store=chunks, progress=report))
    return ManyResult(built=tuple(built), skipped=tuple(skipped),
                      store=chunks.root if chunks else None,
                      parsed=counts[0], reused=counts[1])


__all__ = ["ManyProgress", "ManyProgressFn", "ManyResult", "build_many", "read_revisions"]
