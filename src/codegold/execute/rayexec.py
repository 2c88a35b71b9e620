"""The Ray executor: each job a Ray task, results gathered by the driver.

Ray is imported here only, when ``--executor ray`` asks for it. ``ray`` starts a Ray on
this machine (``ray.init()``; or joins the cluster ``RAY_ADDRESS`` names, as Ray itself
does) unless this process already runs one; ``ray://HOST:PORT`` joins an existing
cluster through its Ray Client server, after a plain TCP check so that a wrong address
fails in seconds, and the whole connection is bounded by a timeout.
"""

from __future__ import annotations

import contextlib
import logging
import os
import socket
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from codegold.errors import CodegoldError, InputError, MissingDependency
from codegold.execute.base import error_payload, rebuild_error
from codegold.execute.spec import ExecutorSpec

T = TypeVar("T")
R = TypeVar("R")

CONNECT_TIMEOUT_S = 20.0
_PROBE_TIMEOUT_S = 5.0
_LOCAL_START_TRIES = 2


def import_ray() -> Any:
    """The ``ray`` module, or MissingDependency naming the extra that brings it."""
    try:
        import ray
    except ImportError as err:
        raise MissingDependency("ray", "ray", "{executor} ray", settings=("executor",)) from err
    return ray


def _call(fn: Callable[[T], R], job: T) -> tuple[bool, Any]:
    """What a Ray task runs: ``fn(job)``, a codegold error returned as data (its class
    name and sentence) so the driver can raise it again as itself."""
    try:
        return True, fn(job)
    except CodegoldError as err:
        return False, error_payload(err)


def _probe(host: str, port: int, timeout: float) -> None:
    """A TCP connection to the Ray Client port, so that a closed port or an unknown host
    is reported at once instead of after Ray's own long retries."""
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as err:
        reason = err.strerror or type(err).__name__
        raise InputError(f"cannot reach the Ray cluster at ray://{host}:{port}: {reason}; "
                         "expected a running cluster's Ray Client address (the head node, "
                         "port 10001 by default)", field="executor",
                         settings=("executor",)) from err


def _host_port(address: str) -> tuple[str | None, int]:
    """Host and port of ``ray://HOST:PORT`` or ``HOST:PORT`` (None when not of that form)."""
    rest = address.removeprefix("ray://").rsplit("/", 1)[0]
    host, sep, port = rest.rpartition(":")
    # ASCII digits only: str.isdigit takes superscripts ('²') that int() refuses
    if not sep or not host or not (port.isascii() and port.isdigit()) or len(port) > 5:
        return None, 0
    return host.strip("[]"), int(port)


