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
from codegold.index.build.plan import kept_unchecked, plan_build
from codegold.index.build.reuse import (
    SealedCopy,
    carry_caches,
    copy_sealed,
    nearest_indexes,
    previous_blobs,
    record_macs,
    recorded_macs,
    reuse_key,
    seal_index,
)
from codegold.index.build.stamps import created_at as stamp_time
from codegold.index.build.stamps import stamp, write_manifest
from codegold.index.chunkstore import ChunkStore, encode_stored
from codegold.index.gitsnap import GitSnapshot, TreeEntry
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
                store: ChunkStore | None = None, jobs: int | None = None,
                snapshot: GitSnapshot | None = None) -> Manifest:
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
    ``snapshot``: ``revision`` already resolved in ``repo`` (:meth:`GitSnapshot.resolved`,
    sharing the git processes of a many-revision build); git is then not asked again.
    Raises InputError for bad arguments or repositories, CodeIndexError when git fails.
    """
    started = time.perf_counter()
    if jobs is not None and jobs < 1:
        raise InputError(f"jobs is {jobs}; expected 1 or more worker processes")
    policy = policy or PathPolicy()
    created_at = stamp_time()
    if snapshot is None or snapshot.revision != revision:
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
    if not policy.secrets:
        store = None  # the shared chunk store holds redacted text only
    tmp = temp_name(out, "tmp")
    try:
        tmp.mkdir()
    except OSError as err:
        raise InputError(f"cannot create a build directory beside the output: {err.strerror}",
                         path=str(out.parent)) from err
    writer: IndexWriter | None = None
    key = reuse_key()
    try:
        # Listed without sizes when a previous index may be copied: the files it keeps
        # need none, and git reads each loose blob for its size.
        may_copy = reuse_from is not None or store is not None or (out / MANIFEST_FILE).exists()
        entries = snapshot.entries(sizes=not may_copy)
        start = _start_from(tmp / INDEX_FILE, out, reuse_from, entries, policy, store, key)
        if may_copy:
            unchanged = start.blobs if start is not None and start.same_policy else {}
            entries = snapshot.sized(entries, lambda item: kept_unchecked(item, unchanged))
        if start is not None:
            # A private copy of a previous index, trimmed to what did not change: unchanged
            # files then cost nothing but the file copy (and keep the digests they were
            # verified by).
            writer = IndexWriter(tmp / INDEX_FILE, fresh=False, mac_key=key,
                                 kept_macs=start.macs)
        else:
            writer = IndexWriter(tmp / INDEX_FILE, mac_key=key)
        manifest, blobs = _build_into(writer, snapshot, entries, identity, policy, start,
                                      progress, started, created_at, store, jobs)
        macs = writer.file_macs(key) if key is not None else None
        writer.finish()
        writer = None
        if macs is not None:
            record_macs(tmp, macs)
        if key is not None:
            seal_index(tmp, key)
        write_manifest(tmp / MANIFEST_FILE, manifest)
        carry_caches(out, tmp, manifest.index_build_id)
        _replace_dir(tmp, out)
    except BaseException:
        if writer is not None:
            writer.abort()
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if store is not None:
        store.note_built(out, blobs)
    return manifest


def _start_from(dest: Path, out: Path, reuse_from: Path | None, entries: list[TreeEntry],
                policy: PathPolicy, store: ChunkStore | None, key: bytes | None
                ) -> SealedCopy | None:
    """The previous index this build starts from, copied to ``dest``: ``reuse_from``, else
    the index already at ``out``, else (or when that one gives nothing) the nearest index
    built with the chunk ``store``; None to build from nothing. A sealed index is taken
    whole; one that is not (built before seals, or edited since) gives only the rows that
    still digest to what their build recorded, and only when named or at ``out``."""
    explicit = reuse_from is not None
    source = reuse_from if explicit else (out if (out / MANIFEST_FILE).exists() else None)
    if source is not None:
        if key is not None:
            sealed = copy_sealed(Path(source), dest, key, policy_hash=policy.hash,
                                 redact=policy.secrets)
            if sealed is not None:
                return sealed
        previous = previous_blobs(Path(source), explicit, policy.secrets)
        if previous:
            shutil.copyfile(Path(source) / INDEX_FILE, dest)
            return SealedCopy(Path(source), previous, recorded_macs(Path(source)), False)
    if store is None or key is None:
        return None
    blobs = {item.path: item.sha for item in entries if item.object_type == "blob"}
    for folder in nearest_indexes(store, blobs, out):
        sealed = copy_sealed(folder, dest, key, policy_hash=policy.hash, redact=policy.secrets)
        if sealed is None:
            continue
        kept = sum(sealed.blobs.get(path) == sha for path, sha in blobs.items())
        if 2 * kept < len(blobs):
            # Most rows would be deleted and written again, each with its index entries:
            # a fresh file written in bulk from the store costs less.
            dest.unlink()
            return None
        return sealed
    return None


def _build_into(writer: IndexWriter, snapshot: GitSnapshot, entries: list[TreeEntry],
                identity: str, policy: PathPolicy, start: SealedCopy | None,
                progress: ProgressFn | None, started: float, created_at: str,
                store: ChunkStore | None = None, jobs: int | None = None
                ) -> tuple[Manifest, dict[str, str]]:
    previous = start.blobs if start is not None else None
    plan = plan_build(entries, policy, previous, store, frozenset(snapshot.missing_blobs()),
                      str(snapshot.repo), same_policy=start is not None and start.same_policy)
    if start is not None:
        writer.keep_only(plan.paths("copy"))
        writer.clear_meta()
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
    return manifest, {item.path: item.sha for item, _ in plan.actions}


def _replace_dir(built: Path, out: Path) -> None:
    """Move ``built`` to ``out``; an existing index at ``out`` is swapped out first."""
    swap_folder(built, out, aside=temp_name(out, "old"))

