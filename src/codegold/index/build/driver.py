"""The build driver: ``build_index`` checks its arguments, takes the output's lock, builds
into a temporary sibling (plan, copy or chunk every file, stamp) and swaps it into place."""

from __future__ import annotations

import contextlib
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from codegold.errors import InputError
from codegold.index.build.batching import one_blob, parse, start_pool, workers_for
from codegold.index.build.chunking import chunk_blob
from codegold.index.build.naming import repository_name
from codegold.index.build.plan import plan_build
from codegold.index.build.reuse import (
    carry_caches,
    previous_blobs,
    record_macs,
    recorded_macs,
    reuse_key,
)
from codegold.index.build.stamps import created_at as stamp_time
from codegold.index.build.stamps import stamp, write_manifest
from codegold.index.chunkstore import ChunkStore, encode_stored
from codegold.index.gitsnap import GitSnapshot
from codegold.index.grammars import compile_queries
from codegold.index.outdir import (
    build_lock,
    check_output,
    prepare_parent,
    remove_stale_temps,
    temp_name,
)
from codegold.index.policy import PathPolicy
from codegold.index.store import INDEX_FILE, MANIFEST_FILE, IndexWriter
from codegold.model import Manifest
from codegold.model.languages import language_of
from codegold.plumbing.outputs import swap_folder


@dataclass(frozen=True)
class BuildProgress:
    """A progress report; ``stage`` is ``listing``, ``chunking`` or ``done``."""

    stage: str
    files_done: int
    files_total: int
    chunks: int
    parsed: int
    reused: int
    elapsed_s: float


ProgressFn = Callable[[BuildProgress], None]
_PROGRESS_INTERVAL_S = 0.5


def build_index(repo: str | Path, revision: str, out_dir: str | Path, *,
                policy: PathPolicy | None = None, progress: ProgressFn | None = None,
                reuse_from: Path | None = None, repository: str | None = None,
                store: ChunkStore | None = None, jobs: int | None = None) -> Manifest:
    """Index ``repo`` at ``revision`` into ``out_dir`` and return the manifest written.

    ``reuse_from`` names a previous index whose rows are copied for unchanged blobs; when
    it is None and ``out_dir`` already holds a complete index, that one is reused.
    ``repository`` overrides the repository name derived from the origin remote.
    ``store`` is a chunk store read before parsing a file and filled with what was parsed;
    the index written (and its build id) is the same with or without it.
    ``jobs`` is how many worker processes chunk files (1: none, the build runs in this
    process; None: one per CPU, up to 8, when there are enough files to repay starting
    them and this process runs no other thread); the index written is the same for every
    value.
    Raises InputError for bad arguments or repositories, CodeIndexError when git fails.
    """
    started = time.perf_counter()
    if jobs is not None and jobs < 1:
        raise InputError(f"jobs is {jobs}; expected 1 or more worker processes")
    policy = policy or PathPolicy()
    created_at = stamp_time()
    snapshot = GitSnapshot.open(repo, revision)
    identity = repository or repository_name(snapshot)
    shown = Path(out_dir)
    out = check_output(shown, snapshot.repo)
    if store is not None:
        check_store_apart(store.root, out)
    prepare_parent(out, shown)
    with build_lock(out):
        remove_stale_temps(out)
        # Checked again under the lock: another build may have finished meanwhile.
        out = check_output(shown, snapshot.repo)
        return _build_locked(snapshot, identity, out, policy, progress, reuse_from,
                             created_at, started, store, jobs)


def check_store_apart(store: Path, out: Path) -> None:
    """The store and the index must not hold each other: replacing the index would take
    the store with it, and the store's files would make the index folder unusable."""
    store_real, out_real = store.resolve(), out.resolve()
    if store_real == out_real or out_real in store_real.parents or \
            store_real in out_real.parents:
        raise InputError("{store} and the index directory overlap: keep the chunk store "
                         "outside the index (e.g. beside it), and the index outside the store",
                         path=str(store), settings=("store",))


