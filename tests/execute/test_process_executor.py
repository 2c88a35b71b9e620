"""The ordered process pool: submission order, a bounded window over a lazy iterable,
its failures in the caller's words, workers that leave Ctrl-C to the parent."""

from __future__ import annotations

import errno
import os
import signal
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor

import pytest

import codegold.execute.processes as processes
from codegold.errors import CodegoldError, CodeIndexError
from codegold.execute import OrderedExecutor, PoolWording, ProcessExecutor

WORDING = PoolWording(cannot_start="no {workers} helpers: {error}", died="a helper died",
                      error=CodeIndexError)


def _square_late_first(n: int) -> int:
    # the first jobs take longest, so results finish out of order
    import time

    time.sleep(0.02 * max(0, 5 - n))
    return n * n


def _die_on_three(n: int) -> int:
    if n == 3:
        os._exit(9)
    return n


def _refuse(n: int) -> int:
    raise RuntimeError(f"refused {n}")


def test_results_come_in_submission_order_and_jobs_are_taken_as_the_window_allows() -> None:
    taken: list[int] = []

    def jobs() -> Iterator[int]:
        for n in range(12):
            taken.append(n)
            yield n

    with ProcessExecutor(2, window=3) as pool:
        stream = pool.ordered(_square_late_first, jobs())
        first = next(stream)
        assert len(taken) == 3  # never more than the window handed over
        rest = list(stream)
    assert [first, *rest] == [n * n for n in range(12)]


def test_map_gives_positions_and_the_pool_is_an_ordered_executor() -> None:
    with ProcessExecutor(2) as pool:
        executor: OrderedExecutor = pool
        assert list(executor.map(abs, [-3, 4, -5])) == [(0, 3), (1, 4), (2, 5)]
        assert not executor.in_process


def test_a_job_error_is_raised_as_itself() -> None:
    with ProcessExecutor(2, wording=WORDING) as pool, \
            pytest.raises(RuntimeError, match="refused 0"):
        list(pool.ordered(_refuse, range(4)))


def test_a_dead_worker_is_the_callers_error_in_its_words() -> None:
    with ProcessExecutor(2, wording=WORDING) as pool, \
            pytest.raises(CodeIndexError, match=r"^a helper died$"):
        list(pool.ordered(_die_on_three, range(8)))
    with ProcessExecutor(1) as pool, pytest.raises(CodegoldError, match="a worker process died"):
        list(pool.ordered(_die_on_three, range(8)))


class _NoFork(ProcessPoolExecutor):
    def submit(self, fn: Callable[..., object], /, *args: object,
               **kwargs: object) -> Future[object]:
        raise OSError(errno.EAGAIN, "Resource temporarily unavailable")


def test_workers_that_cannot_start_are_the_callers_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(processes, "ProcessPoolExecutor", _NoFork)
    with pytest.raises(CodeIndexError, match=r"^no 3 helpers: .*Resource temporarily"):
        ProcessExecutor(3, wording=WORDING)


def test_workers_leave_ctrl_c_to_the_parent() -> None:
    # Whatever the test runner set, the parent handles Ctrl-C here; forked workers would
    # inherit that handler unless they ignore the signal themselves.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with ProcessExecutor(2) as pool:
            handlers = list(pool.ordered(signal.getsignal, [signal.SIGINT, signal.SIGINT]))
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, previous)
    assert handlers == [signal.SIG_IGN, signal.SIG_IGN]
