"""A thread executor: a function over jobs on a few threads of this process, with a
bounded number in flight, results yielded in submission order.

For work that waits rather than computes (a retriever answering over a pipe or HTTP):
``adapters.runner`` runs cases on it. Jobs are taken from a lazy iterable only as the
window allows, so many cases times many repeats never sit in memory at once.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

from codegold.execute.base import in_submission_order

T = TypeVar("T")
R = TypeVar("R")


class ThreadExecutor:
    """``workers`` threads; :meth:`ordered` keeps at most ``window`` jobs (default four
    per thread) in flight. Use as a context manager; leaving it waits for the jobs
    running and cancels those not started."""

    name = "threads"
    in_process = True

    def __init__(self, workers: int, window: int | None = None) -> None:
        if workers < 1:
            raise ValueError(f"workers is {workers}; expected 1 or more")
        self.workers = workers
        self._window = window or 4 * workers
        self._executor = ThreadPoolExecutor(max_workers=workers)

    def ordered(self, fn: Callable[[T], R], jobs: Iterable[T], *, window: int | None = None
                ) -> Generator[R, None, None]:
        """``fn(job)`` for each job, on the threads, yielded in submission order. Before
        a job is handed over while ``window`` are in flight, the oldest is waited for;
        its exception is raised here and the jobs not yet started are cancelled."""
        return in_submission_order(lambda job: self._executor.submit(fn, job), jobs,
                                   window or self._window)

    def map(self, fn: Callable[[T], R], jobs: Sequence[T], *, gpus: float = 0.0
            ) -> Iterator[tuple[int, R]]:
        """The :class:`~codegold.execute.base.Executor` form: ``(position, result)``
        pairs, here in submission order (``gpus`` is not scheduled)."""
        return enumerate(self.ordered(fn, jobs))

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> ThreadExecutor:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["ThreadExecutor"]
