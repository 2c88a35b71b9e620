"""A thread executor: a function over jobs on a few threads of this process, with a
bounded number in flight, results yielded in submission order.

For work that waits rather than computes (a retriever answering over a pipe or HTTP):
``adapters.runner`` runs cases on it. Jobs are taken from a lazy iterable only as the
window allows, so many cases times many repeats never sit in memory at once.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from codegold.execute.base import PooledExecutor


class ThreadExecutor(PooledExecutor):
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


__all__ = ["ThreadExecutor"]
