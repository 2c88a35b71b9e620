"""Run a function over batches of work in worker processes, results in submission order.

The build uses it to chunk blobs on several cores while the parent reads git and writes
SQLite. Results come back in the order the batches were given, so what the parent writes
(and every row id) is the same as with one process. At most ``window`` batches are in
flight, so memory stays bounded however large the repository is.

Workers are forked where the platform can (they start at once and share the grammars
already loaded) and are started before the caller's blob reader starts its threads;
elsewhere they are spawned. A worker that dies (killed, out of memory) is reported as one
:class:`CodeIndexError`, never a traceback from the pool. Workers leave Ctrl-C to the
parent (which stops them) and exit on their own when the parent is gone (killed with no
chance to stop them), so they never outlive a build or hold its output pipes open.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections import deque
from collections.abc import Callable, Generator, Iterable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import TypeVar

from codegold.errors import CodeIndexError

Item = TypeVar("Item")
Result = TypeVar("Result")

# More processes than this buy little for one build: the parent (git, SQLite) becomes the
# bottleneck, and each worker holds its own parsers and caches.
MAX_WORKERS = 8
_PARENT_CHECK_SECONDS = 0.5


def available_cpus() -> int:
    """CPUs this process may run on (its affinity mask where the platform has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - platforms without affinity
        return os.cpu_count() or 1


def default_workers() -> int:
    """Worker processes for a build when the caller names none."""
    return max(1, min(MAX_WORKERS, available_cpus()))


class OrderedPool:
    """A process pool whose :meth:`map` yields results in submission order.

    Use as a context manager; leaving it (normally or by an exception) stops the workers.
    """

    def __init__(self, workers: int, window: int | None = None) -> None:
        """Start ``workers`` processes now (before the caller starts threads);
        CodeIndexError when they cannot start (a process limit, no memory)."""
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
            raise CodeIndexError(f"cannot start {workers} chunking worker processes: {err}; "
                                 "build with fewer workers (jobs=1 uses none)") from err

    def map(self, fn: Callable[[Item], Result], batches: Iterable[Item]
            ) -> Generator[Result, None, None]:
        """``fn(batch)`` for each batch, computed in the workers, yielded in order.

        ``fn`` must be a module-level function and batches and results picklable.
        """
        pending: deque[Future[Result]] = deque()
        try:
            for batch in batches:
                pending.append(self._executor.submit(fn, batch))
                while len(pending) >= self._window:
                    yield pending.popleft().result()
            while pending:
                yield pending.popleft().result()
        except BrokenProcessPool as err:
            raise CodeIndexError("a chunking worker process died (killed, or out of memory?); "
                                 "build again with fewer workers (jobs=1 uses none)") from err
        finally:
            for future in pending:
                future.cancel()

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> OrderedPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _worker_setup(parent: int) -> None:
    """In each worker: Ctrl-C is the parent's to handle, and a worker whose parent died
    exits (a blocked worker would otherwise wait for work forever)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(_PARENT_CHECK_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="codegold-parent-watch", daemon=True).start()


__all__ = ["MAX_WORKERS", "OrderedPool", "available_cpus", "default_workers"]