class RayExecutor:
    """Runs jobs as Ray tasks (one CPU each, and GPUs when asked) and yields results as
    they finish."""

    in_process = False

    def __init__(self, ray: Any, name: str, *, owns: bool) -> None:
        self._ray = ray
        self.name = name
        self._owns = owns  # shut Ray down on close: this executor started it
        self._remote: Any = None

    @classmethod
    def connect(cls, spec: ExecutorSpec, *, timeout: float = CONNECT_TIMEOUT_S) -> RayExecutor:
        """Start a local Ray, or join the cluster ``spec`` names, within ``timeout``."""
        ray = import_ray()
        if ray.is_initialized():
            return cls(ray, str(spec), owns=False)
        env_address = os.environ.get("RAY_ADDRESS", "").strip()
        if spec.host is None and env_address and env_address not in ("local", "auto"):
            # ``ray.init()`` joins the cluster RAY_ADDRESS names, and waits forever on a
            # port that never answers: join it the bounded way a ray:// address is joined.
            return cls._join(ray, env_address, *_host_port(env_address), str(spec),
                             timeout=timeout, where="RAY_ADDRESS")
        if spec.host is None:
            # Not in a thread: a Ray started from one loses its connection on shutdown.
            for attempt in range(_LOCAL_START_TRIES):
                try:
                    ray.init(include_dashboard=False, log_to_driver=False,
                             logging_level=logging.ERROR)
                    break
                except Exception as err:  # Ray raises bare Exception on a startup timeout
                    # Ray gives its node a fixed 30 s to come up, which a busy machine
                    # can miss: clean up what started and try once more.
                    with contextlib.suppress(Exception):
                        ray.shutdown()
                    if attempt + 1 == _LOCAL_START_TRIES:
                        message = " ".join(str(err).split())[:300] or type(err).__name__
                        raise CodegoldError(f"cannot start a local Ray: {message}") from err
            return cls(ray, str(spec), owns=True)
        return cls._join(ray, str(spec.address), spec.host, spec.port or 0, str(spec),
                         timeout=timeout, where="executor")

    @classmethod
    def _join(cls, ray: Any, address: str, host: str | None, port: int, name: str, *,
              timeout: float, where: str) -> RayExecutor:
        """Join the cluster at ``address`` in a thread given ``timeout`` seconds, after a
        plain TCP check of ``host:port`` when known. ``where`` names what gave the
        address: the ``executor`` setting or the ``RAY_ADDRESS`` environment variable."""
        settings = () if where == "RAY_ADDRESS" else (where,)
        said = "{" + where + "}" if settings else where
        outcome: list[BaseException | None] = []

        def join() -> None:
            try:
                if host is not None:
                    _probe(host, port, min(_PROBE_TIMEOUT_S, timeout))
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    ray.init(address=address, logging_level=logging.ERROR,
                             log_to_driver=False)
                outcome.append(None)
            except BaseException as err:  # handed to the caller's thread below
                outcome.append(err)

        worker = threading.Thread(target=join, name="codegold-ray-connect", daemon=True)
        worker.start()
        worker.join(timeout)
        if not outcome:
            raise InputError(f"no answer from the Ray cluster at {address} ({said}) within "
                             f"{timeout:g}s; expected a running cluster's address",
                             field=where, settings=settings)
        error = outcome[0]
        if isinstance(error, CodegoldError):
            raise error
        if error is not None:
            message = " ".join(str(error).split())[:300] or type(error).__name__
            raise InputError(f"cannot join the Ray cluster at {address} ({said}): {message}",
                             field=where, settings=settings) from error
        return cls(ray, name, owns=True)

    def map(self, fn: Callable[[T], R], jobs: Sequence[T], *, gpus: float = 0.0
            ) -> Iterator[tuple[int, R]]:
        ray = self._ray
        if self._remote is None:
            self._remote = ray.remote(num_cpus=1)(_call)
        if gpus > 0 and not ray.cluster_resources().get("GPU", 0):
            raise InputError(f"the jobs ask for {gpus:g} GPU each, but the Ray cluster at "
                             f"{self.name} has no GPU; leave out the GPU request",
                             field="gpus", settings=("gpus",))
        remote = self._remote.options(num_gpus=gpus) if gpus > 0 else self._remote
        fn_ref = ray.put(fn)
        pending = {remote.remote(fn_ref, job): position
                   for position, job in enumerate(jobs)}
        try:
            while pending:
                ready, _ = ray.wait(list(pending), num_returns=1)
                ref = ready[0]
                position = pending.pop(ref)
                try:
                    ok, value = ray.get(ref)
                except ray.exceptions.RayError as err:
                    raise CodegoldError(_task_failure(err, position)) from err
                if not ok:
                    raise rebuild_error(*value)
                yield position, value
        finally:
            for ref in pending:  # abandoned: an error above, or the caller stopped reading
                # Best effort: the task may be done already, or Ray gone.
                with contextlib.suppress(Exception):
                    ray.cancel(ref)

    def close(self) -> None:
        if self._owns and self._ray.is_initialized():
            self._ray.shutdown()


def _task_failure(err: BaseException, position: int) -> str:
    """One sentence for a task Ray could not finish (worker died, bug in a job): the
    first line of what went wrong, never Ray's traceback text."""
    cause = getattr(err, "cause", None) or err
    text = str(cause).split("Traceback (most recent call last)", 1)[0]
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    first = lines[0].removesuffix("traceback:").strip() if lines else ""
    if len(first) > 300:
        first = first[:299] + "…"
    return f"a Ray task failed (job {position + 1}): {type(cause).__name__}: {first}"


__all__ = ["CONNECT_TIMEOUT_S", "RayExecutor", "import_ray"]
