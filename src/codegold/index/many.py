"""Index many revisions of one repository into one folder, sharing a chunk store.

Each revision gets its own complete index at ``FOLDER/<commit sha>`` (what
:class:`codegold.index.catalog.IndexSet` reads); the chunk store (default
``FOLDER/.chunkstore``) makes every build after the first parse only the blobs that
changed. Revisions that already have a complete index there are skipped.

With an executor that runs elsewhere (``--executor ray``), each revision is one job:
the worker builds it in its own scratch folder (sharing the chunk store when it can
reach it) and returns the index's files; this process installs them, atomically, as
``FOLDER/<commit sha>``.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codegold.errors import CodeIndexError, InputError
from codegold.execute import Executor
from codegold.index.build import BuildProgress, build_index, repository_name
from codegold.index.catalog import IndexSet, manifest_or_none
from codegold.index.chunkstore import ChunkStore, default_store
from codegold.index.clones import clone_for
from codegold.index.gitsnap import PLAIN_NAME, GitObjects, GitSnapshot, refuse_ambiguous
from codegold.index.outdir import (
    build_lock,
    check_output,
    check_outside_git_dir,
    remove_stale_temps,
    temp_name,
)
from codegold.index.policy import PathPolicy
from codegold.index.store import INDEX_FILE, MANIFEST_FILE
from codegold.model import Manifest
from codegold.plumbing.git import END_OF_OPTIONS, git, is_full_sha, looks_like_option
from codegold.plumbing.outputs import swap_folder


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
_COMMENT = re.compile(r"(?:^|\s)#.*")


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
    skipped_dirs: tuple[Path, ...] = ()  # the index folder of each skipped commit


def _is_file(spec: str) -> bool:
    """Whether a regular file exists at ``spec``: a list of revisions longer than a file
    name may be (``File name too long``) or not a path at all is no file."""
    try:
        return Path(spec).is_file()
    except (OSError, ValueError):
        return False


def read_revisions(spec: str) -> list[str]:
    """Revisions from ``--revisions``: a file (one per line, ``#`` comments) when one
    exists at ``spec``, else a comma-separated list of any length. An item may be a range
    ``A..B`` (see :func:`expand_revisions`)."""
    path = Path(spec)
    if _is_file(spec):
        try:
            with path.open("rb") as handle:
                raw = handle.read(_MAX_REVISIONS_FILE + 1)
            if len(raw) > _MAX_REVISIONS_FILE:
                raise InputError(f"the revisions file is over {_MAX_REVISIONS_FILE} bytes; "
                                 "expected one revision per line", path=spec)
            # (an editor's byte order mark is no part of the first revision's name)
            text = raw.decode("utf-8-sig")
        except (OSError, UnicodeDecodeError) as err:
            raise InputError(f"cannot read the revisions file: {err}; expected one revision "
                             "per line", path=spec) from err
        # a comment starts a line or follows white space: git allows ``#`` in a branch
        # name (``fix#12``), which is not cut to another branch's name (``fix``)
        items = [_COMMENT.sub("", line).strip() for line in text.splitlines()]
    else:
        items = [part.strip() for part in spec.split(",")]
    found = list(dict.fromkeys(item for item in items if item))
    if not found:
        raise InputError("{revisions} names no revision: expected a file with one revision "
                         "per line or a list like v1.0,v1.1", path=spec, settings=("revisions",))
    return found


def refuse_file_and_revision(repo: str | Path, spec: str) -> None:
    """An InputError when ``spec`` (``--revisions``) names both a file here and a revision
    of ``repo``: it would be read as the file's list of revisions, which is not what a
    user naming the branch meant. ``./NAME`` names the file, ``NAME,`` the revision."""
    if not _is_file(spec) or not PLAIN_NAME.fullmatch(spec) or ".." in spec:
        return
    found = git(["rev-parse", "--verify", "--quiet", END_OF_OPTIONS, f"{spec}^{{commit}}"],
                repo=repo, check=False)
    if found.ok and is_full_sha(found.text.strip()):
        raise InputError(f"{{revisions}} {spec!r} names both a file here and a revision of "
                         f"the repository; write ./{spec} for the file of revisions, or "
                         f"{spec}, (a list of one) for the revision", path=spec,
                         settings=("revisions",))


# A range of more commits than this is refused: far more indexes than a suite needs.
MAX_RANGE_COMMITS = 100_000


def expand_revisions(repo: str | Path, items: Sequence[str]) -> list[str]:
    """``items`` with each range ``A..B`` replaced by the commits ``git rev-list A..B``
    names (reachable from B, not from A, as git reads a range), parents before children,
    so each revision is built after the one it most likely shares most files with."""
    found: list[str] = []
    for item in items:
        start, dots, end = item.partition("..")
        if not dots or end.startswith("."):  # A...B (symmetric difference) is no range here
            found.append(item)
            continue
        if not start or not end or looks_like_option(start) or looks_like_option(end):
            raise InputError(f"revision range {item!r}: expected A..B with both ends named "
                             "(say v1.0..v1.1)", settings=("revisions",))
        done = git(["rev-list", "--reverse", "--topo-order", END_OF_OPTIONS,
                    f"{start}^{{commit}}..{end}^{{commit}}"], repo=repo, check=False)
        try:
            if done.ok:
                refuse_ambiguous(Path(repo), [start, end])  # (git took a tag quietly)
            else:  # each end on its own: an unknown one is named, not in git's words
                for name in (start, end):
                    GitSnapshot.open(repo, name)
        except InputError as err:
            raise InputError(f"revision range {item!r}: {err.message}", path=err.path,
                             settings=err.settings) from err
        if not done.ok:
            raise InputError(f"revision range {item!r}: git cannot read it "
                             f"({done.stderr.strip()[:200]}); check both ends with "
                             "'git log'", path=str(repo), settings=("revisions",))
        commits = done.text.split()
        if len(commits) > MAX_RANGE_COMMITS:
            raise InputError(f"revision range {item!r} holds {len(commits)} commits, over "
                             f"{MAX_RANGE_COMMITS}; name a shorter range",
                             settings=("revisions",))
        if not commits:
            raise InputError(f"revision range {item!r} holds no commit ({end} is reachable "
                             f"from {start}); expected OLDER..NEWER", settings=("revisions",))
        found.extend(commits)
    return list(dict.fromkeys(found))


@dataclass(frozen=True)
class CaseSource:
    """Revisions to build from one clone: ``repo``, the repository name for their
    manifests (None: from the clone), each revision cases pin with the first case that
    pins it, or (``--revisions``) revisions named in the order given."""

    repo: Path
    repository: str | None
    pinned: dict[str, str]
    named: tuple[str, ...] = ()

    @property
    def revisions(self) -> list[str]:
        return list(self.named) if self.named else sorted(self.pinned)


def case_sources(repo: str | Path, cases: Sequence[Any]) -> list[CaseSource]:
    """The clones that hold ``cases``' revisions: when ``repo`` is a folder of clones,
    each case's repository's clone in it (:func:`clone_for`); any case whose repository
    has none there (or that names none) is built from ``repo`` itself. So one folder of
    clones indexes a suite that spans many repositories, and a single clone still
    indexes a suite of its own."""
    groups: dict[tuple[Path, str | None], dict[str, str]] = {}
    found: dict[str, Path | None] = {}
    for case in cases:
        name = getattr(case, "repository", None)
        clone = None
        if name:
            if name not in found:
                found[name] = clone_for(repo, name)
            clone = found[name]
        key = (clone, name) if clone is not None else (Path(repo), None)
        groups.setdefault(key, {}).setdefault(case.revision, case.id)
    return [CaseSource(clone, name, pinned) for (clone, name), pinned in groups.items()]


def build_many(repo: str | Path, folder: str | Path, revisions: Sequence[str], *,
               store: str | Path | None = None, use_store: bool = True,
               policy: PathPolicy | None = None, repository: str | None = None,
               pinned_by: Mapping[str, str] | None = None,
               progress: ManyProgressFn | None = None,
               executor: Executor | None = None) -> ManyResult:
    """Index ``repo`` at each of ``revisions`` into ``folder/<commit sha>``.

    Revisions are branch, tag or commit names, resolved to commits; ones with a complete
    index in ``folder`` are skipped. ``pinned_by`` maps revisions that cases pin to the
    first such case id: those must name commits exactly (an annotated tag's object id is
    refused with that case id). ``store`` is the chunk store folder (default
    ``folder/.chunkstore``; ``use_store=False`` builds each from scratch). An
    ``executor`` that does not run in this process builds each revision as one job
    (progress then moves a revision at a time). Raises InputError for bad arguments,
    CodeIndexError when git fails.
    """
    root = Path(folder)
    # before anything is made there: the folder (or the chunk store) inside .git/
    check_outside_git_dir(root, Path(repo))
    if store is not None and use_store:
        check_outside_git_dir(Path(store), Path(repo), what="chunk store", option="--store")
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise InputError(f"cannot create the index folder: {err.strerror}",
                         path=str(root)) from err
    try:
        have = dict(IndexSet.from_path(root).by_revision)
    except InputError:  # nothing complete there yet
        have = {}
    if policy is not None:  # (without one, an index there of any policy will do)
        have = _same_policy(root, have, policy)
    pinned = pinned_by or {}
    commits: list[str] = []
    repo_dir: Path | None = None  # the repository as git found it, for check_output
    resolved = _resolve_all(repo, [revision for revision in revisions if revision not in have])
    for revision in revisions:
        # A full sha already indexed needs no git call.
        if revision in have:
            commit = revision
        elif revision in resolved:
            commit, repo_dir = resolved[revision], Path(repo)
        else:  # its own call, for the error that names what is wrong
            try:
                snapshot = GitSnapshot.open(repo, revision)
            except InputError as err:
                if revision not in pinned or err.case_id is not None \
                        or repr(revision) not in err.message:  # (the repository's own)
                    raise
                # (which of a suite's cases pins it: a tree's or a blob's id, an unfetched
                # commit)
                raise InputError(err.message, path=err.path, case_id=pinned[revision],
                                 field="revision", settings=err.settings) from err
            commit, repo_dir = snapshot.revision, snapshot.repo
        if revision in pinned and commit != revision:
            # e.g. `git rev-parse TAG` of an annotated tag: the tag object's id, not a
            # commit. Indexing it would leave every case pinned to it silently invalid.
            raise InputError(f"revision {revision} is not a commit but names commit {commit} "
                             "(an annotated tag's object id?); pin the commit itself, e.g. "
                             "`git rev-parse 'TAG^{commit}'`", case_id=pinned[revision],
                             field="revision")
        if commit not in commits:
            commits.append(commit)
    _refuse_misnamed(root, have, [commit for commit in commits if commit not in have])
    chunks = ChunkStore.open(store if store is not None else default_store(root)) \
        if use_store and any(commit not in have for commit in commits) else None
    if executor is not None and not executor.in_process:
        return _build_elsewhere(executor, repo, repo_dir, root, commits, have, chunks,
                                policy, repository, progress)
    built: list[Manifest] = []
    skipped: list[str] = []
    total = len(commits)
    counts = [0, 0]  # parsed, reused
    # Every commit to build was named by git above: one set of git processes serves them.
    with GitObjects(Path(repo)) as objects:
        if repository is None and any(commit not in have for commit in commits):
            # the same for every revision (the clone's remote or folder): asked of git once
            repository = repository_name(GitSnapshot.resolved(
                objects, next(commit for commit in commits if commit not in have)))
        for done, commit in enumerate(commits):
            if commit in have:
                skipped.append(commit)
                if progress is not None:
                    progress(ManyProgress(commit, done + 1, total, skipped=True))
                continue
            built.append(_build_one(repo, root, commit, done, total, counts, progress,
                                    policy=policy, repository=repository, store=chunks,
                                    snapshot=GitSnapshot.resolved(objects, commit)))
    return ManyResult(built=tuple(built), skipped=tuple(skipped),
                      store=chunks.root if chunks else None,
                      parsed=counts[0], reused=counts[1],
                      skipped_dirs=tuple(have[commit] for commit in skipped))


def _refuse_misnamed(root: Path, have: Mapping[str, Path], building: Sequence[str]) -> None:
    """An InputError, before anything is built, when the folder a revision is to be built
    in holds another revision's index (a folder renamed by hand): building there would
    replace the index of a revision this run counts as already there."""
    held = {folder.resolve(): commit for commit, folder in have.items()}
    for commit in building:
        other = held.get((root / commit).resolve())
        if other is not None and other != commit:
            raise InputError(f"{commit} holds the index of revision {other}, not of {commit}; "
                             f"move it to {other} (each index's folder is named by its "
                             "commit)", path=str(root / commit))


def _same_policy(root: Path, have: Mapping[str, Path], policy: PathPolicy) -> dict[str, Path]:
    """The indexes of ``have`` built with ``policy``: one built with another (a rerun
    with a changed ``--policy``) is built again in its place, as a single build would,
    not kept as done with what the old policy let in or left out."""
    kept: dict[str, Path] = {}
    for commit, folder in have.items():
        manifest = manifest_or_none(folder)
        found = manifest.path_policy.hash if manifest and manifest.path_policy else None
        if found == policy.hash:
            kept[commit] = folder
        elif folder.resolve() != (root / commit).resolve():
            raise InputError(f"the index of {commit} here was built with another path policy "
                             f"({found}, not {policy.hash}) and sits at another name than "
                             f"{commit}; remove it, or build into another folder",
                             path=str(folder))
    return kept


def _build_one(repo: str | Path, root: Path, commit: str, done: int, total: int,
               counts: list[int], progress: ManyProgressFn | None, *,
               policy: PathPolicy | None, repository: str | None, store: ChunkStore | None,
               snapshot: GitSnapshot) -> Manifest:

    def report(event: BuildProgress) -> None:
        if event.stage == "done":
            counts[0] += event.parsed
            counts[1] += event.reused
        if progress is not None:
            progress(ManyProgress(commit, done + (event.stage == "done"), total, event))

    return build_index(repo, commit, root / commit, policy=policy, repository=repository,
                       store=store, progress=report, snapshot=snapshot)


# Revision names resolved per git call (a command line holds a few thousand of them).
_RESOLVE_BATCH = 1000


def _resolve_all(repo: str | Path, revisions: Sequence[str]) -> dict[str, str]:
    """The commit of each plain revision name in one git call (a history of hundreds
    would otherwise pay a call or two each); empty when any is unknown or git says
    anything unexpected, and the caller then resolves each on its own."""
    names = [name for name in dict.fromkeys(revisions)
             if PLAIN_NAME.fullmatch(name) and ".." not in name and not name.endswith(".")]
    if len(names) < 2:
        return {}
    try:
        GitSnapshot.open(repo, names[0])  # the repository checks, worded
    except InputError:
        return {}  # each is opened on its own, its error with the case that pins it
    found: list[str] = []
    # In batches: tens of thousands of names in one call outgrow the command line.
    for at in range(0, len(names), _RESOLVE_BATCH):
        batch = names[at:at + _RESOLVE_BATCH]
        try:
            # No --end-of-options: git before 2.43 echoes it among the shas (and every
            # name here starts with a letter, digit or underscore, so none reads as an
            # option).
            done = git(["rev-parse", *(f"{name}^{{commit}}" for name in batch)],
                       repo=repo, check=False)
        except (CodeIndexError, InputError):
            return {}
        shas = done.text.split()
        if not done.ok or len(shas) != len(batch) or not all(map(is_full_sha, shas)):
            return {}
        found.extend(shas)
    refuse_ambiguous(Path(repo), names)
    return dict(zip(names, found, strict=True))


@dataclass(frozen=True)
class RevisionJob:
    """One revision to build on a worker (picklable: paths as text)."""

    repo: str
    commit: str
    policy: PathPolicy | None
    repository: str | None
    store: str | None
    # The driver's SOURCE_DATE_EPOCH: a remote worker's environment may not carry it.
    source_date_epoch: str | None


@dataclass(frozen=True)
class BuiltRevision:
    """What a worker returns for a :class:`RevisionJob`: the manifest and the bytes of
    each file of the finished index, and how many files it parsed and took from the store."""

    commit: str
    manifest: Manifest
    files: tuple[tuple[str, bytes], ...]
    parsed: int
    reused: int


def build_revision(job: RevisionJob) -> BuiltRevision:
    """Build ``job``'s revision in a scratch folder of this (worker) process and return
    its files; writes nothing else but chunk store entries."""
    counts = [0, 0]

    def report(event: BuildProgress) -> None:
        if event.stage == "done":
            counts[0], counts[1] = event.parsed, event.reused

    if not Path(job.repo).is_dir():
        raise InputError(f"the repository is not there on the worker {socket.gethostname()}; "
                         "with a Ray cluster every node needs it at the same path (or a "
                         "filesystem all nodes mount)", path=job.repo)
    # A store the worker cannot see (another node, no shared filesystem) only costs the
    # reuse: the index is the same without it.
    store = ChunkStore.open(job.store) if job.store is not None and \
        Path(job.store).parent.is_dir() else None
    saved = os.environ.get("SOURCE_DATE_EPOCH")
    scratch = Path(tempfile.mkdtemp(prefix="codegold-build-"))
    try:
        _set_env("SOURCE_DATE_EPOCH", job.source_date_epoch)
        out = scratch / job.commit
        manifest = build_index(job.repo, job.commit, out, policy=job.policy,
                               repository=job.repository, store=store, progress=report)
        files = tuple((name, (out / name).read_bytes()) for name in (MANIFEST_FILE, INDEX_FILE))
    finally:
        _set_env("SOURCE_DATE_EPOCH", saved)
        shutil.rmtree(scratch, ignore_errors=True)
    return BuiltRevision(job.commit, manifest, files, counts[0], counts[1])


def _set_env(name: str, value: str | None) -> None:
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = value


def install_revision(root: Path, built: BuiltRevision, repo_dir: Path) -> None:
    """Write a worker's index files as ``root/<commit>``: into a temporary sibling, then
    renamed into place under the build lock, so readers see no index or a whole one."""
    out = check_output(root / built.commit, repo_dir)
    with build_lock(out):
        remove_stale_temps(out)
        out = check_output(root / built.commit, repo_dir)
        tmp = temp_name(out, "tmp")
        try:
            tmp.mkdir()
            for name, data in built.files:
                (tmp / name).write_bytes(data)
            # an incomplete index or an empty folder at ``out`` is swapped out
            swap_folder(tmp, out, aside=temp_name(out, "old"))
        except OSError as err:
            shutil.rmtree(tmp, ignore_errors=True)
            raise InputError(f"cannot install the index built for {built.commit}: "
                             f"{err.strerror}", path=str(out)) from err
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise


def _build_elsewhere(executor: Executor, repo: str | Path, repo_dir: Path | None, root: Path,
                     commits: Sequence[str], have: Mapping[str, Path],
                     chunks: ChunkStore | None, policy: PathPolicy | None,
                     repository: str | None, progress: ManyProgressFn | None) -> ManyResult:
    total = len(commits)
    skipped = [commit for commit in commits if commit in have]
    for done, commit in enumerate(skipped):
        if progress is not None:
            progress(ManyProgress(commit, done + 1, total, skipped=True))
    # Workers get absolute paths: their working folder is not ours.
    jobs = [RevisionJob(str(Path(repo).resolve()), commit, policy, repository,
                        str(chunks.root.resolve()) if chunks else None,
                        os.environ.get("SOURCE_DATE_EPOCH"))
            for commit in commits if commit not in have]
    finished: dict[str, Manifest] = {}
    counts = [0, 0]
    for _, built in executor.map(build_revision, jobs):
        install_revision(root, built, repo_dir or Path(repo))
        finished[built.commit] = built.manifest
        counts[0] += built.parsed
        counts[1] += built.reused
        if progress is not None:
            progress(ManyProgress(built.commit, len(skipped) + len(finished), total))
    return ManyResult(built=tuple(finished[job.commit] for job in jobs),
                      skipped=tuple(skipped), store=chunks.root if chunks else None,
                      parsed=counts[0], reused=counts[1],
                      skipped_dirs=tuple(have[commit] for commit in skipped))


__all__ = ["BuiltRevision", "ManyProgress", "ManyProgressFn", "ManyResult", "RevisionJob",
           "build_many", "build_revision", "expand_revisions", "install_revision",
           "read_revisions", "refuse_file_and_revision"]
