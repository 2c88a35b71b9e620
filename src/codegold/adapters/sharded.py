"""Cases sharded by revision, each shard run on an executor's worker.

A shard holds the pending attempts of one revision (split when there are many): the
worker builds the retriever from its ``--retriever`` spec, opens that revision's index
where it is (the retriever runs where the index is) and returns the attempts. The
driver writes them, in case order, exactly as a local run would, so the output differs
from ``--executor local`` only in the fields that record when and how long
(``queried_at``, ``timing_ms``).
"""

from __future__ import annotations

import socket
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from codegold.adapters.registry import RetrieverOptions, close_retriever, make_retriever
from codegold.adapters.runner import Dispatch, attempt_for, error_attempt
from codegold.errors import CodegoldError, InputError
from codegold.execute import Executor
from codegold.index.catalog import IndexSet
from codegold.model import Attempt, Case

SHARD_SIZE = 256  # attempts per job: a revision with more is split, so results stream


@dataclass(frozen=True)
class ShardJob:
    """One revision's pending attempts, and what a worker needs to run them (picklable;
    paths as absolute text, since a worker's working folder is not the driver's)."""

    spec: str
    options: RetrieverOptions
    indexes: Mapping[str, str]  # revision -> index directory
    resolve: Mapping[str, str] | None  # revision -> index directory for --resolve
    items: tuple[tuple[Case, int], ...]  # (case, attempt number)
    run_id: str
    label: str
    default_k: int
    require_index: bool
    repeat: int


def run_shard(job: ShardJob) -> tuple[Attempt, ...]:
    """Run a shard's attempts in order on this worker and return them (writes nothing)."""
    for revision in {case.revision for case, _ in job.items}:
        path = job.indexes.get(revision)
        if path is not None and not Path(path).is_dir():
            raise InputError(f"the index of revision {revision} is not there on the worker "
                             f"{socket.gethostname()}; with a Ray cluster, put {{index}} on a "
                             "filesystem every node mounts", path=path, settings=("index",))
    retriever = make_retriever(job.spec, job.options)
    try:
        if job.resolve is not None:
            from codegold.adapters.resolving import ResolvingRetriever
            from codegold.resolve import AttemptResolver

            retriever = ResolvingRetriever(retriever, AttemptResolver(
                IndexSet({rev: Path(path) for rev, path in job.resolve.items()})))
        indexes = IndexSet({rev: Path(path) for rev, path in job.indexes.items()})
        attempts = []
        for case, number in job.items:
            try:
                attempt = attempt_for(case, retriever, indexes, run_id=job.run_id,
                                      label=job.label, default_k=job.default_k,
                                      require_index=job.require_index, number=number,
                                      repeat=job.repeat)
            except CodegoldError as err:
                attempt = error_attempt(case, job.run_id, job.label, number, job.repeat, err)
            attempts.append(attempt)
        return tuple(attempts)
    finally:
        close_retriever(retriever)


def shard_dispatch(executor: Executor, spec: str, options: RetrieverOptions,
                   indexes: IndexSet, *, resolve: IndexSet | None, label: str,
                   default_k: int, require_index: bool, repeat: int,
                   shard_size: int = SHARD_SIZE) -> Dispatch:
    """A ``dispatch`` for :func:`codegold.adapters.runner.run_cases`: pending attempts
    grouped by revision into jobs on ``executor``, attempts yielded in the order given."""

    # Dense vectors are computed by the first reader of an index and cached beside it:
    # one shard per revision, so that two workers never compute the same cache at once.
    size = shard_size if not options.dense else 1 << 62

    def dispatch(items: Sequence[tuple[Case, int]], run_id: str) -> Iterator[Attempt]:
        by_revision: dict[str, list[int]] = {}
        for position, (case, _) in enumerate(items):
            by_revision.setdefault(case.revision, []).append(position)
        shards: list[list[int]] = []
        for positions in by_revision.values():
            shards.extend(positions[start:start + size]
                          for start in range(0, len(positions), size))
        jobs = [_job(executor, [items[p] for p in shard], spec, options, indexes, resolve,
                     run_id, label, default_k, require_index, repeat) for shard in shards]
        # Attempts come back a shard at a time, in any order; they leave in input order.
        ready: dict[int, Attempt] = {}
        following = 0
        for number, attempts in executor.map(run_shard, jobs):
            ready.update(zip(shards[number], attempts, strict=True))
            while following in ready:
                yield ready.pop(following)
                following += 1

    return dispatch


def _job(executor: Executor, items: list[tuple[Case, int]], spec: str,
         options: RetrieverOptions, indexes: IndexSet, resolve: IndexSet | None, run_id: str,
         label: str, default_k: int, require_index: bool, repeat: int) -> ShardJob:
    def where(found: IndexSet) -> dict[str, str]:
        # Every revision, not only the shard's: an error attempt names what was given.
        # In this process a path works as given; a worker needs it absolute.
        return {rev: str(path if executor.in_process else path.resolve())
                for rev, path in found.by_revision.items()}

    return ShardJob(spec=spec, options=options, indexes=where(indexes),
                    resolve=where(resolve) if resolve is not None else None,
                    items=tuple(items), run_id=run_id, label=label, default_k=default_k,
                    require_index=require_index, repeat=repeat)


__all__ = ["SHARD_SIZE", "ShardJob", "run_shard", "shard_dispatch"]
