"""Reading blobs and chunking them in order: in this process, or in batches on worker
processes (:class:`~codegold.execute.processes.ProcessExecutor`, in the build's words)
when there are enough files to repay starting them."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Generator, Iterator

from codegold.errors import CodeIndexError
from codegold.execute.processes import PoolWording, ProcessExecutor, available_cpus
from codegold.index.build.chunking import Job, chunk_batch, chunk_blob
from codegold.index.chunkstore import StoredFile, decode_stored
from codegold.index.gitsnap import GitSnapshot, TreeEntry


def one_blob(snapshot: GitSnapshot, sha: str) -> tuple[str, bytes]:
    """The blob ``sha`` read alone (a damaged chunk store entry is parsed again)."""
    stream = snapshot.blobs([sha])
    try:
        return expected(sha, *next(stream))
    finally:
        stream.close()


def expected(wanted: str, sha: str, data: bytes) -> tuple[str, bytes]:
    """``(sha, data)`` when git returned the object asked for; CodeIndexError otherwise."""
    if sha != wanted:
        raise CodeIndexError(f"git returned object {sha} where {wanted} was expected")
    return sha, data


# More processes than this buy little for one build: the parent (git, SQLite) becomes the
# bottleneck, and each worker holds its own parsers and caches.
MAX_WORKERS = 8
# What the build calls its workers' failures.
CHUNKING_WORKERS = PoolWording(
    cannot_start="cannot start {workers} chunking worker processes: {error}; build with "
                 "fewer workers (jobs=1 uses none)",
    died="a chunking worker process died (killed, or out of memory?); build again with "
         "fewer workers (jobs=1 uses none)",
    error=CodeIndexError)
# Below this many files to parse, starting worker processes costs more than it saves.
PARALLEL_MIN_FILES = 64
# A batch sent to a worker: enough files to amortise the hand-over, few enough files
# and bytes to keep every worker busy (about four batches each at least) and memory
# bounded.
BATCH_FILES = 32
BATCH_BYTES = 1 << 20


def default_workers() -> int:
    """Worker processes for a build when the caller names none."""
    return max(1, min(MAX_WORKERS, available_cpus()))


def workers_for(jobs: int | None, files: int) -> int:
    if jobs is not None:
        return jobs if files > 1 else 1
    # Left to itself, a build never forks a process that runs other threads (a Ray
    # worker, a server): forking those can deadlock. Naming ``jobs`` insists.
    if files < PARALLEL_MIN_FILES or threading.active_count() > 1:
        return 1
    return default_workers()


def start_pool(workers: int, *, insisted: bool,
               wording: PoolWording = CHUNKING_WORKERS) -> ProcessExecutor | None:
    """Worker processes, or None to do the work in this process: when one worker would
    do, or when they cannot start and the caller left the number to the build (their
    failures worded by ``wording``)."""
    if workers <= 1:
        return None
    try:
        return ProcessExecutor(workers, wording=wording)
    except CodeIndexError:
        if insisted:
            raise
        return None


def parse(snapshot: GitSnapshot, items: list[TreeEntry], pool: ProcessExecutor | None, *,
          redact: bool = True) -> Generator[tuple[StoredFile, bytes | None], None, None]:
    """Chunk ``items`` in order: here, or in ``pool``'s workers (then with each result's
    encoded form, ready for the chunk store)."""
    blobs = snapshot.blobs(item.sha for item in items)

    def checked() -> Iterator[tuple[str, bytes, str]]:
        for item in items:
            sha, data = expected(item.sha, *next(blobs))
            yield item.path, data, sha

    try:
        if pool is None:
            for path, data, sha in checked():
                yield chunk_blob(snapshot, path, sha, data, redact), None
            return

        per_batch = max(1, min(BATCH_FILES, len(items) // (4 * pool.workers)))

        def batches() -> Iterator[list[Job]]:
            batch: list[Job] = []
            size = 0
            for path, data, sha in checked():
                batch.append((path, data, snapshot.revision, sha, redact))
                size += len(data)
                if len(batch) >= per_batch or size >= BATCH_BYTES:
                    yield batch
                    batch, size = [], 0
            if batch:
                yield batch

        with contextlib.closing(pool.ordered(chunk_batch, batches())) as results:
            for payloads in results:
                for payload in payloads:
                    yield decode_stored(payload), payload
    finally:
        blobs.close()
