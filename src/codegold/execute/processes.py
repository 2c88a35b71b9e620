"""An ordered process pool: a function over jobs in worker processes, results yielded in
submission order.

The index build uses it to chunk blobs on several cores while the parent reads git and
writes SQLite. Results come back in the order the jobs were given, so what the parent
writes (and every row id) is the same as with one process. Jobs are taken from a lazy
iterable and at most ``window`` of them are in flight, so memory stays bounded however
many there are.

Workers are forked where the platform can (they start at once and share what the parent
already loaded) and are started when the pool is made, before the caller starts threads
(forking a process with threads can deadlock); elsewhere they are spawned. A worker that
dies (killed, out of memory), like workers that cannot start, is one error worded by the
caller (:class:`PoolWording`), never a traceback from the pool. Workers leave Ctrl-C to
the parent (which stops them) and exit on their own when the parent is gone (killed with
no chance to stop them), so they never outlive the caller or hold its output pipes open.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Generator, Iterable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from typing import TypeVar

from codegold.errors import CodegoldError
from codegold.execute.base import PooledExecutor

T = TypeVar("T")
R = TypeVar("R")

_PARENT_CHECK_SECONDS = 0.5


def available_cpus() -> int:
    """CPUs this process may run on (its affinity mask where the platform has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - platforms without affinity
        return os.cpu_count() or 1


@dataclass(frozen=True)
class PoolWording:
    """How a pool's own failures are said, in the caller's words: ``cannot_start`` (with
    ``{workers}`` and ``{error}``) when the workers cannot start (a process limit, no
    memory), ``died`` when one dies under a job; each raised as ``error``."""

    cannot_start: str = "cannot start {workers} worker processes: {error}"
    died: str = "a worker process died (killed, or out of memory?)"
    error: type[CodegoldError] = CodegoldError


class ProcessExecutor(PooledExecutor):
    """A process pool whose :meth:`ordered` yields results in submission order.

    Use as a context manager; leaving it (normally or by an exception) stops the workers.
    """

    name = "processes"
    in_process = False

    def __init__(self, workers: int, window: int | None = None, *,
                 wording: PoolWording | None = None) -> None:
        """Start ``workers`` processes now (before the caller starts threads); the
        wording's error when they cannot start. At most ``window`` jobs (default twice
        the workers) are in flight."""
        self.wording = wording or PoolWording()
        methods = multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork" if "fork" in methods else None)
        self.workers = workers
        self._executor = ProcessPoolExecutor(max_workers=workers, mp_context=context,
                                             initializer=_worker_setup,
                                             initargs=(os.getpid(),))
        self._window = window or 2 * workers
        # Fork every worker now rather than at the first submit, which may come after the
        # caller has started threads (forking a process with threads can deadlock).
        try:
            self._executor.submit(int).result()
        except (BrokenProcessPool, OSError) as err:
            self._executor.shutdown(wait=True, cancel_futures=True)
            raise self.wording.error(self.wording.cannot_start.format(
                workers=workers, error=err)) from err

    def ordered(self, fn: Callable[[T], R], jobs: Iterable[T], *, window: int | None = None
                ) -> Generator[R, None, None]:
        """``fn(job)`` for each job, computed in the workers, yielded in order; jobs are
        taken from ``jobs`` only as the window allows. A job's exception is raised here;
        closing the generator (or an error) cancels the jobs not yet started.

        ``fn`` must be a module-level function and jobs and results picklable.
        """
        try:
            yield from super().ordered(fn, jobs, window=window)
        except BrokenProcessPool as err:
            raise self.wording.error(self.wording.died) from err


def _worker_setup(parent: int) -> None:
    """In each worker: Ctrl-C is the parent's to handle, and a worker whose parent died
    exits (a blocked worker would otherwise wait for work forever)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(_PARENT_CHECK_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="codegold-parent-watch", daemon=True).start()


__all__ = ["PoolWording", "ProcessExecutor", "available_cpus"]
