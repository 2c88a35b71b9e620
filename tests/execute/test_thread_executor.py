"""The thread executor: submission order, at most a window in flight over a lazy
iterable, a job's error raised in the caller with the jobs not started cancelled."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from codegold.execute import LocalExecutor, OrderedExecutor, ThreadExecutor


def test_results_come_in_submission_order_though_later_jobs_finish_first() -> None:
    def late_first(n: int) -> int:
        time.sleep(0.01 * (6 - n))
        return n

    with ThreadExecutor(3) as threads:
        assert list(threads.ordered(late_first, range(6))) == list(range(6))


def test_at_most_the_window_is_in_flight() -> None:
    taken: list[int] = []
    running = 0
    most = 0
    lock = threading.Lock()

    def jobs() -> Iterator[int]:
        for n in range(20):
            taken.append(n)
            yield n

    def job(n: int) -> int:
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        time.sleep(0.005)
        with lock:
            running -= 1
        return n

    with ThreadExecutor(2, window=3) as threads:
        stream = threads.ordered(job, jobs())
        assert next(stream) == 0
        # three handed over; the fourth is not taken until the oldest was done
        assert len(taken) == 3
        assert list(stream) == list(range(1, 20))
    assert most <= 2


def test_a_job_error_reaches_the_caller_and_cancels_the_jobs_not_started() -> None:
    ran: list[int] = []

    def job(n: int) -> None:
        ran.append(n)
        if n == 0:
            raise RuntimeError("case 0 broke")
        time.sleep(1.0)

    with pytest.raises(RuntimeError, match="case 0 broke"), \
            ThreadExecutor(1, window=4) as threads:
        for _ in threads.ordered(job, range(10)):
            pass
    assert 0 in ran and not set(ran) & {2, 3, 4}


def test_map_gives_positions_and_each_is_an_ordered_executor() -> None:
    with ThreadExecutor(2) as threads:
        for executor in (threads, LocalExecutor()):
            ordered: OrderedExecutor = executor
            assert list(ordered.map(abs, [-1, 2, -3])) == [(0, 1), (1, 2), (2, 3)]
            assert list(ordered.ordered(abs, iter([-4, 5]))) == [4, 5]
            assert ordered.in_process


def test_no_threads_is_refused() -> None:
    with pytest.raises(ValueError, match="workers is 0"):
        ThreadExecutor(0)
