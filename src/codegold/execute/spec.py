"""``--executor`` values: ``local`` (default), ``ray`` (a Ray started on this machine, or
the cluster ``RAY_ADDRESS`` names), ``ray://HOST[:PORT]`` (an existing cluster's Ray
Client address; port 10001 when not given)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

import msgspec

from codegold.errors import InputError
from codegold.execute.base import Executor, LocalExecutor

EXECUTOR_HELP = ("Where the work runs: local (this process), ray (a Ray started on this "
                 "machine; needs codegold[ray]) or ray://HOST:PORT (an existing Ray cluster's "
                 "client address).")
RAY_CLIENT_PORT = 10001
# A host name, an IPv4 address or a bracketed IPv6 address, then an optional port.
_ADDRESS = re.compile(r"^(?P<host>[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})|\[[0-9A-Fa-f:.]+\])"
                      r"(?::(?P<port>[0-9]{1,5}))?$")


class ExecutorSpec(msgspec.Struct, frozen=True, kw_only=True):
    """A parsed ``--executor``: ``kind`` is ``local`` or ``ray``; ``host``/``port`` name a
    cluster's Ray Client server (None: start or find a local Ray)."""

    kind: str
    host: str | None = None
    port: int | None = None

    @property
    def address(self) -> str | None:
        """The ``ray://HOST:PORT`` address, or None for a local Ray or no Ray at all."""
        return f"ray://{self.host}:{self.port}" if self.host is not None else None

    def __str__(self) -> str:
        return self.address or self.kind


def parse_executor(text: str) -> ExecutorSpec:
    """Parse an ``--executor`` value; InputError saying what is accepted otherwise."""
    value = text  # exact: a stray space or newline is more likely a mistake than a wish
    if value == "local":
        return ExecutorSpec(kind="local")
    if value == "ray":
        return ExecutorSpec(kind="ray")
    if value.startswith("ray://"):
        found = _ADDRESS.match(value[len("ray://"):])
        port = int(found.group("port")) if found and found.group("port") else RAY_CLIENT_PORT
        if found is None or not 0 < port < 65536:
            raise InputError(f"{{executor}} {text[:200]!r} is not a Ray cluster address; "
                             "expected ray://HOST:PORT, e.g. ray://head.example:10001",
                             field="executor", settings=("executor",))
        return ExecutorSpec(kind="ray", host=found.group("host").strip("[]"), port=port)
    raise InputError(f"unknown executor {text[:200]!r}; expected local, ray or "
                     "ray://HOST:PORT", field="executor", settings=("executor",))


@contextmanager
def open_executor(spec: ExecutorSpec | str, *,
                  connect_timeout: float | None = None) -> Iterator[Executor]:
    """A running executor for ``spec``, closed (a Ray it started shut down) on exit.

    ``ray`` needs the optional extra codegold[ray] (MissingDependency otherwise); a
    cluster that cannot be reached within ``connect_timeout`` seconds is an InputError.
    """
    parsed = parse_executor(spec) if isinstance(spec, str) else spec
    executor: Executor
    if parsed.kind == "local":
        executor = LocalExecutor()
    else:
        from codegold.execute.rayexec import CONNECT_TIMEOUT_S, RayExecutor

        executor = RayExecutor.connect(parsed, timeout=connect_timeout or CONNECT_TIMEOUT_S)
    try:
        yield executor
    finally:
        executor.close()
