"""Running cases through a retriever into ``attempts.jsonl``.

One attempt per case (``repeat`` of them with ``run --repeat N``: ids ``RUN/CASE#1`` ..
``RUN/CASE#N``, one shared ``repeat_group``), appended and flushed as soon as it is known,
so an interrupted run loses at most the cases in flight; ``resume`` skips cases that
already have all their attempts in the output (a last line cut off mid-write is dropped first; one that only lacks its
newline is kept). One writer at a time: the output is locked while a run appends to it. Cases run on ``workers``
threads. Each case is served by the index built from its own revision; a case with no
such index, or whose retriever crashes, hangs or answers nonsense, gets an *error
attempt* (``error`` set, nothing ranked), which the scorer counts as ``invalid``. Every
attempt records ``queried_at``, the UTC time the retriever was asked, so scoring can tell
an attempt that ran before its index was built.
"""

from __future__ import annotations

import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Container, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

import msgspec

from codegold.adapters.protocol import RetrievalRequest, Retriever
from codegold.errors import CodegoldError, DuplicateIndexError, InputError, RetrieverError
from codegold.execute.threads import ThreadExecutor
from codegold.index.catalog import IndexSet, manifest_or_none
from codegold.model import Attempt, Case, Query, decode_attempt, encode_attempt
from codegold.model.attempts import redact_attempt
from codegold.model.io import MAX_LINE_BYTES, bounded_lines, open_input
from codegold.model.manifest import Manifest
from codegold.plumbing.outputs import append_locked


class RunSummary(msgspec.Struct, frozen=True, kw_only=True):
    run_id: str
    written: int
    skipped: int
    errors: int
    seconds: float
    dropped_bytes: int = 0  # a torn last line removed before resuming
    # Answers that held something no parser read (attempts with a ``note``): when every
    # answer was one, the run measured nothing and ``codegold run`` says so (exit 3).
    unreadable: int = 0
    # Fields of the retriever's answers codegold does not read, kept under ``extra``
    # (``ranked[].text``), in the order first seen: said once per run, not per case.
    unknown_fields: tuple[str, ...] = ()
    # Set by the run workflow: what the retriever says it ran (the reference retriever's
    # signals and embedder), and warnings found before the run (a case's repository that
    # differs from its index's).
    retriever_facts: str | None = None
    warnings: tuple[str, ...] = ()


def unknown_fields(attempt: Attempt) -> tuple[str, ...]:
    """The answer's fields ``attempt`` keeps under ``extra``, by where they were."""
    found = dict.fromkeys(attempt.extra or ())
    for where, chunks in (("ranked", attempt.ranked), ("candidates", attempt.candidates or ())):
        for chunk in chunks:
            found.update(dict.fromkeys(f"{where}[].{name}" for name in chunk.extra or ()))
    return tuple(found)


def new_run_id() -> str:
    return "run-" + datetime.now(UTC).strftime("%Y%m%dT%H%M%S") + f"-{os.getpid() % 10000:04d}"


def existing_attempts(path: Path) -> tuple[set[str], str | None]:
    """Case ids already attempted in ``path`` and the run id found there (reads only).

    A last line that lacks its newline counts when it parses (the writer stopped between
    the line and its newline) and is ignored when it does not (it was cut mid-write).
    """
    ids, run_id = existing_attempt_ids(path)
    return set(ids.values()), run_id


def existing_attempt_ids(path: Path) -> tuple[dict[str, str], str | None]:
    """Attempt id -> case id of every attempt already in ``path``, and the run id found
    there (reads only; a torn last line is ignored as in :func:`existing_attempts`)."""
    if not path.exists():
        return {}, None
    done: dict[str, str] = {}
    run_id = None
    # Streamed line by line (each bounded): memory follows the number of cases, not the
    # size of the file.
    with open_input(path, "attempts") as handle:
        for number, line in bounded_lines(handle, str(path)):
            if not line.strip() or (not line.endswith(b"\n") and not _parses(line)):
                continue  # blank, or a last line cut off mid-write
            attempt = decode_attempt(line, path=str(path), line_number=number)
            done[attempt.attempt_id] = attempt.case_id
            run_id = run_id or attempt.run_id
    return done, run_id