def _build_locked(snapshot: GitSnapshot, identity: str, out: Path, policy: PathPolicy,
                  progress: ProgressFn | None, reuse_from: Path | None, created_at: str,
                  started: float, store: ChunkStore | None = None,
                  jobs: int | None = None) -> Manifest:
    explicit = reuse_from is not None
    reuse_source = reuse_from if reuse_from is not None else (
        out if (out / MANIFEST_FILE).exists() else None)
    previous = previous_blobs(Path(reuse_source), explicit, policy.secrets) \
        if reuse_source else None
    tmp = temp_name(out, "tmp")
    try:
        tmp.mkdir()
    except OSError as err:
        raise InputError(f"cannot create a build directory beside the output: {err.strerror}",
                         path=str(out.parent)) from err
    writer: IndexWriter | None = None
    key = reuse_key()
    try:
        if previous:
            # Start from a private copy of the previous index and drop what changed:
            # unchanged files then cost nothing but the file copy (and keep the digests
            # they were verified by).
            shutil.copyfile(Path(reuse_source or "") / INDEX_FILE, tmp / INDEX_FILE)
            writer = IndexWriter(tmp / INDEX_FILE, fresh=False, mac_key=key,
                                 kept_macs=recorded_macs(Path(reuse_source or "")))
        else:
            writer = IndexWriter(tmp / INDEX_FILE, mac_key=key)
        manifest = _build_into(writer, snapshot, identity, policy, previous, progress, started,
                               created_at, store, jobs)
        macs = writer.file_macs(key) if key is not None else None
        writer.finish()
        writer = None
        if macs is not None:
            record_macs(tmp, macs)
        write_manifest(tmp / MANIFEST_FILE, manifest)
        carry_caches(out, tmp, manifest.index_build_id)
        _replace_dir(tmp, out)
    except BaseException:
        if writer is not None:
            writer.abort()
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return manifest


def _build_into(writer: IndexWriter, snapshot: GitSnapshot, identity: str, policy: PathPolicy,
                previous: dict[str, str] | None, progress: ProgressFn | None,
                started: float, created_at: str, store: ChunkStore | None = None,
                jobs: int | None = None) -> Manifest:
    if not policy.secrets:
        store = None  # the shared chunk store holds redacted text only
    plan = plan_build(snapshot.entries(), policy, previous, store,
                      frozenset(snapshot.missing_blobs()), str(snapshot.repo))
    if previous is not None:
        writer.keep_only(plan.paths("copy"))
    for entry in plan.unread:
        writer.add_entry(entry)

    total = len(plan.actions)
    files_done = chunks = parsed_count = reused = 0
    last_report = 0.0

    def report(stage: str) -> None:
        if progress is not None:
            progress(BuildProgress(stage, files_done, total, chunks, parsed_count, reused,
                                   time.perf_counter() - started))

    report("listing")
    to_read = plan.items("read")
    workers = workers_for(jobs, len(to_read))
    if workers > 1:  # compiled once here, inherited by every worker
        compile_queries(language_of(item.path) for item in to_read)
    pool = start_pool(workers, insisted=jobs is not None)
    with pool if pool is not None else contextlib.nullcontext():
        parsed = parse(snapshot, to_read, pool, redact=policy.secrets)
        try:
            for item, action in plan.actions:
                if action == "copy":
                    reused += 1
                else:
                    stored = store.get(item.path, item.sha) if store and action == "store" \
                        else None
                    if stored is not None:
                        reused += 1
                        writer.add_file(stored.result, stored.tokens, stored.digest)
                    else:
                        if action == "read":
                            stored, payload = next(parsed)
                        else:  # a damaged store entry: parse this blob here, then rewrite it
                            stored = chunk_blob(snapshot, item.path,
                                                *one_blob(snapshot, item.sha),
                                                policy.secrets)
                            payload = None
                        writer.add_file(stored.result, stored.tokens, stored.digest)
                        if store is not None:
                            store.put_encoded(item.path, item.sha,
                                              payload or encode_stored(stored))
                        parsed_count += 1
                    chunks += len(stored.result.chunks)
                files_done += 1
                now = time.perf_counter()
                if now - last_report >= _PROGRESS_INTERVAL_S:
                    last_report = now
                    report("chunking")
        finally:
            parsed.close()
    indexed_files = writer.indexed_file_count()
    chunks = writer.chunk_count()  # copied rows included
    manifest = stamp(writer, snapshot, identity, policy, created_at, files=indexed_files,
                     chunks=chunks)
    report("done")
    return manifest


def _replace_dir(built: Path, out: Path) -> None:
    """Move ``built`` to ``out``; an existing index at ``out`` is swapped out first."""
    swap_folder(built, out, aside=temp_name(out, "old"))

