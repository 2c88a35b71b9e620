"""The executor interfaces and the in-process implementation."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Generator, Iterable, Iterator, Sequence
from concurrent.futures import Executor as FuturesPool
from concurrent.futures import Future
from typing import Any, Protocol, Self, TypeVar

from codegold.errors import (
    CodegoldError,
    CodeIndexError,
    InputError,
    RetrieverError,
    SchemaError,
)

T = TypeVar("T")
R = TypeVar("R")


class Executor(Protocol):
    """Runs ``fn`` over ``jobs`` somewhere and yields ``(position, result)`` pairs as jobs
    finish (any order). A job's :class:`CodegoldError` is raised again in the caller, its
    class and message kept; the remaining jobs are then abandoned.

    ``fn`` must be a module-level function of an importable module and every job and
    result picklable, so that a Ray worker can run it. ``gpus`` asks for that many GPUs
    per job where the executor schedules them (Ray); in-process executors ignore it.
    """

    name: str
    # True when jobs run in the caller's process and see its files; a caller may then
    # keep its in-process path (streaming progress, writing in place).
    in_process: bool

    def map(self, fn: Callable[[T], R], jobs: Sequence[T], *, gpus: float = 0.0
            ) -> Iterator[tuple[int, R]]:
        ...

    def close(self) -> None:
        ...


class OrderedExecutor(Executor, Protocol):
    """An executor that also streams: :meth:`ordered` takes jobs from a lazy iterable,
    keeps at most ``window`` in flight (memory bounded however many jobs there are) and
    yields each result in submission order; a job's exception is raised in the caller
    and the jobs not yet started are abandoned. :class:`LocalExecutor`,
    :class:`~codegold.execute.threads.ThreadExecutor` and
    :class:`~codegold.execute.processes.ProcessExecutor` are ordered executors."""

    def ordered(self, fn: Callable[[T], R], jobs: Iterable[T], *, window: int | None = None
                ) -> Generator[R, None, None]:
        ...


class LocalExecutor:
    """Each job in this process, one after another, in order."""

    name = "local"
    in_process = True

    def map(self, fn: Callable[[T], R], jobs: Sequence[T], *, gpus: float = 0.0
            ) -> Iterator[tuple[int, R]]:
        for position, job in enumerate(jobs):
            yield position, fn(job)

    def ordered(self, fn: Callable[[T], R], jobs: Iterable[T], *, window: int | None = None
                ) -> Generator[R, None, None]:
        for job in jobs:
            yield fn(job)

    def close(self) -> None:
        return None


# Error classes that cross the wire by name; anything else comes back as its base.
_BY_NAME: dict[str, type[CodegoldError]] = {
    cls.__name__: cls for cls in (InputError, SchemaError, CodeIndexError, RetrieverError)
}


def error_payload(err: CodegoldError) -> tuple[str, str, dict[str, Any]]:
    """What a worker sends back for a job's error: its class name, its sentence and the
    parts it is made of (its message and the settings it names, so the driver's front end
    still calls each setting by its own name; an InputError's location too); exceptions
    with keyword-only constructors do not survive pickling as themselves."""
    parts: dict[str, Any] = {"message": err.message, "settings": err.settings}
    if isinstance(err, InputError):
        parts.update(path=err.path, line=err.line, case_id=err.case_id, field=err.field)
    return type(err).__name__, str(err), parts


def rebuild_error(kind: str, sentence: str, parts: dict[str, Any] | None = None
                  ) -> CodegoldError:
    """The driver's copy of a worker's error: the same class (when codegold has it by that
    name, else the base class) made again from its parts (or from its sentence alone)."""
    cls = _BY_NAME.get(kind)
    if cls is None:
        cls = CodegoldError
        parts = {"message": parts["message"], "settings": parts["settings"]} if parts else None
    return cls(**parts) if parts else cls(sentence)


def in_submission_order(submit: Callable[[T], Future[R]], jobs: Iterable[T],
                        window: int) -> Generator[R, None, None]:
    """Hand each job to ``submit`` and yield the results in submission order, with at
    most ``window`` handed over and not yet yielded: once that many are, the oldest is
    waited for before the next job is taken from ``jobs`` (a lazy iterable is read no
    further ahead). A job's exception is raised here; closing the generator, or an
    error, cancels the jobs not yet started. The thread and process executors share it."""
    pending: deque[Future[R]] = deque()
    try:
        for job in jobs:
            pending.append(submit(job))
            while len(pending) >= window:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        for future in pending:
            future.cancel()


class PooledExecutor:
    """What the thread and the process executor share: a ``concurrent.futures`` pool
    (``_executor``) behind :meth:`ordered`, at most ``_window`` jobs in flight unless the
    caller says otherwise, ``map`` as ``(position, result)`` in submission order (``gpus``
    is not scheduled), and a context manager whose exit shuts the pool down, cancelling
    the jobs not started."""

    _executor: FuturesPool
    _window: int

    def ordered(self, fn: Callable[[T], R], jobs: Iterable[T], *, window: int | None = None
                ) -> Generator[R, None, None]:
        """``fn(job)`` for each job, on the pool, yielded in submission order; jobs are
        taken from ``jobs`` only as the window allows (:func:`in_submission_order`)."""
        return in_submission_order(lambda job: self._executor.submit(fn, job), jobs,
                                   window or self._window)

    def map(self, fn: Callable[[T], R], jobs: Sequence[T], *, gpus: float = 0.0
            ) -> Iterator[tuple[int, R]]:
        return enumerate(self.ordered(fn, jobs))

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