def attempt_id(run_id: str, case_id: str, number: int, repeat: int) -> str:
    """``RUN/CASE`` for a single attempt; ``RUN/CASE#number`` (1-based) when repeated."""
    return f"{run_id}/{case_id}" if repeat == 1 else f"{run_id}/{case_id}#{number}"


def pending_repeats(case_id: str, run_id: str, repeat: int, done: Container[str],
                    have: int) -> list[int]:
    """Repeat numbers (1-based) still to run for ``case_id``: none once the case already
    has ``repeat`` attempts (``have`` of them, ids in ``done``), whatever their ids."""
    if have >= repeat:
        return []
    free = [n for n in range(1, repeat + 1) if attempt_id(run_id, case_id, n, repeat) not in done]
    return free[: repeat - have]


def utc_now_iso() -> str:
    """Now, as ISO 8601 UTC with milliseconds (``2026-01-31T12:00:00.123Z``)."""
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _parses(line: bytes) -> bool:
    """Whether ``line`` is whole JSON. A line cut off mid-write never is (its object is
    unclosed); a whole line that is not an attempt is reported by the decoder instead."""
    try:
        msgspec.json.decode(line)
    except (msgspec.DecodeError, RecursionError):
        return False  # too deep to be an attempt: dropped like a torn line
    return True


def repair_tail(handle: BinaryIO, path: Path) -> int:
    """Make the file under ``handle`` end with a complete line before appending to it.

    A last line without its newline is kept (the newline is added) when it parses as an
    attempt; a torn one is cut off. Returns the number of bytes dropped (0 when none).
    """
    size = os.fstat(handle.fileno()).st_size
    if size == 0:
        return 0
    with path.open("rb") as reader:
        reader.seek(max(0, size - 1))
        if reader.read(1) == b"\n":
            return 0
        # Only the last line is read again: find where it starts.
        start, block = size, 1 << 16
        while start > 0:
            begin = max(0, start - block)
            reader.seek(begin)
            chunk = reader.read(start - begin)
            cut = chunk.rfind(b"\n")
            if cut >= 0:
                start = begin + cut + 1
                break
            start = begin
        reader.seek(start)
        tail = reader.read(size - start)
    if _parses(tail):
        handle.write(b"\n")
        handle.flush()
        return 0
    handle.truncate(start)
    return size - start


def wait_for_indexes(root: Path, revisions: Iterable[str], seconds: float, *,
                     poll: float = 0.5) -> IndexSet:
    """Wait (polling ``root``) until a complete index of every one of ``revisions`` exists;
    raise InputError naming the missing revisions when ``seconds`` pass first."""
    needed = set(revisions)
    deadline = time.monotonic() + seconds
    while True:
        try:
            indexes = IndexSet.from_path(root)
        except DuplicateIndexError:
            raise
        except InputError:  # not there yet, or nothing complete yet
            indexes = IndexSet.empty()
        missing = sorted(needed - set(indexes.by_revision))
        if not missing:
            return indexes
        left = deadline - time.monotonic()
        if left <= 0:
            shown = ", ".join(missing[:10]) + (f" (and {len(missing) - 10} more)"
                                               if len(missing) > 10 else "")
            raise InputError(f"no complete index after waiting {seconds:g}s for revision(s) "
                             f"{shown}", path=str(root))
        time.sleep(min(poll, left))


def build_request(case: Case, index_dir: Path | None, k: int) -> RetrievalRequest:
    return RetrievalRequest(case_id=case.id, query=case.query, k=k, revision=case.revision,
                            repository=case.repository, context=case.context,
                            index=str(index_dir) if index_dir is not None else None)


def attempt_for(case: Case, retriever: Retriever, indexes: IndexSet, *, run_id: str,
                label: str, default_k: int, require_index: bool, number: int = 1,
                repeat: int = 1, config_digest: str | None = None) -> Attempt:
    """Run one case (attempt ``number`` of ``repeat``); never raises for a retriever's
    failure (it becomes an error attempt)."""
    index_dir = indexes.for_revision(case.revision)
    k = max(case.cutoff, default_k)
    request = build_request(case, index_dir, k)
    base = Attempt(attempt_id=attempt_id(run_id, case.id, number, repeat), case_id=case.id,
                   run_id=run_id, retriever=label, retriever_config=config_digest,
                   queried_at=utc_now_iso(),
                   repeat_group=f"{run_id}/{case.id}" if repeat > 1 else None)
    query = Query(raw=case.query)
    if index_dir is None and require_index:
        return msgspec.structs.replace(
            base, query=query, error=f"no index for revision {case.revision} (indexes given for: "
            f"{indexes.describe()})")
    started = time.perf_counter()
    try:
        response = retriever.retrieve(request)
    except RetrieverError as err:
        elapsed = round((time.perf_counter() - started) * 1000, 3)
        return msgspec.structs.replace(base, query=query, error=str(err),
                                       timing_ms={"total": elapsed})
    wall = round((time.perf_counter() - started) * 1000, 3)
    manifest: Manifest | None = response.manifest
    if manifest is None and index_dir is not None:
        # The retriever was handed this index for this request; its manifest is the one used.
        manifest = manifest_or_none(index_dir)
    timing = dict(response.timing_ms or {})
    timing["wall"] = wall
    return msgspec.structs.replace(
        base,
        query=Query(raw=case.query, rewritten=response.rewritten,
                    filters=response.filters if response.filters is not None else request.filters),
        manifest=manifest,
        candidates=response.candidates,
        ranked=response.ranked,
        context_ids=response.context_ids,
        timing_ms=timing,
        extra=response.extra,
        note=response.note,
    )


def error_attempt(case: Case, run_id: str, label: str, number: int, repeat: int,
                  err: CodegoldError, config_digest: str | None = None) -> Attempt:
    """The error attempt of a case whose run failed outside the retriever (e.g. an index
    that cannot be opened): still this case's problem only."""
    return Attempt(attempt_id=attempt_id(run_id, case.id, number, repeat), case_id=case.id,
                   run_id=run_id, retriever=label, retriever_config=config_digest,
                   query=Query(raw=case.query), error=str(err),
                   queried_at=utc_now_iso(),
                   repeat_group=f"{run_id}/{case.id}" if repeat > 1 else None)


# Runs pending (case, attempt number) pairs elsewhere and yields their attempts in the
# order given (see codegold.adapters.sharded); the driver still writes every line.
Dispatch = Callable[[Sequence[tuple[Case, int]], str], Iterator[Attempt]]


def run_cases(cases: Iterable[Case], retriever: Retriever | None, indexes: IndexSet,
              output: Path, *, label: str, resume: bool = False, workers: int = 1,
              run_id: str | None = None, default_k: int = 10, require_index: bool = True,
              repeat: int = 1, on_attempt: Callable[[Attempt], None] | None = None,
              dispatch: Dispatch | None = None,
              config_digest: str | None = None,
              on_plan: Callable[[int, int], None] | None = None) -> RunSummary:
    """Write ``repeat`` attempts per case to ``output``; return counts (``skipped``
    counts attempts already there when resuming). With ``dispatch`` (an executor's
    workers run the cases) ``retriever`` and ``workers`` are not used. ``on_plan`` hears
    the run's size before the first attempt: all attempts, and those already written."""
    if workers < 1:
        raise InputError(f"{{workers}} must be at least 1, found {workers}", settings=("workers",))
    if repeat < 1:
        raise InputError(f"{{repeat}} must be at least 1, found {repeat}", settings=("repeat",))
    if retriever is None and dispatch is None:
        raise TypeError("run_cases needs a retriever or a dispatch")
    started = time.perf_counter()
    case_list = list(cases)
    done: dict[str, str] = {}
    dropped = 0
    lock = threading.Lock()
    counts = {"written": 0, "errors": 0, "unreadable": 0}
    unknown: dict[str, None] = {}
    # The exclusive lock comes first: a second run with the same output is refused before
    # it reads, repairs or appends anything.
    with append_locked(output) as handle:
        if resume:
            dropped = repair_tail(handle, output)
            done, previous = existing_attempt_ids(output)
            run_id = run_id or previous
        elif os.fstat(handle.fileno()).st_size > 0:
            raise InputError("output already holds attempts; pass {resume} to continue that run "
                             "or choose another file", path=str(output), settings=("resume",))
        run_id = run_id or new_run_id()
        rid = run_id
        have = Counter(done.values())
        # pending_repeats gives exactly this many numbers per case.
        todo_count = sum(max(0, repeat - have[case.id]) for case in case_list)
        if on_plan is not None:
            on_plan(len(case_list) * repeat, len(case_list) * repeat - todo_count)
        # Repeats of a case run one after another: case order, then repeat number. Made
        # lazily, so many cases times many repeats never sit in memory at once.
        todo = ((case, number) for case in case_list
                for number in pending_repeats(case.id, rid, repeat, done, have[case.id]))

        def one(item: tuple[Case, int]) -> None:
            case, number = item
            if retriever is None:  # checked on entry; narrows the type here
                raise TypeError("run_cases needs a retriever or a dispatch")
            try:
                attempt = attempt_for(case, retriever, indexes, run_id=rid, label=label,
                                      default_k=default_k, require_index=require_index,
                                      number=number, repeat=repeat,
                                      config_digest=config_digest)
            except CodegoldError as err:
                attempt = error_attempt(case, rid, label, number, repeat, err,
                                        config_digest)
            record(attempt)

        def record(attempt: Attempt) -> None:
            # Excerpts and error text came from outside: no secret value is written.
            attempt = redact_attempt(attempt)
            line = encode_attempt(attempt) + b"\n"
            if len(line) > MAX_LINE_BYTES:
                # An answer under the answer cap can still encode past the line cap (escapes,
                # candidates beside ranked): this attempt fails, never the whole file.
                attempt = msgspec.structs.replace(
                    attempt, ranked=[], candidates=None, context_ids=None, final=None,
                    error=f"the answer makes an attempt line of {len(line) // 1024**2} MiB; "
                          f"at most {MAX_LINE_BYTES // 1024**2} MiB can be recorded")
                line = encode_attempt(attempt) + b"\n"
            with lock:
                handle.write(line)
                handle.flush()
                counts["written"] += 1
                counts["errors"] += attempt.error is not None
                counts["unreadable"] += attempt.error is None and attempt.note is not None
                unknown.update(dict.fromkeys(unknown_fields(attempt)))
            if on_attempt is not None:
                on_attempt(attempt)

        if dispatch is not None:
            for attempt in dispatch(list(todo), rid):
                # Workers do not know the digest of the driver's settings: stamp it here,
                # so attempts are the same whichever executor ran them.
                if config_digest is not None and attempt.retriever_config is None:
                    attempt = msgspec.structs.replace(attempt, retriever_config=config_digest)
                record(attempt)
        elif workers == 1:
            for item in todo:
                one(item)
        else:
            # at most four cases per thread in flight; each records its own attempt
            with ThreadExecutor(workers, window=4 * workers) as threads:
                for _ in threads.ordered(one, todo):
                    pass
    return RunSummary(run_id=rid, written=counts["written"],
                      skipped=len(case_list) * repeat - todo_count,
                      errors=counts["errors"], seconds=round(time.perf_counter() - started, 3),
                      dropped_bytes=dropped, unknown_fields=tuple(unknown),
                      unreadable=counts["unreadable"])
